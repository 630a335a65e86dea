#include "formats/parquet/column_reader.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include <sys/mman.h>

#include "common/bit_util.h"
#include "formats/parquet/delta_encoding.h"
#include "formats/parquet/plain_encoding.h"
#include "formats/parquet/rle_encoding.h"

namespace quiver::parquet {
namespace {

// Page-table work is a large share of decoding a column chunk: every 4 kB of
// freshly allocated output and of the mapped file costs a page fault. Hints
// to the kernel: back big output buffers with huge pages, and map the chunk's
// file pages in one call instead of one fault at a time. Both are advisory;
// failures are ignored.
void AdviseHugePages(uint8_t* p, int64_t size) {
#ifdef MADV_HUGEPAGE
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  if (size < static_cast<int64_t>(2 * kHuge)) return;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + size) & ~(kHuge - 1);
  if (end > begin) (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#endif
}

void PrefaultFileRange(const uint8_t* p, int64_t size) {
#ifdef MADV_POPULATE_READ
  static const uintptr_t kPage = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  if (size < static_cast<int64_t>(64 * kPage)) return;
  const uintptr_t begin = reinterpret_cast<uintptr_t>(p) & ~(kPage - 1);
  const uintptr_t end = reinterpret_cast<uintptr_t>(p) + static_cast<uintptr_t>(size);
  (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_READ);
#endif
}

// One chunk's decoding state.
class ChunkDecoder {
 public:
  ChunkDecoder(const ColumnDescriptor& descr, std::string context, DecodeBudget* budget,
               MemoryPool* pool)
      : descr_(descr),
        context_(std::move(context)),
        budget_(budget),
        pool_(pool),
        width_(PhysicalWidth(descr.physical_type, descr.type_length)),
        values_(pool, budget, ""),  // its errors get the page's context
        dict_values_(pool, budget, "") {}

  Status Init(int64_t expected_levels, ColumnChunkData* out);
  Status DecodePage(const Page& page, const std::string& where);
  Status Finish(ColumnChunkData* out);
  int64_t levels_read() const { return levels_read_; }
  int64_t rows_started() const { return rows_started_; }
  int64_t expected_levels() const { return expected_levels_; }

 private:
  bool is_byte_array() const { return descr_.physical_type == Type::kByteArray; }
  bool is_bool() const { return descr_.physical_type == Type::kBoolean; }

  Status DecodeDictionary(const Page& page);
  Status DecodeLevels(const Page& page, int16_t max_level, bool repetition, const uint8_t** p,
                      int64_t* remaining, int16_t* out);
  Status DecodeValues(const Page& page, const uint8_t* p, int64_t size, int64_t n);
  Status DecodeDictionaryIndices(const uint8_t* p, int64_t size, int64_t n);
  Status DecodeRleBooleans(const uint8_t* p, int64_t size, int64_t n, bool length_prefixed);
  Status GrowScratch(int64_t bytes);

  const ColumnDescriptor& descr_;
  std::string context_;
  DecodeBudget* budget_;
  MemoryPool* pool_;
  int width_;
  int64_t expected_levels_ = 0;
  int64_t levels_read_ = 0;
  int64_t values_read_ = 0;
  int64_t rows_started_ = 0;
  bool saw_data_page_ = false;

  ColumnChunkData* out_ = nullptr;
  int16_t* def_ = nullptr;
  int16_t* rep_ = nullptr;
  uint8_t* fixed_ = nullptr;  // fixed-width values / boolean bits
  ByteArrayBuilder values_;

  // Dictionary (decoded once per chunk).
  bool has_dict_ = false;
  int32_t dict_size_ = 0;
  std::vector<uint8_t> dict_fixed_;
  ByteArrayBuilder dict_values_;

