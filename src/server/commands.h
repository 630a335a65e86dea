// Decoding of what clients put in FlightDescriptor.cmd, Ticket.ticket and
// Action.body: a Flight SQL message packed in a google.protobuf.Any, or, for
// descriptors, plain SQL text (pyarrow.flight users write
// FlightDescriptor.for_command(b"SELECT ...")).
//
// PRIVATE to src/server (exposes generated protobuf classes).
#pragma once

#include <string>
#include <string_view>

#include <google/protobuf/any.pb.h>

#include "common/status.h"
#include "proto/Flight.pb.h"
#include "proto/FlightSql.pb.h"

namespace quiver::server {

namespace pb = ::arrow::flight::protocol;
namespace sqlpb = ::arrow::flight::protocol::sql;

enum class CommandKind : int8_t {
  kSqlText,  // not an Any: the bytes are SQL
  kStatementQuery,
  kStatementUpdate,
  kStatementSubstraitPlan,
  kStatementIngest,
  kPreparedStatementQuery,
  kPreparedStatementUpdate,
  kTicketStatementQuery,
  kGetCatalogs,
  kGetDbSchemas,
  kGetTables,
  kGetTableTypes,
  kGetSqlInfo,
  kGetXdbcTypeInfo,
  kGetPrimaryKeys,
  kGetExportedKeys,
  kGetImportedKeys,
  kGetCrossReference,
  kUnknown,  // a packed message of another type: `name` says which
};

struct Command {
  CommandKind kind = CommandKind::kUnknown;
  std::string name;  // the message's full name, or "SQL text"
  google::protobuf::Any any;
  std::string sql;  // kSqlText

  // Unpacks the Any into `out`; Invalid when the bytes do not parse.
  template <typename T>
  Status Unpack(T* out) const {
    if (!any.UnpackTo(out)) return Status::Invalid("malformed {} message", name);
    return Status::OK();
  }
};

// `bytes` from a FlightDescriptor (SQL text allowed) or a ticket (not).
// Invalid for bytes that are neither a packed message nor SQL text.
Result<Command> DecodeCommand(std::string_view bytes, bool allow_sql_text);

// An Any whose type URL names `message`.
std::string PackAny(const google::protobuf::Message& message);

// Action bodies: Flight SQL clients pack requests in an Any, Flight's own
// actions (CancelFlightInfo, session options) send the bare message. Accepts
// both for every action.
template <typename T>
Status ParseActionBody(std::string_view body, T* out) {
  google::protobuf::Any any;
  if (!body.empty() && any.ParseFromArray(body.data(), static_cast<int>(body.size())) &&
      any.Is<T>()) {
    if (any.UnpackTo(out)) return Status::OK();
  } else if (out->ParseFromArray(body.data(), static_cast<int>(body.size()))) {
    return Status::OK();
  }
  return Status::Invalid("malformed {} in the action body", T::descriptor()->name());
}

}  // namespace quiver::server
