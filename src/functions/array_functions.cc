// Array functions and operators as PostgreSQL 15 has them (funcs.sgml,
// "Array Functions and Operators") over the engine's arrays, list<item: T>:
// the ARRAY[...] constructor, subscripts and slices (1-based; NULL or an
// empty array out of range), array_length, cardinality, array_position,
// array_append / prepend / cat (|| is bound to them), array_to_string,
// string_to_array, x op ANY / ALL (array), @>, <@, &&, and unnest in FROM.
//
// The binder names the internal ones: __array_construct, __array_subscript,
// __array_slice[_from|_to|_all], __any_<op> / __all_<op>, __array_contains,
// __array_contained, __array_overlap. Polymorphic arguments are AnyType;
// each `bind` checks for arrays and picks the element type (PostgreSQL's
// anycompatiblearray / anycompatible), so the kernels see arguments of one
// element type.
#include <algorithm>
#include <string>
#include <vector>

#include "columnar/pretty_print.h"
#include "functions/cast.h"
#include "functions/families.h"
#include "functions/function.h"
#include "functions/kernel_util.h"
#include "functions/table_function.h"
#include "vector/json_type.h"
#include "vector/sql_type.h"

namespace quiver {

namespace {

using kernels::StringAccess;
using kernels::ValidAccess;

// The slots of a list argument.
struct ListAccess {
  explicit ListAccess(const VectorRef& v)
      : ref(v), off(v.array->type->id == TypeId::kList ? v.array->GetValues<int32_t>(1) : nullptr),
        child(v.array->type->id == TypeId::kList ? v.array->children[0].get() : nullptr) {}
  bool valid(int64_t i) const { return off != nullptr && ref.IsValid(i); }
  int32_t begin(int64_t i) const { return off[ref.index(i)]; }
  int32_t end(int64_t i) const { return off[ref.index(i) + 1]; }
  int32_t size(int64_t i) const { return end(i) - begin(i); }
  VectorRef ref;
  const int32_t* off;
  const ArrayData* child;
};

// Builds a list array from elements picked out of source arrays (all of the
// element type): rows are started, filled and ended in order.
class ListOutput {
 public:
  ListOutput(TypeRef type, MemoryPool* pool) : type_(std::move(type)), pool_(pool) {}

  // Registers a source of elements; returns its id.
  int AddSource(ArrayRef a) {
    sources_.push_back(std::move(a));
    return static_cast<int>(sources_.size()) - 1;
  }
  void Append(int source, int64_t index) { picks_.emplace_back(source, index); }
  void AppendNull() { picks_.emplace_back(-1, 0); }
  void EndRow(bool valid) {
    offsets_.push_back(static_cast<int64_t>(picks_.size()));
    valid_.push_back(valid);
  }

  Result<ArrayRef> Finish() {
    const TypeRef& element = type_->children[0]->type;
    const int64_t n = static_cast<int64_t>(valid_.size());
    std::vector<ArrayRef> parts;
    QUIVER_ASSIGN_OR_RAISE(ArrayRef null_element, MakeArrayOfNull(element, 1, pool_));
    parts.push_back(null_element);
    std::vector<int64_t> base(sources_.size());
    int64_t at = 1;
    for (size_t s = 0; s < sources_.size(); ++s) {
      base[s] = at;
      at += sources_[s]->length;
      parts.push_back(sources_[s]);
    }
    if (at > INT32_MAX || static_cast<int64_t>(picks_.size()) > INT32_MAX) {
      return Status::Invalid("array result larger than 2^31 elements in one vector");
    }
    QUIVER_ASSIGN_OR_RAISE(ArrayRef all, Concatenate(parts, pool_));
    std::vector<uint32_t> sel(picks_.size());
    for (size_t k = 0; k < picks_.size(); ++k) {
      const auto [s, i] = picks_[k];
      sel[k] = s < 0 ? 0u : static_cast<uint32_t>(base[static_cast<size_t>(s)] + i);
    }
    ArrayRef elements;
    if (sel.empty()) {
      elements = all->Slice(0, 0);
    } else {
      QUIVER_ASSIGN_OR_RAISE(elements, kernels::Materialize(VectorRef{all.get(), sel.data(), false},
                                                            static_cast<int64_t>(sel.size()), pool_));
    }
    QUIVER_ASSIGN_OR_RAISE(auto offsets, kernels::AllocateValues(n + 1, 4, pool_));
    QUIVER_ASSIGN_OR_RAISE(auto bits, kernels::AllocateBitmap(n, pool_));
    int32_t* off = offsets->mutable_data_as<int32_t>();
    off[0] = 0;
    int64_t nulls = 0;
    for (int64_t i = 0; i < n; ++i) {
      off[i + 1] = static_cast<int32_t>(offsets_[static_cast<size_t>(i)]);
      if (valid_[static_cast<size_t>(i)]) {
        bit_util::SetBit(bits->mutable_data(), i);
      } else {
        ++nulls;
      }
    }
    std::shared_ptr<Buffer> validity;
    if (nulls > 0) validity = std::move(bits);
    return ArrayData::Make(type_, n, {std::move(validity), std::move(offsets)}, nulls, 0,
                           {std::move(elements)});
  }

