// The demo data set: deterministic IoT sensor readings (quiver demo writes
// them to files; quiver serve serves them as the table "readings").
//
// Table "readings" (10 readings per second starting 2024-06-01 00:00:00 UTC):
//   sensor_id    int32 not null           1..64
//   ts           timestamp[us, UTC] not null
//   temperature  float64 not null         daily sine wave + per-sensor offset + noise
//   humidity     float32 (2% NULL)        30..70 %
//   status       dictionary<int8, utf8>   ok / warn / error / offline (90/6/3/1 %)
//   ok           bool not null            status == "ok"
//
// The generator is a SplitMix64 PRNG with a fixed seed: the same arguments
// give the same batches on every platform.
#pragma once

#include <cstdint>
#include <vector>

#include "columnar/array.h"
#include "common/status.h"

namespace quiver::cli {

SchemaRef DemoReadingsSchema();
Result<std::vector<RecordBatchRef>> GenerateDemoReadings(int64_t rows, int64_t batch_rows,
                                                         uint64_t seed);

}  // namespace quiver::cli
