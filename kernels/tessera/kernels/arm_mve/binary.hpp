// arm_mve Add / Sub of two 8-bit tensors with the requantization fused: one row of the
// innermost axis at a time, a +/- b widened to int32 lanes (any mix of int8 and uint8, as true
// values), then the shared epilogue with a per-channel or per-tensor table.
#pragma once

#include <cstdint>
#include <type_traits>

#include <tessera/core/requant.hpp>
#include <tessera/kernels/algorithm/binary.hpp>
#include <tessera/kernels/arch/arm_mve.hpp>
#include <tessera/kernels/arm_mve/common.hpp>
#include <tessera/kernels/arm_mve/requant.hpp>
#include <tessera/kernels/arm_mve/traits.hpp>
#include <tessera/kernels/reference/binary.hpp>

namespace tessera::kernels::arm_mve {

namespace detail {

#define TESSERA_MVE_BINARY_ROW(LOAD_A, LOAD_B, OP)                                                 \
  asm volatile(                                                                                    \
      "wlstp.32 lr, %[n], 2f\n"                                                                    \
      "1:\n" LOAD_A " q0, [%[a]], #4\n" LOAD_B " q1, [%[b]], #4\n" OP " q0, q0, q1\n"              \
      "vstrw.32 q0, [%[acc]], #16\n"                                                               \
      "letp lr, 1b\n"                                                                              \
      "2:\n"                                                                                       \
      : [a] "+l"(a), [b] "+l"(b), [acc] "+r"(acc) /* widening loads: r0-r7 */                       \
      : [n] "r"(n)                                                                                 \
      : "lr", "q0", "q1", "memory")

/// acc[i] = a[i] + b[i] (or a[i] - b[i]) for i < n, on true values.
template <class TA, class TB>
inline void add_sub_row(bool add, const TA* a, const TB* b, int n, std::int32_t* acc) {
#define TESSERA_MVE_BINARY_OPS(LA, LB)                   \
  if (add) TESSERA_MVE_BINARY_ROW(LA, LB, "vadd.i32");   \
  else TESSERA_MVE_BINARY_ROW(LA, LB, "vsub.i32")
  if constexpr (std::is_signed_v<TA> && std::is_signed_v<TB>) {
    TESSERA_MVE_BINARY_OPS("vldrb.s32", "vldrb.s32");
  } else if constexpr (std::is_signed_v<TA>) {
    TESSERA_MVE_BINARY_OPS("vldrb.s32", "vldrb.u32");
  } else if constexpr (std::is_signed_v<TB>) {
    TESSERA_MVE_BINARY_OPS("vldrb.u32", "vldrb.s32");
  } else {
    TESSERA_MVE_BINARY_OPS("vldrb.u32", "vldrb.u32");
  }
#undef TESSERA_MVE_BINARY_OPS
}

#undef TESSERA_MVE_BINARY_ROW

}  // namespace detail

/// out = a + b or a - b (reference::binary's contract, bit-exact) for the layouts of
/// `binary_layout_supported`: A contiguous, B contiguous or one innermost row broadcast.
///
/// - `rq`: disabled, per tensor or per channel of the innermost axis.
/// - `out`: contiguous; `scratch`: binary_scratch(d).total bytes, any alignment.
template <class TA, class TB, class TOut>
void binary(reference::binary_op op, const reference::binary_dims& d, const TA* a, const TB* b,
            const requant_params& rq, TOut* out, void* scratch) {
  const auto layout = binary_scratch(d);
  auto* table = layout.part<std::int32_t>(scratch, 0);
  auto* acc = layout.part<std::int32_t>(scratch, 1);
  const int channels = binary_channels(d);
  const requant_plan plan = plan_requant(rq, channels, nullptr, 510, table);  // |a +- b| <= 255 + 255
  const bool add = op == reference::binary_op::add;
  algorithm::binary_rows(d, a, b, out, [&](const TA* a_row, const TB* b_row, TOut* out_row, int n) {
    detail::add_sub_row(add, a_row, b_row, n, acc);
    requant_row(plan, acc, acc_layout::contiguous, n, out_row);
  });
}

}  // namespace tessera::kernels::arm_mve
