// What a kernel family must provide, as concepts with readable failures.
//
// A family is two specializations: `family_traits<F>` (plain constexpr data that compiles on every
// host: micro-tiles, which cases each kernel takes, scratch sizes) and `family_kernels<F>` (the
// kernels, only where the instruction set is available). Each family's headers check their own
// specializations against these concepts, so a new family that forgets a member fails at its
// own header with the name of the missing requirement, not deep inside an op.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>

#include <tessera/core/requant.hpp>
#include <tessera/kernels/common/micro_tile.hpp>

namespace tessera::kernels {

/// The traits every family declares (checked with 8-bit types; the members are templates over
/// the element types).
template <class T>
concept family_traits_complete =
    requires(const reference::conv2d_dims& conv, const reference::gemm_dims& gemm, const reference::matmul_dims& mm,
             const reference::binary_dims& bin, const reference::pool2d_dims& pool, const requant_params& rq) {
      { T::conv_tile } -> std::convertible_to<micro_tile>;
      { T::depthwise_tile } -> std::convertible_to<micro_tile>;
      { T::gemm_tile } -> std::convertible_to<micro_tile>;
      { T::template conv2d_accepts<std::int8_t, std::int8_t, std::int8_t>(conv, rq) } -> std::same_as<bool>;
      { T::conv2d_scratch_bytes(conv) } -> std::convertible_to<std::size_t>;
      { T::template depthwise_accepts<std::int8_t, std::int8_t, std::int8_t>(conv, rq) } -> std::same_as<bool>;
      { T::depthwise_hwc_scratch_bytes(conv) } -> std::convertible_to<std::size_t>;
      { T::depthwise_chw_scratch_bytes(conv) } -> std::convertible_to<std::size_t>;
      { T::depthwise_prefers_chw(conv) } -> std::same_as<bool>;
      { T::template gemm_accepts<std::int8_t, std::int8_t, std::int8_t>(gemm, rq) } -> std::same_as<bool>;
      { T::gemm_scratch_bytes(gemm) } -> std::convertible_to<std::size_t>;
      { T::template matmul_accepts<std::int8_t, std::int8_t, std::int8_t>(mm, rq) } -> std::same_as<bool>;
      { T::matmul_scratch_bytes(mm) } -> std::convertible_to<std::size_t>;
      {
        T::template binary_accepts<std::int8_t, std::int8_t, std::int8_t>(reference::binary_op::add, bin, rq)
      } -> std::same_as<bool>;
      { T::binary_scratch_bytes(bin) } -> std::convertible_to<std::size_t>;
      { T::template max_pool_accepts<std::int8_t>(pool) } -> std::same_as<bool>;
      { T::template average_pool_accepts<std::int8_t>(pool, true) } -> std::same_as<bool>;
      { T::max_pool2d_scratch_bytes(pool) } -> std::convertible_to<std::size_t>;
      { T::average_pool2d_scratch_bytes(pool) } -> std::convertible_to<std::size_t>;
    };

/// The kernels a runnable family implements, with the reference kernels' names and signatures
/// (checked for int8 activations, weights and outputs).
///
/// The three convolution kernels take a leading `bool ReadsPadValue` (default true): false
/// promises that no call reads a nonzero pad value (reference::reads_pad_value(d) is false:
/// the layer's padding is 0 or no window reaches it), so the kernel need not instantiate what
/// padding with a zero point costs. The ops pass the layer's property, the same for every tile
/// (a tile reads a part of the layer's padding at most); a family may ignore it.
template <class K>
concept family_kernels_complete =
    requires(const reference::conv2d_dims& conv, const reference::gemm_dims& gemm, const reference::matmul_dims& mm,
             const reference::binary_dims& bin, const reference::pool2d_dims& pool, const requant_params& rq,
             const std::int8_t* in, const std::int32_t* bias, std::int8_t* out, void* scratch) {
      K::conv2d(conv, in, in, bias, rq, out, scratch);
      K::depthwise_hwc(conv, in, in, bias, rq, out, scratch);
      K::depthwise_chw(conv, in, in, bias, rq, out, scratch);
      K::template conv2d<false>(conv, in, in, bias, rq, out, scratch);
      K::template depthwise_hwc<false>(conv, in, in, bias, rq, out, scratch);
      K::template depthwise_chw<false>(conv, in, in, bias, rq, out, scratch);
      K::gemm(gemm, in, in, bias, rq, out, scratch);
      K::matmul(mm, in, in, rq, out, scratch);
      K::binary(reference::binary_op::add, bin, in, in, rq, out, scratch);
      K::max_pool2d(pool, in, out, scratch);
      K::average_pool2d(pool, true, in, out, scratch);
    };

/// Optional, per convolution kernel: one that can keep what it derives from the weights, bias
/// and requantization in its scratch across calls (the tiles of one filter block) takes the
/// same arguments and a last `bool prepared` (kernels::conv2d passes it on; others never see it).
template <class K, class TIn, class TW, class TOut>
concept conv2d_keeps_prepared_scratch =
    requires(const reference::conv2d_dims& conv, const requant_params& rq, const TIn* in, const TW* w,
             const std::int32_t* bias, TOut* out, void* scratch) { K::conv2d(conv, in, w, bias, rq, out, scratch, true); };
template <class K, class TIn, class TW, class TOut>
concept depthwise_hwc_keeps_prepared_scratch =
    requires(const reference::conv2d_dims& conv, const requant_params& rq, const TIn* in, const TW* w,
             const std::int32_t* bias, TOut* out, void* scratch) {
      K::depthwise_hwc(conv, in, w, bias, rq, out, scratch, true);
    };
template <class K, class TIn, class TW, class TOut>
concept depthwise_chw_keeps_prepared_scratch =
    requires(const reference::conv2d_dims& conv, const requant_params& rq, const TIn* in, const TW* w,
             const std::int32_t* bias, TOut* out, void* scratch) {
      K::depthwise_chw(conv, in, w, bias, rq, out, scratch, true);
    };

}  // namespace tessera::kernels
