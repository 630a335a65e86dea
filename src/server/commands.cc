// Flight SQL command decoding (commands.h).
#include "server/commands.h"

#include <utility>

#include "common/utf8.h"

namespace quiver::server {
namespace {

constexpr std::string_view kTypePrefix = "type.googleapis.com/";
constexpr std::string_view kSqlPackage = "arrow.flight.protocol.sql.";

struct Known {
  std::string_view name;
  CommandKind kind;
};

constexpr Known kKnown[] = {
    {"CommandStatementQuery", CommandKind::kStatementQuery},
    {"CommandStatementUpdate", CommandKind::kStatementUpdate},
    {"CommandStatementSubstraitPlan", CommandKind::kStatementSubstraitPlan},
    {"CommandStatementIngest", CommandKind::kStatementIngest},
    {"CommandPreparedStatementQuery", CommandKind::kPreparedStatementQuery},
    {"CommandPreparedStatementUpdate", CommandKind::kPreparedStatementUpdate},
    {"TicketStatementQuery", CommandKind::kTicketStatementQuery},
    {"CommandGetCatalogs", CommandKind::kGetCatalogs},
    {"CommandGetDbSchemas", CommandKind::kGetDbSchemas},
    {"CommandGetTables", CommandKind::kGetTables},
    {"CommandGetTableTypes", CommandKind::kGetTableTypes},
    {"CommandGetSqlInfo", CommandKind::kGetSqlInfo},
    {"CommandGetXdbcTypeInfo", CommandKind::kGetXdbcTypeInfo},
    {"CommandGetPrimaryKeys", CommandKind::kGetPrimaryKeys},
    {"CommandGetExportedKeys", CommandKind::kGetExportedKeys},
    {"CommandGetImportedKeys", CommandKind::kGetImportedKeys},
    {"CommandGetCrossReference", CommandKind::kGetCrossReference},
};

// Printable form of untrusted bytes for error messages.
std::string Printable(std::string_view s) {
  std::string out;
  for (unsigned char c : s.substr(0, 80)) {
    out += (c >= 0x20 && c < 0x7F) ? static_cast<char>(c) : '?';
  }
  if (s.size() > 80) out += "...";
  return out;
}

}  // namespace

Result<Command> DecodeCommand(std::string_view bytes, bool allow_sql_text) {
  Command cmd;
  if (bytes.empty()) return Status::Invalid("empty command");
  if (bytes.size() > (size_t{1} << 30)) return Status::Invalid("command too large");
  if (cmd.any.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())) &&
      cmd.any.type_url().size() > kTypePrefix.size() &&
      std::string_view(cmd.any.type_url()).substr(0, kTypePrefix.size()) == kTypePrefix) {
    const std::string_view full = std::string_view(cmd.any.type_url()).substr(kTypePrefix.size());
    cmd.name = Printable(full);
    if (full.substr(0, kSqlPackage.size()) == kSqlPackage) {
      const std::string_view name = full.substr(kSqlPackage.size());
      for (const Known& k : kKnown) {
        if (k.name == name) {
          cmd.kind = k.kind;
          return cmd;
        }
      }
    }
    cmd.kind = CommandKind::kUnknown;
    return cmd;
  }
  if (allow_sql_text && ValidateUtf8(bytes)) {
    cmd.kind = CommandKind::kSqlText;
    cmd.name = "SQL text";
    cmd.sql = std::string(bytes);
    return cmd;
  }
  return Status::Invalid(
      "{} is neither a packed Flight SQL command nor SQL text (starts with '{}')",
      allow_sql_text ? "command" : "ticket", Printable(bytes));
}

std::string PackAny(const google::protobuf::Message& message) {
  google::protobuf::Any any;
  any.PackFrom(message);
  return any.SerializeAsString();
}

}  // namespace quiver::server
