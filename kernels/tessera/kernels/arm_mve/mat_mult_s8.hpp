// The arm_mve matrix micro-kernels: int8 rows times int8 weight rows, int32 dot products.
// Every convolution, Gemm and MatMul of the family ends up here (one instance each, not one per
// layer shape): conv2d feeds im2col rows or input pixels, gemm activation rows, matmul rows of
// A against B transposed.
//
// VMLADAVA multiplies 16 int8 pairs and adds them to a core register: 16 multiply-adds per
// instruction. Its accumulator must be an even register, which bounds the register block:
// 3 rows x 2 columns uses r0, r2, ..., r10 for accumulators and r1, r3, r5, r7, r9 for the
// pointers, the reduction loop counts in lr (WLSTP/LETP: the last iteration is tail-predicated,
// so k needs no padding and nothing is read past a row). Per 16 reduction elements: 5 loads,
// 6 VMLADAVA, 1 LETP = 12 instructions for 96 multiply-adds.
//
// The column loop is in the same assembly block (the compiler, left with no free register,
// spilled every pointer around it: about 35 instructions per column pair, now 14). Pointers
// are rewound by R = 16 * ceil(k / 16), the bytes a tail-predicated pass advances them, and
// R and the weight step 2k - R live in Q5's lanes; VMOV from a zero Q4 clears two
// accumulators per instruction.
//
// With one row only (Gemm batch 1) the 1 x 4 kernel does 5 loads, 4 VMLADAVA, 1 LETP for 64.
#pragma once

#include <cstdint>

#include <tessera/kernels/arch/arm_mve.hpp>

