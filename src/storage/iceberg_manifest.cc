#include "storage/iceberg_manifest.h"

#include <avro.h>

#include <cstring>
#include <memory>
#include <random>

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

std::string ManifestEntrySchema() {
  std::string data_file = fmt::format(
      R"({{"type":"record","name":"r2","fields":[)"
      R"({{"name":"content","type":"int","field-id":134}},)"
      R"({{"name":"file_path","type":"string","field-id":100}},)"
      R"({{"name":"file_format","type":"string","field-id":101}},)"
      R"({{"name":"partition","type":{{"type":"record","name":"r102","fields":[]}},"field-id":102}},)"
      R"({{"name":"record_count","type":"long","field-id":103}},)"
      R"({{"name":"file_size_in_bytes","type":"long","field-id":104}},)"
      R"({},{},{},{},{},{},)"
      R"({{"name":"split_offsets","type":["null",{{"type":"array","items":"long","element-id":133}}],"default":null,"field-id":132}},)"
      R"({{"name":"sort_order_id","type":["null","int"],"default":null,"field-id":140}}]}})",
      Optional("column_sizes", IntMap(117, 118, "long"), 108),
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

Result<ManifestFile> WriteManifest(const std::string& uri, const std::vector<SchemaField>& fields,
                                   int schema_id, int64_t snapshot_id, int64_t sequence_number,
                                   const std::vector<DataFile>& files) {
  QUIVER_ASSIGN_OR_RAISE(std::string path, LocalPath(uri));
  AvroRecord rec;
  const std::string avro_schema = ManifestEntrySchema();
  QUIVER_RETURN_NOT_OK(rec.Init(avro_schema));
  ContainerWriter out({{"avro.schema", avro_schema},
                       {"avro.codec", "null"},
                       {"schema", SchemaJson(fields, schema_id)},
                       {"schema-id", std::to_string(schema_id)},
                       {"partition-spec", "[]"},
                       {"partition-spec-id", "0"},
                       {"format-version", "2"},
                       {"content", "data"}});
  ManifestFile m;
  m.path = uri;
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
    QUIVER_RETURN_NOT_OK(SetInt(v, "partition_spec_id", 0));
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
    QUIVER_RETURN_NOT_OK(SetNull(v, "partitions"));
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
    out.push_back(std::move(m));
    return Status::OK();
  }));
  return out;
}

Result<std::vector<DataFile>> ReadManifest(const std::string& uri) {
  QUIVER_ASSIGN_OR_RAISE(std::string path, LocalPath(uri));
  std::vector<DataFile> out;
  QUIVER_RETURN_NOT_OK(ReadAvroFile(path, [&](avro_value_t* v) -> Status {
    DataFile f;
    QUIVER_RETURN_NOT_OK(GetInt(v, "status", &f.status));
    if (f.status == 2) return Status::OK();  // deleted
    avro_value_t d;
    QUIVER_RETURN_NOT_OK(Field(v, "data_file", &d));
    avro_value_t c;
    QUIVER_ASSIGN_OR_RAISE(bool has_content, GetOptional(&d, "content", &c));
    if (has_content) AVRO_OK(avro_value_get_int(&c, &f.content), "content");
    QUIVER_RETURN_NOT_OK(GetString(&d, "file_path", &f.path));
    QUIVER_RETURN_NOT_OK(GetString(&d, "file_format", &f.format));
    QUIVER_RETURN_NOT_OK(GetLong(&d, "record_count", &f.record_count));
    QUIVER_RETURN_NOT_OK(GetLong(&d, "file_size_in_bytes", &f.file_size));
    QUIVER_RETURN_NOT_OK(GetIntMap(&d, "value_counts", &f.value_counts));
    QUIVER_RETURN_NOT_OK(GetIntMap(&d, "null_value_counts", &f.null_counts));
    QUIVER_RETURN_NOT_OK(GetIntMap(&d, "lower_bounds", &f.lower_bounds));
    QUIVER_RETURN_NOT_OK(GetIntMap(&d, "upper_bounds", &f.upper_bounds));
    out.push_back(std::move(f));
    return Status::OK();
  }));
  return out;
}

}  // namespace quiver::iceberg
