// Arrow integration JSON: comparing golden columns with Quiver arrays
// (see integration_json.h for the JSON layout and the comparison rules).
//
// The walk is driven by the golden field (the expected type). Before reading
// any buffer of an array, its type is checked against the expected type and
// every buffer access is bounds-checked, so a broken array yields a mismatch
// message, never a crash. Buffer layouts are read directly (not through
// ArrayData helpers) so the comparer does not share bugs with the code under
// test.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <deque>
#include <unordered_map>
#include <unordered_set>

#include "util/integration_json.h"
#include "util/integration_values.h"

namespace quiver::testing {

using nlohmann::json;

namespace {

template <typename T>
T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

int64_t LoadInt(const uint8_t* p, int width, bool is_signed) {
  // Separate returns: a ?: of int32_t and uint32_t would convert to unsigned.
  switch (width) {
    case 1:
      if (is_signed) return Load<int8_t>(p);
      return Load<uint8_t>(p);
    case 2:
      if (is_signed) return Load<int16_t>(p);
      return Load<uint16_t>(p);
    case 4:
      if (is_signed) return Load<int32_t>(p);
      return Load<uint32_t>(p);
    default:
      return Load<int64_t>(p);
  }
}

// Byte width and signedness of the integer-like fixed-width types.
bool IntegerLayout(TypeId id, int* width, bool* is_signed) {
  *is_signed = true;
  switch (id) {
    case TypeId::kInt8:
      *width = 1;
      return true;
    case TypeId::kInt16:
      *width = 2;
      return true;
    case TypeId::kInt32:
    case TypeId::kDate32:
    case TypeId::kTime32:
    case TypeId::kIntervalMonths:
      *width = 4;
      return true;
    case TypeId::kInt64:
    case TypeId::kDate64:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
    case TypeId::kDuration:
      *width = 8;
      return true;
    case TypeId::kUInt8:
      *is_signed = false;
      *width = 1;
      return true;
    case TypeId::kUInt16:
      *is_signed = false;
      *width = 2;
      return true;
    case TypeId::kUInt32:
      *is_signed = false;
      *width = 4;
      return true;
    case TypeId::kUInt64:
      *is_signed = false;
      *width = 8;
      return true;
    default:
      return false;
  }
}

bool HasValidityBitmap(TypeId id) {
  return id != TypeId::kNull && id != TypeId::kSparseUnion && id != TypeId::kDenseUnion &&
         id != TypeId::kRunEndEncoded;
}

// "mismatch: <what>" -> "mismatch: <prefix><what>".
Status WithPrefix(const std::string& prefix, const Status& st) {
  constexpr std::string_view kTag = "mismatch: ";
  const std::string& m = st.message();
  if (m.compare(0, kTag.size(), kTag) == 0) {
    return Status(st.code(), std::string(kTag) + prefix + m.substr(kTag.size()));
  }
  return Status(st.code(), prefix + m);
}

// --- paths --------------------------------------------------------------------

// A column path built on the stack and rendered only on mismatch:
// "nested[3]/item[17]".
struct PathNode {
  const PathNode* parent;
  std::string_view label;
  int64_t slot;  // -1: no slot
  int64_t actual_slot;

  std::string Render() const {
    std::string out = parent ? parent->Render() + "/" : "";
    out += label;
    if (slot >= 0) {
      out += fmt::format("[{}]", slot);
      if (actual_slot != slot) out += fmt::format("(actual slot {})", actual_slot);
    }
    return out;
  }
};

// --- the comparer ----------------------------------------------------------------

class Comparer {
 public:
  Comparer(const GoldenFile& golden, std::string prefix)
      : golden_(golden), prefix_(std::move(prefix)) {}

  // Whole array: length, null count, then every slot.
  Status CompareArray(const json& field, const json& col, const ArrayData& arr,
                      const PathNode& path) {
    QUIVER_RETURN_NOT_OK(CheckArray(field, arr, path));
    const int64_t count = col.at("count").get<int64_t>();
    if (arr.length != count) return Mismatch(path, "length", count, arr.length);
    const TypeId id = arr.type->id;
    if (HasValidityBitmap(id) && col.contains("VALIDITY")) {
      int64_t expected_nulls = 0;
      for (const json& v : col.at("VALIDITY")) expected_nulls += v.get<int>() == 0;
      if (arr.GetNullCount() != expected_nulls) {
        return Mismatch(path, "null count", expected_nulls, arr.GetNullCount());
      }
    } else if (id == TypeId::kNull && arr.GetNullCount() != count) {
      return Mismatch(path, "null count", count, arr.GetNullCount());
    }
    for (int64_t i = 0; i < count; ++i) {
      QUIVER_RETURN_NOT_OK(CompareSlot(field, col, i, arr, i, path));
    }
    return Status::OK();
  }

