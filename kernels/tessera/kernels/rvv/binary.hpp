// rvv Add / Sub of two 8-bit tensors with the requantization fused: one row of the innermost
// axis at a time, a +/- b widened to int32 lanes (vsext/vzext: any mix of int8 and uint8, as
// true values), then the row's requantization (requant.hpp).
#pragma once

#include <riscv_vector.h>

#include <cstdint>
#include <type_traits>

#include <tessera/core/requant.hpp>
#include <tessera/kernels/algorithm/binary.hpp>
#include <tessera/kernels/reference/binary.hpp>
#include <tessera/kernels/rvv/requant.hpp>
#include <tessera/kernels/rvv/traits.hpp>

namespace tessera::kernels::rvv {

namespace detail {

/// n 8-bit values as int32 lanes.
template <class T>
inline vint32m8_t load_s32(const T* p, std::size_t vl) {
  if constexpr (std::is_signed_v<T>)
    return __riscv_vsext_vf4_i32m8(__riscv_vle8_v_i8m2(reinterpret_cast<const std::int8_t*>(p), vl), vl);
  else
    return __riscv_vreinterpret_v_u32m8_i32m8(
        __riscv_vzext_vf4_u32m8(__riscv_vle8_v_u8m2(reinterpret_cast<const std::uint8_t*>(p), vl), vl));
}

/// acc[i] = a[i] + b[i] (or a[i] - b[i]) for i < n, on true values.
template <class TA, class TB>
inline void add_sub_row(bool add, const TA* a, const TB* b, int n, std::int32_t* acc) {
  for (int i = 0; i < n;) {
    const std::size_t vl = __riscv_vsetvl_e32m8(std::size_t(n - i));
    const vint32m8_t x = load_s32(a + i, vl), y = load_s32(b + i, vl);
    __riscv_vse32_v_i32m8(acc + i, add ? __riscv_vadd_vv_i32m8(x, y, vl) : __riscv_vsub_vv_i32m8(x, y, vl), vl);
    i += int(vl);
  }
}

}  // namespace detail

/// out = a + b or a - b (reference::binary's contract, bit-exact) for the layouts of
/// `binary_layout_supported`: A contiguous, B contiguous or one innermost row broadcast.
///
/// - `rq`: disabled, per tensor or per channel of the innermost axis.
/// - `out`: contiguous; `scratch`: binary_scratch(d).total bytes, any alignment.
template <class TA, class TB, class TOut>
void binary(reference::binary_op op, const reference::binary_dims& d, const TA* a, const TB* b,
            const requant_params& rq, TOut* out, void* scratch) {
  auto* acc = binary_scratch(d).part<std::int32_t>(scratch, 0);
  const row_requant q = channel_requant_of(rq);
  const bool add = op == reference::binary_op::add;
  algorithm::binary_rows(d, a, b, out, [&](const TA* a_row, const TB* b_row, TOut* out_row, int channels) {
    detail::add_sub_row(add, a_row, b_row, channels, acc);
    requant_row(q, acc, channels, out_row);
  });
}

}  // namespace tessera::kernels::rvv
