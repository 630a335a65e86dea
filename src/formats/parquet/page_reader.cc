#include "formats/parquet/page_reader.h"

#include <zlib.h>

#include <algorithm>

namespace quiver::parquet {

Result<compression::Codec> CodecFromParquet(CompressionCodec codec) {
  using compression::Codec;
  switch (codec) {
    case CompressionCodec::kUncompressed:
      return Codec::kNone;
    case CompressionCodec::kSnappy:
      return Codec::kSnappy;
    case CompressionCodec::kGzip:
      return Codec::kGzip;
    case CompressionCodec::kBrotli:
      return Codec::kBrotli;
    case CompressionCodec::kLz4:
      return Codec::kLz4Hadoop;
    case CompressionCodec::kZstd:
      return Codec::kZstd;
    case CompressionCodec::kLz4Raw:
      return Codec::kLz4Raw;
    case CompressionCodec::kLzo:
      return Status::Unsupported("LZO-compressed Parquet");
  }
  return Status::Invalid("unknown Parquet compression codec {}", static_cast<int32_t>(codec));
}

std::string PageReader::PageContext(int64_t index) const {
  return fmt::format("{}, page {}", context_, index);
}

Status PageReader::Decompress(const uint8_t* src, int64_t src_size, int64_t dst_size,
                              const uint8_t** out) {
  if (codec_ == compression::Codec::kNone) {
    if (src_size != dst_size) {
      return Status::Invalid("uncompressed page of {} bytes claims {} bytes", src_size, dst_size);
    }
    *out = src;
    return Status::OK();
  }
  const int64_t capacity = scratch_ ? scratch_->capacity() : 0;
  if (scratch_ == nullptr || dst_size + 8 > capacity) {
    QUIVER_RETURN_NOT_OK(budget_->Charge(dst_size - capacity, ""));
    if (scratch_ == nullptr) {
      QUIVER_ASSIGN_OR_RAISE(scratch_, MutableBuffer::Allocate(0, options_.pool));
    }
    // Decompressors may not write past dst_size; the padding is for decoders
    // that load 8 bytes at a time near the end.
    QUIVER_RETURN_NOT_OK(scratch_->Reserve(dst_size + 8));
  }
  QUIVER_RETURN_NOT_OK(
      compression::DecompressInto(codec_, src, src_size, scratch_->mutable_data(), dst_size));
  *out = scratch_->data();
  return Status::OK();
}

Status PageReader::Seek(int64_t offset, int64_t index) {
  if (offset < 0 || offset >= size_) {
    return Status::Invalid("{}: the page index puts page {} at chunk byte {}, outside the {} bytes "
                           "of the chunk", context_, index, offset, size_);
  }
  pos_ = offset;
  page_index_ = index;
  return Status::OK();
}

Status PageReader::Next(Page* page, bool* done) {
  for (;;) {
    if (pos_ >= size_) {
      *done = true;
      return Status::OK();
    }
    *done = false;
    const int64_t index = page_index_++;
    PageHeader h;
    int64_t header_size = 0;
    Status st = DecodePageHeader(chunk_ + pos_, size_ - pos_, &h, &header_size);
    if (!st.ok()) return st.WithContext(PageContext(index) + " header");
    const int64_t body_start = pos_ + header_size;
    if (h.compressed_page_size < 0 || h.uncompressed_page_size < 0 ||
        h.compressed_page_size > size_ - body_start) {
      return Status::Invalid(
          "{}: page of {} bytes (uncompressed {}) overruns its column chunk ({} bytes left)",
          PageContext(index), h.compressed_page_size, h.uncompressed_page_size, size_ - body_start);
    }
    const uint8_t* body = chunk_ + body_start;
    const int64_t body_size = h.compressed_page_size;
    pos_ = body_start + body_size;
    if (h.crc && options_.verify_crc) {
      const uint32_t crc =
          static_cast<uint32_t>(crc32(crc32(0L, Z_NULL, 0), body, static_cast<uInt>(body_size)));
      if (crc != static_cast<uint32_t>(*h.crc)) {
        return Status::Invalid("{}: page CRC mismatch (stored {:08x}, computed {:08x})",
                               PageContext(index), static_cast<uint32_t>(*h.crc), crc);
      }
    }
    *page = Page();
    page->type = h.type;
    page->index = index;
    switch (h.type) {
      case PageType::kDictionaryPage: {
        if (!h.dictionary_page_header) {
          return Status::Invalid("{}: dictionary page without its header", PageContext(index));
        }
        const DictionaryPageHeader& d = *h.dictionary_page_header;
        if (d.num_values < 0) {
          return Status::Invalid("{}: dictionary of {} values", PageContext(index), d.num_values);
        }
        page->num_values = d.num_values;
        page->encoding = d.encoding;
        st = Decompress(body, body_size, h.uncompressed_page_size, &page->data);
        if (!st.ok()) return st.WithContext(PageContext(index));
        page->size = h.uncompressed_page_size;
        return Status::OK();
      }
      case PageType::kDataPage: {
        if (!h.data_page_header) {
          return Status::Invalid("{}: data page without its header", PageContext(index));
        }
        const DataPageHeader& d = *h.data_page_header;
        if (d.num_values < 0) {
          return Status::Invalid("{}: data page of {} values", PageContext(index), d.num_values);
        }
        page->num_values = d.num_values;
        page->encoding = d.encoding;
        page->def_level_encoding = d.definition_level_encoding;
        page->rep_level_encoding = d.repetition_level_encoding;
        st = Decompress(body, body_size, h.uncompressed_page_size, &page->data);
        if (!st.ok()) return st.WithContext(PageContext(index));
        page->size = h.uncompressed_page_size;
        return Status::OK();
      }
      case PageType::kDataPageV2: {
        if (!h.data_page_header_v2) {
          return Status::Invalid("{}: data page V2 without its header", PageContext(index));
        }
        const DataPageHeaderV2& d = *h.data_page_header_v2;
        const int64_t levels =
            int64_t{d.repetition_levels_byte_length} + d.definition_levels_byte_length;
        if (d.num_values < 0 || d.num_nulls < 0 || d.num_nulls > d.num_values || d.num_rows < 0 ||
            d.repetition_levels_byte_length < 0 || d.definition_levels_byte_length < 0 ||
            levels > body_size || levels > h.uncompressed_page_size) {
          return Status::Invalid(
              "{}: inconsistent data page V2 header ({} values, {} nulls, levels {} + {} bytes "
              "in a {}-byte page)",
              PageContext(index), d.num_values, d.num_nulls, d.repetition_levels_byte_length,
              d.definition_levels_byte_length, body_size);
        }
        page->v2 = true;
        page->num_values = d.num_values;
        page->num_nulls = d.num_nulls;
        page->num_rows = d.num_rows;
        page->encoding = d.encoding;
        page->rep_levels = body;
        page->rep_levels_size = d.repetition_levels_byte_length;
        page->def_levels = body + d.repetition_levels_byte_length;
        page->def_levels_size = d.definition_levels_byte_length;
        const uint8_t* values = body + levels;
        const int64_t values_size = body_size - levels;
        const int64_t uncompressed = h.uncompressed_page_size - levels;
        // pyarrow < 3 compressed V2 values even with is_compressed = false
        // (ARROW-10353): sizes that disagree give it away.
        const bool compressed =
            d.is_compressed || (codec_ != compression::Codec::kNone && values_size != uncompressed);
        if (!compressed || codec_ == compression::Codec::kNone || uncompressed == 0) {
          if (values_size != uncompressed && !(uncompressed == 0 && d.is_compressed)) {
            return Status::Invalid("{}: uncompressed values of {} bytes, header says {}",
                                   PageContext(index), values_size, uncompressed);
          }
          page->data = values;
          page->size = uncompressed;
        } else {
          st = Decompress(values, values_size, uncompressed, &page->data);
          if (!st.ok()) return st.WithContext(PageContext(index));
          page->size = uncompressed;
        }
        return Status::OK();
      }
      case PageType::kIndexPage:
      default:
        continue;  // not needed to read values
    }
  }
}

}  // namespace quiver::parquet
