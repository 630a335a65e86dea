#include "functions/kernel_util.h"

namespace quiver::kernels {

Result<std::shared_ptr<MutableBuffer>> AllocateValues(int64_t n, int width, MemoryPool* pool) {
  QUIVER_ASSIGN_OR_RAISE(auto buf, MutableBuffer::Allocate(std::max<int64_t>(n, 1) * width, pool));
  buf->ZeroPadding();
  return buf;
}

Result<std::shared_ptr<MutableBuffer>> AllocateBitmap(int64_t n, MemoryPool* pool) {
  return AllocateZeroed(bit_util::BytesForBits(std::max<int64_t>(n, 1)), pool);
}

Result<std::shared_ptr<Buffer>> PropagateValidity(const std::vector<VectorRef>& inputs, int64_t n,
                                                  MemoryPool* pool, int64_t* null_count) {
  *null_count = 0;
  bool any = false;
  for (const auto& in : inputs) {
    if (in.array->type->id == TypeId::kNull || in.array->MayHaveNulls()) any = true;
  }
  if (!any) return std::shared_ptr<Buffer>();
  QUIVER_ASSIGN_OR_RAISE(auto bits, AllocateBitmap(n, pool));
  uint8_t* out = bits->mutable_data();
  bool first = true;
  for (const auto& in : inputs) {
    ValidAccess valid(in);
    if (valid.always_valid()) continue;
    if (first) {
      if (!in.constant && in.sel == nullptr && !valid.all_null) {
        bit_util::CopyBitmap(valid.bits, valid.offset, n, out, 0);
      } else {
        for (int64_t i = 0; i < n; ++i) bit_util::SetBitTo(out, i, valid(i));
      }
      first = false;
    } else {
      for (int64_t i = 0; i < n; ++i) {
        if (!valid(i)) bit_util::ClearBit(out, i);
      }
    }
  }
  if (first) {  // every input turned out to have no nulls
    return std::shared_ptr<Buffer>();
  }
  *null_count = n - bit_util::CountSetBits(out, 0, n);
  if (*null_count == 0) return std::shared_ptr<Buffer>();
  return std::shared_ptr<Buffer>(std::move(bits));
}

Result<FixedOutput> MakeFixedOutput(const TypeRef& type, const std::vector<VectorRef>& inputs,
                                    int64_t n, MemoryPool* pool) {
  FixedOutput out;
  const int width = type->id == TypeId::kBool ? 0 : type->byte_width_of_values();
  if (type->id == TypeId::kBool) {
    QUIVER_ASSIGN_OR_RAISE(out.values, AllocateBitmap(n, pool));
  } else {
    QUIVER_ASSIGN_OR_RAISE(out.values, AllocateValues(n, width, pool));
  }
  QUIVER_ASSIGN_OR_RAISE(out.validity, PropagateValidity(inputs, n, pool, &out.null_count));
  return out;
}

ArrayRef FinishFixed(const TypeRef& type, int64_t n, FixedOutput&& out) {
  return ArrayData::Make(type, n, {std::move(out.validity), std::move(out.values)}, out.null_count);
}

namespace {

template <typename T>
void GatherFixed(const VectorRef& v, int64_t n, T* out) {
  DispatchFixed<T>(v, [&](auto get) {
    for (int64_t i = 0; i < n; ++i) out[i] = get(i);
  });
}

}  // namespace

Result<ArrayRef> Materialize(const VectorRef& v, int64_t n, MemoryPool* pool) {
  const TypeRef& type = v.array->type;
  if (!v.constant && v.sel == nullptr) {
    if (v.array->length == n) return v.array->Slice(0, n);  // shares buffers
  }
  if (type->id == TypeId::kNull) return MakeArrayOfNull(type, n, pool);
  int64_t null_count = 0;
  QUIVER_ASSIGN_OR_RAISE(auto validity, PropagateValidity({v}, n, pool, &null_count));
  switch (type->id) {
    case TypeId::kStruct: {
      // Each field gathered over the same rows (a field's slot r + offset).
      std::vector<uint32_t> rows(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) rows[static_cast<size_t>(i)] = static_cast<uint32_t>(v.array->offset + v.index(i));
      std::vector<ArrayRef> fields;
      for (const ArrayRef& child : v.array->children) {
        VectorRef cv{child.get(), rows.data(), false};
        QUIVER_ASSIGN_OR_RAISE(ArrayRef f, Materialize(cv, n, pool));
        fields.push_back(std::move(f));
      }
      return ArrayData::Make(type, n, {std::move(validity)}, null_count, 0, std::move(fields));
    }
    case TypeId::kMap:
    case TypeId::kList: {
      // New offsets over the elements of the rows read, gathered from the
      // child (recursively for lists of lists). NULL rows hold no elements.
      const int32_t* in_off = v.array->GetValues<int32_t>(1);
      int64_t total = 0;
      for (int64_t i = 0; i < n; ++i) {
        const int64_t r = v.index(i);
        if (v.array->IsValid(r)) total += in_off[r + 1] - in_off[r];
      }
      if (total > INT32_MAX) return Status::Invalid("array column with more than 2^31 elements in one vector");
      QUIVER_ASSIGN_OR_RAISE(auto offsets, AllocateValues(n + 1, 4, pool));
      std::vector<uint32_t> rows(static_cast<size_t>(total));
      int32_t* off = offsets->mutable_data_as<int32_t>();
      int64_t pos = 0;
      off[0] = 0;
      for (int64_t i = 0; i < n; ++i) {
        const int64_t r = v.index(i);
        if (v.array->IsValid(r)) {
          for (int32_t k = in_off[r]; k < in_off[r + 1]; ++k) rows[static_cast<size_t>(pos++)] = static_cast<uint32_t>(k);
        }
        off[i + 1] = static_cast<int32_t>(pos);
      }
      const ArrayRef& child = v.array->children[0];
      ArrayRef elements;
      if (total == 0) {
        elements = child->Slice(0, 0);
      } else {
        VectorRef cv{child.get(), rows.data(), false};
        QUIVER_ASSIGN_OR_RAISE(elements, Materialize(cv, total, pool));
      }
      return ArrayData::Make(type, n, {std::move(validity), std::move(offsets)}, null_count, 0,
                             {std::move(elements)});
    }
    case TypeId::kString:
    case TypeId::kBinary: {
      StringAccess get(v);
      int64_t bytes = 0;
      for (int64_t i = 0; i < n; ++i) bytes += static_cast<int64_t>(get(i).size());
      QUIVER_ASSIGN_OR_RAISE(auto offsets, AllocateValues(n + 1, 4, pool));
      QUIVER_ASSIGN_OR_RAISE(auto data, AllocateValues(bytes, 1, pool));
      int32_t* off = offsets->mutable_data_as<int32_t>();
      uint8_t* d = data->mutable_data();
      int64_t pos = 0;
      off[0] = 0;
      for (int64_t i = 0; i < n; ++i) {
        std::string_view s = get(i);
        if (!s.empty()) std::memcpy(d + pos, s.data(), s.size());
        pos += static_cast<int64_t>(s.size());
        off[i + 1] = static_cast<int32_t>(pos);
      }
      if (pos > INT32_MAX) return Status::Invalid("string column larger than 2 GiB in one vector");
      return ArrayData::Make(type, n, {std::move(validity), std::move(offsets), std::move(data)},
                             null_count);
    }
    case TypeId::kBool: {
      QUIVER_ASSIGN_OR_RAISE(auto bits, AllocateBitmap(n, pool));
      BoolAccess get(v);
      uint8_t* out = bits->mutable_data();
      for (int64_t i = 0; i < n; ++i) {
        if (get(i)) bit_util::SetBit(out, i);
      }
      return ArrayData::Make(type, n, {std::move(validity), std::move(bits)}, null_count);
    }
    default:
      break;
  }
  const int width = type->byte_width_of_values();
  if (width <= 0) return Status::Invalid("cannot gather values of type {}", type->ToString());
  QUIVER_ASSIGN_OR_RAISE(auto values, AllocateValues(n, width, pool));
  switch (width) {
    case 1:
      GatherFixed<uint8_t>(v, n, values->mutable_data_as<uint8_t>());
      break;
    case 2:
      GatherFixed<uint16_t>(v, n, values->mutable_data_as<uint16_t>());
      break;
    case 4:
      GatherFixed<uint32_t>(v, n, values->mutable_data_as<uint32_t>());
      break;
    case 8:
      GatherFixed<uint64_t>(v, n, values->mutable_data_as<uint64_t>());
      break;
    case 16:
      GatherFixed<unsigned __int128>(v, n, values->mutable_data_as<unsigned __int128>());
      break;
    default: {
      const uint8_t* src = v.array->GetRaw<uint8_t>(1) + v.array->offset * width;
      uint8_t* dst = values->mutable_data();
      for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * width, src + v.index(i) * width, width);
    }
  }
  return ArrayData::Make(type, n, {std::move(validity), std::move(values)}, null_count);
}

