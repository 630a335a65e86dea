#include "storage/iceberg_manifest.h"

#include <avro.h>

#include <cctype>
#include <cstring>
#include <memory>
#include <random>
#include <tuple>

#include "common/io.h"

namespace quiver::iceberg {

namespace {

// Iceberg's maps with int keys are Avro arrays of key/value records.
std::string IntMap(int key_id, int value_id, const char* value_type) {
  return fmt::format(
      R"({{"type":"array","logicalType":"map","items":{{"type":"record","name":"k{}_v{}","fields":[)"
      R"({{"name":"key","type":"int","field-id":{}}},{{"name":"value","type":"{}","field-id":{}}}]}}}})",
      key_id, value_id, key_id, value_type, value_id);
}

std::string Optional(const std::string& name, const std::string& type, int id) {
  return fmt::format(R"({{"name":"{}","type":["null",{}],"default":null,"field-id":{}}})", name,
                     type, id);
}

// Bytes of the fixed type holding a decimal of `precision` digits.
int DecimalBytes(int precision) {
  int n = 1;
  // The largest value of n bytes (two's complement) is 2^(8n-1) - 1.
  while (n < 16 && static_cast<double>(precision) > (8.0 * n - 1) * 0.30102999566398120) ++n;
  return n;
}

// The Avro type of a partition field's values (Iceberg's Avro mapping).
Result<std::string> AvroTypeOf(const DataType& t, int field_id) {
  switch (t.id) {
    case TypeId::kBool: return std::string(R"("boolean")");
    case TypeId::kInt32: return std::string(R"("int")");
    case TypeId::kInt64: return std::string(R"("long")");
    case TypeId::kFloat: return std::string(R"("float")");
    case TypeId::kDouble: return std::string(R"("double")");
    case TypeId::kString: return std::string(R"("string")");
    case TypeId::kBinary: return std::string(R"("bytes")");
    case TypeId::kDate32: return std::string(R"({"type":"int","logicalType":"date"})");
    case TypeId::kTime64: return std::string(R"({"type":"long","logicalType":"time-micros"})");
    case TypeId::kTimestamp:
      return fmt::format(R"({{"type":"long","logicalType":"timestamp-micros","adjust-to-utc":{}}})",
                         t.timezone.empty() ? "false" : "true");
    case TypeId::kDecimal128:
      return fmt::format(
          R"({{"type":"fixed","name":"fixed_{}","size":{},"logicalType":"decimal","precision":{},"scale":{}}})",
          field_id, DecimalBytes(t.precision), t.precision, t.scale);
    default:
      return Status::Unsupported("Iceberg partition values of type {}", t.ToString());
  }
}

// The partition struct (data_file field 102) of `partition`'s fields.
Result<std::string> PartitionRecord(const PartitionType& partition) {
  std::string fields;
  for (size_t i = 0; i < partition.fields.size(); ++i) {
    const PartitionField& f = partition.fields[i];
    if (partition.types[i] == nullptr) {
      return Status::Unsupported("writing Iceberg partition transform {}", f.transform);
    }
    QUIVER_ASSIGN_OR_RAISE(std::string type, AvroTypeOf(*partition.types[i], f.field_id));
    if (!fields.empty()) fields += ",";
    // Avro names are [A-Za-z_][A-Za-z0-9_]*: others made so as Iceberg's
    // Java writer makes them (readers match fields by id).
    std::string name;
    for (size_t k = 0; k < f.name.size(); ++k) {
      const unsigned char c = static_cast<unsigned char>(f.name[k]);
      const bool letter = std::isalpha(c) || c == '_';
      if (letter || (k > 0 && std::isdigit(c))) {
        name.push_back(static_cast<char>(c));
      } else if (k == 0 && std::isdigit(c)) {
        name += "_" + std::string(1, static_cast<char>(c));
      } else {
        name += fmt::format("_x{:02X}", c);
      }
    }
    if (name.empty()) name = "_";
    fields += fmt::format(R"({{"name":"{}","type":["null",{}],"default":null,"field-id":{}}})", name,
                          type, f.field_id);
  }
  return fmt::format(R"({{"type":"record","name":"r102","fields":[{}]}})", fields);
}

std::string ManifestEntrySchema(const std::string& partition_record) {
  std::string data_file = fmt::format(
      R"({{"type":"record","name":"r2","fields":[)"
      R"({{"name":"content","type":"int","field-id":134}},)"
      R"({{"name":"file_path","type":"string","field-id":100}},)"
      R"({{"name":"file_format","type":"string","field-id":101}},)"
      R"({{"name":"partition","type":{},"field-id":102}},)"
      R"({{"name":"record_count","type":"long","field-id":103}},)"
      R"({{"name":"file_size_in_bytes","type":"long","field-id":104}},)"
      R"({},{},{},{},{},{},)"
      R"({{"name":"split_offsets","type":["null",{{"type":"array","items":"long","element-id":133}}],"default":null,"field-id":132}},)"
      R"({{"name":"sort_order_id","type":["null","int"],"default":null,"field-id":140}}]}})",
      partition_record, Optional("column_sizes", IntMap(117, 118, "long"), 108),
      Optional("value_counts", IntMap(119, 120, "long"), 109),
      Optional("null_value_counts", IntMap(121, 122, "long"), 110),
      Optional("nan_value_counts", IntMap(138, 139, "long"), 137),
      Optional("lower_bounds", IntMap(126, 127, "bytes"), 125),
      Optional("upper_bounds", IntMap(129, 130, "bytes"), 128));
  return fmt::format(
      R"({{"type":"record","name":"manifest_entry","fields":[)"
      R"({{"name":"status","type":"int","field-id":0}},)"
      R"({{"name":"snapshot_id","type":["null","long"],"default":null,"field-id":1}},)"
      R"({{"name":"sequence_number","type":["null","long"],"default":null,"field-id":3}},)"
      R"({{"name":"file_sequence_number","type":["null","long"],"default":null,"field-id":4}},)"
      R"({{"name":"data_file","type":{},"field-id":2}}]}})",
      data_file);
}

std::string ManifestFileSchema() {
  return R"({"type":"record","name":"manifest_file","fields":[)"
         R"({"name":"manifest_path","type":"string","field-id":500},)"
         R"({"name":"manifest_length","type":"long","field-id":501},)"
         R"({"name":"partition_spec_id","type":"int","field-id":502},)"
         R"({"name":"content","type":"int","field-id":517},)"
         R"({"name":"sequence_number","type":"long","field-id":515},)"
         R"({"name":"min_sequence_number","type":"long","field-id":516},)"
         R"({"name":"added_snapshot_id","type":"long","field-id":503},)"
         R"({"name":"added_files_count","type":"int","field-id":504},)"
         R"({"name":"existing_files_count","type":"int","field-id":505},)"
         R"({"name":"deleted_files_count","type":"int","field-id":506},)"
         R"({"name":"added_rows_count","type":"long","field-id":512},)"
         R"({"name":"existing_rows_count","type":"long","field-id":513},)"
         R"({"name":"deleted_rows_count","type":"long","field-id":514},)"
         R"({"name":"partitions","type":["null",{"type":"array","items":{"type":"record","name":"r508","fields":[)"
         R"({"name":"contains_null","type":"boolean","field-id":509},)"
         R"({"name":"contains_nan","type":["null","boolean"],"default":null,"field-id":518},)"
         R"({"name":"lower_bound","type":["null","bytes"],"default":null,"field-id":510},)"
         R"({"name":"upper_bound","type":["null","bytes"],"default":null,"field-id":511}]},"element-id":508}],)"
         R"("default":null,"field-id":507},)"
         R"({"name":"key_metadata","type":["null","bytes"],"default":null,"field-id":519}]})";
}

Status AvroError(const std::string& what) {
  return Status::IOError("Avro {}: {}", what, avro_strerror());
}

#define AVRO_OK(expr, what)                                   \
  do {                                                        \
    if ((expr) != 0) return AvroError(what);                  \
  } while (0)

// A generic value of a schema, released on scope exit.
class AvroRecord {
 public:
  ~AvroRecord() {
    if (iface_ != nullptr) {
      avro_value_decref(&value_);
      avro_value_iface_decref(iface_);
    }
    if (schema_ != nullptr) avro_schema_decref(schema_);
  }
  Status Init(const std::string& json) {
    AVRO_OK(avro_schema_from_json_length(json.data(), json.size(), &schema_), "schema");
    iface_ = avro_generic_class_from_schema(schema_);
    if (iface_ == nullptr) return AvroError("schema");
    AVRO_OK(avro_generic_value_new(iface_, &value_), "value");
    return Status::OK();
  }
  avro_value_t* value() { return &value_; }

