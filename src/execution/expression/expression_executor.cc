// Expression evaluation (see expression_executor.h).
#include "execution/expression/expression_executor.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <string>
#include <unordered_set>

#include "functions/cast.h"
#include "functions/kernel_util.h"
#include "vector/sql_type.h"

namespace quiver::exec {

using kernels::BoolAccess;
using kernels::StringAccess;
using kernels::ValidAccess;
using plan::Expression;
using plan::ExprType;

namespace {

struct Int128Hash {
  size_t operator()(int128_t v) const {
    return std::hash<uint64_t>()(static_cast<uint64_t>(v)) ^
           (std::hash<uint64_t>()(static_cast<uint64_t>(v >> 64)) * 31);
  }
};

// Positions 0..n-1 of `rows` (absolute chunk rows, or null = identity).
inline uint32_t Abs(const uint32_t* rows, int64_t i) {
  return rows ? rows[i] : static_cast<uint32_t>(i);
}

}  // namespace

struct ExpressionExecutor::Node {
  const Expression* expr = nullptr;
  std::vector<std::unique_ptr<Node>> children;
  ArrayRef constant;  // kConstant: a length-1 array

  // kIn over constants.
  bool in_has_null = false;
  std::unordered_set<int64_t> in_ints;
  std::unordered_set<int128_t, Int128Hash> in_decimals;
  std::set<double> in_doubles;
  std::unordered_set<std::string> in_strings;
  bool in_true = false, in_false = false;

  std::vector<uint32_t> scratch_a, scratch_b;
};

namespace {

using Node = ExpressionExecutor::Node;

Status Prepare(Node* node, const Expression* e) {
  node->expr = e;
  switch (e->type) {
    case ExprType::kConstant: {
      QUIVER_ASSIGN_OR_RAISE(node->constant,
                             MakeArrayFromValue(e->As<plan::ConstantExpression>().value, 1));
      break;
    }
    case ExprType::kIn: {
      const TypeRef& t = e->children[0]->return_type;
      for (size_t i = 1; i < e->children.size(); ++i) {
        const Expression& item = *e->children[i];
        if (item.type != ExprType::kConstant)
          return Status::Invalid("IN list item is not constant");
        const Value& v = item.As<plan::ConstantExpression>().value;
        if (v.is_null()) {
          node->in_has_null = true;
          continue;
        }
        switch (t->id) {
          case TypeId::kFloat:
          case TypeId::kDouble:
            node->in_doubles.insert(v.floating());
            break;
          case TypeId::kDecimal128:
            node->in_decimals.insert(v.decimal());
            break;
          case TypeId::kString:
          case TypeId::kBinary:
            node->in_strings.insert(v.str());
            break;
          case TypeId::kBool:
            (v.boolean() ? node->in_true : node->in_false) = true;
            break;
          case TypeId::kIntervalMonthDayNano:
            return Status::Unsupported("IN lists of intervals");
          default:
            node->in_ints.insert(v.integer());
            break;
        }
      }
      // Only the probe is evaluated.
      auto child = std::make_unique<Node>();
      QUIVER_RETURN_NOT_OK(Prepare(child.get(), e->children[0].get()));
      node->children.push_back(std::move(child));
      return Status::OK();
    }
    case ExprType::kColumnRef:
      return Status::Invalid("unresolved column reference {} in a physical plan", e->ToString());
    case ExprType::kAggregate:
    case ExprType::kSubquery:
    case ExprType::kWindow:
      return Status::Invalid("{} cannot be evaluated as a scalar expression", e->ToString());
    default:
      break;
  }
  for (const auto& c : e->children) {
    auto child = std::make_unique<Node>();
    QUIVER_RETURN_NOT_OK(Prepare(child.get(), c.get()));
    node->children.push_back(std::move(child));
  }
  return Status::OK();
}

class Evaluator {
 public:
  Evaluator(MemoryPool* pool, const DataChunk& chunk) : pool_(pool), chunk_(chunk) {}

  MemoryPool* pool() { return pool_; }

  // Value of `node` for rows (absolute; null = all n rows of the chunk).
  Result<EvalResult> Eval(Node* node, const uint32_t* rows, int64_t n);
  // TRUE rows among `rows` (absolute positions out, ascending).
  Result<int64_t> Select(Node* node, const uint32_t* rows, int64_t n, uint32_t* out);