 private:
  TypeRef type_;
  MemoryPool* pool_;
  std::vector<ArrayRef> sources_;
  std::vector<std::pair<int, int64_t>> picks_;
  std::vector<int64_t> offsets_;
  std::vector<bool> valid_;
};

// The child of a list argument as a source (the whole child array).
ArrayRef ChildOf(const ListAccess& l) {
  return l.child != nullptr ? std::make_shared<ArrayData>(*l.child) : nullptr;
}

Status NotAnArray(const char* name, const std::vector<TypeRef>& args) {
  std::string sig;
  for (const auto& t : args) sig += (sig.empty() ? "" : ", ") + PgTypeName(*t);
  return Status::TypeError("function {}({}) does not exist", name, sig)
      .WithSqlState(sqlstate::kUndefinedFunction)
      .WithHint("No function matches the given name and argument types. You might need to add explicit type casts.");
}

// The element type an array and an element share (anycompatible).
Result<TypeRef> CommonElement(const TypeRef& element, const TypeRef& value, const char* name) {
  if (value->id == TypeId::kList) {
    return Status::Unsupported("{} with an array element: multidimensional arrays are not supported", name)
        .WithSqlState(sqlstate::kFeatureNotSupported);
  }
  return CommonSuperType(element, value, name);
}

// Equality of two non-null elements of one type.
bool ElementsEqual(const ArrayData& a, int64_t i, const ArrayData& b, int64_t j) {
  return ArrayRangeEquals(a, i, b, j, 1);
}

// --- constructor, subscripts, slices ------------------------------------------------

void AddConstructor(FunctionRegistry* r) {
  ScalarFunction f;
  f.name = "__array_construct";
  f.varargs = AnyType();
  f.strict = false;
  f.bind = [](std::vector<TypeRef>* args, TypeRef* ret) -> Status {
    TypeRef common = null();
    for (const auto& t : *args) {
      if (t->id == TypeId::kList) {
        return Status::Unsupported("multidimensional arrays are not supported (an ARRAY of arrays)")
            .WithSqlState(sqlstate::kFeatureNotSupported);
      }
      QUIVER_ASSIGN_OR_RAISE(common, CommonSuperType(common, t, "ARRAY"));
    }
    if (common->id == TypeId::kNull) common = utf8();
    if (IsJsonOrJsonb(*common)) {
      return Status::Unsupported("arrays of {}", PgTypeName(*common)).WithSqlState(sqlstate::kFeatureNotSupported);
    }
    for (auto& t : *args) t = common;
    *ret = ArrayOf(common);
    return Status::OK();
  };
  f.kernel = [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                const TypeRef& out) -> Result<ArrayRef> {
    ListOutput o(out, ctx.pool);
    std::vector<int> src;
    for (const auto& a : args) {
      QUIVER_ASSIGN_OR_RAISE(ArrayRef d, kernels::Materialize(a, n, ctx.pool));
      src.push_back(o.AddSource(std::move(d)));
    }
    for (int64_t i = 0; i < n; ++i) {
      for (size_t k = 0; k < args.size(); ++k) o.Append(src[k], i);
      o.EndRow(true);
    }
    return o.Finish();
  };
  r->Add(std::move(f));
}

void AddSubscript(FunctionRegistry* r) {
  ScalarFunction f;
  f.name = "__array_subscript";
  f.args = {AnyType(), int32()};
  f.bind = [](std::vector<TypeRef>* args, TypeRef* ret) -> Status {
    if ((*args)[0]->id != TypeId::kList) {
      return Status::TypeError("cannot subscript type {} because it does not support subscripting",
                               PgTypeName(*(*args)[0]))
          .WithSqlState(sqlstate::kDatatypeMismatch);
    }
    *ret = ArrayElementType(*(*args)[0]);
    return Status::OK();
  };
  f.kernel = [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                const TypeRef& out) -> Result<ArrayRef> {
    ListAccess l(args[0]);
    ValidAccess iv(args[1]);
    std::vector<uint32_t> sel(static_cast<size_t>(n), 0);
    std::vector<bool> hit(static_cast<size_t>(n), false);
    const int32_t* idx = args[1].values<int32_t>();
    for (int64_t i = 0; i < n; ++i) {
      if (!l.valid(i) || !iv(i)) continue;
      const int64_t k = idx[args[1].index(i)];
      if (k < 1 || k > l.size(i)) continue;
      sel[static_cast<size_t>(i)] = static_cast<uint32_t>(l.begin(i) + k - 1);
      hit[static_cast<size_t>(i)] = true;
    }
    // Rows out of range read a NULL appended after the child's elements.
    QUIVER_ASSIGN_OR_RAISE(ArrayRef null_element, MakeArrayOfNull(out, 1, ctx.pool));
    ArrayRef child = l.child != nullptr ? ChildOf(l) : nullptr;
    std::vector<ArrayRef> parts;
    if (child) parts.push_back(child);
    parts.push_back(null_element);
    QUIVER_ASSIGN_OR_RAISE(ArrayRef all, Concatenate(parts, ctx.pool));
    const uint32_t null_at = static_cast<uint32_t>(child ? child->length : 0);
    for (int64_t i = 0; i < n; ++i) {
      if (!hit[static_cast<size_t>(i)]) sel[static_cast<size_t>(i)] = null_at;
    }
    return kernels::Materialize(VectorRef{all.get(), sel.data(), false}, n, ctx.pool);
  };
  r->Add(std::move(f));
}

// a[lo:hi] with either bound omitted (`which`: both, from, to, all).
void AddSlice(FunctionRegistry* r, const char* name, bool has_lo, bool has_hi) {
  ScalarFunction f;
  f.name = name;
  f.args = {AnyType()};
  if (has_lo) f.args.push_back(int32());
  if (has_hi) f.args.push_back(int32());
  f.bind = [](std::vector<TypeRef>* args, TypeRef* ret) -> Status {
    if ((*args)[0]->id != TypeId::kList) {
      return Status::TypeError("cannot subscript type {} because it does not support subscripting",
                               PgTypeName(*(*args)[0]))
          .WithSqlState(sqlstate::kDatatypeMismatch);
    }
    *ret = (*args)[0];
    return Status::OK();
  };
  f.kernel = [has_lo, has_hi](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                              const TypeRef& out) -> Result<ArrayRef> {
    ListAccess l(args[0]);
    ListOutput o(out, ctx.pool);
    const int src = l.child ? o.AddSource(ChildOf(l)) : -1;
    const VectorRef* lo = has_lo ? &args[1] : nullptr;
    const VectorRef* hi = has_hi ? &args[has_lo ? 2 : 1] : nullptr;
    for (int64_t i = 0; i < n; ++i) {
      const bool valid = l.valid(i) && (!lo || lo->IsValid(i)) && (!hi || hi->IsValid(i));
      if (valid) {
        const int64_t size = l.size(i);
        int64_t a = lo ? lo->values<int32_t>()[lo->index(i)] : 1;
        int64_t b = hi ? hi->values<int32_t>()[hi->index(i)] : size;
        a = std::max<int64_t>(a, 1);
        b = std::min<int64_t>(b, size);
        for (int64_t k = a; k <= b; ++k) o.Append(src, l.begin(i) + k - 1);
      }
      o.EndRow(valid);
    }
    return o.Finish();
  };
  r->Add(std::move(f));
}

// --- sizes and search ------------------------------------------------------------------

void AddSizes(FunctionRegistry* r) {
  ScalarFunction len;
  len.name = "array_length";
  len.args = {AnyType(), int32()};
  len.return_type = int32();
  len.bind = [](std::vector<TypeRef>* args, TypeRef* ret) -> Status {
    if ((*args)[0]->id != TypeId::kList) return NotAnArray("array_length", *args);
    *ret = int32();
    return Status::OK();
  };
  // NULL for an empty array and for a dimension the array has not.
  len.kernel = [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                  const TypeRef& out) -> Result<ArrayRef> {
    ListAccess l(args[0]);
    ValidAccess dv(args[1]);
    QUIVER_ASSIGN_OR_RAISE(auto o, kernels::MakeFixedOutput(out, {}, n, ctx.pool));
    QUIVER_ASSIGN_OR_RAISE(auto bits, kernels::AllocateBitmap(n, ctx.pool));
    int64_t nulls = 0;
    for (int64_t i = 0; i < n; ++i) {
      const bool ok = l.valid(i) && dv(i) && args[1].values<int32_t>()[args[1].index(i)] == 1 && l.size(i) > 0;
      if (ok) {
        o.data<int32_t>()[i] = l.size(i);
        bit_util::SetBit(bits->mutable_data(), i);
      } else {
        ++nulls;
      }
    }
    ArrayRef a = kernels::FinishFixed(out, n, std::move(o));
    a->buffers[0] = nulls ? std::shared_ptr<Buffer>(std::move(bits)) : nullptr;
    a->null_count = nulls;
    return a;
  };
  r->Add(std::move(len));

  ScalarFunction card;
  card.name = "cardinality";
  card.args = {AnyType()};
  card.return_type = int32();
  card.bind = [](std::vector<TypeRef>* args, TypeRef* ret) -> Status {
    if ((*args)[0]->id != TypeId::kList) return NotAnArray("cardinality", *args);
    *ret = int32();
    return Status::OK();
  };
  card.kernel = [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                   const TypeRef& out) -> Result<ArrayRef> {
    ListAccess l(args[0]);
    QUIVER_ASSIGN_OR_RAISE(auto o, kernels::MakeFixedOutput(out, args, n, ctx.pool));
    for (int64_t i = 0; i < n; ++i) o.data<int32_t>()[i] = l.valid(i) ? l.size(i) : 0;
    return kernels::FinishFixed(out, n, std::move(o));
  };
  r->Add(std::move(card));
}

void AddPosition(FunctionRegistry* r, bool with_start) {
  ScalarFunction f;
  f.name = "array_position";
  f.args = {AnyType(), AnyType()};
  if (with_start) f.args.push_back(int32());
  f.strict = false;
  f.bind = [](std::vector<TypeRef>* args, TypeRef* ret) -> Status {
    if ((*args)[0]->id != TypeId::kList) return NotAnArray("array_position", *args);
    QUIVER_ASSIGN_OR_RAISE(TypeRef c, CommonElement(ArrayElementType(*(*args)[0]), (*args)[1], "array_position"));
    (*args)[0] = ArrayOf(c);
    (*args)[1] = c;
    *ret = int32();
    return Status::OK();
  };
  // The first position (from `start`) whose element IS NOT DISTINCT FROM
  // the value; NULL when none, or when the array (or start) is NULL.
  f.kernel = [with_start](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                          const TypeRef& out) -> Result<ArrayRef> {
    ListAccess l(args[0]);
    QUIVER_ASSIGN_OR_RAISE(ArrayRef x, kernels::Materialize(args[1], n, ctx.pool));
    QUIVER_ASSIGN_OR_RAISE(auto o, kernels::MakeFixedOutput(out, {}, n, ctx.pool));
    QUIVER_ASSIGN_OR_RAISE(auto bits, kernels::AllocateBitmap(n, ctx.pool));
    int64_t nulls = 0;
    for (int64_t i = 0; i < n; ++i) {
      int32_t found = 0;
      bool valid = l.valid(i) && (!with_start || args[2].IsValid(i));
      if (valid) {
        const int64_t start = with_start ? std::max(1, args[2].values<int32_t>()[args[2].index(i)]) : 1;
        for (int64_t k = start; k <= l.size(i) && found == 0; ++k) {
          const int64_t e = l.begin(i) + k - 1;
          const bool en = l.child->IsNull(e), xn = x->IsNull(i);
          if (en || xn ? (en && xn) : ElementsEqual(*l.child, e, *x, i)) found = static_cast<int32_t>(k);
        }
      }
      if (found > 0) {
        o.data<int32_t>()[i] = found;
        bit_util::SetBit(bits->mutable_data(), i);
      } else {
        ++nulls;
      }
    }
    ArrayRef a = kernels::FinishFixed(out, n, std::move(o));
    a->buffers[0] = nulls ? std::shared_ptr<Buffer>(std::move(bits)) : nullptr;
    a->null_count = nulls;
    return a;
  };
  r->Add(std::move(f));
}

// --- append, prepend, cat ----------------------------------------------------------------

void AddConcatenation(FunctionRegistry* r) {
  // array_append(anycompatiblearray, anycompatible), array_prepend(anycompatible, anycompatiblearray)
  for (const bool append : {true, false}) {
    ScalarFunction f;
    f.name = append ? "array_append" : "array_prepend";
    f.args = {AnyType(), AnyType()};
    f.strict = false;
    const int arr = append ? 0 : 1, val = append ? 1 : 0;
    f.bind = [arr, val, append](std::vector<TypeRef>* args, TypeRef* ret) -> Status {
      if ((*args)[arr]->id != TypeId::kList) return NotAnArray(append ? "array_append" : "array_prepend", *args);
      QUIVER_ASSIGN_OR_RAISE(TypeRef c, CommonElement(ArrayElementType(*(*args)[arr]), (*args)[val],
                                                      append ? "array_append" : "array_prepend"));
      (*args)[arr] = ArrayOf(c);
      (*args)[val] = c;
      *ret = ArrayOf(c);
      return Status::OK();
    };
    f.kernel = [arr, val, append](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                                  const TypeRef& out) -> Result<ArrayRef> {
      ListAccess l(args[static_cast<size_t>(arr)]);
      ListOutput o(out, ctx.pool);
      const int src = l.child ? o.AddSource(ChildOf(l)) : -1;
      QUIVER_ASSIGN_OR_RAISE(ArrayRef x, kernels::Materialize(args[static_cast<size_t>(val)], n, ctx.pool));
      const int xs = o.AddSource(x);
      for (int64_t i = 0; i < n; ++i) {
        if (!append) o.Append(xs, i);
        if (l.valid(i)) {
          for (int32_t k = l.begin(i); k < l.end(i); ++k) o.Append(src, k);
        }
        if (append) o.Append(xs, i);
        o.EndRow(true);
      }
      return o.Finish();
    };
    r->Add(std::move(f));
  }
  ScalarFunction cat;
  cat.name = "array_cat";
  cat.args = {AnyType(), AnyType()};
  cat.strict = false;
  cat.bind = [](std::vector<TypeRef>* args, TypeRef* ret) -> Status {
    const TypeRef& a = (*args)[0];
    const TypeRef& b = (*args)[1];
    if ((a->id != TypeId::kList && a->id != TypeId::kNull) || (b->id != TypeId::kList && b->id != TypeId::kNull) ||
        (a->id == TypeId::kNull && b->id == TypeId::kNull)) {
      return NotAnArray("array_cat", *args);
    }
    QUIVER_ASSIGN_OR_RAISE(TypeRef c, CommonSuperType(a, b, "array_cat"));
    (*args)[0] = c;
    (*args)[1] = c;
    *ret = c;
    return Status::OK();
  };
  cat.kernel = [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                  const TypeRef& out) -> Result<ArrayRef> {
    ListAccess a(args[0]), b(args[1]);
    ListOutput o(out, ctx.pool);
    const int sa = a.child ? o.AddSource(ChildOf(a)) : -1;
    const int sb = b.child ? o.AddSource(ChildOf(b)) : -1;
    for (int64_t i = 0; i < n; ++i) {
      if (a.valid(i)) {
        for (int32_t k = a.begin(i); k < a.end(i); ++k) o.Append(sa, k);
      }
      if (b.valid(i)) {
        for (int32_t k = b.begin(i); k < b.end(i); ++k) o.Append(sb, k);
      }
      o.EndRow(a.valid(i) || b.valid(i));
    }
    return o.Finish();
  };
  r->Add(std::move(cat));
}

// --- text ------------------------------------------------------------------------------

void AddText(FunctionRegistry* r, bool with_null) {
  ScalarFunction f;
  f.name = "array_to_string";
  f.args = {AnyType(), utf8()};
  if (with_null) f.args.push_back(utf8());
  f.strict = false;
  f.bind = [](std::vector<TypeRef>* args, TypeRef* ret) -> Status {
    if ((*args)[0]->id != TypeId::kList) return NotAnArray("array_to_string", *args);
    *ret = utf8();
    return Status::OK();
  };
  // Elements as their text (nested arrays flattened, as PostgreSQL walks a
  // multidimensional array), NULL elements skipped or written as the third
  // argument.
  f.kernel = [with_null](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                         const TypeRef& out) -> Result<ArrayRef> {
    ListAccess l(args[0]);
    const TypeRef leaf = ArrayLeafType(args[0].array->type);
    // Leaves of every row, as text.
    const ArrayData* level = l.child;
    std::vector<const ArrayData*> levels;
    while (level != nullptr && level->type->id == TypeId::kList) {
      levels.push_back(level);
      level = level->children[0].get();
    }
    ArrayRef texts;
    if (level != nullptr && level->type->id == TypeId::kBool) {
      kernels::StringOutput t(utf8(), level->length, ctx.pool);
      for (int64_t k = 0; k < level->length; ++k) {
        if (level->IsNull(k)) {
          QUIVER_RETURN_NOT_OK(t.AppendNull());
        } else {
          QUIVER_RETURN_NOT_OK(t.Append(bit_util::GetBit(level->GetRaw<uint8_t>(1), level->offset + k) ? "t" : "f"));
        }
      }
      QUIVER_ASSIGN_OR_RAISE(texts, t.Finish());
    } else if (level != nullptr) {
      QUIVER_ASSIGN_OR_RAISE(texts, CastArray(std::make_shared<ArrayData>(*level), utf8(), ctx.pool));
    }
    StringAccess sep(args[1]);
    ValidAccess sv(args[1]);
    kernels::StringOutput o(out, n, ctx.pool);
    std::string buf;
    for (int64_t i = 0; i < n; ++i) {
      if (!l.valid(i) || !sv(i)) {
        QUIVER_RETURN_NOT_OK(o.AppendNull());
        continue;
      }
      const bool null_text = with_null && args[2].IsValid(i);
      const std::string_view nt = null_text ? StringAccess(args[2])(i) : std::string_view();
      // The leaf range of the row.
      int64_t lo = l.begin(i), hi = l.end(i);
      for (const ArrayData* lv : levels) {
        const int32_t* off = lv->GetValues<int32_t>(1);
        lo = off[lo];
        hi = off[hi];
      }
      buf.clear();
      bool first = true;
      for (int64_t k = lo; k < hi; ++k) {
        // Elements under a NULL inner list are none.
        if (texts->IsNull(k)) {
          if (!null_text) continue;
          if (!first) buf += sep(i);
          buf += nt;
        } else {
          if (!first) buf += sep(i);
          buf += texts->GetString(k);
        }
        first = false;
      }
      QUIVER_RETURN_NOT_OK(o.Append(buf));
    }
    (void)leaf;
    return o.Finish();
  };
  r->Add(std::move(f));

  ScalarFunction s;
  s.name = "string_to_array";
  s.args = {utf8(), utf8()};
  if (with_null) s.args.push_back(utf8());
  s.return_type = ArrayOf(utf8());
  s.strict = false;
  // A NULL delimiter splits into characters; an empty one gives the whole
  // string; an empty string gives an empty array; elements equal to the
  // third argument become NULL.
  s.kernel = [with_null](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                         const TypeRef& out) -> Result<ArrayRef> {
    StringAccess text(args[0]), del(args[1]);
    kernels::StringOutput parts(utf8(), 0, ctx.pool);
    std::vector<int32_t> off{0};
    std::vector<bool> valid;
    int32_t count = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (!args[0].IsValid(i)) {
        valid.push_back(false);
        off.push_back(count);
        continue;
      }
      const std::string_view s = text(i);
      const bool has_null = with_null && args[2].IsValid(i);
      const std::string_view null_str = has_null ? StringAccess(args[2])(i) : std::string_view();
      auto emit = [&](std::string_view p) -> Status {
        ++count;
        if (has_null && p == null_str) return parts.AppendNull();
        return parts.Append(p);
      };
      if (!s.empty()) {
        if (!args[1].IsValid(i)) {
          for (size_t p = 0; p < s.size();) {
            size_t len = 1;
            const unsigned char c = static_cast<unsigned char>(s[p]);
            if (c >= 0xF0) len = 4; else if (c >= 0xE0) len = 3; else if (c >= 0xC0) len = 2;
            len = std::min(len, s.size() - p);
            QUIVER_RETURN_NOT_OK(emit(s.substr(p, len)));
            p += len;
          }
        } else if (del(i).empty()) {
          QUIVER_RETURN_NOT_OK(emit(s));
        } else {
          const std::string_view d = del(i);
          size_t p = 0;
          for (;;) {
            const size_t q = s.find(d, p);
            if (q == std::string_view::npos) {
              QUIVER_RETURN_NOT_OK(emit(s.substr(p)));
              break;
            }
            QUIVER_RETURN_NOT_OK(emit(s.substr(p, q - p)));
            p = q + d.size();
          }
        }
      }
      valid.push_back(true);
      off.push_back(count);
    }
    QUIVER_ASSIGN_OR_RAISE(ArrayRef elements, parts.Finish());
    QUIVER_ASSIGN_OR_RAISE(auto offsets, kernels::AllocateValues(n + 1, 4, ctx.pool));
    std::copy(off.begin(), off.end(), offsets->mutable_data_as<int32_t>());
    QUIVER_ASSIGN_OR_RAISE(auto bits, kernels::AllocateBitmap(n, ctx.pool));
    int64_t nulls = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (valid[static_cast<size_t>(i)]) bit_util::SetBit(bits->mutable_data(), i); else ++nulls;
    }
    return ArrayData::Make(out, n, {nulls ? std::shared_ptr<Buffer>(std::move(bits)) : nullptr, std::move(offsets)},
                           nulls, 0, {std::move(elements)});
  };
  r->Add(std::move(s));
}

