// PRIVATE to formats/ipc: include only from formats/ipc/*.cc. This is the
// thin wall around flatbuffers: the generated Arrow metadata types are seen
// here and in the .cc files of this folder, never in public headers.
//
// Conversions between Quiver schemas and the Arrow Schema flatbuffer, message
// framing constants, and the dictionary bookkeeping shared by reader and writer.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>

#include "columnar/array.h"
#include "columnar/type.h"
#include "common/status.h"
#include "formats/ipc/fbs/File_generated.h"
#include "formats/ipc/fbs/Message_generated.h"
#include "formats/ipc/fbs/Schema_generated.h"

namespace quiver::ipc::internal {

namespace fb = ::quiver::ipc::flatbuf;

// Bounds applied to untrusted input.
inline constexpr int kMaxNestingDepth = 64;           // type nesting
inline constexpr int64_t kMaxMetadataSize = 1 << 28;  // one flatbuffer
inline constexpr int kMaxFlatbufferTables = 1 << 20;
inline constexpr int32_t kMaxFixedWidth = 1 << 24;  // fixed_size_binary bytes
inline constexpr int64_t kMaxArrayLength = int64_t{1} << 48;

// "ARROW1" opens and closes an IPC file; the opening one is padded to 8.
inline constexpr char kFileMagic[6] = {'A', 'R', 'R', 'O', 'W', '1'};
inline constexpr int64_t kFileMagicPadded = 8;
// Marks a message prefix (since 0.15); followed by the int32 metadata size.
inline constexpr uint32_t kContinuation = 0xFFFFFFFFu;

// Element i of a vector of structs or 8-byte scalars. The flatbuffers
// verifier only checks 4-byte alignment of vectors, so 8-byte elements of a
// hostile (or legacy-framed) buffer may be misaligned: copy them out.
template <typename T>
T LoadElement(const flatbuffers::Vector<const T*>* v, size_t i) {
  T out;
  std::memcpy(&out, v->Data() + i * sizeof(T), sizeof(T));
  return out;
}
inline int64_t LoadElement(const flatbuffers::Vector<int64_t>* v, size_t i) {
  int64_t out;
  std::memcpy(&out, v->Data() + i * sizeof(int64_t), sizeof(int64_t));
  return out;
}

// Dictionary-encoded positions of a schema as read from a file. Each
// dictionary DataType node the decoder creates is unique, so its address
// identifies the schema position; the same id may appear at several positions
// (shared dictionaries).
struct DictionaryTypes {
  std::unordered_map<const DataType*, int64_t> id_of;
  std::map<int64_t, TypeRef> value_type_of;  // id -> type of the dictionary values
};

// Reader side. Fails with Invalid on malformed metadata and Unsupported on
// valid metadata Quiver cannot represent.
// `*big_endian` (may be null) reports the declared byte order of the data.
Result<SchemaRef> SchemaFromFlatbuffer(const fb::Schema* schema, DictionaryTypes* dicts,
                                       bool* big_endian = nullptr);
KeyValueMetadata MetadataFromFlatbuffer(
    const flatbuffers::Vector<flatbuffers::Offset<fb::KeyValue>>* kv);

// Writer side: dictionary ids are assigned in pre-order of the schema tree
// (a dictionary field gets its id before the dictionaries nested in its value
// type), the same order in which the writer walks arrays.
flatbuffers::Offset<fb::Schema> SchemaToFlatbuffer(flatbuffers::FlatBufferBuilder& fbb,
                                                   const Schema& schema);
flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::KeyValue>>> MetadataToFlatbuffer(
    flatbuffers::FlatBufferBuilder& fbb, const KeyValueMetadata& metadata);

}  // namespace quiver::ipc::internal
