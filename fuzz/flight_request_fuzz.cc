// libFuzzer harness for the Flight SQL server's request decoding: what a
// client controls before any SQL runs. No gRPC server: the decoding
// functions the RPC methods call are called directly.
//
// The first input byte picks what the rest is taken as:
//   even  a FlightDescriptor (as GetFlightInfo / GetSchema / DoPut receive
//         it), its cmd decoded by DecodeCommand (an Any-packed Flight SQL
//         command, or SQL text) and unpacked into the message its type URL
//         names; the same bytes as a ticket and as the bodies of the actions
//         the server accepts.
//   odd   a DoPut stream: records of [u32 little-endian length][FlightData],
//         each parsed by ParseFlightData, its header and body fed to one
//         ipc::MessageDecoder (the first message must be a Schema), every
//         batch's values touched.
// Seeds: fuzz/seeds/flight/ (fuzz/seeds/make_flight_seeds.py writes them).
// Any input must give values or an error Status; crashes, sanitizer reports
// and leaks are bugs.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include <google/protobuf/stubs/logging.h>

#include "columnar/array.h"
#include "formats/ipc/message_codec.h"
#include "server/commands.h"
#include "server/flight_data.h"

namespace {

using namespace quiver;
using namespace quiver::server;

template <typename T>
void UnpackAs(const Command& cmd) {
  T message;
  if (cmd.Unpack(&message).ok()) (void)message.ByteSizeLong();
}

void UnpackCommand(const Command& cmd) {
  switch (cmd.kind) {
    case CommandKind::kSqlText:
      (void)cmd.sql.size();
      break;
    case CommandKind::kStatementQuery:
      UnpackAs<sqlpb::CommandStatementQuery>(cmd);
      break;
    case CommandKind::kStatementUpdate:
      UnpackAs<sqlpb::CommandStatementUpdate>(cmd);
      break;
    case CommandKind::kStatementSubstraitPlan:
      UnpackAs<sqlpb::CommandStatementSubstraitPlan>(cmd);
      break;
    case CommandKind::kStatementIngest:
      UnpackAs<sqlpb::CommandStatementIngest>(cmd);
      break;
    case CommandKind::kPreparedStatementQuery:
      UnpackAs<sqlpb::CommandPreparedStatementQuery>(cmd);
      break;
    case CommandKind::kPreparedStatementUpdate:
      UnpackAs<sqlpb::CommandPreparedStatementUpdate>(cmd);
      break;
    case CommandKind::kTicketStatementQuery:
      UnpackAs<sqlpb::TicketStatementQuery>(cmd);
      break;
    case CommandKind::kGetCatalogs:
      UnpackAs<sqlpb::CommandGetCatalogs>(cmd);
      break;
    case CommandKind::kGetDbSchemas:
      UnpackAs<sqlpb::CommandGetDbSchemas>(cmd);
      break;
    case CommandKind::kGetTables:
      UnpackAs<sqlpb::CommandGetTables>(cmd);
      break;
    case CommandKind::kGetTableTypes:
      UnpackAs<sqlpb::CommandGetTableTypes>(cmd);
      break;
    case CommandKind::kGetSqlInfo:
      UnpackAs<sqlpb::CommandGetSqlInfo>(cmd);
      break;
    case CommandKind::kGetXdbcTypeInfo:
      UnpackAs<sqlpb::CommandGetXdbcTypeInfo>(cmd);
      break;
    case CommandKind::kGetPrimaryKeys:
      UnpackAs<sqlpb::CommandGetPrimaryKeys>(cmd);
      break;
    case CommandKind::kGetExportedKeys:
      UnpackAs<sqlpb::CommandGetExportedKeys>(cmd);
      break;
    case CommandKind::kGetImportedKeys:
      UnpackAs<sqlpb::CommandGetImportedKeys>(cmd);
      break;
    case CommandKind::kGetCrossReference:
      UnpackAs<sqlpb::CommandGetCrossReference>(cmd);
      break;
    case CommandKind::kUnknown:
      (void)cmd.name.size();
      break;
  }
}

template <typename T>
void ParseAction(std::string_view body) {
  T request;
  if (ParseActionBody(body, &request).ok()) (void)request.ByteSizeLong();
}

void FuzzDescriptor(std::string_view bytes) {
  pb::FlightDescriptor descriptor;
  if (descriptor.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    auto cmd = DecodeCommand(descriptor.cmd(), /*allow_sql_text=*/true);
    if (cmd.ok()) UnpackCommand(*cmd);
  }
  for (bool sql_text : {true, false}) {
    auto cmd = DecodeCommand(bytes, sql_text);
    if (cmd.ok()) UnpackCommand(*cmd);
  }
  ParseAction<sqlpb::ActionCreatePreparedStatementRequest>(bytes);
  ParseAction<sqlpb::ActionClosePreparedStatementRequest>(bytes);
  ParseAction<sqlpb::ActionEndTransactionRequest>(bytes);
  ParseAction<sqlpb::ActionCancelQueryRequest>(bytes);
  ParseAction<pb::CancelFlightInfoRequest>(bytes);
  ParseAction<pb::SetSessionOptionsRequest>(bytes);
  // CancelFlightInfo decodes the tickets of the FlightInfo it is given.
  pb::CancelFlightInfoRequest cancel;
  if (ParseActionBody(bytes, &cancel).ok()) {
    for (const auto& endpoint : cancel.info().endpoint()) {
      auto cmd = DecodeCommand(endpoint.ticket().ticket(), /*allow_sql_text=*/false);
      if (cmd.ok()) UnpackCommand(*cmd);
    }
  }
}

void FuzzPutStream(std::string_view bytes) {
  ipc::MessageDecoder decoder;
  int messages = 0;
  while (bytes.size() >= 4 && messages < 64) {
    uint32_t length = 0;
    std::memcpy(&length, bytes.data(), 4);  // little-endian hosts only (x86-64, arm64)
    bytes.remove_prefix(4);
    if (length > bytes.size()) length = static_cast<uint32_t>(bytes.size());
    // Copy into pool memory: gRPC hands the server a slice of its own.
    auto message = Buffer::CopyFrom(bytes.substr(0, length));
    bytes.remove_prefix(length);
    if (!message.ok()) return;
    auto view = ParseFlightData(*message);
    if (!view.ok()) continue;  // the server ends the call here; keep fuzzing the rest
    ++messages;
    if (view->has_descriptor) FuzzDescriptor(view->descriptor);
    if (view->header == nullptr) continue;
    RecordBatchRef batch;
    if (!decoder.Consume(view->header, view->body, &batch).ok()) return;
    if (batch == nullptr) continue;
    for (const auto& column : batch->columns()) (void)ArrayEquals(*column, *column);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // protobuf logs every invalid UTF-8 string field it parses; hostile input
  // is the point here, and the messages would drown the fuzzer's output.
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 0) {
    FuzzDescriptor(rest);
  } else {
    FuzzPutStream(rest);
  }
  return 0;
}
