// Reference elementwise Add / Sub / Mul with numpy broadcasting.
//
// Semantics: ../../../../docs/semantics.md ("Add, Sub, Mul").
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include <tessera/core/requant.hpp>
#include <tessera/core/shape.hpp>

namespace tessera::kernels::reference {

enum class binary_op { add, sub, mul };

struct binary_dims {
  int rank;                                       // 1..max_rank
  std::array<int, max_rank> out{};                // output dims
  std::array<std::int64_t, max_rank> a_stride{};  // element strides of A per output dim, 0 where A broadcasts
  std::array<std::int64_t, max_rank> b_stride{};
  // Offsets added to each operand's value before the op (CMSIS-NN's elementwise input offsets):
  // a QLinearMul computes (a - za) * (b - zb), i.e. a_offset = -za, b_offset = -zb. Add and Sub
  // never need them (a constant offset of a sum folds into the requant `add`).
  std::int32_t a_offset = 0;
  std::int32_t b_offset = 0;
};

/// Scratch needed by `binary`: none.
constexpr std::size_t binary_scratch_bytes(const binary_dims&) { return 0; }

/// Whether the case is a plain `a + b` or `a - b` without offsets: the only one the optimized
/// families implement (their traits decline the rest, and the reference runs).
constexpr bool is_plain_add_sub(binary_op op, const binary_dims& d) {
  return op != binary_op::mul && d.a_offset == 0 && d.b_offset == 0;
}

/// out[idx] = x + y, x - y or x * y with x = (int32)a[idx . a_stride] + a_offset and
/// y = (int32)b[idx . b_stride] + b_offset, on true values.
///
/// - `a`, `b`: any layout described by the per-output-dim element strides (broadcast dims
///             have stride 0); 8-bit or int32 values.
/// - `out`:    contiguous row-major over `d.out`; the int32 result when `rq.enabled` is false
///             (the corpus' Add/Sub output), else `rq.apply(result, flat_output_index)`.
/// The int32 result must not overflow: always true for sums of 8-bit and 16-bit operands, and
/// for products of 8-bit operands with offsets in [-255, 255] (|x|, |y| <= 255, so |x*y| < 2^16).
template <class TA, class TB, class TOut>
constexpr void binary(binary_op op, const binary_dims& d, const TA* a, const TB* b, const requant_params& rq,
                      TOut* out) {
  // Row by row along the last output dim: the outer coordinate gives each row's operand offsets
  // (multiplied out once per row), the row then steps them by the last dim's strides. No 64-bit
  // multiplication per element, which a 32-bit core does in several instructions.
  const int last = d.rank > 0 ? d.rank - 1 : 0;  // a rank-0 (scalar) case is one row of one element
  const int n = d.rank > 0 ? d.out[last] : 1;      // elements per output row
  std::int64_t rows = 1;
  for (int ax = 0; ax < last; ++ax) rows *= d.out[ax];
  std::array<int, max_rank> idx{};  // coordinate of the row over dims [0, last), advanced like an odometer
  std::int64_t o = 0;               // flat output index
  for (std::int64_t r = 0; r < rows; ++r) {
    std::int64_t a_off = 0;
    std::int64_t b_off = 0;
    for (int ax = 0; ax < last; ++ax) {
      a_off += idx[ax] * d.a_stride[ax];
      b_off += idx[ax] * d.b_stride[ax];
    }
    for (int i = 0; i < n; ++i, ++o, a_off += d.a_stride[last], b_off += d.b_stride[last]) {
      const std::int32_t x = static_cast<std::int32_t>(a[a_off]) + d.a_offset;
      const std::int32_t y = static_cast<std::int32_t>(b[b_off]) + d.b_offset;
      const std::int32_t v = op == binary_op::add ? x + y : op == binary_op::sub ? x - y : x * y;
      out[o] = static_cast<TOut>(rq.apply(v, o));
    }
    for (int ax = last - 1; ax >= 0; --ax) {
      if (++idx[ax] < d.out[ax]) break;
      idx[ax] = 0;
    }
  }
}

}  // namespace tessera::kernels::reference
