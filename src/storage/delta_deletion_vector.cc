#include "storage/delta_deletion_vector.h"

#include <zlib.h>

#include <algorithm>
#include <filesystem>

#include "common/io.h"

namespace quiver::delta {

namespace {

namespace fs = std::filesystem;

constexpr uint32_t kMagic = 1681511377;
constexpr uint32_t kCookieNoRuns = 12346;
constexpr uint32_t kCookieRuns = 12347;
constexpr int64_t kArrayMax = 4096;  // containers of more values are bitmaps

Status Corrupt(const std::string& what, const std::string& why) {
  return Status::Invalid("Delta deletion vector {}: {}", what, why)
      .WithSqlState(sqlstate::kDataCorrupted);
}

// A bounds-checked little-endian reader over the vector's bytes.
class Bytes {
 public:
  Bytes(const std::string& s, const std::string& what) : s_(s), what_(what) {}
  Status Need(size_t n) const {
    if (s_.size() - at_ < n) return Corrupt(what_, "truncated");
    return Status::OK();
  }
  uint64_t Le(int n) {  // REQUIRES: Need(n)
    uint64_t v = 0;
    for (int i = 0; i < n; ++i)
      v |= static_cast<uint64_t>(static_cast<uint8_t>(s_[at_ + i])) << (8 * i);
    at_ += static_cast<size_t>(n);
    return v;
  }
  Result<uint64_t> ReadLe(int n) {
    QUIVER_RETURN_NOT_OK(Need(static_cast<size_t>(n)));
    return Le(n);
  }
  Status Skip(size_t n) {
    QUIVER_RETURN_NOT_OK(Need(n));
    at_ += n;
    return Status::OK();
  }
  size_t remaining() const { return s_.size() - at_; }

