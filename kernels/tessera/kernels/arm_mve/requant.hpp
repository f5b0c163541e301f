// The arm_mve requantization epilogue: runs a call's requant_plan (requant_table.hpp) over the
// raw accumulators of one output row (requant_row) or of a 3-row micro-kernel block
// (requant_block3), four outputs per iteration, in tail-predicated assembly loops.
//
// Instructions per 4 outputs: narrow 11, high 14, fast 15, general 18 (requant_row); the 3-row
// form loads each table group once for the 3 rows: narrow 24, high 31, fast 34 per 12 outputs.
#pragma once

#include <cstddef>
#include <cstdint>

#include <tessera/kernels/arch/arm_mve.hpp>
#include <tessera/kernels/arm_mve/requant_table.hpp>
#include <tessera/kernels/common/requant_epilogue.hpp>

namespace tessera::kernels::arm_mve {

/// Where a row's accumulators are: one after the other, or the [pair][3][2] blocks of
/// mat_mult_3x2_s8 (the row's first value at block + 2 * row).
enum class acc_layout : std::uint8_t { contiguous, pairs };

namespace detail {

alignas(16) inline constexpr std::uint32_t acc_gather[2][4] = {{0, 1, 2, 3}, {0, 1, 6, 7}};
inline constexpr int acc_step[2] = {16, 48};

constexpr int acc_index(acc_layout layout, int c) {
  return layout == acc_layout::pairs ? (c >> 1) * 6 + (c & 1) : c;
}

// The asm bodies below, stamped once per store width: STORE is vstrb.32 / vstrh.32 (8- and
// 16-bit outputs keep the low bits, i.e. static_cast<TOut>) or vstrw.32 (int32 outputs). The
// narrowing stores encode their base in 3 bits: output pointers take the "l" (r0-r7) constraint.
// Accumulators come by a 4-lane gather (offsets `aoff`, then `acc` += `astep` bytes), which
// reads both layouts at the same cost.
#define TESSERA_MVE_RQ_LOAD_ACC                                                              \
  "vldrw.u32 q0, [%[acc], %q[aoff], uxtw #2]\n"                                              \
  "add %[acc], %[acc], %[astep]\n"

#define TESSERA_MVE_RQ_RAW(STORE, STEP)                                                      \
  asm volatile(                                                                              \
      "wlstp.32 lr, %[n], 2f\n"                                                              \
      "1:\n" TESSERA_MVE_RQ_LOAD_ACC                                                         \
      "vldrw.32 q1, [%[tb]], #48\n"                                                          \
      "vadd.i32 q0, q0, q1\n" STORE " q0, [%[out]], #" STEP                                  \
      "\n"                                                                                   \
      "letp lr, 1b\n"                                                                        \
      "2:\n"                                                                                 \
      : [acc] "+r"(acc), [tb] "+r"(tb), [out] "+l"(out)                                      \
      : [n] "r"(n), [aoff] "w"(aoff), [astep] "r"(astep)                                     \
      : "lr", "q0", "q1", "memory")

#define TESSERA_MVE_RQ_NARROW(STORE, STEP)                                                   \
  asm volatile(                                                                              \
      "vdup.32 q6, %[lo]\n"                                                                  \
      "vdup.32 q7, %[hi]\n"                                                                  \
      "wlstp.32 lr, %[n], 2f\n"                                                              \
      "1:\n" TESSERA_MVE_RQ_LOAD_ACC                                                         \
      "vldrw.32 q1, [%[tb]], #32\n"                                                          \
      "vmul.i32 q0, q0, q1\n"                                                                \
      "vldrw.32 q1, [%[tb]], #16\n"                                                          \
      "vadd.i32 q0, q0, q1\n"                                                                \
      "vshl.s32 q0, %[sh]\n"                                                                 \
      "vmax.s32 q0, q0, q6\n"                                                                \
      "vmin.s32 q0, q0, q7\n" STORE " q0, [%[out]], #" STEP                                  \
      "\n"                                                                                   \
      "letp lr, 1b\n"                                                                        \
      "2:\n"                                                                                 \
      : [acc] "+r"(acc), [tb] "+r"(tb), [out] "+l"(out)                                      \
      : [n] "r"(n), [aoff] "w"(aoff), [astep] "r"(astep), [lo] "r"(p.lo), [hi] "r"(p.hi),   \
        [sh] "r"(p.shift_arg)                                                                \
      : "lr", "q0", "q1", "q6", "q7", "memory")

#define TESSERA_MVE_RQ_FAST(STORE, STEP, SHIFT)                                              \
  asm volatile(                                                                              \
      "vdup.32 q6, %[lo]\n"                                                                  \
      "vdup.32 q7, %[hi]\n"                                                                  \
      "wlstp.32 lr, %[n], 2f\n"                                                              \
      "1:\n" TESSERA_MVE_RQ_LOAD_ACC                                                         \
      "vldrw.32 q1, [%[tb]], #16\n"                                                          \
      "vldrw.32 q2, [%[tb]], #16\n"                                                          \
      "vldrw.32 q3, [%[tb]], #16\n"                                                          \
      "vmul.i32 q4, q0, q1\n"                                                                \
      "vmulh.s32 q0, q0, q1\n"                                                               \
      "vpt.u32 hi, q4, q2\n"                                                                 \
      "vaddt.i32 q0, q0, %[one]\n"                                                           \
      "vadd.i32 q0, q0, q3\n"                                                                \
      SHIFT                                                                                  \
      "vmax.s32 q0, q0, q6\n"                                                                \
      "vmin.s32 q0, q0, q7\n" STORE " q0, [%[out]], #" STEP                                  \
      "\n"                                                                                   \
      "letp lr, 1b\n"                                                                        \
      "2:\n"                                                                                 \
      : [acc] "+r"(acc), [tb] "+r"(tb), [out] "+l"(out)                                      \
      : [n] "r"(n), [aoff] "w"(aoff), [astep] "r"(astep), [lo] "r"(p.lo), [hi] "r"(p.hi),   \
        [sh] "r"(p.shift_arg), [one] "r"(1)                                                  \
      : "lr", "q0", "q1", "q2", "q3", "q4", "q6", "q7", "memory")

#define TESSERA_MVE_RQ_GENERAL(STORE, STEP)                                                  \
  asm volatile(                                                                              \
      "vdup.32 q6, %[lo]\n"                                                                  \
      "vdup.32 q7, %[hi]\n"                                                                  \
      "wlstp.32 lr, %[n], 2f\n"                                                              \
      "1:\n" TESSERA_MVE_RQ_LOAD_ACC                                                         \
      "vldrw.32 q1, [%[tb]], #16\n"                                                          \
      "vmul.i32 q2, q0, q1\n"                                                                \
      "vmulh.s32 q0, q0, q1\n"                                                               \
      "vldrw.32 q1, [%[tb]], #16\n"                                                          \
      "vadd.i32 q2, q2, q1\n"                                                                \
      "vpt.u32 hi, q1, q2\n"                                                                 \
      "vaddt.i32 q0, q0, %[one]\n"                                                           \
      "vldrw.32 q1, [%[tb]], #16\n"                                                          \
      "vadd.i32 q0, q0, q1\n"                                                                \
      "vqshl.s32 q0, %[hsh]\n"                                                               \
      "vshl.u32 q2, %[sh]\n"                                                                 \
      "vqadd.s32 q0, q0, q2\n"                                                               \
      "vmax.s32 q0, q0, q6\n"                                                                \
      "vmin.s32 q0, q0, q7\n" STORE " q0, [%[out]], #" STEP                                  \
      "\n"                                                                                   \
      "letp lr, 1b\n"                                                                        \
      "2:\n"                                                                                 \
      : [acc] "+r"(acc), [tb] "+r"(tb), [out] "+l"(out)                                      \
      : [n] "r"(n), [aoff] "w"(aoff), [astep] "r"(astep), [lo] "r"(p.lo), [hi] "r"(p.hi),   \
        [sh] "r"(p.shift_arg), [one] "r"(1), [hsh] "r"(p.high_shift)                         \
      : "lr", "q0", "q1", "q2", "q6", "q7", "memory")

#define TESSERA_MVE_RQ_SHIFT "vshl.s32 q0, %[sh]\n"

#define TESSERA_MVE_RQ_PATHS(STORE, STEP)                               \
  switch (p.path) {                                                     \
    case requant_path::raw: TESSERA_MVE_RQ_RAW(STORE, STEP); break;     \
    case requant_path::narrow: TESSERA_MVE_RQ_NARROW(STORE, STEP); break; \
    case requant_path::fast: TESSERA_MVE_RQ_FAST(STORE, STEP, TESSERA_MVE_RQ_SHIFT); break; \
    case requant_path::high: TESSERA_MVE_RQ_FAST(STORE, STEP, ""); break; \
    default: TESSERA_MVE_RQ_GENERAL(STORE, STEP); break;                \
  }

}  // namespace detail

/// out[c] = requantized accumulator of channel c, for channels [0, n) of one output pixel (or
/// Gemm row).
///
/// - `acc`: the row's raw int32 accumulators (without bias and corrections) in `layout`.
/// - `out`: n outputs; 8- and 16-bit types keep the low bits of the clamped value (static_cast).
template <class TOut>
[[gnu::noinline]] inline void requant_row(const requant_plan& p, const std::int32_t* acc, acc_layout layout, int n,
                                          TOut* out) {
  const std::int32_t* tb = p.table;
  if (p.path == requant_path::scalar) {
    const channel_requant crq{p.rq};
    for (int c = 0; c < n; ++c) {
      const auto sum = static_cast<std::uint32_t>(acc[detail::acc_index(layout, c)]) +
                       static_cast<std::uint32_t>(tb[table_index(c)]);
      out[c] = static_cast<TOut>(crq(static_cast<std::int32_t>(sum), c));
    }
    return;
  }
  const uint32x4_t aoff = vldrwq_u32(detail::acc_gather[int(layout)]);
  const int astep = detail::acc_step[int(layout)];
  if constexpr (sizeof(TOut) == 1) {
    TESSERA_MVE_RQ_PATHS("vstrb.32", "4")
  } else if constexpr (sizeof(TOut) == 2) {
    TESSERA_MVE_RQ_PATHS("vstrh.32", "8")
  } else {
    static_assert(sizeof(TOut) == 4, "requant_row: 8-, 16- or 32-bit outputs");
    TESSERA_MVE_RQ_PATHS("vstrw.32", "16")
  }
}

namespace detail {

// The 3-row forms: one table group serves the 3 pixels of a mat_mult_3x2_s8 block. Rows come
// by gathers from one vector of addresses (row 0's 4 accumulators at the pairs offsets
// {0, 1, 6, 7} words) at immediate offsets 0, 8 and 16 bytes; row 0's gather moves the vector
// to the next group of 4 channels (writeback), so no pointer is stepped. lo and hi come as
// vector operands.
#define TESSERA_MVE_RQ3_ROW_NARROW(B, O, STORE, STEP)                                        \
  "vldrw.u32 q0, " B "\n"                                                          \
  "vmul.i32 q0, q0, q1\n"                                                                    \
  "vadd.i32 q0, q0, q2\n"                                                                    \
  "vshl.s32 q0, %[sh]\n"                                                                     \
  "vmax.s32 q0, q0, %q[lov]\n"                                                                    \
  "vmin.s32 q0, q0, %q[hiv]\n" STORE " q0, [" O "], #" STEP "\n"

// The fast form, and the high one without its final shift (SHIFT: TESSERA_MVE_RQ_SHIFT or "").
#define TESSERA_MVE_RQ3_ROW_WIDE(B, O, STORE, STEP, SHIFT)                                   \
  "vldrw.u32 q0, " B "\n"                                                                    \
  "vmul.i32 q4, q0, q1\n"                                                                    \
  "vmulh.s32 q0, q0, q1\n"                                                                   \
  "vpt.u32 hi, q4, q2\n"                                                                     \
  "vaddt.i32 q0, q0, %[one]\n"                                                               \
  "vadd.i32 q0, q0, q3\n" SHIFT                                                              \
  "vmax.s32 q0, q0, %q[lov]\n"                                                               \
  "vmin.s32 q0, q0, %q[hiv]\n" STORE " q0, [" O "], #" STEP "\n"
#define TESSERA_MVE_RQ3_ROW_FAST(B, O, STORE, STEP) TESSERA_MVE_RQ3_ROW_WIDE(B, O, STORE, STEP, TESSERA_MVE_RQ_SHIFT)
#define TESSERA_MVE_RQ3_ROW_HIGH(B, O, STORE, STEP) TESSERA_MVE_RQ3_ROW_WIDE(B, O, STORE, STEP, "")

#define TESSERA_MVE_RQ3_ROW_GENERAL(B, O, STORE, STEP)                                       \
  "vldrw.u32 q0, " B "\n"                                                          \
  "vmul.i32 q4, q0, q1\n"                                                                    \
  "vmulh.s32 q0, q0, q1\n"                                                                   \
  "vadd.i32 q4, q4, q2\n"                                                                    \
  "vpt.u32 hi, q2, q4\n"                                                                     \
  "vaddt.i32 q0, q0, %[one]\n"                                                               \
  "vadd.i32 q0, q0, q3\n"                                                                    \
  "vqshl.s32 q0, %[hsh]\n"                                                                   \
  "vshl.u32 q4, %[sh]\n"                                                                     \
  "vqadd.s32 q0, q0, q4\n"                                                                   \
  "vmax.s32 q0, q0, %q[lov]\n"                                                                    \
  "vmin.s32 q0, q0, %q[hiv]\n" STORE " q0, [" O "], #" STEP "\n"

#define TESSERA_MVE_RQ3_ROW_RAW(B, O, STORE, STEP)                                           \
  "vldrw.u32 q0, " B "\n"                                                          \
  "vadd.i32 q0, q0, q1\n" STORE " q0, [" O "], #" STEP "\n"

#define TESSERA_MVE_RQ3(ROW, LOADS, STORE, STEP)                                              \
  asm volatile(                                                                              \
      "wlstp.32 lr, %[n], 2f\n"                                                              \
      "1:\n" LOADS ROW("[%q[qb], #48]!", "%[o0]", STORE, STEP) ROW("[%q[qb], #8]", "%[o1]", STORE, STEP) \
          ROW("[%q[qb], #16]", "%[o2]", STORE, STEP)                                          \
      "letp lr, 1b\n"                                                                        \
      "2:\n"                                                                                 \
      : [qb] "+w"(qb), [o0] "+l"(o0), [o1] "+l"(o1), [o2] "+l"(o2), [tb] "+r"(tb)             \
      : [n] "r"(n), [lov] "w"(lov), [hiv] "w"(hiv), [sh] "r"(p.shift_arg),                    \
        [one] "r"(1), [hsh] "r"(p.high_shift)                                                \
      : "lr", "q0", "q1", "q2", "q3", "q4", "memory")

#define TESSERA_MVE_RQ3_LOADS_NARROW "vldrw.32 q1, [%[tb]], #32\n vldrw.32 q2, [%[tb]], #16\n"
#define TESSERA_MVE_RQ3_LOADS_WIDE \
  "vldrw.32 q1, [%[tb]], #16\n vldrw.32 q2, [%[tb]], #16\n vldrw.32 q3, [%[tb]], #16\n"
#define TESSERA_MVE_RQ3_LOADS_RAW "vldrw.32 q1, [%[tb]], #48\n"

#define TESSERA_MVE_RQ3_PATHS(STORE, STEP)                                                           \
  switch (p.path) {                                                                                  \
    case requant_path::raw:                                                                          \
      TESSERA_MVE_RQ3(TESSERA_MVE_RQ3_ROW_RAW, TESSERA_MVE_RQ3_LOADS_RAW, STORE, STEP);              \
      break;                                                                                         \
    case requant_path::narrow:                                                                       \
      TESSERA_MVE_RQ3(TESSERA_MVE_RQ3_ROW_NARROW, TESSERA_MVE_RQ3_LOADS_NARROW, STORE, STEP);        \
      break;                                                                                         \
    case requant_path::fast:                                                                         \
      TESSERA_MVE_RQ3(TESSERA_MVE_RQ3_ROW_FAST, TESSERA_MVE_RQ3_LOADS_WIDE, STORE, STEP);            \
      break;                                                                                         \
    case requant_path::high:                                                                         \
      TESSERA_MVE_RQ3(TESSERA_MVE_RQ3_ROW_HIGH, TESSERA_MVE_RQ3_LOADS_WIDE, STORE, STEP);            \
      break;                                                                                         \
    default: TESSERA_MVE_RQ3(TESSERA_MVE_RQ3_ROW_GENERAL, TESSERA_MVE_RQ3_LOADS_WIDE, STORE, STEP); break; \
  }

}  // namespace detail

/// requant_row for the 3 rows of one mat_mult_3x2_s8 block: out + r * out_stride receives row
/// r's n outputs, r < 3. Each table group is loaded once for the 3 rows.
template <class TOut>
[[gnu::noinline]] inline void requant_block3(const requant_plan& p, const std::int32_t* acc, int n, TOut* out,
                                             std::ptrdiff_t out_stride) {
  if (p.path == requant_path::scalar) {
    for (int r = 0; r < 3; ++r) requant_row(p, acc + 2 * r, acc_layout::pairs, n, out + r * out_stride);
    return;
  }
  const std::int32_t* tb = p.table;
  TOut* o0 = out;
  TOut* o1 = out + out_stride;
  TOut* o2 = out + 2 * out_stride;
  // Row 0's addresses one group (48 bytes) early: the first gather steps them first.
  uint32x4_t qb = vaddq_n_u32(vmulq_n_u32(vldrwq_u32(detail::acc_gather[int(acc_layout::pairs)]), 4),
                              static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(acc)) - 48u);
  const int32x4_t lov = vdupq_n_s32(p.lo);
  const int32x4_t hiv = vdupq_n_s32(p.hi);
  if constexpr (sizeof(TOut) == 1) {
    TESSERA_MVE_RQ3_PATHS("vstrb.32", "4")
  } else if constexpr (sizeof(TOut) == 2) {
    TESSERA_MVE_RQ3_PATHS("vstrh.32", "8")
  } else {
    TESSERA_MVE_RQ3_PATHS("vstrw.32", "16")
  }
}

#undef TESSERA_MVE_RQ3_ROW_NARROW
#undef TESSERA_MVE_RQ3_ROW_FAST
#undef TESSERA_MVE_RQ3_ROW_HIGH
#undef TESSERA_MVE_RQ3_ROW_WIDE
#undef TESSERA_MVE_RQ3_ROW_GENERAL
#undef TESSERA_MVE_RQ3_ROW_RAW
#undef TESSERA_MVE_RQ3
#undef TESSERA_MVE_RQ3_LOADS_NARROW
#undef TESSERA_MVE_RQ3_LOADS_WIDE
#undef TESSERA_MVE_RQ3_LOADS_RAW
#undef TESSERA_MVE_RQ3_PATHS
#undef TESSERA_MVE_RQ_LOAD_ACC
#undef TESSERA_MVE_RQ_RAW
#undef TESSERA_MVE_RQ_NARROW
#undef TESSERA_MVE_RQ_FAST
#undef TESSERA_MVE_RQ_SHIFT
#undef TESSERA_MVE_RQ_GENERAL
#undef TESSERA_MVE_RQ_PATHS

}  // namespace tessera::kernels::arm_mve