// --- x op ANY / ALL (array) -------------------------------------------------------------

void AddQuantified(FunctionRegistry* r, const std::string& op, bool all) {
  ScalarFunction f;
  f.name = (all ? "__all_" : "__any_") + op;
  f.args = {AnyType(), AnyType()};
  f.strict = false;
  f.bind = [op](std::vector<TypeRef>* args, TypeRef* ret) -> Status {
    if ((*args)[1]->id != TypeId::kList) {
      return Status::TypeError("op ANY/ALL (array) requires array on right side")
          .WithSqlState(sqlstate::kWrongObjectType);
    }
    QUIVER_ASSIGN_OR_RAISE(TypeRef c, CommonElement(ArrayElementType(*(*args)[1]), (*args)[0], "ANY/ALL"));
    // The operator must exist for the element type.
    QUIVER_RETURN_NOT_OK(FunctionRegistry::Get().ResolveScalar(op, {ArgInfo{c}, ArgInfo{c}}, true).status());
    (*args)[0] = c;
    (*args)[1] = ArrayOf(c);
    *ret = boolean();
    return Status::OK();
  };
  // ANY: TRUE when a comparison is TRUE, else NULL when one is NULL, else
  // FALSE (an empty array: FALSE). ALL: FALSE when one is FALSE, else NULL
  // when one is NULL, else TRUE (an empty array: TRUE).
  f.kernel = [op, all](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                       const TypeRef& out) -> Result<ArrayRef> {
    ListAccess l(args[1]);
    const TypeRef& element = ArrayElementType(*args[1].array->type);
    QUIVER_ASSIGN_OR_RAISE(BoundFunction cmp,
                           FunctionRegistry::Get().ResolveScalar(op, {ArgInfo{element}, ArgInfo{element}}, true));
    std::vector<uint32_t> xs, es;
    for (int64_t i = 0; i < n; ++i) {
      if (!l.valid(i)) continue;
      for (int32_t k = l.begin(i); k < l.end(i); ++k) {
        xs.push_back(static_cast<uint32_t>(args[0].index(i)));
        es.push_back(static_cast<uint32_t>(k));
      }
    }
    ArrayRef results;
    if (!xs.empty()) {
      VectorRef xv{args[0].array, xs.data(), false};
      VectorRef ev{l.child, es.data(), false};
      QUIVER_ASSIGN_OR_RAISE(results, cmp.function->kernel(ctx, {xv, ev}, static_cast<int64_t>(xs.size()),
                                                           boolean()));
    }
    QUIVER_ASSIGN_OR_RAISE(auto bits, kernels::AllocateBitmap(n, ctx.pool));
    QUIVER_ASSIGN_OR_RAISE(auto vbits, kernels::AllocateBitmap(n, ctx.pool));
    int64_t nulls = 0;
    size_t at = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (!l.valid(i)) {
        ++nulls;
        continue;
      }
      bool decided = false, saw_null = false;
      const bool x_null = !args[0].IsValid(i);
      for (int32_t k = l.begin(i); k < l.end(i); ++k, ++at) {
        const bool null = x_null || l.child->IsNull(k) || results->IsNull(static_cast<int64_t>(at));
        if (null) {
          saw_null = true;
          continue;
        }
        const bool v = bit_util::GetBit(results->GetRaw<uint8_t>(1), results->offset + static_cast<int64_t>(at));
        if (v != all) decided = true;
      }
      if (decided) {
        bit_util::SetBit(vbits->mutable_data(), i);
        if (!all) bit_util::SetBit(bits->mutable_data(), i);
      } else if (saw_null) {
        ++nulls;
      } else {
        bit_util::SetBit(vbits->mutable_data(), i);
        if (all) bit_util::SetBit(bits->mutable_data(), i);
      }
    }
    return ArrayData::Make(out, n, {nulls ? std::shared_ptr<Buffer>(std::move(vbits)) : nullptr, std::move(bits)},
                           nulls);
  };
  r->Add(std::move(f));
}

