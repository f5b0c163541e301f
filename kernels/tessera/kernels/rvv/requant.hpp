// The rvv requantization epilogue: one output row (a pixel's channels, a Gemm row) of int32
// accumulators, bias included, to TOut, bit-exact with `requantize` (../../core/requant.hpp).
//
// RVV has 64-bit lanes (ELEN 64 on rv32gcv), so the rule runs as written, without the 32-bit
// splits of arm_mve/requant_table.hpp: per group of lanes
//     vwmul   acc * mul            int32 x int32 -> int64 lanes
//     vwadd   + add                (per tensor: vadd.vx)
//     vnclip  (x + 2^(s-1)) >> s   round-to-nearest-up (vxrm = rnu) is exactly the rule's
//                                  rounding, computed without overflow; saturated to int32,
//                                  which the clamp below makes harmless (lo, hi are int32)
//     vmax, vmin                   the clamp
//     vncvt                        to 16 and 8 bits: static_cast's low bits
// 8 instructions plus the narrowing steps per register group of 16 (VLEN 128) or 32 outputs.
// Shifts 0..62 all take this path (vnclip reads the low 6 bits of the shift).
#pragma once

#include <riscv_vector.h>

#include <cstddef>
#include <cstdint>

#include <tessera/core/requant.hpp>

namespace tessera::kernels::rvv {

/// The requantization of one output row: per-channel parameters start at the row's first
/// channel; per-tensor ones (or one Gemm row's) are scalars.
struct row_requant {
  bool enabled = false;
  bool per_channel = false;
  const std::int32_t* mul = nullptr;
  const std::int32_t* add = nullptr;
  int shift = 0;
  std::int32_t lo = 0, hi = 0;
};

/// `rq` for outputs whose channel c uses entry c (disabled, per tensor, or per channel).
inline row_requant channel_requant_of(const requant_params& rq) {
  return {rq.enabled, rq.enabled && rq.length != 1, rq.mul, rq.add, rq.shift, rq.lo, rq.hi};
}

/// Gemm requantized per row: row r's one multiplier and offset for all of its columns.
inline row_requant row_requant_of(const requant_params& rq, int r) {
  return {true, false, rq.mul + r, rq.add + r, rq.shift, rq.lo, rq.hi};
}

namespace detail {

template <class TOut>
inline void store_s32_as(TOut* out, vint32m4_t y, std::size_t vl) {
  if constexpr (sizeof(TOut) == 4) {
    __riscv_vse32_v_i32m4(reinterpret_cast<std::int32_t*>(out), y, vl);
  } else if constexpr (sizeof(TOut) == 2) {
    __riscv_vse16_v_i16m2(reinterpret_cast<std::int16_t*>(out), __riscv_vncvt_x_x_w_i16m2(y, vl), vl);
  } else {
    static_assert(sizeof(TOut) == 1, "rvv::requant_row: 8-, 16- or 32-bit outputs");
    const vint16m2_t h = __riscv_vncvt_x_x_w_i16m2(y, vl);
    __riscv_vse8_v_i8m1(reinterpret_cast<std::int8_t*>(out), __riscv_vncvt_x_x_w_i8m1(h, vl), vl);
  }
}

}  // namespace detail

/// out[c] = requantized acc[c] for c < n (acc: int32 sums with the bias; 8- and 16-bit outputs
/// keep the low bits of the clamped value, as static_cast does; disabled: acc itself).
template <class TOut>
[[gnu::noinline]] void requant_row(const row_requant& q, const std::int32_t* acc, int n, TOut* out) {
  if (!q.enabled) {
    for (int c = 0; c < n;) {
      const std::size_t vl = __riscv_vsetvl_e32m4(std::size_t(n - c));
      detail::store_s32_as(out + c, __riscv_vle32_v_i32m4(acc + c, vl), vl);
      c += int(vl);
    }
    return;
  }
  const std::size_t shift = std::size_t(q.shift);
  if (q.per_channel) {
    for (int c = 0; c < n;) {
      const std::size_t vl = __riscv_vsetvl_e32m4(std::size_t(n - c));
      vint64m8_t x = __riscv_vwmul_vv_i64m8(__riscv_vle32_v_i32m4(acc + c, vl), __riscv_vle32_v_i32m4(q.mul + c, vl), vl);
      x = __riscv_vwadd_wv_i64m8(x, __riscv_vle32_v_i32m4(q.add + c, vl), vl);
      vint32m4_t y = __riscv_vnclip_wx_i32m4(x, shift, __RISCV_VXRM_RNU, vl);
      y = __riscv_vmin_vx_i32m4(__riscv_vmax_vx_i32m4(y, q.lo, vl), q.hi, vl);
      detail::store_s32_as(out + c, y, vl);
      c += int(vl);
    }
  } else {
    const std::int32_t mul = q.mul[0], add = q.add[0];
    for (int c = 0; c < n;) {
      const std::size_t vl = __riscv_vsetvl_e32m4(std::size_t(n - c));
      vint64m8_t x = __riscv_vwmul_vx_i64m8(__riscv_vle32_v_i32m4(acc + c, vl), mul, vl);
      x = __riscv_vadd_vx_i64m8(x, std::int64_t{add}, vl);
      vint32m4_t y = __riscv_vnclip_wx_i32m4(x, shift, __RISCV_VXRM_RNU, vl);
      y = __riscv_vmin_vx_i32m4(__riscv_vmax_vx_i32m4(y, q.lo, vl), q.hi, vl);
      detail::store_s32_as(out + c, y, vl);
      c += int(vl);
    }
  }
}

}  // namespace tessera::kernels::rvv
