// PRIVATE to formats/ipc (includes generated flatbuffers headers).
//
// Turns the metadata of a RecordBatch / DictionaryBatch message plus its body
// into ArrayData. Field nodes and buffers are consumed in pre-order of the
// schema tree; per type, the buffers are (V5; V4 unions add a leading validity
// buffer that is skipped):
//
//   null                     -
//   fixed width, bool        validity, values
//   (large) binary/utf8      validity, offsets, data
//   binary/utf8 view         validity, views, variadic_buffer_counts[k] data buffers
//   (large) list, map        validity, offsets          + child
//   (large) list view        validity, offsets, sizes   + child
//   fixed_size_list, struct  validity                   + children
//   sparse / dense union     type ids [, offsets]       + children
//   dictionary               validity, indices (values come from a DictionaryBatch)
//   run_end_encoded          -                          + run ends, values
//
// Compressed bodies store each non-empty buffer as int64 uncompressed length
// (-1 = stored raw) followed by the codec's frame.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "columnar/array.h"
#include "common/memory_pool.h"
#include "common/status.h"
#include "formats/ipc/metadata_internal.h"

namespace quiver::ipc::internal {

// Dictionary values currently in force, by id.
struct DictionaryMemo {
  DictionaryTypes types;
  std::map<int64_t, ArrayRef> dictionaries;
};

struct LoadOptions {
  fb::MetadataVersion version = fb::MetadataVersion::V5;
  MemoryPool* pool = DefaultMemoryPool();
  bool validate_full = true;
  // The schema declared big-endian data: byte-swap every multi-byte value
  // (copies those buffers).
  bool swap_endian = false;
};

// Loads a record batch of `schema` (the full, unprojected schema). When
// `needed` is given, top-level columns i with !(*needed)[i] are skipped
// without being read or validated and are left null in the result (the
// caller projects them away).
Result<RecordBatchRef> LoadRecordBatch(const fb::RecordBatch* batch, const SchemaRef& schema,
                                       const std::shared_ptr<Buffer>& body,
                                       const DictionaryMemo& memo, const LoadOptions& options,
                                       const std::vector<bool>* needed = nullptr);

// Applies a dictionary batch to `memo`: a delta appends to the current
// dictionary, anything else replaces it (refused when !allow_replacement).
Status LoadDictionaryBatch(const fb::DictionaryBatch* batch, const std::shared_ptr<Buffer>& body,
                           DictionaryMemo* memo, const LoadOptions& options,
                           bool allow_replacement);

// Checks message version: V4 and V5 are read, older ones are unsupported.
Status CheckMetadataVersion(fb::MetadataVersion version);

}  // namespace quiver::ipc::internal
