// The arm_dsp matrix-multiply micro-kernels shared by conv2d, gemm and matmul.
//
// Operands: 8-bit "weight" rows (one per output channel, read as words with unaligned LDR)
// against int16 "activation" columns that a caller expanded beforehand (expand.hpp), both in
// the SXTB16 lane order, so one SMLAD multiplies two element pairs. Per group of 4 reduction
// elements and 4 pixels the 1x4 kernel spends 13 instructions on 16 MACs: LDR + 2 SXTB16 for
// the weights, 2 LDM for the 4 pixels' 8-byte groups (interleaved: [group][pixel]), 8 SMLAD;
// 11 when the weights were expanded beforehand too (one LDRD). Whole channel loops are naked
// asm functions (every register is needed: 4 accumulators, 4 LDM targets, 2 weight lanes, 3
// pointers and counters); the rows with a 1-3 element tail and the gemm row kernel use inline
// asm loops whose LDM targets are register variables (LDM needs ascending registers).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <tessera/kernels/arch/arm_dsp.hpp>
#include <tessera/kernels/arm_dsp/detail/expand.hpp>

namespace tessera::kernels::arm_dsp::detail {

using u32 = std::uint32_t;
using s32 = std::int32_t;

// One group of the 1x4 kernel: weight word -> [w0,w2],[w1,w3]; pixels 0,1 then 2,3.
#define TESSERA_DSP_GROUP_1X4(EXT)                \
  "ldr %[w0], [%[wp]], #4\n\t"                    \
  "ldm %[col]!, {%[x0], %[x1], %[x2], %[x3]}\n\t" \
  EXT " %[w1], %[w0], ror #8\n\t"                 \
  EXT " %[w0], %[w0]\n\t"                         \
  "smlad %[a0], %[x0], %[w0], %[a0]\n\t"          \
  "smlad %[a0], %[x1], %[w1], %[a0]\n\t"          \
  "smlad %[a1], %[x2], %[w0], %[a1]\n\t"          \
  "smlad %[a1], %[x3], %[w1], %[a1]\n\t"          \
  "ldm %[col]!, {%[x0], %[x1], %[x2], %[x3]}\n\t" \
  "smlad %[a2], %[x0], %[w0], %[a2]\n\t"          \
  "smlad %[a2], %[x1], %[w1], %[a2]\n\t"          \
  "smlad %[a3], %[x2], %[w0], %[a3]\n\t"          \
  "smlad %[a3], %[x3], %[w1], %[a3]\n\t"

// `groups` groups, two per loop iteration (an odd one first). LSRS sets Z for "no pair left";
// nothing in the odd-group block touches the flags.
#define TESSERA_DSP_LOOP_1X4(EXT) \
  "lsrs %[n], %[n], #1\n\t"       \
  "bcc 1f\n\t"                    \
  TESSERA_DSP_GROUP_1X4(EXT)      \
  "1:\n\t"                        \
  "beq 3f\n\t"                    \
  "2:\n\t"                        \
  TESSERA_DSP_GROUP_1X4(EXT)      \
  TESSERA_DSP_GROUP_1X4(EXT)      \
  "subs %[n], %[n], #1\n\t"       \
  "bne 2b\n\t"                    \
  "3:\n\t"

/// a[p] += sum_g dot(weights word g, pixel p's group g) over `groups` groups; advances `w` by
/// 4*groups bytes and `col` by 32*groups bytes.
template <bool WSigned>
[[gnu::always_inline]] inline void mac_1x4(s32& a0, s32& a1, s32& a2, s32& a3, const std::uint8_t*& w,
                                           const std::int16_t*& col, int groups) {
  register u32 x0 asm("r8");
  register u32 x1 asm("r9");
  register u32 x2 asm("r10");
  register u32 x3 asm("r11");
  u32 w0, w1;
  auto n = static_cast<u32>(groups);
  if constexpr (WSigned) {
    asm volatile(TESSERA_DSP_LOOP_1X4("sxtb16")
                 : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [wp] "+r"(w), [col] "+r"(col),
                   [n] "+r"(n), [w0] "=&r"(w0), [w1] "=&r"(w1), [x0] "=&r"(x0), [x1] "=&r"(x1), [x2] "=&r"(x2),
                   [x3] "=&r"(x3)
                 :
                 : "cc", "memory");
  } else {
    asm volatile(TESSERA_DSP_LOOP_1X4("uxtb16")
                 : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [wp] "+r"(w), [col] "+r"(col),
                   [n] "+r"(n), [w0] "=&r"(w0), [w1] "=&r"(w1), [x0] "=&r"(x0), [x1] "=&r"(x1), [x2] "=&r"(x2),
                   [x3] "=&r"(x3)
                 :
                 : "cc", "memory");
  }
}

// One group of the 2x1 kernel (two channels, one expanded row) from x registers XA, XB.
#define TESSERA_DSP_GROUP_2X1(EXT, XA, XB)   \
  "ldr %[w0], [%[wp0]], #4\n\t"              \
  EXT " %[w1], %[w0], ror #8\n\t"            \
  EXT " %[w0], %[w0]\n\t"                    \
  "smlad %[a0], %[" XA "], %[w0], %[a0]\n\t" \
  "smlad %[a0], %[" XB "], %[w1], %[a0]\n\t" \
  "ldr %[w0], [%[wp1]], #4\n\t"              \
  EXT " %[w1], %[w0], ror #8\n\t"            \
  EXT " %[w0], %[w0]\n\t"                    \
  "smlad %[a1], %[" XA "], %[w0], %[a1]\n\t" \
  "smlad %[a1], %[" XB "], %[w1], %[a1]\n\t"

#define TESSERA_DSP_LOOP_2X1(EXT)                 \
  "lsrs %[n], %[n], #1\n\t"                       \
  "bcc 1f\n\t"                                    \
  "ldrd %[x0], %[x1], [%[col]], #8\n\t"           \
  TESSERA_DSP_GROUP_2X1(EXT, "x0", "x1")          \
  "1:\n\t"                                        \
  "beq 3f\n\t"                                    \
  "2:\n\t"                                        \
  "ldm %[col]!, {%[x0], %[x1], %[x2], %[x3]}\n\t" \
  TESSERA_DSP_GROUP_2X1(EXT, "x0", "x1")          \
  TESSERA_DSP_GROUP_2X1(EXT, "x2", "x3")          \
  "subs %[n], %[n], #1\n\t"                       \
  "bne 2b\n\t"                                    \
  "3:\n\t"

/// a0 += dot(w0 row, x), a1 += dot(w1 row, x) over `groups` groups of one expanded row `col`
/// (8 bytes per group, contiguous); advances both weight pointers by 4*groups bytes.
template <bool WSigned>
[[gnu::always_inline]] inline void mac_2x1(s32& a0, s32& a1, const std::uint8_t*& w0p, const std::uint8_t*& w1p,
                                           const std::int16_t* col, int groups) {
  register u32 x0 asm("r8");
  register u32 x1 asm("r9");
  register u32 x2 asm("r10");
  register u32 x3 asm("r11");
  u32 w0, w1;
  auto n = static_cast<u32>(groups);
  if constexpr (WSigned) {
    asm volatile(TESSERA_DSP_LOOP_2X1("sxtb16")
                 : [a0] "+r"(a0), [a1] "+r"(a1), [wp0] "+r"(w0p), [wp1] "+r"(w1p), [col] "+r"(col), [n] "+r"(n),
                   [w0] "=&r"(w0), [w1] "=&r"(w1), [x0] "=&r"(x0), [x1] "=&r"(x1), [x2] "=&r"(x2), [x3] "=&r"(x3)
                 :
                 : "cc", "memory");
  } else {
    asm volatile(TESSERA_DSP_LOOP_2X1("uxtb16")
                 : [a0] "+r"(a0), [a1] "+r"(a1), [wp0] "+r"(w0p), [wp1] "+r"(w1p), [col] "+r"(col), [n] "+r"(n),
                   [w0] "=&r"(w0), [w1] "=&r"(w1), [x0] "=&r"(x0), [x1] "=&r"(x1), [x2] "=&r"(x2), [x3] "=&r"(x3)
                 :
                 : "cc", "memory");
  }
}

#undef TESSERA_DSP_GROUP_1X4
#undef TESSERA_DSP_LOOP_1X4
#undef TESSERA_DSP_GROUP_2X1
#undef TESSERA_DSP_LOOP_2X1

/// The last `tail` (1..3) weights of a row as one word, zero-padded, read byte by byte so that
/// nothing past the row is touched.
[[gnu::always_inline]] inline u32 tail_word(const std::uint8_t* w, int tail) {
  u32 t = w[0];
  if (tail > 1) t |= u32{w[1]} << 8;
  if (tail > 2) t |= u32{w[2]} << 16;
  return t;
}

template <bool WSigned>
[[gnu::always_inline]] inline void expand_weight(u32 t, u32& even, u32& odd) {
  namespace a = arch::arm_dsp;
  if constexpr (WSigned) {
    even = a::sxtb16(t);
    odd = a::sxtb16_ror8(t);
  } else {
    even = a::uxtb16(t);
    odd = a::uxtb16_ror8(t);
  }
}

/// Weight rows of a matrix multiply: `full` whole groups then `tail` (0..3) bytes per row,
/// rows back to back (row stride 4*full + tail).
struct weight_rows {
  const std::uint8_t* data;
  int full;
  int tail;
};

/// Arguments of the asm 1x4 kernel (offsets are part of its code).
struct block_args {
  const std::uint8_t* w;    // 0: weight row 0
  const std::int16_t* col;  // 4: the expanded block
  std::int32_t* acc;        // 8: acc[4c + p]
  std::int32_t* acc_end;    // 12: acc + 4n
  int rest;                 // 16: groups - 1 (>= 0)
};
static_assert(offsetof(block_args, col) == 4 && offsetof(block_args, acc) == 8 &&
              offsetof(block_args, acc_end) == 12 && offsetof(block_args, rest) == 16);

// The whole channel loop of the 1x4 kernel, for rows of whole groups. Registers: r0-r3 the
// accumulators (ascending, for STM), r4/r5 weight lanes, r6 weight pointer, r7 loop count,
// r8-r11 pixel lanes, r12 block pointer, lr accumulator pointer; block start, group count and
// end pointer live on the stack. The first group uses SMUAD, so nothing initializes the
// accumulators. Per group of 16 MACs: the weight word (LDR, two SXTB16/UXTB16) or its expanded
// pair (LDRD), two LDM of four pixel words and 8 SMLAD, 22 estimated Cortex-M4 cycles from 8-bit
// weights (single LDRs for the pixel words would save one cycle a group for six more
// instructions). The groups after the first run four per iteration (the loop's SUBS/BNE 1
// cycle a group, was 2), the (groups - 1) % 4 rest by entering the loop at its second, third
// or fourth group (no pointer moves back: every load steps its own pointer).
// LOADW: the weight group's load(s); WIDEN: r4 = [w0, w2], r5 = [w1, w3] from them (two
// SXTB16/UXTB16 of an 8-bit word, nothing for a row expanded beforehand).
#define TESSERA_DSP_LOADW_BYTES "ldr r4, [r6], #4\n\t"
#define TESSERA_DSP_WIDEN_BYTES(EXT) \
  EXT " r5, r4, ror #8\n\t"         \
  EXT " r4, r4\n\t"
#define TESSERA_DSP_LOADW_WORDS "ldrd r4, r5, [r6], #8\n\t"
#define TESSERA_DSP_WIDEN_WORDS(EXT)

#define TESSERA_DSP_LOAD_PIXELS4 "ldm r12!, {r8-r11}\n\t"

// OP0: SMUAD (the first group) or SMLAD, as "OP ACC, X, W" with the accumulate operand added
// for SMLAD by the ACC suffix.
#define TESSERA_DSP_BLOCK_HALF(OP, A, B, SUFA, SUFB) \
  OP " " A ", r8, r4" SUFA "\n\t"                    \
  "smlad " A ", r9, r5, " A "\n\t"                   \
  OP " " B ", r10, r4" SUFB "\n\t"                   \
  "smlad " B ", r11, r5, " B "\n\t"

#define TESSERA_DSP_BLOCK_GROUP(LOADW, WIDEN, EXT)                \
  LOADW                                                           \
  TESSERA_DSP_LOAD_PIXELS4                                        \
  WIDEN(EXT)                                                      \
  TESSERA_DSP_BLOCK_HALF("smlad", "r0", "r1", ", r0", ", r1")     \
  TESSERA_DSP_LOAD_PIXELS4                                        \
  TESSERA_DSP_BLOCK_HALF("smlad", "r2", "r3", ", r2", ", r3")

#define TESSERA_DSP_BLOCK(LOADW, WIDEN, EXT)              \
  "push {r4-r11, lr}\n\t"                                \
  "ldr r6, [r0, #0]\n\t"                                 \
  "ldr lr, [r0, #8]\n\t"                                 \
  "ldr r4, [r0, #4]\n\t"                                 \
  "ldr r5, [r0, #16]\n\t"                                \
  "ldr r7, [r0, #12]\n\t"                                \
  "push {r4, r5, r7}\n\t"                                \
  "0:\n\t"                                               \
  "ldr r12, [sp]\n\t"                                    \
  LOADW                                                   \
  TESSERA_DSP_LOAD_PIXELS4                                \
  WIDEN(EXT)                                              \
  TESSERA_DSP_BLOCK_HALF("smuad", "r0", "r1", "", "")     \
  TESSERA_DSP_LOAD_PIXELS4                                \
  TESSERA_DSP_BLOCK_HALF("smuad", "r2", "r3", "", "")     \
  "ldr r7, [sp, #4]\n\t"                                 \
  "cmp r7, #0\n\t"                                       \
  "beq 9f\n\t"                                           \
  "and r4, r7, #3\n\t"                                   \
  "add r7, r7, #3\n\t"                                   \
  "lsr r7, r7, #2\n\t"                                   \
  "cmp r4, #2\n\t"                                       \
  "beq 3f\n\t"                                           \
  "bhi 2f\n\t"                                           \
  "cmp r4, #1\n\t"                                       \
  "beq 4f\n\t"                                           \
  "1:\n\t"                                               \
  TESSERA_DSP_BLOCK_GROUP(LOADW, WIDEN, EXT)              \
  "2:\n\t"                                               \
  TESSERA_DSP_BLOCK_GROUP(LOADW, WIDEN, EXT)              \
  "3:\n\t"                                               \
  TESSERA_DSP_BLOCK_GROUP(LOADW, WIDEN, EXT)              \
  "4:\n\t"                                               \
  TESSERA_DSP_BLOCK_GROUP(LOADW, WIDEN, EXT)              \
  "subs r7, r7, #1\n\t"                                  \
  "bne 1b\n\t"                                           \
  "9:\n\t"                                               \
  "stm lr!, {r0-r3}\n\t"                                 \
  "ldr r7, [sp, #8]\n\t"                                 \
  "cmp lr, r7\n\t"                                       \
  "bne 0b\n\t"                                           \
  "add sp, sp, #12\n\t"                                  \
  "pop {r4-r11, pc}\n\t"

// One naked function per weight type, chosen below: a naked function's body must be a single
// asm statement (clang rejects even an `if constexpr` around it; GCC documents the same rule).
[[gnu::naked, gnu::noinline]] inline void block_1x4_asm_s8(const block_args*) {
  asm volatile(TESSERA_DSP_BLOCK(TESSERA_DSP_LOADW_BYTES, TESSERA_DSP_WIDEN_BYTES, "sxtb16"));
}
[[gnu::naked, gnu::noinline]] inline void block_1x4_asm_u8(const block_args*) {
  asm volatile(TESSERA_DSP_BLOCK(TESSERA_DSP_LOADW_BYTES, TESSERA_DSP_WIDEN_BYTES, "uxtb16"));
}
template <bool WSigned>
inline constexpr void (*block_1x4_asm)(const block_args*) = WSigned ? &block_1x4_asm_s8 : &block_1x4_asm_u8;

/// The same with weight rows expanded beforehand (2 words per group, `w` read as words): 11
/// instructions per group instead of 13.
[[gnu::naked, gnu::noinline]] inline void block_1x4_expanded_asm(const block_args*) {
  asm volatile(TESSERA_DSP_BLOCK(TESSERA_DSP_LOADW_WORDS, TESSERA_DSP_WIDEN_WORDS, ""));
}

#undef TESSERA_DSP_LOADW_BYTES
#undef TESSERA_DSP_LOADW_WORDS
#undef TESSERA_DSP_WIDEN_BYTES
#undef TESSERA_DSP_WIDEN_WORDS
#undef TESSERA_DSP_LOAD_PIXELS4
#undef TESSERA_DSP_BLOCK_HALF
#undef TESSERA_DSP_BLOCK_GROUP
#undef TESSERA_DSP_BLOCK

/// acc[4c + p] = dot(weight row c, pixel p of the expanded block) for c < n, p < 4 (no bias:
/// the epilogue adds it). `col` holds the block as [group][pixel] 8-byte groups, `full` +
/// (tail != 0) groups.
template <bool WSigned>
[[gnu::noinline]] void block_1x4(weight_rows w, int n, const std::int16_t* col, std::int32_t* acc) {
  namespace a = arch::arm_dsp;
  if (n <= 0) return;
  if (w.tail == 0 && w.full > 0) {
    const block_args args{w.data, col, acc, acc + 4 * n, w.full - 1};
    block_1x4_asm<WSigned>(&args);
    return;
  }
  const std::uint8_t* wp = w.data;
  for (int c = 0; c < n; ++c) {
    s32 a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    const std::int16_t* cp = col;
    mac_1x4<WSigned>(a0, a1, a2, a3, wp, cp, w.full);
    if (w.tail != 0) {
      u32 even, odd;
      expand_weight<WSigned>(tail_word(wp, w.tail), even, odd);
      wp += w.tail;
      const auto* g = reinterpret_cast<const u32*>(cp);
      a0 = a::smlad(g[0], even, a0);
      a0 = a::smlad(g[1], odd, a0);
      a1 = a::smlad(g[2], even, a1);
      a1 = a::smlad(g[3], odd, a1);
      a2 = a::smlad(g[4], even, a2);
      a2 = a::smlad(g[5], odd, a2);
      a3 = a::smlad(g[6], even, a3);
      a3 = a::smlad(g[7], odd, a3);
    }
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
    acc += 4;
  }
}

/// acc[c] = dot(weight row c, the expanded row) for c < n (no bias: the epilogue adds it);
/// `row` holds `full` + (tail != 0) groups of 8 bytes.
template <bool WSigned>
[[gnu::noinline]] void row_2x1(weight_rows w, int n, const std::int16_t* row, std::int32_t* acc) {
  namespace a = arch::arm_dsp;
  const int stride = 4 * w.full + w.tail;
  const auto* tail_group = reinterpret_cast<const u32*>(row + 4 * w.full);
  for (int c = 0; c < n; c += 2) {
    const bool pair = c + 1 < n;
    s32 a0 = 0, a1 = 0;
    const std::uint8_t* w0 = w.data + std::int64_t{c} * stride;
    const std::uint8_t* w1 = pair ? w0 + stride : w0;  // a lone last channel runs twice
    mac_2x1<WSigned>(a0, a1, w0, w1, row, w.full);
    if (w.tail != 0) {
      u32 even, odd;
      expand_weight<WSigned>(tail_word(w0, w.tail), even, odd);
      a0 = a::smlad(tail_group[0], even, a0);
      a0 = a::smlad(tail_group[1], odd, a0);
      expand_weight<WSigned>(tail_word(w1, w.tail), even, odd);
      a1 = a::smlad(tail_group[0], even, a1);
      a1 = a::smlad(tail_group[1], odd, a1);
    }
    acc[c] = a0;
    if (pair) acc[c + 1] = a1;
  }
}

/// acc[4c + p] = dot(expanded weight row c, pixel p of the block) for c < n, p < 4: rows of
/// `groups` >= 1 groups as [even, odd] word pairs (expand_row<int8_t, 2>), back to back.
inline void block_1x4_expanded(const std::uint32_t* w, int groups, int n, const std::int16_t* col,
                               std::int32_t* acc) {
  if (n <= 0) return;
  const block_args args{reinterpret_cast<const std::uint8_t*>(w), col, acc, acc + 4 * n, groups - 1};
  block_1x4_expanded_asm(&args);
}

// --- 2 channels x 4 pixels over expanded weights --------------------------------------------
//
// Cycles, not instructions, decide this shape (docs/benchmarks.md, "Cycle model"): the 1x4
// kernel above loads 10 words per 16 MACs (two LDM of 4 activation words, 5 cycles each, and an
// LDRD of weights), 21 cycles per 16 MACs. Two channels share every activation word: per group
// of 4 reduction elements and 32 MACs, 4 words of weights (the pair's even words, then its odd
// words), 8 of activations and 16 SMLAD. The weights are two single LDRs, not an LDRD: an LDRD
// takes 3 cycles and the LDR after it 2, while four single LDRs in a row take 5 (each after the
// first pipelines), so a half-group is 5 + 4 SMLAD + 3 (two more LDRs) + 4 = 16 cycles, 32 a
// group, 16 per 16 MACs. All 14 registers are taken (8 accumulators r0-r7, weight pair r8/r9,
// activation pair r10/r11, weight pointer r12, block pointer lr), so the group loop ends on a
// comparison with the block's end kept on the stack (7 cycles with the branch): four groups per
// iteration at immediate offsets from lr, which moves once per iteration; a block whose group
// count after the first is not a multiple of four enters the loop at its second, third or
// fourth group with lr moved back to match.
//
// Weights: the pair's rows interleaved per group as [c0 even, c1 even, c0 odd, c1 odd]
// (expand_pairs below); activations: the im2col block as the 1x4 kernel reads it,
// [group][pixel][even, odd].

/// Arguments of the asm 2x4 kernel (offsets are part of its code).
struct pair_block_args {
  const std::uint32_t* w;   // 0: the first pair's interleaved rows
  const std::int16_t* col;  // 4: the expanded block
  const std::int16_t* end;  // 8: col + 16 * groups (int16), the block's end
  std::int32_t* acc;        // 12: acc[4c + p]
  std::int32_t* acc_end;    // 16: acc + 8 * pairs
  int rem;                  // 20: (groups - 1) % 4, the groups before the loop's whole passes
};
static_assert(offsetof(pair_block_args, col) == 4 && offsetof(pair_block_args, end) == 8 &&
              offsetof(pair_block_args, acc) == 12 && offsetof(pair_block_args, acc_end) == 16 &&
              offsetof(pair_block_args, rem) == 20);

// One half-group (the even or the odd words): weights of both channels, then pixels 0,1 and 2,3
// at byte offsets A, B (= A + 8) and C, D (= A + 16, A + 24) from lr. OP: TESSERA_DSP_MUL for
// the first half of a pair's first group (it initializes the accumulators), TESSERA_DSP_MAC
// otherwise.
#define TESSERA_DSP_MUL(ACC, X, W) "smuad " ACC ", " X ", " W "\n\t"
#define TESSERA_DSP_MAC(ACC, X, W) "smlad " ACC ", " X ", " W ", " ACC "\n\t"
#define TESSERA_DSP_PAIR_HALF(OP, LOADW, WIDEN, A, B, C, D) \
  LOADW                                      \
  "ldr r10, [lr, #" A "]\n\t"                \
  "ldr r11, [lr, #" B "]\n\t"                \
  WIDEN                                      \
  OP("r0", "r10", "r8")                       \
  OP("r4", "r10", "r9")                       \
  OP("r1", "r11", "r8")                       \
  OP("r5", "r11", "r9")                       \
  "ldr r10, [lr, #" C "]\n\t"                \
  "ldr r11, [lr, #" D "]\n\t"                \
  OP("r2", "r10", "r8")                       \
  OP("r6", "r10", "r9")                       \
  OP("r3", "r11", "r8")                       \
  OP("r7", "r11", "r9")

// The weight formats' loads into r8/r9 (both channels' lanes of the half) and their widening:
// EXP, expanded int16 words (the even words of both channels, then the odd ones: 16 bytes a
// group); B8, 8-bit channel-pair words [c0 w0..w3, c1 w0..w3] (8 bytes a group, read twice:
// SXTB16 takes the even lanes, SXTB16 ROR 8 the odd ones). A B8 half costs two SXTB16 more,
// 18 cycles against 16, and needs no expanded copy.
#define TESSERA_DSP_W_EXP_EVEN_LOAD "ldr r8, [r12], #8\n\t" "ldr r9, [r12, #-4]\n\t"
#define TESSERA_DSP_W_EXP_EVEN_WIDEN
#define TESSERA_DSP_W_EXP_ODD_LOAD TESSERA_DSP_W_EXP_EVEN_LOAD
#define TESSERA_DSP_W_EXP_ODD_WIDEN
#define TESSERA_DSP_W_B8_EVEN_LOAD "ldr r8, [r12]\n\t" "ldr r9, [r12, #4]\n\t"
#define TESSERA_DSP_W_B8_EVEN_WIDEN "sxtb16 r8, r8\n\t" "sxtb16 r9, r9\n\t"
#define TESSERA_DSP_W_B8_ODD_LOAD TESSERA_DSP_W_EXP_EVEN_LOAD  // the pair's two words, then the next group
#define TESSERA_DSP_W_B8_ODD_WIDEN "sxtb16 r8, r8, ror #8\n\t" "sxtb16 r9, r9, ror #8\n\t"

// A half of format W (EXP or B8), even or odd.
#define TESSERA_DSP_PAIR_HALF_EVEN(OP, W, A, B, C, D) \
  TESSERA_DSP_PAIR_HALF(OP, TESSERA_DSP_W_##W##_EVEN_LOAD, TESSERA_DSP_W_##W##_EVEN_WIDEN, A, B, C, D)
#define TESSERA_DSP_PAIR_HALF_ODD(OP, W, A, B, C, D) \
  TESSERA_DSP_PAIR_HALF(OP, TESSERA_DSP_W_##W##_ODD_LOAD, TESSERA_DSP_W_##W##_ODD_WIDEN, A, B, C, D)

// The group 32 * K bytes past lr (K = 0..3 within a loop iteration).
#define TESSERA_DSP_PAIR_GROUP(W, E0, E1, E2, E3, O0, O1, O2, O3) \
  TESSERA_DSP_PAIR_HALF_EVEN(TESSERA_DSP_MAC, W, E0, E1, E2, E3)    \
  TESSERA_DSP_PAIR_HALF_ODD(TESSERA_DSP_MAC, W, O0, O1, O2, O3)

// The accumulation of one channel pair over the block, shared by both 2x4 kernels: the block
// pointer lr from [sp], the first group (its first half initializes the accumulators), then
// (groups - 1) % 4 groups ([sp, #16]) by entering the loop late, then four groups per
// iteration up to the block's end at [sp, #4]. Leaves channel 0's pixels in r0-r3, channel 1's
// in r4-r7, r12 at the next pair's weights. Labels 1-8.
#define TESSERA_DSP_PAIR_ACCUMULATE(W)                                     \
  "ldr lr, [sp]\n\t"                                                       \
  TESSERA_DSP_PAIR_HALF_EVEN(TESSERA_DSP_MUL, W, "0", "8", "16", "24")       \
  TESSERA_DSP_PAIR_HALF_ODD(TESSERA_DSP_MAC, W, "4", "12", "20", "28")       \
  "add lr, lr, #32\n\t"                                                     \
  "ldr r8, [sp, #16]\n\t"                                                   \
  "cmp r8, #2\n\t"                                                          \
  "beq 6f\n\t"                                                              \
  "bhi 5f\n\t"                                                              \
  "cmp r8, #0\n\t"                                                          \
  "bne 7f\n\t"                                                              \
  "ldr r8, [sp, #4]\n\t"                                                    \
  "cmp lr, r8\n\t"                                                          \
  "beq 4f\n\t"                                                              \
  "b 1f\n\t"                                                                \
  "5:\n\t"                                                                  \
  "sub lr, lr, #32\n\t"                                                     \
  "b 2f\n\t"                                                                \
  "6:\n\t"                                                                  \
  "sub lr, lr, #64\n\t"                                                     \
  "b 3f\n\t"                                                                \
  "7:\n\t"                                                                  \
  "sub lr, lr, #96\n\t"                                                     \
  "b 8f\n\t"                                                                \
  "1:\n\t"                                                                  \
  TESSERA_DSP_PAIR_GROUP(W, "0", "8", "16", "24", "4", "12", "20", "28")        \
  "2:\n\t"                                                                  \
  TESSERA_DSP_PAIR_GROUP(W, "32", "40", "48", "56", "36", "44", "52", "60")     \
  "3:\n\t"                                                                  \
  TESSERA_DSP_PAIR_GROUP(W, "64", "72", "80", "88", "68", "76", "84", "92")     \
  "8:\n\t"                                                                  \
  TESSERA_DSP_PAIR_GROUP(W, "96", "104", "112", "120", "100", "108", "116", "124") \
  "add lr, lr, #128\n\t"                                                    \
  "ldr r8, [sp, #4]\n\t"                                                    \
  "cmp lr, r8\n\t"                                                          \
  "bne 1b\n\t"                                                              \
  "4:\n\t"

/// acc[4c + p] for the channel pairs of `args` (see pair_block_args), weights of format W.
/// Stack: [sp] block start, [sp, 4] block end, [sp, 8] accumulator pointer, [sp, 12] its end,
/// [sp, 16] rem.
// Both kernels' entry: the weight pointer into r12, the next five argument words into r1-r5
// (then onto the stack).
#define TESSERA_DSP_PAIR_ENTRY \
  "push {r4-r11, lr}\n\t"     \
  "ldr r12, [r0, #0]\n\t"     \
  "ldr r1, [r0, #4]\n\t"      \
  "ldr r2, [r0, #8]\n\t"      \
  "ldr r3, [r0, #12]\n\t"     \
  "ldr r4, [r0, #16]\n\t"     \
  "ldr r5, [r0, #20]\n\t"
#define TESSERA_DSP_PAIR_ACC_KERNEL(W) \
  TESSERA_DSP_PAIR_ENTRY               \
  "push {r1-r5}\n\t"                  \
  "0:\n\t"                            \
  TESSERA_DSP_PAIR_ACCUMULATE(W)       \
  "ldr r10, [sp, #8]\n\t"             \
  "stm r10!, {r0-r7}\n\t"             \
  "str r10, [sp, #8]\n\t"             \
  "ldr r11, [sp, #12]\n\t"            \
  "cmp r10, r11\n\t"                  \
  "bne 0b\n\t"                        \
  "add sp, sp, #20\n\t"               \
  "pop {r4-r11, pc}\n\t"
[[gnu::naked, gnu::noinline]] inline void block_2x4_expanded_asm(const pair_block_args*) {
  asm volatile(TESSERA_DSP_PAIR_ACC_KERNEL(EXP));
}
/// The same from 8-bit channel-pair words (pair_bytes_portable).
[[gnu::naked, gnu::noinline]] inline void block_2x4_bytes_asm(const pair_block_args*) {
  asm volatile(TESSERA_DSP_PAIR_ACC_KERNEL(B8));
}

// --- 2 channels x 4 pixels, requantized and stored as 8-bit outputs ---------------------------
//
// The same accumulation, then the epilogue in registers instead of through an accumulator
// block: stored by the kernel and reloaded per pixel by the store loop, the 8 accumulators cost
// an STM and 8 LDR, and the store loop reloads each channel's 12-byte entry once per pixel
// (about 12 estimated cycles an output in all). Here each channel's entry is loaded once for
// its 4 pixels (LDM {m, b_lo, b_hi}, then LDRD of b for the next pixel, since SMLAL consumes
// its destination pair): about 9 cycles an output. The accumulators of the pixels already
// stored free the registers for the output stride and its multiples.

/// Arguments of the asm 2x4 kernels that store 8-bit outputs (offsets are part of their code;
/// the first five words as in pair_block_args, with outputs in place of accumulators).
struct pair_store_args {
  const std::uint32_t* w;       // 0: the first pair's interleaved rows
  const std::int16_t* col;      // 4: the expanded block
  const std::int16_t* end;      // 8: col + 16 * groups (int16), the block's end
  std::uint8_t* out;            // 12: pixel 0's output of the first channel
  std::uint8_t* out_end;        // 16: out + 2 * pairs
  int rem;                      // 20: (groups - 1) % 4
  const std::uint32_t* table;   // 24: per channel {m, b_lo, b_hi} (epilogue.hpp's rq_entry)
  int stride;                   // 28: bytes from one pixel's outputs to the next one's
};
static_assert(offsetof(pair_store_args, col) == 4 && offsetof(pair_store_args, end) == 8 &&
              offsetof(pair_store_args, out) == 12 && offsetof(pair_store_args, out_end) == 16 &&
              offsetof(pair_store_args, rem) == 20 && offsetof(pair_store_args, table) == 24 &&
              offsetof(pair_store_args, stride) == 28);

// Requantize accumulator ACC with the entry before lr (b reloaded) and store it at ADDR.
#define TESSERA_DSP_PAIR_OUT(SAT, BITS, ACC, ADDR) \
  "ldrd r9, r10, [lr, #-8]\n\t"                   \
  "smlal r9, r10, " ACC ", r8\n\t"                \
  SAT " r10, #" BITS ", r10\n\t"                   \
  "strb r10, " ADDR "\n\t"

// One channel's 4 pixels (accumulators A0-A3) at r11 + p * stride: r0 = stride and
// r1 = 3 * stride once pixel 0 and 1 of channel 0 have freed them.
#define TESSERA_DSP_PAIR_CHANNEL(SAT, BITS, A1, A2, A3)      \
  TESSERA_DSP_PAIR_OUT(SAT, BITS, A1, "[r11, r0]")           \
  TESSERA_DSP_PAIR_OUT(SAT, BITS, A2, "[r11, r0, lsl #1]")   \
  TESSERA_DSP_PAIR_OUT(SAT, BITS, A3, "[r11, r1]")

// Stack: [sp] block start, [sp, 4] block end, [sp, 8] output pointer, [sp, 12] its end,
// [sp, 16] rem, [sp, 20] table pointer, [sp, 24] stride.
#define TESSERA_DSP_PAIR_STORE8_KERNEL(SAT, BITS, W)               \
  TESSERA_DSP_PAIR_ENTRY                                           \
  "ldr r6, [r0, #24]\n\t"                                          \
  "ldr r7, [r0, #28]\n\t"                                          \
  "push {r1-r7}\n\t"                                               \
  "0:\n\t"                                                         \
  TESSERA_DSP_PAIR_ACCUMULATE(W)                                    \
  "ldr lr, [sp, #20]\n\t"                                          \
  "ldr r11, [sp, #8]\n\t"                                          \
  "ldm lr!, {r8, r9, r10}\n\t"                                     \
  "smlal r9, r10, r0, r8\n\t"                                      \
  SAT " r10, #" BITS ", r10\n\t"                                    \
  "ldr r0, [sp, #24]\n\t"                                          \
  "strb r10, [r11]\n\t"                                            \
  TESSERA_DSP_PAIR_OUT(SAT, BITS, "r1", "[r11, r0]")                \
  "add r1, r0, r0, lsl #1\n\t"                                     \
  TESSERA_DSP_PAIR_OUT(SAT, BITS, "r2", "[r11, r0, lsl #1]")        \
  TESSERA_DSP_PAIR_OUT(SAT, BITS, "r3", "[r11, r1]")                \
  "ldm lr!, {r8, r9, r10}\n\t"                                     \
  "add r11, r11, #1\n\t"                                           \
  "smlal r9, r10, r4, r8\n\t"                                      \
  SAT " r10, #" BITS ", r10\n\t"                                    \
  "strb r10, [r11]\n\t"                                            \
  TESSERA_DSP_PAIR_CHANNEL(SAT, BITS, "r5", "r6", "r7")             \
  "add r11, r11, #1\n\t"                                           \
  "str lr, [sp, #20]\n\t"                                          \
  "str r11, [sp, #8]\n\t"                                          \
  "ldr r10, [sp, #12]\n\t"                                         \
  "cmp r11, r10\n\t"                                               \
  "bne 0b\n\t"                                                     \
  "add sp, sp, #28\n\t"                                            \
  "pop {r4-r11, pc}\n\t"

// Outputs saturated to [-128, 127] (SSAT 8), [0, 255] (USAT 8) and [0, 127] (USAT 7: a fused
// ReLU of a signed output), from expanded weights (EXP) or 8-bit channel-pair words (B8); one
// naked function each (a naked body is a single asm statement).
#define TESSERA_DSP_PAIR_STORE8_FN(NAME, SAT, BITS, W) \
  [[gnu::naked, gnu::noinline]] inline void NAME(const pair_store_args*) { asm volatile(TESSERA_DSP_PAIR_STORE8_KERNEL(SAT, BITS, W)); }
TESSERA_DSP_PAIR_STORE8_FN(block_2x4_store_s8_asm, "ssat", "8", EXP)
TESSERA_DSP_PAIR_STORE8_FN(block_2x4_store_u8_asm, "usat", "8", EXP)
TESSERA_DSP_PAIR_STORE8_FN(block_2x4_store_u7_asm, "usat", "7", EXP)
TESSERA_DSP_PAIR_STORE8_FN(block_2x4_bytes_store_s8_asm, "ssat", "8", B8)
TESSERA_DSP_PAIR_STORE8_FN(block_2x4_bytes_store_u8_asm, "usat", "8", B8)
TESSERA_DSP_PAIR_STORE8_FN(block_2x4_bytes_store_u7_asm, "usat", "7", B8)

#undef TESSERA_DSP_PAIR_STORE8_KERNEL
#undef TESSERA_DSP_PAIR_STORE8_FN
#undef TESSERA_DSP_PAIR_ACC_KERNEL
#undef TESSERA_DSP_PAIR_ENTRY
#undef TESSERA_DSP_PAIR_HALF_EVEN
#undef TESSERA_DSP_PAIR_HALF_ODD
#undef TESSERA_DSP_W_EXP_EVEN_LOAD
#undef TESSERA_DSP_W_EXP_EVEN_WIDEN
#undef TESSERA_DSP_W_EXP_ODD_LOAD
#undef TESSERA_DSP_W_EXP_ODD_WIDEN
#undef TESSERA_DSP_W_B8_EVEN_LOAD
#undef TESSERA_DSP_W_B8_EVEN_WIDEN
#undef TESSERA_DSP_W_B8_ODD_LOAD
#undef TESSERA_DSP_W_B8_ODD_WIDEN
#undef TESSERA_DSP_PAIR_CHANNEL
#undef TESSERA_DSP_PAIR_OUT
#undef TESSERA_DSP_PAIR_ACCUMULATE
#undef TESSERA_DSP_MUL
#undef TESSERA_DSP_MAC
#undef TESSERA_DSP_PAIR_HALF
#undef TESSERA_DSP_PAIR_GROUP

/// Two int16 lanes [lo, hi] of one word, as SXTB16 writes them.
constexpr std::uint32_t lane_pair(std::int8_t lo, std::int8_t hi) {
  return std::uint32_t{static_cast<std::uint16_t>(lo)} | std::uint32_t{static_cast<std::uint16_t>(hi)} << 16;
}

/// The expanded-weight cache of the 2x4 kernel: channel pairs with their rows interleaved per
/// group as [c0 even, c1 even, c0 odd, c1 odd], then (odd `n`) the last row alone as [even, odd]
/// words for the 1x4 kernel. `n` rows of `k` int8 weights, `groups` = ceil(k / 4) each; the last
/// group zero-padded. Size: n * groups * 8 bytes, as conv2d_weight_cache_bytes reports. This
/// portable form is what a layer whose weights are template arguments gets at compile time in
/// flash (flash_constants.hpp); expand_pairs below is the same with SXTB16 at run time (the
/// kernel tests run the kernels on both).
constexpr void expand_pairs_portable(const std::int8_t* weights, int k, int n, std::uint32_t* dst) {
  const int groups = (k + 3) / 4;
  // Group g of row r as [even, odd] words: lanes (4g, 4g+2) and (4g+1, 4g+3), zero past k.
  const auto at = [&](int r, int i) -> std::int8_t { return i < k ? weights[std::int64_t{r} * k + i] : 0; };
  const auto even = [&](int r, int g) { return lane_pair(at(r, 4 * g), at(r, 4 * g + 2)); };
  const auto odd = [&](int r, int g) { return lane_pair(at(r, 4 * g + 1), at(r, 4 * g + 3)); };
  for (int c = 0; c + 1 < n; c += 2) {
    for (int g = 0; g < groups; ++g) {
      dst[0] = even(c, g);
      dst[1] = even(c + 1, g);
      dst[2] = odd(c, g);
      dst[3] = odd(c + 1, g);
      dst += 4;
    }
  }
  for (int g = 0; n % 2 != 0 && g < groups; ++g) {
    dst[0] = even(n - 1, g);
    dst[1] = odd(n - 1, g);
    dst += 2;
  }
}

inline void expand_pairs(const std::int8_t* weights, int k, int n, std::uint32_t* dst) {
  const int groups = (k + 3) / 4;
  namespace a = arch::arm_dsp;
  for (int c = 0; c + 1 < n; c += 2) {
    const auto* r0 = reinterpret_cast<const std::uint8_t*>(weights) + std::int64_t{c} * k;
    const auto* r1 = r0 + k;
    for (int g = 0; g < groups; ++g) {
      const int take = k - 4 * g < 4 ? k - 4 * g : 4;
      u32 w0, w1;
      if (take == 4) {
        std::memcpy(&w0, r0 + 4 * g, 4);  // rows are byte aligned: an unaligned LDR each
        std::memcpy(&w1, r1 + 4 * g, 4);
      } else {
        w0 = tail_word(r0 + 4 * g, take);
        w1 = tail_word(r1 + 4 * g, take);
      }
      dst[0] = a::sxtb16(w0);
      dst[1] = a::sxtb16(w1);
      dst[2] = a::sxtb16_ror8(w0);
      dst[3] = a::sxtb16_ror8(w1);
      dst += 4;
    }
  }
  if (n % 2 != 0) expand_row<std::int8_t, 2>(weights + std::int64_t{n - 1} * k, k, dst);
}

/// A layer's 8-bit weights as channel-pair words for the 2x4 kernel that widens them itself
/// (block_2x4_bytes_asm): per pair of rows and group of 4 weights [row c word, row c+1 word],
/// then (odd `n`) the last row's words alone for the 1x4 kernel; each word holds the group's 4
/// weights in order (as a row read by words), the last group zero-padded. n * groups words,
/// about the 8-bit weights' own size, which the kernel then no longer reads. Used for whole
/// layers whose expanded copy would exceed the weight-cache budget (flash_constants.hpp).
constexpr void pair_bytes_portable(const std::int8_t* weights, int k, int n, std::uint32_t* dst) {
  const int groups = (k + 3) / 4;
  const auto word = [&](int r, int g) {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const int e = 4 * g + i;
      const std::int8_t b = e < k ? weights[std::int64_t{r} * k + e] : std::int8_t{0};
      v |= std::uint32_t{static_cast<std::uint8_t>(b)} << (8 * i);
    }
    return v;
  };
  for (int c = 0; c + 1 < n; c += 2) {
    for (int g = 0; g < groups; ++g) {
      dst[0] = word(c, g);
      dst[1] = word(c + 1, g);
      dst += 2;
    }
  }
  for (int g = 0; n % 2 != 0 && g < groups; ++g) *dst++ = word(n - 1, g);
}

/// acc[4p'] = dot(the odd last weight row, pixel p of the block) for p < 4 through the 1x4
/// kernel, that row following `pairs` channel pairs: of expanded words (expand_pairs), or of
/// 8-bit pair words (pair_bytes_portable).
inline void last_row_expanded(const std::uint32_t* w, int groups, int pairs, const std::int16_t* col,
                              std::int32_t* acc) {
  block_1x4_expanded(w + std::int64_t{pairs} * groups * 4, groups, 1, col, acc);
}
inline void last_row_bytes(const std::uint32_t* w, int groups, int pairs, const std::int16_t* col,
                           std::int32_t* acc) {
  block_1x4<true>(weight_rows{reinterpret_cast<const std::uint8_t*>(w + std::int64_t{pairs} * groups * 2), groups, 0},
                  1, col, acc);
}

/// acc[4c + p] = dot(weight row c, pixel p of the block) for c < n, p < 4, from weights the 2x4
/// kernel `PairAsm` reads (its format's `LastRow` for an odd last row).
template <void (*PairAsm)(const pair_block_args*),
          void (*LastRow)(const std::uint32_t*, int, int, const std::int16_t*, std::int32_t*)>
inline void block_2x4(const std::uint32_t* w, int groups, int n, const std::int16_t* col, std::int32_t* acc) {
  const int pairs = n / 2;
  if (pairs > 0) {
    const pair_block_args args{w, col, col + 16 * groups, acc, acc + 8 * pairs, (groups - 1) % 4};
    PairAsm(&args);
  }
  if (n % 2 != 0) LastRow(w, groups, pairs, col, acc + 8 * pairs);
}
/// From the cache of expand_pairs.
inline void block_2x4_expanded(const std::uint32_t* w, int groups, int n, const std::int16_t* col,
                               std::int32_t* acc) {
  block_2x4<&block_2x4_expanded_asm, &last_row_expanded>(w, groups, n, col, acc);
}
/// From the words of pair_bytes_portable.
inline void block_2x4_bytes(const std::uint32_t* w, int groups, int n, const std::int16_t* col, std::int32_t* acc) {
  block_2x4<&block_2x4_bytes_asm, &last_row_bytes>(w, groups, n, col, acc);
}
}  // namespace tessera::kernels::arm_dsp::detail
