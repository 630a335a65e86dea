#include "catalog/type_conversion.h"

#include <algorithm>

#include "columnar/builder.h"
#include "common/calendar.h"
#include "common/half_float.h"
#include "vector/sql_type.h"
#include "vector/value.h"

namespace quiver {

namespace {

template <typename In, typename Out, typename F>
Result<ArrayRef> MapFixed(const ArrayData& in, const TypeRef& to, MemoryPool* pool, F f) {
  const int64_t n = in.length;
  QUIVER_ASSIGN_OR_RAISE(auto values, MutableBuffer::Allocate(std::max<int64_t>(n, 1) * sizeof(Out), pool));
  values->ZeroPadding();
  Out* dst = values->mutable_data_as<Out>();
  const In* src = in.GetValues<In>(1);
  for (int64_t i = 0; i < n; ++i) dst[i] = f(src[i]);
  // Validity is shared (re-based through a slice of the bitmap when offset).
  std::shared_ptr<Buffer> validity;
  if (in.buffers[0] && in.GetNullCount() > 0) {
    if (in.offset % 8 == 0) {
      validity = in.buffers[0]->Slice(in.offset / 8, bit_util::BytesForBits(n));
    } else {
      QUIVER_ASSIGN_OR_RAISE(auto bits, AllocateZeroed(bit_util::BytesForBits(n), pool));
      bit_util::CopyBitmap(in.buffers[0]->data(), in.offset, n, bits->mutable_data(), 0);
      validity = bits;
    }
  }
  return ArrayData::Make(to, n, {validity, std::move(values)}, validity ? in.GetNullCount() : 0);
}

// The validity of `in` re-based to offset 0 (shared when byte-aligned).
Result<std::shared_ptr<Buffer>> RebasedValidity(const ArrayData& in, MemoryPool* pool) {
  const int64_t n = in.length;
  if (!in.buffers[0] || in.GetNullCount() == 0) return std::shared_ptr<Buffer>();
  if (in.offset % 8 == 0) return in.buffers[0]->Slice(in.offset / 8, bit_util::BytesForBits(n));
  QUIVER_ASSIGN_OR_RAISE(auto bits, AllocateZeroed(bit_util::BytesForBits(n), pool));
  bit_util::CopyBitmap(in.buffers[0]->data(), in.offset, n, bits->mutable_data(), 0);
  return std::shared_ptr<Buffer>(std::move(bits));
}

// A list, large list, list view or fixed-size list of file values as the
// engine's list<item: T>: the elements converted, the offsets rebuilt as
// int32 over the elements the slots reference (copied only when the layout
// is not already a list).
Result<ArrayRef> ListToEngine(const ArrayRef& in, const TypeRef& to, MemoryPool* pool) {
  const DataType& t = *in->type;
  const TypeRef& element = to->children[0]->type;
  if (t.id == TypeId::kList) {
    // Same layout: only the element (and the field's name) may differ.
    QUIVER_ASSIGN_OR_RAISE(ArrayRef child, ToEngineArray(in->children[0], element, pool));
    auto out = std::make_shared<ArrayData>(*in);
    out->type = to;
    out->children = {std::move(child)};
    return out;
  }
  const int64_t n = in->length;
  std::vector<int64_t> starts(static_cast<size_t>(n)), sizes(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    int64_t start = 0, size = 0;
    switch (t.id) {
      case TypeId::kLargeList: {
        const int64_t* o = in->GetValues<int64_t>(1);
        start = o[i];
        size = o[i + 1] - o[i];
        break;
      }
      case TypeId::kListView:
        start = in->GetValues<int32_t>(1)[i];
        size = in->GetValues<int32_t>(2)[i];
        break;
      case TypeId::kLargeListView:
        start = in->GetValues<int64_t>(1)[i];
        size = in->GetValues<int64_t>(2)[i];
        break;
      default:  // fixed-size list
        start = (in->offset + i) * t.list_size;
        size = t.list_size;
        break;
    }
    if (in->IsNull(i)) size = 0;
    starts[static_cast<size_t>(i)] = start;
    sizes[static_cast<size_t>(i)] = size;
  }
  int64_t total = 0;
  for (int64_t s : sizes) total += s;
  if (total > INT32_MAX) return Status::Invalid("list column with more than 2^31 elements in one batch");
  QUIVER_ASSIGN_OR_RAISE(auto offsets, MutableBuffer::Allocate((n + 1) * sizeof(int32_t), pool));
  offsets->ZeroPadding();
  int32_t* off = offsets->mutable_data_as<int32_t>();
  QUIVER_ASSIGN_OR_RAISE(ArrayRef elements, ToEngineArray(in->children[0], element, pool));
  QUIVER_ASSIGN_OR_RAISE(auto builder, MakeBuilder(element, pool));
  off[0] = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t size = sizes[static_cast<size_t>(i)];
    if (size > 0) {
      QUIVER_RETURN_NOT_OK(builder->AppendArraySlice(*elements, starts[static_cast<size_t>(i)], size));
    }
    off[i + 1] = static_cast<int32_t>(off[i] + size);
  }
  QUIVER_ASSIGN_OR_RAISE(ArrayRef child, builder->Finish());
  QUIVER_ASSIGN_OR_RAISE(auto validity, RebasedValidity(*in, pool));
  return ArrayData::Make(to, n, {validity, std::move(offsets)}, validity ? in->GetNullCount() : 0, 0,
                         {std::move(child)});
}

// A struct of file values as the engine's struct: each field converted over
// the slots the struct covers (the struct's offset applies to its fields).
Result<ArrayRef> StructToEngine(const ArrayRef& in, const TypeRef& to, MemoryPool* pool) {
  const int64_t n = in->length;
  std::vector<ArrayRef> children;
  for (size_t k = 0; k < to->children.size(); ++k) {
    ArrayRef f = in->children[k]->Slice(in->offset, n);
    QUIVER_ASSIGN_OR_RAISE(ArrayRef c, ToEngineArray(f, to->children[k]->type, pool));
    children.push_back(std::move(c));
  }
  QUIVER_ASSIGN_OR_RAISE(auto validity, RebasedValidity(*in, pool));
  return ArrayData::Make(to, n, {validity}, validity ? in->GetNullCount() : 0, 0, std::move(children));
}

// A map as the engine's map<entries: struct<key, value>>: the same offsets,
// the entries converted.
Result<ArrayRef> MapToEngine(const ArrayRef& in, const TypeRef& to, MemoryPool* pool) {
  const ArrayRef& entries = in->children[0];
  const TypeRef& to_entries = to->children[0]->type;
  std::vector<ArrayRef> kv;
  for (size_t k = 0; k < 2; ++k) {
    ArrayRef f = entries->children[k]->Slice(entries->offset, entries->length);
    QUIVER_ASSIGN_OR_RAISE(ArrayRef c, ToEngineArray(f, to_entries->children[k]->type, pool));
    kv.push_back(std::move(c));
  }
  ArrayRef e = ArrayData::Make(to_entries, entries->length, {nullptr}, 0, 0, std::move(kv));
  auto out = std::make_shared<ArrayData>(*in);
  out->type = to;
  out->children = {std::move(e)};
  return ArrayRef(out);
}

}  // namespace