  std::vector<uint8_t> scratch_;
  int64_t scratch_charged_ = 0;
};

Status ChunkDecoder::GrowScratch(int64_t bytes) {
  if (bytes > scratch_charged_) {
    QUIVER_RETURN_NOT_OK(budget_->Charge(bytes - scratch_charged_, context_));
    scratch_charged_ = bytes;
  }
  if (static_cast<int64_t>(scratch_.size()) < bytes) scratch_.resize(static_cast<size_t>(bytes));
  return Status::OK();
}

Status ChunkDecoder::Init(int64_t expected_levels, ColumnChunkData* out) {
  out_ = out;
  expected_levels_ = expected_levels;
  const int64_t n = expected_levels;
  // Each value costs at least a byte somewhere; a count beyond the budget
  // is refused before any size computation could overflow.
  if (n < 0 || n > budget_->limit()) {
    return Status::Invalid(
        "{}: the column chunk claims {} values, more than one read may decode ({} bytes)", context_,
        n, budget_->limit());
  }
  if (descr_.max_def_level > 0) {
    QUIVER_RETURN_NOT_OK(budget_->Charge(n * 2, context_));
    QUIVER_ASSIGN_OR_RAISE(out->def_levels, MutableBuffer::Allocate(n * 2, pool_));
    def_ = out->def_levels->mutable_data_as<int16_t>();
  }
  if (descr_.max_rep_level > 0) {
    QUIVER_RETURN_NOT_OK(budget_->Charge(n * 2, context_));
    QUIVER_ASSIGN_OR_RAISE(out->rep_levels, MutableBuffer::Allocate(n * 2, pool_));
    rep_ = out->rep_levels->mutable_data_as<int16_t>();
  }
  if (is_byte_array()) {
    QUIVER_RETURN_NOT_OK(values_.ReserveOffsets(n));
  } else {
    const int64_t bytes = is_bool() ? bit_util::BytesForBits(n) : n * width_;
    QUIVER_RETURN_NOT_OK(budget_->Charge(bytes, context_));
    QUIVER_ASSIGN_OR_RAISE(out->values, MutableBuffer::Allocate(bytes, pool_));
    fixed_ = out->values->mutable_data();
    AdviseHugePages(fixed_, bytes);
    if (is_bool() && bytes > 0) std::memset(fixed_, 0, static_cast<size_t>(bytes));
  }
  return Status::OK();
}

Status ChunkDecoder::DecodeDictionary(const Page& page) {
  if (saw_data_page_) return Status::Invalid("dictionary page after a data page");
  if (has_dict_) return Status::Invalid("a second dictionary page");
  if (page.encoding != Encoding::kPlain && page.encoding != Encoding::kPlainDictionary) {
    return Status::Unsupported("dictionary page encoding {}", EncodingName(page.encoding));
  }
  const int64_t n = page.num_values;
  if (is_byte_array()) {
    int64_t consumed;
    QUIVER_RETURN_NOT_OK(DecodePlainByteArray(page.data, page.size, n, &dict_values_, &consumed));
  } else if (is_bool()) {
    return Status::Unsupported("dictionary-encoded BOOLEAN column");
  } else {
    if (width_ > 0 && n > page.size / width_) {
      return Status::Invalid("dictionary page of {} bytes cannot hold {} values of {} bytes",
                             page.size, n, width_);
    }
    dict_fixed_.resize(static_cast<size_t>(n * width_ + 8));
    int64_t consumed;
    QUIVER_RETURN_NOT_OK(
        DecodePlainFixed(page.data, page.size, width_, n, dict_fixed_.data(), &consumed));
  }
  has_dict_ = true;
  dict_size_ = static_cast<int32_t>(n);
  return Status::OK();
}

Status ChunkDecoder::DecodeLevels(const Page& page, int16_t max_level, bool repetition,
                                  const uint8_t** p, int64_t* remaining, int16_t* out) {
  const int64_t n = page.num_values;
  const int bw = BitWidth(static_cast<uint64_t>(max_level));
  const char* what = repetition ? "repetition" : "definition";
  int64_t got = 0;
  if (page.v2) {
    const uint8_t* src = repetition ? page.rep_levels : page.def_levels;
    const int64_t size = repetition ? page.rep_levels_size : page.def_levels_size;
    RleBitPackedDecoder dec(src, size, bw);
    QUIVER_ASSIGN_OR_RAISE(got, dec.GetBatch(out, n));
  } else {
    const Encoding enc = repetition ? page.rep_level_encoding : page.def_level_encoding;
    if (enc == Encoding::kRle) {
      if (*remaining < 4) return Status::Invalid("page ends before its {} levels", what);
      uint32_t len;
      std::memcpy(&len, *p, 4);
      if (len > static_cast<uint64_t>(*remaining - 4)) {
        return Status::Invalid("{} levels claim {} bytes, {} remain", what, len, *remaining - 4);
      }
      RleBitPackedDecoder dec(*p + 4, len, bw);
      QUIVER_ASSIGN_OR_RAISE(got, dec.GetBatch(out, n));
      *p += 4 + len;
      *remaining -= 4 + len;
    } else if (enc == Encoding::kBitPacked) {
      const int64_t bytes = (n * bw + 7) / 8;
      if (bytes > *remaining) return Status::Invalid("page ends inside its {} levels", what);
      UnpackBitsMsbFirst(*p, bw, out, n);
      got = n;
      *p += bytes;
      *remaining -= bytes;
    } else {
      return Status::Unsupported("{} level encoding {}", what, EncodingName(enc));
    }
  }
  if (got != n) {
    return Status::Invalid("decoded {} {} levels, the page has {} values", got, what, n);
  }
  int16_t max_seen = 0;
  for (int64_t i = 0; i < n; ++i) max_seen = std::max(max_seen, out[i]);
  if (max_seen > max_level) {
    return Status::Invalid("{} level {} above the column's maximum {}", what, max_seen, max_level);
  }
  return Status::OK();
}

Status ChunkDecoder::DecodeDictionaryIndices(const uint8_t* p, int64_t size, int64_t n) {
  if (!has_dict_) return Status::Invalid("dictionary-encoded page without a dictionary page");
  if (n == 0) return Status::OK();
  if (size < 1) return Status::Invalid("dictionary indices: empty page");
  const int bw = p[0];
  if (bw > 32) return Status::Invalid("dictionary index bit width {} above 32", bw);
  RleBitPackedDecoder dec(p + 1, size - 1, bw);
  // Indices are decoded and gathered a block at a time, so they stay in L1.
  constexpr int64_t kBlock = 1024;
  int32_t idx[kBlock];
  const uint8_t* dict = dict_fixed_.data();
  const int32_t* doff = dict_values_.offsets();
  const uint8_t* ddata = dict_values_.data();
  uint8_t* dst = fixed_ + values_read_ * width_;
  for (int64_t done = 0; done < n;) {
    const int64_t k = std::min(kBlock, n - done);
    QUIVER_ASSIGN_OR_RAISE(int64_t got, dec.GetIndices(idx, k, dict_size_));
    if (got != k) {
      return Status::Invalid("decoded {} dictionary indices for {} values", done + got, n);
    }
    if (is_byte_array()) {
      int64_t bytes = 0;
      for (int64_t i = 0; i < k; ++i) bytes += doff[idx[i] + 1] - doff[idx[i]];
      QUIVER_RETURN_NOT_OK(values_.Reserve(k, bytes));
      for (int64_t i = 0; i < k; ++i) {
        values_.UnsafeAppend(ddata + doff[idx[i]], doff[idx[i] + 1] - doff[idx[i]]);
      }
    } else if (width_ == 4) {
      uint32_t* d = reinterpret_cast<uint32_t*>(dst) + done;
      for (int64_t i = 0; i < k; ++i) std::memcpy(d + i, dict + 4 * idx[i], 4);
    } else if (width_ == 8) {
      uint64_t* d = reinterpret_cast<uint64_t*>(dst) + done;
      for (int64_t i = 0; i < k; ++i) std::memcpy(d + i, dict + 8 * idx[i], 8);
    } else {
      uint8_t* d = dst + done * width_;
      for (int64_t i = 0; i < k; ++i) {
        std::memcpy(d + i * width_, dict + static_cast<int64_t>(idx[i]) * width_, width_);
      }
    }
    done += k;
  }
  return Status::OK();
}

Status ChunkDecoder::DecodeRleBooleans(const uint8_t* p, int64_t size, int64_t n,
                                       bool length_prefixed) {
  if (length_prefixed) {
    if (size < 4) return Status::Invalid("RLE booleans: page too short");
    uint32_t len;
    std::memcpy(&len, p, 4);
    if (len > static_cast<uint64_t>(size - 4)) {
      return Status::Invalid("RLE booleans claim {} bytes, {} remain", len, size - 4);
    }
    p += 4;
    size = len;
  }
  QUIVER_RETURN_NOT_OK(GrowScratch(n));
  RleBitPackedDecoder dec(p, size, 1);
  QUIVER_ASSIGN_OR_RAISE(int64_t got, dec.GetBatch(scratch_.data(), n));
  if (got != n) return Status::Invalid("decoded {} RLE booleans for {} values", got, n);
  for (int64_t i = 0; i < n; ++i) {
    if (scratch_[i]) bit_util::SetBit(fixed_, values_read_ + i);
  }
  return Status::OK();
}

Status ChunkDecoder::DecodeValues(const Page& page, const uint8_t* p, int64_t size, int64_t n) {
  const Type type = descr_.physical_type;
  int64_t consumed = 0;
  switch (page.encoding) {
    case Encoding::kPlain:
      if (is_byte_array()) return DecodePlainByteArray(p, size, n, &values_, &consumed);
      if (is_bool()) return DecodePlainBool(p, size, 0, n, fixed_, values_read_);
      return DecodePlainFixed(p, size, width_, n, fixed_ + values_read_ * width_, &consumed);
    case Encoding::kPlainDictionary:
    case Encoding::kRleDictionary:
      if (is_bool()) break;
      return DecodeDictionaryIndices(p, size, n);
    case Encoding::kRle:
      if (!is_bool()) break;
      return DecodeRleBooleans(p, size, n, /*length_prefixed=*/true);
    case Encoding::kBitPacked:
      if (!is_bool()) break;
      return DecodePlainBool(p, size, 0, n, fixed_, values_read_);
    case Encoding::kDeltaBinaryPacked: {
      if (type != Type::kInt32 && type != Type::kInt64) break;
      if (n == 0) return Status::OK();
      DeltaBinaryPackedDecoder dec;
      QUIVER_RETURN_NOT_OK(dec.Init(p, size));
      if (type == Type::kInt32) {
        return dec.Decode(reinterpret_cast<int32_t*>(fixed_) + values_read_, n);
      }
      return dec.Decode(reinterpret_cast<int64_t*>(fixed_) + values_read_, n);
    }
    case Encoding::kDeltaLengthByteArray:
      if (!is_byte_array()) break;
      if (n == 0) return Status::OK();
      return DecodeDeltaLengthByteArray(p, size, n, &values_);
    case Encoding::kDeltaByteArray: {
      if (n == 0) return Status::OK();
      if (is_byte_array()) return DecodeDeltaByteArray(p, size, n, &values_);
      if (type != Type::kFixedLenByteArray) break;
      ByteArrayBuilder tmp(pool_, budget_, "");
      QUIVER_RETURN_NOT_OK(DecodeDeltaByteArray(p, size, n, &tmp));
      uint8_t* dst = fixed_ + values_read_ * width_;
      for (int64_t i = 0; i < n; ++i) {
        const std::string_view v = tmp.value(i);
        if (static_cast<int64_t>(v.size()) != width_) {
          return Status::Invalid("DELTA_BYTE_ARRAY value of {} bytes in a FIXED_LEN_BYTE_ARRAY({})",
                                 v.size(), width_);
        }
        if (width_ > 0) std::memcpy(dst + i * width_, v.data(), static_cast<size_t>(width_));
      }
      return Status::OK();
    }
    case Encoding::kByteStreamSplit: {
      if (is_bool() || is_byte_array() || type == Type::kInt96) break;
      if (width_ == 0 || n == 0) return Status::OK();
      return DecodeByteStreamSplit(p, size, width_, n, size / width_,
                                   fixed_ + values_read_ * width_);
    }
    default:
      break;
  }
  return Status::Unsupported("encoding {} for a {} column", EncodingName(page.encoding),
                             TypeName(type));
}

Status ChunkDecoder::DecodePage(const Page& page, const std::string& where) {
  if (page.type == PageType::kDictionaryPage) {
    Status st = DecodeDictionary(page);
    return st.ok() ? st : st.WithContext(where);
  }
  saw_data_page_ = true;
  const int64_t n = page.num_values;
  if (n > expected_levels_ - levels_read_) {
    return Status::Invalid(
        "{}: the pages hold more than the {} values the column chunk metadata gives", where,
        expected_levels_);
  }
  const uint8_t* p = page.data;
  int64_t remaining = page.size;
  Status st;
  if (descr_.max_rep_level > 0) {
    st = DecodeLevels(page, descr_.max_rep_level, true, &p, &remaining, rep_ + levels_read_);
    if (!st.ok()) return st.WithContext(where);
    if (levels_read_ == 0 && n > 0 && rep_[0] != 0) {
      return Status::Invalid("{}: the column chunk starts inside a record (repetition level {})",
                             where, rep_[0]);
    }
    for (int64_t i = 0; i < n; ++i) rows_started_ += rep_[levels_read_ + i] == 0;
  } else {
    rows_started_ += n;
  }
  int64_t present = n;
  if (descr_.max_def_level > 0) {
    st = DecodeLevels(page, descr_.max_def_level, false, &p, &remaining, def_ + levels_read_);
    if (!st.ok()) return st.WithContext(where);
    const int16_t max_def = descr_.max_def_level;
    const int16_t* d = def_ + levels_read_;
    present = 0;
    for (int64_t i = 0; i < n; ++i) present += d[i] == max_def;
  }
  st = DecodeValues(page, p, remaining, present);
  if (!st.ok()) return st.WithContext(where);
  levels_read_ += n;
  values_read_ += present;
  if (has_dict_ &&
      (page.encoding == Encoding::kPlainDictionary || page.encoding == Encoding::kRleDictionary)) {
    out_->dictionary_encoded = true;
  }
  return Status::OK();
}

Status ChunkDecoder::Finish(ColumnChunkData* out) {
  out->num_levels = levels_read_;
  out->num_values = values_read_;
  if (is_byte_array()) {
    out->offsets = values_.TakeOffsets();
    out->data = values_.TakeData();
    if (out->data == nullptr) {
      QUIVER_ASSIGN_OR_RAISE(out->data, MutableBuffer::Allocate(0, pool_));
    }
  }
  return Status::OK();
}

}  // namespace

Status ColumnChunkRange(const ColumnChunk& chunk, int64_t file_size, int64_t* start,
                        int64_t* length, bool pad_chunk_length) {
  const ColumnMetaData& md = *chunk.meta_data;
  int64_t s = md.data_page_offset;
  // Some writers record dictionary_page_offset = 0 for "none".
  if (md.dictionary_page_offset && *md.dictionary_page_offset > 0 &&
      *md.dictionary_page_offset < s) {
    s = *md.dictionary_page_offset;
  }
  const int64_t len = md.total_compressed_size;
  if (s < 4 || len < 0 || s > file_size || len > file_size - s) {
    return Status::Invalid("column chunk at byte {} of {} bytes lies outside the file ({} bytes)",
                           s, len, file_size);
  }
  *start = s;
  *length = pad_chunk_length ? len + std::min<int64_t>(100, file_size - s - len) : len;
  return Status::OK();
}

namespace {

// The checks every chunk read makes before touching its pages.
Status CheckChunk(const ColumnChunk& chunk, const ColumnDescriptor& descr,
                  const std::string& context) {
  if (chunk.has_crypto_metadata || chunk.has_encrypted_column_metadata) {
    return Status::Unsupported("{}: encrypted Parquet is not supported", context);
  }
  if (chunk.file_path) {
    return Status::Unsupported("{}: column chunk stored in another file ('{}')", context,
                               *chunk.file_path);
  }
  if (!chunk.meta_data) return Status::Invalid("{}: column chunk without metadata", context);
  const ColumnMetaData& md = *chunk.meta_data;
  if (md.type != descr.physical_type) {
    return Status::Invalid("{}: column chunk of type {} in a {} column", context, TypeName(md.type),
                           TypeName(descr.physical_type));
  }
  if (md.num_values < 0) {
    return Status::Invalid("{}: column chunk of {} values", context, md.num_values);
  }
  return Status::OK();
}

}  // namespace

int64_t PageRows(const OffsetIndex& index, int page, int64_t num_rows) {
  const auto& locs = index.page_locations;
  const size_t p = static_cast<size_t>(page);
  const int64_t end = p + 1 < locs.size() ? locs[p + 1].first_row_index : num_rows;
  return end - locs[p].first_row_index;
}

bool ValidOffsetIndex(const OffsetIndex& index, int64_t num_rows) {
  const auto& locs = index.page_locations;
  if (locs.empty() || locs[0].first_row_index != 0) return false;
  for (size_t p = 0; p < locs.size(); ++p) {
    if (locs[p].compressed_page_size <= 0 || locs[p].offset < 0) return false;
    if (locs[p].first_row_index >= num_rows) return false;
    if (p > 0 && (locs[p].first_row_index <= locs[p - 1].first_row_index ||
                  locs[p].offset <= locs[p - 1].offset)) {
      return false;
    }
  }
  return true;
}

Status ReadColumnChunkPages(const uint8_t* file, int64_t file_size, const ColumnChunk& chunk,
                            const ColumnDescriptor& descr, const OffsetIndex& index,
                            const std::vector<int>& pages, int64_t num_rows,
                            const std::string& context, DecodeBudget* budget,
                            const PageReaderOptions& options, ColumnChunkData* out) {
  *out = ColumnChunkData();
  QUIVER_RETURN_NOT_OK(CheckChunk(chunk, descr, context));
  if (descr.max_rep_level != 0) {
    return Status::Invalid("{}: pages of a repeated column cannot be read apart", context);
  }
  if (!ValidOffsetIndex(index, num_rows)) {
    return Status::Invalid("{}: the offset index does not describe the chunk's {} rows", context,
                           num_rows);
  }
  const int num_pages = static_cast<int>(index.page_locations.size());
  int64_t expected = 0;
  for (size_t k = 0; k < pages.size(); ++k) {
    if (pages[k] < 0 || pages[k] >= num_pages || (k > 0 && pages[k] <= pages[k - 1])) {
      return Status::Invalid("{}: page {} out of order or out of range ({} pages)", context,
                             pages[k], num_pages);
    }
    expected += PageRows(index, pages[k], num_rows);
  }
  ChunkDecoder decoder(descr, context, budget, options.pool);
  QUIVER_RETURN_NOT_OK(decoder.Init(expected, out));
  if (expected == 0) return decoder.Finish(out);
  int64_t start, length;
  Status st = ColumnChunkRange(chunk, file_size, &start, &length, options.pad_chunk_length);
  if (!st.ok()) return st.WithContext(context);
  auto codec = CodecFromParquet(chunk.meta_data->codec);
  if (!codec.ok()) return codec.status().WithContext(context);
  PageReader reader(file + start, length, *codec, context, budget, options);
  // The dictionary page: whatever lies before the first data page.
  const int64_t first_data = index.page_locations[0].offset - start;
  if (first_data < 0 || first_data >= length) {
    return Status::Invalid("{}: the offset index puts the first page at byte {}, outside the "
                           "chunk's bytes {}..{}", context, index.page_locations[0].offset, start,
                           start + length);
  }
  while (reader.position() < first_data) {
    Page page;
    bool done;
    QUIVER_RETURN_NOT_OK(reader.Next(&page, &done));
    if (done) break;
    if (page.type != PageType::kDictionaryPage) {
      return Status::Invalid("{}: a data page lies before the offset index's first page",
                             reader.PageContext(page.index));
    }
    QUIVER_RETURN_NOT_OK(decoder.DecodePage(page, reader.PageContext(page.index)));
  }
  for (const int p : pages) {
    const PageLocation& loc = index.page_locations[static_cast<size_t>(p)];
    QUIVER_RETURN_NOT_OK(reader.Seek(loc.offset - start, p));
    Page page;
    bool done;
    QUIVER_RETURN_NOT_OK(reader.Next(&page, &done));
    const int64_t rows = PageRows(index, p, num_rows);
    if (done || page.type == PageType::kDictionaryPage || page.num_values != rows) {
      return Status::Invalid("{}: the offset index gives {} rows, the page holds {}",
                             reader.PageContext(p), rows,
                             done ? 0 : static_cast<int64_t>(page.num_values));
    }
    QUIVER_RETURN_NOT_OK(decoder.DecodePage(page, reader.PageContext(p)));
  }
  if (decoder.rows_started() != expected) {
    return Status::Invalid("{}: the selected pages hold {} rows, the offset index {}", context,
                           decoder.rows_started(), expected);
  }
  return decoder.Finish(out);
}

Status ReadColumnChunk(const uint8_t* file, int64_t file_size, const ColumnChunk& chunk,
                       const ColumnDescriptor& descr, int64_t num_rows, const std::string& context,
                       DecodeBudget* budget, const PageReaderOptions& options,
                       ColumnChunkData* out) {
  *out = ColumnChunkData();
  QUIVER_RETURN_NOT_OK(CheckChunk(chunk, descr, context));
  const ColumnMetaData& md = *chunk.meta_data;
  // A flat column has one level per row; a nested one as many as the
  // metadata says (checked against the pages as they come).
  const int64_t expected = descr.max_rep_level == 0 ? num_rows : md.num_values;
  ChunkDecoder decoder(descr, context, budget, options.pool);
  QUIVER_RETURN_NOT_OK(decoder.Init(expected, out));
  if (expected == 0 && num_rows == 0) return decoder.Finish(out);  // nothing to read
  int64_t start, length;
  Status st = ColumnChunkRange(chunk, file_size, &start, &length, options.pad_chunk_length);
  if (!st.ok()) return st.WithContext(context);
  auto codec = CodecFromParquet(md.codec);
  if (!codec.ok()) return codec.status().WithContext(context);

  PrefaultFileRange(file + start, length);
  PageReader pages(file + start, length, *codec, context, budget, options);
  while (decoder.levels_read() < expected) {
    Page page;
    bool done;
    QUIVER_RETURN_NOT_OK(pages.Next(&page, &done));
    if (done) {
      return Status::Invalid("{}: column chunk ends after {} of its {} values", context,
                             decoder.levels_read(), expected);
    }
    QUIVER_RETURN_NOT_OK(decoder.DecodePage(page, pages.PageContext(page.index)));
  }
  if (decoder.rows_started() != num_rows) {
    return Status::Invalid("{}: column chunk holds {} rows, the row group {}", context,
                           decoder.rows_started(), num_rows);
  }
  QUIVER_RETURN_NOT_OK(decoder.Finish(out));
  return Status::OK();
}

}  // namespace quiver::parquet
