// Dispatch: runs a family's kernel where its traits accept the case, the reference otherwise.
//
// The choice is made at compile time by the ops (their shapes, types and requantization are
// template arguments), so a layer instantiates exactly one kernel and layers with the same
// element types share it. A family's `*_accepts` depends on types, layouts and structural
// attributes (groups, requantization layout), never on extents, so every tile of an accepted
// layer is accepted too, leftovers included.
#pragma once

#include <cstddef>
#include <type_traits>

#include <tessera/kernels/common/micro_tile.hpp>
#include <tessera/kernels/concepts.hpp>
#include <tessera/kernels/conv_variant.hpp>
#include <tessera/kernels/traits.hpp>

// Each family's kernels.hpp compiles to nothing where the family is not available.
#include <tessera/kernels/arm_dsp/kernels.hpp>
#include <tessera/kernels/arm_mve/kernels.hpp>
#include <tessera/kernels/rv32/kernels.hpp>
#include <tessera/kernels/rvv/kernels.hpp>
#include <tessera/kernels/x86/kernels.hpp>

namespace tessera::kernels {

/// The check every choice below makes first: a family named by a target must declare all traits
/// (kernels/concepts.hpp), so a new family that lacks one fails here with this message.
template <kernel_family F>
constexpr void check_family_traits() {
  static_assert(family_traits_complete<family_traits<F>>,
                "kernel family: family_traits<F> lacks a member every family declares (kernels/concepts.hpp)");
}


constexpr bool is_depthwise(const reference::conv2d_dims& d) {
  return d.groups > 1 && d.groups == d.in_c && d.out_c == d.in_c;
}

/// Whether an optimized family may run a kernel with requantization `rq`: their epilogues
/// implement the half-up rounding only, so a half_even requantization (onnx2hpp's standard-ONNX
/// average pools and means, core/requant.hpp) runs the reference kernel, whose `requantize` has
/// both modes. Decided here, once, for every family and every op that takes a requantization.
constexpr bool families_round_like(const requant_params& rq) {
  return !rq.enabled || (rq.mode == rounding::half_up && rq.divisor <= 1);
}

template <kernel_family F, class TIn, class TW, class TOut>
constexpr conv_variant choose_conv2d(const reference::conv2d_dims& d, const requant_params& rq) {
  check_family_traits<F>();
  using traits = family_traits<F>;
  if constexpr (F == kernel_family::reference) {
    return conv_variant::reference;
  } else {
    if (!families_round_like(rq)) return conv_variant::reference;
    if (is_depthwise(d)) {
      if (!traits::template depthwise_accepts<TIn, TW, TOut>(d, rq)) return conv_variant::reference;
      return traits::depthwise_prefers_chw(d) ? conv_variant::depthwise_chw : conv_variant::depthwise_hwc;
    }
    if (d.groups == 1 && traits::template conv2d_accepts<TIn, TW, TOut>(d, rq)) return conv_variant::im2col;
    return conv_variant::reference;
  }
}

template <kernel_family F>
constexpr std::size_t conv2d_scratch_bytes(conv_variant v, const reference::conv2d_dims& d) {
  using traits = family_traits<F>;
  switch (v) {
    case conv_variant::reference: return reference::conv2d_scratch_bytes(d);
    case conv_variant::im2col: return traits::conv2d_scratch_bytes(d);
    case conv_variant::depthwise_hwc: return traits::depthwise_hwc_scratch_bytes(d);
    case conv_variant::depthwise_chw: return traits::depthwise_chw_scratch_bytes(d);
  }
  return 0;
}

/// The scratch of any block of at most d.out_c output channels of a layer (a tile's narrower
/// last channel block included): a family whose scratch is not monotone in out_c provides the
/// optional traits::conv2d_blocks_scratch_bytes (arm_dsp: its weight cache has a budget);
/// otherwise conv2d_scratch_bytes, which then covers every narrower block.
template <kernel_family F>
constexpr std::size_t conv2d_blocks_scratch_bytes(conv_variant v, const reference::conv2d_dims& d) {
  using traits = family_traits<F>;
  if constexpr (requires { traits::conv2d_blocks_scratch_bytes(d); }) {
    if (v == conv_variant::im2col) return traits::conv2d_blocks_scratch_bytes(d);
  }
  return conv2d_scratch_bytes<F>(v, d);
}

/// Runs variant `V` of family `F` (which must be runnable here). `prepared`: the scratch holds
/// what the previous call derived from the same weights, bias and requantization over the same
/// output channels (tiles of one filter block, see tile_args::prepared); a family whose im2col
/// convolution kernel takes it may skip that work (concepts.hpp: *_keeps_prepared_scratch).
/// `ReadsPadValue`: the layer's reference::reads_pad_value, known at compile time, so that a
/// network whose padding is 0 carries none of the code a zero point's padding takes.
template <kernel_family F, conv_variant V, bool ReadsPadValue = true, class TIn, class TW, class TOut>
void conv2d(const reference::conv2d_dims& d, const TIn* in, const TW* w, const std::int32_t* bias,
            const requant_params& rq, TOut* out, void* scratch, bool prepared = false) {
  static_assert(family_available(F), "conv2d: kernel family not available in this build");
  using K = family_kernels<F>;
  if constexpr (V == conv_variant::reference) reference::conv2d(d, in, w, bias, rq, out, scratch);
  else if constexpr (V == conv_variant::im2col) {
    if constexpr (conv2d_keeps_prepared_scratch<K, TIn, TW, TOut>)
      K::template conv2d<ReadsPadValue>(d, in, w, bias, rq, out, scratch, prepared);
    else
      K::template conv2d<ReadsPadValue>(d, in, w, bias, rq, out, scratch);
  } else if constexpr (V == conv_variant::depthwise_hwc) {
    if constexpr (depthwise_hwc_keeps_prepared_scratch<K, TIn, TW, TOut>)
      K::template depthwise_hwc<ReadsPadValue>(d, in, w, bias, rq, out, scratch, prepared);
    else
      K::template depthwise_hwc<ReadsPadValue>(d, in, w, bias, rq, out, scratch);
  } else {
    if constexpr (depthwise_chw_keeps_prepared_scratch<K, TIn, TW, TOut>)
      K::template depthwise_chw<ReadsPadValue>(d, in, w, bias, rq, out, scratch, prepared);
    else
      K::template depthwise_chw<ReadsPadValue>(d, in, w, bias, rq, out, scratch);
  }
}

/// The scratch of a whole layer run by conv2d_layer: smaller where the family takes what its
/// kernel derives from the layer's constants from flash (traits' optional *_flash_scratch_bytes).
template <kernel_family F>
constexpr std::size_t conv2d_layer_scratch_bytes(conv_variant v, const reference::conv2d_dims& d) {
  using traits = family_traits<F>;
  if constexpr (requires { traits::conv2d_flash_scratch_bytes(d); }) {
    switch (v) {
      case conv_variant::reference: return reference::conv2d_scratch_bytes(d);
      case conv_variant::im2col: return traits::conv2d_flash_scratch_bytes(d);
      case conv_variant::depthwise_hwc: return traits::depthwise_hwc_flash_scratch_bytes(d);
      case conv_variant::depthwise_chw: return traits::depthwise_chw_flash_scratch_bytes(d);
    }
  }
  return conv2d_scratch_bytes<F>(v, d);
}

/// The variant of a layer whose scratch is the least, for a plan that must keep RAM to a budget
/// (planning/ram_budget.hpp): a depthwise layer whose family prefers the CHW kernel may run the
/// HWC one instead (it accepts every depthwise case the family takes), when that needs less
/// whole-layer scratch. Other layers have one variant.
template <kernel_family F>
constexpr conv_variant least_scratch_variant(conv_variant v, const reference::conv2d_dims& d) {
  if (v != conv_variant::depthwise_chw) return v;
  return conv2d_layer_scratch_bytes<F>(conv_variant::depthwise_hwc, d) < conv2d_layer_scratch_bytes<F>(v, d)
             ? conv_variant::depthwise_hwc
             : v;
}

/// Whether variant `v` of family F, run on a whole layer (conv2d_layer), may write its output
/// over its input (the same address): the family's optional `conv2d_writes_in_place(v, d)`
/// says so. The caller also checks the element sizes (they are its own): an output pixel no
/// wider than an input pixel for a convolution, the same element size for a depthwise one.
template <kernel_family F>
constexpr bool conv2d_layer_in_place(conv_variant v, const reference::conv2d_dims& d) {
  if constexpr (requires { family_traits<F>::conv2d_writes_in_place(v, d); })
    return v != conv_variant::reference && family_traits<F>::conv2d_writes_in_place(v, d);
  else return false;
}

namespace detail {
/// R's requantization as a compile-time object, without the mul/add arrays unless `Arrays`: a
/// kernel taking its table from flash reads only the scalars (shift, bounds), which would
/// otherwise be loaded from R at run time and link R's arrays too.
template <auto const& R, bool Arrays>
inline constexpr requant_params requant_scalars = [] {
  requant_params r = R.params();
  if (!Arrays) r.mul = r.add = nullptr;
  return r;
}();

/// The kernel's compile-time constants for variant V (the family's `conv2d_flash<V, ...>`), or
/// void when the family has none. (The test names a member: GCC 12 rejects `typename
/// K::template alias<...>` for an alias template whose parameters include references, even in a
/// requires-expression.) Never asked for the reference variant, which has no constants.
template <class K, conv_variant V, class TIn, class TOut, const reference::conv2d_dims& D, auto const& W, auto const& B,
          auto const& R>
constexpr auto flash_of() {
  if constexpr (V != conv_variant::reference) {
    if constexpr (requires { K::template conv2d_flash<V, TIn, TOut, D, W, B, R>::constants; })
      return std::type_identity<typename K::template conv2d_flash<V, TIn, TOut, D, W, B, R>>{};
    else return std::type_identity<void>{};
  } else {
    return std::type_identity<void>{};
  }
}
}  // namespace detail

/// A whole layer whose dims `D`, weights `W`, bias `B` and requantization `R` are template
/// arguments (the executors' whole-layer call; a tile takes `conv2d` with the DMA's copy of its
/// filters). A family whose kernels declare `conv2d_flash<V, TIn, TOut, D, W, B, R>` gets what the
/// kernel derives from those constants (epilogue tables, expanded weights) computed at compile
/// time into flash and passed as the kernel's last argument, with the scratch of
/// conv2d_layer_scratch_bytes; the weights, requantization arrays and bias the kernel then no
/// longer reads are passed as nullptr, so they are not linked. Other families run `conv2d`.
template <kernel_family F, conv_variant V, bool ReadsPadValue, const reference::conv2d_dims& D, auto const& W,
          auto const& B, auto const& R, class TIn, class TOut>
void conv2d_layer(const TIn* in, TOut* out, void* scratch) {
  using K = family_kernels<F>;
  using flash = typename decltype(detail::flash_of<K, V, TIn, TOut, D, W, B, R>())::type;
  // The plan sized this layer's scratch without what the traits say comes from flash: a kernel
  // that then built it per call would write past its scratch.
  static_assert(V == conv_variant::reference || !std::is_void_v<flash> ||
                    !requires { family_traits<F>::conv2d_flash_scratch_bytes(D); },
                "conv2d_layer: the family's traits plan flash constants its kernels do not declare");
  if constexpr (std::is_void_v<flash>) {
    conv2d<F, V, ReadsPadValue>(D, in, W.data(), B.data(), R.params(), out, scratch);
  } else {
    using TW = std::remove_cvref_t<decltype(*W.data())>;
    const TW* w = nullptr;
    if constexpr (flash::needs_weights) w = W.data();
    constexpr const requant_params& rq = detail::requant_scalars<R, flash::needs_requant>;
    const std::int32_t* bias = nullptr;
    if constexpr (flash::needs_requant) bias = B.data();
    if constexpr (V == conv_variant::im2col) K::template conv2d<ReadsPadValue>(D, in, w, bias, rq, out, scratch, flash::constants);
    else if constexpr (V == conv_variant::depthwise_hwc)
      K::template depthwise_hwc<ReadsPadValue>(D, in, w, bias, rq, out, scratch, flash::constants);
    else K::template depthwise_chw<ReadsPadValue>(D, in, w, bias, rq, out, scratch, flash::constants);
  }
}

// Gemm, MatMul, Add/Sub and pools: one family kernel or the reference. `F` below is the
// family after `choose_*` (reference when the family does not accept the case).

template <kernel_family F, class TA, class TW, class TOut>
constexpr kernel_family choose_gemm(const reference::gemm_dims& d, const requant_params& rq) {
  check_family_traits<F>();
  return families_round_like(rq) && family_traits<F>::template gemm_accepts<TA, TW, TOut>(d, rq)
             ? F
             : kernel_family::reference;
}
template <kernel_family F>
constexpr std::size_t gemm_scratch_bytes(const reference::gemm_dims& d) {
  return family_traits<F>::gemm_scratch_bytes(d);
}
template <kernel_family F, class TA, class TW, class TOut>
void gemm(const reference::gemm_dims& d, const TA* a, const TW* w, const std::int32_t* bias, const requant_params& rq,
          TOut* out, void* scratch) {
  static_assert(family_available(F), "gemm: kernel family not available in this build");
  family_kernels<F>::gemm(d, a, w, bias, rq, out, scratch);
}

/// The scratch of a whole Gemm layer run by gemm_layer (traits' optional gemm_flash_scratch_bytes).
template <kernel_family F>
constexpr std::size_t gemm_layer_scratch_bytes(const reference::gemm_dims& d) {
  if constexpr (requires { family_traits<F>::gemm_flash_scratch_bytes(d); }) return family_traits<F>::gemm_flash_scratch_bytes(d);
  else return gemm_scratch_bytes<F>(d);
}

/// A whole Gemm layer whose dims, weights, bias and requantization are template arguments, as
/// conv2d_layer: a family whose kernels declare `gemm_flash<TA, TOut, D, B, R>` takes the
/// epilogue's table from flash (the requantization arrays and bias then passed only where read).
template <kernel_family F, const reference::gemm_dims& D, auto const& W, auto const& B, auto const& R, class TA,
          class TOut>
void gemm_layer(const TA* a, TOut* out, void* scratch) {
  using K = family_kernels<F>;
  constexpr bool takes_flash = requires { K::template gemm_flash<TA, TOut, D, B, R>::constants; };
  static_assert(takes_flash || !requires { family_traits<F>::gemm_flash_scratch_bytes(D); },
                "gemm_layer: the family's traits plan flash constants its kernels do not declare");
  if constexpr (takes_flash) {
    using flash = typename K::template gemm_flash<TA, TOut, D, B, R>;
    constexpr const requant_params& rq = detail::requant_scalars<R, flash::needs_requant>;
    const std::int32_t* bias = nullptr;
    if constexpr (flash::needs_bias) bias = B.data();
    K::gemm(D, a, W.data(), bias, rq, out, scratch, flash::constants);
  } else {
    gemm<F>(D, a, W.data(), B.data(), R.params(), out, scratch);
  }
}

template <kernel_family F, class TA, class TB, class TOut>
constexpr kernel_family choose_matmul(const reference::matmul_dims& d, const requant_params& rq) {
  check_family_traits<F>();
  return families_round_like(rq) && family_traits<F>::template matmul_accepts<TA, TB, TOut>(d, rq)
             ? F
             : kernel_family::reference;
}
template <kernel_family F>
constexpr std::size_t matmul_scratch_bytes(const reference::matmul_dims& d) {
  return family_traits<F>::matmul_scratch_bytes(d);
}
template <kernel_family F, class TA, class TB, class TOut>
void matmul(const reference::matmul_dims& d, const TA* a, const TB* b, const requant_params& rq, TOut* out,
            void* scratch) {
  static_assert(family_available(F), "matmul: kernel family not available in this build");
  family_kernels<F>::matmul(d, a, b, rq, out, scratch);
}

template <kernel_family F, class TA, class TB, class TOut>
constexpr kernel_family choose_binary(reference::binary_op op, const reference::binary_dims& d,
                                      const requant_params& rq) {
  check_family_traits<F>();
  return families_round_like(rq) && family_traits<F>::template binary_accepts<TA, TB, TOut>(op, d, rq)
             ? F
             : kernel_family::reference;
}
template <kernel_family F>
constexpr std::size_t binary_scratch_bytes(const reference::binary_dims& d) {
  return family_traits<F>::binary_scratch_bytes(d);
}
template <kernel_family F, class TA, class TB, class TOut>
void binary(reference::binary_op op, const reference::binary_dims& d, const TA* a, const TB* b,
            const requant_params& rq, TOut* out, void* scratch) {
  static_assert(family_available(F), "binary: kernel family not available in this build");
  family_kernels<F>::binary(op, d, a, b, rq, out, scratch);
}

template <kernel_family F, class T>
constexpr kernel_family choose_max_pool(const reference::pool2d_dims& d) {
  check_family_traits<F>();
  return family_traits<F>::template max_pool_accepts<T>(d) ? F : kernel_family::reference;
}
template <kernel_family F, class T>
constexpr kernel_family choose_average_pool(const reference::pool2d_dims& d, bool count_include_pad) {
  check_family_traits<F>();
  return family_traits<F>::template average_pool_accepts<T>(d, count_include_pad) ? F : kernel_family::reference;
}
template <kernel_family F>
constexpr std::size_t max_pool2d_scratch_bytes(const reference::pool2d_dims& d) {
  return family_traits<F>::max_pool2d_scratch_bytes(d);
}
template <kernel_family F>
constexpr std::size_t average_pool2d_scratch_bytes(const reference::pool2d_dims& d) {
  return family_traits<F>::average_pool2d_scratch_bytes(d);
}
template <kernel_family F, class T>
void max_pool2d(const reference::pool2d_dims& d, const T* in, T* out, void* scratch) {
  static_assert(family_available(F), "max_pool2d: kernel family not available in this build");
  family_kernels<F>::max_pool2d(d, in, out, scratch);
}
template <kernel_family F, class T>
void average_pool2d(const reference::pool2d_dims& d, bool count_include_pad, const T* in, T* out, void* scratch) {
  static_assert(family_available(F), "average_pool2d: kernel family not available in this build");
  family_kernels<F>::average_pool2d(d, count_include_pad, in, out, scratch);
}

}  // namespace tessera::kernels