 private:
  Result<EvalResult> EvalColumn(const Expression& e, const uint32_t* rows, int64_t n);
  Result<EvalResult> EvalAndOr(Node* node, const uint32_t* rows, int64_t n, bool is_and);
  Result<EvalResult> EvalCase(Node* node, const uint32_t* rows, int64_t n);
  Result<EvalResult> EvalCoalesce(Node* node, const uint32_t* rows, int64_t n);
  Result<EvalResult> EvalIn(Node* node, const uint32_t* rows, int64_t n);
  // A function's arguments on the rows: `args` keeps what `refs` read.
  Status EvalArguments(Node* node, const uint32_t* rows, int64_t n, std::vector<EvalResult>* args,
                       std::vector<VectorRef>* refs);

  struct Piece {
    std::vector<uint32_t> positions;  // relative 0..n-1, ascending
    EvalResult value;
  };
  Result<ArrayRef> Assemble(const TypeRef& type, int64_t n, std::vector<Piece>& pieces);

  static EvalResult Owned(ArrayRef a) {
    EvalResult r;
    r.owned = std::move(a);
    r.ref = VectorRef{r.owned.get(), nullptr, false};
    return r;
  }

  // Absolute rows of the relative positions `rel` into `rows`.
  static std::vector<uint32_t> ToAbsolute(const uint32_t* rows, const std::vector<uint32_t>& rel) {
    std::vector<uint32_t> out(rel.size());
    for (size_t i = 0; i < rel.size(); ++i) out[i] = Abs(rows, rel[i]);
    return out;
  }
  // Relative positions in `rows` of the (ascending) absolute rows `abs`.
  static std::vector<uint32_t> ToRelative(const uint32_t* rows, int64_t n, const uint32_t* abs,
                                          int64_t k) {
    std::vector<uint32_t> out;
    out.reserve(static_cast<size_t>(k));
    if (rows == nullptr) {
      out.assign(abs, abs + k);
      return out;
    }
    int64_t j = 0;
    for (int64_t i = 0; i < n && j < k; ++i) {
      if (rows[i] == abs[j]) {
        out.push_back(static_cast<uint32_t>(i));
        ++j;
      }
    }
    return out;
  }

