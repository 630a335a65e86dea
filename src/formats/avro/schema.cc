// Avro schema JSON <-> the Node tree and Arrow schema (see avro_format.h).
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "formats/avro/avro_format.h"

namespace quiver::avro {
namespace {

using json = nlohmann::json;

constexpr int kMaxDepth = 64;
constexpr int64_t kMaxNodes = 100000;

std::string Join(const std::string& ns, const std::string& name) {
  if (name.find('.') != std::string::npos || ns.empty()) return name;
  return ns + "." + name;
}

const std::string* StringMember(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return nullptr;
  return it->get_ptr<const std::string*>();
}

class SchemaParser {
 public:
  Result<std::unique_ptr<Node>> Parse(const json& j, const std::string& ns, int depth) {
    if (depth > kMaxDepth) return Status::Invalid("Avro schema nested deeper than {}", kMaxDepth);
    // Named types expand at each reference: bound the tree, which a schema
    // of repeated references could make exponential.
    if (++nodes_ > kMaxNodes) {
      return Status::Invalid("Avro schema expands to more than {} types", kMaxNodes);
    }
    if (j.is_array()) return ParseUnion(j, ns, depth);
    if (j.is_string()) return ParseName(j.get<std::string>(), ns, depth);
    if (!j.is_object()) return Status::Invalid("Avro schema: {} is not a type", Short(j));
    const std::string* type = StringMember(j, "type");
    if (type == nullptr) {
      auto it = j.find("type");
      // {"type": {...}} or {"type": [...]}: a type wrapped in an object.
      if (it != j.end() && (it->is_object() || it->is_array())) return Parse(*it, ns, depth + 1);
      return Status::Invalid("Avro schema: {} has no type", Short(j));
    }
    std::unique_ptr<Node> node;
    if (*type == "record" || *type == "error") {
      QUIVER_ASSIGN_OR_RAISE(node, ParseRecord(j, ns, depth));
    } else if (*type == "enum") {
      QUIVER_ASSIGN_OR_RAISE(node, ParseEnum(j, ns));
    } else if (*type == "fixed") {
      QUIVER_ASSIGN_OR_RAISE(node, ParseFixed(j, ns));
    } else if (*type == "array") {
      auto it = j.find("items");
      if (it == j.end()) return Status::Invalid("Avro schema: array without items");
      node = std::make_unique<Node>();
      node->kind = Kind::kArray;
      QUIVER_ASSIGN_OR_RAISE(auto items, Parse(*it, ns, depth + 1));
      node->children.push_back(std::move(items));
    } else if (*type == "map") {
      auto it = j.find("values");
      if (it == j.end()) return Status::Invalid("Avro schema: map without values");
      node = std::make_unique<Node>();
      node->kind = Kind::kMap;
      QUIVER_ASSIGN_OR_RAISE(auto values, Parse(*it, ns, depth + 1));
      node->children.push_back(std::move(values));
    } else {
      QUIVER_ASSIGN_OR_RAISE(node, ParseName(*type, ns, depth));
    }
    ApplyLogical(j, node.get());
    return Finish(std::move(node));
  }

 private:
  // What `j` is, without printing it (a dump of a deeply nested value would
  // recurse as deep).
  static std::string Short(const json& j) {
    if (j.is_object()) {
      if (const std::string* name = StringMember(j, "name")) return "'" + name->substr(0, 60) + "'";
      return "an object";
    }
    return std::string("a JSON ") + j.type_name();
  }

  static const char* AvroName(const Node& n) {
    switch (n.kind) {
      case Kind::kNull: return "null";
      case Kind::kBoolean: return "boolean";
      case Kind::kInt: return "int";
      case Kind::kLong: return "long";
      case Kind::kFloat: return "float";
      case Kind::kDouble: return "double";
      case Kind::kBytes: return "bytes";
      case Kind::kString: return "string";
      case Kind::kRecord: return "record";
      case Kind::kEnum: return "enum";
      case Kind::kArray: return "array";
      case Kind::kMap: return "map";
      case Kind::kFixed: return "fixed";
    }
    return "?";
  }

