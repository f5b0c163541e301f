// The rv32 micro-kernels: PULP-NN's 4 output channels x 2 pixels (or rows) of int8 data, with
// the 8 accumulators in registers, for RV32IM without Xpulp's packed dot products.
//
// Per reduction element the 4x2 kernel loads 2 activations and 4 weights with `lb`/`lbu`
// (sign- or zero-extending byte loads with an immediate offset: one instruction per operand)
// and runs 8 mul + 8 add: 22 instructions for 8 MACs (2.75 per MAC, the floor of this shape on
// RV32IM), plus 6 pointer steps and a branch per 4 elements (unrolled): 95 per 32 MACs, 2.97.
// The alternatives, counted per operand (not built):
//   - a word load of 4 int8 and extraction with slli/srai pairs: 1 + 2 + 2 + 2 + 1 = 8
//     instructions per 4 operands, 2 per operand instead of 1;
//   - activations packed as int16 pairs (x = a0 + a1*2^16) multiplied by one weight (two MACs
//     per mul): exact only while a 16-bit field cannot overflow, which with int8 extremes is
//     one product (2 * (-128)^2 = 2^15), so the pair must be split after each multiply (about
//     4 instructions) and nothing is saved; and packing it costs 2 more per pair.
// RV32IM has no multiply-accumulate, and mul + add per MAC (2 of the 2.75) is what Xpulp's
// packed dot product (pv.sdotsp.b: 4 MACs per instruction) removes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tessera::kernels::rv32 {

