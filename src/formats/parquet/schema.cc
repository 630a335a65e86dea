#include "formats/parquet/schema.h"

#include <fmt/format.h>

#include "common/utf8.h"

namespace quiver::parquet {
namespace {

// Deeper schemas exist only in hostile files; the bound keeps recursion and
// level values small.
constexpr int kMaxDepth = 128;

}  // namespace

std::string PrintableName(std::string_view name) {
  bool clean = ValidateUtf8(name);
  for (unsigned char c : name) clean &= c >= 0x20 && c != 0x7f;
  if (clean) return std::string(name);
  std::string out;
  for (unsigned char c : name) {
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  return out;
}

Result<SchemaDescriptor> SchemaDescriptor::Make(const std::vector<SchemaElement>& elements) {
  if (elements.empty()) return Status::Invalid("corrupt footer: empty schema");
  SchemaDescriptor s;
  s.nodes_.resize(elements.size());
  // Iterative depth-first construction: a stack of (node, children still to come).
  struct Open {
    int node;
    int64_t remaining;
  };
  std::vector<Open> stack;
  const int64_t n = static_cast<int64_t>(elements.size());
  for (int64_t i = 0; i < n; ++i) {
    const SchemaElement& e = elements[i];
    SchemaNode& node = s.nodes_[i];
    node.element = &e;
    if (i > 0) {
      if (stack.empty()) {
        return Status::Invalid("corrupt footer: schema element {} ('{}') is outside the root", i,
                               PrintableName(e.name));
      }
      Open& top = stack.back();
      const SchemaNode& parent = s.nodes_[top.node];
      node.parent = top.node;
      node.depth = parent.depth + 1;
      if (node.depth > kMaxDepth) {
        return Status::Invalid("unsupported: schema nested deeper than {} levels", kMaxDepth);
      }
      const Repetition rep = node.repetition();
      node.def_level = parent.def_level + (rep == Repetition::kRequired ? 0 : 1);
      node.rep_level = parent.rep_level + (rep == Repetition::kRepeated ? 1 : 0);
      if (rep == Repetition::kVector) {
        return Status::Unsupported("VECTOR repetition (field '{}')", PrintableName(e.name));
      }
      if (static_cast<int32_t>(rep) < 0 || static_cast<int32_t>(rep) > 3) {
        return Status::Invalid("corrupt footer: field '{}' has repetition {}",
                               PrintableName(e.name), static_cast<int32_t>(rep));
      }
      s.nodes_[top.node].children.push_back(static_cast<int>(i));
      if (--top.remaining == 0) stack.pop_back();
    }
    const bool is_group = e.num_children.has_value() && (*e.num_children > 0 || !e.type);
    if (i == 0 || is_group) {
      const int64_t kids = e.num_children.value_or(0);
      if (kids < 0 || kids > n - i - 1) {
        return Status::Invalid("corrupt footer: schema element '{}' claims {} children",
                               PrintableName(e.name), kids);
      }
      if (kids > 0) stack.push_back({static_cast<int>(i), kids});
      // Pop any ancestors finished by this (childless) group.
      while (kids == 0 && !stack.empty() && stack.back().remaining == 0) stack.pop_back();
    } else {
      if (!e.type) {
        return Status::Invalid("corrupt footer: schema leaf '{}' has no physical type",
                               PrintableName(e.name));
      }
      const int32_t t = static_cast<int32_t>(*e.type);
      if (t < 0 || t > 7) {
        return Status::Invalid("corrupt footer: schema leaf '{}' has unknown physical type {}",
                               PrintableName(e.name), t);
      }
      ColumnDescriptor col;
      col.node = static_cast<int>(i);
      col.physical_type = *e.type;
      if (col.physical_type == Type::kFixedLenByteArray) {
        const int32_t len = e.type_length.value_or(-1);
        if (len < 0 || len > (1 << 24)) {
          return Status::Invalid("corrupt footer: FIXED_LEN_BYTE_ARRAY column '{}' has length {}",
                                 PrintableName(e.name), len);
        }
        col.type_length = len;
      }
      col.max_def_level = node.def_level;
      col.max_rep_level = node.rep_level;
      node.leaf = static_cast<int>(s.columns_.size());
      s.columns_.push_back(std::move(col));
    }
  }
  if (!stack.empty()) {
    return Status::Invalid("corrupt footer: schema ends inside group '{}'",
                           PrintableName(elements[stack.back().node].name));
  }
  // Dotted paths for messages.
  for (ColumnDescriptor& col : s.columns_) {
    std::vector<const std::string*> parts;
    for (int i = col.node; i > 0; i = s.nodes_[i].parent) parts.push_back(&s.nodes_[i].name());
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
      if (!col.path.empty()) col.path += '.';
      col.path += PrintableName(**it);
    }
  }
  return s;
}

std::vector<int> SchemaDescriptor::LeavesUnder(int i) const {
  std::vector<int> out;
  std::vector<int> todo = {i};
  // Depth-first in child order so leaves come out in column order.
  while (!todo.empty()) {
    const int n = todo.back();
    todo.pop_back();
    const SchemaNode& node = nodes_[n];
    if (node.is_leaf()) {
      out.push_back(node.leaf);
      continue;
    }
    for (auto it = node.children.rbegin(); it != node.children.rend(); ++it) todo.push_back(*it);
  }
  return out;
}

}  // namespace quiver::parquet