Result<ArrayRef> Gather(const ArrayRef& array, const uint32_t* sel, int64_t n, MemoryPool* pool) {
  if (sel == nullptr) {
    if (array->length == n) return array;
    return array->Slice(0, n);
  }
  VectorRef v{array.get(), sel, false};
  return Materialize(v, n, pool);
}

namespace {

template <typename T>
void ScatterValues(const T* in, const uint32_t* sel, int64_t n, T* out) {
  for (int64_t i = 0; i < n; ++i) out[sel[i]] = in[i];
}

}  // namespace

bool CanScatter(const DataType& type) { return type.id != TypeId::kBool && type.byte_width_of_values() > 0; }

Result<ArrayRef> Scatter(const ArrayRef& dense, const uint32_t* sel, int64_t n, int64_t length, MemoryPool* pool) {
  const int width = dense->type->byte_width_of_values();
  if (!CanScatter(*dense->type)) return Status::Invalid("cannot scatter values of type {}", dense->type->ToString());
  QUIVER_ASSIGN_OR_RAISE(auto values, AllocateValues(length, width, pool));
  switch (width) {
    case 1:
      ScatterValues(dense->GetValues<uint8_t>(1), sel, n, values->mutable_data_as<uint8_t>());
      break;
    case 2:
      ScatterValues(dense->GetValues<uint16_t>(1), sel, n, values->mutable_data_as<uint16_t>());
      break;
    case 4:
      ScatterValues(dense->GetValues<uint32_t>(1), sel, n, values->mutable_data_as<uint32_t>());
      break;
    case 8:
      ScatterValues(dense->GetValues<uint64_t>(1), sel, n, values->mutable_data_as<uint64_t>());
      break;
    case 16:
      ScatterValues(dense->GetValues<unsigned __int128>(1), sel, n, values->mutable_data_as<unsigned __int128>());
      break;
    default:
      return Status::Invalid("cannot scatter values of type {}", dense->type->ToString());
  }
  std::shared_ptr<Buffer> validity;
  int64_t null_count = 0;
  if (dense->MayHaveNulls()) {
    // Unselected slots read as NULL (nothing reads them through `sel`).
    QUIVER_ASSIGN_OR_RAISE(auto bits, AllocateBitmap(length, pool));
    uint8_t* b = bits->mutable_data();
    int64_t valid = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (dense->IsValid(i)) {
        bit_util::SetBit(b, sel[i]);
        ++valid;
      }
    }
    validity = std::move(bits);
    null_count = length - valid;
  }
  return ArrayData::Make(dense->type, length, {std::move(validity), std::move(values)}, null_count);
}