// --- @>, <@, && ------------------------------------------------------------------------------

enum class SetTest { kContains, kContained, kOverlap };

void AddSetTest(FunctionRegistry* r, const char* name, SetTest test) {
  ScalarFunction f;
  f.name = name;
  f.args = {AnyType(), AnyType()};
  f.bind = [name](std::vector<TypeRef>* args, TypeRef* ret) -> Status {
    if ((*args)[0]->id != TypeId::kList || (*args)[1]->id != TypeId::kList) return NotAnArray(name, *args);
    QUIVER_ASSIGN_OR_RAISE(TypeRef c, CommonSuperType((*args)[0], (*args)[1], name));
    (*args)[0] = c;
    (*args)[1] = c;
    *ret = boolean();
    return Status::OK();
  };
  // NULL elements never match (PostgreSQL: ARRAY[NULL] <@ ARRAY[NULL] is false).
  f.kernel = [test](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                    const TypeRef& out) -> Result<ArrayRef> {
    ListAccess a(args[0]), b(args[1]);
    if (test == SetTest::kContained) std::swap(a, b);
    QUIVER_ASSIGN_OR_RAISE(auto o, kernels::MakeFixedOutput(out, args, n, ctx.pool));
    QUIVER_ASSIGN_OR_RAISE(auto bits, kernels::AllocateBitmap(n, ctx.pool));
    auto in = [](const ListAccess& l, int64_t i, const ArrayData& c, int64_t e) {
      for (int32_t k = l.begin(i); k < l.end(i); ++k) {
        if (!l.child->IsNull(k) && ElementsEqual(*l.child, k, c, e)) return true;
      }
      return false;
    };
    for (int64_t i = 0; i < n; ++i) {
      if (!a.valid(i) || !b.valid(i)) continue;
      bool r;
      if (test == SetTest::kOverlap) {
        r = false;
        for (int32_t k = b.begin(i); k < b.end(i) && !r; ++k) {
          if (!b.child->IsNull(k) && in(a, i, *b.child, k)) r = true;
        }
      } else {
        // a contains every element of b.
        r = true;
        for (int32_t k = b.begin(i); k < b.end(i) && r; ++k) {
          if (b.child->IsNull(k) || !in(a, i, *b.child, k)) r = false;
        }
      }
      if (r) bit_util::SetBit(bits->mutable_data(), i);
    }
    ArrayRef res = kernels::FinishFixed(boolean(), n, std::move(o));
    res->buffers[1] = std::move(bits);
    return res;
  };
  r->Add(std::move(f));
}

