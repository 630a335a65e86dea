#include "formats/parquet/column_writer.h"

#define XXH_INLINE_ALL  // header-only: no link dependency
#include <xxhash.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "formats/parquet/delta_encoding.h"
#include "formats/parquet/plain_encoding.h"
#include "formats/parquet/rle_encoding.h"
#include "formats/parquet/statistics_builder.h"

namespace quiver::parquet {
namespace {

// Open-addressing hash table from value to dictionary index. Values of 4 or
// 8 bytes are their own keys, stored in the slots (one cache line visit per
// probe); other values keep their hash in the slot and live in the dictionary
// itself (the LeafValues), compared only when the hashes agree.
class DictionaryBuilder {
 public:
  DictionaryBuilder(const LeafValues& values, int width, int64_t byte_limit)
      : values_(values), width_(width), byte_limit_(byte_limit) {}

  // Indices of values [0, n) until the dictionary would pass its byte limit;
  // returns how many values got one (0 when a sample shows the dictionary
  // would overflow early: then the chunk is not worth dictionary-encoding).
  int64_t Build(int64_t n, std::vector<int32_t>* indices) {
    indices->resize(static_cast<size_t>(n));
    if (width_ == 4) return BuildInline<uint32_t>(n, indices->data());
    if (width_ == 8) return BuildInline<uint64_t>(n, indices->data());
    return BuildHashed(n, indices->data());
  }

  int64_t entries() const { return static_cast<int64_t>(entry_values_.size()); }
  // Value index (into the LeafValues) of dictionary entry e.
  int64_t entry_value(int64_t e) const { return entry_values_[e]; }

 private:
  static constexpr int64_t kSample = 1 << 16;

  static uint64_t Mix(uint64_t k) { return (k * 0x9E3779B97F4A7C15ULL) ^ (k >> 29); }

  // After the sample: will the dictionary overflow well before the end?
  // New values still arriving as fast in the sample's second half as in its
  // first (no saturation) and a linear projection far past the limit: then
  // plain encoding from the start beats a dictionary for a fraction.
  bool Hopeless(int64_t seen, int64_t n) const {
    if (seen != kSample || n < 4 * kSample) return false;
    const double second_half = static_cast<double>(entries() - entries_at_half_);
    if (second_half < 0.95 * static_cast<double>(entries_at_half_)) return false;
    const double projected = static_cast<double>(bytes_) * static_cast<double>(n) / seen;
    return projected > 1.5 * static_cast<double>(byte_limit_);
  }
  void NoteHalf(int64_t i) {
    if (i == kSample / 2) entries_at_half_ = entries();
  }

  template <typename K>
  int64_t BuildInline(int64_t n, int32_t* out) {
    // Slots hold the key itself next to its index: a probe touches one line.
    struct Slot {
      K key;
      int32_t index;
    };
    std::vector<Slot> table(1 << 12, Slot{0, -1});
    size_t mask = table.size() - 1;
    int shift = 64 - 12;
    std::vector<K> keys;
    const uint8_t* base = values_.fixed.data();
    // Large tables miss the cache on every probe: prefetch the slot of the
    // value a few steps ahead.
    constexpr int64_t kAhead = 16;
    for (int64_t i = 0; i < n; ++i) {
      NoteHalf(i);
      if (i == kSample && Hopeless(kSample, n)) return 0;
      if (i + kAhead < n) {
        K ahead;
        std::memcpy(&ahead, base + (i + kAhead) * sizeof(K), sizeof(K));
        __builtin_prefetch(&table[(Mix(ahead) >> shift) & mask]);
      }
      K v;
      std::memcpy(&v, base + i * sizeof(K), sizeof(K));
      if (i > 0 && v == keys[out[i - 1]]) {  // runs (sorted, clustered data) skip the table
        out[i] = out[i - 1];
        continue;
      }
      size_t slot = (Mix(v) >> shift) & mask;
      while (table[slot].index >= 0 && table[slot].key != v) slot = (slot + 1) & mask;
      if (table[slot].index < 0) {
        if (bytes_ + static_cast<int64_t>(sizeof(K)) > byte_limit_ || entries() >= INT32_MAX - 1) {
          return i;
        }
        table[slot] = {v, static_cast<int32_t>(entries())};
        entry_values_.push_back(i);
        keys.push_back(v);
        bytes_ += sizeof(K);
        if (keys.size() * 2 > table.size()) {
          table.assign(table.size() * 2, Slot{0, -1});
          mask = table.size() - 1;
          --shift;
          for (size_t e = 0; e < keys.size(); ++e) {
            size_t s = (Mix(keys[e]) >> shift) & mask;
            while (table[s].index >= 0) s = (s + 1) & mask;
            table[s] = {keys[e], static_cast<int32_t>(e)};
          }
          slot = (Mix(v) >> shift) & mask;
          while (table[slot].key != v || table[slot].index < 0) slot = (slot + 1) & mask;
        }
      }
      out[i] = table[slot].index;
    }
    return n;
  }

