// DoAction and ListActions (handler.h): prepared statements, cancellation,
// transactions and session options.
#include <utility>

#include "formats/ipc/message_codec.h"
#include "server/handler.h"

namespace quiver::server {
namespace {

using Results = std::vector<std::string>;

struct ActionInfo {
  const char* type;
  const char* description;
};

constexpr ActionInfo kActions[] = {
    {"CreatePreparedStatement",
     "Flight SQL: prepare a statement (any statement; DDL and DML have an empty dataset schema)"},
    {"ClosePreparedStatement", "Flight SQL: close a prepared statement"},
    {"CancelFlightInfo", "Cancel the query behind a FlightInfo (stops running DoGets)"},
    {"CancelQuery", "Flight SQL (deprecated): cancel the query behind a FlightInfo"},
    {"BeginTransaction",
     "Flight SQL: accepted; every statement commits on its own (statement-level atomicity)"},
    {"EndTransaction", "Flight SQL: commit is accepted; rollback is refused"},
    {"SetSessionOptions", "Set session options (schema: only \"public\")"},
    {"GetSessionOptions", "Get the session options"},
    {"CloseSession", "End the session: tokens, prepared statements and temporary tables go"},
    {"RenewFlightEndpoint", "Returns the endpoint unchanged (tickets do not expire while used)"},
};

}  // namespace

std::vector<pb::ActionType> Handler::ListActions() const {
  std::vector<pb::ActionType> out;
  for (const ActionInfo& a : kActions) {
    pb::ActionType t;
    t.set_type(a.type);
    t.set_description(a.description);
    out.push_back(std::move(t));
  }
  return out;
}

Result<Results> Handler::CreatePrepared(const Caller& caller, std::string_view body) {
  sqlpb::ActionCreatePreparedStatementRequest req;
  QUIVER_RETURN_NOT_OK(ParseActionBody(body, &req));
  QUIVER_ASSIGN_OR_RAISE(auto query, Prepare(req.query()));
  auto p = std::make_shared<Prepared>();
  p->user = caller.user;
  p->session = caller.session;
  p->sql = req.query();
  p->query = query;
  QUIVER_ASSIGN_OR_RAISE(p, registry_.AddPrepared(std::move(p)));
  sqlpb::ActionCreatePreparedStatementResult result;
  result.set_prepared_statement_handle(p->handle);
  if (query->returns_rows()) {
    result.set_dataset_schema(ipc::SerializeSchema(*query->result_schema()));
  }
  // Parameter types are only known once values are bound: null-typed
  // fields, one per placeholder.
  if (query->num_parameters() > 0) {
    std::vector<FieldRef> fields;
    for (int i = 1; i <= query->num_parameters(); ++i) {
      fields.push_back(field("$" + std::to_string(i), null()));
    }
    result.set_parameter_schema(ipc::SerializeSchema(*schema(std::move(fields))));
  }
  result.set_is_update(!query->returns_rows());
  return Results{PackAny(result)};
}

Result<Results> Handler::ClosePrepared(const Caller& caller, std::string_view body) {
  sqlpb::ActionClosePreparedStatementRequest req;
  QUIVER_RETURN_NOT_OK(ParseActionBody(body, &req));
  // Closing an unknown (expired) handle is not an error: the goal is met.
  registry_.RemovePrepared(req.prepared_statement_handle(), caller.user);
  return Results{};
}

Result<Results> Handler::Cancel(const Caller& caller, const pb::FlightInfo& info, bool legacy) {
  int cancelled = 0;
  for (const auto& endpoint : info.endpoint()) {
    auto cmd = DecodeCommand(endpoint.ticket().ticket(), /*allow_sql_text=*/false);
    if (!cmd.ok() || cmd->kind != CommandKind::kTicketStatementQuery) continue;
    sqlpb::TicketStatementQuery t;
    if (!cmd->Unpack(&t).ok()) continue;
    if (auto e = registry_.FindExecution(t.statement_handle(), caller.user)) {
      e->cancel->Cancel();
      ++cancelled;
    }
  }
  if (legacy) {
    sqlpb::ActionCancelQueryResult r;
    r.set_result(cancelled > 0 ? sqlpb::ActionCancelQueryResult::CANCEL_RESULT_CANCELLED
                               : sqlpb::ActionCancelQueryResult::CANCEL_RESULT_NOT_CANCELLABLE);
    return Results{PackAny(r)};
  }
  pb::CancelFlightInfoResult r;
  r.set_status(cancelled > 0 ? pb::CANCEL_STATUS_CANCELLED : pb::CANCEL_STATUS_NOT_CANCELLABLE);
  return Results{r.SerializeAsString()};
}

Result<Results> Handler::BeginTransaction(const Caller& caller) {
  sqlpb::ActionBeginTransactionResult r;
  r.set_transaction_id("txn-" + std::to_string(next_transaction_.fetch_add(1)));
  return Results{PackAny(r)};
}

Result<Results> Handler::EndTransaction(const Caller& caller, std::string_view body) {
  sqlpb::ActionEndTransactionRequest req;
  QUIVER_RETURN_NOT_OK(ParseActionBody(body, &req));
  switch (req.action()) {
    case sqlpb::ActionEndTransactionRequest::END_TRANSACTION_COMMIT:
      return Results{};  // every statement already committed
    case sqlpb::ActionEndTransactionRequest::END_TRANSACTION_ROLLBACK:
      return Status::Unsupported(
          "ROLLBACK: each statement was committed when it ran (Quiver has statement-level "
          "atomicity, not multi-statement transactions)");
    default:
      return Status::Invalid("EndTransaction without commit or rollback");
  }
}

namespace {

std::string OptionText(const pb::SessionOptionValue& v) {
  switch (v.option_value_case()) {
    case pb::SessionOptionValue::kStringValue:
      return v.string_value();
    case pb::SessionOptionValue::kBoolValue:
      return v.bool_value() ? "true" : "false";
    case pb::SessionOptionValue::kInt64Value:
      return std::to_string(v.int64_value());
    case pb::SessionOptionValue::kDoubleValue:
      return fmt::format("{}", v.double_value());
    case pb::SessionOptionValue::kStringListValue: {
      std::string out;
      for (const auto& s : v.string_list_value().values()) out += (out.empty() ? "" : ",") + s;
      return out;
    }
    default:
      return "";
  }
}

}  // namespace

Result<Results> Handler::SetSessionOptions(const Caller& caller, std::string_view body) {
  pb::SetSessionOptionsRequest req;
  QUIVER_RETURN_NOT_OK(ParseActionBody(body, &req));
  auto session = registry_.GetSession(caller.session, caller.user);
  pb::SetSessionOptionsResult result;
  std::lock_guard<std::mutex> lock(session->mu);
  for (const auto& [name, value] : req.session_options()) {
    const bool unset = value.option_value_case() == pb::SessionOptionValue::OPTION_VALUE_NOT_SET;
    const std::string text = OptionText(value);
    // One schema and no catalogs: only those may be "chosen".
    bool bad_endpoints = false;
    if (name == kEndpointsOption && !unset) {
      const bool digits = !text.empty() && text.size() <= 3 &&
                          text.find_first_not_of("0123456789") == std::string::npos;
      bad_endpoints = !digits || std::stoi(text) < 1 || std::stoi(text) > kMaxEndpoints;
    }
    if (bad_endpoints || (name == "catalog" && !text.empty()) ||
        (name == "schema" && !text.empty() && text != "public")) {
      (*result.mutable_errors())[name].set_value(pb::SetSessionOptionsResult::INVALID_VALUE);
      continue;
    }
    if (unset) {
      session->options.erase(name);
    } else {
      session->options[name] = text;
    }
  }
  return Results{result.SerializeAsString()};
}

Result<Results> Handler::GetSessionOptions(const Caller& caller) {
  auto session = registry_.GetSession(caller.session, caller.user);
  pb::GetSessionOptionsResult result;
  std::lock_guard<std::mutex> lock(session->mu);
  for (const auto& [name, value] : session->options) {
    (*result.mutable_session_options())[name].set_string_value(value);
  }
  return Results{result.SerializeAsString()};
}

Result<Results> Handler::CloseSessionAction(const Caller& caller) {
  EndSession(registry_.CloseSession(caller.session));
  pb::CloseSessionResult r;
  r.set_status(pb::CloseSessionResult::CLOSED);
  return Results{r.SerializeAsString()};
}

Result<Results> Handler::DoAction(const Caller& caller, const pb::Action& action) {
  const std::string& type = action.type();
  const std::string_view body = action.body();
  if (type == "CreatePreparedStatement") return CreatePrepared(caller, body);
  if (type == "ClosePreparedStatement") return ClosePrepared(caller, body);
  if (type == "CancelFlightInfo") {
    pb::CancelFlightInfoRequest req;
    QUIVER_RETURN_NOT_OK(ParseActionBody(body, &req));
    return Cancel(caller, req.info(), /*legacy=*/false);
  }
  if (type == "CancelQuery") {
    sqlpb::ActionCancelQueryRequest req;
    QUIVER_RETURN_NOT_OK(ParseActionBody(body, &req));
    pb::FlightInfo info;
    if (!info.ParseFromString(req.info()))
      return Status::Invalid("CancelQuery: malformed FlightInfo");
    return Cancel(caller, info, /*legacy=*/true);
  }
  if (type == "BeginTransaction") return BeginTransaction(caller);
  if (type == "EndTransaction") return EndTransaction(caller, body);
  if (type == "SetSessionOptions") return SetSessionOptions(caller, body);
  if (type == "GetSessionOptions") return GetSessionOptions(caller);
  if (type == "CloseSession") return CloseSessionAction(caller);
  if (type == "RenewFlightEndpoint") {
    pb::RenewFlightEndpointRequest req;
    QUIVER_RETURN_NOT_OK(ParseActionBody(body, &req));
    return Results{req.endpoint().SerializeAsString()};
  }
  if (type == "BeginSavepoint" || type == "EndSavepoint") {
    return Status::Unsupported("savepoints (action {})", type);
  }
  if (type == "CreatePreparedSubstraitPlan") return Status::Unsupported("Substrait plans");
  std::string printable;
  for (unsigned char c : type.substr(0, 80)) printable += (c >= 0x20 && c < 0x7F) ? char(c) : '?';
  return Status::Unsupported("action \"{}\" (ListActions names those Quiver knows)", printable);
}

}  // namespace quiver::server