namespace detail {

template <class T>
inline constexpr bool is_signed_byte = static_cast<T>(-1) < static_cast<T>(0);

// The asm loops name RISC-V registers in their clobber lists, which clang checks when it parses
// a template (GCC only when it emits code): elsewhere they are stubs that refuse to be used, so
// that the header still compiles on its own on every host.
#if defined(__riscv)

// One reduction element of the 4x2 kernel at byte offset U: 2 activation loads (t0, t1), then
// per channel a weight load (t2), 2 mul and 2 add (two product temporaries t3, t4, so that an
// in-order core does not wait on each product). The temporaries are named registers listed as
// clobbers: with 14 read-write operands the asm is at GCC's limit of 30 operands.
#define TESSERA_RV32_STEP_4X2(LDA, LDW, U)                                                        \
  LDA " t0, " U "(%[a0])\n\t" LDA " t1, " U "(%[a1])\n\t"                                 \
  LDW " t2, " U "(%[w0])\n\t" "mul t3, t0, t2\n\t" "mul t4, t1, t2\n\t"        \
  "add %[s0], %[s0], t3\n\t" "add %[s1], %[s1], t4\n\t"                                    \
  LDW " t2, " U "(%[w1])\n\t" "mul t3, t0, t2\n\t" "mul t4, t1, t2\n\t"        \
  "add %[s2], %[s2], t3\n\t" "add %[s3], %[s3], t4\n\t"                                    \
  LDW " t2, " U "(%[w2])\n\t" "mul t3, t0, t2\n\t" "mul t4, t1, t2\n\t"        \
  "add %[s4], %[s4], t3\n\t" "add %[s5], %[s5], t4\n\t"                                    \
  LDW " t2, " U "(%[w3])\n\t" "mul t3, t0, t2\n\t" "mul t4, t1, t2\n\t"        \
  "add %[s6], %[s6], t3\n\t" "add %[s7], %[s7], t4\n\t"

#define TESSERA_RV32_LOOP_4X2(LDA, LDW)                                                           \
  "1:\n\t" TESSERA_RV32_STEP_4X2(LDA, LDW, "0") TESSERA_RV32_STEP_4X2(LDA, LDW, "1")              \
      TESSERA_RV32_STEP_4X2(LDA, LDW, "2") TESSERA_RV32_STEP_4X2(LDA, LDW, "3")                   \
  "addi %[a0], %[a0], 4\n\t" "addi %[a1], %[a1], 4\n\t" "addi %[w0], %[w0], 4\n\t"                \
  "addi %[w1], %[w1], 4\n\t" "addi %[w2], %[w2], 4\n\t" "addi %[w3], %[w3], 4\n\t"                \
  "bne %[a0], %[end], 1b\n\t"                                                                     \
  : [a0] "+r"(a0), [a1] "+r"(a1), [w0] "+r"(w0), [w1] "+r"(w1), [w2] "+r"(w2), [w3] "+r"(w3),     \
    [s0] "+r"(s[0]), [s1] "+r"(s[1]), [s2] "+r"(s[2]), [s3] "+r"(s[3]), [s4] "+r"(s[4]),           \
    [s5] "+r"(s[5]), [s6] "+r"(s[6]), [s7] "+r"(s[7])                                            \
  : [end] "r"(end)                                                                                \
  : "t0", "t1", "t2", "t3", "t4", "memory"

/// The 4x2 loop over n4 (a positive multiple of 4) elements, in assembly: GCC's scheduler
/// hoists the 24 loads of an unrolled C++ body above the multiplies and spills 10 registers.
/// 95 instructions per 4 elements (32 MACs).
template <class TA, class TW>
[[gnu::always_inline]] inline void loop_4x2(const TA*& a0_, const TA*& a1_, const TW*& w0_, const TW*& w1_,
                                            const TW*& w2_, const TW*& w3_, int n4, std::int32_t (&s)[8]) {
  const auto* a0 = reinterpret_cast<const std::uint8_t*>(a0_);
  const auto* a1 = reinterpret_cast<const std::uint8_t*>(a1_);
  const auto* w0 = reinterpret_cast<const std::uint8_t*>(w0_);
  const auto* w1 = reinterpret_cast<const std::uint8_t*>(w1_);
  const auto* w2 = reinterpret_cast<const std::uint8_t*>(w2_);
  const auto* w3 = reinterpret_cast<const std::uint8_t*>(w3_);
  const std::uint8_t* end = a0 + n4;
  constexpr bool sa = is_signed_byte<TA>, sw = is_signed_byte<TW>;
  if constexpr (sa && sw) asm volatile(TESSERA_RV32_LOOP_4X2("lb", "lb"));
  else if constexpr (sa) asm volatile(TESSERA_RV32_LOOP_4X2("lb", "lbu"));
  else if constexpr (sw) asm volatile(TESSERA_RV32_LOOP_4X2("lbu", "lb"));
  else asm volatile(TESSERA_RV32_LOOP_4X2("lbu", "lbu"));
  a0_ = reinterpret_cast<const TA*>(a0);
  a1_ = reinterpret_cast<const TA*>(a1);
  w0_ = reinterpret_cast<const TW*>(w0);
  w1_ = reinterpret_cast<const TW*>(w1);
  w2_ = reinterpret_cast<const TW*>(w2);
  w3_ = reinterpret_cast<const TW*>(w3);
}

#undef TESSERA_RV32_LOOP_4X2

// The 4x1 kernel (a Gemm's single row): 1 activation load, then per channel a weight load, mul
// and add: 13 instructions per element, 58 per 4 elements (16 MACs) with the pointer steps.
#define TESSERA_RV32_STEP_4X1(LDA, LDW, U)                                                        \
  LDA " t0, " U "(%[a0])\n\t"                                                                     \
  LDW " t2, " U "(%[w0])\n\t" LDW " t1, " U "(%[w1])\n\t" "mul t3, t0, t2\n\t" "mul t4, t0, t1\n\t" \
  "add %[s0], %[s0], t3\n\t" "add %[s1], %[s1], t4\n\t"                                          \
  LDW " t2, " U "(%[w2])\n\t" LDW " t1, " U "(%[w3])\n\t" "mul t3, t0, t2\n\t" "mul t4, t0, t1\n\t" \
  "add %[s2], %[s2], t3\n\t" "add %[s3], %[s3], t4\n\t"

#define TESSERA_RV32_LOOP_4X1(LDA, LDW)                                                           \
  "1:\n\t" TESSERA_RV32_STEP_4X1(LDA, LDW, "0") TESSERA_RV32_STEP_4X1(LDA, LDW, "1")              \
      TESSERA_RV32_STEP_4X1(LDA, LDW, "2") TESSERA_RV32_STEP_4X1(LDA, LDW, "3")                   \
  "addi %[a0], %[a0], 4\n\t" "addi %[w0], %[w0], 4\n\t" "addi %[w1], %[w1], 4\n\t"                \
  "addi %[w2], %[w2], 4\n\t" "addi %[w3], %[w3], 4\n\t"                                           \
  "bne %[a0], %[end], 1b\n\t"                                                                     \
  : [a0] "+r"(a0), [w0] "+r"(w0), [w1] "+r"(w1), [w2] "+r"(w2), [w3] "+r"(w3),                    \
    [s0] "+r"(s[0]), [s1] "+r"(s[1]), [s2] "+r"(s[2]), [s3] "+r"(s[3])                            \
  : [end] "r"(end)                                                                                \
  : "t0", "t1", "t2", "t3", "t4", "memory"

template <class TA, class TW>
[[gnu::always_inline]] inline void loop_4x1(const TA*& a0_, const TW*& w0_, const TW*& w1_, const TW*& w2_,
                                            const TW*& w3_, int n4, std::int32_t (&s)[4]) {
  const auto* a0 = reinterpret_cast<const std::uint8_t*>(a0_);
  const auto* w0 = reinterpret_cast<const std::uint8_t*>(w0_);
  const auto* w1 = reinterpret_cast<const std::uint8_t*>(w1_);
  const auto* w2 = reinterpret_cast<const std::uint8_t*>(w2_);
  const auto* w3 = reinterpret_cast<const std::uint8_t*>(w3_);
  const std::uint8_t* end = a0 + n4;
  constexpr bool sa = is_signed_byte<TA>, sw = is_signed_byte<TW>;
  if constexpr (sa && sw) asm volatile(TESSERA_RV32_LOOP_4X1("lb", "lb"));
  else if constexpr (sa) asm volatile(TESSERA_RV32_LOOP_4X1("lb", "lbu"));
  else if constexpr (sw) asm volatile(TESSERA_RV32_LOOP_4X1("lbu", "lb"));
  else asm volatile(TESSERA_RV32_LOOP_4X1("lbu", "lbu"));
  a0_ = reinterpret_cast<const TA*>(a0);
  w0_ = reinterpret_cast<const TW*>(w0);
  w1_ = reinterpret_cast<const TW*>(w1);
  w2_ = reinterpret_cast<const TW*>(w2);
  w3_ = reinterpret_cast<const TW*>(w3);
}

#undef TESSERA_RV32_LOOP_4X1
#undef TESSERA_RV32_STEP_4X1
#undef TESSERA_RV32_STEP_4X2

#else

template <class T>
inline constexpr bool riscv_only = false;
template <class TA, class TW>
void loop_4x2(const TA*&, const TA*&, const TW*&, const TW*&, const TW*&, const TW*&, int, std::int32_t (&)[8]) {
  static_assert(riscv_only<TA>, "tessera::kernels::rv32::detail::loop_4x2: RISC-V assembly");
}
template <class TA, class TW>
void loop_4x1(const TA*&, const TW*&, const TW*&, const TW*&, const TW*&, int, std::int32_t (&)[4]) {
  static_assert(riscv_only<TA>, "tessera::kernels::rv32::detail::loop_4x1: RISC-V assembly");
}

#endif  // __riscv

}  // namespace detail

