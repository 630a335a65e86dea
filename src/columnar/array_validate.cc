// ArrayData::Validate: makes sure an array's buffers can be read without
// going out of bounds. Readers of untrusted files (IPC, Parquet) call it on
// everything they produce, so every check here is a crash a malformed file
// cannot cause. Offsets, dictionary indices, union codes and run ends are
// always checked (O(n)); `full` adds UTF-8 validation.
#include <fmt/format.h>

#include "columnar/array.h"
#include "common/utf8.h"

namespace quiver {

namespace {

constexpr int kMaxNesting = 64;

int ExpectedBuffers(TypeId id) {
  switch (id) {
    case TypeId::kNull: return 0;
    case TypeId::kRunEndEncoded: return 0;
    case TypeId::kStruct:
    case TypeId::kFixedSizeList: return 1;
    case TypeId::kSparseUnion: return 1;
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kLargeString:
    case TypeId::kLargeBinary:
    case TypeId::kListView:
    case TypeId::kLargeListView: return 3;
    case TypeId::kDenseUnion: return 2;
    default: return 2;  // validity + values/offsets (views: + variadic)
  }
}

Status CheckBuffer(const ArrayData& a, int index, int64_t min_bytes, const char* what) {
  if (min_bytes <= 0) return Status::OK();
  if (static_cast<int>(a.buffers.size()) <= index || a.buffers[index] == nullptr) {
    return Status::Invalid("{} array of length {}: missing {} buffer", a.type->ToString(), a.length,
                           what);
  }
  if (a.buffers[index]->size() < min_bytes) {
    return Status::Invalid("{} array of length {} (offset {}): {} buffer has {} bytes, needs {}",
                           a.type->ToString(), a.length, a.offset, what,
                           a.buffers[index]->size(), min_bytes);
  }
  return Status::OK();
}

// Offsets [offset, offset+length] must be non-decreasing and within [0, limit].
template <typename O>
Status CheckOffsets(const ArrayData& a, int64_t limit, const char* what) {
  if (a.length == 0) return Status::OK();
  QUIVER_RETURN_NOT_OK(CheckBuffer(a, 1, (a.offset + a.length + 1) * int64_t{sizeof(O)}, "offsets"));
  const O* offs = a.GetValues<O>(1);
  if (offs[0] < 0 || offs[0] > limit) {
    return Status::Invalid("{} array: first offset {} out of bounds [0, {}]", a.type->ToString(),
                           static_cast<int64_t>(offs[0]), limit);
  }
  for (int64_t i = 0; i < a.length; ++i) {
    if (offs[i + 1] < offs[i] || offs[i + 1] > limit) {
      return Status::Invalid("{} array: offset {} at slot {} is out of order or past the {} ({})",
                             a.type->ToString(), static_cast<int64_t>(offs[i + 1]), i + 1, what,
                             limit);
    }
  }
  return Status::OK();
}

template <typename O>
Status CheckListViews(const ArrayData& a, int64_t child_length) {
  if (a.length == 0) return Status::OK();
  QUIVER_RETURN_NOT_OK(CheckBuffer(a, 1, (a.offset + a.length) * int64_t{sizeof(O)}, "offsets"));
  QUIVER_RETURN_NOT_OK(CheckBuffer(a, 2, (a.offset + a.length) * int64_t{sizeof(O)}, "sizes"));
  const O* offs = a.GetValues<O>(1);
  const O* sizes = a.GetValues<O>(2);
  for (int64_t i = 0; i < a.length; ++i) {
    if (!a.IsValid(i)) continue;
    // Written as a subtraction: offset + size may overflow int64 in hostile input.
    if (offs[i] < 0 || sizes[i] < 0 || offs[i] > child_length ||
        static_cast<int64_t>(sizes[i]) > child_length - static_cast<int64_t>(offs[i])) {
      return Status::Invalid("{} array: view {} (offset {}, size {}) is outside the child of length {}",
                             a.type->ToString(), i, static_cast<int64_t>(offs[i]),
                             static_cast<int64_t>(sizes[i]), child_length);
    }
  }
  return Status::OK();
}

Status CheckViews(const ArrayData& a, bool full) {
  if (a.length == 0) return Status::OK();
  QUIVER_RETURN_NOT_OK(CheckBuffer(a, 1, (a.offset + a.length) * 16, "views"));
  const int64_t num_variadic = static_cast<int64_t>(a.buffers.size()) - 2;
  const uint8_t* views = a.buffers[1]->data();
  for (int64_t i = 0; i < a.length; ++i) {
    if (!a.IsValid(i)) continue;
    const uint8_t* v = views + (a.offset + i) * 16;
    int32_t len, index, off;
    std::memcpy(&len, v, 4);
    if (len < 0) return Status::Invalid("{} array: negative view length at slot {}", a.type->ToString(), i);
    if (len > 12) {
      std::memcpy(&index, v + 8, 4);
      std::memcpy(&off, v + 12, 4);
      if (index < 0 || index >= num_variadic || a.buffers[2 + index] == nullptr || off < 0 ||
          static_cast<int64_t>(off) + len > a.buffers[2 + index]->size()) {
        return Status::Invalid("{} array: view at slot {} points outside its data buffers",
                               a.type->ToString(), i);
      }
    }
    if (full && a.type->id == TypeId::kStringView && !ValidateUtf8(a.GetString(i))) {
      return Status::Invalid("string_view array: invalid UTF-8 at slot {}", i);
    }
  }
  return Status::OK();
}

Status ValidateImpl(const ArrayData& a, bool full, int depth) {
  if (depth > kMaxNesting) return Status::Invalid("array nesting deeper than {}", kMaxNesting);
  if (a.type == nullptr) return Status::Invalid("array without a type");
  const DataType& t = *a.type;
  if (a.length < 0 || a.offset < 0) {
    return Status::Invalid("{} array: negative length {} or offset {}", t.ToString(), a.length, a.offset);
  }
  if (a.offset + a.length < a.offset) return Status::Invalid("{} array: length overflows", t.ToString());
  if (a.null_count > a.length) {
    return Status::Invalid("{} array: null count {} exceeds length {}", t.ToString(), a.null_count,
                           a.length);
  }
  const int expected = ExpectedBuffers(t.id);
  const bool views = t.id == TypeId::kStringView || t.id == TypeId::kBinaryView;
  if (views ? static_cast<int>(a.buffers.size()) < 2
            : static_cast<int>(a.buffers.size()) != expected &&
                  !(expected == 0 && a.buffers.size() <= 1)) {
    return Status::Invalid("{} array: expected {} buffers, got {}", t.ToString(), expected,
                           a.buffers.size());
  }
  const bool has_validity = t.id != TypeId::kNull && t.id != TypeId::kSparseUnion &&
                            t.id != TypeId::kDenseUnion && t.id != TypeId::kRunEndEncoded;
  if (has_validity && a.buffers[0] != nullptr && a.length > 0) {
    QUIVER_RETURN_NOT_OK(
        CheckBuffer(a, 0, bit_util::BytesForBits(a.offset + a.length), "validity"));
  }
  const int64_t end = a.offset + a.length;
  auto need_children = [&](size_t n) -> Status {
    if (a.children.size() != n) {
      return Status::Invalid("{} array: expected {} child arrays, got {}", t.ToString(), n,
                             a.children.size());
    }
    for (const auto& c : a.children) {
      if (c == nullptr) return Status::Invalid("{} array: missing child array", t.ToString());
    }
    return Status::OK();
  };
  switch (t.id) {
    case TypeId::kNull:
      return Status::OK();
    case TypeId::kBool:
      return CheckBuffer(a, 1, bit_util::BytesForBits(end), "values");
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kLargeString:
    case TypeId::kLargeBinary: {
      const int64_t data_size = a.buffers[2] ? a.buffers[2]->size() : 0;
      const bool large = t.id == TypeId::kLargeString || t.id == TypeId::kLargeBinary;
      QUIVER_RETURN_NOT_OK(large ? CheckOffsets<int64_t>(a, data_size, "data")
                                 : CheckOffsets<int32_t>(a, data_size, "data"));
      if (full && (t.id == TypeId::kString || t.id == TypeId::kLargeString)) {
        for (int64_t i = 0; i < a.length; ++i) {
          if (a.IsValid(i) && !ValidateUtf8(a.GetString(i))) {
            return Status::Invalid("{} array: invalid UTF-8 at slot {}", t.ToString(), i);
          }
        }
      }
      return Status::OK();
    }
    case TypeId::kStringView:
    case TypeId::kBinaryView:
      return CheckViews(a, full);
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kMap: {
      QUIVER_RETURN_NOT_OK(need_children(1));
      const int64_t n = a.children[0]->length;
      QUIVER_RETURN_NOT_OK(t.id == TypeId::kLargeList ? CheckOffsets<int64_t>(a, n, "child")
                                                      : CheckOffsets<int32_t>(a, n, "child"));
      return ValidateImpl(*a.children[0], full, depth + 1);
    }
    case TypeId::kListView:
    case TypeId::kLargeListView: {
      QUIVER_RETURN_NOT_OK(need_children(1));
      const int64_t n = a.children[0]->length;
      QUIVER_RETURN_NOT_OK(t.id == TypeId::kLargeListView ? CheckListViews<int64_t>(a, n)
                                                          : CheckListViews<int32_t>(a, n));
      return ValidateImpl(*a.children[0], full, depth + 1);
    }
    case TypeId::kFixedSizeList: {
      QUIVER_RETURN_NOT_OK(need_children(1));
      if (t.list_size < 0) return Status::Invalid("negative fixed_size_list size");
      if (a.children[0]->length < end * t.list_size) {
        return Status::Invalid("{} array: child has {} values, needs {}", t.ToString(),
                               a.children[0]->length, end * t.list_size);
      }
      return ValidateImpl(*a.children[0], full, depth + 1);
    }
    case TypeId::kStruct: {
      QUIVER_RETURN_NOT_OK(need_children(t.children.size()));
      for (const auto& c : a.children) {
        if (c->length < end) {
          return Status::Invalid("{} array: child has {} rows, needs {}", t.ToString(), c->length, end);
        }
        QUIVER_RETURN_NOT_OK(ValidateImpl(*c, full, depth + 1));
      }
      return Status::OK();
    }
    case TypeId::kSparseUnion:
    case TypeId::kDenseUnion: {
      QUIVER_RETURN_NOT_OK(need_children(t.children.size()));
      QUIVER_RETURN_NOT_OK(CheckBuffer(a, 0, end, "type ids"));
      const bool dense = t.id == TypeId::kDenseUnion;
      if (dense) QUIVER_RETURN_NOT_OK(CheckBuffer(a, 1, end * 4, "offsets"));
      const int8_t* codes = a.GetValues<int8_t>(0);
      for (int64_t i = 0; i < a.length; ++i) {
        int child = -1;
        for (size_t k = 0; k < t.type_codes.size(); ++k) {
          if (t.type_codes[k] == codes[i]) child = static_cast<int>(k);
        }
        if (child < 0 || child >= static_cast<int>(a.children.size())) {
          return Status::Invalid("{} array: unknown type code {} at slot {}", t.ToString(),
                                 static_cast<int>(codes[i]), i);
        }
        const int64_t idx = dense ? a.GetValues<int32_t>(1)[i] : a.offset + i;
        if (idx < 0 || idx >= a.children[child]->length) {
          return Status::Invalid("{} array: slot {} points to row {} of a child of length {}",
                                 t.ToString(), i, idx, a.children[child]->length);
        }
      }
      for (const auto& c : a.children) QUIVER_RETURN_NOT_OK(ValidateImpl(*c, full, depth + 1));
      return Status::OK();
    }
    case TypeId::kDictionary: {
      if (a.dictionary == nullptr) return Status::Invalid("dictionary array without a dictionary");
      const int w = t.index_type->bit_width() / 8;
      if (!t.index_type->is_integer()) return Status::Invalid("dictionary index type must be an integer");
      QUIVER_RETURN_NOT_OK(CheckBuffer(a, 1, end * w, "indices"));
      const int64_t n = a.dictionary->length;
      for (int64_t i = 0; i < a.length; ++i) {
        if (!a.IsValid(i)) continue;
        const int64_t idx = a.GetDictionaryIndex(i);
        if (idx < 0 || idx >= n) {
          return Status::Invalid("dictionary index {} at slot {} is outside the dictionary of {} values",
                                 idx, i, n);
        }
      }
      return ValidateImpl(*a.dictionary, full, depth + 1);
    }
    case TypeId::kRunEndEncoded: {
      QUIVER_RETURN_NOT_OK(need_children(2));
      const ArrayData& ends = *a.children[0];
      const TypeId end_id = ends.type->id;
      if (end_id != TypeId::kInt16 && end_id != TypeId::kInt32 && end_id != TypeId::kInt64) {
        return Status::Invalid("run ends must be int16, int32 or int64, not {}", ends.type->ToString());
      }
      QUIVER_RETURN_NOT_OK(ValidateImpl(ends, full, depth + 1));
      QUIVER_RETURN_NOT_OK(ValidateImpl(*a.children[1], full, depth + 1));
      if (ends.GetNullCount() != 0) return Status::Invalid("run ends must not be null");
      if (a.children[1]->length < ends.length) {
        return Status::Invalid("run_end_encoded array: fewer values than runs");
      }
      int64_t prev = 0;
      for (int64_t r = 0; r < ends.length; ++r) {
        int64_t v = ends.type->id == TypeId::kInt16   ? ends.GetValues<int16_t>(1)[r]
                    : ends.type->id == TypeId::kInt32 ? ends.GetValues<int32_t>(1)[r]
                                                      : ends.GetValues<int64_t>(1)[r];
        if (v <= prev) return Status::Invalid("run ends must be strictly increasing and positive");
        prev = v;
      }
      if (a.length > 0 && prev < end) {
        return Status::Invalid("run_end_encoded array: runs end at {} but {} rows are needed", prev, end);
      }
      return Status::OK();
    }
    default: {
      const int bits = t.bit_width();
      if (bits <= 0) return Status::Unsupported("validating arrays of type {}", t.ToString());
      return CheckBuffer(a, 1, end * (bits / 8), "values");
    }
  }
}

}  // namespace

Status ArrayData::Validate(bool full) const { return ValidateImpl(*this, full, 0); }

}  // namespace quiver
