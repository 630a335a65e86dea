// Delta Lake deletion vectors: the rows of a data file an add action marks
// deleted, read into sorted row positions (which storage/data_file_scan.h
// drops as it reads the file).
//
//   descriptor   add.deletionVector: storageType 'i' (inline: pathOrInlineDv
//                is the serialized vector, Z85-encoded), 'u' (a file next to
//                the table: pathOrInlineDv is <random prefix><Z85 UUID, 20
//                characters>, the file <table>/<prefix>/deletion_vector_<uuid>.bin)
//                or 'p' (an absolute path); offset; sizeInBytes; cardinality
//   file         byte 0: format version 1; at `offset`, per vector: its size
//                (4 bytes, big endian), the serialized vector, its CRC-32
//                (4 bytes, big endian)
//   vector       magic 1681511377 (4 bytes, little endian), then a 64-bit
//                RoaringBitmap in the portable format (RoaringFormatSpec):
//                the bucket count (8 bytes LE), per bucket its high 32 bits
//                (4 bytes LE) and a 32-bit RoaringBitmap (cookie 12346 or
//                12347 with run containers; array, bitmap and run containers)
//
// Every length is checked against the bytes there are, a file's vector
// against its CRC-32; positions at or past the file's row count, or a count
// other than the descriptor's cardinality, are errors (a vector that names
// rows the file lacks belongs to another file).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/file_access.h"
#include "common/status.h"

namespace quiver::delta {

struct DeletionVector {
  char storage_type = 0;  // 'i', 'u' or 'p'
  std::string path_or_inline_dv;
  std::optional<int64_t> offset;
  int64_t size_in_bytes = 0;
  int64_t cardinality = 0;
  // What tells two vectors of one file apart (the protocol's uniqueId).
  std::string UniqueId() const;
};

// The deleted row positions (sorted, each below `rows`) of a data file of
// the table at `dir`; `policy`, when set, checks a vector's file first.
Result<std::vector<int64_t>> ReadDeletionVector(const DeletionVector& dv, const std::string& dir,
                                                int64_t rows,
                                                const FileAccessPolicy* policy = nullptr);

// Z85 (ZeroMQ's Base85) decoded; an error for a length not a multiple of 5
// or a character outside the alphabet.
Result<std::string> DecodeZ85(const std::string& text);

// The positions a serialized vector (magic + 64-bit portable RoaringBitmap)
// holds, sorted; `what` names it in errors.
Result<std::vector<int64_t>> DecodeRoaringArray(const std::string& bytes, int64_t rows,
                                                const std::string& what);

}  // namespace quiver::delta
