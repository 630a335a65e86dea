#include "formats/avro/writer.h"

#include <cstring>
#include <random>

#include <nlohmann/json.hpp>

#include "common/bit_util.h"

namespace quiver::avro {
namespace {

using json = nlohmann::json;

constexpr size_t kBlockBytes = 1 << 20;

int64_t FloorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

}  // namespace

// Encodes the values of one Arrow type; nullability is the caller's (a
// union around the value).
class ValueEncoder {
 public:
  virtual ~ValueEncoder() = default;
  // Value i of `a` (relative to a.offset). REQUIRES: a.IsValid(i).
  virtual Status Encode(const ArrayData& a, int64_t i, std::string* out) const = 0;
};

namespace {

// A nullable wrapper: ["null", T], branch 0 for null.
class NullableEncoder final : public ValueEncoder {
 public:
  explicit NullableEncoder(std::unique_ptr<ValueEncoder> inner) : inner_(std::move(inner)) {}
  Status Encode(const ArrayData& a, int64_t i, std::string* out) const override {
    if (a.IsNull(i)) {
      out->push_back(0);
      return Status::OK();
    }
    out->push_back(2);  // zig-zag 1
    return inner_->Encode(a, i, out);
  }

 private:
  std::unique_ptr<ValueEncoder> inner_;
};

// A field declared not null: a null in it is an error.
class RequiredEncoder final : public ValueEncoder {
 public:
  RequiredEncoder(std::unique_ptr<ValueEncoder> inner, std::string name)
      : inner_(std::move(inner)), name_(std::move(name)) {}
  Status Encode(const ArrayData& a, int64_t i, std::string* out) const override {
    if (a.IsNull(i)) return Status::Invalid("null in column '{}', which is not nullable", name_);
    return inner_->Encode(a, i, out);
  }

 private:
  std::unique_ptr<ValueEncoder> inner_;
  std::string name_;
};

class NullEncoder final : public ValueEncoder {
 public:
  Status Encode(const ArrayData&, int64_t, std::string*) const override { return Status::OK(); }
};

class BoolEncoder final : public ValueEncoder {
 public:
  Status Encode(const ArrayData& a, int64_t i, std::string* out) const override {
    out->push_back(bit_util::GetBit(a.buffers[1]->data(), a.offset + i) ? 1 : 0);
    return Status::OK();
  }
};

// An integer type written as int or long, times `multiplier`.
template <typename T>
class IntEncoder final : public ValueEncoder {
 public:
  explicit IntEncoder(int64_t multiplier = 1, int64_t divisor = 1)
      : multiplier_(multiplier), divisor_(divisor) {}
  Status Encode(const ArrayData& a, int64_t i, std::string* out) const override {
    const T raw = a.GetValues<T>(1)[i];
    if constexpr (std::is_same_v<T, uint64_t>) {
      if (raw > static_cast<uint64_t>(INT64_MAX)) {
        return Status::Invalid("uint64 value {} does not fit Avro's long", raw);
      }
    }
    int64_t v = static_cast<int64_t>(raw);
    if (divisor_ != 1) v = FloorDiv(v, divisor_);
    if (multiplier_ != 1 && __builtin_mul_overflow(v, multiplier_, &v)) {
      return Status::Invalid("value {} overflows Avro's long when converted", raw);
    }
    PutLong(v, out);
    return Status::OK();
  }

 private:
  int64_t multiplier_;
  int64_t divisor_;
};

template <typename T>
class FloatEncoder final : public ValueEncoder {
 public:
  Status Encode(const ArrayData& a, int64_t i, std::string* out) const override {
    const T v = a.GetValues<T>(1)[i];
    out->append(reinterpret_cast<const char*>(&v), sizeof(T));
    return Status::OK();
  }
};

class BytesEncoder final : public ValueEncoder {
 public:
  Status Encode(const ArrayData& a, int64_t i, std::string* out) const override {
    const std::string_view v = a.GetString(i);
    PutLong(static_cast<int64_t>(v.size()), out);
    out->append(v);
    return Status::OK();
  }
};

class FixedEncoder final : public ValueEncoder {
 public:
  Status Encode(const ArrayData& a, int64_t i, std::string* out) const override {
    const int32_t w = a.type->byte_width;
    out->append(reinterpret_cast<const char*>(a.GetRaw<uint8_t>(1) + (a.offset + i) * w),
                static_cast<size_t>(w));
    return Status::OK();
  }
};

// Little-endian two's complement -> the shortest big-endian bytes.
class DecimalEncoder final : public ValueEncoder {
 public:
  Status Encode(const ArrayData& a, int64_t i, std::string* out) const override {
    const int32_t w = a.type->byte_width;
    const uint8_t* le = a.GetRaw<uint8_t>(1) + (a.offset + i) * w;
    const bool negative = (le[w - 1] & 0x80) != 0;
    const uint8_t fill = negative ? 0xff : 0;
    int n = w;
    // Drop leading sign bytes while the next byte keeps the sign.
    while (n > 1 && le[n - 1] == fill && ((le[n - 2] & 0x80) != 0) == negative) --n;
    PutLong(n, out);
    for (int k = n - 1; k >= 0; --k) out->push_back(static_cast<char>(le[k]));
    return Status::OK();
  }
};

class StructEncoder final : public ValueEncoder {
 public:
  explicit StructEncoder(std::vector<std::unique_ptr<ValueEncoder>> children)
      : children_(std::move(children)) {}
  Status Encode(const ArrayData& a, int64_t i, std::string* out) const override {
    for (size_t c = 0; c < children_.size(); ++c) {
      QUIVER_RETURN_NOT_OK(children_[c]->Encode(*a.children[c], a.offset + i, out));
    }
    return Status::OK();
  }