// --- unnest ------------------------------------------------------------------------------------

class UnnestCursor final : public TableFunctionCursor {
 public:
  explicit UnnestCursor(ArrayRef list) : list_(std::move(list)) {
    const int32_t* off = list_->GetValues<int32_t>(1);
    next_ = off[0];
    end_ = off[1];
  }
  Result<std::vector<ArrayRef>> Next(int64_t max_rows, MemoryPool* pool) override {
    const int64_t k = std::min<int64_t>(max_rows, end_ - next_);
    ArrayRef out = list_->children[0]->Slice(next_, std::max<int64_t>(k, 0));
    next_ += std::max<int64_t>(k, 0);
    return std::vector<ArrayRef>{std::move(out)};
  }

 private:
  ArrayRef list_;
  int64_t next_ = 0, end_ = 0;
};


// --- array_agg ---------------------------------------------------------------------------

// array_agg(x [ORDER BY k...]): every row's value (NULLs included) and
// sort keys; the final step sorts by the keys as __string_agg_ordered does
// ("AL" = ASC NULLS LAST ... one pair per key) and builds the array. The
// ordered form is __array_agg_ordered(x, spec, k...) (planner/bind_expression.cc).
struct AggRow {
  std::vector<Value> keys;
  Value value;
};

struct AggRows {
  std::vector<AggRow> rows;
  std::string spec;
  MemoryPool* pool;
  int64_t charged = 0;
};