  MemoryPool* pool_;
  const DataChunk& chunk_;
};

Result<EvalResult> Evaluator::EvalColumn(const Expression& e, const uint32_t* rows, int64_t n) {
  const ArrayRef& col = chunk_.columns[static_cast<size_t>(e.As<plan::BoundRefExpression>().index)];
  EvalResult r;
  r.owned = col;
  const uint32_t* csel = chunk_.sel_data();
  if (rows == nullptr) {
    r.ref = VectorRef{col.get(), csel, false};
    return r;
  }
  r.sel = std::make_shared<std::vector<uint32_t>>(static_cast<size_t>(n));
  uint32_t* s = r.sel->data();
  if (csel) {
    for (int64_t i = 0; i < n; ++i) s[i] = csel[rows[i]];
  } else {
    std::memcpy(s, rows, static_cast<size_t>(n) * sizeof(uint32_t));
  }
  r.ref = VectorRef{col.get(), s, false};
  return r;
}

Result<EvalResult> Evaluator::Eval(Node* node, const uint32_t* rows, int64_t n) {
  const Expression& e = *node->expr;
  switch (e.type) {
    case ExprType::kBoundRef:
      return EvalColumn(e, rows, n);
    case ExprType::kConstant: {
      EvalResult r;
      r.owned = node->constant;
      r.ref = VectorRef{node->constant.get(), nullptr, true};
      return r;
    }
    case ExprType::kFunction: {
      std::vector<EvalResult> args;
      std::vector<VectorRef> refs;
      QUIVER_RETURN_NOT_OK(EvalArguments(node, rows, n, &args, &refs));
      KernelContext kctx{pool()};
      QUIVER_ASSIGN_OR_RAISE(
          ArrayRef out,
          e.As<plan::FunctionExpression>().function.function->kernel(kctx, refs, n, e.return_type));
      return Owned(std::move(out));
    }
    case ExprType::kCast: {
      QUIVER_ASSIGN_OR_RAISE(EvalResult a, Eval(node->children[0].get(), rows, n));
      QUIVER_ASSIGN_OR_RAISE(ArrayRef out, CastVector(a.ref, n, e.return_type, pool()));
      return Owned(std::move(out));
    }
    case ExprType::kAnd:
    case ExprType::kOr:
      return EvalAndOr(node, rows, n, e.type == ExprType::kAnd);
    case ExprType::kNot: {
      QUIVER_ASSIGN_OR_RAISE(EvalResult a, Eval(node->children[0].get(), rows, n));
      QUIVER_ASSIGN_OR_RAISE(auto out, kernels::MakeFixedOutput(boolean(), {a.ref}, n, pool()));
      BoolAccess get(a.ref);
      uint8_t* bits = out.values->mutable_data();
      for (int64_t i = 0; i < n; ++i) {
        if (!get(i)) bit_util::SetBit(bits, i);
      }
      return Owned(kernels::FinishFixed(boolean(), n, std::move(out)));
    }
    case ExprType::kIsNull:
    case ExprType::kIsNotNull: {
      QUIVER_ASSIGN_OR_RAISE(EvalResult a, Eval(node->children[0].get(), rows, n));
      QUIVER_ASSIGN_OR_RAISE(auto bits, kernels::AllocateBitmap(n, pool()));
      ValidAccess valid(a.ref);
      const bool want_null = e.type == ExprType::kIsNull;
      for (int64_t i = 0; i < n; ++i) {
        if (valid(i) != want_null) bit_util::SetBit(bits->mutable_data(), i);
      }
      return Owned(ArrayData::Make(boolean(), n, {nullptr, std::move(bits)}, 0));
    }
    case ExprType::kCase:
      return EvalCase(node, rows, n);
    case ExprType::kCoalesce:
      return EvalCoalesce(node, rows, n);
    case ExprType::kIn:
      return EvalIn(node, rows, n);
    default:
      return Status::Invalid("cannot evaluate {}", e.ToString());
  }
}

Result<EvalResult> Evaluator::EvalAndOr(Node* node, const uint32_t* rows, int64_t n, bool is_and) {
  // State per row: 0 = FALSE, 1 = TRUE, 2 = NULL; decided rows skip later children.
  std::vector<uint8_t> state(static_cast<size_t>(n), is_and ? 1 : 0);
  std::vector<uint32_t> pending(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) pending[static_cast<size_t>(i)] = static_cast<uint32_t>(i);
  const uint8_t decisive = is_and ? 0 : 1;
  for (auto& c : node->children) {
    if (pending.empty()) break;
    const bool all = static_cast<int64_t>(pending.size()) == n;
    std::vector<uint32_t> abs;
    if (!all) abs = ToAbsolute(rows, pending);
    QUIVER_ASSIGN_OR_RAISE(
        EvalResult r, Eval(c.get(), all ? rows : abs.data(), static_cast<int64_t>(pending.size())));
    BoolAccess get(r.ref);
    ValidAccess valid(r.ref);
    std::vector<uint32_t> next;
    next.reserve(pending.size());
    for (size_t k = 0; k < pending.size(); ++k) {
      const uint32_t i = pending[k];
      uint8_t v = valid(static_cast<int64_t>(k)) ? (get(static_cast<int64_t>(k)) ? 1 : 0) : 2;
      if (v == decisive) {
        state[i] = decisive;
      } else {
        if (v == 2) state[i] = 2;
        next.push_back(i);
      }
    }
    pending.swap(next);
  }
  QUIVER_ASSIGN_OR_RAISE(auto bits, kernels::AllocateBitmap(n, pool()));
  QUIVER_ASSIGN_OR_RAISE(auto validity, kernels::AllocateBitmap(n, pool()));
  int64_t nulls = 0;
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t s = state[static_cast<size_t>(i)];
    if (s == 2) {
      ++nulls;
      continue;
    }
    bit_util::SetBit(validity->mutable_data(), i);
    if (s == 1) bit_util::SetBit(bits->mutable_data(), i);
  }
  return Owned(ArrayData::Make(boolean(), n,
                               {nulls ? std::shared_ptr<Buffer>(validity) : nullptr, bits}, nulls));
}

Result<ArrayRef> Evaluator::Assemble(const TypeRef& type, int64_t n, std::vector<Piece>& pieces) {
  if (pieces.size() == 1 && static_cast<int64_t>(pieces[0].positions.size()) == n) {
    return kernels::Materialize(pieces[0].value.ref, n, pool());
  }
  QUIVER_ASSIGN_OR_RAISE(auto validity, kernels::AllocateBitmap(n, pool()));
  uint8_t* vbits = validity->mutable_data();
  int64_t valid_count = 0;
  if (type->id == TypeId::kNull) return MakeArrayOfNull(type, n, pool());
  if (type->id == TypeId::kList || type->id == TypeId::kStruct || type->id == TypeId::kMap) {
    // Arrays (and structs, maps): the pieces made dense and put one after the other (a NULL
    // first, for the rows no piece covers), then gathered in row order.
    std::vector<ArrayRef> parts;
    QUIVER_ASSIGN_OR_RAISE(ArrayRef null_row, MakeArrayOfNull(type, 1, pool()));
    parts.push_back(null_row);
    std::vector<uint32_t> sel(static_cast<size_t>(n), 0);
    uint32_t base = 1;
    for (auto& p : pieces) {
      const int64_t k = static_cast<int64_t>(p.positions.size());
      ArrayRef dense;
      if (p.value.ref.array->type->id == TypeId::kNull) {
        QUIVER_ASSIGN_OR_RAISE(dense, MakeArrayOfNull(type, k, pool()));
      } else {
        QUIVER_ASSIGN_OR_RAISE(dense, kernels::Materialize(p.value.ref, k, pool()));
      }
      for (int64_t j = 0; j < k; ++j) sel[p.positions[static_cast<size_t>(j)]] = base + static_cast<uint32_t>(j);
      base += static_cast<uint32_t>(k);
      parts.push_back(std::move(dense));
    }
    QUIVER_ASSIGN_OR_RAISE(ArrayRef all, Concatenate(parts, pool()));
    return kernels::Materialize(VectorRef{all.get(), sel.data(), false}, n, pool());
  }
  if (type->id == TypeId::kString || type->id == TypeId::kBinary) {
    std::vector<std::string_view> views(static_cast<size_t>(n));
    for (auto& p : pieces) {
      if (p.value.ref.array->type->id == TypeId::kNull) continue;
      StringAccess get(p.value.ref);
      ValidAccess valid(p.value.ref);
      for (size_t j = 0; j < p.positions.size(); ++j) {
        if (!valid(static_cast<int64_t>(j))) continue;
        views[p.positions[j]] = get(static_cast<int64_t>(j));
        bit_util::SetBit(vbits, p.positions[j]);
      }
    }
    StringBuilder b(type, pool());
    QUIVER_RETURN_NOT_OK(b.Reserve(n));
    for (int64_t i = 0; i < n; ++i) {
      if (bit_util::GetBit(vbits, i)) {
        QUIVER_RETURN_NOT_OK(b.Append(views[static_cast<size_t>(i)]));
      } else {
        QUIVER_RETURN_NOT_OK(b.AppendNull());
      }
    }
    return b.Finish();
  }
  if (type->id == TypeId::kBool) {
    QUIVER_ASSIGN_OR_RAISE(auto bits, kernels::AllocateBitmap(n, pool()));
    for (auto& p : pieces) {
      if (p.value.ref.array->type->id == TypeId::kNull) continue;
      BoolAccess get(p.value.ref);
      ValidAccess valid(p.value.ref);
      for (size_t j = 0; j < p.positions.size(); ++j) {
        if (!valid(static_cast<int64_t>(j))) continue;
        bit_util::SetBit(vbits, p.positions[j]);
        ++valid_count;
        if (get(static_cast<int64_t>(j))) bit_util::SetBit(bits->mutable_data(), p.positions[j]);
      }
    }
    const int64_t nulls = n - valid_count;
    return ArrayData::Make(type, n, {nulls ? std::shared_ptr<Buffer>(validity) : nullptr, bits},
                           nulls);
  }
  const int width = type->byte_width_of_values();
  QUIVER_ASSIGN_OR_RAISE(auto values, kernels::AllocateValues(n, width, pool()));
  uint8_t* dst = values->mutable_data();
  for (auto& p : pieces) {
    const VectorRef& ref = p.value.ref;
    if (ref.array->type->id == TypeId::kNull) continue;
    ValidAccess valid(ref);
    const uint8_t* src = ref.array->GetRaw<uint8_t>(1) + ref.array->offset * width;
    for (size_t j = 0; j < p.positions.size(); ++j) {
      if (!valid(static_cast<int64_t>(j))) continue;
      std::memcpy(dst + static_cast<int64_t>(p.positions[j]) * width,
                  src + ref.index(static_cast<int64_t>(j)) * width, static_cast<size_t>(width));
      bit_util::SetBit(vbits, p.positions[j]);
      ++valid_count;
    }
  }
  const int64_t nulls = n - valid_count;
  return ArrayData::Make(type, n, {nulls ? std::shared_ptr<Buffer>(validity) : nullptr, values},
                         nulls);
}

Result<EvalResult> Evaluator::EvalCase(Node* node, const uint32_t* rows, int64_t n) {
  const Expression& e = *node->expr;
  std::vector<Piece> pieces;
  std::vector<uint32_t> remaining(static_cast<size_t>(n));  // relative
  for (int64_t i = 0; i < n; ++i) remaining[static_cast<size_t>(i)] = static_cast<uint32_t>(i);
  std::vector<uint32_t> abs_buf, sel_buf;
  const size_t whens = node->children.size() / 2;
  for (size_t w = 0; w < whens && !remaining.empty(); ++w) {
    abs_buf = ToAbsolute(rows, remaining);
    sel_buf.resize(abs_buf.size());
    QUIVER_ASSIGN_OR_RAISE(int64_t k, Select(node->children[2 * w].get(), abs_buf.data(),
                                             static_cast<int64_t>(abs_buf.size()), sel_buf.data()));
    if (k == 0) continue;
    Piece piece;
    piece.positions = ToRelative(rows, n, sel_buf.data(), k);
    QUIVER_ASSIGN_OR_RAISE(piece.value, Eval(node->children[2 * w + 1].get(), sel_buf.data(), k));
    // remaining -= piece.positions (both ascending)
    std::vector<uint32_t> rest;
    rest.reserve(remaining.size());
    std::set_difference(remaining.begin(), remaining.end(), piece.positions.begin(),
                        piece.positions.end(), std::back_inserter(rest));
    remaining.swap(rest);
    pieces.push_back(std::move(piece));
  }
  if (!remaining.empty()) {
    Piece piece;
    abs_buf = ToAbsolute(rows, remaining);
    QUIVER_ASSIGN_OR_RAISE(piece.value, Eval(node->children.back().get(), abs_buf.data(),
                                             static_cast<int64_t>(abs_buf.size())));
    piece.positions = std::move(remaining);
    pieces.push_back(std::move(piece));
  }
  QUIVER_ASSIGN_OR_RAISE(ArrayRef out, Assemble(e.return_type, n, pieces));
  return Owned(std::move(out));
}

Result<EvalResult> Evaluator::EvalCoalesce(Node* node, const uint32_t* rows, int64_t n) {
  const Expression& e = *node->expr;
  std::vector<Piece> pieces;
  std::vector<uint32_t> remaining(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) remaining[static_cast<size_t>(i)] = static_cast<uint32_t>(i);
  for (size_t c = 0; c < node->children.size() && !remaining.empty(); ++c) {
    const bool all = static_cast<int64_t>(remaining.size()) == n;
    std::vector<uint32_t> abs;
    if (!all) abs = ToAbsolute(rows, remaining);
    QUIVER_ASSIGN_OR_RAISE(EvalResult r, Eval(node->children[c].get(), all ? rows : abs.data(),
                                              static_cast<int64_t>(remaining.size())));
    ValidAccess valid(r.ref);
    const bool last = c + 1 == node->children.size();
    Piece piece;
    std::vector<uint32_t> rest;
    std::vector<uint32_t> local;  // positions within this evaluation
    for (size_t k = 0; k < remaining.size(); ++k) {
      if (last || valid(static_cast<int64_t>(k))) {
        piece.positions.push_back(remaining[k]);
        local.push_back(static_cast<uint32_t>(k));
      } else {
        rest.push_back(remaining[k]);
      }
    }
    if (!piece.positions.empty()) {
      // Re-base the result onto the piece's rows.
      if (local.size() == remaining.size()) {
        piece.value = std::move(r);
      } else {
        QUIVER_ASSIGN_OR_RAISE(
            ArrayRef full,
            kernels::Materialize(r.ref, static_cast<int64_t>(remaining.size()), pool()));
        auto sel = std::make_shared<std::vector<uint32_t>>(std::move(local));
        piece.value.owned = full;
        piece.value.sel = sel;
        piece.value.ref = VectorRef{full.get(), sel->data(), false};
      }
      pieces.push_back(std::move(piece));
    }
    remaining.swap(rest);
  }
  QUIVER_ASSIGN_OR_RAISE(ArrayRef out, Assemble(e.return_type, n, pieces));
  return Owned(std::move(out));
}

Status Evaluator::EvalArguments(Node* node, const uint32_t* rows, int64_t n,
                                std::vector<EvalResult>* args, std::vector<VectorRef>* refs) {
  args->reserve(node->children.size());
  for (auto& c : node->children) {
    QUIVER_ASSIGN_OR_RAISE(EvalResult a, Eval(c.get(), rows, n));
    args->push_back(std::move(a));
  }
  refs->reserve(args->size());
  for (auto& a : *args) refs->push_back(a.ref);
  return Status::OK();
}

Result<EvalResult> Evaluator::EvalIn(Node* node, const uint32_t* rows, int64_t n) {
  const bool negated = node->expr->As<plan::InExpression>().negated;
  QUIVER_ASSIGN_OR_RAISE(EvalResult probe, Eval(node->children[0].get(), rows, n));
  const VectorRef& v = probe.ref;
  QUIVER_ASSIGN_OR_RAISE(auto bits, kernels::AllocateBitmap(n, pool()));
  QUIVER_ASSIGN_OR_RAISE(auto validity, kernels::AllocateBitmap(n, pool()));
  ValidAccess valid(v);
  const TypeId id = v.array->type->id;
  int64_t nulls = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!valid(i)) {
      ++nulls;
      continue;
    }
    bool found = false;
    const int64_t s = v.index(i);
    switch (id) {
      case TypeId::kInt16:
        found = node->in_ints.count(v.values<int16_t>()[s]) > 0;
        break;
      case TypeId::kInt32:
      case TypeId::kDate32:
        found = node->in_ints.count(v.values<int32_t>()[s]) > 0;
        break;
      case TypeId::kFloat:
        found = node->in_doubles.count(v.values<float>()[s]) > 0;
        break;
      case TypeId::kDouble:
        found = node->in_doubles.count(v.values<double>()[s]) > 0;
        break;
      case TypeId::kDecimal128:
        found = node->in_decimals.count(LoadValue(v.values<int128_t>() + s)) > 0;
        break;
      case TypeId::kString:
      case TypeId::kBinary:
        found = node->in_strings.count(std::string(StringAccess(v)(i))) > 0;
        break;
      case TypeId::kBool:
        found = BoolAccess(v)(i) ? node->in_true : node->in_false;
        break;
      default:
        found = node->in_ints.count(v.values<int64_t>()[s]) > 0;
        break;
    }
    if (found) {
      bit_util::SetBit(validity->mutable_data(), i);
      if (!negated) bit_util::SetBit(bits->mutable_data(), i);
    } else if (node->in_has_null) {
      ++nulls;
    } else {
      bit_util::SetBit(validity->mutable_data(), i);
      if (negated) bit_util::SetBit(bits->mutable_data(), i);
    }
  }
  return Owned(ArrayData::Make(boolean(), n,
                               {nulls ? std::shared_ptr<Buffer>(validity) : nullptr, bits}, nulls));
}