 private:
  template <typename E, typename A>
  Status Mismatch(const PathNode& path, std::string_view what, const E& expected,
                  const A& actual) const {
    return Status::Invalid("mismatch: {}{}: {}: expected {}, got {}", prefix_, path.Render(), what,
                           expected, actual);
  }
  Status Broken(const PathNode& path, const std::string& what) const {
    return Status::Invalid("mismatch: {}{}: {}", prefix_, path.Render(), what);
  }

  // Expected type of a golden field (memoised per JSON node).
  Result<TypeRef> ExpectedType(const json& field) {
    auto it = types_.find(&field);
    if (it != types_.end()) return it->second;
    QUIVER_ASSIGN_OR_RAISE(TypeRef t, TypeFromJson(field));
    types_.emplace(&field, t);
    return t;
  }

  // The golden field with "dictionary" removed: the dictionary's value field.
  const json& ValueField(const json& field) {
    auto it = value_fields_.find(&field);
    if (it != value_fields_.end()) return *it->second;
    json& copy = owned_.emplace_back(field);
    copy.erase("dictionary");
    value_fields_.emplace(&field, &copy);
    return copy;
  }

  // First visit of an array: its type is the expected one and its buffers are
  // large enough for the reads below.
  Status CheckArray(const json& field, const ArrayData& arr, const PathNode& path) {
    if (checked_.count(&arr)) return Status::OK();
    if (!arr.type) return Broken(path, "array has no type");
    QUIVER_ASSIGN_OR_RAISE(TypeRef expected, ExpectedType(field));
    Status st;
    if (map_entries_.count(&arr)) {
      // A map's entries struct: its key/value field names are not significant.
      Field e, a;
      e.type = expected;
      a.type = arr.type;
      st = CompareMapEntries(e, a, path.Render());
    } else {
      st = CompareTypes(*expected, *arr.type, path.Render());
    }
    if (!st.ok()) return WithPrefix(prefix_, st);
    if (arr.length < 0 || arr.offset < 0) return Broken(path, "negative length or offset");
    const int64_t end = arr.offset + arr.length;
    const TypeId id = arr.type->id;
    if (HasValidityBitmap(id) && !arr.buffers.empty() && arr.buffers[0] &&
        arr.buffers[0]->size() < bit_util::BytesForBits(end)) {
      return Broken(path, fmt::format("validity bitmap has {} bytes, {} slots need {}",
                                      arr.buffers[0]->size(), end, bit_util::BytesForBits(end)));
    }
    // A stored null count must agree with the bitmap: consumers trust it
    // (MayHaveNulls) without looking at the bits.
    if (arr.null_count != kUnknownNullCount) {
      int64_t nulls = 0;
      if (id == TypeId::kNull) {
        nulls = arr.length;
      } else if (HasValidityBitmap(id) && !arr.buffers.empty() && arr.buffers[0]) {
        nulls = arr.length - bit_util::CountSetBits(arr.buffers[0]->data(), arr.offset, arr.length);
      }
      if (HasValidityBitmap(id) || id == TypeId::kNull) {
        if (nulls != arr.null_count)
          return Mismatch(path, "stored null_count vs bitmap", nulls, arr.null_count);
      }
    }
    checked_.insert(&arr);
    return Status::OK();
  }

  // Pointer to `n` bytes at byte `pos` of buffer `i`, or null if out of range.
  static const uint8_t* At(const ArrayData& arr, size_t i, int64_t pos, int64_t n) {
    if (i >= arr.buffers.size() || !arr.buffers[i] || pos < 0 || n < 0) return nullptr;
    if (pos + n > arr.buffers[i]->size()) return nullptr;
    return arr.buffers[i]->data() + pos;
  }
  Status OutOfRange(const PathNode& path, size_t buffer, int64_t pos, int64_t n,
                    const ArrayData& arr) const {
    const int64_t size =
        buffer < arr.buffers.size() && arr.buffers[buffer] ? arr.buffers[buffer]->size() : -1;
    return Broken(path, fmt::format("read of {} bytes at {} is outside buffer {} ({} bytes)", n,
                                    pos, buffer, size));
  }