Result<ArrayRef> GatherTo(const ArrayRef& src, const uint32_t* rows, const uint32_t* slots, int64_t n,
                          int64_t length, MemoryPool* pool) {
  const TypeRef& type = src->type;
  // Validity: a slot is valid when it received a valid value.
  int64_t valid_count = 0;
  QUIVER_ASSIGN_OR_RAISE(auto bits, AllocateBitmap(length, pool));
  uint8_t* vb = bits->mutable_data();
  for (int64_t i = 0; i < n; ++i) {
    if (src->IsValid(rows[i])) {
      bit_util::SetBit(vb, slots[i]);
      ++valid_count;
    }
  }
  std::shared_ptr<Buffer> validity;
  if (valid_count < length) validity = std::move(bits);
  const int64_t null_count = length - valid_count;
  switch (type->id) {
    case TypeId::kNull:
      return MakeArrayOfNull(type, length, pool);
    case TypeId::kStruct:
    case TypeId::kMap:
    case TypeId::kList: {
      // Through Materialize: slots that receive nothing read row `rows[0]`
      // (or an empty list) and are masked by the validity above.
      std::vector<int64_t> from(static_cast<size_t>(length), -1);
      for (int64_t i = 0; i < n; ++i) from[slots[i]] = rows[i];
      // An all-empty source: a list of NULLs.
      if (src->length == 0) return MakeArrayOfNull(type, length, pool);
      std::vector<uint32_t> sel(static_cast<size_t>(length));
      int64_t null_row = -1;
      for (int64_t r = 0; r < src->length && null_row < 0; ++r) {
        if (src->IsNull(r)) null_row = r;
      }
      for (int64_t j = 0; j < length; ++j) {
        const int64_t r = from[static_cast<size_t>(j)];
        sel[static_cast<size_t>(j)] = static_cast<uint32_t>(r >= 0 ? r : null_row >= 0 ? null_row : 0);
      }
      VectorRef v{src.get(), sel.data(), false};
      QUIVER_ASSIGN_OR_RAISE(ArrayRef out, Materialize(v, length, pool));
      if (null_row < 0 && valid_count < length) {
        // No NULL row to borrow: the unfilled slots hold a copy of row 0;
        // give the result the validity computed above.
        auto masked = std::make_shared<ArrayData>(*out);
        masked->buffers[0] = validity;
        masked->null_count = null_count;
        return ArrayRef(masked);
      }
      return out;
    }
    case TypeId::kString:
    case TypeId::kBinary: {
      // Slots that receive nothing hold empty strings.
      std::vector<int64_t> from(static_cast<size_t>(length), -1);
      for (int64_t i = 0; i < n; ++i) from[slots[i]] = rows[i];
      const int32_t* so = src->GetValues<int32_t>(1);
      const uint8_t* sd = src->buffers[2] ? src->buffers[2]->data() : nullptr;
      int64_t bytes = 0;
      for (int64_t i = 0; i < n; ++i) bytes += so[rows[i] + 1] - so[rows[i]];
      if (bytes > INT32_MAX) return Status::Invalid("string column larger than 2 GiB in one vector");
      QUIVER_ASSIGN_OR_RAISE(auto offsets, AllocateValues(length + 1, 4, pool));
      QUIVER_ASSIGN_OR_RAISE(auto data, AllocateValues(bytes, 1, pool));
      int32_t* off = offsets->mutable_data_as<int32_t>();
      uint8_t* d = data->mutable_data();
      int32_t pos = 0;
      off[0] = 0;
      for (int64_t j = 0; j < length; ++j) {
        const int64_t r = from[static_cast<size_t>(j)];
        if (r >= 0) {
          const int32_t len = so[r + 1] - so[r];
          if (len > 0) std::memcpy(d + pos, sd + so[r], static_cast<size_t>(len));
          pos += len;
        }
        off[j + 1] = pos;
      }
      return ArrayData::Make(type, length, {std::move(validity), std::move(offsets), std::move(data)}, null_count);
    }
    case TypeId::kBool: {
      QUIVER_ASSIGN_OR_RAISE(auto values, AllocateBitmap(length, pool));
      uint8_t* out = values->mutable_data();
      const uint8_t* in = src->GetRaw<uint8_t>(1);
      for (int64_t i = 0; i < n; ++i) {
        if (bit_util::GetBit(in, src->offset + rows[i])) bit_util::SetBit(out, slots[i]);
      }
      return ArrayData::Make(type, length, {std::move(validity), std::move(values)}, null_count);
    }
    default:
      break;
  }
  const int width = type->byte_width_of_values();
  if (width <= 0) return Status::Invalid("cannot gather values of type {}", type->ToString());
  QUIVER_ASSIGN_OR_RAISE(auto values, AllocateValues(length, width, pool));
  auto move = [&](auto tag) {
    using T = decltype(tag);
    const T* in = src->GetValues<T>(1);
    T* out = values->mutable_data_as<T>();
    for (int64_t i = 0; i < n; ++i) out[slots[i]] = in[rows[i]];
  };
  switch (width) {
    case 1:
      move(uint8_t{});
      break;
    case 2:
      move(uint16_t{});
      break;
    case 4:
      move(uint32_t{});
      break;
    case 8:
      move(uint64_t{});
      break;
    case 16:
      move(static_cast<unsigned __int128>(0));
      break;
    default:
      return Status::Invalid("cannot gather values of type {}", type->ToString());
  }
  return ArrayData::Make(type, length, {std::move(validity), std::move(values)}, null_count);
}

StringOutput::StringOutput(const TypeRef& type, int64_t n, MemoryPool* pool) : builder_(type, pool) {
  (void)builder_.Reserve(n);
}

}  // namespace quiver::kernels
