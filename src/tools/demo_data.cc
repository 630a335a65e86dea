// The demo data set's generator (demo_data.h).
#include "tools/demo_data.h"

#include <cmath>

#include "columnar/builder.h"

namespace quiver::cli {
namespace {

// SplitMix64: tiny, fast and identical on every platform (std::
// distributions are not, so they would break determinism across libraries).
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }  // [0, 1)
  int64_t Below(int64_t n) { return static_cast<int64_t>(Next() % static_cast<uint64_t>(n)); }

 private:
  uint64_t state_;
};

constexpr int64_t kStartMicros = 1717200000LL * 1000000;  // 2024-06-01T00:00:00Z
constexpr int64_t kStepMicros = 100000;                   // 10 readings per second
constexpr int kNumSensors = 64;

}  // namespace

SchemaRef DemoReadingsSchema() {
  return schema(
      {field("sensor_id", int32(), false), field("ts", timestamp(TimeUnit::kMicro, "UTC"), false),
       field("temperature", float64(), false, {{"unit", "celsius"}}),
       field("humidity", float32(), true, {{"unit", "percent"}}),
       field("status", dictionary(int8(), utf8()), false), field("ok", boolean(), false)},
      {{"quiver.demo", "IoT sensor readings"}, {"generator", "quiver demo"}});
}

Result<std::vector<RecordBatchRef>> GenerateDemoReadings(int64_t rows, int64_t batch_rows,
                                                         uint64_t seed) {
  const SchemaRef schema = DemoReadingsSchema();
  static const char* kStatus[] = {"ok", "warn", "error", "offline"};
  // One dictionary shared by every batch: IPC files cannot replace a dictionary.
  StringBuilder dict_builder(utf8());
  for (const char* s : kStatus) QUIVER_RETURN_NOT_OK(dict_builder.Append(s));
  QUIVER_ASSIGN_OR_RAISE(ArrayRef dictionary, dict_builder.Finish());

  double sensor_offset[kNumSensors];
  SplitMix64 rng(seed);
  for (double& o : sensor_offset) o = rng.Uniform() * 4 - 2;

  std::vector<RecordBatchRef> batches;
  for (int64_t start = 0; start < rows; start += batch_rows) {
    const int64_t n = std::min(batch_rows, rows - start);
    Int32Builder sensor(int32());
    Int64Builder ts(schema->field(1)->type);
    DoubleBuilder temperature(float64());
    FloatBuilder humidity(float32());
    Int8Builder status(int8());
    BooleanBuilder ok;
    for (int64_t r = start; r < start + n; ++r) {
      const auto id = static_cast<int32_t>(rng.Below(kNumSensors));
      const int64_t micros = kStartMicros + r * kStepMicros + rng.Below(1000);
      const double hour = static_cast<double>(micros % 86400000000LL) / 3600e6;
      const double t =
          21 + 4 * std::sin((hour - 9) * M_PI / 12) + sensor_offset[id] + (rng.Uniform() - 0.5);
      const double u = rng.Uniform();
      const int8_t code = u < 0.90 ? 0 : u < 0.96 ? 1 : u < 0.99 ? 2 : 3;
      QUIVER_RETURN_NOT_OK(sensor.Append(id + 1));
      QUIVER_RETURN_NOT_OK(ts.Append(micros));
      QUIVER_RETURN_NOT_OK(temperature.Append(std::round(t * 100) / 100));
      if (rng.Below(50) == 0) {
        QUIVER_RETURN_NOT_OK(humidity.AppendNull());
      } else {
        QUIVER_RETURN_NOT_OK(
            humidity.Append(static_cast<float>(std::round((30 + 40 * rng.Uniform()) * 10) / 10)));
      }
      QUIVER_RETURN_NOT_OK(status.Append(code));
      QUIVER_RETURN_NOT_OK(ok.Append(code == 0));
    }
    QUIVER_ASSIGN_OR_RAISE(ArrayRef indices, status.Finish());
    ArrayRef status_array =
        ArrayData::Make(schema->field(4)->type, indices->length, indices->buffers,
                        indices->null_count, indices->offset, {}, dictionary);
    std::vector<ArrayRef> columns(6);
    QUIVER_ASSIGN_OR_RAISE(columns[0], sensor.Finish());
    QUIVER_ASSIGN_OR_RAISE(columns[1], ts.Finish());
    QUIVER_ASSIGN_OR_RAISE(columns[2], temperature.Finish());
    QUIVER_ASSIGN_OR_RAISE(columns[3], humidity.Finish());
    columns[4] = std::move(status_array);
    QUIVER_ASSIGN_OR_RAISE(columns[5], ok.Finish());
    auto batch = RecordBatch::Make(schema, n, std::move(columns));
    QUIVER_RETURN_NOT_OK(batch->Validate(true));
    batches.push_back(std::move(batch));
  }
  return batches;
}

}  // namespace quiver::cli
