// arm_dsp depthwise convolution, DORY's CHW variant: each channel of the input is copied into
// a padded int16 plane in scratch (HWC -> CHW for one channel at a time, so the scratch is one
// plane, not the whole tile), then computed along output rows and written back NHWC. The
// padding holds the pad value (the input's zero point), so the row kernels never test borders.
//
// 3x3 filters (dilation 1, horizontal stride 1 or 2, any vertical stride) take asm row kernels
// built on word loads of the plane: with weight words W01 = [w0, w1] and W12 = [w1, w2] per
// filter row and plane words A = [x, x+1], B = [x+2, x+3],
//     out(x)   = SMLAD(A, W01) + SMLABT(B, W12)     (in_x w0 + in_x+1 w1 + in_x+2 w2)
//     out(x+1) = SMLATB(A, W01) + SMLAD(B, W12)
// (stride 2: out(x) from A, B and out(x+1) from B and the next word, same weight words).
//
// The kernels compute four outputs per step ("quads"), C = [x+4, x+5] added, the same forms
// shifted by two (stride 2: seven words, out(x+i) from words i and i+1), and store either TOut
// itself (s8, u8, u7: every saturating epilogue, all rows in one call) or a row of int32
// accumulators for store_fixed (the other epilogues). The pair kernels they replaced (two
// outputs per step from 3 LDRD of data and 3 LDRD of weights, then LDM of the requantization
// entry, SMLAL, SSAT, STRB) took 49 cycles per step at stride 1 (24.5 per output) and 55 at
// stride 2 (27.5) in the Cortex-M4 timing model (scripts/cortex_m_cycles.py): an LDRD takes 3
// cycles and never pipelines. A quad step with the 8-bit store takes 75 cycles at stride 1
// (18.75 per output) and 84 at stride 2 (21):
//   - the channel's block (chw_params) is copied onto the stack once per call (about 58
//     cycles with the pushes and pops), so the weights are addressed from sp and r3 is free:
//     the five words of a filter row (A, B, C, W01, W12) are then one run of single LDRs,
//     2+1+1+1+1 cycles, and 8 multiplies: 14 per filter row, 42 for the three (with only r7
//     for the weights, W12's load would start a second run: 15 per row). Stride 2 loads its
//     last two words in a second run (17 per filter row, 51);
//   - the requantization is SMULL into the accumulator and r3 plus ADDS/ADC of b (3 cycles)
//     instead of SMLAL into a copy of b reloaded with LDRD (4), with m, b and the output stride
//     from one LDM (5 cycles): 29 cycles for four outputs with the STRBs and pointer steps
//     (the accumulators: one STM, 5);
//   - the loop counter (SUBS and a taken branch): 4.
// Each row ends with its leftover outputs, a pair (x even) and then a single output (x the
// last, even), from the same word loads, then steps every pointer by a per-call delta. A quad
// reads up to plane element x+5 (stride 1) or 2x+9 (stride 2) with x+3 the row's last output
// or before, a leftover pair x+3 or 2x+5, a single x+3 or 2x+3: within chw_plane's pitch.
// Keyword spotting's DS-CNN (4 depthwise layers of 64 channels, 5 transposed rows of 25
// outputs: 6 quads and a single) took 881,931 cycles in the pair kernel (3.06 per MAC, 18.5%
// of the network) and takes 653,575 in the quad kernel (2.27 per MAC): 499 cycles per row (448
// the quads, 30 the single, 21 the dispatch and pointer steps) and 58 per call. Per
// instruction it does less (SMULL/ADDS/ADC for SMLAL, two LDRs for an LDRD): 3.5% more
// instructions, 26% fewer cycles. At stride 2 (layer benchmark L6, 32 channels, 24 rows of 24
// outputs) the row kernel went from 538,408 cycles to 405,156; with a clamping epilogue
// (accumulators, one call per row) from 781,847 to 591,367 on L5 and from 446,213 to 337,166
// on L6.
//
// Other filters run a plain per-tap loop over the same plane.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <tessera/core/requant.hpp>
#include <tessera/kernels/arch/arm_dsp.hpp>
#include <tessera/kernels/arm_dsp/epilogue.hpp>
#include <tessera/kernels/arm_dsp/traits.hpp>
#include <tessera/kernels/reference/conv2d.hpp>

