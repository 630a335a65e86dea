#include "storage/iceberg_metadata.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

#include "storage/iceberg_manifest.h"

namespace quiver::iceberg {
namespace {

std::string Hex(const std::string& s) {
  std::string out;
  for (unsigned char c : s) out += fmt::format("{:02x}", c);
  return out;
}

// The byte forms of the Iceberg specification's "Binary single-value
// serialization" table.
TEST(IcebergBoundsTest, SerializesAsTheSpecificationSays) {
  EXPECT_EQ(Hex(SerializeBound(Value::Boolean(true)).ValueOrDie()), "01");
  EXPECT_EQ(Hex(SerializeBound(Value::Int32(1)).ValueOrDie()), "01000000");
  EXPECT_EQ(Hex(SerializeBound(Value::Int32(-2)).ValueOrDie()), "feffffff");
  EXPECT_EQ(Hex(SerializeBound(Value::Int64(256)).ValueOrDie()), "0001000000000000");
  EXPECT_EQ(Hex(SerializeBound(Value::Double(1.0)).ValueOrDie()), "000000000000f03f");
  EXPECT_EQ(Hex(SerializeBound(Value::Float(1.0f)).ValueOrDie()), "0000803f");
  EXPECT_EQ(SerializeBound(Value::Text("abc")).ValueOrDie(), "abc");
  EXPECT_EQ(Hex(SerializeBound(Value::Date(19000)).ValueOrDie()), "384a0000");
  EXPECT_EQ(Hex(SerializeBound(Value::Timestamp(1, true)).ValueOrDie()), "0100000000000000");
  // Decimals: the unscaled value, big-endian two's complement, fewest bytes.
  EXPECT_EQ(Hex(SerializeBound(Value::Decimal(150, 10, 2)).ValueOrDie()), "0096");
  EXPECT_EQ(Hex(SerializeBound(Value::Decimal(-1, 10, 2)).ValueOrDie()), "ff");
  EXPECT_EQ(Hex(SerializeBound(Value::Decimal(127, 10, 2)).ValueOrDie()), "7f");
  EXPECT_EQ(Hex(SerializeBound(Value::Decimal(-129, 10, 2)).ValueOrDie()), "ff7f");
}

TEST(IcebergBoundsTest, RoundTrips) {
  const std::vector<Value> values = {
      Value::Boolean(false), Value::Int32(-7),          Value::Int64(int64_t{1} << 40),
      Value::Double(-2.5),   Value::Text("q"),          Value::Date(-1),
      Value::Time(3600),     Value::Timestamp(-5, false), Value::Decimal(-123456789, 20, 3)};
  for (const Value& v : values) {
    auto bytes = SerializeBound(v);
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    auto back = DeserializeBound(v.type(), *bytes);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_TRUE(back->Equals(v)) << v.ToString() << " -> " << back->ToString();
  }
  EXPECT_FALSE(DeserializeBound(int32(), "abc").ok());  // wrong width
}

TEST(IcebergTypesTest, MapsEngineTypesBothWays) {
  for (const auto& t : {boolean(), int32(), int64(), float32(), float64(), utf8(), binary(),
                        date32(), time64(TimeUnit::kMicro), timestamp(TimeUnit::kMicro),
                        timestamp(TimeUnit::kMicro, "UTC"), decimal128(12, 3)}) {
    auto name = IcebergTypeOf(*t);
    ASSERT_TRUE(name.ok()) << t->ToString();
    auto back = EngineTypeOf(*name);
    ASSERT_TRUE(back.ok()) << *name;
    EXPECT_TRUE((*back)->Equals(*t)) << *name;
  }
  EXPECT_EQ(IcebergTypeOf(*decimal128(12, 3)).ValueOrDie(), "decimal(12,3)");
  EXPECT_FALSE(IcebergTypeOf(*int16()).ok());
  EXPECT_FALSE(EngineTypeOf("uuid").ok());
}

TEST(IcebergMetadataTest, JsonRoundTripsAndFollowsTheSpecification) {
  TableMetadata m;
  m.table_uuid = NewUuid();
  m.location = "file:///tmp/db/public.db/t";
  m.fields = {{1, "id", "int", true}, {2, "name", "string", false}};
  m.last_column_id = 2;
  m.last_sequence_number = 1;
  m.last_updated_ms = 1700000000000;
  Snapshot s;
  s.snapshot_id = 42;
  s.sequence_number = 1;
  s.timestamp_ms = 1700000000000;
  s.manifest_list = "file:///tmp/db/public.db/t/metadata/snap-42.avro";
  s.operation = "append";
  m.snapshots.push_back(s);
  m.current_snapshot_id = 42;
  m.snapshot_log.emplace_back(1700000000000, 42);
  m.metadata_log.emplace_back(1690000000000, "file:///tmp/db/public.db/t/metadata/v1.metadata.json");

  const std::string text = ToJson(m);
  auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["format-version"], 2);
  EXPECT_EQ(j["current-snapshot-id"], 42);
  EXPECT_EQ(j["refs"]["main"]["snapshot-id"], 42);
  EXPECT_EQ(j["schemas"][0]["fields"][0]["id"], 1);
  EXPECT_EQ(j["schemas"][0]["fields"][0]["required"], true);
  EXPECT_EQ(j["snapshots"][0]["summary"]["operation"], "append");
  EXPECT_EQ(j["snapshots"][0]["sequence-number"], 1);