  Result<std::unique_ptr<Node>> ParseName(const std::string& name, const std::string& ns,
                                          int depth) {
    static const std::map<std::string, Kind> kPrimitive = {
        {"null", Kind::kNull},   {"boolean", Kind::kBoolean}, {"int", Kind::kInt},
        {"long", Kind::kLong},   {"float", Kind::kFloat},     {"double", Kind::kDouble},
        {"bytes", Kind::kBytes}, {"string", Kind::kString}};
    if (auto it = kPrimitive.find(name); it != kPrimitive.end()) {
      auto node = std::make_unique<Node>();
      node->kind = it->second;
      return Finish(std::move(node));
    }
    // A reference to a named type: full name, else in the enclosing
    // namespace, else in the null namespace.
    auto it = named_.find(Join(ns, name));
    if (it == named_.end()) it = named_.find(name);
    if (it == named_.end()) return Status::Invalid("Avro schema: unknown type '{}'", name);
    if (defining_.count(it->first) != 0) {
      return Status::Unsupported("recursive Avro type '{}'", it->first);
    }
    // Expanded again: the tree holds no shared nodes.
    return Parse(*it->second.first, it->second.second, depth + 1);
  }

  // Registers a named type; `*full` gets its full name, `*inner` the
  // namespace its members resolve in.
  Status Define(const json& j, const std::string& ns, std::string* full, std::string* inner) {
    const std::string* name = StringMember(j, "name");
    if (name == nullptr || name->empty()) return Status::Invalid("Avro schema: {} has no name", Short(j));
    std::string space = ns;
    if (const std::string* n = StringMember(j, "namespace")) space = *n;
    *full = Join(space, *name);
    const size_t dot = full->rfind('.');
    *inner = dot == std::string::npos ? "" : full->substr(0, dot);
    auto [it, added] = named_.emplace(*full, std::make_pair(&j, ns));
    if (!added && it->second.first != &j) {
      return Status::Invalid("Avro schema: type '{}' defined twice", *full);
    }
    return Status::OK();
  }

  Result<std::unique_ptr<Node>> ParseRecord(const json& j, const std::string& ns, int depth) {
    std::string full, inner;
    QUIVER_RETURN_NOT_OK(Define(j, ns, &full, &inner));
    auto fields = j.find("fields");
    if (fields == j.end() || !fields->is_array()) {
      return Status::Invalid("Avro schema: record '{}' has no fields array", full);
    }
    defining_.insert(full);
    auto node = std::make_unique<Node>();
    node->kind = Kind::kRecord;
    std::set<std::string> seen;
    for (const json& f : *fields) {
      const std::string* name = f.is_object() ? StringMember(f, "name") : nullptr;
      if (name == nullptr) return Status::Invalid("Avro schema: a field of '{}' has no name", full);
      if (!seen.insert(*name).second) {
        return Status::Invalid("Avro schema: record '{}' has two fields named '{}'", full, *name);
      }
      auto t = f.find("type");
      if (t == f.end()) return Status::Invalid("Avro schema: field '{}' has no type", *name);
      auto child = Parse(*t, inner, depth + 1);
      if (!child.ok()) {
        return Status(child.status().code(),
                      fmt::format("{} (field '{}' of '{}')", child.status().message(), *name, full));
      }
      node->names.push_back(*name);
      node->children.push_back(std::move(child).ValueOrDie());
    }
    defining_.erase(full);
    return node;
  }

  Result<std::unique_ptr<Node>> ParseEnum(const json& j, const std::string& ns) {
    std::string full, inner;
    QUIVER_RETURN_NOT_OK(Define(j, ns, &full, &inner));
    auto symbols = j.find("symbols");
    if (symbols == j.end() || !symbols->is_array()) {
      return Status::Invalid("Avro schema: enum '{}' has no symbols array", full);
    }
    auto node = std::make_unique<Node>();
    node->kind = Kind::kEnum;
    for (const json& s : *symbols) {
      if (!s.is_string()) return Status::Invalid("Avro schema: a symbol of enum '{}' is not a string", full);
      node->symbols.push_back(s.get<std::string>());
    }
    return node;
  }