Result<ArrayRef> ToEngineArray(const ArrayRef& in, const TypeRef& to, MemoryPool* pool) {
  const DataType& t = *in->type;
  if (t.Equals(*to)) return in;
  if (to->id == TypeId::kList) return ListToEngine(in, to, pool);
  if (to->id == TypeId::kStruct && t.id == TypeId::kStruct) return StructToEngine(in, to, pool);
  if (to->id == TypeId::kMap && t.id == TypeId::kMap) return MapToEngine(in, to, pool);
  switch (t.id) {
    case TypeId::kInt8:
      return MapFixed<int8_t, int16_t>(*in, to, pool, [](int8_t v) { return int16_t{v}; });
    case TypeId::kUInt8:
      return MapFixed<uint8_t, int16_t>(*in, to, pool, [](uint8_t v) { return int16_t{v}; });
    case TypeId::kUInt16:
      return MapFixed<uint16_t, int32_t>(*in, to, pool, [](uint16_t v) { return int32_t{v}; });
    case TypeId::kUInt32:
      return MapFixed<uint32_t, int64_t>(*in, to, pool, [](uint32_t v) { return int64_t{v}; });
    case TypeId::kUInt64:
      return MapFixed<uint64_t, int128_t>(*in, to, pool, [](uint64_t v) { return int128_t{v}; });
    case TypeId::kHalfFloat:
      return MapFixed<uint16_t, float>(*in, to, pool, [](uint16_t h) { return HalfToFloat(h); });
    case TypeId::kDate64:
      return MapFixed<int64_t, int32_t>(*in, to, pool, [](int64_t ms) {
        return static_cast<int32_t>(FloorDiv(ms, kMillisPerDay));
      });
    case TypeId::kTime32: {
      const int64_t f = t.unit == TimeUnit::kSecond ? 1000000 : 1000;
      return MapFixed<int32_t, int64_t>(*in, to, pool, [f](int32_t v) { return v * f; });
    }
    case TypeId::kTime64:
      return MapFixed<int64_t, int64_t>(*in, to, pool, [](int64_t ns) { return ns / 1000; });
    case TypeId::kTimestamp: {
      switch (t.unit) {
        case TimeUnit::kSecond:
          return MapFixed<int64_t, int64_t>(*in, to, pool, [](int64_t v) { return v * 1000000; });
        case TimeUnit::kMilli:
          return MapFixed<int64_t, int64_t>(*in, to, pool, [](int64_t v) { return v * 1000; });
        case TimeUnit::kMicro:
          return MapFixed<int64_t, int64_t>(*in, to, pool, [](int64_t v) { return v; });
        case TimeUnit::kNano:
          return MapFixed<int64_t, int64_t>(*in, to, pool, [](int64_t v) { return FloorDiv(v, 1000); });
      }
      break;
    }
    case TypeId::kDuration: {
      const int64_t per_us_num = t.unit == TimeUnit::kSecond ? 1000000 : t.unit == TimeUnit::kMilli ? 1000 : 1;
      const int64_t per_us_den = t.unit == TimeUnit::kNano ? 1000 : 1;
      struct Mdn {
        int32_t m, d;
        int64_t ns;
      };
      return MapFixed<int64_t, Mdn>(*in, to, pool, [=](int64_t v) {
        return Mdn{0, 0, v * per_us_num / per_us_den * 1000};
      });
    }
    case TypeId::kIntervalMonths: {
      struct Mdn {
        int32_t m, d;
        int64_t ns;
      };
      return MapFixed<int32_t, Mdn>(*in, to, pool, [](int32_t m) { return Mdn{m, 0, 0}; });
    }
    case TypeId::kIntervalDayTime: {
      struct Dt {
        int32_t d, ms;
      };
      struct Mdn {
        int32_t m, d;
        int64_t ns;
      };
      return MapFixed<Dt, Mdn>(*in, to, pool, [](Dt v) { return Mdn{0, v.d, int64_t{v.ms} * 1000000}; });
    }
    case TypeId::kDecimal32:
      return MapFixed<int32_t, int128_t>(*in, to, pool, [](int32_t v) { return int128_t{v}; });
    case TypeId::kDecimal64:
      return MapFixed<int64_t, int128_t>(*in, to, pool, [](int64_t v) { return int128_t{v}; });
    default:
      break;
  }
  // Variable-width and encoded types: through a builder (copies).
  if (t.id == TypeId::kDecimal256 && to->id == TypeId::kDecimal128) {
    struct D256 {
      uint64_t w[4];
    };
    return MapFixed<D256, int128_t>(*in, to, pool, [](D256 v) {
      return static_cast<int128_t>((static_cast<unsigned __int128>(v.w[1]) << 64) | v.w[0]);
    });
  }
  if (to->id == TypeId::kString || to->id == TypeId::kBinary) {
    StringBuilder b(to, pool);
    QUIVER_RETURN_NOT_OK(b.Reserve(in->length));
    for (int64_t i = 0; i < in->length; ++i) {
      if (in->IsNull(i)) {
        QUIVER_RETURN_NOT_OK(b.AppendNull());
        continue;
      }
      if (t.id == TypeId::kDictionary) {
        const int64_t k = in->GetDictionaryIndex(i);
        QUIVER_RETURN_NOT_OK(b.Append(in->dictionary->GetString(k)));
      } else if (t.id == TypeId::kFixedSizeBinary) {
        const uint8_t* p = in->GetRaw<uint8_t>(1) + (in->offset + i) * t.byte_width;
        QUIVER_RETURN_NOT_OK(b.Append(std::string_view(reinterpret_cast<const char*>(p), t.byte_width)));
      } else {
        QUIVER_RETURN_NOT_OK(b.Append(in->GetString(i)));
      }
    }
    return b.Finish();
  }
  if (t.id == TypeId::kDictionary) {
    // Dictionary of a fixed-width type: decode by gathering.
    QUIVER_ASSIGN_OR_RAISE(auto values, ToEngineArray(in->dictionary, to, pool));
    auto builder_result = MakeBuilder(to, pool);
    QUIVER_RETURN_NOT_OK(builder_result.status());
    auto builder = std::move(builder_result).ValueOrDie();
    for (int64_t i = 0; i < in->length; ++i) {
      if (in->IsNull(i)) {
        QUIVER_RETURN_NOT_OK(builder->AppendNull());
      } else {
        QUIVER_RETURN_NOT_OK(builder->AppendArraySlice(*values, in->GetDictionaryIndex(i), 1));
      }
    }
    return builder->Finish();
  }
  return Status::Unsupported("reading {} columns as {}", t.ToString(), to->ToString());
}

