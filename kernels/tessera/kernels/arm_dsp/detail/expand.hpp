// Expansion of 8-bit activations into the int16 lane order of the micro-kernels (mat_mult.hpp):
// each group of 4 bytes b0..b3 becomes two words [b0, b2], [b1, b3] (SXTB16, or UXTB16 for
// uint8), written `Stride` words apart from the next group: 8 for the interleaved 4-pixel
// blocks of im2col ([group][pixel][2 words]), 2 for a plain expanded row.
#pragma once

#include <cstdint>

#include <tessera/kernels/arch/arm_dsp.hpp>

namespace tessera::kernels::arm_dsp::detail {

// Two groups per iteration (an odd one first): 2 LDR, 4 SXTB16/UXTB16, 2 STRD per 2 groups,
// 5 instructions per group where the compiled loop took 9.
#define TESSERA_DSP_EXPAND(EXT, STRIDE)                                                                         \
  "lsrs %[n], %[n], #1\n\t"                                                                                     \
  "bcc 1f\n\t"                                                                                                  \
  "ldr %[x0], [%[src]], #4\n\t"                                                                                 \
  EXT " %[e0], %[x0]\n\t"                                                                                       \
  EXT " %[x0], %[x0], ror #8\n\t"                                                                               \
  "strd %[e0], %[x0], [%[dst]], #" STRIDE "\n\t"                                                                \
  "1:\n\t"                                                                                                      \
  "beq 3f\n\t"                                                                                                  \
  "2:\n\t"                                                                                                      \
  "ldr %[x0], [%[src]], #4\n\t"                                                                                 \
  "ldr %[x1], [%[src]], #4\n\t"                                                                                 \
  EXT " %[e0], %[x0]\n\t"                                                                                       \
  EXT " %[x0], %[x0], ror #8\n\t"                                                                               \
  EXT " %[e1], %[x1]\n\t"                                                                                       \
  EXT " %[x1], %[x1], ror #8\n\t"                                                                               \
  "strd %[e0], %[x0], [%[dst]], #" STRIDE "\n\t"                                                                \
  "strd %[e1], %[x1], [%[dst]], #" STRIDE "\n\t"                                                                \
  "subs %[n], %[n], #1\n\t"                                                                                     \
  "bne 2b\n\t"                                                                                                  \
  "3:\n\t"                                                                                                      \
  : [src] "+r"(s), [dst] "+r"(dst), [n] "+r"(n), [x0] "=&r"(x0), [x1] "=&r"(x1), [e0] "=&r"(e0), [e1] "=&r"(e1) \
  :                                                                                                             \
  : "cc", "memory"

/// `groups` whole groups from `src` (any alignment); returns the next group's slot.
template <class TIn, int Stride>
[[gnu::always_inline]] inline std::uint32_t* expand_groups(const TIn* src, int groups, std::uint32_t* dst) {
  static_assert(Stride == 2 || Stride == 8, "expand_groups: stride is 2 or 8 words");
  const auto* s = reinterpret_cast<const std::uint8_t*>(src);
  auto n = static_cast<std::uint32_t>(groups);
  std::uint32_t x0, x1, e0, e1;
  constexpr bool is_signed = static_cast<TIn>(-1) < TIn{0};
  if constexpr (is_signed && Stride == 8) asm volatile(TESSERA_DSP_EXPAND("sxtb16", "32"));
  else if constexpr (is_signed) asm volatile(TESSERA_DSP_EXPAND("sxtb16", "8"));
  else if constexpr (Stride == 8) asm volatile(TESSERA_DSP_EXPAND("uxtb16", "32"));
  else asm volatile(TESSERA_DSP_EXPAND("uxtb16", "8"));
  return dst;
}

#undef TESSERA_DSP_EXPAND

/// `groups` groups whose four int16 lanes all hold the pair word's value: padding taps (the pad
/// value in both halves, pad_pair) or unused slots (0).
template <int Stride>
[[gnu::always_inline]] inline std::uint32_t* fill_groups(int groups, std::uint32_t pair, std::uint32_t* dst) {
  for (int g = 0; g < groups; ++g) {
    dst[0] = pair;
    dst[1] = pair;
    dst += Stride;
  }
  return dst;
}

/// The expanded word of two padding taps: the stored pad value (the input's zero point, already
/// signed for int8 inputs) in both int16 halves. Example: int8 pad -5 -> 0xFFFBFFFB.
constexpr std::uint32_t pad_pair(int pad_value) { return static_cast<std::uint16_t>(pad_value) * 0x00010001u; }

/// `count` bytes as count/4 whole groups plus a zero-padded last group; reads only `count` bytes.
template <class TIn, int Stride>
inline std::uint32_t* expand_row(const TIn* src, int count, std::uint32_t* dst) {
  namespace a = arch::arm_dsp;
  dst = expand_groups<TIn, Stride>(src, count / 4, dst);
  const int tail = count % 4;
  if (tail != 0) {
    const auto* s = reinterpret_cast<const std::uint8_t*>(src) + (count - tail);
    std::uint32_t t = s[0];
    if (tail > 1) t |= std::uint32_t{s[1]} << 8;
    if (tail > 2) t |= std::uint32_t{s[2]} << 16;
    dst[0] = a::expand_even<TIn>(t);
    dst[1] = a::expand_odd<TIn>(t);
    dst += Stride;
  }
  return dst;
}

}  // namespace tessera::kernels::arm_dsp::detail