  Result<std::unique_ptr<Node>> ParseFixed(const json& j, const std::string& ns) {
    std::string full, inner;
    QUIVER_RETURN_NOT_OK(Define(j, ns, &full, &inner));
    auto size = j.find("size");
    if (size == j.end() || !size->is_number_integer() || size->get<int64_t>() < 0 ||
        size->get<int64_t>() > (int64_t{1} << 30)) {
      return Status::Invalid("Avro schema: fixed '{}' has no valid size", full);
    }
    auto node = std::make_unique<Node>();
    node->kind = Kind::kFixed;
    node->fixed_size = size->get<int64_t>();
    return node;
  }

  Result<std::unique_ptr<Node>> ParseUnion(const json& j, const std::string& ns, int depth) {
    std::vector<std::unique_ptr<Node>> branches;
    for (const json& b : j) {
      QUIVER_ASSIGN_OR_RAISE(auto n, Parse(b, ns, depth + 1));
      if (n->union_size > 0) return Status::Invalid("Avro schema: a union inside a union");
      branches.push_back(std::move(n));
    }
    auto describe = [&] {
      std::string s;
      for (const auto& b : branches) {
        if (!s.empty()) s += ", ";
        s += AvroName(*b);
      }
      return s;
    };
    if (branches.size() == 1) {
      // [T]: T, with a branch index that is always 0.
      std::unique_ptr<Node> n = std::move(branches[0]);
      n->union_size = 1;
      if (n->kind == Kind::kNull) {
        n->null_branch = 0;
      } else {
        n->value_branch = 0;
      }
      n->min_size += 1;
      return n;
    }
    if (branches.size() == 2) {
      const int null_at = branches[0]->kind == Kind::kNull ? 0 : branches[1]->kind == Kind::kNull ? 1 : -1;
      if (null_at >= 0 && branches[1 - null_at]->kind != Kind::kNull) {
        std::unique_ptr<Node> n = std::move(branches[1 - null_at]);
        n->union_size = 2;
        n->null_branch = null_at;
        n->value_branch = 1 - null_at;
        n->min_size = 1;  // a null is its branch index alone
        return n;
      }
    }
    return Status::Unsupported("Avro union of {} (only a union of null and one type reads, as a nullable column)",
                               branches.empty() ? std::string("nothing") : describe());
  }

  static void ApplyLogical(const json& j, Node* n) {
    const std::string* logical = StringMember(j, "logicalType");
    if (logical == nullptr) return;
    const std::string& l = *logical;
    auto set_time = [&](Logical kind, TimeUnit unit, bool utc) {
      n->logical = kind;
      n->type = kind == Logical::kTimestamp ? timestamp(unit, utc ? "UTC" : "")
                : unit == TimeUnit::kMilli  ? time32(unit)
                                            : time64(unit);
    };
    if (n->kind == Kind::kInt) {
      if (l == "date") n->logical = Logical::kDate, n->type = date32();
      if (l == "time-millis") set_time(Logical::kTimeMillis, TimeUnit::kMilli, false);
    } else if (n->kind == Kind::kLong) {
      if (l == "time-micros") set_time(Logical::kTimeMicros, TimeUnit::kMicro, false);
      if (l == "timestamp-millis") set_time(Logical::kTimestamp, TimeUnit::kMilli, true);
      if (l == "timestamp-micros") set_time(Logical::kTimestamp, TimeUnit::kMicro, true);
      if (l == "timestamp-nanos") set_time(Logical::kTimestamp, TimeUnit::kNano, true);
      if (l == "local-timestamp-millis") set_time(Logical::kTimestamp, TimeUnit::kMilli, false);
      if (l == "local-timestamp-micros") set_time(Logical::kTimestamp, TimeUnit::kMicro, false);
      if (l == "local-timestamp-nanos") set_time(Logical::kTimestamp, TimeUnit::kNano, false);
    } else if ((n->kind == Kind::kBytes || n->kind == Kind::kFixed) && l == "decimal") {
      // Invalid parameters make the logical type ignored, as the
      // specification asks.
      auto p = j.find("precision");
      auto s = j.find("scale");
      if (p == j.end() || !p->is_number_integer()) return;
      const int64_t precision = p->get<int64_t>();
      int64_t scale = 0;
      if (s != j.end()) {
        if (!s->is_number_integer()) return;
        scale = s->get<int64_t>();
      }
      if (precision < 1 || precision > 76 || scale < 0 || scale > precision) return;
      const int width = precision <= 38 ? 16 : 32;
      if (n->kind == Kind::kFixed && n->fixed_size > width * 2) return;
      n->logical = Logical::kDecimal;
      n->precision = static_cast<int32_t>(precision);
      n->scale = static_cast<int32_t>(scale);
      n->type = width == 16 ? decimal128(n->precision, n->scale) : decimal256(n->precision, n->scale);
    } else if (n->kind == Kind::kFixed && l == "uuid" && n->fixed_size == 16) {
      n->logical = Logical::kUuid;
      n->metadata = {{"ARROW:extension:name", "arrow.uuid"}, {"ARROW:extension:metadata", ""}};
    }
  }