  // Offsets (int32 or int64) of slot `i` from buffer `buf`: {start, end}.
  Status Offsets(const ArrayData& arr, size_t buf, int width, int64_t i, const PathNode& path,
                 int64_t* start, int64_t* end) {
    const int64_t pos = (arr.offset + i) * width;
    const uint8_t* p = At(arr, buf, pos, 2 * width);
    if (!p) return OutOfRange(path, buf, pos, 2 * width, arr);
    *start = LoadInt(p, width, true);
    *end = LoadInt(p + width, width, true);
    return Status::OK();
  }

  // Quiver's union layout (columnar/type.h): buffers[0] = type ids, buffers[1] =
  // int32 offsets (dense); no validity slot.
  static constexpr size_t kUnionTypeIds = 0;

  // Actual bytes of a view slot.
  Status ViewBytes(const ArrayData& arr, int64_t i, const PathNode& path, std::string_view* out) {
    const int64_t pos = (arr.offset + i) * 16;
    const uint8_t* v = At(arr, 1, pos, 16);
    if (!v) return OutOfRange(path, 1, pos, 16, arr);
    const int32_t size = Load<int32_t>(v);
    if (size < 0) return Broken(path, fmt::format("negative view size {}", size));
    if (size <= 12) {
      *out = std::string_view(reinterpret_cast<const char*>(v + 4), static_cast<size_t>(size));
      return Status::OK();
    }
    const int32_t buffer_index = Load<int32_t>(v + 8), offset = Load<int32_t>(v + 12);
    if (buffer_index < 0) return Broken(path, fmt::format("negative view buffer index"));
    const uint8_t* data = At(arr, 2 + static_cast<size_t>(buffer_index), offset, size);
    if (!data) return OutOfRange(path, 2 + static_cast<size_t>(buffer_index), offset, size, arr);
    if (std::memcmp(data, v + 4, 4) != 0) {
      return Mismatch(path, "view prefix vs data", ToHex({reinterpret_cast<const char*>(data), 4}),
                      ToHex({reinterpret_cast<const char*>(v + 4), 4}));
    }
    *out = std::string_view(reinterpret_cast<const char*>(data), static_cast<size_t>(size));
    return Status::OK();
  }

  // Expected bytes of a golden view slot.
  static Result<std::string> ExpectedViewBytes(const json& col, int64_t i, bool is_binary) {
    const json& view = col.at("VIEWS").at(i);
    const int64_t size = view.at("SIZE").get<int64_t>();
    std::string bytes;
    if (view.contains("INLINED")) {
      const std::string& s = view.at("INLINED").get_ref<const std::string&>();
      if (is_binary) {
        QUIVER_ASSIGN_OR_RAISE(bytes, FromHex(s));
      } else {
        bytes = s;
      }
    } else {
      const int64_t index = view.at("BUFFER_INDEX").get<int64_t>();
      const int64_t offset = view.at("OFFSET").get<int64_t>();
      QUIVER_ASSIGN_OR_RAISE(std::string buffer,
                             FromHex(col.at("VARIADIC_DATA_BUFFERS").at(index).get<std::string>()));
      if (offset < 0 || offset + size > static_cast<int64_t>(buffer.size())) {
        return Status::Invalid("golden json: view outside its variadic buffer");
      }
      bytes = buffer.substr(static_cast<size_t>(offset), static_cast<size_t>(size));
    }
    if (static_cast<int64_t>(bytes.size()) != size) {
      return Status::Invalid("golden json: view SIZE {} but {} bytes", size, bytes.size());
    }
    return bytes;
  }

  // Index of the run containing logical slot `i`, for golden and actual run ends.
  static Result<int64_t> GoldenRun(const json& run_ends, int64_t i) {
    for (size_t j = 0; j < run_ends.size(); ++j) {
      QUIVER_ASSIGN_OR_RAISE(int64_t end, JsonInt(run_ends[j]));
      if (end > i) return static_cast<int64_t>(j);
    }
    return Status::Invalid("golden json: slot {} past the last run end", i);
  }

