// Host-side access to device tensors as integers: one element by dtype, and whole tensors
// between ONNX (logical) order and the device's physical layout, via the `tensor_origin`
// table onnx2hpp emits. Used by the corpus tests, the benchmarks and the examples' loaders.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <tessera/core/dtype.hpp>
#include <tessera/graph/origin.hpp>

namespace tessera::tools {

inline std::int64_t load_element(dtype type, const std::byte* base, std::int64_t index) {
  switch (type) {
    case dtype::s8: return reinterpret_cast<const std::int8_t*>(base)[index];
    case dtype::u8: return reinterpret_cast<const std::uint8_t*>(base)[index];
    case dtype::s16: return reinterpret_cast<const std::int16_t*>(base)[index];
    case dtype::u16: return reinterpret_cast<const std::uint16_t*>(base)[index];
    case dtype::s32: return reinterpret_cast<const std::int32_t*>(base)[index];
  }
  return 0;
}

inline void store_element(dtype type, std::byte* base, std::int64_t index, std::int64_t v) {
  switch (type) {
    case dtype::s8: reinterpret_cast<std::int8_t*>(base)[index] = static_cast<std::int8_t>(v); break;
    case dtype::u8: reinterpret_cast<std::uint8_t*>(base)[index] = static_cast<std::uint8_t>(v); break;
    case dtype::s16: reinterpret_cast<std::int16_t*>(base)[index] = static_cast<std::int16_t>(v); break;
    case dtype::u16: reinterpret_cast<std::uint16_t*>(base)[index] = static_cast<std::uint16_t>(v); break;
    case dtype::s32: reinterpret_cast<std::int32_t*>(base)[index] = static_cast<std::int32_t>(v); break;
  }
}

/// Device bytes of one tensor, read back in logical (ONNX) order.
inline std::vector<std::int64_t> read_logical(const tensor_origin& origin, dtype type, const std::byte* data) {
  const std::int64_t n = origin.logical.elements();
  std::vector<std::int64_t> values(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) values[static_cast<std::size_t>(i)] = load_element(type, data, origin.physical_index(i));
  return values;
}

/// Logical (ONNX-order) values written into a device buffer in its physical layout.
inline void write_logical(const tensor_origin& origin, dtype type, const std::vector<std::int64_t>& values,
                          std::byte* data) {
  for (std::size_t k = 0; k < values.size(); ++k)
    store_element(type, data, origin.physical_index(static_cast<std::int64_t>(k)), values[k]);
}

}  // namespace tessera::tools