Result<int64_t> Evaluator::Select(Node* node, const uint32_t* rows, int64_t n, uint32_t* out) {
  const Expression& e = *node->expr;
  switch (e.type) {
    case ExprType::kAnd: {
      // Each conjunct narrows the rows the next one sees.
      std::vector<uint32_t> cur, next(static_cast<size_t>(n));
      const uint32_t* cur_rows = rows;
      int64_t cur_n = n;
      bool narrowed = false;
      for (auto& c : node->children) {
        QUIVER_ASSIGN_OR_RAISE(int64_t k, Select(c.get(), cur_rows, cur_n, next.data()));
        cur.assign(next.begin(), next.begin() + k);
        cur_rows = cur.data();
        cur_n = k;
        narrowed = true;
        if (k == 0) break;
      }
      if (!narrowed) {
        for (int64_t i = 0; i < n; ++i) out[i] = Abs(rows, i);
        return n;
      }
      std::copy(cur.begin(), cur.begin() + cur_n, out);
      return cur_n;
    }
    case ExprType::kOr: {
      std::vector<uint32_t> selected, remaining, tmp(static_cast<size_t>(n));
      remaining.resize(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) remaining[static_cast<size_t>(i)] = Abs(rows, i);
      for (auto& c : node->children) {
        if (remaining.empty()) break;
        QUIVER_ASSIGN_OR_RAISE(
            int64_t k,
            Select(c.get(), remaining.data(), static_cast<int64_t>(remaining.size()), tmp.data()));
        if (k == 0) continue;
        std::vector<uint32_t> merged, rest;
        std::merge(selected.begin(), selected.end(), tmp.begin(), tmp.begin() + k,
                   std::back_inserter(merged));
        std::set_difference(remaining.begin(), remaining.end(), tmp.begin(), tmp.begin() + k,
                            std::back_inserter(rest));
        selected.swap(merged);
        remaining.swap(rest);
      }
      std::copy(selected.begin(), selected.end(), out);
      return static_cast<int64_t>(selected.size());
    }
    case ExprType::kConstant: {
      const Value& v = e.As<plan::ConstantExpression>().value;
      const bool t = !v.is_null() && v.type()->id == TypeId::kBool && v.boolean();
      if (!t) return 0;
      for (int64_t i = 0; i < n; ++i) out[i] = Abs(rows, i);
      return n;
    }
    case ExprType::kFunction:
      if (e.As<plan::FunctionExpression>().function.function->select) {
        std::vector<EvalResult> args;
        std::vector<VectorRef> refs;
        QUIVER_RETURN_NOT_OK(EvalArguments(node, rows, n, &args, &refs));
        KernelContext kctx{pool()};
        QUIVER_ASSIGN_OR_RAISE(
            int64_t k,
            e.As<plan::FunctionExpression>().function.function->select(kctx, refs, n, out));
        if (rows != nullptr) {
          for (int64_t i = 0; i < k; ++i) out[i] = rows[out[i]];
        }
        return k;
      }
      break;
    default:
      break;
  }
  // Generic: evaluate to booleans.
  QUIVER_ASSIGN_OR_RAISE(EvalResult r, Eval(node, rows, n));
  if (r.ref.array->type->id == TypeId::kNull) return 0;
  BoolAccess get(r.ref);
  ValidAccess valid(r.ref);
  int64_t k = 0;
  if (valid.always_valid()) {
    for (int64_t i = 0; i < n; ++i) {
      out[k] = Abs(rows, i);
      k += get(i);
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      out[k] = Abs(rows, i);
      k += valid(i) & get(i);
    }
  }
  return k;
}

}  // namespace