/// acc[c*P + p] += sum_{r < rows} sum_{t < n} a[p][r*a_pitch + t] * w[c*w_row + r*w_pitch + t]
/// for C channels and P pixels: `rows` runs of n elements (a convolution window's kernel rows,
/// or one Gemm row with rows == 1), the weights one row per output channel. The accumulators
/// stay in registers across the runs. The 4x2 and 4x1 cases run the assembly loops over each
/// run's whole groups of 4 elements; the rest (1-channel leftovers, the last n % 4 elements) is
/// plain C++.
template <int C, int P, class TA, class TW>
[[gnu::always_inline]] inline void dot_window(const TA* const (&a)[P], std::ptrdiff_t a_pitch, const TW* w,
                                              std::ptrdiff_t w_row, std::ptrdiff_t w_pitch, int rows, int n,
                                              std::int32_t (&acc)[C * P]) {
  const TA* ap[P];
  const TW* wp[C];
  std::int32_t s[C * P];
#pragma GCC unroll 8
  for (int p = 0; p < P; ++p) ap[p] = a[p];
#pragma GCC unroll 4
  for (int c = 0; c < C; ++c) wp[c] = w + c * w_row;
#pragma GCC unroll 8
  for (int i = 0; i < C * P; ++i) s[i] = acc[i];
  const int n4 = (C == 4 && (P == 2 || P == 1)) ? (n & ~3) : 0;
  const int tail = n - n4;
  for (int r = 0; r < rows; ++r) {
    if constexpr (C == 4 && P == 2) {
      if (n4 > 0) detail::loop_4x2(ap[0], ap[1], wp[0], wp[1], wp[2], wp[3], n4, s);
    } else if constexpr (C == 4 && P == 1) {
      if (n4 > 0) detail::loop_4x1(ap[0], wp[0], wp[1], wp[2], wp[3], n4, s);
    }
    for (int t = 0; t < tail; ++t) {
      std::int32_t av[P];
#pragma GCC unroll 8
      for (int p = 0; p < P; ++p) av[p] = ap[p][t];
#pragma GCC unroll 4
      for (int c = 0; c < C; ++c) {
        const std::int32_t wv = wp[c][t];
#pragma GCC unroll 8
        for (int p = 0; p < P; ++p) s[c * P + p] += av[p] * wv;
      }
    }
#pragma GCC unroll 8
    for (int p = 0; p < P; ++p) ap[p] += a_pitch - n4;
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c) wp[c] += w_pitch - n4;
  }
