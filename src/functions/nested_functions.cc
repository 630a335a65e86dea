// Struct fields and map lookups over the engine's composite values (structs
// from Parquet / Arrow files, struct<f: T, ...>) and maps (map<K, V>).
//
// __struct_field(s, k): field k of s (the binder turns (s).f and s.f into
// it and sets the result type to the field's; NULL when s is NULL).
// Maps follow DuckDB (PostgreSQL has no map type): m[key] (__map_value) is
// the value or NULL; element_at(m, key) / map_extract(m, key) a one-element
// array of the value or an empty array; map_keys / map_values arrays.
#include <string>
#include <vector>

#include "functions/families.h"
#include "functions/function.h"
#include "functions/kernel_util.h"
#include "vector/sql_type.h"

namespace quiver {

namespace {

// `out` (dense, n rows) with row i also NULL where `mask` row i is.
Result<ArrayRef> MaskNulls(ArrayRef out, const VectorRef& mask, const std::vector<bool>* extra, int64_t n,
                           MemoryPool* pool) {
  if (!mask.MayHaveNulls() && extra == nullptr) return out;
  QUIVER_ASSIGN_OR_RAISE(auto bits, kernels::AllocateBitmap(n, pool));
  int64_t nulls = 0;
  for (int64_t i = 0; i < n; ++i) {
    const bool v = out->IsValid(i) && mask.IsValid(i) && (extra == nullptr || (*extra)[static_cast<size_t>(i)]);
    if (v) {
      bit_util::SetBit(bits->mutable_data(), i);
    } else {
      ++nulls;
    }
  }
  auto masked = std::make_shared<ArrayData>(*out);
  masked->buffers[0] = std::move(bits);
  masked->null_count = nulls;
  return ArrayRef(masked);
}

Status NotAMap(const char* name, const std::vector<TypeRef>& args) {
  std::string sig;
  for (const auto& t : args) sig += (sig.empty() ? "" : ", ") + PgTypeName(*t);
  return Status::TypeError("function {}({}) does not exist", name, sig)
      .WithSqlState(sqlstate::kUndefinedFunction)
      .WithHint(fmt::format("{} takes a map (a map column of a Parquet or Arrow file).", name));
}

void AddStructField(FunctionRegistry* r) {
  ScalarFunction f;
  f.name = "__struct_field";
  f.args = {AnyType(), int32()};
  f.bind = [](std::vector<TypeRef>* args, TypeRef* ret) -> Status {
    if ((*args)[0]->id != TypeId::kStruct) return NotAMap("__struct_field", *args);
    *ret = (*args)[0]->children[0]->type;  // the binder sets the field's type
    return Status::OK();
  };
  f.kernel = [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                const TypeRef&) -> Result<ArrayRef> {
    const ArrayData& s = *args[0].array;
    const int32_t k = args[1].values<int32_t>()[args[1].index(0)];
    const ArrayRef& child = s.children[static_cast<size_t>(k)];
    std::vector<uint32_t> rows(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) rows[static_cast<size_t>(i)] = static_cast<uint32_t>(s.offset + args[0].index(i));
    QUIVER_ASSIGN_OR_RAISE(ArrayRef out, kernels::Materialize(VectorRef{child.get(), rows.data(), false}, n, ctx.pool));
    return MaskNulls(std::move(out), args[0], nullptr, n, ctx.pool);
  };
  r->Add(std::move(f));
}

// For each row, the position in the entries of the first entry whose key
// equals the key argument, or -1 (map or key NULL, or no such key).
std::vector<int64_t> FindKeys(const std::vector<VectorRef>& args, int64_t n) {
  const VectorRef& m = args[0];
  const int32_t* off = m.array->GetValues<int32_t>(1);
  const ArrayData& entries = *m.array->children[0];
  const ArrayData& keys = *entries.children[0];
  std::vector<int64_t> at(static_cast<size_t>(n), -1);
  for (int64_t i = 0; i < n; ++i) {
    if (!m.IsValid(i) || !args[1].IsValid(i)) continue;
    const int64_t r = m.index(i);
    const int64_t key_slot = args[1].index(i);
    for (int32_t j = off[r]; j < off[r + 1]; ++j) {
      if (ArrayRangeEquals(keys, entries.offset + j, *args[1].array, key_slot, 1)) {
        at[static_cast<size_t>(i)] = entries.offset + j;
        break;
      }
    }
  }
  return at;
}

Status BindMapKey(const char* name, std::vector<TypeRef>* args) {
  if ((*args)[0]->id != TypeId::kMap) return NotAMap(name, *args);
  const DataType& entries = *(*args)[0]->children[0]->type;
  (*args)[1] = entries.children[0]->type;
  return Status::OK();
}

// The values at `at` (-1: NULL), n rows.
Result<ArrayRef> ValuesAt(const VectorRef& m, const std::vector<int64_t>& at, int64_t n, const TypeRef& out,
                          MemoryPool* pool) {
  const ArrayRef& values = m.array->children[0]->children[1];
  std::vector<uint32_t> rows(static_cast<size_t>(n), 0);
  std::vector<bool> hit(static_cast<size_t>(n), false);
  bool any = false;
  for (int64_t i = 0; i < n; ++i) {
    if (at[static_cast<size_t>(i)] < 0) continue;
    rows[static_cast<size_t>(i)] = static_cast<uint32_t>(at[static_cast<size_t>(i)]);
    hit[static_cast<size_t>(i)] = true;
    any = true;
  }
  if (!any) return MakeArrayOfNull(out, n, pool);
  QUIVER_ASSIGN_OR_RAISE(ArrayRef v, kernels::Materialize(VectorRef{values.get(), rows.data(), false}, n, pool));
  return MaskNulls(std::move(v), VectorRef{v.get(), nullptr, false}, &hit, n, pool);
}

void AddMapValue(FunctionRegistry* r) {
  ScalarFunction f;
  f.name = "__map_value";
  f.args = {AnyType(), AnyType()};
  f.bind = [](std::vector<TypeRef>* args, TypeRef* ret) -> Status {
    QUIVER_RETURN_NOT_OK(BindMapKey("map subscript", args));
    *ret = (*args)[0]->children[0]->type->children[1]->type;
    return Status::OK();
  };
  f.kernel = [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                const TypeRef& out) -> Result<ArrayRef> {
    return ValuesAt(args[0], FindKeys(args, n), n, out, ctx.pool);
  };
  r->Add(std::move(f));
}

void AddElementAt(FunctionRegistry* r, const char* name) {
  ScalarFunction f;
  f.name = name;
  f.args = {AnyType(), AnyType()};
  f.bind = [name](std::vector<TypeRef>* args, TypeRef* ret) -> Status {
    QUIVER_RETURN_NOT_OK(BindMapKey(name, args));
    *ret = ArrayOf((*args)[0]->children[0]->type->children[1]->type);
    return Status::OK();
  };
  f.kernel = [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                const TypeRef& out) -> Result<ArrayRef> {
    const std::vector<int64_t> at = FindKeys(args, n);
    // The hits' values, one element each; a miss is an empty array.
    std::vector<int64_t> hits;
    QUIVER_ASSIGN_OR_RAISE(auto offsets, kernels::AllocateValues(n + 1, 4, ctx.pool));
    int32_t* off = offsets->mutable_data_as<int32_t>();
    off[0] = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (at[static_cast<size_t>(i)] >= 0) hits.push_back(at[static_cast<size_t>(i)]);
      off[i + 1] = static_cast<int32_t>(hits.size());
    }
    const TypeRef& element = out->children[0]->type;
    const int64_t h = static_cast<int64_t>(hits.size());
    ArrayRef child;
    if (h == 0) {
      QUIVER_ASSIGN_OR_RAISE(child, MakeArrayOfNull(element, 0, ctx.pool));
    } else {
      QUIVER_ASSIGN_OR_RAISE(child, ValuesAt(args[0], hits, h, element, ctx.pool));
    }
    ArrayRef list = ArrayData::Make(out, n, {nullptr, std::move(offsets)}, 0, 0, {std::move(child)});
    // NULL for a NULL map or key.
    QUIVER_ASSIGN_OR_RAISE(list, MaskNulls(std::move(list), args[0], nullptr, n, ctx.pool));
    return MaskNulls(std::move(list), args[1], nullptr, n, ctx.pool);
  };
  r->Add(std::move(f));
}

// map_keys / map_values: the map's offsets over its keys or values.
void AddMapPart(FunctionRegistry* r, const char* name, int part) {
  ScalarFunction f;
  f.name = name;
  f.args = {AnyType()};
  f.bind = [name, part](std::vector<TypeRef>* args, TypeRef* ret) -> Status {
    if ((*args)[0]->id != TypeId::kMap) return NotAMap(name, *args);
    *ret = ArrayOf((*args)[0]->children[0]->type->children[static_cast<size_t>(part)]->type);
    return Status::OK();
  };
  f.kernel = [part](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                    const TypeRef& out) -> Result<ArrayRef> {
    QUIVER_ASSIGN_OR_RAISE(ArrayRef m, kernels::Materialize(args[0], n, ctx.pool));
    const ArrayData& entries = *m->children[0];
    ArrayRef items = entries.children[static_cast<size_t>(part)]->Slice(entries.offset, entries.length);
    auto o = std::make_shared<ArrayData>(*m);
    o->type = out;
    o->children = {std::move(items)};
    return ArrayRef(o);
  };
  r->Add(std::move(f));
}

}  // namespace

void RegisterNestedFunctions(FunctionRegistry* r) {
  AddStructField(r);
  AddMapValue(r);
  AddElementAt(r, "element_at");
  AddElementAt(r, "map_extract");
  AddMapPart(r, "map_keys", 0);
  AddMapPart(r, "map_values", 1);
}

}  // namespace quiver