 private:
  std::vector<std::unique_ptr<ValueEncoder>> children_;
};

// list, large_list, fixed_size_list, map (entries: key string, value).
template <typename OffsetT>
class ListEncoder final : public ValueEncoder {
 public:
  ListEncoder(std::unique_ptr<ValueEncoder> items, bool is_map, int32_t fixed_size)
      : items_(std::move(items)), is_map_(is_map), fixed_size_(fixed_size) {}
  Status Encode(const ArrayData& a, int64_t i, std::string* out) const override {
    int64_t begin, end;
    if (fixed_size_ > 0) {
      begin = (a.offset + i) * fixed_size_;
      end = begin + fixed_size_;
    } else {
      const OffsetT* offsets = a.GetValues<OffsetT>(1);
      begin = offsets[i];
      end = offsets[i + 1];
    }
    const ArrayData& child = *a.children[0];
    if (end > begin) {
      PutLong(end - begin, out);
      for (int64_t k = begin; k < end; ++k) {
        if (is_map_) {
          const ArrayData& keys = *child.children[0];
          if (keys.IsNull(child.offset + k)) return Status::Invalid("null map key");
          const std::string_view key = keys.GetString(child.offset + k);
          PutLong(static_cast<int64_t>(key.size()), out);
          out->append(key);
          QUIVER_RETURN_NOT_OK(items_->Encode(*child.children[1], child.offset + k, out));
        } else {
          QUIVER_RETURN_NOT_OK(items_->Encode(child, k, out));
        }
      }
    }
    out->push_back(0);
    return Status::OK();
  }

 private:
  std::unique_ptr<ValueEncoder> items_;
  bool is_map_;
  int32_t fixed_size_;
};

class DictionaryEncoder final : public ValueEncoder {
 public:
  explicit DictionaryEncoder(std::unique_ptr<ValueEncoder> values) : values_(std::move(values)) {}
  Status Encode(const ArrayData& a, int64_t i, std::string* out) const override {
    const int64_t k = a.GetDictionaryIndex(i);
    if (k < 0 || k >= a.dictionary->length) return Status::Invalid("dictionary index {} out of range", k);
    return values_->Encode(*a.dictionary, k, out);
  }