 private:
  avro_schema_t schema_ = nullptr;
  avro_value_iface_t* iface_ = nullptr;
  avro_value_t value_;
};

Status Field(avro_value_t* rec, const char* name, avro_value_t* out) {
  AVRO_OK(avro_value_get_by_name(rec, name, out, nullptr), name);
  return Status::OK();
}

Status SetLong(avro_value_t* rec, const char* name, int64_t v) {
  avro_value_t f;
  QUIVER_RETURN_NOT_OK(Field(rec, name, &f));
  AVRO_OK(avro_value_set_long(&f, v), name);
  return Status::OK();
}

Status SetInt(avro_value_t* rec, const char* name, int32_t v) {
  avro_value_t f;
  QUIVER_RETURN_NOT_OK(Field(rec, name, &f));
  AVRO_OK(avro_value_set_int(&f, v), name);
  return Status::OK();
}

Status SetString(avro_value_t* rec, const char* name, const std::string& v) {
  avro_value_t f;
  QUIVER_RETURN_NOT_OK(Field(rec, name, &f));
  AVRO_OK(avro_value_set_string_len(&f, v.c_str(), v.size() + 1), name);
  return Status::OK();
}

// An optional field set to null (branch 0) or its value (branch 1).
Status SetNull(avro_value_t* rec, const char* name) {
  avro_value_t f;
  avro_value_t b;
  QUIVER_RETURN_NOT_OK(Field(rec, name, &f));
  AVRO_OK(avro_value_set_branch(&f, 0, &b), name);
  AVRO_OK(avro_value_set_null(&b), name);
  return Status::OK();
}

Status OptionalBranch(avro_value_t* rec, const char* name, avro_value_t* branch) {
  avro_value_t f;
  QUIVER_RETURN_NOT_OK(Field(rec, name, &f));
  AVRO_OK(avro_value_set_branch(&f, 1, branch), name);
  return Status::OK();
}

template <typename V>
Status SetIntMap(avro_value_t* rec, const char* name, const std::map<int, V>& m) {
  avro_value_t arr;
  QUIVER_RETURN_NOT_OK(OptionalBranch(rec, name, &arr));
  for (const auto& [k, v] : m) {
    avro_value_t e;
    avro_value_t kf;
    avro_value_t vf;
    AVRO_OK(avro_value_append(&arr, &e, nullptr), name);
    QUIVER_RETURN_NOT_OK(Field(&e, "key", &kf));
    QUIVER_RETURN_NOT_OK(Field(&e, "value", &vf));
    AVRO_OK(avro_value_set_int(&kf, k), name);
    if constexpr (std::is_same_v<V, int64_t>) {
      AVRO_OK(avro_value_set_long(&vf, v), name);
    } else {
      AVRO_OK(avro_value_set_bytes(&vf, const_cast<char*>(v.data()), v.size()), name);
    }
  }
  return Status::OK();
}

// Avro's zig-zag varint.
void PutLong(int64_t v, std::string* out) {
  uint64_t z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  while (z >= 0x80) {
    out->push_back(static_cast<char>((z & 0x7f) | 0x80));
    z >>= 7;
  }
  out->push_back(static_cast<char>(z));
}

void PutBytes(const std::string& s, std::string* out) {
  PutLong(static_cast<int64_t>(s.size()), out);
  *out += s;
}

// An Avro object container file: header with `metadata`, one block of the
// records encoded so far, fsynced into place by AtomicFile.
class ContainerWriter {
 public:
  explicit ContainerWriter(std::vector<std::pair<std::string, std::string>> metadata)
      : metadata_(std::move(metadata)) {
    std::random_device rd;
    for (int i = 0; i < 16; i += 4) {
      const uint32_t r = rd();
      sync_.append(reinterpret_cast<const char*>(&r), 4);
    }
  }
  Status Append(avro_value_t* v) {
    size_t size = 0;
    AVRO_OK(avro_value_sizeof(v, &size), "size");
    const size_t at = block_.size();
    block_.resize(at + size);
    avro_writer_t w = avro_writer_memory(block_.data() + at, static_cast<int64_t>(size));
    const int rc = avro_value_write(w, v);
    avro_writer_free(w);
    AVRO_OK(rc, "write");
    ++count_;
    return Status::OK();
  }
  // Returns the file's size.
  Result<int64_t> Finish(const std::string& path) {
    std::string out = "Obj";
    out.push_back('\x01');
    PutLong(static_cast<int64_t>(metadata_.size()), &out);
    for (const auto& [k, v] : metadata_) {
      PutBytes(k, &out);
      PutBytes(v, &out);
    }
    PutLong(0, &out);
    out += sync_;
    if (count_ > 0) {
      PutLong(count_, &out);
      PutLong(static_cast<int64_t>(block_.size()), &out);
      out += block_;
      out += sync_;
    }
    QUIVER_ASSIGN_OR_RAISE(auto file, AtomicFile::Create(path));
    QUIVER_RETURN_NOT_OK(file->Write(out.data(), static_cast<int64_t>(out.size())));
    QUIVER_RETURN_NOT_OK(file->Commit());
    return static_cast<int64_t>(out.size());
  }