  int64_t BuildHashed(int64_t n, int32_t* out) {
    struct Slot {
      uint64_t hash;
      int32_t index;
    };
    std::vector<Slot> table(1 << 12, Slot{0, -1});
    size_t mask = table.size() - 1;
    int shift = 64 - 12;
    std::vector<uint64_t> hashes;
    for (int64_t i = 0; i < n; ++i) {
      NoteHalf(i);
      if (i == kSample && Hopeless(kSample, n)) return 0;
      const std::string_view v = Value(i);
      const uint64_t h = XXH3_64bits(v.data(), v.size());
      size_t slot = (Mix(h) >> shift) & mask;
      while (table[slot].index >= 0 &&
             (table[slot].hash != h || Value(entry_values_[table[slot].index]) != v)) {
        slot = (slot + 1) & mask;
      }
      if (table[slot].index < 0) {
        const int64_t size = static_cast<int64_t>(v.size()) + (width_ == 0 ? 4 : 0);
        if (bytes_ + size > byte_limit_ || entries() >= INT32_MAX - 1) return i;
        const int32_t e = static_cast<int32_t>(entries());
        table[slot] = {h, e};
        entry_values_.push_back(i);
        hashes.push_back(h);
        bytes_ += size;
        if (hashes.size() * 2 > table.size()) {
          table.assign(table.size() * 2, Slot{0, -1});
          mask = table.size() - 1;
          --shift;
          for (size_t k = 0; k < hashes.size(); ++k) {
            size_t s = (Mix(hashes[k]) >> shift) & mask;
            while (table[s].index >= 0) s = (s + 1) & mask;
            table[s] = {hashes[k], static_cast<int32_t>(k)};
          }
        }
        out[i] = e;
      } else {
        out[i] = table[slot].index;
      }
    }
    return n;
  }

  std::string_view Value(int64_t i) const {
    if (width_ == 0) return values_.value(i);
    return {reinterpret_cast<const char*>(values_.fixed.data()) + i * width_,
            static_cast<size_t>(width_)};
  }

  const LeafValues& values_;
  int width_;
  int64_t byte_limit_;
  int64_t bytes_ = 0;
  int64_t entries_at_half_ = 0;
  std::vector<int64_t> entry_values_;
};

struct PageRange {
  int64_t level_begin, level_end;
  int64_t value_begin, value_end;
  int64_t rows;
  int64_t first_row;
};

std::vector<PageRange> SplitPages(const WriterSchema::Leaf& leaf, const LeafValues& v,
                                  const ColumnWriterOptions& o) {
  std::vector<PageRange> pages;
  const int16_t* def = v.def.empty() ? nullptr : v.def.data();
  const int16_t* rep = v.rep.empty() ? nullptr : v.rep.data();
  const int16_t max_def = leaf.max_def_level;
  const int width = leaf.physical_type == Type::kByteArray ? 0
                    : leaf.physical_type == Type::kBoolean
                        ? 1
                        : PhysicalWidth(leaf.physical_type, leaf.type_length);
  int64_t l = 0, val = 0, row = 0;
  if (def == nullptr && rep == nullptr && width > 0) {
    // Required flat fixed-width column: one value per row, sizes known.
    const int64_t per_page = std::max<int64_t>(
        1, std::min<int64_t>(o.data_page_rows, (o.data_page_size + width - 1) / width));
    for (; l < v.num_levels; l += per_page) {
      const int64_t k = std::min(per_page, v.num_levels - l);
      pages.push_back({l, l + k, l, l + k, k, l});
    }
    return pages;
  }
  while (l < v.num_levels) {
    PageRange p{l, l, val, val, 0, row};
    int64_t bytes = 0;
    while (l < v.num_levels) {
      const bool row_start = rep == nullptr || rep[l] == 0;
      if (row_start && l > p.level_begin &&
          (p.rows >= o.data_page_rows || bytes >= o.data_page_size)) {
        break;
      }
      p.rows += row_start;
      if (def == nullptr || def[l] == max_def) {
        bytes += width > 0 ? width : 4 + (v.offsets[val + 1] - v.offsets[val]);
        ++val;
      }
      bytes += 1;  // levels, roughly
      ++l;
    }
    p.level_end = l;
    p.value_end = val;
    row += p.rows;
    pages.push_back(p);
  }
  return pages;
}

void PutU32(uint32_t v, std::string* out) { out->append(reinterpret_cast<const char*>(&v), 4); }

class ChunkEncoder {
 public:
  ChunkEncoder(const WriterSchema::Leaf& leaf, const LeafValues& values,
               const ColumnWriterOptions& o, std::vector<int32_t>* indices)
      : leaf_(leaf), v_(values), o_(o), chunk_stats_(leaf), indices_(*indices) {}

