// A real server (FlightServer over the engine, loopback, any port) sent
// hostile DoPut streams through the generated gRPC stub: no descriptor,
// a truncated IPC header, a body shorter than its header says, garbage, a
// batch before its schema. Each gets a clear INVALID_ARGUMENT, nothing is
// ingested, and the server goes on serving. (pyarrow cannot send such bytes.)
#include <gtest/gtest.h>
#include <grpcpp/grpcpp.h>

#include "columnar/builder.h"
#include "engine/database.h"
#include "formats/ipc/message_codec.h"
#include "proto/Flight.grpc.pb.h"
#include "server/commands.h"
#include "server/engine_backend.h"
#include "server/flight_data.h"
#include "server/flight_server.h"
#include "util/status_util.h"

namespace quiver::server {
namespace {

using ::quiver::testing::Unwrap;

class HostilePut : public ::testing::Test {
 protected:
  void SetUp() override {
    FlightServerOptions options;
    options.port = 0;
    options.log = [](const std::string&) {};
    server_ = Unwrap(FlightServer::Start(options, MakeEngineBackend(std::make_shared<Database>())));
    auto channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(server_->port()),
                                       grpc::InsecureChannelCredentials());
    stub_ = pb::FlightService::NewStub(channel);
  }

  // FlightData messages for an ingest of `rows` int64 rows into `table`:
  // [0] the schema (with the descriptor), [1] the record batch.
  std::vector<pb::FlightData> IngestMessages(const std::string& table, int rows) {
    Int64Builder b(int64());
    for (int i = 0; i < rows; ++i) EXPECT_TRUE(b.Append(i).ok());
    auto s = schema({field("x", int64())});
    auto batch = RecordBatch::Make(s, rows, {Unwrap(b.Finish())});
    ipc::MessageEncoder encoder(s);
    std::vector<ipc::EncodedMessage> messages{encoder.EncodeSchema()};
    EXPECT_TRUE(encoder.EncodeBatch(*batch, &messages).ok());
    std::vector<pb::FlightData> out;
    for (const auto& m : messages) {
      std::vector<WirePiece> pieces;
      EncodeFlightData(m, {}, &pieces);
      std::string bytes;
      for (const auto& p : pieces) bytes += p.buffer ? std::string(p.buffer->view()) : p.bytes;
      pb::FlightData data;
      EXPECT_TRUE(data.ParseFromString(bytes));
      out.push_back(std::move(data));
    }
    sqlpb::CommandStatementIngest ingest;
    ingest.set_table(table);
    ingest.mutable_table_definition_options()->set_if_not_exist(
        sqlpb::CommandStatementIngest::TableDefinitionOptions::TABLE_NOT_EXIST_OPTION_CREATE);
    ingest.mutable_table_definition_options()->set_if_exists(
        sqlpb::CommandStatementIngest::TableDefinitionOptions::TABLE_EXISTS_OPTION_APPEND);
    out[0].mutable_flight_descriptor()->set_type(pb::FlightDescriptor::CMD);
    out[0].mutable_flight_descriptor()->set_cmd(PackAny(ingest));
    return out;
  }

  grpc::Status Put(const std::vector<pb::FlightData>& messages) {
    grpc::ClientContext ctx;
    auto stream = stub_->DoPut(&ctx);
    for (const auto& m : messages) {
      if (!stream->Write(m)) break;
    }
    stream->WritesDone();
    pb::PutResult result;
    while (stream->Read(&result)) {
    }
    return stream->Finish();
  }

  // The row count of `table` through GetFlightInfo + DoGet, or -1 on error.
  int64_t Count(const std::string& table) {
    pb::FlightDescriptor d;
    d.set_type(pb::FlightDescriptor::CMD);
    d.set_cmd("SELECT count(*) FROM " + table);
    pb::FlightInfo info;
    grpc::ClientContext ctx;
    if (!stub_->GetFlightInfo(&ctx, d, &info).ok() || info.endpoint_size() != 1) return -1;
    grpc::ClientContext get_ctx;
    auto reader = stub_->DoGet(&get_ctx, info.endpoint(0).ticket());
    ipc::MessageDecoder decoder;
    pb::FlightData data;
    int64_t count = -1;
    while (reader->Read(&data)) {
      auto header = Unwrap(Buffer::CopyFrom(data.data_header()));
      auto body = Unwrap(Buffer::CopyFrom(data.data_body()));
      RecordBatchRef batch;
      if (!decoder.Consume(header, body, &batch).ok()) return -1;
      if (batch != nullptr && batch->num_rows() == 1) {
        count = batch->column(0)->GetValues<int64_t>(1)[0];
      }
    }
    return reader->Finish().ok() ? count : -1;
  }

  std::unique_ptr<FlightServer> server_;
  std::unique_ptr<pb::FlightService::Stub> stub_;
};

TEST_F(HostilePut, RefusedWithClearErrorsAndTheServerServes) {
  // A well-formed ingest works (the baseline).
  ASSERT_TRUE(Put(IngestMessages("t", 5)).ok());
  ASSERT_EQ(Count("t"), 5);

  struct Case {
    const char* what;
    std::function<void(std::vector<pb::FlightData>*)> spoil;
    const char* message;  // expected in the error
  };
  const std::vector<Case> cases = {
      {"no descriptor", [](auto* m) { (*m)[0].clear_flight_descriptor(); },
       "must carry a FlightDescriptor"},
      {"truncated batch header",
       [](auto* m) {
         auto& h = *(*m)[1].mutable_data_header();
         h.resize(h.size() / 2);
       },
       "DoPut message 2"},
      {"truncated schema header",
       [](auto* m) {
         auto& h = *(*m)[0].mutable_data_header();
         h.resize(h.size() - 9);
       },
       "DoPut message 1"},
      {"body shorter than the header says",
       [](auto* m) {
         auto& b = *(*m)[1].mutable_data_body();
         b.resize(b.size() / 3);
       },
       "DoPut message 2"},
      {"garbage header", [](auto* m) { (*m)[1].set_data_header(std::string(40, '\xAB')); },
       "DoPut message 2"},
      {"batch before its schema", [](auto* m) { (*m)[0].clear_data_header(); },
       "DoPut message 2"},
      {"garbage command",
       [](auto* m) { (*m)[0].mutable_flight_descriptor()->set_cmd(std::string("\xff\x00\x01", 3)); },
       "neither a packed Flight SQL command"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    auto messages = IngestMessages("t", 3);
    c.spoil(&messages);
    grpc::Status st = Put(messages);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << st.error_message();
    EXPECT_NE(st.error_message().find(c.message), std::string::npos) << st.error_message();
    // All or nothing, and still serving.
    EXPECT_EQ(Count("t"), 5);
  }
  ASSERT_TRUE(Put(IngestMessages("t", 2)).ok());
  EXPECT_EQ(Count("t"), 7);
}

}  // namespace
}  // namespace quiver::server
