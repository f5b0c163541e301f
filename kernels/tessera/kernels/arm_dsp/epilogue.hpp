// The arm_dsp kernels' epilogue: bias and requantization, `requantize` exactly, in 5.5
// instructions per 8-bit output in the common case.
//
// y = clamp(((acc + bias)*mul + add + 2^(s-1)) >> s, lo, hi). When 1 <= s <= 32 and every
// multiplier satisfies -2^(s-1) <= mul < 2^(s-1), scaling numerator and denominator by 2^(32-s)
// turns the shift into "take the high word":
//
//     y = hi32(acc * m + b),  m = mul << (32-s)                       (fits in int32)
//                             b = (add + 2^(s-1)) << (32-s) + bias*m  (int64)
//
// which is exact (floor(x * 2^(32-s) / 2^32) = floor(x / 2^s)) and is one SMLAL with b loaded
// into the destination pair (the kernels accumulate without the bias). |acc*m| and |bias*m| are
// below 2^62 and the shifted offset below 2^62, so nothing overflows, and the high word is the
// true result, so clamping it is clamping the true value. Example: mul = 300, add = -7, s = 16,
// no bias: m = 300 << 16 = 19660800, b = (-7 + 32768) << 16; acc = 1000 gives
// hi32(1000*19660800 + 2147024896) = 5, as does (300000 - 7 + 32768) >> 16.
//
// The clamp is SSAT/USAT when [lo, hi] is the output type's range (or [0, max] of a signed
// type, a fused ReLU), else two compares. A multiplier too wide for its shift (the corpus has
// mul = 2^17 with s = 16 after residual adds) keeps the unscaled product p = acc*mul + b in an
// SMLAL pair and shifts the pair: the low word of p >> s is (lo >> s) | (hi << (32-s)), which
// is the result itself whenever that fits in 32 bits; the kernel's bound on |acc| (its filter
// size and input range) decides that once per call, and s >= 32 needs no bound (hi >> (s-32)).
// Only what neither form covers takes requantize32's 64-bit path. The kind is picked once per
// kernel call; the 8-bit saturating loops are asm (LDM of the 12-byte entries).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <tessera/core/requant.hpp>
#include <tessera/kernels/arch/arm_dsp.hpp>
#include <tessera/kernels/common/requant_epilogue.hpp>

namespace tessera::kernels::arm_dsp {

/// One channel's requantization in the high-word form (12 bytes, loaded with one LDM).
struct rq_entry {
  std::int32_t m;
  std::uint32_t b_lo;
  std::int32_t b_hi;
};

enum class epilogue_kind : std::uint8_t {
  raw,      ///< requantization disabled: static_cast<TOut>(acc + bias)
  sat,      ///< high word, saturated to TOut's range (SSAT/USAT; [lo, hi] is that range)
  sat_lo0,  ///< high word, [0, max of a signed TOut]: USAT to one bit less (a fused ReLU)
  clamp,    ///< high word, clamped to any [lo, hi]
  shifted,  ///< unscaled 64-bit product shifted right by s, clamped to any [lo, hi]
  exact,    ///< 64-bit requantize32 of acc + bias
};

/// How one kernel call adds the bias and requantizes its output channels.
struct epilogue_plan {
  epilogue_kind kind = epilogue_kind::raw;
  const rq_entry* table = nullptr;    ///< one entry per channel, bias folded in (high-word kinds)
  const std::int32_t* bias = nullptr; ///< per channel or nullptr (raw and exact kinds)
  requant_params rq{};                ///< the original parameters (exact kind, clamp bounds)
};

/// Where a convolution kernel takes its constants from: derived per call, or a whole layer's
/// flash_constants (then its variants too: the run-time choice among them is not instantiated).
enum class constants_from : std::uint8_t { call, flash };

namespace detail {
struct pair_store_args;  // detail/mat_mult.hpp
struct pair_kernels;     // conv2d_im2col.hpp
struct chw_params;       // depthwise_chw.hpp
}  // namespace detail

/// How a whole layer's conv2d weights are held in flash: expanded to int16 channel pairs
/// (detail::expand_pairs_portable, within the weight-cache budget), or 8-bit channel-pair words
/// that the kernel widens itself (detail::pair_bytes_portable, beyond it).
enum class weight_format : std::uint8_t { expanded, byte_pairs };

/// What a convolution kernel otherwise derives per call in its scratch, computed at compile time
/// into flash for a layer whose weights, bias and requantization are template arguments
/// (flash_constants.hpp): the epilogue's kind and table (bias folded in) and, where the kernel
/// runs from them, its weights in the kernel's format (else nullptr: the kernel reads the 8-bit
/// weights).
struct flash_constants {
  epilogue_kind kind = epilogue_kind::raw;
  const rq_entry* table = nullptr;
  const std::uint32_t* weights = nullptr;
  /// The kernel variants the layer runs, chosen at compile time like the rest (nullptr where
  /// the layer has none): a per-call kernel picks among its variants at run time, so a firmware
  /// links all of them; a whole layer links only its own (the keyword-spotting firmware's
  /// kernels 3.5 kB smaller).
  const detail::pair_kernels* pairs = nullptr;  ///< conv2d: the 2x4 kernel's forms for `weights`
  void (*block_store)(const detail::pair_store_args*) = nullptr;  ///< conv2d: 2x4 storing 8-bit outputs
  void (*chw_row)(const std::int16_t*, void*, int, const detail::chw_params*) = nullptr;  ///< depthwise_chw