  // Sets the Arrow type (unless a logical type did) and the minimal size.
  static Result<std::unique_ptr<Node>> Finish(std::unique_ptr<Node> n) {
    if (n->type == nullptr) {
      switch (n->kind) {
        case Kind::kNull: n->type = null(); break;
        case Kind::kBoolean: n->type = boolean(); break;
        case Kind::kInt: n->type = int32(); break;
        case Kind::kLong: n->type = int64(); break;
        case Kind::kFloat: n->type = float32(); break;
        case Kind::kDouble: n->type = float64(); break;
        case Kind::kBytes: n->type = binary(); break;
        case Kind::kString:
        case Kind::kEnum: n->type = utf8(); break;
        case Kind::kFixed: n->type = fixed_size_binary(static_cast<int32_t>(n->fixed_size)); break;
        case Kind::kRecord: {
          std::vector<FieldRef> fields;
          for (size_t i = 0; i < n->children.size(); ++i) {
            fields.push_back(FieldOf(n->names[i], *n->children[i]));
          }
          n->type = struct_(std::move(fields));
          break;
        }
        case Kind::kArray: n->type = list(FieldOf("item", *n->children[0])); break;
        case Kind::kMap: {
          auto key = std::make_shared<Field>(Field{"key", utf8(), false, {}});
          auto entries = std::make_shared<Field>(
              Field{"entries", struct_({key, FieldOf("value", *n->children[0])}), false, {}});
          n->type = map(entries);
          break;
        }
      }
    }
    switch (n->kind) {
      case Kind::kNull: n->min_size = 0; break;
      case Kind::kFloat: n->min_size = 4; break;
      case Kind::kDouble: n->min_size = 8; break;
      case Kind::kFixed: n->min_size = n->fixed_size; break;
      case Kind::kRecord:
        n->min_size = 0;
        for (const auto& c : n->children) n->min_size = std::min<int64_t>(n->min_size + c->min_size, int64_t{1} << 40);
        break;
      default: n->min_size = 1; break;
    }
    return n;
  }

 public:
  static FieldRef FieldOf(const std::string& name, const Node& n) {
    return std::make_shared<Field>(Field{name, n.type, n.nullable() || n.kind == Kind::kNull, n.metadata});
  }

 private:
  // Full name -> (definition, namespace it was defined in).
  std::map<std::string, std::pair<const json*, std::string>> named_;
  std::set<std::string> defining_;
  int64_t nodes_ = 0;
};

}  // namespace

Result<FileSchema> ParseSchema(std::string_view text) {
  json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::Invalid("Avro schema is not valid JSON");
  SchemaParser parser;
  std::unique_ptr<Node> root;
  try {
    QUIVER_ASSIGN_OR_RAISE(root, parser.Parse(j, "", 0));
  } catch (const std::exception& e) {
    return Status::Invalid("Avro schema: {}", e.what());
  }
  if (root->kind != Kind::kRecord || root->union_size > 0) {
    auto wrapper = std::make_unique<Node>();
    wrapper->kind = Kind::kRecord;
    wrapper->names.push_back("value");
    wrapper->min_size = root->min_size;
    wrapper->children.push_back(std::move(root));
    wrapper->type = struct_({SchemaParser::FieldOf("value", *wrapper->children[0])});
    root = std::move(wrapper);
  }
  std::vector<FieldRef> fields;
  for (size_t i = 0; i < root->children.size(); ++i) {
    fields.push_back(SchemaParser::FieldOf(root->names[i], *root->children[i]));
  }
  FileSchema out;
  out.arrow = schema(std::move(fields));
  out.root = std::move(root);
  return out;
}

}  // namespace quiver::avro