struct AggState {
  AggRows* rows;
};

int64_t AggRowBytes(const AggRow& r) {
  int64_t bytes = static_cast<int64_t>(sizeof(AggRow) + r.value.str().size() + r.keys.size() * sizeof(Value));
  for (const Value& k : r.keys) bytes += static_cast<int64_t>(k.str().size());
  return bytes;
}

Status AddAggRow(AggState* st, AggRow row, const std::string& spec, MemoryPool* pool) {
  const int64_t bytes = AggRowBytes(row) + (st->rows == nullptr ? static_cast<int64_t>(sizeof(AggRows)) : 0);
  if (pool != nullptr) QUIVER_RETURN_NOT_OK(pool->Reserve(bytes));
  if (st->rows == nullptr) st->rows = new AggRows{{}, spec, pool, 0};
  st->rows->charged += bytes;
  st->rows->rows.push_back(std::move(row));
  return Status::OK();
}

bool AggLess(const AggRow& a, const AggRow& b, const std::string& spec) {
  for (size_t k = 0; k < a.keys.size(); ++k) {
    const bool desc = spec[2 * k] == 'D';
    const bool nulls_first = spec[2 * k + 1] == 'F';
    const Value& x = a.keys[k];
    const Value& y = b.keys[k];
    if (x.is_null() || y.is_null()) {
      if (x.is_null() && y.is_null()) continue;
      return x.is_null() == nulls_first;
    }
    const int c = x.Compare(y);
    if (c != 0) return desc ? c > 0 : c < 0;
  }
  return false;
}

