// Traits of every kernel family, on every host: what each family's kernels take, compute at
// once and need as scratch. The tile solver and the planners read these (a plan for a
// Cortex-M target made on x86 uses the Cortex-M family's micro-tile and scratch sizes).
//
// A family specializes `family_traits<F>` in <family>/traits.hpp:
//
//   conv_tile, depthwise_tile, gemm_tile          micro_tile: channels x pixels per inner step
//   conv2d_accepts<TIn,TW,TOut>(dims, rq)         groups == 1 convolutions it runs
//   conv2d_scratch_bytes(dims)
//   depthwise_accepts<TIn,TW,TOut>(dims, rq)      groups == in_c == out_c
//   depthwise_hwc_scratch_bytes(dims), depthwise_chw_scratch_bytes(dims)
//   depthwise_prefers_chw(dims)                   which of the two variants is faster here
//   gemm_accepts<TA,TW,TOut>(dims, rq), gemm_scratch_bytes(dims)
//   matmul_accepts<TA,TB,TOut>(dims, rq), matmul_scratch_bytes(dims)
//   binary_accepts<TA,TB,TOut>(op, dims, rq), binary_scratch_bytes(dims)
//                                                 (families implement reference::is_plain_add_sub
//                                                 cases only: mul and input offsets run the reference)
//   max_pool_accepts<T>(dims), average_pool_accepts<T>(dims, count_include_pad),
//   max_pool2d_scratch_bytes(dims), average_pool2d_scratch_bytes(dims)
//
// and `family_kernels<F>` (same names as the reference kernels, same signatures) in
// <family>/kernels.hpp, which needs the architecture. `dispatch.hpp` ties the two together.
#pragma once

#include <tessera/kernels/arm_dsp/traits.hpp>
#include <tessera/kernels/arm_mve/traits.hpp>
#include <tessera/kernels/reference/traits.hpp>
#include <tessera/kernels/rv32/traits.hpp>
#include <tessera/kernels/rvv/traits.hpp>
#include <tessera/kernels/x86/traits.hpp>