namespace tessera::kernels::arm_dsp {

namespace detail {

/// One channel's block for the asm row kernels (offsets are part of their code), which they copy
/// onto their stack: the 12-byte requantization entry, the weights, and per call the output
/// stride and the row values.
struct chw_params {
  rq_entry rq;          // 0: m, b_lo, b_hi
  int out_stride;       // 12: bytes between outputs (8-bit stores)
  std::uint32_t w[6];   // 16: W01 = [w0, w1], W12 = [w1, w2] of filter rows 0, 1, 2
  int row_delta;        // 40: bytes from where a row's last step leaves the plane rows to the next row
  int out_delta;        // 44: the same for the output
  int rows;             // 48: output rows (>= 1)
  int count;            // 52: 4 quads + leftover - 4 (the quad loop's counter at a row's start)
};
static_assert(offsetof(chw_params, out_stride) == 12 && offsetof(chw_params, w) == 16 &&
              offsetof(chw_params, row_delta) == 40 && offsetof(chw_params, out_delta) == 44 &&
              offsetof(chw_params, rows) == 48 && offsetof(chw_params, count) == 52 && sizeof(chw_params) == 56);

enum class chw_store : std::uint8_t { s8, u8, u7, acc };  ///< SSAT 8, USAT 8, USAT 7, int32

// Four outputs per step. The channel's chw_params are copied onto the stack, so sp addresses
// them and r3 is free: r0-r2 plane rows, r3-r7 the words of one filter row (A = [x, x+1],
// B = [x+2, x+3], C = [x+4, x+5], W01, W12), r8-r11 the accumulators, r12 output, lr the step
// counter (4 per quad, its low two bits the row's leftover outputs). Per filter row the five
// loads are one pipelined run (2+1+1+1+1 cycles):
//     out(x)   = SMLAD(A, W01) + SMLABT(B, W12)     out(x+2) = SMLAD(B, W01) + SMLABT(C, W12)
//     out(x+1) = SMLATB(A, W01) + SMLAD(B, W12)     out(x+3) = SMLATB(B, W01) + SMLAD(C, W12)
// A leftover pair (x even) and a leftover single output (x = last, even) take the same forms
// with A and B. Stride 2: A = [2x, 2x+1] .. E = [2x+8, ..], out(x+i) = SMLAD(word i, W01) +
// SMLABT(word i+1, W12): seven words, so D and E are loaded into A's and B's registers once
// out(x) and out(x+1) are done (a second run of loads: 17 cycles per filter row). The single
// output is the same at both strides.
#define TESSERA_DSP_CHW_NOACC(R)
#define TESSERA_DSP_CHW_ACC(R) ", " R
// Three data words from a filter row (the row pointer steps two words) and its weight words:
// the stride-1 quad's A, B, C and the stride-2 pair's.
#define TESSERA_DSP_CHW_LOAD3(ROW, W01, W12) \
  "ldr r3, [" ROW "], #8\n\t"               \
  "ldr r4, [" ROW ", #-4]\n\t"              \
  "ldr r5, [" ROW "]\n\t"                   \
  "ldr r6, [sp, #" W01 "]\n\t"              \
  "ldr r7, [sp, #" W12 "]\n\t"
#define TESSERA_DSP_CHW_Q_ROW(ROW, W01, W12, DUAL, TB, ACC) \
  TESSERA_DSP_CHW_LOAD3(ROW, W01, W12)                    \
  DUAL " r8, r3, r6" ACC("r8") "\n\t"                      \
  TB " r9, r3, r6" ACC("r9") "\n\t"                        \
  DUAL " r10, r4, r6" ACC("r10") "\n\t"                    \
  TB " r11, r4, r6" ACC("r11") "\n\t"                      \
  "smlabt r8, r4, r7, r8\n\t"                              \
  "smlad r9, r4, r7, r9\n\t"                               \
  "smlabt r10, r5, r7, r10\n\t"                            \
  "smlad r11, r5, r7, r11\n\t"
#define TESSERA_DSP_CHW_P_ROW(ROW, W01, W12, DUAL, TB, ACC) \
  "ldr r3, [" ROW "], #4\n\t"                              \
  "ldr r4, [" ROW "]\n\t"                                  \
  "ldr r6, [sp, #" W01 "]\n\t"                             \
  "ldr r7, [sp, #" W12 "]\n\t"                             \
  DUAL " r8, r3, r6" ACC("r8") "\n\t"                      \
  TB " r9, r3, r6" ACC("r9") "\n\t"                        \
  "smlabt r8, r4, r7, r8\n\t"                              \
  "smlad r9, r4, r7, r9\n\t"
#define TESSERA_DSP_CHW_1_ROW(ROW, W01, W12, DUAL, TB, ACC) \
  "ldr r3, [" ROW "]\n\t"                                  \
  "ldr r4, [" ROW ", #4]\n\t"                              \
  "ldr r6, [sp, #" W01 "]\n\t"                             \
  "ldr r7, [sp, #" W12 "]\n\t"                             \
  DUAL " r8, r3, r6" ACC("r8") "\n\t"                      \
  "smlabt r8, r4, r7, r8\n\t"
#define TESSERA_DSP_CHW_Q2_ROW(ROW, W01, W12, DUAL, TB, ACC) \
  "ldr r3, [" ROW "], #16\n\t"                             \
  "ldr r4, [" ROW ", #-12]\n\t"                            \
  "ldr r5, [" ROW ", #-8]\n\t"                             \
  "ldr r6, [sp, #" W01 "]\n\t"                             \
  "ldr r7, [sp, #" W12 "]\n\t"                             \
  DUAL " r8, r3, r6" ACC("r8") "\n\t"                      \
  "smlabt r8, r4, r7, r8\n\t"                              \
  DUAL " r9, r4, r6" ACC("r9") "\n\t"                      \
  "smlabt r9, r5, r7, r9\n\t"                              \
  DUAL " r10, r5, r6" ACC("r10") "\n\t"                    \
  "ldr r3, [" ROW ", #-4]\n\t"                             \
  "ldr r4, [" ROW "]\n\t"                                  \
  "smlabt r10, r3, r7, r10\n\t"                            \
  DUAL " r11, r3, r6" ACC("r11") "\n\t"                    \
  "smlabt r11, r4, r7, r11\n\t"
#define TESSERA_DSP_CHW_P2_ROW(ROW, W01, W12, DUAL, TB, ACC) \
  TESSERA_DSP_CHW_LOAD3(ROW, W01, W12)                    \
  DUAL " r8, r3, r6" ACC("r8") "\n\t"                      \
  "smlabt r8, r4, r7, r8\n\t"                              \
  DUAL " r9, r4, r6" ACC("r9") "\n\t"                      \
  "smlabt r9, r5, r7, r9\n\t"
#define TESSERA_DSP_CHW_ROWS(ROW)                                                        \
  ROW("r0", "16", "20", "smuad", "smultb", TESSERA_DSP_CHW_NOACC)                        \
  ROW("r1", "24", "28", "smlad", "smlatb", TESSERA_DSP_CHW_ACC)                          \
  ROW("r2", "32", "36", "smlad", "smlatb", TESSERA_DSP_CHW_ACC)

// hi32(acc * m + b) into the accumulator, saturated (r4 = m, r6:r5 = b, r3 scratch): SMULL and
// a 64-bit add (3 cycles) instead of SMLAL into a reloaded copy of b (LDRD + SMLAL, 4).
#define TESSERA_DSP_CHW_REQ(ACC, SAT, BITS) \
  "smull r3, " ACC ", " ACC ", r4\n\t"       \
  "adds r3, r3, r5\n\t"                      \
  "adc " ACC ", " ACC ", r6\n\t"             \
  SAT " " ACC ", #" BITS ", " ACC "\n\t"

// Accumulators A, B stored at r12, r12 + r7, then r12 advances two outputs: an
// immediate-offset STRB takes one cycle, a register-offset one two.
#define TESSERA_DSP_CHW_STORE_TWO(SAT, BITS, A, B) \
  TESSERA_DSP_CHW_REQ(A, SAT, BITS)                \
  "strb " A ", [r12]\n\t"                          \
  TESSERA_DSP_CHW_REQ(B, SAT, BITS)                \
  "strb " B ", [r12, r7]\n\t"                      \
  "add r12, r12, r7, lsl #1\n\t"
#define TESSERA_DSP_CHW_Q_STORE(SAT, BITS)            \
  "ldm sp, {r4, r5, r6, r7}\n\t"                      \
  TESSERA_DSP_CHW_STORE_TWO(SAT, BITS, "r8", "r9")    \
  TESSERA_DSP_CHW_STORE_TWO(SAT, BITS, "r10", "r11")
#define TESSERA_DSP_CHW_P_STORE(SAT, BITS) \
  "ldm sp, {r4, r5, r6, r7}\n\t"           \
  TESSERA_DSP_CHW_STORE_TWO(SAT, BITS, "r8", "r9")
#define TESSERA_DSP_CHW_1_STORE(SAT, BITS)         \
  "ldm sp, {r4, r5, r6}\n\t"                       \
  TESSERA_DSP_CHW_REQ("r8", SAT, BITS)             \
  "strb r8, [r12]\n\t"

// Or the int32 accumulators, contiguous (for store_fixed): STM with writeback.
#define TESSERA_DSP_CHW_Q_STORE32 "stm r12!, {r8-r11}\n\t"
#define TESSERA_DSP_CHW_P_STORE32 "stm r12!, {r8, r9}\n\t"
#define TESSERA_DSP_CHW_1_STORE32 "str r8, [r12]\n\t"

// Arguments: r0 plane row of the first filter row, r1 output, r2 plane pitch in bytes, r3 the
// channel's chw_params (the copy leaves `count` in lr; the ADD before the PUSH spares the LDM
// the cycle of an address written by the previous instruction). Per row: the quads (none when
// the row has fewer than 4 outputs), then the leftover pair if bit 1 of the counter is set and
// the leftover single if bit 0 is (LSLS #31 puts them in C and N), then every pointer advances
// by the row's delta.
#define TESSERA_DSP_CHW_QUAD_KERNEL(QROW, PROW, QSTORE, PSTORE, SSTORE) \
  "add r3, r3, #16\n\t"                                    \
  "push {r4-r11, lr}\n\t"                                  \
  "ldm r3, {r4-r12, lr}\n\t"                               \
  "push {r4-r12, lr}\n\t"                                  \
  "ldmdb r3, {r4-r7}\n\t"                                  \
  "push {r4-r7}\n\t"                                       \
  "mov r12, r1\n\t"                                        \
  "add r1, r0, r2\n\t"                                     \
  "add r2, r1, r2\n\t"                                     \
  "0:\n\t"                                                 \
  "cmp lr, #0\n\t"                                         \
  "bmi 5f\n\t"                                             \
  "1:\n\t"                                                 \
  TESSERA_DSP_CHW_ROWS(QROW)                               \
  QSTORE                                                   \
  "subs lr, lr, #4\n\t"                                    \
  "bpl 1b\n\t"                                             \
  "5:\n\t"                                                 \
  "lsls r3, lr, #31\n\t"                                   \
  "bcc 6f\n\t"                                             \
  TESSERA_DSP_CHW_ROWS(PROW)                               \
  PSTORE                                                   \
  "lsls r3, lr, #31\n\t"                                   \
  "6:\n\t"                                                 \
  "bpl 7f\n\t"                                             \
  TESSERA_DSP_CHW_ROWS(TESSERA_DSP_CHW_1_ROW)              \
  SSTORE                                                   \
  "7:\n\t"                                                 \
  "ldr r4, [sp, #40]\n\t"                                  \
  "ldr r5, [sp, #44]\n\t"                                  \
  "ldr r6, [sp, #48]\n\t"                                  \
  "ldr lr, [sp, #52]\n\t"                                  \
  "add r0, r0, r4\n\t"                                     \
  "add r1, r1, r4\n\t"                                     \
  "add r2, r2, r4\n\t"                                     \
  "add r12, r12, r5\n\t"                                   \
  "subs r6, r6, #1\n\t"                                    \
  "str r6, [sp, #48]\n\t"                                  \
  "bne 0b\n\t"                                             \
  "add sp, sp, #56\n\t"                                    \
  "pop {r4-r11, pc}\n\t"

using chw_quad_fn = void (*)(const std::int16_t* row0, void* out, int pitch_bytes, const chw_params* params);

// One naked function per stride and store: a naked function's body must be a single asm
// statement (clang rejects even an `if constexpr` around it; GCC documents the same rule).
#define TESSERA_DSP_CHW_QUAD_FN(NAME, QROW, PROW, QSTORE, PSTORE, SSTORE)                           \
  [[gnu::naked, gnu::noinline]] inline void NAME(const std::int16_t*, void*, int, const chw_params*) { \
    asm volatile(TESSERA_DSP_CHW_QUAD_KERNEL(QROW, PROW, QSTORE, PSTORE, SSTORE));                 \
  }
#define TESSERA_DSP_CHW_QUAD_FN8(NAME, QROW, PROW, SAT, BITS)                                    \
  TESSERA_DSP_CHW_QUAD_FN(NAME, QROW, PROW, TESSERA_DSP_CHW_Q_STORE(SAT, BITS), TESSERA_DSP_CHW_P_STORE(SAT, BITS), \
                          TESSERA_DSP_CHW_1_STORE(SAT, BITS))
TESSERA_DSP_CHW_QUAD_FN8(chw_quad_3x3_s1_s8, TESSERA_DSP_CHW_Q_ROW, TESSERA_DSP_CHW_P_ROW, "ssat", "8")
TESSERA_DSP_CHW_QUAD_FN8(chw_quad_3x3_s1_u8, TESSERA_DSP_CHW_Q_ROW, TESSERA_DSP_CHW_P_ROW, "usat", "8")
TESSERA_DSP_CHW_QUAD_FN8(chw_quad_3x3_s1_u7, TESSERA_DSP_CHW_Q_ROW, TESSERA_DSP_CHW_P_ROW, "usat", "7")
TESSERA_DSP_CHW_QUAD_FN8(chw_quad_3x3_s2_s8, TESSERA_DSP_CHW_Q2_ROW, TESSERA_DSP_CHW_P2_ROW, "ssat", "8")
TESSERA_DSP_CHW_QUAD_FN8(chw_quad_3x3_s2_u8, TESSERA_DSP_CHW_Q2_ROW, TESSERA_DSP_CHW_P2_ROW, "usat", "8")
TESSERA_DSP_CHW_QUAD_FN8(chw_quad_3x3_s2_u7, TESSERA_DSP_CHW_Q2_ROW, TESSERA_DSP_CHW_P2_ROW, "usat", "7")
TESSERA_DSP_CHW_QUAD_FN(chw_quad_3x3_s1_acc, TESSERA_DSP_CHW_Q_ROW, TESSERA_DSP_CHW_P_ROW, TESSERA_DSP_CHW_Q_STORE32,
                        TESSERA_DSP_CHW_P_STORE32, TESSERA_DSP_CHW_1_STORE32)
TESSERA_DSP_CHW_QUAD_FN(chw_quad_3x3_s2_acc, TESSERA_DSP_CHW_Q2_ROW, TESSERA_DSP_CHW_P2_ROW, TESSERA_DSP_CHW_Q_STORE32,
                        TESSERA_DSP_CHW_P_STORE32, TESSERA_DSP_CHW_1_STORE32)

/// The quad kernel for horizontal stride StrideW (1 or 2) that stores S.
template <int StrideW, chw_store S>
consteval chw_quad_fn chw_quad_3x3() {
  static_assert(StrideW == 1 || StrideW == 2, "chw_quad_3x3: stride 1 or 2");
  constexpr bool s1 = StrideW == 1;
  if constexpr (S == chw_store::s8) return s1 ? &chw_quad_3x3_s1_s8 : &chw_quad_3x3_s2_s8;
  else if constexpr (S == chw_store::u8) return s1 ? &chw_quad_3x3_s1_u8 : &chw_quad_3x3_s2_u8;
  else if constexpr (S == chw_store::u7) return s1 ? &chw_quad_3x3_s1_u7 : &chw_quad_3x3_s2_u7;
  else return s1 ? &chw_quad_3x3_s1_acc : &chw_quad_3x3_s2_acc;
}

#undef TESSERA_DSP_CHW_NOACC
#undef TESSERA_DSP_CHW_ACC
#undef TESSERA_DSP_CHW_Q_ROW
#undef TESSERA_DSP_CHW_LOAD3
#undef TESSERA_DSP_CHW_P_ROW
#undef TESSERA_DSP_CHW_Q2_ROW
#undef TESSERA_DSP_CHW_P2_ROW
#undef TESSERA_DSP_CHW_1_ROW
#undef TESSERA_DSP_CHW_ROWS
#undef TESSERA_DSP_CHW_REQ
#undef TESSERA_DSP_CHW_Q_STORE
#undef TESSERA_DSP_CHW_STORE_TWO
#undef TESSERA_DSP_CHW_P_STORE
#undef TESSERA_DSP_CHW_1_STORE
#undef TESSERA_DSP_CHW_QUAD_KERNEL
#undef TESSERA_DSP_CHW_QUAD_FN
#undef TESSERA_DSP_CHW_QUAD_FN8
#undef TESSERA_DSP_CHW_Q_STORE32
#undef TESSERA_DSP_CHW_P_STORE32
#undef TESSERA_DSP_CHW_1_STORE32

/// The rows' store for TOut and this epilogue: TOut itself (direct) for saturating 8-bit
/// epilogues, else int32 accumulators for store_fixed.
template <class TOut>
constexpr chw_store chw_store_of(epilogue_kind k) {
  if constexpr (sizeof(TOut) == 1) {
    if (k == epilogue_kind::sat) return std::is_signed_v<TOut> ? chw_store::s8 : chw_store::u8;
    if (std::is_signed_v<TOut> && k == epilogue_kind::sat_lo0) return chw_store::u7;
  }
  return chw_store::acc;
}

/// The quad kernel for stride StrideW that stores s: only the stores TOut can take are
/// instantiated.
template <class TOut, int StrideW>
constexpr chw_quad_fn chw_quad_kernel(chw_store s) {
  if (s == chw_store::acc) return chw_quad_3x3<StrideW, chw_store::acc>();
  if constexpr (sizeof(TOut) != 1) return nullptr;  // (never: 32-bit outputs store accumulators)
  else if constexpr (std::is_signed_v<TOut>) {
    return s == chw_store::s8 ? chw_quad_3x3<StrideW, chw_store::s8>() : chw_quad_3x3<StrideW, chw_store::u7>();
  } else {
    return chw_quad_3x3<StrideW, chw_store::u8>();
  }
}

/// Whether the plane is transposed (its rows along the output columns: only with the direct
/// store, traits.hpp's depthwise_chw_may_transpose).
template <class TOut>
constexpr bool chw_transposes(const reference::conv2d_dims& d, epilogue_kind k) {
  return chw_store_of<TOut>(k) != chw_store::acc && depthwise_chw_may_transpose(d);
}

/// The quad kernel the rows take (3x3 without dilation at stride 1 or 2 along the plane), or
/// nullptr for the per-tap loop: one formula for depthwise_chw's run-time choice and a whole
/// layer's compile-time one (flash_constants::chw_row, so that its firmware links only that
/// variant).
template <class TOut>
constexpr chw_quad_fn chw_row_for(const reference::conv2d_dims& d, epilogue_kind k) {
  const chw_store store = chw_store_of<TOut>(k);
  const bool transposed = chw_transposes<TOut>(d, k);
  if (!transposed && !depthwise_chw_row_kernel(d)) return nullptr;
  const int stride = transposed ? d.stride_h : d.stride_w;  // along a plane row
  return stride == 1 ? chw_quad_kernel<TOut, 1>(store) : chw_quad_kernel<TOut, 2>(store);
}

/// How an input channel maps onto a plane: `outer` plane rows of `inner` elements, filled two
/// input pixels (`src_inner` elements apart) per step; rows start `src_outer` input elements
/// apart and input pixel (0, 0) lands on plane element `dst_first`. Normal planes run along
/// input rows; transposed ones (traits.hpp, chw_plane_shape) along input columns.
struct plane_walk {
  int outer;
  int inner;
  std::ptrdiff_t src_outer;
  std::ptrdiff_t src_inner;
  std::ptrdiff_t dst_first;
};
inline plane_walk walk_of(const reference::conv2d_dims& d, chw_plane_shape shape, bool transposed) {
  const std::ptrdiff_t row = std::ptrdiff_t{d.in_w} * d.in_c;
  if (transposed) {
    return {d.in_w < shape.rows - d.pad_left ? d.in_w : shape.rows - d.pad_left,
            d.in_h < shape.pitch - d.pad_top ? d.in_h : shape.pitch - d.pad_top, d.in_c, row,
            std::ptrdiff_t{d.pad_left} * shape.pitch + d.pad_top};
  }
  return {d.in_h < shape.rows - d.pad_top ? d.in_h : shape.rows - d.pad_top,
          d.in_w < shape.pitch - d.pad_left ? d.in_w : shape.pitch - d.pad_left, row, d.in_c,
          std::ptrdiff_t{d.pad_top} * shape.pitch + d.pad_left};
}

/// Writes the pad value into `planes` planes of `rows` x `pitch` elements, `plane_elems` apart,
/// once per call: the whole planes with memset when the value's two bytes are equal (0, every
/// symmetric layer), else only around the interior `w` that the fills rewrite per channel (a
/// store per element over the whole planes cost 4% on a 48x48 layer; memset costs nothing
/// measurable).
inline void fill_padding(const plane_walk& w, int rows, int pitch, int planes, std::ptrdiff_t plane_elems,
                         std::int16_t* plane, int pad_value) {
  const auto pad = static_cast<std::int16_t>(pad_value);
  const auto bytes = static_cast<std::uint16_t>(pad);
  if ((bytes & 0xFF) == bytes >> 8) {
    std::memset(plane, bytes & 0xFF, static_cast<std::size_t>(planes * plane_elems) * 2);
    return;
  }
  const int top = static_cast<int>(w.dst_first / pitch), left = static_cast<int>(w.dst_first % pitch);
  const int inner = w.inner > 0 ? w.inner : 0;
  const auto fill = [pad](std::int16_t* dst, int n) {
    for (int i = 0; i < n; ++i) dst[i] = pad;
  };
  for (int p = 0; p < planes; ++p) {
    for (int r = 0; r < rows; ++r) {
      std::int16_t* row = plane + p * plane_elems + std::ptrdiff_t{r} * pitch;
      if (r < top || r >= top + w.outer) {
        fill(row, pitch);
        continue;
      }
      fill(row, left);
      fill(row + left + inner, pitch - left - inner);
    }
  }
}

/// Copies channel `c` of an NHWC image into the plane's interior (zero-extended or
/// sign-extended to int16); the padding around it is filled with the pad value once per call.
template <class TIn>
[[gnu::noinline]] void fill_plane(plane_walk w, const TIn* in, int c, std::int16_t* plane, int pitch) {
  for (int o = 0; o < w.outer; ++o) {
    const TIn* src = in + o * w.src_outer + c;
    std::int16_t* dst = plane + w.dst_first + std::int64_t{o} * pitch;
    int i = 0;
    for (; i + 2 <= w.inner; i += 2) {
      const std::int32_t v0 = src[0];
      const std::int32_t v1 = src[w.src_inner];
      src += 2 * w.src_inner;
      const auto pair = arch::arm_dsp::pkhbt<16>(static_cast<std::uint32_t>(v0), static_cast<std::uint32_t>(v1));
      arch::arm_dsp::store32(dst + i, pair);
    }
    if (i < w.inner) dst[i] = static_cast<std::int16_t>(src[0]);
  }
}

/// Channels c..c+3 into four planes `plane_elems` apart: two pixels per step, PKHBT/PKHTB pair
/// the pixels' words by channel halves and SXTB16/UXTB16 split them into the four planes'
/// int16 pairs (about 2 instructions per element, against 3.5 one channel at a time).
template <class TIn>
[[gnu::noinline]] void fill_planes4(plane_walk w, const TIn* in, int c, std::int16_t* plane,
                                    std::ptrdiff_t plane_elems, int pitch) {
  namespace a = arch::arm_dsp;
  // Locals, not the struct's fields: the word stores below may alias memory, and a field read
  // per step cost 9% on a 48x48 layer.
  const int outer = w.outer, inner = w.inner > 0 ? w.inner : 0;
  const std::ptrdiff_t step = w.src_inner * static_cast<std::ptrdiff_t>(sizeof(TIn));
  const auto* row = reinterpret_cast<const std::uint8_t*>(in + c);
  std::int16_t* d0 = plane + w.dst_first;
  for (int o = 0; o < outer; ++o, row += w.src_outer * static_cast<std::ptrdiff_t>(sizeof(TIn)), d0 += pitch) {
    const std::uint8_t* src = row;
    // Four pointers stepped by each store (STR with an immediate post-index: 1 cycle on the
    // Cortex-M4) rather than one index (a register-offset STR: 2).
    std::int16_t* p0 = d0;
    std::int16_t* p1 = d0 + plane_elems;
    std::int16_t* p2 = p1 + plane_elems;
    std::int16_t* p3 = p2 + plane_elems;
    for (int n = inner / 2; n > 0; --n) {
      const std::uint32_t x0 = a::load32(src);
      const std::uint32_t x1 = a::load32(src + step);
      src += 2 * step;
      const std::uint32_t lo = a::pkhbt<16>(x0, x1);  // channels 0, 1 of both pixels
      const std::uint32_t hi = a::pkhtb<16>(x1, x0);  // channels 2, 3
      a::store32(p0, a::expand_even<TIn>(lo));
      a::store32(p1, a::expand_odd<TIn>(lo));
      a::store32(p2, a::expand_even<TIn>(hi));
      a::store32(p3, a::expand_odd<TIn>(hi));
      p0 += 2, p1 += 2, p2 += 2, p3 += 2;
    }
    if (inner % 2 != 0) {
      const auto* s1 = reinterpret_cast<const TIn*>(src);
      *p0 = s1[0], *p1 = s1[1], *p2 = s1[2], *p3 = s1[3];
    }
  }
}

}  // namespace detail

/// Depthwise convolution (groups == in_c == out_c), NHWC, through a per-channel CHW plane.
/// - `input`:   [batch][in_h][in_w][C], int8 or uint8.
/// - `weights`: [C][kernel_h][kernel_w] int8.
/// - `bias`:    [C] int32 or nullptr.
/// - `rq`:      disabled (int32 output), per tensor or per channel.
/// - `output`:  [batch][out_h][out_w][C].
/// - `scratch`: depthwise_chw_scratch(d).total bytes, any alignment.
/// - `prepared`: `scratch` holds the requantization table of an earlier call with the same
///   bias, requantization and channels (the layout's first part, so the map does not move it).
/// - `flash`: the table computed at compile time (flash_constants.hpp); then `scratch` is
///   depthwise_chw_scratch(d, true).total bytes.
/// - `ReadsPadValue`: false when no call reads a nonzero pad value (concepts.hpp); the planes'
///   padding is then zeroed with memset and fill_padding's general path is not instantiated.
/// - `From`: constants_from::flash when `flash` is given, with the layer's row kernel (the
///   run-time choice among the kernels, which would link all of them, is not instantiated).
/// Bit-exact with reference::conv2d.
template <bool ReadsPadValue = true, constants_from From = constants_from::call, class TIn, class TOut>
void depthwise_chw(const reference::conv2d_dims& d, const TIn* input, const std::int8_t* weights,
                   const std::int32_t* bias, const requant_params& rq, TOut* output, void* scratch,
                   bool prepared = false, const flash_constants* flash = nullptr) {
  namespace a = arch::arm_dsp;
  const int channels = d.in_c;
  const int taps = d.kernel_h * d.kernel_w;
  const auto layout = depthwise_chw_scratch(d, flash != nullptr);
  auto* plane = layout.part<std::int16_t>(scratch, 1);
  auto* params = layout.part<detail::chw_params>(scratch, 2);
  auto* acc_row = layout.part<std::int32_t>(scratch, 3);
  auto* wtaps = layout.part<std::int16_t>(scratch, 4);
  const epilogue_plan plan =
      flash != nullptr ? flash->plan(bias, rq)
                       : make_epilogue<TOut>(rq, channels, layout.part<rq_entry>(scratch, 0), bias,
                                             product_bound<TIn, std::int8_t>(taps), prepared);

  // The row kernel stores TOut itself (direct) for saturating 8-bit epilogues, else int32
  // accumulators for store_fixed; a transposed plane is only used with the direct store.
  const bool direct = detail::chw_store_of<TOut>(plan.kind) != detail::chw_store::acc;
  const bool transposed = detail::chw_transposes<TOut>(d, plan.kind);
  const int kernel_stride = transposed ? d.stride_h : d.stride_w;  // along a plane row
  detail::chw_quad_fn row_kernel = nullptr;
  if constexpr (From == constants_from::flash) row_kernel = flash->chw_row;
  else row_kernel = detail::chw_row_for<TOut>(d, plan.kind);
  const bool fast = row_kernel != nullptr;
  const chw_plane_shape shape = depthwise_chw_plane(d, transposed);
  const int rows = shape.rows;
  const int pitch = shape.pitch;
  const detail::plane_walk walk = detail::walk_of(d, shape, transposed);
  // Outputs along a plane row and the rows' count, in output elements.
  const int along = transposed ? d.out_h : d.out_w;
  const int across = transposed ? d.out_w : d.out_h;
  const int along_stride = transposed ? d.out_w * channels : channels;
  const int across_stride = transposed ? channels : d.out_w * channels;
  const int across_step = transposed ? d.stride_w : d.stride_h;  // plane rows per output row
  const int out_pixel_stride = channels;  // elements between horizontally adjacent outputs
  constexpr int size = static_cast<int>(sizeof(TOut));
  const int tap_row = transposed ? 1 : 3, tap_step = transposed ? 3 : 1;  // filter rows along the plane
  if (fast) {
    // The row kernel's per-call values: a row's quads advance the plane rows and the output 4
    // outputs each, its leftover pair 2 outputs, its single nothing. The direct store writes
    // every row in one call; the accumulators are one row per call, contiguous.
    const int quads = along / 4, left = along % 4, stepped = 4 * quads + (left >= 2 ? 2 : 0);
    params->out_stride = direct ? along_stride * size : 4;
    params->row_delta = across_step * pitch * 2 - stepped * kernel_stride * 2;
    params->out_delta = (direct ? across_stride * size : 0) - stepped * params->out_stride;
    params->rows = direct ? across : 1;
    params->count = 4 * quads + left - 4;
  }

  const int planes = depthwise_chw_planes(d);
  const std::ptrdiff_t plane_elems = std::ptrdiff_t{rows} * pitch;
  if constexpr (ReadsPadValue) detail::fill_padding(walk, rows, pitch, planes, plane_elems, plane, d.pad_value);
  else std::memset(plane, 0, static_cast<std::size_t>(planes * plane_elems) * 2);
  for (int n = 0; n < d.batch; ++n) {
    const TIn* in = input + std::int64_t{n} * d.in_h * d.in_w * channels;
    TOut* out = output + std::int64_t{n} * d.out_h * d.out_w * channels;
    for (int c = 0; c < channels; ++c) {
      // Four channels per fill while whole groups remain (a word load past the last channel
      // could leave the input buffer), then one at a time.
      const int g0 = c - c % 4;
      const bool grouped = g0 + 4 <= channels;
      if (!grouped) detail::fill_plane(walk, in, c, plane, pitch);
      else if (c == g0) detail::fill_planes4(walk, in, c, plane, plane_elems, pitch);
      const std::int16_t* pl = grouped ? plane + (c - g0) * plane_elems : plane;
      const std::int8_t* w = weights + std::int64_t{c} * taps;
      if (fast) {
        // The channel's entry, then [w0, w1], [w1, w2] per filter row (filter columns when the
        // plane is transposed).
        if (plan.table != nullptr) params->rq = plan.table[c];
        for (int i = 0; i < 3; ++i) {
          const std::int8_t* wr = w + i * tap_row;
          const auto tap = [&](int j) {
            return static_cast<std::uint32_t>(static_cast<std::uint16_t>(wr[j * tap_step]));
          };
          const std::uint32_t t1 = tap(1);
          params->w[2 * i] = tap(0) | (t1 << 16);
          params->w[2 * i + 1] = t1 | (tap(2) << 16);
        }
      } else {
        for (int t = 0; t < taps; ++t) wtaps[t] = w[t];
      }
      if (fast && direct) {
        // Every row in one call: the kernel stores the outputs itself.
        row_kernel(pl, out + c, pitch * 2, params);
        continue;
      }
      for (int y = 0; y < d.out_h; ++y) {
        TOut* out_row = out + std::int64_t{y} * d.out_w * channels + c;
        const std::int16_t* prow = pl + std::int64_t{y} * d.stride_h * pitch;
        int x = 0;
        if (fast) {
          row_kernel(prow, acc_row, pitch * 2, params);
          x = d.out_w;
          store_fixed(acc_row, 1, plan, c, x, out_row, out_pixel_stride);
        }
        // The generic path: the rest of the row (all of it for other filters).
        const int first = x;
        for (; x < d.out_w; ++x) {
          std::int32_t acc = 0;
          const std::int16_t* px = prow + x * d.stride_w;
          for (int i = 0; i < d.kernel_h; ++i) {
            const std::int16_t* pr = px + std::int64_t{i} * d.dilation_h * pitch;
            const std::int8_t* wr = w + i * d.kernel_w;
            for (int j = 0; j < d.kernel_w; ++j) {
              acc = a::smlabb(static_cast<std::uint32_t>(pr[j * d.dilation_w]), static_cast<std::uint32_t>(wr[j]), acc);
            }
          }
          acc_row[x - first] = acc;
        }
        if (x > first) store_fixed(acc_row, 1, plan, c, x - first, out_row + std::int64_t{first} * out_pixel_stride,
                                   out_pixel_stride);
      }
    }
  }
}

}  // namespace tessera::kernels::arm_dsp