  Status CompareBytes(const PathNode& path, std::string_view expected, std::string_view actual,
                      bool is_binary) {
    if (expected.size() != actual.size()) {
      return Mismatch(path, "length", expected.size(), actual.size());
    }
    if (expected != actual) {
      return is_binary ? Mismatch(path, "bytes", ToHex(expected), ToHex(actual))
                       : Mismatch(path, "string", fmt::format("'{}'", expected),
                                  fmt::format("'{}'", actual));
    }
    return Status::OK();
  }

  Status CompareDictionary(const json& field, const ArrayData& arr, const PathNode& path);
  Status CompareSlot(const json& field, const json& col, int64_t ei, const ArrayData& arr,
                     int64_t ai, const PathNode& parent);
  Status CompareValue(const json& field, const json& col, int64_t ei, const ArrayData& arr,
                      int64_t ai, const PathNode& path);
  Status CompareNested(const json& field, const json& col, int64_t ei, const ArrayData& arr,
                       int64_t ai, const PathNode& path);

  const GoldenFile& golden_;
  std::string prefix_;
  std::unordered_map<const json*, TypeRef> types_;
  std::unordered_map<const json*, const json*> value_fields_;
  std::deque<json> owned_;
  std::unordered_set<const ArrayData*> checked_;
  std::unordered_set<const ArrayData*> dictionaries_done_;
  std::unordered_set<const ArrayData*> map_entries_;
};

// The dictionary of a dictionary-encoded array against the golden dictionary
// with the field's id (once per dictionary array).
Status Comparer::CompareDictionary(const json& field, const ArrayData& arr, const PathNode& path) {
  if (dictionaries_done_.count(arr.dictionary.get())) return Status::OK();
  const int64_t id = field.at("dictionary").at("id").get<int64_t>();
  auto it = golden_.dictionaries.find(id);
  if (it == golden_.dictionaries.end()) {
    return Status::Invalid("{}: golden json has no dictionary id {}", golden_.path, id);
  }
  if (!arr.dictionary) return Broken(path, fmt::format("dictionary id {} missing", id));
  const std::string label = fmt::format("<dict {}>", id);
  PathNode dict_path{&path, label, -1, -1};
  QUIVER_RETURN_NOT_OK(CompareArray(ValueField(field), *it->second, *arr.dictionary, dict_path));
  dictionaries_done_.insert(arr.dictionary.get());
  return Status::OK();
}

Status Comparer::CompareSlot(const json& field, const json& col, int64_t ei, const ArrayData& arr,
                             int64_t ai, const PathNode& parent) {
  // `parent` names the array; this node adds the slot.
  PathNode path{parent.parent, parent.label, ei, ai};
  QUIVER_RETURN_NOT_OK(CheckArray(field, arr, path));
  if (ai < 0 || ai >= arr.length)
    return Broken(path, fmt::format("slot outside array of length {}", arr.length));
  const TypeId id = arr.type->id;
  if (id == TypeId::kNull) {
    if (arr.IsValid(ai)) return Mismatch(path, "validity", 0, 1);
    return Status::OK();
  }
  if (HasValidityBitmap(id)) {
    const bool expected = !col.contains("VALIDITY") || col.at("VALIDITY").at(ei).get<int>() != 0;
    const bool actual = arr.IsValid(ai);
    if (expected != actual) return Mismatch(path, "validity", int{expected}, int{actual});
    if (!expected) return Status::OK();
  }
  return CompareValue(field, col, ei, arr, ai, path);
}

Status Comparer::CompareValue(const json& field, const json& col, int64_t ei, const ArrayData& arr,
                              int64_t ai, const PathNode& path) {
  const DataType& type = *arr.type;
  const TypeId id = type.id;
  const int64_t slot = arr.offset + ai;
  int width = 0;
  bool is_signed = true;
  if (id == TypeId::kDictionary) {
    QUIVER_RETURN_NOT_OK(CompareDictionary(field, arr, path));
    IntegerLayout(type.index_type->id, &width, &is_signed);
    const uint8_t* p = At(arr, 1, slot * width, width);
    if (!p) return OutOfRange(path, 1, slot * width, width, arr);
    const int64_t actual = LoadInt(p, width, is_signed);
    QUIVER_ASSIGN_OR_RAISE(int64_t expected, JsonInt(col.at("DATA").at(ei)));
    if (expected != actual) return Mismatch(path, "dictionary index", expected, actual);
    if (actual < 0 || actual >= arr.dictionary->length) {
      return Broken(
          path, fmt::format("index {} outside dictionary of {}", actual, arr.dictionary->length));
    }
    return Status::OK();
  }
  if (IntegerLayout(id, &width, &is_signed)) {
    const uint8_t* p = At(arr, 1, slot * width, width);
    if (!p) return OutOfRange(path, 1, slot * width, width, arr);
    const json& v = col.at("DATA").at(ei);
    if (is_signed) {
      QUIVER_ASSIGN_OR_RAISE(int64_t expected, JsonInt(v));
      const int64_t actual = LoadInt(p, width, true);
      if (expected != actual) return Mismatch(path, "value", expected, actual);
    } else {
      QUIVER_ASSIGN_OR_RAISE(uint64_t expected, JsonUInt(v));
      const uint64_t actual =
          width == 8 ? Load<uint64_t>(p) : static_cast<uint64_t>(LoadInt(p, width, false));
      if (expected != actual) return Mismatch(path, "value", expected, actual);
    }
    return Status::OK();
  }
  switch (id) {
    case TypeId::kBool: {
      const uint8_t* p = At(arr, 1, slot / 8, 1);
      if (!p) return OutOfRange(path, 1, slot / 8, 1, arr);
      const json& v = col.at("DATA").at(ei);
      const bool expected = v.is_boolean() ? v.get<bool>() : v.get<int>() != 0;
      const bool actual = bit_util::GetBit(arr.buffers[1]->data(), slot);
      if (expected != actual) return Mismatch(path, "value", expected, actual);
      return Status::OK();
    }
    case TypeId::kHalfFloat: {
      const uint8_t* p = At(arr, 1, slot * 2, 2);
      if (!p) return OutOfRange(path, 1, slot * 2, 2, arr);
      const uint16_t expected = DoubleToHalf(col.at("DATA").at(ei).get<double>());
      const uint16_t actual = Load<uint16_t>(p);
      if (expected != actual) {
        return Mismatch(path, "value", HalfToDouble(expected), HalfToDouble(actual));
      }
      return Status::OK();
    }
    case TypeId::kFloat: {
      const uint8_t* p = At(arr, 1, slot * 4, 4);
      if (!p) return OutOfRange(path, 1, slot * 4, 4, arr);
      // The producer parsed the JSON number as a double and narrowed it.
      const float expected = static_cast<float>(col.at("DATA").at(ei).get<double>());
      const float actual = Load<float>(p);
      if (!(expected == actual || (std::isnan(expected) && std::isnan(actual)))) {
        return Mismatch(path, "value", fmt::format("{:.9g}", expected),
                        fmt::format("{:.9g}", actual));
      }
      return Status::OK();
    }
    case TypeId::kDouble: {
      const uint8_t* p = At(arr, 1, slot * 8, 8);
      if (!p) return OutOfRange(path, 1, slot * 8, 8, arr);
      const double expected = col.at("DATA").at(ei).get<double>();
      const double actual = Load<double>(p);
      if (!(expected == actual || (std::isnan(expected) && std::isnan(actual)))) {
        return Mismatch(path, "value", fmt::format("{:.17g}", expected),
                        fmt::format("{:.17g}", actual));
      }
      return Status::OK();
    }
    case TypeId::kDecimal32:
    case TypeId::kDecimal64:
    case TypeId::kDecimal128:
    case TypeId::kDecimal256: {
      width = type.byte_width;
      if (width != 4 && width != 8 && width != 16 && width != 32) {
        return Broken(path, fmt::format("decimal byte width {}", width));
      }
      const uint8_t* p = At(arr, 1, slot * width, width);
      if (!p) return OutOfRange(path, 1, slot * width, width, arr);
      const std::string expected = NormalizeDecimalString(col.at("DATA").at(ei).get<std::string>());
      const std::string actual = DecimalToString(p, width);
      if (expected != actual) return Mismatch(path, "unscaled decimal", expected, actual);
      return Status::OK();
    }
    case TypeId::kFixedSizeBinary: {
      width = type.byte_width;
      const uint8_t* p = At(arr, 1, slot * width, width);
      if (!p) return OutOfRange(path, 1, slot * width, width, arr);
      QUIVER_ASSIGN_OR_RAISE(std::string expected,
                             FromHex(col.at("DATA").at(ei).get<std::string>()));
      return CompareBytes(path, expected,
                          {reinterpret_cast<const char*>(p), static_cast<size_t>(width)}, true);
    }
    case TypeId::kIntervalDayTime: {
      const uint8_t* p = At(arr, 1, slot * 8, 8);
      if (!p) return OutOfRange(path, 1, slot * 8, 8, arr);
      const json& v = col.at("DATA").at(ei);
      const int32_t ed = v.at("days").get<int32_t>(), ems = v.at("milliseconds").get<int32_t>();
      const int32_t ad = Load<int32_t>(p), ams = Load<int32_t>(p + 4);
      if (ed != ad || ems != ams) {
        return Mismatch(path, "day_time interval", fmt::format("{{days {}, ms {}}}", ed, ems),
                        fmt::format("{{days {}, ms {}}}", ad, ams));
      }
      return Status::OK();
    }
    case TypeId::kIntervalMonthDayNano: {
      const uint8_t* p = At(arr, 1, slot * 16, 16);
      if (!p) return OutOfRange(path, 1, slot * 16, 16, arr);
      const json& v = col.at("DATA").at(ei);
      const int32_t em = v.at("months").get<int32_t>(), ed = v.at("days").get<int32_t>();
      QUIVER_ASSIGN_OR_RAISE(int64_t ens, JsonInt(v.at("nanoseconds")));
      const int32_t am = Load<int32_t>(p), ad = Load<int32_t>(p + 4);
      const int64_t ans = Load<int64_t>(p + 8);
      if (em != am || ed != ad || ens != ans) {
        return Mismatch(path, "month_day_nano interval",
                        fmt::format("{{months {}, days {}, ns {}}}", em, ed, ens),
                        fmt::format("{{months {}, days {}, ns {}}}", am, ad, ans));
      }
      return Status::OK();
    }
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kLargeString:
    case TypeId::kLargeBinary: {
      const bool is_binary = id == TypeId::kBinary || id == TypeId::kLargeBinary;
      width = id == TypeId::kString || id == TypeId::kBinary ? 4 : 8;
      int64_t start = 0, end = 0;
      QUIVER_RETURN_NOT_OK(Offsets(arr, 1, width, ai, path, &start, &end));
      if (end < start) return Broken(path, fmt::format("offsets decrease: {} then {}", start, end));
      const uint8_t* p = At(arr, 2, start, end - start);
      if (!p && end > start) return OutOfRange(path, 2, start, end - start, arr);
      std::string expected = col.at("DATA").at(ei).get<std::string>();
      if (is_binary) {
        QUIVER_ASSIGN_OR_RAISE(expected, FromHex(expected));
      }
      const json& offsets = col.at("OFFSET");
      QUIVER_ASSIGN_OR_RAISE(int64_t eo0, JsonInt(offsets.at(ei)));
      QUIVER_ASSIGN_OR_RAISE(int64_t eo1, JsonInt(offsets.at(ei + 1)));
      if (eo1 - eo0 != end - start) return Mismatch(path, "length", eo1 - eo0, end - start);
      return CompareBytes(path, expected,
                          {reinterpret_cast<const char*>(p), static_cast<size_t>(end - start)},
                          is_binary);
    }
    case TypeId::kStringView:
    case TypeId::kBinaryView: {
      const bool is_binary = id == TypeId::kBinaryView;
      QUIVER_ASSIGN_OR_RAISE(std::string expected, ExpectedViewBytes(col, ei, is_binary));
      std::string_view actual;
      QUIVER_RETURN_NOT_OK(ViewBytes(arr, ai, path, &actual));
      return CompareBytes(path, expected, actual, is_binary);
    }
    default:
      return CompareNested(field, col, ei, arr, ai, path);
  }
}

Status Comparer::CompareNested(const json& field, const json& col, int64_t ei, const ArrayData& arr,
                               int64_t ai, const PathNode& path) {
  const DataType& type = *arr.type;
  const TypeId id = type.id;
  const int64_t slot = arr.offset + ai;
  const json& child_fields = field.at("children");
  const json& child_cols = col.contains("children") ? col.at("children") : json::array();
  auto child = [&](size_t k) -> Result<std::pair<const json*, const ArrayData*>> {
    if (k >= child_fields.size() || k >= child_cols.size()) {
      return Status::Invalid("golden json: {} lacks child {}", path.Render(), k);
    }
    if (k >= arr.children.size() || !arr.children[k]) {
      return Broken(path,
                    fmt::format("child array {} missing ({} children)", k, arr.children.size()));
    }
    return std::pair<const json*, const ArrayData*>(&child_cols[k], arr.children[k].get());
  };
  // Compares `len` child slots starting at golden slot `es` and actual slot `as`.
  auto compare_children_range = [&](int64_t es, int64_t as, int64_t len) -> Status {
    QUIVER_ASSIGN_OR_RAISE(auto c, child(0));
    const std::string& name = child_fields[0].at("name").get_ref<const std::string&>();
    PathNode child_path{&path, name, -1, -1};
    for (int64_t k = 0; k < len; ++k) {
      QUIVER_RETURN_NOT_OK(
          CompareSlot(child_fields[0], *c.first, es + k, *c.second, as + k, child_path));
    }
    return Status::OK();
  };
  switch (id) {
    case TypeId::kList:
    case TypeId::kMap:
    case TypeId::kLargeList: {
      if (id == TypeId::kMap && !arr.children.empty()) map_entries_.insert(arr.children[0].get());
      const int width = id == TypeId::kLargeList ? 8 : 4;
      int64_t start = 0, end = 0;
      QUIVER_RETURN_NOT_OK(Offsets(arr, 1, width, ai, path, &start, &end));
      QUIVER_ASSIGN_OR_RAISE(int64_t es, JsonInt(col.at("OFFSET").at(ei)));
      QUIVER_ASSIGN_OR_RAISE(int64_t ee, JsonInt(col.at("OFFSET").at(ei + 1)));
      if (ee - es != end - start) return Mismatch(path, "list length", ee - es, end - start);
      return compare_children_range(es, start, end - start);
    }
    case TypeId::kListView:
    case TypeId::kLargeListView: {
      const int width = id == TypeId::kLargeListView ? 8 : 4;
      const uint8_t* po = At(arr, 1, slot * width, width);
      if (!po) return OutOfRange(path, 1, slot * width, width, arr);
      const uint8_t* ps = At(arr, 2, slot * width, width);
      if (!ps) return OutOfRange(path, 2, slot * width, width, arr);
      const int64_t start = LoadInt(po, width, true), size = LoadInt(ps, width, true);
      QUIVER_ASSIGN_OR_RAISE(int64_t es, JsonInt(col.at("OFFSET").at(ei)));
      QUIVER_ASSIGN_OR_RAISE(int64_t esize, JsonInt(col.at("SIZE").at(ei)));
      if (esize != size) return Mismatch(path, "list view size", esize, size);
      return compare_children_range(es, start, size);
    }
    case TypeId::kFixedSizeList: {
      const int64_t n = type.list_size;
      return compare_children_range(ei * n, slot * n, n);
    }
    case TypeId::kStruct: {
      for (size_t k = 0; k < type.children.size(); ++k) {
        QUIVER_ASSIGN_OR_RAISE(auto c, child(k));
        const std::string& name = child_fields[k].at("name").get_ref<const std::string&>();
        PathNode child_path{&path, name, -1, -1};
        QUIVER_RETURN_NOT_OK(
            CompareSlot(child_fields[k], *c.first, ei, *c.second, slot, child_path));
      }
      return Status::OK();
    }
    case TypeId::kSparseUnion:
    case TypeId::kDenseUnion: {
      const size_t ids_buf = kUnionTypeIds;
      const uint8_t* p = At(arr, ids_buf, slot, 1);
      if (!p) return OutOfRange(path, ids_buf, slot, 1, arr);
      const int8_t actual_code = Load<int8_t>(p);
      const int expected_code = col.at("TYPE_ID").at(ei).get<int>();
      if (expected_code != actual_code)
        return Mismatch(path, "union type id", expected_code, int{actual_code});
      auto it = std::find(type.type_codes.begin(), type.type_codes.end(), actual_code);
      if (it == type.type_codes.end())
        return Broken(path, fmt::format("unknown type id {}", actual_code));
      const size_t k = static_cast<size_t>(it - type.type_codes.begin());
      QUIVER_ASSIGN_OR_RAISE(auto c, child(k));
      int64_t es = ei, as = slot;
      if (id == TypeId::kDenseUnion) {
        const uint8_t* po = At(arr, ids_buf + 1, slot * 4, 4);
        if (!po) return OutOfRange(path, ids_buf + 1, slot * 4, 4, arr);
        as = Load<int32_t>(po);
        QUIVER_ASSIGN_OR_RAISE(es, JsonInt(col.at("OFFSET").at(ei)));
      }
      const std::string& name = child_fields[k].at("name").get_ref<const std::string&>();
      PathNode child_path{&path, name, -1, -1};
      return CompareSlot(child_fields[k], *c.first, es, *c.second, as, child_path);
    }
    case TypeId::kRunEndEncoded: {
      QUIVER_ASSIGN_OR_RAISE(auto run_ends, child(0));
      QUIVER_ASSIGN_OR_RAISE(auto values, child(1));
      QUIVER_ASSIGN_OR_RAISE(int64_t erun, GoldenRun(run_ends.first->at("DATA"), ei));
      // Actual run: first run end greater than the physical slot.
      const ArrayData& re = *run_ends.second;
      int re_width = 0;
      bool re_signed = true;
      if (!IntegerLayout(re.type->id, &re_width, &re_signed)) {
        return Broken(path, "run ends are not integers");
      }
      int64_t lo = 0, hi = re.length;  // binary search in [lo, hi)
      while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        const uint8_t* p = At(re, 1, (re.offset + mid) * re_width, re_width);
        if (!p) return OutOfRange(path, 1, (re.offset + mid) * re_width, re_width, re);
        if (LoadInt(p, re_width, true) > slot) {
          hi = mid;
        } else {
          lo = mid + 1;
        }
      }
      if (lo >= re.length) return Broken(path, fmt::format("slot {} past the last run end", slot));
      PathNode values_path{&path, "values", -1, -1};
      return CompareSlot(child_fields[1], *values.first, erun, *values.second, lo, values_path);
    }
    default:
      return Broken(path, fmt::format("comparer does not handle type {}", type.ToString()));
  }
}

}  // namespace

