// The shape a kernel computes at once, which the tile solver rounds tiles to (DORY's
// MATMUL_CH x MATMUL_W heuristic) and which `lanes` SIMD elements feed.
#pragma once

#include <cstddef>
#include <cstdint>

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

}  // namespace tessera::kernels
