// Arrow extension types stored as utf8 (SQL's json and jsonb,
// vector/json_type.h).
//
// DataType has no field for an extension's name yet: adding one to
// columnar/type.h recompiles nearly every file of every checkout. Until the
// next change to that header adds it, a utf8 type names its extension in
// `timezone`, a field string types do not otherwise use. DataType::Equals
// and ToString honour it (`extension<arrow.json>`, as Arrow prints one), and
// the IPC writer writes it as the field's ARROW:extension:name.
#pragma once

#include <string>

#include "columnar/type.h"

namespace quiver {

// The extension a type carries; empty for none.
inline const std::string& ExtensionName(const DataType& t) {
  static const std::string kNone;
  return t.id == TypeId::kString ? t.timezone : kNone;
}

}  // namespace quiver