namespace tessera::kernels::arm_mve {

/// Sums of 3 rows against `pairs` pairs of weight rows, for r < 3, p < pairs, j < 2:
///   acc[6p + 2r + j] = sum_{t<k} x[r*k + t] * w_j[(2p)*k + t],   w_0 = `w0`, w_1 = `w1`.
///
/// - `x`: 3 rows of k int8 values, k apart (im2col rows, or 3 consecutive input pixels).
/// - `w0`, `w1`: the weight rows of the first pair's two columns; each pair moves both by 2k,
///   so `w1 = w0 + k` walks [n][k] weights in column pairs (w1 == w0 computes one column twice).
/// - `acc`: 6 * pairs int32, one pair's block of 3 rows x 2 columns after the other.
/// - k >= 1, pairs >= 1.
[[gnu::noinline]] inline void mat_mult_3x2_s8(const std::int8_t* x, int k, const std::int8_t* w0_in,
                                              const std::int8_t* w1_in, int pairs, std::int32_t* acc) {
  const int r = (k + 15) & ~15;
  register std::int32_t a00 asm("r0") = r;           // moved to Q5 first, then a sum
  register std::int32_t a01 asm("r2") = 2 * k - r;   // likewise
  register std::int32_t a10 asm("r4");
  register std::int32_t a11 asm("r6");
  register std::int32_t a20 asm("r8");
  register std::int32_t a21 asm("r10");
  register const std::int8_t* p0 asm("r1") = x;
  register const std::int8_t* p1 asm("r3") = x + k;
  register const std::int8_t* p2 asm("r5") = x + 2 * k;
  register const std::int8_t* w0 asm("r7") = w0_in;
  register const std::int8_t* w1 asm("r9") = w1_in;
  register std::int32_t* out asm("r11") = acc;
  register int n asm("r12") = pairs;
  asm volatile(
      "vmov q5[2], q5[0], %[a00], %[a01]\n"  // q5[2] = R, q5[0] = 2k - R
      "vmov.i32 q4, #0\n"
      "vmov %[a00], %[a01], q4[2], q4[0]\n"
      "vmov %[a20], %[a21], q4[2], q4[0]\n"
      "3:\n"
      "sub %[a10], %[p1], %[p0]\n"  // k
      "wlstp.8 lr, %[a10], 2f\n"
      "vmov %[a10], %[a11], q4[2], q4[0]\n"
      "1:\n"
      "vldrb.8 q0, [%[w0]], #16\n"
      "vldrb.8 q1, [%[w1]], #16\n"
      "vldrb.8 q2, [%[p0]], #16\n"
      "vmladava.s8 %[a00], q2, q0\n"
      "vmladava.s8 %[a01], q2, q1\n"
      "vldrb.8 q3, [%[p1]], #16\n"
      "vmladava.s8 %[a10], q3, q0\n"
      "vmladava.s8 %[a11], q3, q1\n"
      "vldrb.8 q2, [%[p2]], #16\n"
      "vmladava.s8 %[a20], q2, q0\n"
      "vmladava.s8 %[a21], q2, q1\n"
      "letp lr, 1b\n"
      "2:\n"
      "stm %[out]!, {%[a00], %[a01], %[a10], %[a11], %[a20], %[a21]}\n"
      "vmov %[a00], %[a01], q5[2], q5[0]\n"
      "sub %[p0], %[p0], %[a00]\n"
      "sub %[p1], %[p1], %[a00]\n"
      "sub %[p2], %[p2], %[a00]\n"
      "add %[w0], %[w0], %[a01]\n"
      "add %[w1], %[w1], %[a01]\n"
      "vmov %[a00], %[a01], q4[2], q4[0]\n"
      "vmov %[a20], %[a21], q4[2], q4[0]\n"
      "subs %[n], %[n], #1\n"
      "bne 3b\n"
      : [a00] "+r"(a00), [a01] "+r"(a01), [a10] "=&r"(a10), [a11] "=&r"(a11), [a20] "=&r"(a20),
        [a21] "=&r"(a21), [p0] "+r"(p0), [p1] "+r"(p1), [p2] "+r"(p2), [w0] "+r"(w0), [w1] "+r"(w1),
        [out] "+r"(out), [n] "+r"(n)
      :
      : "lr", "q0", "q1", "q2", "q3", "q4", "q5", "memory", "cc");
}

// A column pair's 6 sums of 3 rows (registers X0..X2) against the two columns' chunks in Q0
// and Q1 (OP: VMLADAV to start them, VMLADAVA to add), and the pair's end in the kernels whose
// weight pointer steps itself: the block stored, the next pair.
#define TESSERA_MVE_3X2_SUMS(OP, X0, X1, X2)                                                    \
  OP " %[a00], " X0 ", q0\n" OP " %[a01], " X0 ", q1\n" OP " %[a10], " X1 ", q0\n"            \
  OP " %[a11], " X1 ", q1\n" OP " %[a20], " X2 ", q0\n" OP " %[a21], " X2 ", q1\n"
#define TESSERA_MVE_3X2_STORE_NEXT                                                              \
  "stm %[out]!, {%[a00], %[a01], %[a10], %[a11], %[a20], %[a21]}\n"                            \
  "subs %[n], %[n], #1\n"                                                                      \
  "bne 1b\n"

/// mat_mult_3x2_s8 for k <= 32, with the 3 rows held in Q2..Q7 (two 16-byte chunks each) for
/// all column pairs: per pair 4 weight loads, 6 VMLADAV + 6 VMLADAVA, 1 STM and 4 loop
/// instructions, 22 for up to 192 multiply-adds (pointwise layers with few input channels
/// spend 38 in the streaming kernel). The second chunk (and the first when k < 16) is loaded
/// predicated on its length, so nothing is read past a row. k = 16 and 32 over consecutive
/// columns (w1 = w0 + k) step one weight pointer by immediate offsets: 19 and 11 a pair.
[[gnu::noinline]] inline void mat_mult_3x2_short_s8(const std::int8_t* x, int k, const std::int8_t* w0_in,
                                                    const std::int8_t* w1_in, int pairs, std::int32_t* acc) {
  register std::int32_t a00 asm("r0");
  register std::int32_t a01 asm("r2");
  register std::int32_t a10 asm("r4");
  register std::int32_t a11 asm("r6");
  register std::int32_t a20 asm("r8");
  register std::int32_t a21 asm("r10");
  register const std::int8_t* w0 asm("r1") = w0_in;
  register const std::int8_t* w1 asm("r3") = w1_in;
  register std::int32_t* out asm("r5") = acc;
  register int n asm("r7") = pairs;
  // Rows 1 and 2 are addressed through accumulator registers before the loop needs them.
  if (k == 32 && w1 == w0 + 32) {
    // Whole chunks and consecutive columns: every weight load at an immediate offset from w0,
    // the last one (offset 0, the second chunk taken first) stepping it to the next pair:
    // 19 instructions a pair, not 21.
    asm volatile(
        "add %[a00], %[x0], #32\n"
        "add %[a01], %[x0], #64\n"
        "vldrb.8 q2, [%[x0]]\n"
        "vldrb.8 q3, [%[a00]]\n"
        "vldrb.8 q4, [%[a01]]\n"
        "vldrb.8 q5, [%[x0], #16]\n"
        "vldrb.8 q6, [%[a00], #16]\n"
        "vldrb.8 q7, [%[a01], #16]\n"
        "1:\n"
        "vldrb.8 q0, [%[w0], #16]\n"
        "vldrb.8 q1, [%[w0], #48]\n"
        TESSERA_MVE_3X2_SUMS("vmladav.s8", "q5", "q6", "q7")
        "vldrb.8 q1, [%[w0], #32]\n"
        "vldrb.8 q0, [%[w0]], #64\n"
        TESSERA_MVE_3X2_SUMS("vmladava.s8", "q2", "q3", "q4") TESSERA_MVE_3X2_STORE_NEXT
        : [a00] "=&r"(a00), [a01] "=&r"(a01), [a10] "=&r"(a10), [a11] "=&r"(a11), [a20] "=&r"(a20),
          [a21] "=&r"(a21), [w0] "+r"(w0), [out] "+r"(out), [n] "+r"(n)
        : [x0] "r"(x)
        : "q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7", "memory", "cc");
  } else if (k == 16 && w1 == w0 + 16) {
    asm volatile(
        "add %[a00], %[x0], #16\n"
        "add %[a01], %[x0], #32\n"
        "vldrb.8 q2, [%[x0]]\n"
        "vldrb.8 q3, [%[a00]]\n"
        "vldrb.8 q4, [%[a01]]\n"
        "1:\n"
        "vldrb.8 q1, [%[w0], #16]\n"
        "vldrb.8 q0, [%[w0]], #32\n"
        TESSERA_MVE_3X2_SUMS("vmladav.s8", "q2", "q3", "q4") TESSERA_MVE_3X2_STORE_NEXT
        : [a00] "=&r"(a00), [a01] "=&r"(a01), [a10] "=&r"(a10), [a11] "=&r"(a11), [a20] "=&r"(a20),
          [a21] "=&r"(a21), [w0] "+r"(w0), [out] "+r"(out), [n] "+r"(n)
        : [x0] "r"(x)
        : "q0", "q1", "q2", "q3", "q4", "memory", "cc");
  } else if (k > 16) {
    const int step = 2 * k - 16;  // from the second chunk of a row to the next pair's row
    asm volatile(
        "add %[a00], %[x0], %[k]\n"
        "add %[a01], %[a00], %[k]\n"
        "sub %[a10], %[k], #16\n"
        "vldrb.8 q2, [%[x0]]\n"
        "vldrb.8 q3, [%[a00]]\n"
        "vldrb.8 q4, [%[a01]]\n"
        "vctp.8 %[a10]\n"
        "vpsttt\n"
        "vldrbt.8 q5, [%[x0], #16]\n"
        "vldrbt.8 q6, [%[a00], #16]\n"
        "vldrbt.8 q7, [%[a01], #16]\n"
        "1:\n"
        "vldrb.8 q0, [%[w0]], #16\n"
        "vldrb.8 q1, [%[w1]], #16\n"
        "vmladav.s8 %[a00], q2, q0\n"
        "vmladav.s8 %[a01], q2, q1\n"
        "vmladav.s8 %[a10], q3, q0\n"
        "vmladav.s8 %[a11], q3, q1\n"
        "vmladav.s8 %[a20], q4, q0\n"
        "vmladav.s8 %[a21], q4, q1\n"
        "vpstt\n"
        "vldrbt.8 q0, [%[w0]]\n"
        "vldrbt.8 q1, [%[w1]]\n"
        "vmladava.s8 %[a00], q5, q0\n"
        "vmladava.s8 %[a01], q5, q1\n"
        "vmladava.s8 %[a10], q6, q0\n"
        "vmladava.s8 %[a11], q6, q1\n"
        "vmladava.s8 %[a20], q7, q0\n"
        "vmladava.s8 %[a21], q7, q1\n"
        "stm %[out]!, {%[a00], %[a01], %[a10], %[a11], %[a20], %[a21]}\n"
        "add %[w0], %[w0], %[step]\n"
        "add %[w1], %[w1], %[step]\n"
        "subs %[n], %[n], #1\n"
        "bne 1b\n"
        : [a00] "=&r"(a00), [a01] "=&r"(a01), [a10] "=&r"(a10), [a11] "=&r"(a11), [a20] "=&r"(a20),
          [a21] "=&r"(a21), [w0] "+r"(w0), [w1] "+r"(w1), [out] "+r"(out), [n] "+r"(n)
        : [x0] "r"(x), [k] "r"(k), [step] "r"(step)
        : "q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7", "memory", "cc");
  } else {
    const int step = 2 * k;
    asm volatile(
        "add %[a00], %[x0], %[k]\n"
        "add %[a01], %[a00], %[k]\n"
        "vctp.8 %[k]\n"
        "vpsttt\n"
        "vldrbt.8 q2, [%[x0]]\n"
        "vldrbt.8 q3, [%[a00]]\n"
        "vldrbt.8 q4, [%[a01]]\n"
        "1:\n"
        "vpstt\n"
        "vldrbt.8 q0, [%[w0]]\n"
        "vldrbt.8 q1, [%[w1]]\n"
        "vmladav.s8 %[a00], q2, q0\n"
        "vmladav.s8 %[a01], q2, q1\n"
        "vmladav.s8 %[a10], q3, q0\n"
        "vmladav.s8 %[a11], q3, q1\n"
        "vmladav.s8 %[a20], q4, q0\n"
        "vmladav.s8 %[a21], q4, q1\n"
        "stm %[out]!, {%[a00], %[a01], %[a10], %[a11], %[a20], %[a21]}\n"
        "add %[w0], %[w0], %[step]\n"
        "add %[w1], %[w1], %[step]\n"
        "subs %[n], %[n], #1\n"
        "bne 1b\n"
        : [a00] "=&r"(a00), [a01] "=&r"(a01), [a10] "=&r"(a10), [a11] "=&r"(a11), [a20] "=&r"(a20),
          [a21] "=&r"(a21), [w0] "+r"(w0), [w1] "+r"(w1), [out] "+r"(out), [n] "+r"(n)
        : [x0] "r"(x), [k] "r"(k), [step] "r"(step)
        : "q0", "q1", "q2", "q3", "q4", "memory", "cc");
  }
}

// The unrolled form for 32 < k <= 144 (3 to 9 chunks of 16): the rows' last chunk (the only
// one that may be partial, loaded predicated on its length so nothing is read past a row)
// stays in Q5..Q7 for all column pairs, and each pair starts with it (VMLADAV, which also
// clears the accumulators); the chunk before it keeps rows 0 and 1 in Q3 and Q4; the other
// chunks follow at fixed offsets (down to -112, VLDRB's reach) from the pointers, which rest on
// the chunk before the last and never move except the weights' 2k per pair. Per pair
// 11 * chunks + 1 instructions: 45 for k = 64 where the loop above spends 62 (the
// keyword-spotting pointwise layers), 34 for k = 40 (its first layer) against 50, 100 for a
// 3x3 convolution of 16 channels (k = 144) against 122.
#define TESSERA_MVE_3X2_CHUNK(OFF)                                                              \
  "vldrb.8 q0, [%[w0], #" OFF "]\n"                                                            \
  "vldrb.8 q1, [%[w1], #" OFF "]\n"                                                            \
  "vldrb.8 q2, [%[p0], #" OFF "]\n"                                                            \
  "vmladava.s8 %[a00], q2, q0\n"                                                               \
  "vmladava.s8 %[a01], q2, q1\n"                                                               \
  "vldrb.8 q2, [%[p1], #" OFF "]\n"                                                            \
  "vmladava.s8 %[a10], q2, q0\n"                                                               \
  "vmladava.s8 %[a11], q2, q1\n"                                                               \
  "vldrb.8 q2, [%[p2], #" OFF "]\n"                                                            \
  "vmladava.s8 %[a20], q2, q0\n"                                                               \
  "vmladava.s8 %[a21], q2, q1\n"
// The chunk before the last: rows 0 and 1 held in Q3 and Q4 too (9 instructions, not 11).
#define TESSERA_MVE_3X2_CHUNK_HELD                                                              \
  "vldrb.8 q0, [%[w0]]\n"                                                                      \
  "vldrb.8 q1, [%[w1]]\n"                                                                      \
  "vmladava.s8 %[a00], q3, q0\n"                                                               \
  "vmladava.s8 %[a01], q3, q1\n"                                                               \
  "vldrb.8 q2, [%[p2]]\n"                                                                      \
  "vmladava.s8 %[a10], q4, q0\n"                                                               \
  "vmladava.s8 %[a11], q4, q1\n"                                                               \
  "vmladava.s8 %[a20], q2, q0\n"                                                               \
  "vmladava.s8 %[a21], q2, q1\n"
#define TESSERA_MVE_3X2_BACK2 TESSERA_MVE_3X2_CHUNK("-16") TESSERA_MVE_3X2_CHUNK_HELD
#define TESSERA_MVE_3X2_BACK3 TESSERA_MVE_3X2_CHUNK("-32") TESSERA_MVE_3X2_BACK2
#define TESSERA_MVE_3X2_BACK4 TESSERA_MVE_3X2_CHUNK("-48") TESSERA_MVE_3X2_BACK3
#define TESSERA_MVE_3X2_BACK5 TESSERA_MVE_3X2_CHUNK("-64") TESSERA_MVE_3X2_BACK4
#define TESSERA_MVE_3X2_BACK6 TESSERA_MVE_3X2_CHUNK("-80") TESSERA_MVE_3X2_BACK5
#define TESSERA_MVE_3X2_BACK7 TESSERA_MVE_3X2_CHUNK("-96") TESSERA_MVE_3X2_BACK6
#define TESSERA_MVE_3X2_BACK8 TESSERA_MVE_3X2_CHUNK("-112") TESSERA_MVE_3X2_BACK7
#define TESSERA_MVE_3X2_UNROLLED(BACK)                                                          \
  asm volatile(                                                                                \
      "vctp.8 %[a00]\n"                                                                        \
      "vpsttt\n"                                                                               \
      "vldrbt.8 q5, [%[p0], #16]\n"                                                            \
      "vldrbt.8 q6, [%[p1], #16]\n"                                                            \
      "vldrbt.8 q7, [%[p2], #16]\n"                                                            \
      "vldrb.8 q3, [%[p0]]\n"                                                                  \
      "vldrb.8 q4, [%[p1]]\n"                                                                  \
      "1:\n"                                                                                   \
      "vpstt\n"                                                                                \
      "vldrbt.8 q0, [%[w0], #16]\n"                                                            \
      "vldrbt.8 q1, [%[w1], #16]\n"                                                            \
      TESSERA_MVE_3X2_SUMS("vmladav.s8", "q5", "q6", "q7") BACK                                  \
      "stm %[out]!, {%[a00], %[a01], %[a10], %[a11], %[a20], %[a21]}\n"                        \
      "add %[w0], %[w0], %[step]\n"                                                            \
      "add %[w1], %[w1], %[step]\n"                                                            \
      "subs %[n], %[n], #1\n"                                                                  \
      "bne 1b\n"                                                                               \
      : [a00] "+r"(a00), [a01] "=&r"(a01), [a10] "=&r"(a10), [a11] "=&r"(a11), [a20] "=&r"(a20), \
        [a21] "=&r"(a21), [w0] "+r"(w0), [w1] "+r"(w1), [out] "+r"(out), [n] "+r"(n)           \
      : [p0] "r"(p0), [p1] "r"(p1), [p2] "r"(p2), [step] "r"(step)                             \
      : "q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7", "memory", "cc")

/// mat_mult_3x2_s8 for 16 * (Chunks - 1) < k <= 16 * Chunks, 3 <= Chunks <= 9, unrolled.
template <int Chunks>
[[gnu::noinline]] void mat_mult_3x2_unrolled_s8(const std::int8_t* x, int k, const std::int8_t* w0_in,
                                                const std::int8_t* w1_in, int pairs, std::int32_t* acc) {
  static_assert(Chunks >= 3 && Chunks <= 9, "the first chunk's offset reaches 7 * 16 bytes back");
  constexpr int last = 16 * (Chunks - 2);  // the pointers rest on the chunk before the last
  register std::int32_t a00 asm("r0") = k - last - 16;  // the last chunk's length, then a sum
  register std::int32_t a01 asm("r2");
  register std::int32_t a10 asm("r4");
  register std::int32_t a11 asm("r6");
  register std::int32_t a20 asm("r8");
  register std::int32_t a21 asm("r10");
  register const std::int8_t* p0 asm("r1") = x + last;
  register const std::int8_t* p1 asm("r3") = x + k + last;
  register const std::int8_t* p2 asm("r5") = x + 2 * k + last;
  register const std::int8_t* w0 asm("r7") = w0_in + last;
  register const std::int8_t* w1 asm("r9") = w1_in + last;
  register std::int32_t* out asm("r11") = acc;
  register int n asm("r12") = pairs;
  register int step asm("lr") = 2 * k;
  if constexpr (Chunks == 3) TESSERA_MVE_3X2_UNROLLED(TESSERA_MVE_3X2_BACK2);
  else if constexpr (Chunks == 4) TESSERA_MVE_3X2_UNROLLED(TESSERA_MVE_3X2_BACK3);
  else if constexpr (Chunks == 5) TESSERA_MVE_3X2_UNROLLED(TESSERA_MVE_3X2_BACK4);
  else if constexpr (Chunks == 6) TESSERA_MVE_3X2_UNROLLED(TESSERA_MVE_3X2_BACK5);
  else if constexpr (Chunks == 7) TESSERA_MVE_3X2_UNROLLED(TESSERA_MVE_3X2_BACK6);
  else if constexpr (Chunks == 8) TESSERA_MVE_3X2_UNROLLED(TESSERA_MVE_3X2_BACK7);
  else TESSERA_MVE_3X2_UNROLLED(TESSERA_MVE_3X2_BACK8);
}

#undef TESSERA_MVE_3X2_CHUNK
#undef TESSERA_MVE_3X2_CHUNK_HELD
#undef TESSERA_MVE_3X2_BACK2
#undef TESSERA_MVE_3X2_BACK3
#undef TESSERA_MVE_3X2_BACK4
#undef TESSERA_MVE_3X2_BACK5
#undef TESSERA_MVE_3X2_BACK6
#undef TESSERA_MVE_3X2_BACK7
#undef TESSERA_MVE_3X2_BACK8
#undef TESSERA_MVE_3X2_UNROLLED

/// Sums of one row against `groups` groups of 4 weight rows, for g < groups, j < 4:
///   acc[4g + j] = sum_{t<k} x[t] * w_j[(4g)*k + t],   w_j = `w[j]`,
/// so w = {w, w+k, w+2k, w+3k} walks [n][k] weights (repeat a pointer for a leftover group).
///
/// - `acc`: 4 * groups int32. k >= 1, groups >= 1.
[[gnu::noinline]] inline void mat_mult_1x4_s8(const std::int8_t* x, int k, const std::int8_t* const* w, int groups,
                                              std::int32_t* acc) {
  const int r = (k + 15) & ~15;
  register std::int32_t a0 asm("r0") = r;
  register std::int32_t a1 asm("r2") = 4 * k - r;
  register std::int32_t a2 asm("r4");
  register std::int32_t a3 asm("r6");
  register const std::int8_t* p asm("r1") = x;
  register const std::int8_t* w0 asm("r3") = w[0];
  register const std::int8_t* w1 asm("r5") = w[1];
  register const std::int8_t* w2 asm("r7") = w[2];
  register const std::int8_t* w3 asm("r9") = w[3];
  register std::int32_t* out asm("r11") = acc;
  register int n asm("r12") = groups;
  register int kk asm("r8") = k;
  asm volatile(
      "vmov q5[2], q5[0], %[a0], %[a1]\n"  // q5[2] = R, q5[0] = 4k - R
      "vmov.i32 q4, #0\n"
      "vmov %[a0], %[a1], q4[2], q4[0]\n"
      "3:\n"
      "wlstp.8 lr, %[k], 2f\n"
      "vmov %[a2], %[a3], q4[2], q4[0]\n"
      "1:\n"
      "vldrb.8 q0, [%[p]], #16\n"
      "vldrb.8 q1, [%[w0]], #16\n"
      "vmladava.s8 %[a0], q0, q1\n"
      "vldrb.8 q2, [%[w1]], #16\n"
      "vmladava.s8 %[a1], q0, q2\n"
      "vldrb.8 q3, [%[w2]], #16\n"
      "vmladava.s8 %[a2], q0, q3\n"
      "vldrb.8 q1, [%[w3]], #16\n"
      "vmladava.s8 %[a3], q0, q1\n"
      "letp lr, 1b\n"
      "2:\n"
      "stm %[out]!, {%[a0], %[a1], %[a2], %[a3]}\n"
      "vmov %[a0], %[a1], q5[2], q5[0]\n"
      "sub %[p], %[p], %[a0]\n"
      "add %[w0], %[w0], %[a1]\n"
      "add %[w1], %[w1], %[a1]\n"
      "add %[w2], %[w2], %[a1]\n"
      "add %[w3], %[w3], %[a1]\n"
      "vmov %[a0], %[a1], q4[2], q4[0]\n"
      "subs %[n], %[n], #1\n"
      "bne 3b\n"
      : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "=&r"(a2), [a3] "=&r"(a3), [p] "+r"(p), [w0] "+r"(w0), [w1] "+r"(w1),
        [w2] "+r"(w2), [w3] "+r"(w3), [out] "+r"(out), [n] "+r"(n)
      : [k] "r"(kk)
      : "lr", "q0", "q1", "q2", "q3", "q4", "q5", "memory", "cc");
}

/// The 3 x 2 micro-kernels' signature (mat_mult_3x2_s8 and its short and unrolled forms).
using mat_mult_3x2_fn = void (*)(const std::int8_t*, int, const std::int8_t*, const std::int8_t*, int,
                                 std::int32_t*);

/// The 3 x 2 micro-kernel for a reduction of k: the one place of the choice, which a call makes
/// at run time and a whole layer at compile time (kernels.hpp: a firmware then links only the
/// forms its layers use, not all nine).
constexpr mat_mult_3x2_fn mat_mult_3x2_for(int k) {
  switch ((k + 15) / 16) {
    case 0: case 1: case 2: return mat_mult_3x2_short_s8;
    case 3: return mat_mult_3x2_unrolled_s8<3>;
    case 4: return mat_mult_3x2_unrolled_s8<4>;
    case 5: return mat_mult_3x2_unrolled_s8<5>;
    case 6: return mat_mult_3x2_unrolled_s8<6>;
    case 7: return mat_mult_3x2_unrolled_s8<7>;
    case 8: return mat_mult_3x2_unrolled_s8<8>;
    case 9: return mat_mult_3x2_unrolled_s8<9>;
    default: return mat_mult_3x2_s8;
  }
}

/// Sums of 3 rows (k apart) x n columns of [n][k] weights in [pair][3][2] blocks (see
/// mat_mult_3x2_s8) by `kernel` (mat_mult_3x2_for(k)); an odd n computes column n - 1 twice
/// (its block's second column). k >= 1.
inline void mat_mult_3xn_s8(const std::int8_t* x, int k, const std::int8_t* w, int n, std::int32_t* acc,
                            mat_mult_3x2_fn kernel) {
  const int pairs = n / 2;
  if (pairs > 0) kernel(x, k, w, w + k, pairs, acc);
  if (n & 1) {
    const std::int8_t* last = w + std::ptrdiff_t(n - 1) * k;
    kernel(x, k, last, last, 1, acc + 6 * pairs);
  }
}

/// acc[c] for one row x n columns (acc holds round_up(n, 4) values; the padding repeats
/// column n - 1). k >= 1.
inline void mat_mult_1xn_s8(const std::int8_t* x, int k, const std::int8_t* w, int n, std::int32_t* acc) {
  const int groups = n / 4;
  if (groups > 0) {
    const std::int8_t* ws[4] = {w, w + k, w + 2 * k, w + 3 * k};
    mat_mult_1x4_s8(x, k, ws, groups, acc);
  }
  const int rest = n - 4 * groups;
  if (rest > 0) {
    const std::int8_t* first = w + std::ptrdiff_t(4 * groups) * k;
    const std::int8_t* last = w + std::ptrdiff_t(n - 1) * k;
    const std::int8_t* ws[4] = {first, rest > 1 ? first + k : last, rest > 2 ? first + 2 * k : last, last};
    mat_mult_1x4_s8(x, k, ws, 1, acc + 4 * groups);
  }
}

#undef TESSERA_MVE_3X2_SUMS
#undef TESSERA_MVE_3X2_STORE_NEXT

}  // namespace tessera::kernels::arm_mve
