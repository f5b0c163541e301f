// The shape a kernel computes at once, which the tile solver rounds tiles to (DORY's
// MATMUL_CH x MATMUL_W heuristic) and which `lanes` SIMD elements feed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <tessera/core/requant.hpp>
#include <tessera/kernels/family.hpp>
#include <tessera/kernels/reference/binary.hpp>
#include <tessera/kernels/reference/conv2d.hpp>
#include <tessera/kernels/reference/gemm.hpp>
#include <tessera/kernels/reference/matmul.hpp>
#include <tessera/kernels/reference/pool.hpp>

namespace tessera::kernels {

struct micro_tile {
  int channels = 1;  ///< output channels per inner step
  int width = 1;     ///< output pixels (or rows) per inner step
  int lanes = 1;     ///< 8-bit elements per SIMD operation
};

/// Specialized per family in <family>/traits.hpp.
template <kernel_family F>
struct family_traits;

/// Specialized per family in <family>/kernels.hpp (only where the architecture is available).
template <kernel_family F>
struct family_kernels;

template <class T>
inline constexpr bool is_8bit = sizeof(T) == 1;

/// Element types the optimized families take: 8-bit integer inputs and weights (never bool),
/// 8-, 16- or 32-bit integer outputs (written with static_cast semantics, as the reference does).
template <class T>
inline constexpr bool is_8bit_int = std::is_integral_v<T> && !std::is_same_v<T, bool> && sizeof(T) == 1;
template <class T>
inline constexpr bool is_output_int =
    std::is_integral_v<T> && !std::is_same_v<T, bool> && (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4);

/// Add/Sub layouts the families' elementwise kernels run: A contiguous over the output; B
/// contiguous too, or one row of the innermost axis broadcast over all others (a per-channel
/// operand). Axes of extent 1 have no stride.
constexpr bool binary_layout_supported(const reference::binary_dims& d) {
  if (d.rank < 1) return false;
  std::int64_t stride = 1;
  bool b_contiguous = true, b_row = true;
  for (int ax = d.rank - 1; ax >= 0; --ax) {
    const auto a = static_cast<std::size_t>(ax);
    if (d.out[a] != 1 && d.a_stride[a] != stride) return false;
    if (d.out[a] != 1 && d.b_stride[a] != stride) b_contiguous = false;
    if (d.out[a] != 1 && d.b_stride[a] != (ax == d.rank - 1 ? 1 : 0)) b_row = false;
    stride *= d.out[a];
  }
  return b_contiguous || b_row;
}

}  // namespace tessera::kernels
