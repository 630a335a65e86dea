// Casts to and from SQL arrays (list<item: T>): array -> text (PostgreSQL's
// array_out), text -> array (array_in, for the element type's dimensions),
// array -> array (element by element).
#include "functions/array_cast.h"

#include <string>
#include <vector>

#include "columnar/pretty_print.h"
#include "functions/cast.h"
#include "functions/kernel_util.h"
#include "vector/sql_type.h"

namespace quiver {

using kernels::StringAccess;

namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

Status Malformed(std::string_view text, const char* detail) {
  return Status::Invalid("malformed array literal: \"{}\"", text)
      .WithSqlState(sqlstate::kInvalidTextRepresentation)
      .WithDetail(detail);
}

// One parsed element: NULL, a scalar's text, or a sub-array.
struct Node {
  bool is_null = false;
  bool is_list = false;
  std::string text;
  std::vector<Node> items;
};

class ArrayTextParser {
 public:
  ArrayTextParser(std::string_view s, int dims) : s_(s), dims_(dims) {}

  Status Parse(Node* out) {
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == '[') {
      return Status::Unsupported("array dimension decorations ([lower:upper]=) are not supported")
          .WithSqlState(sqlstate::kFeatureNotSupported);
    }
    if (pos_ >= s_.size() || s_[pos_] != '{') {
      return Malformed(s_, "Array value must start with \"{\" or dimension information.");
    }
    QUIVER_RETURN_NOT_OK(ParseList(1, out));
    SkipSpace();
    if (pos_ != s_.size()) return Malformed(s_, "Junk after closing right brace.");
    return Status::OK();
  }

 private:
  void SkipSpace() {
    while (pos_ < s_.size() && IsSpace(s_[pos_])) ++pos_;
  }

  // At '{' of a list at nesting `depth` (1 = outermost).
  Status ParseList(int depth, Node* out) {
    out->is_list = true;
    ++pos_;  // '{'
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == '}') {
      ++pos_;
      return Status::OK();
    }
    for (;;) {
      SkipSpace();
      if (pos_ >= s_.size()) return Malformed(s_, "Unexpected end of input.");
      Node item;
      if (s_[pos_] == '{') {
        if (depth >= dims_) {
          return Status::Unsupported(
                     "multidimensional arrays are not supported: \"{}\" has more dimensions than type {}",
                     s_, dims_ == 1 ? "T[]" : "of the target")
              .WithSqlState(sqlstate::kFeatureNotSupported)
              .WithHint("Quiver's arrays are one-dimensional (lists of lists come only from files).");
        }
        QUIVER_RETURN_NOT_OK(ParseList(depth + 1, &item));
      } else {
        if (depth < dims_) return Malformed(s_, "Unexpected array element.");
        QUIVER_RETURN_NOT_OK(ParseScalar(&item));
      }
      out->items.push_back(std::move(item));
      SkipSpace();
      if (pos_ >= s_.size()) return Malformed(s_, "Unexpected end of input.");
      if (s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (s_[pos_] == '}') {
        ++pos_;
        return Status::OK();
      }
      return Malformed(s_, "Unexpected array element.");
    }
  }

  Status ParseScalar(Node* out) {
    if (s_[pos_] == '"') {
      ++pos_;
      for (;;) {
        if (pos_ >= s_.size()) return Malformed(s_, "Unexpected end of input.");
        const char c = s_[pos_++];
        if (c == '"') break;
        if (c == '\\') {
          if (pos_ >= s_.size()) return Malformed(s_, "Unexpected end of input.");
          out->text += s_[pos_++];
        } else {
          out->text += c;
        }
      }
      return Status::OK();
    }
    bool escaped = false;
    size_t keep = 0;  // length without trailing unescaped white space
    for (;;) {
      if (pos_ >= s_.size()) return Malformed(s_, "Unexpected end of input.");
      const char c = s_[pos_];
      if (c == ',' || c == '}') break;
      if (c == '{' || c == '"') return Malformed(s_, "Unexpected array element.");
      ++pos_;
      if (c == '\\') {
        if (pos_ >= s_.size()) return Malformed(s_, "Unexpected end of input.");
        out->text += s_[pos_++];
        escaped = true;
        keep = out->text.size();
      } else {
        out->text += c;
        if (!IsSpace(c)) keep = out->text.size();
      }
    }
    out->text.resize(keep);
    if (out->text.empty()) return Malformed(s_, "Unexpected \",\" character.");
    if (!escaped && out->text.size() == 4) {
      std::string up = out->text;
      for (char& ch : up) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      if (up == "NULL") out->is_null = true;
    }
    return Status::OK();
  }

  std::string_view s_;
  int dims_;
  size_t pos_ = 0;
};

