// Element types of device tensors.
//
// Tensors are stored on their *true* integer value (../docs/semantics.md): an unsigned
// 8-bit activation is a `uint8_t`, never an offset `int8_t`.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tessera {

enum class dtype : std::uint8_t { s8, u8, s16, u16, s32 };

/// Storage type of a dtype: `storage_t<dtype::u8>` is `std::uint8_t`.
template <dtype D> struct storage;
template <> struct storage<dtype::s8> { using type = std::int8_t; };
template <> struct storage<dtype::u8> { using type = std::uint8_t; };
template <> struct storage<dtype::s16> { using type = std::int16_t; };
template <> struct storage<dtype::u16> { using type = std::uint16_t; };
template <> struct storage<dtype::s32> { using type = std::int32_t; };
template <dtype D> using storage_t = typename storage<D>::type;

constexpr std::size_t size_of(dtype d) {
  switch (d) {
    case dtype::s8:
    case dtype::u8: return 1;
    case dtype::s16:
    case dtype::u16: return 2;
    case dtype::s32: return 4;
  }
  return 0;
}

constexpr const char* name_of(dtype d) {
  switch (d) {
    case dtype::s8: return "s8";
    case dtype::u8: return "u8";
    case dtype::s16: return "s16";
    case dtype::u16: return "u16";
    case dtype::s32: return "s32";
  }
  return "?";
}

/// Smallest and largest value a dtype holds, as int64 (used by range checks and clamps).
constexpr std::int64_t min_of(dtype d) {
  switch (d) {
    case dtype::s8: return -128;
    case dtype::u8: return 0;
    case dtype::s16: return -32768;
    case dtype::u16: return 0;
    case dtype::s32: return -2147483648LL;
  }
  return 0;
}
constexpr std::int64_t max_of(dtype d) {
  switch (d) {
    case dtype::s8: return 127;
    case dtype::u8: return 255;
    case dtype::s16: return 32767;
    case dtype::u16: return 65535;
    case dtype::s32: return 2147483647LL;
  }
  return 0;
}

}  // namespace tessera
