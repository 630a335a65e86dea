#include "vector/json_type.h"

#include <memory>

namespace quiver {

namespace {

TypeRef MakeStringExtension(const char* name) {
  auto t = std::make_shared<DataType>(*utf8());
  t->timezone = name;  // the extension's name (columnar/extension_type.h)
  return t;
}

}  // namespace

TypeRef json_type() {
  static const TypeRef t = MakeStringExtension(kJsonExtension);
  return t;
}

TypeRef jsonb_type() {
  static const TypeRef t = MakeStringExtension(kJsonbExtension);
  return t;
}

}  // namespace quiver