// Arrays of `type` from parsed nodes (nullptr = a NULL array).
Result<ArrayRef> BuildLevel(const std::vector<const Node*>& nodes, const TypeRef& type, MemoryPool* pool) {
  const int64_t n = static_cast<int64_t>(nodes.size());
  if (type->id == TypeId::kList) {
    QUIVER_ASSIGN_OR_RAISE(auto offsets, kernels::AllocateValues(n + 1, 4, pool));
    QUIVER_ASSIGN_OR_RAISE(auto bits, kernels::AllocateBitmap(n, pool));
    int32_t* off = offsets->mutable_data_as<int32_t>();
    std::vector<const Node*> children;
    int64_t nulls = 0;
    off[0] = 0;
    for (int64_t i = 0; i < n; ++i) {
      const Node* x = nodes[static_cast<size_t>(i)];
      if (x == nullptr || x->is_null) {
        ++nulls;
      } else {
        bit_util::SetBit(bits->mutable_data(), i);
        for (const Node& c : x->items) children.push_back(&c);
      }
      off[i + 1] = static_cast<int32_t>(children.size());
    }
    QUIVER_ASSIGN_OR_RAISE(ArrayRef child, BuildLevel(children, type->children[0]->type, pool));
    std::shared_ptr<Buffer> validity;
    if (nulls > 0) validity = std::move(bits);
    return ArrayData::Make(type, n, {std::move(validity), std::move(offsets)}, nulls, 0, {std::move(child)});
  }
  kernels::StringOutput texts(utf8(), n, pool);
  for (const Node* x : nodes) {
    if (x == nullptr || x->is_null) {
      QUIVER_RETURN_NOT_OK(texts.AppendNull());
    } else {
      QUIVER_RETURN_NOT_OK(texts.Append(x->text));
    }
  }
  QUIVER_ASSIGN_OR_RAISE(ArrayRef t, texts.Finish());
  return CastArray(t, type, pool);
}

Result<ArrayRef> ListToText(const ArrayRef& list, const TypeRef& to, MemoryPool* pool) {
  const ArrayRef& child = list->children[0];
  const TypeRef& element = child->type;
  ArrayRef texts;
  if (element->id == TypeId::kList) {
    QUIVER_ASSIGN_OR_RAISE(texts, ListToText(child, utf8(), pool));
  } else if (element->id != TypeId::kBool) {
    QUIVER_ASSIGN_OR_RAISE(texts, CastArray(child, utf8(), pool));
  }
  const int32_t* off = list->GetValues<int32_t>(1);
  kernels::StringOutput out(to, list->length, pool);
  std::string buf;
  for (int64_t i = 0; i < list->length; ++i) {
    if (list->IsNull(i)) {
      QUIVER_RETURN_NOT_OK(out.AppendNull());
      continue;
    }
    buf.clear();
    buf += '{';
    for (int32_t k = off[i]; k < off[i + 1]; ++k) {
      if (k > off[i]) buf += ',';
      if (child->IsNull(k)) {
        buf += "NULL";
      } else if (element->id == TypeId::kBool) {
        // array_out uses boolout: t / f.
        buf += bit_util::GetBit(child->GetRaw<uint8_t>(1), child->offset + k) ? 't' : 'f';
      } else if (element->id == TypeId::kList) {
        buf += texts->GetString(k);
      } else {
        AppendPgArrayElement(texts->GetString(k), &buf);
      }
    }
    buf += '}';
    QUIVER_RETURN_NOT_OK(out.Append(buf));
  }
  return out.Finish();
}

}  // namespace

bool CanCastArray(const DataType& from, const DataType& to) {
  if (from.id == TypeId::kList && to.id == TypeId::kList) {
    return CanCast(*from.children[0]->type, *to.children[0]->type);
  }
  if (from.id == TypeId::kList) return to.id == TypeId::kString;
  if (to.id == TypeId::kList) return from.id == TypeId::kString;
  return false;
}

Result<ArrayRef> CastArrayVector(const VectorRef& in, int64_t n, const TypeRef& to, MemoryPool* pool) {
  const DataType& from = *in.array->type;
  if (from.id == TypeId::kList) {
    QUIVER_ASSIGN_OR_RAISE(ArrayRef list, kernels::Materialize(in, n, pool));
    if (to->id == TypeId::kString) return ListToText(list, to, pool);
    // Element by element.
    QUIVER_ASSIGN_OR_RAISE(ArrayRef child, CastArray(list->children[0], to->children[0]->type, pool));
    auto out = std::make_shared<ArrayData>(*list);
    out->type = to;
    out->children = {std::move(child)};
    return ArrayRef(out);
  }
  // text -> array
  const int dims = ArrayDimensions(*to);
  StringAccess get(in);
  std::vector<Node> rows(static_cast<size_t>(n));
  std::vector<const Node*> nodes(static_cast<size_t>(n), nullptr);
  for (int64_t i = 0; i < n; ++i) {
    if (!in.IsValid(i)) continue;
    ArrayTextParser parser(get(i), dims);
    QUIVER_RETURN_NOT_OK(parser.Parse(&rows[static_cast<size_t>(i)]));
    nodes[static_cast<size_t>(i)] = &rows[static_cast<size_t>(i)];
  }
  return BuildLevel(nodes, to, pool);
}

}  // namespace quiver