 private:
  std::unique_ptr<ValueEncoder> values_;
};

bool IsAvroName(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

class SchemaBuilder {
 public:
  // The encoder and Avro type of values of `field` (nullability included).
  Result<std::unique_ptr<ValueEncoder>> Field(const quiver::Field& f, json* type) {
    if (!IsAvroName(f.name)) {
      return Status::Invalid(
          "column name '{}' is not an Avro name (letters, digits and _, not starting with a "
          "digit): rename it (AS)",
          f.name);
    }
    return Nullable(f, type);
  }

  Result<std::unique_ptr<ValueEncoder>> Nullable(const quiver::Field& f, json* type) {
    json inner;
    QUIVER_ASSIGN_OR_RAISE(auto enc, Type(*f.type, f, &inner));
    if (f.type->id == TypeId::kNull) {
      *type = inner;
      return enc;
    }
    if (!f.nullable) {
      *type = inner;
      return std::unique_ptr<ValueEncoder>(new RequiredEncoder(std::move(enc), f.name));
    }
    *type = json::array({"null", inner});
    return std::unique_ptr<ValueEncoder>(new NullableEncoder(std::move(enc)));
  }

  Result<std::unique_ptr<ValueEncoder>> Type(const DataType& t, const quiver::Field& f, json* type) {
    using E = std::unique_ptr<ValueEncoder>;
    auto logical = [&](const char* base, const char* name) {
      *type = json{{"type", base}, {"logicalType", name}};
    };
    switch (t.id) {
      case TypeId::kNull: *type = "null"; return E(new NullEncoder());
      case TypeId::kBool: *type = "boolean"; return E(new BoolEncoder());
      case TypeId::kInt8: *type = "int"; return E(new IntEncoder<int8_t>());
      case TypeId::kInt16: *type = "int"; return E(new IntEncoder<int16_t>());
      case TypeId::kInt32: *type = "int"; return E(new IntEncoder<int32_t>());
      case TypeId::kUInt8: *type = "int"; return E(new IntEncoder<uint8_t>());
      case TypeId::kUInt16: *type = "int"; return E(new IntEncoder<uint16_t>());
      case TypeId::kInt64: *type = "long"; return E(new IntEncoder<int64_t>());
      case TypeId::kUInt32: *type = "long"; return E(new IntEncoder<uint32_t>());
      case TypeId::kUInt64: *type = "long"; return E(new IntEncoder<uint64_t>());
      case TypeId::kFloat: *type = "float"; return E(new FloatEncoder<float>());
      case TypeId::kDouble: *type = "double"; return E(new FloatEncoder<double>());
      case TypeId::kString:
      case TypeId::kLargeString:
      case TypeId::kStringView: *type = "string"; return E(new BytesEncoder());
      case TypeId::kBinary:
      case TypeId::kLargeBinary:
      case TypeId::kBinaryView: *type = "bytes"; return E(new BytesEncoder());
      case TypeId::kFixedSizeBinary: {
        json fixed{{"type", "fixed"}, {"name", NextName("fixed")}, {"size", t.byte_width}};
        for (const auto& [k, v] : f.metadata) {
          if (k == "ARROW:extension:name" && v == "arrow.uuid" && t.byte_width == 16) {
            fixed["logicalType"] = "uuid";
          }
        }
        *type = fixed;
        return E(new FixedEncoder());
      }
      case TypeId::kDate32: logical("int", "date"); return E(new IntEncoder<int32_t>());
      case TypeId::kDate64:
        logical("int", "date");
        return E(new IntEncoder<int64_t>(1, 86400000));
      case TypeId::kTime32:
        logical("int", "time-millis");
        return E(new IntEncoder<int32_t>(t.unit == TimeUnit::kSecond ? 1000 : 1));
      case TypeId::kTime64:
        if (t.unit == TimeUnit::kNano) break;
        logical("long", "time-micros");
        return E(new IntEncoder<int64_t>());
      case TypeId::kTimestamp: {
        const bool utc = !t.timezone.empty();
        const char* name = nullptr;
        int64_t mul = 1;
        switch (t.unit) {
          case TimeUnit::kSecond: name = utc ? "timestamp-millis" : "local-timestamp-millis"; mul = 1000; break;
          case TimeUnit::kMilli: name = utc ? "timestamp-millis" : "local-timestamp-millis"; break;
          case TimeUnit::kMicro: name = utc ? "timestamp-micros" : "local-timestamp-micros"; break;
          case TimeUnit::kNano: name = utc ? "timestamp-nanos" : "local-timestamp-nanos"; break;
        }
        logical("long", name);
        return E(new IntEncoder<int64_t>(mul));
      }
      case TypeId::kDecimal32:
      case TypeId::kDecimal64:
      case TypeId::kDecimal128:
      case TypeId::kDecimal256:
        *type = json{{"type", "bytes"}, {"logicalType", "decimal"}, {"precision", t.precision}, {"scale", t.scale}};
        return E(new DecimalEncoder());
      case TypeId::kStruct: {
        json fields = json::array();
        std::vector<E> children;
        for (const auto& c : t.children) {
          json ct;
          QUIVER_ASSIGN_OR_RAISE(auto enc, Field(*c, &ct));
          fields.push_back(json{{"name", c->name}, {"type", ct}});
          children.push_back(std::move(enc));
        }
        *type = json{{"type", "record"}, {"name", NextName("record")}, {"fields", fields}};
        return E(new StructEncoder(std::move(children)));
      }
      case TypeId::kList:
      case TypeId::kLargeList:
      case TypeId::kFixedSizeList: {
        json items;
        QUIVER_ASSIGN_OR_RAISE(auto enc, Nullable(*t.children[0], &items));
        *type = json{{"type", "array"}, {"items", items}};
        if (t.id == TypeId::kLargeList) return E(new ListEncoder<int64_t>(std::move(enc), false, 0));
        return E(new ListEncoder<int32_t>(std::move(enc), false,
                                          t.id == TypeId::kFixedSizeList ? t.list_size : 0));
      }
      case TypeId::kMap: {
        const DataType& entries = *t.children[0]->type;
        const DataType& key = *entries.children[0]->type;
        if (key.id != TypeId::kString && key.id != TypeId::kLargeString) {
          return Status::Unsupported("Avro maps have string keys; column '{}' has {} keys", f.name,
                                     key.ToString());
        }
        json values;
        QUIVER_ASSIGN_OR_RAISE(auto enc, Nullable(*entries.children[1], &values));
        *type = json{{"type", "map"}, {"values", values}};
        return E(new ListEncoder<int32_t>(std::move(enc), true, 0));
      }
      case TypeId::kDictionary: {
        QUIVER_ASSIGN_OR_RAISE(auto enc, Type(*t.value_type, f, type));
        return E(new DictionaryEncoder(std::move(enc)));
      }
      default:
        break;
    }
    return Status::Unsupported("writing {} (column '{}') to Avro", t.ToString(), f.name);
  }

 private:
  std::string NextName(const char* kind) { return fmt::format("{}{}", kind, ++counter_); }
  int counter_ = 0;
};

}  // namespace

AvroWriter::~AvroWriter() = default;

Result<std::unique_ptr<AvroWriter>> AvroWriter::Make(OutputStream* sink, const SchemaRef& schema,
                                                     BlockCodec codec, int level) {
  std::unique_ptr<AvroWriter> w(new AvroWriter());
  w->sink_ = sink;
  w->schema_ = schema;
  w->codec_ = codec;
  w->level_ = level;
  SchemaBuilder builder;
  json fields = json::array();
  for (const auto& f : schema->fields) {
    json t;
    QUIVER_ASSIGN_OR_RAISE(auto enc, builder.Field(*f, &t));
    fields.push_back(json{{"name", f->name}, {"type", t}});
    w->columns_.push_back(std::move(enc));
  }
  w->schema_json_ = json{{"type", "record"}, {"name", "Row"}, {"fields", fields}}.dump();
  std::random_device rd;
  for (int i = 0; i < kSyncSize; ++i) w->sync_.push_back(static_cast<char>(rd() & 0xff));
  std::string header(kMagic, 4);
  PutLong(2, &header);
  for (const auto& [k, v] : {std::pair<std::string, std::string>{"avro.schema", w->schema_json_},
                             {"avro.codec", BlockCodecName(codec)}}) {
    PutLong(static_cast<int64_t>(k.size()), &header);
    header += k;
    PutLong(static_cast<int64_t>(v.size()), &header);
    header += v;
  }
  PutLong(0, &header);
  header += w->sync_;
  QUIVER_RETURN_NOT_OK(sink->Write(header));
  return w;
}

Status AvroWriter::WriteRecordBatch(const RecordBatch& batch) {
  if (closed_) return Status::Invalid("Avro writer is closed");
  if (batch.num_columns() != static_cast<int>(columns_.size())) {
    return Status::Invalid("batch has {} columns, the Avro schema {}", batch.num_columns(),
                           columns_.size());
  }
  for (int64_t r = 0; r < batch.num_rows(); ++r) {
    for (size_t c = 0; c < columns_.size(); ++c) {
      QUIVER_RETURN_NOT_OK(columns_[c]->Encode(*batch.column(static_cast<int>(c)), r, &block_));
    }
    ++block_rows_;
    if (block_.size() >= kBlockBytes) QUIVER_RETURN_NOT_OK(FlushBlock());
  }
  return Status::OK();
}

Status AvroWriter::FlushBlock() {
  if (block_rows_ == 0) return Status::OK();
  QUIVER_RETURN_NOT_OK(CompressBlock(codec_, block_, level_, &compressed_));
  std::string head;
  PutLong(block_rows_, &head);
  PutLong(static_cast<int64_t>(compressed_.size()), &head);
  QUIVER_RETURN_NOT_OK(sink_->Write(head));
  QUIVER_RETURN_NOT_OK(sink_->Write(compressed_));
  QUIVER_RETURN_NOT_OK(sink_->Write(sync_));
  block_.clear();
  block_rows_ = 0;
  return Status::OK();
}

Status AvroWriter::Close() {
  if (closed_) return Status::OK();
  closed_ = true;
  return FlushBlock();
}

}  // namespace quiver::avro