  /// The plan make_epilogue would have built: `bias` and `rq` serve the raw and exact kinds and
  /// the clamp bounds.
  constexpr epilogue_plan plan(const std::int32_t* bias, const requant_params& rq) const {
    return {kind, table, bias, rq};
  }
};

namespace detail {

template <class TOut>
inline constexpr int out_bits = static_cast<int>(sizeof(TOut) * 8);

/// SSAT/USAT to TOut's range (nothing for 32-bit outputs).
template <class TOut>
[[gnu::always_inline]] inline std::int32_t saturate(std::int32_t y) {
  namespace a = arch::arm_dsp;
  if constexpr (sizeof(TOut) == 4) return y;
  else if constexpr (std::is_signed_v<TOut>) return a::ssat<out_bits<TOut>>(y);
  else return a::usat<out_bits<TOut>>(y);
}
/// [0, max] of a signed TOut.
template <class TOut>
[[gnu::always_inline]] inline std::int32_t saturate_lo0(std::int32_t y) {
  namespace a = arch::arm_dsp;
  if constexpr (sizeof(TOut) == 4) return y < 0 ? 0 : y;
  else return a::usat<out_bits<TOut> - 1>(y);
}

}  // namespace detail

/// hi32(acc * e.m + b): one SMLAL (GCC keeps b in the destination pair).
[[gnu::always_inline]] inline std::int32_t high_word(std::int32_t acc, const rq_entry& e) {
  const std::int64_t b = static_cast<std::int64_t>((std::uint64_t(std::uint32_t(e.b_hi)) << 32) | e.b_lo);
  return static_cast<std::int32_t>((static_cast<std::int64_t>(acc) * e.m + b) >> 32);
}

/// floor((acc * e.m + b) / 2^s) for an unscaled entry, valid when the result fits in 32 bits
/// (s < 32) or always (s >= 32). Unsigned arithmetic: the pair wraps like SMLAL.
[[gnu::always_inline]] inline std::int32_t shifted_word(std::int32_t acc, const rq_entry& e, int s) {
  const std::uint64_t b = (std::uint64_t(std::uint32_t(e.b_hi)) << 32) | e.b_lo;
  const std::uint64_t p = static_cast<std::uint64_t>(static_cast<std::int64_t>(acc) * e.m) + b;
  const auto lo = static_cast<std::uint32_t>(p);
  const auto hi = static_cast<std::uint32_t>(p >> 32);
  if (s == 0) return static_cast<std::int32_t>(lo);
  if (s < 32) return static_cast<std::int32_t>((lo >> s) | (hi << (32 - s)));
  return static_cast<std::int32_t>(hi) >> (s - 32);
}

/// One output of kind K for channel `c` (`e` is table[c] for the table kinds).
template <class TOut, epilogue_kind K>
[[gnu::always_inline]] inline TOut requant_one(std::int32_t acc, const rq_entry& e, const epilogue_plan& p, int c) {
  if constexpr (K == epilogue_kind::raw || K == epilogue_kind::exact) {
    // The reference's int32 accumulator starts at the bias; add it with the same wrap-around.
    if (p.bias != nullptr) acc = static_cast<std::int32_t>(static_cast<std::uint32_t>(acc) + std::uint32_t(p.bias[c]));
    if constexpr (K == epilogue_kind::raw) {
      return static_cast<TOut>(acc);
    } else {
      const int k = p.rq.length == 1 ? 0 : c;
      return static_cast<TOut>(requantize32(acc, p.rq.mul[k], p.rq.add[k], p.rq.shift, p.rq.lo, p.rq.hi));
    }
  } else {
    std::int32_t y = K == epilogue_kind::shifted ? shifted_word(acc, e, p.rq.shift) : high_word(acc, e);
    if constexpr (K == epilogue_kind::sat) {
      y = detail::saturate<TOut>(y);
    } else if constexpr (K == epilogue_kind::sat_lo0) {
      y = detail::saturate_lo0<TOut>(y);
    } else {
      y = y < p.rq.lo ? p.rq.lo : y;
      y = y > p.rq.hi ? p.rq.hi : y;
    }
    return static_cast<TOut>(y);
  }
}

/// Whether `rq` has the high-word form: 1 <= s <= 32 and -2^(s-1) <= mul < 2^(s-1) for the
/// `count` multipliers.
constexpr bool has_high_word_form(const requant_params& rq, int count) {
  if (!rq.enabled || rq.shift < 1 || rq.shift > 32) return false;
  const std::int64_t limit = std::int64_t{1} << (rq.shift - 1);
  for (int i = 0; i < count; ++i) {
    if (rq.mul[i] < -limit || rq.mul[i] >= limit) return false;
  }
  return true;
}

/// Largest |value| of an 8-bit type, and of a sum of `terms` products of two (a kernel's
/// accumulator before the bias): the bounds that let make_epilogue pick the shifted form.
template <class T>
constexpr std::int64_t value_bound() {
  return std::is_signed_v<T> ? 128 : 255;
}
template <class TA, class TB>
constexpr std::int64_t product_bound(std::int64_t terms) {
  return terms * value_bound<TA>() * value_bound<TB>();
}

namespace detail {

/// make_epilogue for an output type with range [tmin, tmax] (one copy for every TOut).
[[gnu::noinline]] constexpr epilogue_plan make_epilogue(const requant_params& rq, int channels, rq_entry* table,
                                                     const std::int32_t* bias, std::int64_t acc_bound,
                                                     std::int64_t tmin, std::int64_t tmax, bool table_ready) {
  epilogue_plan p{};
  p.rq = rq;
  p.bias = bias;
  if (!rq.enabled) {
    p.kind = epilogue_kind::raw;
    return p;
  }
  const int count = rq.length == 1 ? 1 : channels;
  const int s = rq.shift;
  const std::int64_t rounding = s > 0 ? std::int64_t{1} << (s - 1) : 0;
  if (has_high_word_form(rq, count)) {
    const int up = 32 - s;
    for (int c = 0; c < channels && !table_ready; ++c) {
      const int k = rq.length == 1 ? 0 : c;
      const auto m = static_cast<std::int32_t>(static_cast<std::uint32_t>(rq.mul[k]) << up);
      std::int64_t b = static_cast<std::int64_t>(static_cast<std::uint64_t>(rq.add[k] + rounding) << up);
      if (bias != nullptr) b += std::int64_t{bias[c]} * m;
      table[c] = {m, static_cast<std::uint32_t>(b), static_cast<std::int32_t>(b >> 32)};
    }
    p.table = table;
    if (rq.lo == tmin && rq.hi == tmax) p.kind = epilogue_kind::sat;
    else if (tmin < 0 && rq.lo == 0 && rq.hi == tmax) p.kind = epilogue_kind::sat_lo0;
    else p.kind = epilogue_kind::clamp;
    return p;
  }
  // The shifted form: exact for s >= 32; for s < 32 when every |result| stays below 2^31.
  bool fits = s >= 0 && s <= 62;
  if (fits && s < 32) {
    std::int64_t bias_max = 0;
    for (int c = 0; bias != nullptr && c < channels; ++c) {
      const std::int64_t v = bias[c] < 0 ? -std::int64_t{bias[c]} : bias[c];
      bias_max = v > bias_max ? v : bias_max;
    }
    const std::int64_t acc_max = acc_bound + bias_max;  // < 2^31 for the reference's int32 sums
    for (int i = 0; fits && i < count; ++i) {
      const std::int64_t mul = rq.mul[i] < 0 ? -std::int64_t{rq.mul[i]} : rq.mul[i];
      const std::int64_t add = rq.add[i] < 0 ? -std::int64_t{rq.add[i]} : rq.add[i];
      fits = acc_max < (std::int64_t{1} << 31) && (acc_max * mul + add + rounding) >> s < (std::int64_t{1} << 30);
    }
  }
  if (!fits) {
    p.kind = epilogue_kind::exact;
    return p;
  }
  for (int c = 0; c < channels && !table_ready; ++c) {
    const int k = rq.length == 1 ? 0 : c;
    std::int64_t b = rq.add[k] + rounding;
    if (bias != nullptr) b += std::int64_t{bias[c]} * rq.mul[k];
    table[c] = {rq.mul[k], static_cast<std::uint32_t>(b), static_cast<std::int32_t>(b >> 32)};
  }
  p.table = table;
  p.kind = epilogue_kind::shifted;
  return p;
}

}  // namespace detail

/// The epilogue of a call writing `channels` channels of TOut (per-channel parameters follow
/// `is_channelwise`; `table` must hold `channels` entries, epilogue_table_bytes). `bias` has
/// `channels` entries or is nullptr; `acc_bound` bounds |acc| before the bias. `table_ready`:
/// `table` already holds these parameters' entries (an earlier call's, same arguments).
/// Also a constant expression (flash_constants.hpp computes a layer's table at compile time).
template <class TOut>
constexpr epilogue_plan make_epilogue(const requant_params& rq, int channels, rq_entry* table,
                                      const std::int32_t* bias, std::int64_t acc_bound, bool table_ready = false) {
  epilogue_plan p = detail::make_epilogue(rq, channels, table, bias, acc_bound, std::numeric_limits<TOut>::min(),
                                          std::numeric_limits<TOut>::max(), table_ready);
  // 32-bit outputs keep two loops (raw and the 64-bit path): requantizing into int32 is rare
  // enough not to be worth four more instantiations of each store loop.
  if constexpr (sizeof(TOut) == 4) {
    if (p.kind != epilogue_kind::raw) p.kind = epilogue_kind::exact;
  }
  return p;
}

namespace detail {

// The 8-bit saturating loop: per pair of outputs 2 LDR + 1 LDM (two entries) + 2 SMLAL +
// 2 SSAT/USAT + 2 STRB + SUBS/BNE. Register variables give the LDM its ascending registers.
#define TESSERA_DSP_STORE8(SAT, BITS, STRIDE)                                                           \
  "lsrs %[n], %[n], #1\n\t"                                                                             \
  "bcc 1f\n\t"                                                                                          \
  "ldr %[a0], [%[acc]], #" STRIDE "\n\t"                                                                \
  "ldm %[tab]!, {%[m0], %[l0], %[h0]}\n\t"                                                              \
  "smlal %[l0], %[h0], %[a0], %[m0]\n\t"                                                                \
  SAT " %[h0], #" BITS ", %[h0]\n\t"                                                                    \
  "strb %[h0], [%[out]], #1\n\t"                                                                        \
  "1:\n\t"                                                                                              \
  "beq 3f\n\t"                                                                                          \
  "2:\n\t"                                                                                              \
  "ldr %[a0], [%[acc]], #" STRIDE "\n\t"                                                                \
  "ldr %[a1], [%[acc]], #" STRIDE "\n\t"                                                                \
  "ldm %[tab]!, {%[m0], %[l0], %[h0], %[m1], %[l1], %[h1]}\n\t"                                         \
  "smlal %[l0], %[h0], %[a0], %[m0]\n\t"                                                                \
  "smlal %[l1], %[h1], %[a1], %[m1]\n\t"                                                                \
  SAT " %[h0], #" BITS ", %[h0]\n\t"                                                                    \
  SAT " %[h1], #" BITS ", %[h1]\n\t"                                                                    \
  "strb %[h0], [%[out]], #1\n\t"                                                                        \
  "strb %[h1], [%[out]], #1\n\t"                                                                        \
  "subs %[n], %[n], #1\n\t"                                                                             \
  "bne 2b\n\t"                                                                                          \
  "3:\n\t"                                                                                              \
  : [acc] "+r"(acc), [tab] "+r"(tab), [out] "+r"(out), [n] "+r"(count), [a0] "=&r"(a0), [a1] "=&r"(a1), \
    [m0] "=&r"(m0), [l0] "=&r"(l0), [h0] "=&r"(h0), [m1] "=&r"(m1), [l1] "=&r"(l1), [h1] "=&r"(h1)      \
  :                                                                                                     \
  : "cc", "memory"

enum class sat8 : std::uint8_t { s8, u8, u7 };  ///< [-128, 127], [0, 255], [0, 127]

/// out[i] = saturated hi32(acc[i*AccStride] * tab[i].m + tab[i].b) for i < n, 8-bit outputs.
template <int AccStride, sat8 S>
[[gnu::noinline]] void store8_saturating(const std::int32_t* acc, const rq_entry* tab, int n, void* out_ptr) {
  static_assert(AccStride == 1 || AccStride == 4, "store8_saturating: accumulator stride is 1 or 4 words");
  register std::uint32_t m0 asm("r4");
  register std::uint32_t l0 asm("r5");
  register std::uint32_t h0 asm("r6");
  register std::uint32_t m1 asm("r8");
  register std::uint32_t l1 asm("r9");
  register std::uint32_t h1 asm("r10");
  std::uint32_t a0, a1;
  auto* out = static_cast<std::uint8_t*>(out_ptr);
  auto count = static_cast<std::uint32_t>(n);
  if constexpr (AccStride == 1) {
    if constexpr (S == sat8::s8) asm volatile(TESSERA_DSP_STORE8("ssat", "8", "4"));
    else if constexpr (S == sat8::u8) asm volatile(TESSERA_DSP_STORE8("usat", "8", "4"));
    else asm volatile(TESSERA_DSP_STORE8("usat", "7", "4"));
  } else {
    if constexpr (S == sat8::s8) asm volatile(TESSERA_DSP_STORE8("ssat", "8", "16"));
    else if constexpr (S == sat8::u8) asm volatile(TESSERA_DSP_STORE8("usat", "8", "16"));
    else asm volatile(TESSERA_DSP_STORE8("usat", "7", "16"));
  }
}

#undef TESSERA_DSP_STORE8

template <class TOut, epilogue_kind K, int AccStride>
[[gnu::noinline]] void store_channels_k(const std::int32_t* acc, const epilogue_plan& p, int c0, int n, TOut* out) {
  const rq_entry* e = p.table != nullptr ? p.table + c0 : nullptr;
  for (int i = 0; i < n; ++i) {
    out[i] = requant_one<TOut, K>(*acc, e != nullptr ? e[i] : rq_entry{}, p, c0 + i);
    acc += AccStride;
  }
}

template <class TOut, epilogue_kind K>
[[gnu::noinline]] void store_fixed_k(const std::int32_t* acc, int acc_stride, const epilogue_plan& p, int c, int n,
                                     TOut* out, int out_stride) {
  const rq_entry e = p.table != nullptr ? p.table[c] : rq_entry{};
  for (int i = 0; i < n; ++i) {
    *out = requant_one<TOut, K>(*acc, e, p, c);
    acc += acc_stride;
    out += out_stride;
  }
}

}  // namespace detail

/// out[i] = the epilogue of acc[i*AccStride] for channel c0 + i, i < n (contiguous outputs).
/// 8-bit saturating kinds run the asm loop; 32-bit outputs have two kinds only (make_epilogue).
template <int AccStride, class TOut>
void store_channels(const std::int32_t* acc, const epilogue_plan& p, int c0, int n, TOut* out) {
  using K = epilogue_kind;
  if (n <= 0) return;
  if constexpr (sizeof(TOut) == 4) {
    if (p.kind == K::raw) return detail::store_channels_k<TOut, K::raw, AccStride>(acc, p, c0, n, out);
    return detail::store_channels_k<TOut, K::exact, AccStride>(acc, p, c0, n, out);
  } else {
    if constexpr (sizeof(TOut) == 1) {
      constexpr bool s = std::is_signed_v<TOut>;
      if (p.kind == K::sat) {
        return detail::store8_saturating<AccStride, s ? detail::sat8::s8 : detail::sat8::u8>(acc, p.table + c0, n, out);
      }
      if (s && p.kind == K::sat_lo0) {
        return detail::store8_saturating<AccStride, detail::sat8::u7>(acc, p.table + c0, n, out);
      }
    }
    switch (p.kind) {
      case K::raw: return detail::store_channels_k<TOut, K::raw, AccStride>(acc, p, c0, n, out);
      case K::sat: return detail::store_channels_k<TOut, K::sat, AccStride>(acc, p, c0, n, out);
      case K::sat_lo0: return detail::store_channels_k<TOut, K::sat_lo0, AccStride>(acc, p, c0, n, out);
      case K::clamp: return detail::store_channels_k<TOut, K::clamp, AccStride>(acc, p, c0, n, out);
      case K::shifted: return detail::store_channels_k<TOut, K::shifted, AccStride>(acc, p, c0, n, out);
      case K::exact: return detail::store_channels_k<TOut, K::exact, AccStride>(acc, p, c0, n, out);
    }
  }
}

/// out[i*out_stride] = the epilogue of acc[i*acc_stride] for channel c, i < n.
template <class TOut>
void store_fixed(const std::int32_t* acc, int acc_stride, const epilogue_plan& p, int c, int n, TOut* out,
                 int out_stride) {
  using K = epilogue_kind;
  if constexpr (sizeof(TOut) == 4) {
    if (p.kind == K::raw) return detail::store_fixed_k<TOut, K::raw>(acc, acc_stride, p, c, n, out, out_stride);
    return detail::store_fixed_k<TOut, K::exact>(acc, acc_stride, p, c, n, out, out_stride);
  } else {
    switch (p.kind) {
      case K::raw: return detail::store_fixed_k<TOut, K::raw>(acc, acc_stride, p, c, n, out, out_stride);
      case K::sat: return detail::store_fixed_k<TOut, K::sat>(acc, acc_stride, p, c, n, out, out_stride);
      case K::sat_lo0: return detail::store_fixed_k<TOut, K::sat_lo0>(acc, acc_stride, p, c, n, out, out_stride);
      case K::clamp: return detail::store_fixed_k<TOut, K::clamp>(acc, acc_stride, p, c, n, out, out_stride);
      case K::shifted: return detail::store_fixed_k<TOut, K::shifted>(acc, acc_stride, p, c, n, out, out_stride);
      case K::exact: return detail::store_fixed_k<TOut, K::exact>(acc, acc_stride, p, c, n, out, out_stride);
    }
  }
}

}  // namespace tessera::kernels::arm_dsp