#pragma GCC unroll 8
  for (int i = 0; i < C * P; ++i) acc[i] = s[i];
}

/// One run: acc[c*P + p] += sum_{t < n} a[p][t] * w[c*w_row + t].
template <int C, int P, class TA, class TW>
[[gnu::always_inline]] inline void dot_rows(const TA* const (&a)[P], const TW* w, std::ptrdiff_t w_row, int n,
                                            std::int32_t (&acc)[C * P]) {
  dot_window<C, P>(a, n, w, w_row, n, 1, n, acc);
}

/// acc[c*P + p] += sum_{t < n} a[p][t] * b[t*b_row + c] for C columns and P rows: a MatMul's
/// B, [k][n] row-major, whose C adjacent columns are one run of each row (no transpose).
template <int C, int P, class TA, class TB>
[[gnu::always_inline]] inline void dot_columns(const TA* const (&a)[P], const TB* b, std::ptrdiff_t b_row, int n,
                                               std::int32_t (&acc)[C * P]) {
  const TA* ap[P];
  std::int32_t s[C * P];
#pragma GCC unroll 8
  for (int p = 0; p < P; ++p) ap[p] = a[p];
#pragma GCC unroll 8
  for (int i = 0; i < C * P; ++i) s[i] = acc[i];
  for (int t = 0; t < n; ++t) {
    std::int32_t av[P];
#pragma GCC unroll 8
    for (int p = 0; p < P; ++p) av[p] = ap[p][t];
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c) {
      const std::int32_t bv = b[c];
#pragma GCC unroll 8
      for (int p = 0; p < P; ++p) s[c * P + p] += av[p] * bv;
    }
    b += b_row;
  }
#pragma GCC unroll 8
  for (int i = 0; i < C * P; ++i) acc[i] = s[i];
}

}  // namespace tessera::kernels::rv32