 private:
  std::vector<std::pair<std::string, std::string>> metadata_;
  std::string sync_;
  std::string block_;
  int64_t count_ = 0;
};

// Reads every record of an Avro file; `each` sees each record.
template <typename F>
Status ReadAvroFile(const std::string& path, F each) {
  avro_file_reader_t reader;
  if (avro_file_reader(path.c_str(), &reader) != 0) return AvroError("file " + path);
  avro_schema_t schema = avro_file_reader_get_writer_schema(reader);
  avro_value_iface_t* iface = avro_generic_class_from_schema(schema);
  if (iface == nullptr) {
    avro_file_reader_close(reader);
    return AvroError("file " + path);
  }
  avro_value_t v;
  Status st;
  if (avro_generic_value_new(iface, &v) != 0) {
    st = AvroError("file " + path);
  } else {
    int rc;
    while ((rc = avro_file_reader_read_value(reader, &v)) == 0) {
      st = each(&v);
      if (!st.ok()) break;
      avro_value_reset(&v);
    }
    if (st.ok() && rc != EOF) st = AvroError("file " + path);
    avro_value_decref(&v);
  }
  avro_value_iface_decref(iface);
  avro_schema_decref(schema);
  avro_file_reader_close(reader);
  return st;
}

Status GetLong(avro_value_t* rec, const char* name, int64_t* out) {
  avro_value_t f;
  QUIVER_RETURN_NOT_OK(Field(rec, name, &f));
  AVRO_OK(avro_value_get_long(&f, out), name);
  return Status::OK();
}

Status GetInt(avro_value_t* rec, const char* name, int32_t* out) {
  avro_value_t f;
  QUIVER_RETURN_NOT_OK(Field(rec, name, &f));
  AVRO_OK(avro_value_get_int(&f, out), name);
  return Status::OK();
}

Status GetString(avro_value_t* rec, const char* name, std::string* out) {
  avro_value_t f;
  QUIVER_RETURN_NOT_OK(Field(rec, name, &f));
  const char* s = nullptr;
  size_t size = 0;
  AVRO_OK(avro_value_get_string(&f, &s, &size), name);
  out->assign(s, size > 0 ? size - 1 : 0);  // size counts the NUL
  return Status::OK();
}

// An optional field's value; false when absent from the schema or null.
Result<bool> GetOptional(avro_value_t* rec, const char* name, avro_value_t* out) {
  avro_value_t f;
  if (avro_value_get_by_name(rec, name, &f, nullptr) != 0) return false;
  if (avro_value_get_type(&f) != AVRO_UNION) {
    *out = f;
    return true;
  }
  AVRO_OK(avro_value_get_current_branch(&f, out), name);
  return avro_value_get_type(out) != AVRO_NULL;
}

template <typename V>
Status GetIntMap(avro_value_t* rec, const char* name, std::map<int, V>* out) {
  avro_value_t arr;
  QUIVER_ASSIGN_OR_RAISE(bool present, GetOptional(rec, name, &arr));
  if (!present) return Status::OK();
  size_t n = 0;
  AVRO_OK(avro_value_get_size(&arr, &n), name);
  for (size_t i = 0; i < n; ++i) {
    avro_value_t e;
    avro_value_t kf;
    avro_value_t vf;
    AVRO_OK(avro_value_get_by_index(&arr, i, &e, nullptr), name);
    QUIVER_RETURN_NOT_OK(Field(&e, "key", &kf));
    QUIVER_RETURN_NOT_OK(Field(&e, "value", &vf));
    int32_t k = 0;
    AVRO_OK(avro_value_get_int(&kf, &k), name);
    if constexpr (std::is_same_v<V, int64_t>) {
      int64_t v = 0;
      AVRO_OK(avro_value_get_long(&vf, &v), name);
      (*out)[k] = v;
    } else {
      const void* p = nullptr;
      size_t size = 0;
      AVRO_OK(avro_value_get_bytes(&vf, &p, &size), name);
      (*out)[k] = std::string(static_cast<const char*>(p), size);
    }
  }
  return Status::OK();
}

}  // namespace

Result<std::string> LocalPath(const std::string& uri) {
  if (uri.rfind("file://", 0) == 0) return uri.substr(7);
  if (uri.rfind("file:", 0) == 0) return uri.substr(5);
  if (!uri.empty() && uri[0] == '/') return uri;
  return Status::Unsupported("Iceberg files outside the local file system ({})", uri);
}

namespace {

// Sets a partition value (field `i` of the partition record `rec`), a value
// of `type` or null.
Status SetPartitionValue(avro_value_t* rec, size_t i, const TypeRef& type,
                         const std::optional<Value>& value) {
  avro_value_t f;
  avro_value_t b;
  AVRO_OK(avro_value_get_by_index(rec, i, &f, nullptr), "partition");
  if (!value.has_value() || value->is_null()) {
    AVRO_OK(avro_value_set_branch(&f, 0, &b), "partition");
    AVRO_OK(avro_value_set_null(&b), "partition");
    return Status::OK();
  }
  const Value& v = *value;
  AVRO_OK(avro_value_set_branch(&f, 1, &b), "partition");
  switch (type->id) {
    case TypeId::kBool: AVRO_OK(avro_value_set_boolean(&b, v.boolean() ? 1 : 0), "partition"); break;
    case TypeId::kInt32:
    case TypeId::kDate32:
      AVRO_OK(avro_value_set_int(&b, static_cast<int32_t>(v.integer())), "partition");
      break;
    case TypeId::kInt64:
    case TypeId::kTime64:
    case TypeId::kTimestamp: AVRO_OK(avro_value_set_long(&b, v.integer()), "partition"); break;
    case TypeId::kFloat: AVRO_OK(avro_value_set_float(&b, static_cast<float>(v.floating())), "partition"); break;
    case TypeId::kDouble: AVRO_OK(avro_value_set_double(&b, v.floating()), "partition"); break;
    case TypeId::kString:
      AVRO_OK(avro_value_set_string_len(&b, v.str().c_str(), v.str().size() + 1), "partition");
      break;
    case TypeId::kBinary:
      AVRO_OK(avro_value_set_bytes(&b, const_cast<char*>(v.str().data()), v.str().size()), "partition");
      break;
    case TypeId::kDecimal128: {
      // Big-endian two's complement, sign-extended to the fixed size.
      const int n = DecimalBytes(type->precision);
      const auto u = static_cast<unsigned __int128>(v.decimal());
      std::string bytes;
      for (int k = n - 1; k >= 0; --k) bytes.push_back(static_cast<char>(static_cast<uint8_t>(u >> (8 * k))));
      AVRO_OK(avro_value_set_fixed(&b, bytes.data(), bytes.size()), "partition");
      break;
    }
    default:
      return Status::Unsupported("Iceberg partition values of type {}", type->ToString());
  }
  return Status::OK();
}

// The manifest list's summaries of `files`' partition values.
Result<std::vector<FieldSummary>> Summarize(const PartitionType& partition,
                                            const std::vector<DataFile>& files) {
  std::vector<FieldSummary> out(partition.fields.size());
  for (size_t i = 0; i < partition.fields.size(); ++i) {
    const DataType& t = *partition.types[i];
    const bool floating = t.id == TypeId::kFloat || t.id == TypeId::kDouble;
    Value lo;
    Value hi;
    for (const DataFile& f : files) {
      const std::optional<Value>& v = f.partition[i];
      if (!v.has_value() || v->is_null()) {
        out[i].contains_null = true;
        continue;
      }
      if (lo.is_null() || v->Compare(lo) < 0) lo = *v;
      if (hi.is_null() || v->Compare(hi) > 0) hi = *v;
    }
    // NaN orders differently in Iceberg: no bounds (nor a NaN claim) for floats.
    if (!floating) {
      out[i].contains_nan = false;
      if (!lo.is_null()) {
        QUIVER_ASSIGN_OR_RAISE(out[i].lower_bound, SerializeBound(lo));
        QUIVER_ASSIGN_OR_RAISE(out[i].upper_bound, SerializeBound(hi));
      }
    }
  }
  return out;
}

// A data file's partition tuple as its Avro types hold it (DataFile::partition).
Status ReadPartition(avro_value_t* data_file, std::vector<std::optional<Value>>* out) {
  avro_value_t rec;
  if (avro_value_get_by_name(data_file, "partition", &rec, nullptr) != 0) return Status::OK();
  if (avro_value_get_type(&rec) != AVRO_RECORD) return Status::OK();
  size_t n = 0;
  AVRO_OK(avro_value_get_size(&rec, &n), "partition");
  for (size_t i = 0; i < n; ++i) {
    avro_value_t f;
    AVRO_OK(avro_value_get_by_index(&rec, i, &f, nullptr), "partition");
    if (avro_value_get_type(&f) == AVRO_UNION) {
      avro_value_t b;
      AVRO_OK(avro_value_get_current_branch(&f, &b), "partition");
      f = b;
    }
    std::optional<Value> v;
    switch (avro_value_get_type(&f)) {
      case AVRO_NULL: v = Value(); break;
      case AVRO_BOOLEAN: {
        int x = 0;
        AVRO_OK(avro_value_get_boolean(&f, &x), "partition");
        v = Value::Boolean(x != 0);
        break;
      }
      case AVRO_INT32: {
        int32_t x = 0;
        AVRO_OK(avro_value_get_int(&f, &x), "partition");
        v = Value::Int32(x);
        break;
      }
      case AVRO_INT64: {
        int64_t x = 0;
        AVRO_OK(avro_value_get_long(&f, &x), "partition");
        v = Value::Int64(x);
        break;
      }
      case AVRO_FLOAT: {
        float x = 0;
        AVRO_OK(avro_value_get_float(&f, &x), "partition");
        v = Value::Float(x);
        break;
      }
      case AVRO_DOUBLE: {
        double x = 0;
        AVRO_OK(avro_value_get_double(&f, &x), "partition");
        v = Value::Double(x);
        break;
      }
      case AVRO_STRING: {
        const char* s = nullptr;
        size_t size = 0;
        AVRO_OK(avro_value_get_string(&f, &s, &size), "partition");
        v = Value::Text(std::string(s, size > 0 ? size - 1 : 0));
        break;
      }
      case AVRO_BYTES: {
        const void* p = nullptr;
        size_t size = 0;
        AVRO_OK(avro_value_get_bytes(&f, &p, &size), "partition");
        v = Value::Binary(std::string(static_cast<const char*>(p), size));
        break;
      }
      case AVRO_FIXED: {
        const void* p = nullptr;
        size_t size = 0;
        AVRO_OK(avro_value_get_fixed(&f, &p, &size), "partition");
        v = Value::Binary(std::string(static_cast<const char*>(p), size));
        break;
      }
      default:
        break;  // not understood: nullopt
    }
    out->push_back(std::move(v));
  }
  return Status::OK();
}

}  // namespace

Result<ManifestFile> WriteManifest(const std::string& uri, const std::vector<SchemaField>& fields,
                                   int schema_id, const PartitionType& partition,
                                   int64_t snapshot_id, int64_t sequence_number,
                                   const std::vector<DataFile>& files) {
  QUIVER_ASSIGN_OR_RAISE(std::string path, LocalPath(uri));
  AvroRecord rec;
  QUIVER_ASSIGN_OR_RAISE(const std::string partition_record, PartitionRecord(partition));
  const std::string avro_schema = ManifestEntrySchema(partition_record);
  QUIVER_RETURN_NOT_OK(rec.Init(avro_schema));
  ContainerWriter out({{"avro.schema", avro_schema},
                       {"avro.codec", "null"},
                       {"schema", SchemaJson(fields, schema_id)},
                       {"schema-id", std::to_string(schema_id)},
                       {"partition-spec", PartitionSpecJson(PartitionSpec{partition.spec_id, partition.fields})},
                       {"partition-spec-id", std::to_string(partition.spec_id)},
                       {"format-version", "2"},
                       {"content", "data"}});
  ManifestFile m;
  m.path = uri;
  m.partition_spec_id = partition.spec_id;
  for (const DataFile& f : files) {
    if (f.partition.size() != partition.fields.size()) {
      return Status::UnknownError("internal error: data file {} with {} partition values for {} fields",
                                  f.path, f.partition.size(), partition.fields.size());
    }
  }
  QUIVER_ASSIGN_OR_RAISE(m.partitions, Summarize(partition, files));
  m.sequence_number = m.min_sequence_number = sequence_number;
  m.added_snapshot_id = snapshot_id;
  for (const DataFile& f : files) {
    avro_value_t* v = rec.value();
    avro_value_reset(v);
    avro_value_t b;
    QUIVER_RETURN_NOT_OK(SetInt(v, "status", 1));
    QUIVER_RETURN_NOT_OK(OptionalBranch(v, "snapshot_id", &b));
    AVRO_OK(avro_value_set_long(&b, snapshot_id), "snapshot_id");
    // Null sequence numbers are inherited from the manifest list (as the
    // specification asks of newly added files).
    QUIVER_RETURN_NOT_OK(SetNull(v, "sequence_number"));
    QUIVER_RETURN_NOT_OK(SetNull(v, "file_sequence_number"));
    avro_value_t d;
    QUIVER_RETURN_NOT_OK(Field(v, "data_file", &d));
    QUIVER_RETURN_NOT_OK(SetInt(&d, "content", 0));
    QUIVER_RETURN_NOT_OK(SetString(&d, "file_path", f.path));
    QUIVER_RETURN_NOT_OK(SetString(&d, "file_format", f.format));
    {
      avro_value_t p;
      QUIVER_RETURN_NOT_OK(Field(&d, "partition", &p));
      for (size_t i = 0; i < partition.fields.size(); ++i) {
        QUIVER_RETURN_NOT_OK(SetPartitionValue(&p, i, partition.types[i], f.partition[i]));
      }
    }
    QUIVER_RETURN_NOT_OK(SetLong(&d, "record_count", f.record_count));
    QUIVER_RETURN_NOT_OK(SetLong(&d, "file_size_in_bytes", f.file_size));
    QUIVER_RETURN_NOT_OK(SetNull(&d, "column_sizes"));
    QUIVER_RETURN_NOT_OK(SetIntMap(&d, "value_counts", f.value_counts));
    QUIVER_RETURN_NOT_OK(SetIntMap(&d, "null_value_counts", f.null_counts));
    QUIVER_RETURN_NOT_OK(SetNull(&d, "nan_value_counts"));
    QUIVER_RETURN_NOT_OK(SetIntMap(&d, "lower_bounds", f.lower_bounds));
    QUIVER_RETURN_NOT_OK(SetIntMap(&d, "upper_bounds", f.upper_bounds));
    QUIVER_RETURN_NOT_OK(SetNull(&d, "split_offsets"));
    QUIVER_RETURN_NOT_OK(SetNull(&d, "sort_order_id"));
    QUIVER_RETURN_NOT_OK(out.Append(v));
    ++m.added_files;
    m.added_rows += f.record_count;
  }
  QUIVER_ASSIGN_OR_RAISE(m.length, out.Finish(path));
  return m;
}

Status WriteManifestList(const std::string& uri, int64_t snapshot_id,
                         std::optional<int64_t> parent_snapshot_id, int64_t sequence_number,
                         const std::vector<ManifestFile>& manifests) {
  QUIVER_ASSIGN_OR_RAISE(std::string path, LocalPath(uri));
  AvroRecord rec;
  const std::string avro_schema = ManifestFileSchema();
  QUIVER_RETURN_NOT_OK(rec.Init(avro_schema));
  std::vector<std::pair<std::string, std::string>> meta = {
      {"avro.schema", avro_schema},
      {"avro.codec", "null"},
      {"snapshot-id", std::to_string(snapshot_id)},
      {"parent-snapshot-id", parent_snapshot_id ? std::to_string(*parent_snapshot_id) : "null"},
      {"sequence-number", std::to_string(sequence_number)},
      {"format-version", "2"}};
  ContainerWriter out(std::move(meta));
  for (const ManifestFile& m : manifests) {
    avro_value_t* v = rec.value();
    avro_value_reset(v);
    QUIVER_RETURN_NOT_OK(SetString(v, "manifest_path", m.path));
    QUIVER_RETURN_NOT_OK(SetLong(v, "manifest_length", m.length));
    QUIVER_RETURN_NOT_OK(SetInt(v, "partition_spec_id", m.partition_spec_id));
    QUIVER_RETURN_NOT_OK(SetInt(v, "content", m.content));
    QUIVER_RETURN_NOT_OK(SetLong(v, "sequence_number", m.sequence_number));
    QUIVER_RETURN_NOT_OK(SetLong(v, "min_sequence_number", m.min_sequence_number));
    QUIVER_RETURN_NOT_OK(SetLong(v, "added_snapshot_id", m.added_snapshot_id));
    QUIVER_RETURN_NOT_OK(SetInt(v, "added_files_count", m.added_files));
    QUIVER_RETURN_NOT_OK(SetInt(v, "existing_files_count", m.existing_files));
    QUIVER_RETURN_NOT_OK(SetInt(v, "deleted_files_count", m.deleted_files));
    QUIVER_RETURN_NOT_OK(SetLong(v, "added_rows_count", m.added_rows));
    QUIVER_RETURN_NOT_OK(SetLong(v, "existing_rows_count", m.existing_rows));
    QUIVER_RETURN_NOT_OK(SetLong(v, "deleted_rows_count", m.deleted_rows));
    if (m.partitions.has_value()) {
      avro_value_t arr;
      QUIVER_RETURN_NOT_OK(OptionalBranch(v, "partitions", &arr));
      for (const FieldSummary& s : *m.partitions) {
        avro_value_t e;
        avro_value_t f;
        avro_value_t b;
        AVRO_OK(avro_value_append(&arr, &e, nullptr), "partitions");
        QUIVER_RETURN_NOT_OK(Field(&e, "contains_null", &f));
        AVRO_OK(avro_value_set_boolean(&f, s.contains_null ? 1 : 0), "contains_null");
        if (s.contains_nan.has_value()) {
          QUIVER_RETURN_NOT_OK(OptionalBranch(&e, "contains_nan", &b));
          AVRO_OK(avro_value_set_boolean(&b, *s.contains_nan ? 1 : 0), "contains_nan");
        } else {
          QUIVER_RETURN_NOT_OK(SetNull(&e, "contains_nan"));
        }
        for (const auto& [name, bound] : {std::pair{"lower_bound", &s.lower_bound},
                                          std::pair{"upper_bound", &s.upper_bound}}) {
          if (bound->has_value()) {
            QUIVER_RETURN_NOT_OK(OptionalBranch(&e, name, &b));
            AVRO_OK(avro_value_set_bytes(&b, const_cast<char*>((*bound)->data()), (*bound)->size()), name);
          } else {
            QUIVER_RETURN_NOT_OK(SetNull(&e, name));
          }
        }
      }
    } else {
      QUIVER_RETURN_NOT_OK(SetNull(v, "partitions"));
    }
    QUIVER_RETURN_NOT_OK(SetNull(v, "key_metadata"));
    QUIVER_RETURN_NOT_OK(out.Append(v));
  }
  return out.Finish(path).status();
}

Result<std::vector<ManifestFile>> ReadManifestList(const std::string& uri) {
  QUIVER_ASSIGN_OR_RAISE(std::string path, LocalPath(uri));
  std::vector<ManifestFile> out;
  QUIVER_RETURN_NOT_OK(ReadAvroFile(path, [&](avro_value_t* v) -> Status {
    ManifestFile m;
    QUIVER_RETURN_NOT_OK(GetString(v, "manifest_path", &m.path));
    QUIVER_RETURN_NOT_OK(GetLong(v, "manifest_length", &m.length));
    avro_value_t f;
    QUIVER_ASSIGN_OR_RAISE(bool has_content, GetOptional(v, "content", &f));
    if (has_content) AVRO_OK(avro_value_get_int(&f, &m.content), "content");
    QUIVER_ASSIGN_OR_RAISE(bool has_seq, GetOptional(v, "sequence_number", &f));
    if (has_seq) AVRO_OK(avro_value_get_long(&f, &m.sequence_number), "sequence_number");
    QUIVER_RETURN_NOT_OK(GetLong(v, "added_snapshot_id", &m.added_snapshot_id));
    QUIVER_ASSIGN_OR_RAISE(bool has_min, GetOptional(v, "min_sequence_number", &f));
    m.min_sequence_number = m.sequence_number;
    if (has_min) AVRO_OK(avro_value_get_long(&f, &m.min_sequence_number), "min_sequence_number");
    QUIVER_ASSIGN_OR_RAISE(bool has_spec, GetOptional(v, "partition_spec_id", &f));
    if (has_spec) AVRO_OK(avro_value_get_int(&f, &m.partition_spec_id), "partition_spec_id");
    // Counts (v1 names them added_data_files_count, ...); absent ones stay 0.
    for (const auto& [v2, v1, out_count] :
         {std::tuple{"added_files_count", "added_data_files_count", &m.added_files},
          std::tuple{"existing_files_count", "existing_data_files_count", &m.existing_files},
          std::tuple{"deleted_files_count", "deleted_data_files_count", &m.deleted_files}}) {
      QUIVER_ASSIGN_OR_RAISE(bool has, GetOptional(v, v2, &f));
      if (!has) {
        QUIVER_ASSIGN_OR_RAISE(has, GetOptional(v, v1, &f));
      }
      if (has) AVRO_OK(avro_value_get_int(&f, out_count), v2);
    }
    for (const auto& [name, out_rows] : {std::pair{"added_rows_count", &m.added_rows},
                                         std::pair{"existing_rows_count", &m.existing_rows},
                                         std::pair{"deleted_rows_count", &m.deleted_rows}}) {
      QUIVER_ASSIGN_OR_RAISE(bool has, GetOptional(v, name, &f));
      if (has) AVRO_OK(avro_value_get_long(&f, out_rows), name);
    }
    avro_value_t arr;
    QUIVER_ASSIGN_OR_RAISE(bool has_partitions, GetOptional(v, "partitions", &arr));
    if (has_partitions) {
      size_t n = 0;
      AVRO_OK(avro_value_get_size(&arr, &n), "partitions");
      m.partitions.emplace();
      for (size_t i = 0; i < n; ++i) {
        avro_value_t e;
        AVRO_OK(avro_value_get_by_index(&arr, i, &e, nullptr), "partitions");
        FieldSummary s;
        avro_value_t b;
        QUIVER_ASSIGN_OR_RAISE(bool has_null, GetOptional(&e, "contains_null", &b));
        int flag = 1;
        if (has_null) AVRO_OK(avro_value_get_boolean(&b, &flag), "contains_null");
        s.contains_null = flag != 0;
        QUIVER_ASSIGN_OR_RAISE(bool has_nan, GetOptional(&e, "contains_nan", &b));
        if (has_nan) {
          AVRO_OK(avro_value_get_boolean(&b, &flag), "contains_nan");
          s.contains_nan = flag != 0;
        }
        for (const auto& [name, bound] : {std::pair{"lower_bound", &s.lower_bound},
                                          std::pair{"upper_bound", &s.upper_bound}}) {
          QUIVER_ASSIGN_OR_RAISE(bool has, GetOptional(&e, name, &b));
          if (!has) continue;
          const void* p = nullptr;
          size_t size = 0;
          AVRO_OK(avro_value_get_bytes(&b, &p, &size), name);
          *bound = std::string(static_cast<const char*>(p), size);
        }
        m.partitions->push_back(std::move(s));
      }
    }
    out.push_back(std::move(m));
    return Status::OK();
  }));
  return out;
}

Result<std::vector<DataFile>> ReadManifest(const std::string& uri, int64_t sequence_number) {
  QUIVER_ASSIGN_OR_RAISE(std::string path, LocalPath(uri));
  std::vector<DataFile> out;
  QUIVER_RETURN_NOT_OK(ReadAvroFile(path, [&](avro_value_t* v) -> Status {
    DataFile f;
    QUIVER_RETURN_NOT_OK(GetInt(v, "status", &f.status));
    if (f.status == 2) return Status::OK();  // deleted
    avro_value_t s;
    f.sequence_number = sequence_number;
    QUIVER_ASSIGN_OR_RAISE(bool has_seq, GetOptional(v, "sequence_number", &s));
    if (has_seq) AVRO_OK(avro_value_get_long(&s, &f.sequence_number), "sequence_number");
    avro_value_t d;
    QUIVER_RETURN_NOT_OK(Field(v, "data_file", &d));
    avro_value_t c;
    QUIVER_ASSIGN_OR_RAISE(bool has_content, GetOptional(&d, "content", &c));
    if (has_content) AVRO_OK(avro_value_get_int(&c, &f.content), "content");
    QUIVER_RETURN_NOT_OK(GetString(&d, "file_path", &f.path));
    QUIVER_RETURN_NOT_OK(GetString(&d, "file_format", &f.format));
    QUIVER_RETURN_NOT_OK(ReadPartition(&d, &f.partition));
    QUIVER_RETURN_NOT_OK(GetLong(&d, "record_count", &f.record_count));
    QUIVER_RETURN_NOT_OK(GetLong(&d, "file_size_in_bytes", &f.file_size));
    QUIVER_RETURN_NOT_OK(GetIntMap(&d, "value_counts", &f.value_counts));
    QUIVER_RETURN_NOT_OK(GetIntMap(&d, "null_value_counts", &f.null_counts));
    QUIVER_RETURN_NOT_OK(GetIntMap(&d, "lower_bounds", &f.lower_bounds));
    QUIVER_RETURN_NOT_OK(GetIntMap(&d, "upper_bounds", &f.upper_bounds));
    avro_value_t ids;
    QUIVER_ASSIGN_OR_RAISE(bool has_ids, GetOptional(&d, "equality_ids", &ids));
    if (has_ids) {
      size_t n = 0;
      AVRO_OK(avro_value_get_size(&ids, &n), "equality_ids");
      for (size_t i = 0; i < n; ++i) {
        avro_value_t e;
        AVRO_OK(avro_value_get_by_index(&ids, i, &e, nullptr), "equality_ids");
        // The specification's items are ints; pyiceberg writes longs.
        int64_t id = 0;
        if (avro_value_get_type(&e) == AVRO_INT32) {
          int32_t id32 = 0;
          AVRO_OK(avro_value_get_int(&e, &id32), "equality_ids");
          id = id32;
        } else {
          AVRO_OK(avro_value_get_long(&e, &id), "equality_ids");
        }
        if (id < 0 || id > INT32_MAX)
          return Status::Invalid("Iceberg manifest {}: equality id {}", uri, id);
        f.equality_ids.push_back(static_cast<int>(id));
      }
    }
    out.push_back(std::move(f));
    return Status::OK();
  }));
  return out;
}

}  // namespace quiver::iceberg