Result<RecordBatchRef> ToEngineBatch(const RecordBatchRef& batch, const SchemaRef& engine_schema,
                                     MemoryPool* pool) {
  bool same = true;
  for (int i = 0; i < batch->num_columns(); ++i) {
    if (!batch->column(i)->type->Equals(*engine_schema->field(i)->type)) same = false;
  }
  if (same) return RecordBatch::Make(engine_schema, batch->num_rows(), batch->columns());
  std::vector<ArrayRef> cols;
  cols.reserve(batch->num_columns());
  for (int i = 0; i < batch->num_columns(); ++i) {
    auto c = ToEngineArray(batch->column(i), engine_schema->field(i)->type, pool);
    if (!c.ok()) return c.status().WithContext("column '" + engine_schema->field(i)->name + "'");
    cols.push_back(std::move(c).ValueOrDie());
  }
  return RecordBatch::Make(engine_schema, batch->num_rows(), std::move(cols));
}

Result<SchemaRef> EngineSchema(const Schema& file_schema, const std::string& where) {
  std::vector<FieldRef> fields;
  for (const auto& f : file_schema.fields) {
    auto t = ToEngineType(f->type);
    // Columns the engine cannot type stay out of the table's schema: a
    // query can use every other column of the file.
    if (!t.ok()) continue;
    fields.push_back(field(f->name, *t, f->nullable));
  }
  if (fields.empty() && file_schema.num_fields() > 0) {
    // A scan needs one column to count rows by (count(*) over such a file
    // would need a scan of no columns, which the scans do not support yet).
    std::string list;
    for (const auto& [name, type] : UnreadableColumns(file_schema)) {
      list += fmt::format("{}\"{}\" {}", list.empty() ? "" : ", ", name, type);
    }
    return Status::Unsupported("{}: none of the columns has a type queries can read yet ({})", where,
                               list);
  }
  return schema(std::move(fields));
}

std::vector<std::pair<std::string, std::string>> UnreadableColumns(const Schema& file_schema) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& f : file_schema.fields) {
    if (!ToEngineType(f->type).ok()) out.emplace_back(f->name, f->type->ToString());
  }
  return out;
}

}  // namespace quiver