  Status Encode(EncodedColumnChunk* out);

 private:
  int width() const {
    return leaf_.physical_type == Type::kBoolean
               ? 1
               : PhysicalWidth(leaf_.physical_type, leaf_.type_length);
  }
  Encoding FallbackEncoding() const;
  Status CheckEncoding(Encoding e) const;
  Status EncodeValues(const PageRange& p, Encoding e, std::string* out) const;
  void EncodeLevels(const std::vector<int16_t>& levels, int16_t max_level, const PageRange& p,
                    bool length_prefix, std::string* out) const;
  Status WritePage(PageHeader header, const std::string& uncompressed_prefix,
                   std::string_view to_compress, std::string* out, int64_t* uncompressed_total);

  const WriterSchema::Leaf& leaf_;
  const LeafValues& v_;
  const ColumnWriterOptions& o_;
  StatisticsBuilder chunk_stats_;
  std::vector<int32_t>& indices_;
  std::string scratch_;
};

Encoding ChunkEncoder::FallbackEncoding() const {
  if (o_.encoding && CheckEncoding(*o_.encoding).ok()) return *o_.encoding;
  if (leaf_.physical_type == Type::kBoolean && o_.data_page_version == 2) return Encoding::kRle;
  return Encoding::kPlain;
}

Status ChunkEncoder::CheckEncoding(Encoding e) const {
  const Type t = leaf_.physical_type;
  bool ok = false;
  switch (e) {
    case Encoding::kPlain:
      ok = true;
      break;
    case Encoding::kRle:
      ok = t == Type::kBoolean;
      break;
    case Encoding::kDeltaBinaryPacked:
      ok = t == Type::kInt32 || t == Type::kInt64;
      break;
    case Encoding::kDeltaLengthByteArray:
      ok = t == Type::kByteArray;
      break;
    case Encoding::kDeltaByteArray:
      ok = t == Type::kByteArray || t == Type::kFixedLenByteArray;
      break;
    case Encoding::kByteStreamSplit:
      ok = t == Type::kInt32 || t == Type::kInt64 || t == Type::kFloat || t == Type::kDouble ||
           t == Type::kFixedLenByteArray;
      break;
    default:
      break;
  }
  if (!ok) {
    return Status::Unsupported("encoding {} for a {} column", EncodingName(e), TypeName(t));
  }
  return Status::OK();
}

void ChunkEncoder::EncodeLevels(const std::vector<int16_t>& levels, int16_t max_level,
                                const PageRange& p, bool length_prefix, std::string* out) const {
  const size_t start = out->size();
  if (length_prefix) out->append(4, '\0');
  RleBitPackedEncode(levels.data() + p.level_begin, p.level_end - p.level_begin,
                     BitWidth(static_cast<uint64_t>(max_level)), out);
  if (length_prefix) {
    const uint32_t len = static_cast<uint32_t>(out->size() - start - 4);
    std::memcpy(out->data() + start, &len, 4);
  }
}

Status ChunkEncoder::EncodeValues(const PageRange& p, Encoding e, std::string* out) const {
  const int64_t n = p.value_end - p.value_begin;
  const int w = width();
  const Type t = leaf_.physical_type;
  const bool bytes = t == Type::kByteArray;
  switch (e) {
    case Encoding::kRleDictionary: {
      int64_t max_index = 0;
      for (int64_t i = p.value_begin; i < p.value_end; ++i) {
        max_index = std::max<int64_t>(max_index, indices_[i]);
      }
      const int bw = std::max(1, BitWidth(static_cast<uint64_t>(max_index)));
      out->push_back(static_cast<char>(bw));
      RleBitPackedEncode(indices_.data() + p.value_begin, n, bw, out);
      return Status::OK();
    }
    case Encoding::kPlain:
      if (t == Type::kBoolean) {
        const size_t start = out->size();
        out->resize(start + static_cast<size_t>((n + 7) / 8), '\0');
        uint8_t* dst = reinterpret_cast<uint8_t*>(out->data() + start);
        const uint8_t* src = v_.fixed.data() + p.value_begin;
        for (int64_t i = 0; i < n; ++i) dst[i >> 3] |= static_cast<uint8_t>(src[i] << (i & 7));
        return Status::OK();
      }
      if (bytes) {
        const size_t start = out->size();
        const int64_t data = v_.offsets[p.value_end] - v_.offsets[p.value_begin];
        out->resize(start + static_cast<size_t>(4 * n + data));
        char* dst = out->data() + start;
        for (int64_t i = p.value_begin; i < p.value_end; ++i) {
          const uint32_t len = static_cast<uint32_t>(v_.offsets[i + 1] - v_.offsets[i]);
          std::memcpy(dst, &len, 4);
          std::memcpy(dst + 4, v_.data.data() + v_.offsets[i], len);
          dst += 4 + len;
        }
        return Status::OK();
      }
      out->append(reinterpret_cast<const char*>(v_.fixed.data()) + p.value_begin * w,
                  static_cast<size_t>(n * w));
      return Status::OK();
    case Encoding::kRle: {
      const size_t start = out->size();
      out->append(4, '\0');
      RleBitPackedEncode(v_.fixed.data() + p.value_begin, n, 1, out);
      const uint32_t len = static_cast<uint32_t>(out->size() - start - 4);
      std::memcpy(out->data() + start, &len, 4);
      return Status::OK();
    }
    case Encoding::kDeltaBinaryPacked: {
      std::vector<int64_t> vals(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        if (w == 4) {
          int32_t x;
          std::memcpy(&x, v_.fixed.data() + (p.value_begin + i) * 4, 4);
          vals[i] = x;
        } else {
          std::memcpy(&vals[i], v_.fixed.data() + (p.value_begin + i) * 8, 8);
        }
      }
      EncodeDeltaBinaryPacked(vals.data(), n, w == 4, out);
      return Status::OK();
    }
    case Encoding::kDeltaLengthByteArray:
    case Encoding::kDeltaByteArray: {
      // Page-local int32 offsets (a page is far below 2 GiB).
      std::vector<int32_t> offs(static_cast<size_t>(n + 1));
      const uint8_t* data;
      if (bytes) {
        const int64_t base = v_.offsets[p.value_begin];
        for (int64_t i = 0; i <= n; ++i) {
          offs[i] = static_cast<int32_t>(v_.offsets[p.value_begin + i] - base);
        }
        data = reinterpret_cast<const uint8_t*>(v_.data.data()) + base;
      } else {
        for (int64_t i = 0; i <= n; ++i) offs[i] = static_cast<int32_t>(i * w);
        data = v_.fixed.data() + p.value_begin * w;
      }
      if (e == Encoding::kDeltaLengthByteArray) {
        EncodeDeltaLengthByteArray(data, offs.data(), n, out);
      } else {
        EncodeDeltaByteArray(data, offs.data(), n, out);
      }
      return Status::OK();
    }
    case Encoding::kByteStreamSplit:
      EncodeByteStreamSplit(v_.fixed.data() + p.value_begin * w, w, n, out);
      return Status::OK();
    default:
      return Status::Unsupported("writing encoding {}", EncodingName(e));
  }
}

Status ChunkEncoder::WritePage(PageHeader header, const std::string& uncompressed_prefix,
                               std::string_view to_compress, std::string* out,
                               int64_t* uncompressed_total) {
  std::string_view body = to_compress;
  std::shared_ptr<Buffer> compressed;
  const bool compress = o_.codec != compression::Codec::kNone && !to_compress.empty() &&
                        (!header.data_page_header_v2 || header.data_page_header_v2->is_compressed);
  if (compress) {
    QUIVER_ASSIGN_OR_RAISE(
        compressed, compression::Compress(
                        o_.codec, reinterpret_cast<const uint8_t*>(to_compress.data()),
                        static_cast<int64_t>(to_compress.size()), o_.compression_level, o_.pool));
    body = compressed->view();
  }
  const int64_t uncompressed =
      static_cast<int64_t>(uncompressed_prefix.size() + to_compress.size());
  const int64_t stored = static_cast<int64_t>(uncompressed_prefix.size() + body.size());
  if (uncompressed > INT32_MAX || stored > INT32_MAX) {
    return Status::Invalid("a Parquet page cannot hold {} bytes", uncompressed);
  }
  header.uncompressed_page_size = static_cast<int32_t>(uncompressed);
  header.compressed_page_size = static_cast<int32_t>(stored);
  if (o_.page_checksum) {
    // (zlib's crc32 restarts at 0 when given a null pointer: skip empty parts.)
    uLong crc = crc32(0L, Z_NULL, 0);
    if (!uncompressed_prefix.empty()) {
      crc = crc32(crc, reinterpret_cast<const Bytef*>(uncompressed_prefix.data()),
                  static_cast<uInt>(uncompressed_prefix.size()));
    }
    if (!body.empty()) {
      crc = crc32(crc, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size()));
    }
    header.crc = static_cast<int32_t>(static_cast<uint32_t>(crc));
  }
  out->reserve(out->size() + 64 + uncompressed_prefix.size() + body.size());
  const size_t before = out->size();
  EncodePageHeader(header, out);
  const int64_t header_size = static_cast<int64_t>(out->size() - before);
  out->append(uncompressed_prefix);
  out->append(body);
  *uncompressed_total += header_size + uncompressed;
  return Status::OK();
}

Status ChunkEncoder::Encode(EncodedColumnChunk* out) {
  ColumnMetaData& md = out->meta;
  md.type = leaf_.physical_type;
  md.path_in_schema = leaf_.path_in_schema;
  QUIVER_ASSIGN_OR_RAISE(md.codec, [&]() -> Result<CompressionCodec> {
    switch (o_.codec) {
      case compression::Codec::kNone:
        return CompressionCodec::kUncompressed;
      case compression::Codec::kSnappy:
        return CompressionCodec::kSnappy;
      case compression::Codec::kGzip:
        return CompressionCodec::kGzip;
      case compression::Codec::kBrotli:
        return CompressionCodec::kBrotli;
      case compression::Codec::kZstd:
        return CompressionCodec::kZstd;
      case compression::Codec::kLz4Raw:
      case compression::Codec::kLz4Frame:
        return CompressionCodec::kLz4Raw;
      default:
        return Status::Unsupported("Parquet compression {}", compression::CodecName(o_.codec));
    }
  }());
  md.num_values = v_.num_levels;

  // Dictionary: indices for as many values as the size limit allows.
  int64_t dict_values = 0;
  std::unique_ptr<DictionaryBuilder> dict;
  if (o_.dictionary && leaf_.physical_type != Type::kBoolean && v_.num_values > 0) {
    dict = std::make_unique<DictionaryBuilder>(
        v_, leaf_.physical_type == Type::kByteArray ? 0 : width(), o_.dictionary_page_size_limit);
    dict_values = dict->Build(v_.num_values, &indices_);
  }

  const std::vector<PageRange> pages = SplitPages(leaf_, v_, o_);
  const bool want_index = o_.page_index;
  ColumnIndex index;
  bool index_ok = want_index && chunk_stats_.supported();
  std::vector<std::string> data_pages;
  int64_t data_bytes = 0;
  int64_t uncompressed_total = 0;
  bool used_dict = false;
  std::vector<Encoding> encodings_used;
  int64_t data_page_count[2] = {0, 0};  // plain-ish, dictionary
  Encoding fallback = FallbackEncoding();
  for (const PageRange& p : pages) {
    const bool dict_page = dict && p.value_end <= dict_values;
    const Encoding enc = dict_page ? Encoding::kRleDictionary : fallback;
    used_dict |= dict_page;
    ++data_page_count[dict_page ? 1 : 0];
    if (std::find(encodings_used.begin(), encodings_used.end(), enc) == encodings_used.end()) {
      encodings_used.push_back(enc);
    }
    const int64_t n_levels = p.level_end - p.level_begin;
    const int64_t n_values = p.value_end - p.value_begin;
    StatisticsBuilder page_stats(leaf_);
    if (o_.statistics || want_index) {
      page_stats.Update(v_, p.value_begin, p.value_end);
      chunk_stats_.Merge(page_stats);
    }
    if (index_ok) {
      const bool all_null = n_values == 0;
      if (!all_null && !page_stats.has_bounds()) {
        index_ok = false;  // e.g. only NaNs: no bounds to give
      } else {
        index.null_pages.push_back(all_null);
        index.min_values.push_back(all_null ? "" : page_stats.min());
        index.max_values.push_back(all_null ? "" : page_stats.max());
        index.null_counts.push_back(n_levels - n_values);
      }
    }
    PageLocation loc;
    loc.offset = data_bytes;
    loc.first_row_index = p.first_row;
    PageHeader h;
    std::string prefix;
    scratch_.clear();
    if (o_.data_page_version == 2) {
      h.type = PageType::kDataPageV2;
      DataPageHeaderV2 d;
      d.num_values = static_cast<int32_t>(n_levels);
      d.num_nulls = static_cast<int32_t>(n_levels - n_values);
      d.num_rows = static_cast<int32_t>(p.rows);
      d.encoding = enc;
      if (leaf_.max_rep_level > 0) EncodeLevels(v_.rep, leaf_.max_rep_level, p, false, &prefix);
      d.repetition_levels_byte_length = static_cast<int32_t>(prefix.size());
      if (leaf_.max_def_level > 0) EncodeLevels(v_.def, leaf_.max_def_level, p, false, &prefix);
      d.definition_levels_byte_length =
          static_cast<int32_t>(prefix.size()) - d.repetition_levels_byte_length;
      d.is_compressed = o_.codec != compression::Codec::kNone;
      h.data_page_header_v2 = d;
    } else {
      h.type = PageType::kDataPage;
      DataPageHeader d;
      d.num_values = static_cast<int32_t>(n_levels);
      d.encoding = enc;
      d.definition_level_encoding = Encoding::kRle;
      d.repetition_level_encoding = Encoding::kRle;
      if (leaf_.max_rep_level > 0) EncodeLevels(v_.rep, leaf_.max_rep_level, p, true, &scratch_);
      if (leaf_.max_def_level > 0) EncodeLevels(v_.def, leaf_.max_def_level, p, true, &scratch_);
      h.data_page_header = d;
    }
    std::string_view values;
    const int w = width();
    if (enc == Encoding::kPlain && scratch_.empty() && leaf_.physical_type != Type::kBoolean &&
        leaf_.physical_type != Type::kByteArray) {
      // PLAIN fixed-width values without levels in front: compress them
      // where they are.
      values = std::string_view(reinterpret_cast<const char*>(v_.fixed.data()) + p.value_begin * w,
                                static_cast<size_t>(n_values * w));
    } else {
      QUIVER_RETURN_NOT_OK(EncodeValues(p, enc, &scratch_));
      values = scratch_;
    }
    // Nothing to decompress must not claim to be compressed (an empty snappy
    // or gzip stream is not a valid one).
    if (h.data_page_header_v2 && values.empty()) h.data_page_header_v2->is_compressed = false;
    std::string page;
    QUIVER_RETURN_NOT_OK(WritePage(std::move(h), prefix, values, &page, &uncompressed_total));
    loc.compressed_page_size = static_cast<int32_t>(page.size());
    data_bytes += static_cast<int64_t>(page.size());
    data_pages.push_back(std::move(page));
    out->offset_index.page_locations.push_back(loc);
  }

  // The dictionary page goes first.
  std::string dict_page;
  if (used_dict) {
    std::string plain;
    const int64_t entries = dict->entries();
    if (leaf_.physical_type == Type::kByteArray) {
      for (int64_t e = 0; e < entries; ++e) {
        const std::string_view s = v_.value(dict->entry_value(e));
        PutU32(static_cast<uint32_t>(s.size()), &plain);
        plain.append(s.data(), s.size());
      }
    } else {
      const int w = width();
      plain.reserve(static_cast<size_t>(entries * w));
      for (int64_t e = 0; e < entries; ++e) {
        plain.append(reinterpret_cast<const char*>(v_.fixed.data()) + dict->entry_value(e) * w,
                     static_cast<size_t>(w));
      }
    }
    PageHeader h;
    h.type = PageType::kDictionaryPage;
    DictionaryPageHeader d;
    d.num_values = static_cast<int32_t>(entries);
    d.encoding = Encoding::kPlain;
    h.dictionary_page_header = d;
    QUIVER_RETURN_NOT_OK(WritePage(std::move(h), "", plain, &dict_page, &uncompressed_total));
  }
  out->dictionary_overflowed = dict != nullptr && dict_values < v_.num_values;
  const int64_t shift = static_cast<int64_t>(dict_page.size());
  if (used_dict) out->pages.push_back(std::move(dict_page));
  for (std::string& page : data_pages) out->pages.push_back(std::move(page));
  for (PageLocation& loc : out->offset_index.page_locations) loc.offset += shift;

  md.total_uncompressed_size = uncompressed_total;
  md.total_compressed_size = shift + data_bytes;
  md.data_page_offset = shift;
  if (used_dict) md.dictionary_page_offset = 0;
  // Encodings: levels (RLE), the dictionary page's PLAIN, the data pages'.
  if (leaf_.max_def_level > 0 || leaf_.max_rep_level > 0) md.encodings.push_back(Encoding::kRle);
  if (used_dict) {
    if (std::find(encodings_used.begin(), encodings_used.end(), Encoding::kPlain) ==
        encodings_used.end()) {
      md.encodings.push_back(Encoding::kPlain);
    }
    md.encoding_stats.push_back({PageType::kDictionaryPage, Encoding::kPlain, 1});
  }
  for (Encoding e : encodings_used) {
    if (std::find(md.encodings.begin(), md.encodings.end(), e) == md.encodings.end()) {
      md.encodings.push_back(e);
    }
  }
  const PageType data_type =
      o_.data_page_version == 2 ? PageType::kDataPageV2 : PageType::kDataPage;
  if (data_page_count[1] > 0) {
    md.encoding_stats.push_back(
        {data_type, Encoding::kRleDictionary, static_cast<int32_t>(data_page_count[1])});
  }
  if (data_page_count[0] > 0) {
    md.encoding_stats.push_back({data_type, fallback, static_cast<int32_t>(data_page_count[0])});
  }
  if (o_.statistics) {
    Statistics s;
    s.null_count = v_.null_count();
    if (chunk_stats_.has_bounds()) {
      s.min_value = chunk_stats_.min();
      s.max_value = chunk_stats_.max();
      s.is_min_value_exact = chunk_stats_.min_exact();
      s.is_max_value_exact = chunk_stats_.max_exact();
    }
    md.statistics = std::move(s);
  }
  if (index_ok && !pages.empty()) {
    // Readers may binary-search ordered bounds; UNORDERED is always true.
    index.boundary_order = BoundaryOrder::kUnordered;
    out->column_index = std::move(index);
  }
  return Status::OK();
}

}  // namespace

Status EncodeColumnChunk(const WriterSchema::Leaf& leaf, const LeafValues& values,
                         const ColumnWriterOptions& options, EncodedColumnChunk* out,
                         std::vector<int32_t>* indices) {
  ColumnWriterOptions o = options;
  if (o.codec == compression::Codec::kLz4Frame) o.codec = compression::Codec::kLz4Raw;
  std::vector<int32_t> local;
  ChunkEncoder encoder(leaf, values, o, indices ? indices : &local);
  return encoder.Encode(out);
}

}  // namespace quiver::parquet