 private:
  const std::string& s_;
  const std::string& what_;
  size_t at_ = 0;
};

// Appends the values of one 32-bit RoaringBitmap (high bits `high`) below
// `rows` to `out`.
Status DecodeRoaring32(Bytes* in, uint64_t high, int64_t rows, const std::string& what,
                       std::vector<int64_t>* out) {
  QUIVER_ASSIGN_OR_RAISE(uint64_t cookie, in->ReadLe(4));
  size_t size = 0;
  bool runs = false;
  std::string run_flags;
  if ((cookie & 0xFFFF) == kCookieRuns) {
    runs = true;
    size = static_cast<size_t>((cookie >> 16) + 1);
    const size_t flag_bytes = (size + 7) / 8;
    QUIVER_RETURN_NOT_OK(in->Need(flag_bytes));
    for (size_t i = 0; i < flag_bytes; ++i) run_flags.push_back(static_cast<char>(in->Le(1)));
  } else if (cookie == kCookieNoRuns) {
    QUIVER_ASSIGN_OR_RAISE(uint64_t n, in->ReadLe(4));
    if (n > 65536) return Corrupt(what, "more than 65536 containers");
    size = static_cast<size_t>(n);
  } else {
    return Corrupt(what, fmt::format("unknown RoaringBitmap cookie {}", cookie));
  }
  std::vector<std::pair<uint32_t, int64_t>> headers;  // key, cardinality
  QUIVER_RETURN_NOT_OK(in->Need(size * 4));
  for (size_t i = 0; i < size; ++i) {
    const auto key = static_cast<uint32_t>(in->Le(2));
    const auto card = static_cast<int64_t>(in->Le(2)) + 1;
    headers.emplace_back(key, card);
  }
  if (!runs || size >= 4) QUIVER_RETURN_NOT_OK(in->Skip(size * 4));  // offsets
  int64_t past = -1;                                                 // a position at or past `rows`
  for (size_t i = 0; i < size; ++i) {
    const auto base =
        static_cast<int64_t>((high << 32) | (static_cast<uint64_t>(headers[i].first) << 16));
    auto add = [&](uint64_t low) {
      const int64_t v = base + static_cast<int64_t>(low);
      if (v >= rows) {
        if (past < 0) past = v;
        return false;
      }
      out->push_back(v);
      return true;
    };
    const bool is_run = runs && (static_cast<uint8_t>(run_flags[i / 8]) >> (i % 8)) & 1;
    if (is_run) {
      QUIVER_ASSIGN_OR_RAISE(uint64_t n, in->ReadLe(2));
      QUIVER_RETURN_NOT_OK(in->Need(static_cast<size_t>(n) * 4));
      for (uint64_t r = 0; r < n; ++r) {
        const uint64_t start = in->Le(2);
        const uint64_t length = in->Le(2);
        if (start + length > 0xFFFF) return Corrupt(what, "a run past its container");
        for (uint64_t v = start; v <= start + length; ++v) {
          if (!add(v)) break;
        }
        // Each position once: more than the file's rows is a hostile vector
        // (overlapping runs), stopped before it fills memory.
        if (static_cast<int64_t>(out->size()) > rows) {
          return Corrupt(what, "more positions than the data file has rows");
        }
      }
    } else if (headers[i].second > kArrayMax) {
      QUIVER_RETURN_NOT_OK(in->Need(8192));
      for (uint64_t w = 0; w < 1024; ++w) {
        const uint64_t word = in->Le(8);
        for (int b = 0; b < 64; ++b) {
          if ((word >> b) & 1) add(w * 64 + static_cast<uint64_t>(b));
        }
      }
    } else {
      QUIVER_RETURN_NOT_OK(in->Need(static_cast<size_t>(headers[i].second) * 2));
      for (int64_t k = 0; k < headers[i].second; ++k) add(in->Le(2));
    }
    if (static_cast<int64_t>(out->size()) > rows) {
      return Corrupt(what, "more positions than the data file has rows");
    }
    if (past >= 0) {
      return Corrupt(what,
                     fmt::format("row position {} is past the data file's {} rows", past, rows));
    }
  }
  return Status::OK();
}

uint32_t BigEndian32(const std::string& s, size_t at) {
  uint32_t v = 0;
  for (size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<uint8_t>(s[at + i]);
  return v;
}

std::string UuidText(const std::string& b) {
  std::string hex;
  for (unsigned char c : b) hex += fmt::format("{:02x}", c);
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" +
         hex.substr(16, 4) + "-" + hex.substr(20);
}

}  // namespace

std::string DeletionVector::UniqueId() const {
  std::string id = std::string(1, storage_type) + path_or_inline_dv;
  if (offset.has_value()) id += "@" + std::to_string(*offset);
  return id;
}

Result<std::string> DecodeZ85(const std::string& text) {
  static const char kAlphabet[] =
      "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";
  if (text.size() % 5 != 0) {
    return Status::Invalid("Z85 text of {} characters (not a multiple of 5)", text.size());
  }
  int index[256];
  std::fill(std::begin(index), std::end(index), -1);
  for (int i = 0; i < 85; ++i) index[static_cast<unsigned char>(kAlphabet[i])] = i;
  std::string out;
  for (size_t i = 0; i < text.size(); i += 5) {
    uint64_t v = 0;
    for (size_t k = 0; k < 5; ++k) {
      const int d = index[static_cast<unsigned char>(text[i + k])];
      if (d < 0) return Status::Invalid("Z85 text holds '{}'", text[i + k]);
      v = v * 85 + static_cast<uint64_t>(d);
    }
    if (v > 0xFFFFFFFFull) return Status::Invalid("Z85 group past 32 bits");
    for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<char>((v >> s) & 0xFF));
  }
  return out;
}

Result<std::vector<int64_t>> DecodeRoaringArray(const std::string& bytes, int64_t rows,
                                                const std::string& what) {
  Bytes in(bytes, what);
  QUIVER_ASSIGN_OR_RAISE(uint64_t magic, in.ReadLe(4));
  if (magic != kMagic) {
    return Corrupt(what, fmt::format("magic number {} (the portable RoaringBitmap format's is {})",
                                     magic, kMagic));
  }
  QUIVER_ASSIGN_OR_RAISE(uint64_t buckets, in.ReadLe(8));
  if (buckets > in.remaining() / 8) return Corrupt(what, "more buckets than bytes");
  std::vector<int64_t> out;
  for (uint64_t b = 0; b < buckets; ++b) {
    QUIVER_ASSIGN_OR_RAISE(uint64_t high, in.ReadLe(4));
    if (high > 0x7FFFFFFF) return Corrupt(what, "a key with its most significant bit set");
    QUIVER_RETURN_NOT_OK(DecodeRoaring32(&in, high, rows, what, &out));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Result<std::vector<int64_t>> ReadDeletionVector(const DeletionVector& dv, const std::string& dir,
                                                int64_t rows, const FileAccessPolicy* policy) {
  std::string bytes;
  std::string what;
  if (dv.size_in_bytes < 4 || dv.size_in_bytes > (int64_t{1} << 31)) {
    return Corrupt(dir, fmt::format("sizeInBytes {}", dv.size_in_bytes));
  }
  const auto size = static_cast<size_t>(dv.size_in_bytes);
  if (dv.storage_type == 'i') {
    what = "inline in the log of " + dir;
    auto decoded = DecodeZ85(dv.path_or_inline_dv);
    if (!decoded.ok()) return Corrupt(what, decoded.status().message());
    if (decoded->size() < size) return Corrupt(what, "shorter than its sizeInBytes");
    bytes = decoded->substr(0, size);
  } else if (dv.storage_type == 'u' || dv.storage_type == 'p') {
    std::string path;
    if (dv.storage_type == 'u') {
      const std::string& s = dv.path_or_inline_dv;
      if (s.size() < 20) return Corrupt(dir, "a 'u' path shorter than its 20-character UUID");
      auto uuid = DecodeZ85(s.substr(s.size() - 20));
      if (!uuid.ok()) return Corrupt(dir, "its UUID: " + uuid.status().message());
      const std::string prefix = s.substr(0, s.size() - 20);
      path = (fs::path(dir) / prefix / ("deletion_vector_" + UuidText(*uuid) + ".bin")).string();
    } else {
      path = dv.path_or_inline_dv;
      if (path.rfind("file://", 0) == 0)
        path = path.substr(7);
      else if (path.rfind("file:", 0) == 0)
        path = path.substr(5);
      if (path.empty() || path[0] != '/') {
        return Status::Unsupported("Delta deletion vector files outside the local file system ({})",
                                   dv.path_or_inline_dv);
      }
    }
    what = path;
    if (policy != nullptr && policy->restricted()) QUIVER_RETURN_NOT_OK(policy->Check(path));
    QUIVER_ASSIGN_OR_RAISE(auto buffer, ReadFileFully(path));
    const std::string file(reinterpret_cast<const char*>(buffer->data()),
                           static_cast<size_t>(buffer->size()));
    if (file.empty() || file[0] != 1) return Corrupt(what, "not a version 1 deletion vector file");
    const auto offset = static_cast<size_t>(dv.offset.value_or(1));
    if (dv.offset.value_or(1) < 1 || offset > file.size() || file.size() - offset < size + 8) {
      return Corrupt(what, fmt::format("offset {} and size {} lie past its {} bytes", offset, size,
                                       file.size()));
    }
    if (BigEndian32(file, offset) != size) {
      return Corrupt(what, fmt::format("the vector at offset {} is {} bytes, the log says {}",
                                       offset, BigEndian32(file, offset), size));
    }
    bytes = file.substr(offset + 4, size);
    const auto crc = static_cast<uint32_t>(crc32(crc32(0L, Z_NULL, 0),
                                                 reinterpret_cast<const Bytef*>(bytes.data()),
                                                 static_cast<uInt>(bytes.size())));
    if (crc != BigEndian32(file, offset + 4 + size)) {
      return Corrupt(what, fmt::format("checksum mismatch at offset {}", offset));
    }
  } else {
    return Status::Unsupported("Delta deletion vectors of storage type '{}' (table {})",
                               dv.storage_type, dir);
  }
  QUIVER_ASSIGN_OR_RAISE(std::vector<int64_t> positions, DecodeRoaringArray(bytes, rows, what));
  if (static_cast<int64_t>(positions.size()) != dv.cardinality) {
    return Corrupt(what, fmt::format("{} positions, its cardinality says {}", positions.size(),
                                     dv.cardinality));
  }
  return positions;
}

}  // namespace quiver::delta