AggregateFunction ArrayAgg(bool ordered) {
  AggregateFunction f;
  f.name = ordered ? "__array_agg_ordered" : "array_agg";
  f.args = {AnyType()};
  if (ordered) {
    f.args.push_back(utf8());
    f.varargs = AnyType();
  }
  f.bind = [](std::vector<TypeRef>* args, TypeRef* ret) -> Status {
    const TypeRef& t = (*args)[0];
    if (t->id == TypeId::kStruct || t->id == TypeId::kMap) {
      // Its rows are kept as Values, which cannot hold a struct or map.
      return Status::Unsupported("array_agg of a {} is not supported yet", t->id == TypeId::kStruct ? "struct" : "map")
          .WithSqlState(sqlstate::kFeatureNotSupported);
    }
    if (t->id == TypeId::kList) {
      return Status::Unsupported("array_agg of arrays: multidimensional arrays are not supported")
          .WithSqlState(sqlstate::kFeatureNotSupported);
    }
    if (IsJsonOrJsonb(*t)) {
      return Status::Unsupported("arrays of {}", PgTypeName(*t)).WithSqlState(sqlstate::kFeatureNotSupported);
    }
    if (t->id == TypeId::kNull) (*args)[0] = utf8();
    *ret = ArrayOf((*args)[0]);
    return Status::OK();
  };
  f.state_size = sizeof(AggState);
  f.init = [](uint8_t* s) { new (s) AggState{nullptr}; };
  f.update = [ordered](const std::vector<VectorRef>& args, int64_t n, uint8_t** states,
                       MemoryPool* pool) -> Status {
    for (int64_t i = 0; i < n; ++i) {
      AggRow row;
      std::string spec;
      if (ordered) {
        for (size_t k = 2; k < args.size(); ++k) row.keys.push_back(ValueFromArray(*args[k].array, args[k].index(i)));
        spec.assign(StringAccess(args[1])(i));
        if (spec.size() != 2 * row.keys.size()) return Status::UnknownError("array_agg: bad ORDER BY spec '{}'", spec);
      }
      row.value = ValueFromArray(*args[0].array, args[0].index(i));
      QUIVER_RETURN_NOT_OK(AddAggRow(reinterpret_cast<AggState*>(states[i]), std::move(row), spec, pool));
    }
    return Status::OK();
  };
  f.combine = [](const uint8_t* src, uint8_t* dst, MemoryPool* pool) -> Status {
    const auto* s = reinterpret_cast<const AggState*>(src);
    auto* d = reinterpret_cast<AggState*>(dst);
    if (s->rows == nullptr) return Status::OK();
    for (const AggRow& r : s->rows->rows) QUIVER_RETURN_NOT_OK(AddAggRow(d, r, s->rows->spec, pool));
    return Status::OK();
  };
  f.finalize = [](uint8_t** states, int64_t n, const TypeRef& out, MemoryPool* pool) -> Result<ArrayRef> {
    std::vector<Value> values;
    std::vector<int32_t> off{0};
    QUIVER_ASSIGN_OR_RAISE(auto bits, kernels::AllocateBitmap(n, pool));
    int64_t nulls = 0;
    for (int64_t i = 0; i < n; ++i) {
      auto* st = reinterpret_cast<AggState*>(states[i]);
      if (st->rows == nullptr) {
        ++nulls;
      } else {
        std::vector<AggRow>& rows = st->rows->rows;
        const std::string& spec = st->rows->spec;
        if (!spec.empty()) {
          std::stable_sort(rows.begin(), rows.end(), [&](const AggRow& a, const AggRow& b) { return AggLess(a, b, spec); });
        }
        for (const AggRow& r : rows) values.push_back(r.value);
        bit_util::SetBit(bits->mutable_data(), i);
      }
      off.push_back(static_cast<int32_t>(values.size()));
    }
    QUIVER_ASSIGN_OR_RAISE(ArrayRef elements, ArrayFromValues(values, out->children[0]->type, pool));
    QUIVER_ASSIGN_OR_RAISE(auto offsets, kernels::AllocateValues(n + 1, 4, pool));
    std::copy(off.begin(), off.end(), offsets->mutable_data_as<int32_t>());
    return ArrayData::Make(out, n, {nulls ? std::shared_ptr<Buffer>(std::move(bits)) : nullptr, std::move(offsets)},
                           nulls, 0, {std::move(elements)});
  };
  f.destroy = [](uint8_t* s) {
    auto* st = reinterpret_cast<AggState*>(s);
    if (st->rows != nullptr) {
      MemoryPool* pool = st->rows->pool;
      const int64_t charged = st->rows->charged;
      delete st->rows;
      if (pool != nullptr && charged > 0) pool->Release(charged);
    }
    st->rows = nullptr;
  };
  return f;
}

}  // namespace

