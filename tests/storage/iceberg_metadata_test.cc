#include "storage/iceberg_metadata.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

#include "storage/iceberg_manifest.h"
#include "storage/iceberg_partition.h"

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
  auto m = WriteManifest("file://" + (dir / "m.avro").string(), fields, 0, PartitionType{}, 42, 3, {f});
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

// A partitioned manifest: the partition tuple of each file (a month as an
// int, a day as a date, a decimal as fixed bytes, a null) read back, and
// the manifest list's summaries.
TEST(IcebergManifestTest, PartitionTuplesAndSummariesRoundTrip) {
  const auto dir = std::filesystem::temp_directory_path() / ("quiver_manifest_" + NewUuid());
  std::filesystem::create_directories(dir);
  const std::vector<SchemaField> fields = {
      {1, "ts", "timestamp", false}, {2, "d", "date", false}, {3, "p", "decimal(10,2)", false}};
  PartitionType type;
  type.fields = {{1, 1000, "ts_month", "month"}, {2, 1001, "d_day", "day"}, {3, 1002, "p", "identity"}};
  type.types = {int32(), date32(), decimal128(10, 2)};
  DataFile a;
  a.path = "file:///data/a.parquet";
  a.record_count = 1;
  a.partition = {Value::Int32(-1), Value::Date(19000), Value::Decimal(-150, 10, 2)};
  DataFile b = a;
  b.path = "file:///data/b.parquet";
  b.partition = {Value::Int32(650), Value(), Value::Decimal(7, 10, 2)};
  auto m = WriteManifest("file://" + (dir / "m.avro").string(), fields, 0, type, 42, 3, {a, b});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ASSERT_TRUE(WriteManifestList("file://" + (dir / "l.avro").string(), 42, std::nullopt, 3, {*m}).ok());
  auto list = ReadManifestList("file://" + (dir / "l.avro").string());
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->size(), 1u);
  ASSERT_TRUE((*list)[0].partitions.has_value());
  const std::vector<FieldSummary>& s = *(*list)[0].partitions;
  ASSERT_EQ(s.size(), 3u);
  EXPECT_FALSE(s[0].contains_null);
  EXPECT_EQ(Hex(*s[0].lower_bound), "ffffffff");
  EXPECT_EQ(Hex(*s[0].upper_bound), "8a020000");
  EXPECT_TRUE(s[1].contains_null);
  EXPECT_EQ(Hex(*s[1].lower_bound), "384a0000");
  EXPECT_EQ(Hex(*s[2].lower_bound), "ff6a");
  EXPECT_EQ(Hex(*s[2].upper_bound), "07");
  auto files = ReadManifest((*list)[0].path);
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  ASSERT_EQ(files->size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const DataFile& want = i == 0 ? a : b;
    ASSERT_EQ((*files)[i].partition.size(), 3u);
    for (size_t k = 0; k < 3; ++k) {
      auto v = PartitionValueAs((*files)[i].partition[k], type.types[k]);
      ASSERT_TRUE(v.has_value());
      EXPECT_EQ(v->is_null(), want.partition[k]->is_null());
      if (!v->is_null()) {
        EXPECT_EQ(v->Compare(*want.partition[k]), 0) << i << " " << k;
      }
    }
  }
  std::filesystem::remove_all(dir);
}

// Transforms and the source ranges of their values, before and after 1970.
TEST(IcebergPartitionTest, TransformsAndSourceRanges) {
  const int64_t us = 1000000;
  const Value ts = Value::Timestamp(-1);  // 1969-12-31 23:59:59.999999
  EXPECT_EQ(TransformValue("month", ts).integer(), -1);
  EXPECT_EQ(TransformValue("year", ts).integer(), -1);
  EXPECT_EQ(TransformValue("day", ts).integer(), -1);
  EXPECT_EQ(TransformValue("hour", ts).integer(), -1);
  EXPECT_EQ(TransformValue("month", Value::Date(19783)).integer(), 650);  // 2024-03-01
  auto month = SourceRange("month", Value::Int32(650), *timestamp(TimeUnit::kMicro));
  ASSERT_TRUE(month.has_value());
  EXPECT_EQ(month->first.integer(), int64_t{19783} * 86400 * us);
  EXPECT_EQ(month->second.integer(), int64_t{19814} * 86400 * us - 1);  // to 2024-03-31 end
  auto feb = SourceRange("month", Value::Int32(649), *date32());
  ASSERT_TRUE(feb.has_value());
  EXPECT_EQ(feb->first.integer(), 19754);   // 2024-02-01
  EXPECT_EQ(feb->second.integer(), 19782);  // 2024-02-29
  auto year = SourceRange("year", Value::Int32(-1), *date32());
  ASSERT_TRUE(year.has_value());
  EXPECT_EQ(year->first.integer(), -365);
  EXPECT_EQ(year->second.integer(), -1);
  EXPECT_FALSE(SourceRange("bucket[4]", Value::Int32(1), *int32()).has_value());
  EXPECT_EQ(PartitionValueType("hour", *date32()), nullptr);
  EXPECT_EQ(PartitionValueType("identity", *float64()), nullptr);
  EXPECT_TRUE(PartitionValueType("day", *timestamp(TimeUnit::kMicro, "UTC"))->Equals(*date32()));
}

}  // namespace
}  // namespace quiver::iceberg