ExpressionExecutor::ExpressionExecutor(MemoryPool* pool, const plan::Expression* expr)
    : pool_(pool != nullptr ? pool : DefaultMemoryPool()), expr_(expr) {}

ExpressionExecutor::~ExpressionExecutor() = default;

Result<EvalResult> ExpressionExecutor::Execute(const DataChunk& chunk) {
  if (root_ == nullptr) {
    root_ = std::make_unique<Node>();
    QUIVER_RETURN_NOT_OK(Prepare(root_.get(), expr_));
  }
  Evaluator ev(pool_, chunk);
  return ev.Eval(root_.get(), nullptr, chunk.num_rows);
}

Result<ArrayRef> ExpressionExecutor::ExecuteToArray(const DataChunk& chunk) {
  QUIVER_ASSIGN_OR_RAISE(EvalResult r, Execute(chunk));
  // Constants expand to the chunk's length.
  return kernels::Materialize(r.ref, chunk.num_rows, pool_);
}

Result<int64_t> ExpressionExecutor::Select(const DataChunk& chunk, uint32_t* out) {
  if (root_ == nullptr) {
    root_ = std::make_unique<Node>();
    QUIVER_RETURN_NOT_OK(Prepare(root_.get(), expr_));
  }
  Evaluator ev(pool_, chunk);
  return ev.Select(root_.get(), nullptr, chunk.num_rows, out);
}

Result<Value> EvaluateConstant(const plan::Expression& expr) {
  DataChunk chunk;
  chunk.num_rows = 1;
  ExpressionExecutor ex(nullptr, &expr);
  QUIVER_ASSIGN_OR_RAISE(EvalResult r, ex.Execute(chunk));
  return ValueFromArray(*r.ref.array, r.ref.index(0));
}

}  // namespace quiver::exec