void RegisterArrayFunctions(FunctionRegistry* r) {
  r->Add(ArrayAgg(false));
  r->Add(ArrayAgg(true));
  AddConstructor(r);
  AddSubscript(r);
  AddSlice(r, "__array_slice", true, true);
  AddSlice(r, "__array_slice_from", true, false);
  AddSlice(r, "__array_slice_to", false, true);
  AddSlice(r, "__array_slice_all", false, false);
  AddSizes(r);
  AddPosition(r, false);
  AddPosition(r, true);
  AddConcatenation(r);
  AddText(r, false);
  AddText(r, true);
  for (const char* op : {"=", "<>", "<", "<=", ">", ">="}) {
    AddQuantified(r, op, false);
    AddQuantified(r, op, true);
  }
  AddSetTest(r, "__array_contains", SetTest::kContains);
  AddSetTest(r, "__array_contained", SetTest::kContained);
  AddSetTest(r, "__array_overlap", SetTest::kOverlap);
}

void RegisterUnnest(TableFunctionRegistry* r) {
  TableFunction f;
  f.name = "unnest";
  f.args = {AnyType()};
  f.column_names = {"unnest"};
  f.bind = [](const std::vector<TypeRef>& args, std::vector<TypeRef>* columns) -> Status {
    if (args[0]->id != TypeId::kList) {
      return NotAnArray("unnest", args);
    }
    *columns = {ArrayElementType(*args[0])};
    return Status::OK();
  };
  f.start_slots = [](const std::vector<ArrayRef>& slots,
                     const std::vector<TypeRef>&) -> Result<std::unique_ptr<TableFunctionCursor>> {
    return std::unique_ptr<TableFunctionCursor>(std::make_unique<UnnestCursor>(slots[0]));
  };
  r->Add(std::move(f));
}

}  // namespace quiver
