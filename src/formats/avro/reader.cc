#include "formats/avro/reader.h"

#include <cstring>

#include "formats/avro/decoder.h"

namespace quiver::avro {
namespace {

// Decompressed bytes one block may have: a bound against decompression
// bombs far above what writers use (Java's default block is 64 KiB, fastavro
// 16,000 records).
constexpr int64_t kMaxBlockBytes = int64_t{1} << 31;
// Records a block may claim when they take no bytes (all null fields).
constexpr int64_t kMaxEmptyRecords = int64_t{1} << 24;

}  // namespace

Result<std::unique_ptr<AvroFileReader>> AvroFileReader::Open(std::shared_ptr<Buffer> data,
                                                             std::string path, MemoryPool* pool,
                                                             bool validate_utf8) {
  std::unique_ptr<AvroFileReader> r(new AvroFileReader());
  r->data_ = std::move(data);
  r->path_ = std::move(path);
  r->pool_ = pool;
  r->validate_utf8_ = validate_utf8;
  QUIVER_RETURN_NOT_OK(r->ParseHeader());
  return r;
}

Status AvroFileReader::ParseHeader() {
  const uint8_t* bytes = data_->data();
  const int64_t size = data_->size();
  if (size < 4 || std::memcmp(bytes, kMagic, 4) != 0) {
    return Status::Invalid("{}: not an Avro object container file (no Obj\\x01 magic)", path_);
  }
  Decoder d(bytes, size, 4);
  std::string schema_json;
  std::string codec_name;
  bool have_schema = false;
  auto header_error = [&](const Status& st) {
    return Status::Invalid("{}: Avro header: {}", path_, st.message());
  };
  while (true) {
    int64_t count;
    Status st = d.ReadLong(&count);
    if (!st.ok()) return header_error(st);
    if (count == 0) break;
    if (count < 0) {
      if (count == INT64_MIN) return header_error(Status::Invalid("bad metadata count"));
      count = -count;
      int64_t block_bytes;
      st = d.ReadLong(&block_bytes);
      if (!st.ok()) return header_error(st);
    }
    for (int64_t i = 0; i < count; ++i) {
      std::string_view key, value;
      st = d.ReadBytes(&key);
      if (st.ok()) st = d.ReadBytes(&value);
      if (!st.ok()) return header_error(st);
      if (key == "avro.schema") {
        schema_json.assign(value);
        have_schema = true;
      } else if (key == "avro.codec") {
        codec_name.assign(value);
      }
    }
  }
  const uint8_t* sync;
  if (!d.ReadRaw(kSyncSize, &sync).ok()) {
    return Status::Invalid("{}: Avro header is truncated (no sync marker)", path_);
  }
  std::memcpy(sync_, sync, kSyncSize);
  if (!have_schema) return Status::Invalid("{}: Avro header has no avro.schema", path_);
  auto parsed = ParseSchema(schema_json);
  if (!parsed.ok()) return WithFile(parsed.status());
  schema_ = std::move(parsed).ValueOrDie();
  auto codec = BlockCodecFromName(codec_name);
  if (!codec.ok()) return WithFile(codec.status());
  codec_ = *codec;
  return ScanBlocks(d.offset());
}

Status AvroFileReader::WithFile(const Status& st) const {
  return Status(st.code(), fmt::format("{}: {}", path_, st.message()));
}

Status AvroFileReader::ScanBlocks(int64_t pos) {
  const uint8_t* bytes = data_->data();
  const int64_t size = data_->size();
  while (pos < size) {
    const int index = static_cast<int>(blocks_.size());
    auto block_error = [&](const std::string& what) {
      return Status::Invalid("{}: Avro block {} at offset {}: {}", path_, index, pos, what);
    };
    Decoder d(bytes, size, pos);
    BlockInfo b;
    b.offset = pos;
    if (!d.ReadLong(&b.rows).ok() || !d.ReadLong(&b.data_size).ok()) {
      return block_error("the block header is truncated");
    }
    if (b.rows < 0) return block_error(fmt::format("negative record count {}", b.rows));
    if (b.data_size < 0) return block_error(fmt::format("negative size {}", b.data_size));
    b.data_offset = d.offset();
    if (b.data_size > size - b.data_offset || size - b.data_offset - b.data_size < kSyncSize) {
      return block_error(fmt::format("{} bytes of data and the sync marker run past the end of the file "
                                     "({} bytes): the file is truncated",
                                     b.data_size, size));
    }
    if (std::memcmp(bytes + b.data_offset + b.data_size, sync_, kSyncSize) != 0) {
      return block_error("the sync marker after the data does not match the header's");
    }
    const int64_t min_size = schema_.root->min_size;
    if (min_size == 0 ? b.rows > kMaxEmptyRecords : b.rows > kMaxBlockBytes / min_size) {
      return block_error(fmt::format("implausible record count {}", b.rows));
    }
    if (blocks_.size() >= (size_t{1} << 30)) return block_error("too many blocks");
    if (min_size == 0 && num_rows_ + b.rows > kMaxEmptyRecords * 4) {
      return block_error(fmt::format("more than {} records of no bytes", kMaxEmptyRecords * 4));
    }
    blocks_.push_back(b);
    num_rows_ += b.rows;
    pos = b.data_offset + b.data_size + kSyncSize;
  }
  return Status::OK();
}

Status AvroFileReader::DecodeBlock(int index, const std::vector<int>& projected,
                                   std::vector<std::unique_ptr<ArrayBuilder>>* builders) const {
  const BlockInfo& b = blocks_[static_cast<size_t>(index)];
  auto block_error = [&](const Status& st) {
    return Status::Invalid("{}: Avro block {} at offset {}: {}", path_, index, b.offset,
                           st.message());
  };
  std::string decompressed;
  const uint8_t* data = data_->data() + b.data_offset;
  int64_t size = b.data_size;
  if (codec_ != BlockCodec::kNull) {
    Status st = DecompressBlock(codec_, data, size, kMaxBlockBytes, &decompressed);
    if (!st.ok()) return block_error(st);
    data = reinterpret_cast<const uint8_t*>(decompressed.data());
    size = static_cast<int64_t>(decompressed.size());
  }
  const Node& root = *schema_.root;
  if (root.min_size > 0 && b.rows > size / root.min_size) {
    return block_error(Status::Invalid("{} records do not fit in {} bytes", b.rows, size));
  }
  Decoder d(data, size);
  d.set_validate_utf8(validate_utf8_);
  for (int64_t row = 0; row < b.rows; ++row) {
    // projected[i]: the builder of field i, or -1 to skip it.
    for (size_t f = 0; f < root.children.size(); ++f) {
      const int slot = projected[f];
      Status st = slot < 0 ? d.Skip(*root.children[f])
                           : d.Decode(*root.children[f], (*builders)[static_cast<size_t>(slot)].get());
      if (!st.ok()) {
        return block_error(Status::Invalid("record {}, field '{}': {}", row, root.names[f], st.message()));
      }
    }
  }
  if (!d.at_end()) {
    return block_error(Status::Invalid("{} bytes left after its {} records", size - d.offset(), b.rows));
  }
  return Status::OK();
}

Result<RecordBatchRef> AvroFileReader::ReadBlocks(int first, int last,
                                                  const std::vector<int>& columns) const {
  const SchemaRef& full = schema_.arrow;
  std::vector<int> cols = columns;
  if (cols.empty()) {
    for (int i = 0; i < full->num_fields(); ++i) cols.push_back(i);
  }
  std::vector<int> projected(static_cast<size_t>(full->num_fields()), -1);
  std::vector<std::unique_ptr<ArrayBuilder>> builders;
  std::vector<FieldRef> fields;
  std::vector<int> duplicate_of(cols.size(), -1);
  for (size_t i = 0; i < cols.size(); ++i) {
    const int c = cols[i];
    if (c < 0 || c >= full->num_fields()) {
      return Status::IndexError("{}: column {} out of range", path_, c);
    }
    fields.push_back(full->field(c));
    if (projected[static_cast<size_t>(c)] >= 0) {
      duplicate_of[i] = projected[static_cast<size_t>(c)];
      continue;
    }
    projected[static_cast<size_t>(c)] = static_cast<int>(builders.size());
    QUIVER_ASSIGN_OR_RAISE(auto builder, MakeBuilder(full->field(c)->type, pool_));
    builders.push_back(std::move(builder));
  }
  int64_t rows = 0;
  for (int i = first; i < last; ++i) {
    QUIVER_RETURN_NOT_OK(DecodeBlock(i, projected, &builders));
    rows += blocks_[static_cast<size_t>(i)].rows;
  }
  std::vector<ArrayRef> arrays;
  for (auto& b : builders) {
    QUIVER_ASSIGN_OR_RAISE(ArrayRef a, b->Finish());
    arrays.push_back(std::move(a));
  }
  std::vector<ArrayRef> out;
  for (size_t i = 0; i < cols.size(); ++i) {
    out.push_back(arrays[static_cast<size_t>(
        duplicate_of[i] >= 0 ? duplicate_of[i] : projected[static_cast<size_t>(cols[i])])]);
  }
  return RecordBatch::Make(quiver::schema(std::move(fields), full->metadata), rows, std::move(out));
}

}  // namespace quiver::avro
