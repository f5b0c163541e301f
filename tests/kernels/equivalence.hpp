// Randomized bit-exactness checks of one kernel family against the scalar reference.
//
// Plain functions over static buffers (no heap, no exceptions, no Catch2), so the same checks
// run on the host (tests/kernels/test_equivalence.cpp, under Catch2) and on bare-metal Cortex-M
// cores under QEMU (tests/qemu/kernel_equivalence.cpp). Every case draws its shape, element
// types, requantization and data from a fixed seed; odd leftovers and extreme values (all
// -128 / 127 / 255 inputs, weights at -128, shifts up to 40, multipliers near 2^27) come up on
// purpose. Each kernel is also checked not to write before or past its output or its declared
// scratch (guard bytes on both sides), and its operands (inputs, weights, bias, requantization
// arrays) each sit in a block of exactly their size: on bare metal between guard bytes checked
// after the call; on the host against an inaccessible page (place_operand_hook), so that a read
// one byte past the end or before the start faults at the access.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <type_traits>

#include <tessera/kernels/algorithm/normalization.hpp>
#include <tessera/kernels/algorithm/softmax.hpp>
#include <tessera/kernels/dispatch.hpp>

namespace tessera::testing {

/// Deterministic generator (xorshift32): the same cases on every machine and compiler.
struct rng {
  std::uint32_t state;
  std::uint32_t next() {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  }
  /// Uniform in [lo, hi].
  int range(int lo, int hi) {
    if (hi < lo) hi = lo;
    return lo + static_cast<int>(next() % static_cast<std::uint32_t>(hi - lo + 1)); }
  bool chance(int percent) { return range(0, 99) < percent; }
};

struct equivalence_stats {
  int cases = 0;      ///< cases the family accepted and ran
  int rejected = 0;   ///< cases the family's traits declined (the reference would run them)
  int failures = 0;   ///< mismatches or writes out of bounds
  int pad_value_cases = 0;  ///< of `cases`, convolutions whose padding holds a nonzero pad value
  int flash_cases = 0;      ///< of `cases`, convolutions run with their constants as a whole layer takes them from flash
};

namespace equivalence_detail {

inline constexpr std::size_t buffer_bytes = 48 * 1024;
inline constexpr std::size_t guard_bytes = 64;  // a multiple of 16: what follows a guard stays aligned
inline constexpr std::uint8_t guard_value = 0xA5;

/// The read-only operands of a case. Each gets a block of exactly its size from `place`, so that
/// the first byte outside it is a guard (or, on the host, an inaccessible page), not the rest of
/// a large buffer that hides an over-read. (They used to live in 48 kB globals: issue 16.)
enum operand_slot : int { slot_a, slot_b, slot_weights, slot_bias, slot_mul, slot_add, slot_count };
inline constexpr const char* slot_names[slot_count] = {"input A", "input B", "weights", "bias", "mul", "add"};
inline constexpr std::size_t slot_capacity[slot_count] = {buffer_bytes, buffer_bytes, buffer_bytes, 4096, 4096, 4096};

/// Host tests place operands against inaccessible pages (tests/kernels/test_equivalence.cpp):
/// `bytes` for `slot`, at most slot_capacity[slot]. nullptr: the static pool below (bare metal).
using place_operand_fn = std::uint8_t* (*)(int slot, std::size_t bytes);
inline place_operand_fn place_operand_hook = nullptr;

/// The pool: each slot's block starts after `guard_bytes` of guard (16-byte aligned) and is
/// followed by `guard_bytes` more; verify() checks both after the family kernel ran. Slots are
/// sized one by one (157 kB in all, as the old globals): the Cortex-M55 board has 512 kB of RAM.
constexpr std::size_t pool_offset(int slot) {
  std::size_t offset = 0;
  for (int s = 0; s < slot; ++s) offset += guard_bytes + slot_capacity[s] + guard_bytes;
  return offset;
}
alignas(16) inline std::uint8_t operand_pool[pool_offset(slot_count)];
inline std::uint8_t* pool_block(int slot) { return operand_pool + pool_offset(slot) + guard_bytes; }
inline std::size_t operand_bytes[slot_count];  ///< this case's block sizes (SIZE_MAX: unused)

/// The case being checked, for the host's fault handler to name.
inline const char* current_kernel = "";
inline int current_case = -1;

alignas(16) inline std::uint8_t expected[buffer_bytes];
// Output and scratch with `guard_bytes` of guard before and after (arm_guards, verify).
alignas(16) inline std::uint8_t output_area[guard_bytes + buffer_bytes + guard_bytes];
alignas(16) inline std::uint8_t scratch_area[guard_bytes + buffer_bytes + guard_bytes];
inline std::uint8_t* const actual = output_area + guard_bytes;
inline std::uint8_t* const scratch = scratch_area + guard_bytes;

/// Starts a case: no operand placed yet.
inline void begin_case() {
  for (std::size_t& b : operand_bytes) b = static_cast<std::size_t>(-1);
}

/// `count` elements of T for operand `slot`, exactly sized (see operand_slot).
template <class T>
T* place(int slot, std::size_t count) {
  const std::size_t bytes = count * sizeof(T);
  operand_bytes[slot] = bytes;
  if (place_operand_hook != nullptr) return reinterpret_cast<T*>(place_operand_hook(slot, bytes));
  std::uint8_t* block = pool_block(slot);
  std::memset(block - guard_bytes, guard_value, guard_bytes);
  std::memset(block + bytes, guard_value, guard_bytes);
  return reinterpret_cast<T*>(block);
}

/// Whether the `guard_bytes` at `p` still hold the guard value.
inline bool guard_intact(const std::uint8_t* p) {
  for (std::size_t i = 0; i < guard_bytes; ++i)
    if (p[i] != guard_value) return false;
  return true;
}

/// Fills `count` elements of type T: uniform, or (sometimes) one extreme value throughout.
template <class T>
void fill(rng& r, void* buffer, std::size_t count) {
  auto* p = static_cast<T*>(buffer);
  const int mode = r.range(0, 9);
  constexpr int lo = std::is_signed_v<T> ? -128 : 0;
  constexpr int hi = std::is_signed_v<T> ? 127 : 255;
  for (std::size_t i = 0; i < count; ++i) {
    int v = r.range(lo, hi);
    if (mode == 0) v = lo;
    if (mode == 1) v = hi;
    p[i] = static_cast<T>(v);
  }
}

/// A random requantization of `channels` channels into TOut (disabled when TOut is int32).
template <class TOut>
requant_params random_requant(rng& r, int channels, bool allow_per_channel = true) {
  requant_params rq{};
  if constexpr (sizeof(TOut) == 4) {
    return rq;
  } else {
    rq.enabled = true;
    const bool per_channel = allow_per_channel && r.chance(60);
    rq.length = per_channel ? channels : 1;
    rq.inner = 1;
    rq.shift = r.chance(10) ? r.range(0, 40) : r.range(8, 30);
    const int big = r.chance(20) ? (1 << 27) : (1 << 12);
    std::int32_t* mul = place<std::int32_t>(slot_mul, static_cast<std::size_t>(rq.length));
    std::int32_t* add = place<std::int32_t>(slot_add, static_cast<std::size_t>(rq.length));
    for (int c = 0; c < rq.length; ++c) {
      mul[c] = r.range(-big / 8, big);
      add[c] = r.range(-(1 << 20), 1 << 20);
    }
    rq.mul = mul;
    rq.add = add;
    rq.lo = std::is_signed_v<TOut> ? -(1 << (8 * sizeof(TOut) - 1)) : 0;
    rq.hi = std::is_signed_v<TOut> ? (1 << (8 * sizeof(TOut) - 1)) - 1 : (1 << (8 * sizeof(TOut))) - 1;
    if (r.chance(15)) rq.lo = 0;  // a fused ReLU
    return rq;
  }
}

inline void arm_guards(std::size_t out_bytes, std::size_t scratch_bytes) {
  std::memset(output_area, guard_value, guard_bytes);
  std::memset(actual, 0x5A, out_bytes);
  std::memset(actual + out_bytes, guard_value, guard_bytes);
  std::memset(scratch_area, guard_value, guard_bytes);
  std::memset(scratch + scratch_bytes, guard_value, guard_bytes);
}

/// Compares the family's output with the reference's and checks every guard: both sides of
/// the output, of the scratch and (pool placement) of each operand. Prints what went wrong.
inline bool verify(const char* kernel, int case_index, std::size_t out_bytes, std::size_t scratch_bytes) {
  bool ok = true;
  const auto fail = [&](const char* what, const char* side) {
    std::printf("OUT OF BOUNDS %s case %d: wrote %s its %s\n", kernel, case_index, side, what);
    ok = false;
  };
  if (!guard_intact(output_area)) fail("output", "before");
  if (!guard_intact(actual + out_bytes)) fail("output", "past");
  if (!guard_intact(scratch_area)) fail("scratch", "before");
  if (!guard_intact(scratch + scratch_bytes)) fail("scratch", "past");
  for (int s = 0; s < slot_count && place_operand_hook == nullptr; ++s) {
    if (operand_bytes[s] == static_cast<std::size_t>(-1)) continue;
    if (!guard_intact(pool_block(s) - guard_bytes)) fail(slot_names[s], "before");
    if (!guard_intact(pool_block(s) + operand_bytes[s])) fail(slot_names[s], "past");
  }
  if (std::memcmp(expected, actual, out_bytes) != 0) {
    std::printf("MISMATCH %s case %d (%u output bytes)\n", kernel, case_index, static_cast<unsigned>(out_bytes));
    ok = false;
  }
  return ok;
}

/// One case the family accepted: runs `run` (the family kernel writing `actual` with `scratch`)
/// between guard bands and counts it; skipped when its scratch exceeds the buffer.
template <class Run>
void check_accepted(equivalence_stats& stats, const char* kernel, int case_index, std::size_t out_bytes,
                    std::size_t scratch_bytes, Run&& run) {
  if (scratch_bytes > buffer_bytes) return;
  arm_guards(out_bytes, scratch_bytes);
  current_kernel = kernel;
  current_case = case_index;
  run();
  ++stats.cases;
  if (!verify(kernel, case_index, out_bytes, scratch_bytes)) ++stats.failures;
}

template <class F>
void with_8bit_type(bool is_signed, F&& f) {
  if (is_signed) f(std::int8_t{});
  else f(std::uint8_t{});
}

template <class F>
void with_output_type(int pick, F&& f) {
  if (pick == 0) f(std::int8_t{});
  else if (pick == 1) f(std::uint8_t{});
  else f(std::int32_t{});
}

/// Variant `V` run as two tiles of one filter block run it (tile_args::prepared): a call on the
/// map's first output row, then the whole map told that its scratch is prepared, through the
/// dispatch the ops use (a family that keeps nothing runs it as a second plain call), with the
/// compile-time pad-value property the ops pass (so a case whose padding reads no pad value
/// runs the `ReadsPadValue = false` instantiation here and the general one in the plain call).
template <kernels::kernel_family F, kernels::conv_variant V, class TIn, class TOut>
void as_tiles_of_one_block(const kernels::reference::conv2d_dims& d, const TIn* in, const std::int8_t* w,
                           const std::int32_t* bias, const requant_params& rq, TOut* out) {
  kernels::reference::conv2d_dims first_row = d;
  first_row.out_h = 1;
  const int reads = d.dilation_h * (d.kernel_h - 1) + 1 - d.pad_top;  // input rows output row 0 reads
  first_row.in_h = reads < d.in_h ? reads : d.in_h;
  const auto run = [&]<bool ReadsPadValue>() {
    kernels::conv2d<F, V, ReadsPadValue>(first_row, in, w, bias, rq, out, scratch);
    kernels::conv2d<F, V, ReadsPadValue>(d, in, w, bias, rq, out, scratch, true);
  };
  if (kernels::reference::reads_pad_value(d)) run.template operator()<true>();
  else run.template operator()<false>();
}

/// Whether family `F`'s whole layers take what the kernels derive from a layer's constants from
/// flash (kernels::conv2d_layer; its traits then size that scratch).
template <kernels::kernel_family F>
inline constexpr bool family_takes_flash = requires(const kernels::reference::conv2d_dims& d) {
  kernels::family_traits<F>::conv2d_flash_scratch_bytes(d);
};

#if TESSERA_KERNELS_ARM_DSP
// What with_flash_constants derives per case (the largest case's table and expanded weights).
inline kernels::arm_dsp::rq_entry flash_table[64];
inline std::uint32_t flash_words[8192];
#endif

/// Variant `V` as a whole layer runs it when its family takes what the kernel derives from the
/// weights, bias and requantization from flash (kernels::conv2d_layer): the constants derived
/// here at run time by the function the compiler runs for a layer (arm_dsp::derive_flash), and
/// nullptr for the weights, bias and requantization arrays where conv2d_layer passes nullptr
/// (so a kernel that still read them would fault or mismatch). Returns false, running nothing,
/// when the case's constants exceed the buffers above.
template <kernels::kernel_family F, kernels::conv_variant V, class TIn, class TOut>
bool with_flash_constants([[maybe_unused]] const kernels::reference::conv2d_dims& d, [[maybe_unused]] const TIn* in,
                          [[maybe_unused]] const std::int8_t* w, [[maybe_unused]] const std::int32_t* bias,
                          [[maybe_unused]] const requant_params& rq, [[maybe_unused]] TOut* out) {
#if TESSERA_KERNELS_ARM_DSP
  if constexpr (F == kernels::kernel_family::arm_dsp && V != kernels::conv_variant::reference) {
    namespace a = kernels::arm_dsp;
    constexpr kernels::conv_variant k = V;
    if (d.out_c > 64 || a::flash_weight_words(k, d) > 8192) return false;
    const a::flash_constants flash = a::derive_flash<TIn, TOut>(k, d, w, bias, rq, flash_table, flash_words);
    const std::int8_t* weights = a::flash_needs_weights(k, d) ? w : nullptr;
    const bool needs_requant = flash.kind == a::epilogue_kind::raw || flash.kind == a::epilogue_kind::exact;
    requant_params r = rq;
    if (!needs_requant) r.mul = r.add = nullptr;
    const std::int32_t* b = needs_requant ? bias : nullptr;
    using K = kernels::family_kernels<F>;
    const auto run = [&]<bool ReadsPadValue>() {
      if constexpr (V == kernels::conv_variant::im2col) K::template conv2d<ReadsPadValue>(d, in, weights, b, r, out, scratch, flash);
      else if constexpr (V == kernels::conv_variant::depthwise_hwc)
        K::template depthwise_hwc<ReadsPadValue>(d, in, weights, b, r, out, scratch, flash);
      else K::template depthwise_chw<ReadsPadValue>(d, in, weights, b, r, out, scratch, flash);
    };
    if (kernels::reference::reads_pad_value(d)) run.template operator()<true>();
    else run.template operator()<false>();
    return true;
  }
#endif
  return false;
}

/// The case of variant `V` with flash constants, for a family that takes them (else nothing).
template <kernels::kernel_family F, kernels::conv_variant V, class TIn, class TOut>
void check_flash(equivalence_stats& stats, const char* kernel, int case_index, std::size_t out_bytes,
                 const kernels::reference::conv2d_dims& d, const TIn* in, const std::int8_t* w,
                 const std::int32_t* bias, const requant_params& rq) {
  if constexpr (family_takes_flash<F>) {
    const std::size_t sb = kernels::conv2d_layer_scratch_bytes<F>(V, d);
    if (sb > buffer_bytes) return;
    bool ran = false;
    arm_guards(out_bytes, sb);
    current_kernel = kernel;
    current_case = case_index;
    ran = with_flash_constants<F, V>(d, in, w, bias, rq, reinterpret_cast<TOut*>(actual));
    if (!ran) return;
    ++stats.cases;
    ++stats.flash_cases;
    if (!verify(kernel, case_index, out_bytes, sb)) ++stats.failures;
  }
}

/// A whole Gemm layer's call with its table from flash (kernels::gemm_layer), the table derived
/// at run time by arm_dsp::derive_gemm_flash, and nullptr for the requantization arrays and the
/// bias where gemm_layer passes nullptr. Nothing for a family without flash constants.
template <kernels::kernel_family F, class TA, class TOut>
void check_gemm_flash([[maybe_unused]] equivalence_stats& stats, [[maybe_unused]] int case_index,
                      [[maybe_unused]] std::size_t out_bytes, [[maybe_unused]] const kernels::reference::gemm_dims& d,
                      [[maybe_unused]] const TA* a, [[maybe_unused]] const std::int8_t* w,
                      [[maybe_unused]] const std::int32_t* bias, [[maybe_unused]] const requant_params& rq) {
#if TESSERA_KERNELS_ARM_DSP
  if constexpr (F == kernels::kernel_family::arm_dsp) {
    namespace k = kernels::arm_dsp;
    if (d.m > 64 || d.n > 64) return;
    const std::size_t sb = kernels::gemm_layer_scratch_bytes<F>(d);
    if (sb > buffer_bytes) return;
    const k::flash_constants flash = k::derive_gemm_flash<TA, TOut>(d, bias, rq, flash_table);
    const bool needs_requant = flash.kind == k::epilogue_kind::raw || flash.kind == k::epilogue_kind::exact;
    requant_params r = rq;
    if (!needs_requant) r.mul = r.add = nullptr;
    const std::int32_t* b = needs_requant || kernels::is_rowwise(rq, d.m, d.n) ? bias : nullptr;
    arm_guards(out_bytes, sb);
    current_kernel = "gemm(flash)";
    current_case = case_index;
    kernels::family_kernels<F>::gemm(d, a, w, b, r, reinterpret_cast<TOut*>(actual), scratch, flash);
    ++stats.cases;
    ++stats.flash_cases;
    if (!verify("gemm(flash)", case_index, out_bytes, sb)) ++stats.failures;
  }
#endif
}

}  // namespace equivalence_detail

enum class conv_shape { standard, pointwise, depthwise };

/// Convolutions: standard (im2col), pointwise and depthwise (both depthwise variants).
template <kernels::kernel_family F>
equivalence_stats check_conv2d(std::uint32_t seed, int iterations, conv_shape shape) {
  using namespace equivalence_detail;
  using traits = kernels::family_traits<F>;
  rng r{seed};
  equivalence_stats stats{};
  for (int it = 0; it < iterations; ++it) {
    begin_case();
    kernels::reference::conv2d_dims d{};
    d.batch = 1;
    d.kernel_h = shape == conv_shape::pointwise ? 1 : r.range(1, 3);
    d.kernel_w = shape == conv_shape::pointwise ? 1 : r.range(1, 3);
    if (shape == conv_shape::standard && r.chance(10)) d.kernel_h = 10, d.kernel_w = 4;  // keyword spotting's first layer
    // 3x3 depthwise filters take the families' row kernels (and their transposed planes when
    // the map is taller than wide): drawn more often than 1 in 9.
    if (shape == conv_shape::depthwise && r.chance(40)) d.kernel_h = d.kernel_w = 3;
    d.stride_h = shape == conv_shape::pointwise ? 1 : r.range(1, 2);
    d.stride_w = shape == conv_shape::pointwise ? 1 : r.range(1, 2);
    d.dilation_h = d.dilation_w = (shape != conv_shape::pointwise && d.kernel_h <= 3 && r.chance(10)) ? 2 : 1;
    d.pad_top = r.range(0, d.kernel_h / 2 + 1);
    d.pad_left = r.range(0, d.kernel_w / 2 + 1);
    if (shape == conv_shape::pointwise) {
      // ONNX lets a 1x1 convolution pad (a ring of outputs that read only the padding): rare.
      if (!r.chance(15)) d.pad_top = d.pad_left = 0;
    } else {
      if (d.pad_top >= d.kernel_h) d.pad_top = d.kernel_h - 1;
      if (d.pad_left >= d.kernel_w) d.pad_left = d.kernel_w - 1;
    }
    d.in_h = r.range(d.dilation_h * (d.kernel_h - 1) + 1, 12);  // kernels up to 10 tall, dilated 3x3 up to 5
    d.in_w = r.range(d.dilation_w * (d.kernel_w - 1) + 1, 12);
    d.in_c = shape == conv_shape::depthwise ? r.range(1, 40) : r.range(1, d.kernel_h * d.kernel_w > 9 ? 8 : 36);
    d.out_c = shape == conv_shape::depthwise ? d.in_c : r.range(1, 37);
    d.groups = shape == conv_shape::depthwise ? d.in_c : 1;
    const int pad_bottom = r.range(0, d.pad_top), pad_right = r.range(0, d.pad_left);
    d.out_h = (d.in_h + d.pad_top + pad_bottom - d.dilation_h * (d.kernel_h - 1) - 1) / d.stride_h + 1;
    d.out_w = (d.in_w + d.pad_left + pad_right - d.dilation_w * (d.kernel_w - 1) - 1) / d.stride_w + 1;
    const bool in_signed = r.chance(60);
    const int out_pick = r.range(0, 4) == 0 ? 2 : r.range(0, 1);
    const int ran = stats.cases;
    with_8bit_type(in_signed, [&](auto in_v) {
      with_output_type(out_pick, [&](auto out_v) {
        using TIn = decltype(in_v);
        using TOut = decltype(out_v);
        // The padding reads the input's zero point: 0 (symmetric), any value, or an extreme.
        const int pad_pick = r.range(0, 9);
        d.pad_value = pad_pick < 4 ? 0
                      : pad_pick == 8 ? std::numeric_limits<TIn>::min()
                      : pad_pick == 9 ? std::numeric_limits<TIn>::max()
                                      : r.range(std::numeric_limits<TIn>::min(), std::numeric_limits<TIn>::max());
        const std::size_t in_count = std::size_t(d.in_h) * d.in_w * d.in_c;
        const std::size_t w_count = std::size_t(d.out_c) * d.kernel_h * d.kernel_w * (d.in_c / d.groups);
        const std::size_t out_bytes = std::size_t(d.out_h) * d.out_w * d.out_c * sizeof(TOut);
        TIn* const in = place<TIn>(slot_a, in_count);
        std::int8_t* const w = place<std::int8_t>(slot_weights, w_count);
        std::int32_t* const bias = place<std::int32_t>(slot_bias, static_cast<std::size_t>(d.out_c));
        fill<TIn>(r, in, in_count);
        fill<std::int8_t>(r, w, w_count);
        const bool with_bias = r.chance(80);
        for (int c = 0; c < d.out_c; ++c) bias[c] = r.range(-(1 << 16), 1 << 16);
        const requant_params rq = random_requant<TOut>(r, d.out_c);
        const std::int32_t* b = with_bias ? bias : nullptr;
        kernels::reference::conv2d(d, in, w, b, rq, reinterpret_cast<TOut*>(expected), nullptr);
        if (shape == conv_shape::depthwise) {
          if (!traits::template depthwise_accepts<TIn, std::int8_t, TOut>(d, rq)) {
            ++stats.rejected;
            return;
          }
          for (int variant = 0; variant < 2; ++variant) {
            const std::size_t sb = variant == 0 ? traits::depthwise_hwc_scratch_bytes(d) : traits::depthwise_chw_scratch_bytes(d);
            check_accepted(stats, variant == 0 ? "depthwise_hwc" : "depthwise_chw", it, out_bytes, sb, [&] {
              auto* out = reinterpret_cast<TOut*>(actual);
              if (variant == 0) kernels::family_kernels<F>::depthwise_hwc(d, in, w, b, rq, out, scratch);
              else kernels::family_kernels<F>::depthwise_chw(d, in, w, b, rq, out, scratch);
            });
            check_accepted(stats, variant == 0 ? "depthwise_hwc(prepared)" : "depthwise_chw(prepared)", it, out_bytes, sb,
                           [&] {
                             if (variant == 0) as_tiles_of_one_block<F, kernels::conv_variant::depthwise_hwc>(d, in, w, b, rq, reinterpret_cast<TOut*>(actual));
                             else as_tiles_of_one_block<F, kernels::conv_variant::depthwise_chw>(d, in, w, b, rq, reinterpret_cast<TOut*>(actual));
                           });
            if (variant == 0)
              check_flash<F, kernels::conv_variant::depthwise_hwc, TIn, TOut>(stats, "depthwise_hwc(flash)", it, out_bytes, d, in, w, b, rq);
            else
              check_flash<F, kernels::conv_variant::depthwise_chw, TIn, TOut>(stats, "depthwise_chw(flash)", it, out_bytes, d, in, w, b, rq);
          }
          return;
        }
        if (!traits::template conv2d_accepts<TIn, std::int8_t, TOut>(d, rq)) {
          ++stats.rejected;
          return;
        }
        check_accepted(stats, shape == conv_shape::pointwise ? "conv2d(1x1)" : "conv2d", it, out_bytes,
                       traits::conv2d_scratch_bytes(d), [&] {
                         kernels::family_kernels<F>::conv2d(d, in, w, b, rq, reinterpret_cast<TOut*>(actual), scratch);
                       });
        check_accepted(stats, "conv2d(prepared)", it, out_bytes, traits::conv2d_scratch_bytes(d),
                       [&] {
                         as_tiles_of_one_block<F, kernels::conv_variant::im2col>(d, in, w, b, rq, reinterpret_cast<TOut*>(actual));
                       });
        check_flash<F, kernels::conv_variant::im2col, TIn, TOut>(stats, "conv2d(flash)", it, out_bytes, d, in, w, b, rq);
      });
    });
    if (kernels::reference::reads_pad_value(d)) stats.pad_value_cases += stats.cases - ran;
  }
  return stats;
}

/// Fully connected layers, requantized per output feature, per output row or per tensor.
template <kernels::kernel_family F>
equivalence_stats check_gemm(std::uint32_t seed, int iterations) {
  using namespace equivalence_detail;
  using traits = kernels::family_traits<F>;
  rng r{seed};
  equivalence_stats stats{};
  for (int it = 0; it < iterations; ++it) {
    begin_case();
    const kernels::reference::gemm_dims d{r.range(1, 6), r.range(1, 70), r.range(1, 300)};
    const bool a_signed = r.chance(60);
    const int out_pick = r.range(0, 4) == 0 ? 2 : r.range(0, 1);
    with_8bit_type(a_signed, [&](auto a_v) {
      with_output_type(out_pick, [&](auto out_v) {
        using TA = decltype(a_v);
        using TOut = decltype(out_v);
        TA* const a = place<TA>(slot_a, std::size_t(d.m) * d.k);
        std::int8_t* const w = place<std::int8_t>(slot_weights, std::size_t(d.n) * d.k);
        std::int32_t* const bias = place<std::int32_t>(slot_bias, static_cast<std::size_t>(d.n));
        fill<TA>(r, a, std::size_t(d.m) * d.k);
        fill<std::int8_t>(r, w, std::size_t(d.n) * d.k);
        for (int c = 0; c < d.n; ++c) bias[c] = r.range(-(1 << 16), 1 << 16);
        const bool rowwise = sizeof(TOut) == 1 && r.chance(20);
        requant_params rq = random_requant<TOut>(r, rowwise ? d.m : d.n);
        if (rowwise && rq.length != 1) rq.inner = d.n;
        const std::int32_t* b = r.chance(80) ? bias : nullptr;
        const std::size_t out_bytes = std::size_t(d.m) * d.n * sizeof(TOut);
        kernels::reference::gemm(d, a, w, b, rq, reinterpret_cast<TOut*>(expected), nullptr);
        if (!traits::template gemm_accepts<TA, std::int8_t, TOut>(d, rq)) {
          ++stats.rejected;
          return;
        }
        check_accepted(stats, "gemm", it, out_bytes, traits::gemm_scratch_bytes(d), [&] {
          kernels::family_kernels<F>::gemm(d, a, w, b, rq, reinterpret_cast<TOut*>(actual), scratch);
        });
        check_gemm_flash<F, TA, TOut>(stats, it, out_bytes, d, a, w, b, rq);
      });
    });
  }
  return stats;
}

/// MatMul of two activations, with and without batch dimensions.
template <kernels::kernel_family F>
equivalence_stats check_matmul(std::uint32_t seed, int iterations) {
  using namespace equivalence_detail;
  using traits = kernels::family_traits<F>;
  rng r{seed};
  equivalence_stats stats{};
  for (int it = 0; it < iterations; ++it) {
    begin_case();
    kernels::reference::matmul_dims d{};
    d.m = r.range(1, 12), d.n = r.range(1, 40), d.k = r.range(1, 64);
    d.b_transposed = r.chance(30);  // B stored [n][k] (a folded Transpose: Q K^T on a KV cache)
    d.batch_rank = r.range(0, 1);
    if (d.batch_rank == 1) {
      d.batch[0] = r.range(1, 3);
      d.a_stride[0] = r.chance(20) ? 0 : std::int64_t{d.m} * d.k;
      d.b_stride[0] = r.chance(20) ? 0 : std::int64_t{d.k} * d.n;
    }
    const int batches = d.batch_rank == 1 ? d.batch[0] : 1;
    const bool a_signed = r.chance(60), b_signed = r.chance(60);
    const int out_pick = r.range(0, 3) == 0 ? 2 : r.range(0, 1);
    with_8bit_type(a_signed, [&](auto a_v) {
      with_8bit_type(b_signed, [&](auto b_v) {
        with_output_type(out_pick, [&](auto out_v) {
          using TA = decltype(a_v);
          using TB = decltype(b_v);
          using TOut = decltype(out_v);
          // Exactly what is read: one matrix when the operand broadcasts over the batch (stride 0).
          const std::size_t a_count = std::size_t(d.batch_rank == 1 && d.a_stride[0] != 0 ? batches : 1) * d.m * d.k;
          const std::size_t b_count = std::size_t(d.batch_rank == 1 && d.b_stride[0] != 0 ? batches : 1) * d.k * d.n;
          TA* const a = place<TA>(slot_a, a_count);
          TB* const b = place<TB>(slot_b, b_count);
          fill<TA>(r, a, a_count);
          fill<TB>(r, b, b_count);
          const requant_params rq = random_requant<TOut>(r, d.n);
          const std::size_t out_bytes = std::size_t(batches) * d.m * d.n * sizeof(TOut);
          kernels::reference::matmul(d, a, b, rq, reinterpret_cast<TOut*>(expected), nullptr);
          if (!traits::template matmul_accepts<TA, TB, TOut>(d, rq)) {
            ++stats.rejected;
            return;
          }
          check_accepted(stats, "matmul", it, out_bytes, traits::matmul_scratch_bytes(d), [&] {
            kernels::family_kernels<F>::matmul(d, a, b, rq, reinterpret_cast<TOut*>(actual), scratch);
          });
        });
      });
    });
  }
  return stats;
}

/// iSoftmax through its compile-time exponential table (algorithm/softmax.hpp), which every
/// family but the reference runs, on random rows for a set of constants: the decoder's, one
/// whose products e * (n_levels - 1) need 64 bits, the smallest (log2 1, two levels) and a wide
/// log2. Family-independent code, checked on each core for its 32-bit division.
template <kernels::reference::softmax_params P>
void check_softmax_constants(rng& r, int iterations, equivalence_stats& stats) {
  using namespace equivalence_detail;
  for (int it = 0; it < iterations; ++it) {
    begin_case();
    const int rows = r.range(1, 4), length = r.range(1, r.chance(20) ? 400 : 64);
    const std::size_t count = std::size_t(rows) * length;
    with_8bit_type(r.chance(60), [&](auto v) {
      using T = decltype(v);
      T* const x = place<T>(slot_a, count);
      fill<T>(r, x, count);
      kernels::reference::integer_softmax(rows, length, x, P, expected);
      check_accepted(stats, "softmax", it, count, 0, [&] {
        kernels::algorithm::integer_softmax<P>(rows, length, x, equivalence_detail::actual);
      });
    });
  }
}

template <kernels::kernel_family F>
equivalence_stats check_softmax(std::uint32_t seed, int iterations) {
  using kernels::reference::softmax_kind;
  rng r{seed};
  equivalence_stats stats{};
  const int each = iterations / 4 > 0 ? iterations / 4 : 1;
  check_softmax_constants<{softmax_kind::i_softmax, 256, 5, 15, 4, 256}>(r, each, stats);
  check_softmax_constants<{softmax_kind::i_softmax, 30000, 60, 4000, 44, 256}>(r, each, stats);
  static_assert(!kernels::algorithm::i_softmax_table<{softmax_kind::i_softmax, 30000, 60, 4000, 44, 256}>::product_fits_32);
  check_softmax_constants<{softmax_kind::i_softmax, 3, 2, 1, 1, 2}>(r, each, stats);
  check_softmax_constants<{softmax_kind::i_softmax, 1, 200, 100, 127, 129}>(r, each, stats);
  return stats;
}

// The row divisor of the norms (algorithm/normalization.hpp) at its ends.
static_assert([] {
  using kernels::algorithm::invariant_divisor;
  for (std::uint32_t d : {1u, 2u, 3u, 7u, 255u, 256u, 65535u, 0x7fffffffu, 0x80000001u, 0xffffffffu})
    for (std::int32_t n : {0, 1, -1, 2, -2, 254, -255, 0x7fffffff, -0x7fffffff - 1, 0x40000001, -0x40000001})
      if (invariant_divisor(d).floor_divide(n) != floor_div(n, d)) return false;
  return true;
}());

/// iRMSNorm and iLayerNorm through algorithm/normalization.hpp (every family but the reference
/// runs it): random rows of 1-400 values, one or a row of weights and biases per row, weights
/// up to the largest magnitude of its 32-bit path (and sometimes all at that bound or its
/// negative), biases up to 2^30, every shift and clamp; iNoNorm rides along (the reference
/// runs it). Family-independent code, checked on each core for its 64-bit product.
template <kernels::kernel_family F>
equivalence_stats check_norm(std::uint32_t seed, int iterations) {
  using namespace equivalence_detail;
  using kernels::reference::norm_kind;
  rng r{seed};
  equivalence_stats stats{};
  constexpr std::int32_t widest = 0x7fffffff / 255;
  static_assert(kernels::algorithm::norm_products_fit_32(widest) && !kernels::algorithm::norm_products_fit_32(widest + 1));
  for (int it = 0; it < iterations; ++it) {
    begin_case();
    kernels::reference::norm_params p{};
    const int pick = r.range(0, 9);
    p.kind = pick < 5 ? norm_kind::rms : pick < 9 ? norm_kind::layer : norm_kind::no_norm;
    const int rows = r.range(1, 4), length = r.range(1, r.chance(20) ? 400 : 64);
    p.weight_rows = r.chance(30) ? rows : 1;
    p.bias_rows = r.chance(30) ? rows : 1;
    p.shift = r.range(0, 30);
    p.lo = r.chance(70) ? -128 : r.range(-128, 0);
    p.hi = r.chance(70) ? 127 : r.range(p.lo, 127);
    p.mul = r.range(-50, 50);
    const std::size_t count = std::size_t(rows) * std::size_t(length);
    auto* w = place<std::int32_t>(slot_weights, std::size_t(p.weight_rows) * std::size_t(length));
    const int mode = r.range(0, 9);
    const std::int32_t bound = mode < 3 ? 1 << r.range(0, 12) : widest;
    for (std::size_t i = 0; i < std::size_t(p.weight_rows) * std::size_t(length); ++i)
      w[i] = mode == 8 ? widest : mode == 9 ? -widest : static_cast<std::int32_t>(r.next() % (2u * std::uint32_t(bound) + 1u)) - bound;
    std::int32_t* b = nullptr;
    if (p.kind != norm_kind::rms) {
      b = place<std::int32_t>(slot_b, std::size_t(p.bias_rows) * std::size_t(length));  // slot_bias: 4 kB
      for (std::size_t i = 0; i < std::size_t(p.bias_rows) * std::size_t(length); ++i)
        b[i] = static_cast<std::int32_t>(r.next() % (1u << 31)) - (1 << 30);
    }
    with_8bit_type(r.chance(60), [&](auto v) {
      using T = decltype(v);
      T* const x = place<T>(slot_a, count);
      fill<T>(r, x, count);
      auto* want = reinterpret_cast<std::int8_t*>(expected);
      kernels::reference::integer_norm(rows, length, 0, x, w, b, p, want);
      check_accepted(stats, "norm", it, count, 0, [&] {
        kernels::algorithm::integer_norm<true>(rows, length, 0, x, w, b, p, reinterpret_cast<std::int8_t*>(actual));
      });
    });
  }
  return stats;
}

/// Add, Sub and Mul: same shapes (the residual connection) and a per-channel broadcast of B.
/// Mul comes with the input offsets of a QLinearMul (minus a zero point of the operand's type),
/// and some Add/Sub cases with offsets too. A family may decline any of them (the reference then
/// runs); what it accepts must be bit-exact, and accepting a layer must mean accepting its tiles
/// (one dense row, the op's tile shape), whatever the op.
template <kernels::kernel_family F>
equivalence_stats check_binary(std::uint32_t seed, int iterations) {
  using namespace equivalence_detail;
  using traits = kernels::family_traits<F>;
  rng r{seed};
  equivalence_stats stats{};
  for (int it = 0; it < iterations; ++it) {
    begin_case();
    const int rows = r.range(1, 40), channels = r.range(1, 70);
    const bool broadcast = r.chance(25);
    kernels::reference::binary_dims d{};
    d.rank = 2;
    d.out[0] = rows, d.out[1] = channels;
    d.a_stride[0] = channels, d.a_stride[1] = 1;
    d.b_stride[0] = broadcast ? 0 : channels, d.b_stride[1] = 1;
    const int op_pick = r.range(0, 99);
    const auto op = op_pick < 60   ? kernels::reference::binary_op::add
                    : op_pick < 80 ? kernels::reference::binary_op::sub
                                   : kernels::reference::binary_op::mul;
    const bool a_signed = r.chance(60), b_signed = r.chance(60);
    if (op == kernels::reference::binary_op::mul || r.chance(10)) {
      d.a_offset = a_signed ? -r.range(-128, 127) : -r.range(0, 255);
      d.b_offset = b_signed ? -r.range(-128, 127) : -r.range(0, 255);
    }
    const int out_pick = r.range(0, 3) == 0 ? 2 : r.range(0, 1);
    with_8bit_type(a_signed, [&](auto a_v) {
      with_8bit_type(b_signed, [&](auto b_v) {
        with_output_type(out_pick, [&](auto out_v) {
          using TA = decltype(a_v);
          using TB = decltype(b_v);
          using TOut = decltype(out_v);
          const std::size_t b_count = std::size_t(broadcast ? 1 : rows) * channels;  // one row when B broadcasts
          TA* const a = place<TA>(slot_a, std::size_t(rows) * channels);
          TB* const b = place<TB>(slot_b, b_count);
          fill<TA>(r, a, std::size_t(rows) * channels);
          fill<TB>(r, b, b_count);
          const requant_params rq = random_requant<TOut>(r, channels);
          const std::size_t out_bytes = std::size_t(rows) * channels * sizeof(TOut);
          kernels::reference::binary(op, d, a, b, rq, reinterpret_cast<TOut*>(expected));
          if (!traits::template binary_accepts<TA, TB, TOut>(op, d, rq)) {
            ++stats.rejected;
            return;
          }
          kernels::reference::binary_dims row = d;  // ops::binary_node::tile_dims(1, channels)
          row.out[0] = 1;
          row.a_stride[0] = row.b_stride[0] = channels;
          if (!traits::template binary_accepts<TA, TB, TOut>(op, row, rq)) {
            std::printf("INCONSISTENT binary case %d: the layer is accepted, its one-row tile is not\n", it);
            ++stats.failures;
          }
          check_accepted(stats, "binary", it, out_bytes, traits::binary_scratch_bytes(d), [&] {
            kernels::family_kernels<F>::binary(op, d, a, b, rq, reinterpret_cast<TOut*>(actual), scratch);
          });
        });
      });
    });
  }
  return stats;
}

/// Max and average pooling, padded and not, both count_include_pad settings.
template <kernels::kernel_family F>
equivalence_stats check_pool(std::uint32_t seed, int iterations) {
  using namespace equivalence_detail;
  using traits = kernels::family_traits<F>;
  rng r{seed};
  equivalence_stats stats{};
  for (int it = 0; it < iterations; ++it) {
    begin_case();
    kernels::reference::pool2d_dims d{};
    d.batch = 1;
    d.kernel_h = r.range(1, 4), d.kernel_w = r.range(1, 4);
    d.stride_h = r.range(1, 3), d.stride_w = r.range(1, 3);
    d.pad_top = r.range(0, d.kernel_h - 1), d.pad_left = r.range(0, d.kernel_w - 1);
    d.pad_bottom = r.range(0, d.kernel_h - 1), d.pad_right = r.range(0, d.kernel_w - 1);
    if (r.chance(30)) d.pad_top = d.pad_left = d.pad_bottom = d.pad_right = 0;
    d.in_h = r.range(d.kernel_h, 14), d.in_w = r.range(d.kernel_w, 14);
    if (r.chance(15)) d.kernel_h = d.in_h, d.kernel_w = d.in_w, d.pad_top = d.pad_left = d.pad_bottom = d.pad_right = 0;  // global
    d.channels = r.range(1, 70);
    d.out_h = (d.in_h + d.pad_top + d.pad_bottom - d.kernel_h) / d.stride_h + 1;
    d.out_w = (d.in_w + d.pad_left + d.pad_right - d.kernel_w) / d.stride_w + 1;
    const bool is_max = r.chance(50);
    const bool count_include_pad = r.chance(50);
    with_8bit_type(r.chance(50), [&](auto v) {
      using T = decltype(v);
      T* const in = place<T>(slot_a, std::size_t(d.in_h) * d.in_w * d.channels);
      fill<T>(r, in, std::size_t(d.in_h) * d.in_w * d.channels);
      const std::size_t out_bytes = std::size_t(d.out_h) * d.out_w * d.channels;
      if (is_max) kernels::reference::max_pool2d(d, in, reinterpret_cast<T*>(expected));
      else kernels::reference::average_pool2d(d, count_include_pad, in, reinterpret_cast<T*>(expected));
      const bool accepted = is_max ? traits::template max_pool_accepts<T>(d)
                                   : traits::template average_pool_accepts<T>(d, count_include_pad);
      if (!accepted) {
        ++stats.rejected;
        return;
      }
      const std::size_t sb = is_max ? traits::max_pool2d_scratch_bytes(d) : traits::average_pool2d_scratch_bytes(d);
      check_accepted(stats, is_max ? "max_pool2d" : "average_pool2d", it, out_bytes, sb, [&] {
        if (is_max) kernels::family_kernels<F>::max_pool2d(d, in, reinterpret_cast<T*>(actual), scratch);
        else kernels::family_kernels<F>::average_pool2d(d, count_include_pad, in, reinterpret_cast<T*>(actual), scratch);
      });
    });
  }
  return stats;
}

/// The means of standard ONNX (onnx2hpp's average pools: a depthwise conv of ones with bias
/// -zx * count, then a per-tensor requantization that rounds half to even counted from the output
/// zero point zy). Every family runs them through `kernels::choose_conv2d`, which must pick the
/// reference (families implement the half-up rounding only); the result must be ONNX's
/// round_half_to_even((sum - zx * count) / (count * 2^k)) + zy, clamped, computed here with
/// integers, for windows of 1, 2, 4, 8 or 16 cells (count * 2^k a power of two, so the ties are
/// exact), small values near zx (many ties), extremes and odd and even zero points; and the same
/// requantization rounded half up, which the family runs where it accepts it, must differ from it
/// on ties only. `cases` counts the means checked, `rejected` the half-up variants the family
/// declined.
template <kernels::kernel_family F>
equivalence_stats check_mean_rounding(std::uint32_t seed, int iterations) {
  using namespace equivalence_detail;
  rng r{seed};
  equivalence_stats stats{};
  for (int it = 0; it < iterations; ++it) {
    begin_case();
    kernels::reference::conv2d_dims d{};
    d.batch = 1;
    const int shape = r.range(0, 4);  // 1x1, 1x2, 2x2, 2x4, 4x4 windows
    d.kernel_h = shape >= 4 ? 4 : (shape >= 2 ? 2 : 1);
    d.kernel_w = shape >= 3 ? 4 : (shape >= 1 ? 2 : 1);
    if (shape == 2 && r.chance(50)) d.kernel_w = 2;
    const int count = d.kernel_h * d.kernel_w;
    d.stride_h = r.chance(50) ? d.kernel_h : 1;
    d.stride_w = r.chance(50) ? d.kernel_w : 1;
    d.dilation_h = d.dilation_w = 1;
    d.in_h = r.range(d.kernel_h, 9);
    d.in_w = r.range(d.kernel_w, 9);
    d.in_c = d.out_c = d.groups = r.range(1, 33);
    d.out_h = (d.in_h - d.kernel_h) / d.stride_h + 1;
    d.out_w = (d.in_w - d.kernel_w) / d.stride_w + 1;
    const bool is_signed = r.chance(50);
    with_8bit_type(is_signed, [&](auto type) {
      using T = decltype(type);
      constexpr int lo = std::is_signed_v<T> ? -128 : 0;
      constexpr int hi = std::is_signed_v<T> ? 127 : 255;
      const int zx = r.range(lo, hi), zy = r.chance(70) ? zx : r.range(lo, hi);
      const std::size_t in_count = std::size_t(d.in_h) * d.in_w * d.in_c;
      T* const in = place<T>(slot_a, in_count);
      const int spread = r.chance(80) ? 3 : 255;
      for (std::size_t i = 0; i < in_count; ++i) {
        int x = zx + r.range(-spread, spread);
        if (r.chance(3)) x = r.chance(50) ? lo : hi;
        in[i] = static_cast<T>(x < lo ? lo : (x > hi ? hi : x));
      }
      std::int8_t* const w = place<std::int8_t>(slot_weights, static_cast<std::size_t>(d.out_c) * count);
      std::int32_t* const bias = place<std::int32_t>(slot_bias, static_cast<std::size_t>(d.out_c));
      std::int32_t* const mul = place<std::int32_t>(slot_mul, 1);
      std::int32_t* const add = place<std::int32_t>(slot_add, 1);
      for (int i = 0; i < d.out_c * count; ++i) w[i] = 1;
      for (int c = 0; c < d.out_c; ++c) bias[c] = -zx * count;
      // M = 2^-k / count: mul = 2^30, shift = 30 + log2(count) + k; zy * 2^shift folds into the
      // bias when it fits (as onnx2hpp's widening does), else stays in add.
      int log2_count = 0;
      while ((1 << log2_count) < count) ++log2_count;
      const int k = r.range(0, 2);
      requant_params rq{};
      rq.enabled = true;
      rq.length = rq.inner = 1;
      rq.shift = 30 + log2_count + k;
      mul[0] = 1 << 30;
      add[0] = 0;
      for (int c = 0; c < d.out_c; ++c) bias[c] += zy * count * (1 << k);
      rq.mul = mul;
      rq.add = add;
      rq.lo = lo;
      rq.hi = hi;
      rq.mode = rounding::half_even;
      rq.zero_point = zy;
      const std::size_t out_count = std::size_t(d.out_h) * d.out_w * d.out_c;
      // The dispatch of every family runs the reference for this requantization.
      if (kernels::choose_conv2d<F, T, std::int8_t, T>(d, rq) != kernels::conv_variant::reference) {
        std::printf("MISMATCH mean case %d: %s runs its own kernel for a half_even requantization\n", it,
                    kernels::family_name(F));
        ++stats.failures;
      }
      kernels::conv2d<kernels::kernel_family::reference, kernels::conv_variant::reference>(
          d, in, w, bias, rq, reinterpret_cast<T*>(expected), nullptr);
      // ONNX's rule with integers: q = round_half_even(s / (count * 2^k)) + zy, s = sum - zx * count.
      const std::int64_t den = std::int64_t{count} << k;
      static std::uint8_t tie[4096];  // at most 9 * 9 * 33 outputs
      for (int y = 0; y < d.out_h; ++y) {
        for (int x = 0; x < d.out_w; ++x) {
          for (int c = 0; c < d.out_c; ++c) {
            std::int64_t sum = 0;
            for (int i = 0; i < d.kernel_h; ++i)
              for (int j = 0; j < d.kernel_w; ++j)
                sum += in[(std::size_t(y * d.stride_h + i) * d.in_w + (x * d.stride_w + j)) * d.in_c + c] - zx;
            std::int64_t q = sum >= 0 ? sum / den : -((-sum + den - 1) / den);  // floor
            const std::int64_t twice_rem = 2 * (sum - q * den);
            if (twice_rem > den || (twice_rem == den && (q & 1) != 0)) ++q;
            std::int64_t want = q + zy;
            want = want < lo ? lo : (want > hi ? hi : want);
            const std::size_t o = (std::size_t(y) * d.out_w + x) * d.out_c + c;
            tie[o] = twice_rem == den ? 1 : 0;
            if (reinterpret_cast<const T*>(expected)[o] != want) {
              std::printf("MISMATCH mean case %d at %u: %d, ONNX %d\n", it, static_cast<unsigned>(o),
                          int(reinterpret_cast<const T*>(expected)[o]), int(want));
              ++stats.failures;
              return;
            }
          }
        }
      }
      ++stats.cases;
      // The same requantization rounded half up: the family's kernel where it accepts it, bit-exact
      // with the reference, which differs from the half-to-even result by +1 on some ties only.
      requant_params up = rq;
      up.mode = rounding::half_up;
      static T reference_up[4096];
      kernels::conv2d<kernels::kernel_family::reference, kernels::conv_variant::reference>(d, in, w, bias, up,
                                                                                         reference_up, nullptr);
      const kernels::conv_variant v = kernels::choose_conv2d<kernels::runnable(F), T, std::int8_t, T>(d, up);
      if (v == kernels::conv_variant::reference) ++stats.rejected;
      auto* out = reinterpret_cast<T*>(actual);
      std::memset(actual, 0x5A, out_count * sizeof(T));
      if (v == kernels::conv_variant::depthwise_hwc)
        kernels::conv2d<kernels::runnable(F), kernels::conv_variant::depthwise_hwc>(d, in, w, bias, up, out, scratch);
      else if (v == kernels::conv_variant::depthwise_chw)
        kernels::conv2d<kernels::runnable(F), kernels::conv_variant::depthwise_chw>(d, in, w, bias, up, out, scratch);
      else
        kernels::conv2d<kernels::runnable(F), kernels::conv_variant::reference>(d, in, w, bias, up, out, scratch);
      for (std::size_t o = 0; o < out_count; ++o) {
        const int e = reinterpret_cast<const T*>(expected)[o], u = reference_up[o], a = out[o];
        if (a != u || !(u == e || (tie[o] != 0 && u == e + 1))) {
          std::printf("MISMATCH mean case %d at %u: %s half up %d, reference half up %d, half even %d, tie %d\n", it,
                      static_cast<unsigned>(o), kernels::family_name(F), a, u, e, int(tie[o]));
          ++stats.failures;
          return;
        }
      }
    });
  }
  return stats;
}

/// Whether family F's traits list `kind` among the kinds it leaves to the reference in every
/// case (`reference_kinds`, optional: e.g. rv32's depthwise and pooling layers).
template <kernels::kernel_family F>
constexpr bool leaves_to_reference(const char* kind) {
  using traits = kernels::family_traits<F>;
  if constexpr (requires { traits::reference_kinds; }) {
    for (const char* k : traits::reference_kinds) {
      int i = 0;
      while (k[i] != 0 && k[i] == kind[i]) ++i;
      if (k[i] == kind[i]) return true;
    }
  }
  return false;
}

/// One line per kernel kind; returns the number of failures (0 = pass). A family that runs
/// none of a kind's cases fails too: a check that never runs the kernel proves nothing (unless
/// its traits declare that the reference runs that kind: then it must run none).
template <kernels::kernel_family F>
int run_all_equivalence_checks(std::uint32_t seed, int iterations) {
  int failures = 0;
  auto report = [&](const char* kind, equivalence_stats s, bool pads = false) {
    std::printf("%-10s %-12s %4d cases, %4d declined, %d failures", kernels::family_name(F), kind, s.cases, s.rejected,
                s.failures);
    if (pads) std::printf(", %d with a pad value", s.pad_value_cases);
    if (s.flash_cases > 0) std::printf(", %d with flash constants", s.flash_cases);
    std::printf("\n");
    failures += s.failures;
    if (leaves_to_reference<F>(kind)) {
      if (s.cases != 0) {
        std::printf("%-10s %-12s declared reference-only but ran cases\n", kernels::family_name(F), kind);
        ++failures;
      }
      return;
    }
    if (s.cases == 0) {
      std::printf("%-10s %-12s ran no case\n", kernels::family_name(F), kind);
      ++failures;
    }
  };
  // Every family pads a convolution with its input's zero point in place: one that declined
  // those cases (leaving them to the reference) would pass the lines above unnoticed.
  auto report_conv = [&](const char* kind, equivalence_stats s) {
    report(kind, s, true);
    // A family whose whole layers take their constants from flash must run those cases too.
    if (equivalence_detail::family_takes_flash<F> && s.flash_cases == 0) {
      std::printf("%-10s %-12s ran no case with flash constants\n", kernels::family_name(F), kind);
      ++failures;
    }
    if (s.pad_value_cases == 0 && iterations >= 50) {
      std::printf("%-10s %-12s ran no case with a pad value\n", kernels::family_name(F), kind);
      ++failures;
    }
  };
  report_conv("conv2d", check_conv2d<F>(seed, iterations, conv_shape::standard));
  report_conv("pointwise", check_conv2d<F>(seed + 1, iterations, conv_shape::pointwise));
  report_conv("depthwise", check_conv2d<F>(seed + 2, iterations, conv_shape::depthwise));
  const equivalence_stats gemm_stats = check_gemm<F>(seed + 3, iterations);
  report("gemm", gemm_stats);
  if (equivalence_detail::family_takes_flash<F> && gemm_stats.flash_cases == 0) {
    std::printf("%-10s %-12s ran no case with flash constants\n", kernels::family_name(F), "gemm");
    ++failures;
  }
  report("matmul", check_matmul<F>(seed + 4, iterations));
  report("binary", check_binary<F>(seed + 5, iterations));
  report("pool", check_pool<F>(seed + 6, iterations));
  report("mean ties", check_mean_rounding<F>(seed + 7, iterations));
  report("softmax", check_softmax<F>(seed + 8, iterations));
  report("norm", check_norm<F>(seed + 9, iterations));
  return failures;
}

}  // namespace tessera::testing