  auto back = ParseTableMetadata(text, "t");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->table_uuid, m.table_uuid);
  EXPECT_EQ(back->fields.size(), 2u);
  EXPECT_EQ(back->fields[1].name, "name");
  EXPECT_FALSE(back->fields[1].required);
  ASSERT_NE(back->current_snapshot(), nullptr);
  EXPECT_EQ(back->current_snapshot()->manifest_list, s.manifest_list);
  EXPECT_EQ(back->metadata_log.size(), 1u);
  EXPECT_EQ(ToJson(*back), text);
}

TEST(IcebergMetadataTest, MalformedMetadataIsAnError) {
  EXPECT_FALSE(ParseTableMetadata("", "x").ok());
  EXPECT_FALSE(ParseTableMetadata("[1]", "x").ok());
  EXPECT_FALSE(ParseTableMetadata(R"({"format-version": 2})", "x").ok());
  EXPECT_FALSE(ParseTableMetadata(R"({"format-version": 3, "location": "x"})", "x").ok());
  // A current snapshot that is not listed.
  TableMetadata m;
  m.location = "file:///x";
  m.fields = {{1, "a", "int", false}};
  m.current_snapshot_id = 7;
  EXPECT_FALSE(ParseTableMetadata(ToJson(m), "x").ok());
}

TEST(IcebergMetadataTest, ViewMetadataRoundTrips) {
  ViewMetadata v;
  v.view_uuid = NewUuid();
  v.location = "file:///tmp/db/public.db/views";
  v.sql = "SELECT k, v FROM base WHERE k > 1";
  v.fields = {{1, "key", "int", false}, {2, "val", "string", false}};
  v.timestamp_ms = 1700000000000;
  const std::string text = ToJson(v);
  auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["format-version"], 1);
  EXPECT_EQ(j["versions"][0]["representations"][0]["dialect"], "postgresql");
  EXPECT_EQ(j["schemas"][0]["fields"][1]["name"], "val");
  auto back = ParseViewMetadata(text, "v");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->sql, v.sql);
  ASSERT_EQ(back->fields.size(), 2u);
  EXPECT_EQ(back->fields[0].name, "key");
  EXPECT_FALSE(ParseViewMetadata(R"({"current-version-id": 1, "location": "x"})", "v").ok());
}

TEST(IcebergManifestTest, ManifestAndListRoundTrip) {
  const auto dir = std::filesystem::temp_directory_path() / ("quiver_manifest_" + NewUuid());
  std::filesystem::create_directories(dir);
  DataFile f;
  f.path = "file:///data/a.parquet";
  f.record_count = 10;
  f.file_size = 1234;
  f.value_counts = {{1, 10}, {2, 10}};
  f.null_counts = {{1, 0}, {2, 3}};
  f.lower_bounds = {{1, SerializeBound(Value::Int32(-5)).ValueOrDie()}};
  f.upper_bounds = {{1, SerializeBound(Value::Int32(99)).ValueOrDie()}};
  const std::vector<SchemaField> fields = {{1, "a", "int", false}, {2, "b", "string", false}};
  auto m = WriteManifest("file://" + (dir / "m.avro").string(), fields, 0, 42, 3, {f});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->added_files, 1);
  EXPECT_EQ(m->added_rows, 10);
  EXPECT_EQ(m->length, static_cast<int64_t>(std::filesystem::file_size(dir / "m.avro")));
  ASSERT_TRUE(WriteManifestList("file://" + (dir / "l.avro").string(), 42, std::nullopt, 3, {*m}).ok());

  auto list = ReadManifestList("file://" + (dir / "l.avro").string());
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].path, m->path);
  EXPECT_EQ((*list)[0].sequence_number, 3);
  EXPECT_EQ((*list)[0].added_snapshot_id, 42);
  auto files = ReadManifest((*list)[0].path);
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  ASSERT_EQ(files->size(), 1u);
  EXPECT_EQ((*files)[0].path, f.path);
  EXPECT_EQ((*files)[0].record_count, 10);
  EXPECT_EQ((*files)[0].null_counts, f.null_counts);
  EXPECT_EQ((*files)[0].lower_bounds, f.lower_bounds);
  EXPECT_EQ((*files)[0].upper_bounds, f.upper_bounds);
  // A file that is not Avro is an error, not a crash.
  ASSERT_TRUE(WriteManifestList("file://" + (dir / "l.avro").string(), 42, std::nullopt, 3, {}).ok());
  std::filesystem::resize_file(dir / "m.avro", 20);
  EXPECT_FALSE(ReadManifest("file://" + (dir / "m.avro").string()).ok());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace quiver::iceberg