Status CompareColumn(const GoldenFile& golden, const json& field, const json& column,
                     const ArrayData& actual, const std::string& path) {
  try {
    Comparer comparer(golden, "");
    PathNode root{nullptr, path, -1, -1};
    return comparer.CompareArray(field, column, actual, root);
  } catch (const json::exception& e) {
    return Status::Invalid("{}: {}: bad golden json: {}", golden.path, path, e.what());
  }
}

Status CompareBatch(const GoldenFile& golden, int batch_index, const RecordBatch& actual) {
  const std::string prefix = fmt::format("{}: batch {}: ", golden.short_name(), batch_index);
  try {
    const json& batch = golden.doc.at("batches").at(batch_index);
    if (Status st = CompareSchemas(*golden.schema, *actual.schema()); !st.ok()) {
      return WithPrefix(prefix, st);
    }
    const int64_t count = batch.at("count").get<int64_t>();
    if (actual.num_rows() != count) {
      return Status::Invalid("mismatch: {}row count: expected {}, got {}", prefix, count,
                             actual.num_rows());
    }
    const json& fields = golden.doc.at("schema").at("fields");
    const json& columns = batch.at("columns");
    if (static_cast<int64_t>(columns.size()) != actual.num_columns() ||
        fields.size() != columns.size()) {
      return Status::Invalid("mismatch: {}number of columns: expected {}, got {}", prefix,
                             columns.size(), actual.num_columns());
    }
    Comparer comparer(golden, prefix);
    for (size_t i = 0; i < columns.size(); ++i) {
      const ArrayRef& column = actual.column(static_cast<int>(i));
      const std::string& name = fields[i].at("name").get_ref<const std::string&>();
      if (!column) return Status::Invalid("mismatch: {}{}: column is null", prefix, name);
      PathNode root{nullptr, name, -1, -1};
      QUIVER_RETURN_NOT_OK(comparer.CompareArray(fields[i], columns[i], *column, root));
    }
    return Status::OK();
  } catch (const json::exception& e) {
    return Status::Invalid("{}bad golden json: {}", prefix, e.what());
  }
}

}  // namespace quiver::testing
