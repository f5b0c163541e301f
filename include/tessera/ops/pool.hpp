// MaxPool and AveragePool (GlobalAveragePool is an AveragePool over the whole map) on
// channels-last feature maps, 1D {N, W, C} or 2D {N, H, W, C}. Output keeps the input type.
#pragma once

#include <tessera/graph/node.hpp>
#include <tessera/kernels/dispatch.hpp>
#include <tessera/planning/tile_geometry.hpp>
#include <tessera/ops/conv.hpp>

namespace tessera::op {

struct pool_attrs {
  tensor_id input = 0;
  tensor_id output = 0;
  int kernel_h = 1, kernel_w = 1;
  int stride_h = 1, stride_w = 1;
  int pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  bool count_include_pad = false;  ///< AveragePool only (ONNX attribute of the same name)
};

template <bool Max, fixed_name Name, pool_attrs A>
struct pool_node : unary_node<Name, Max ? op_kind::max_pool : op_kind::average_pool, A> {
  template <auto const& T>
  static constexpr kernels::reference::pool2d_dims dims() {
    const auto in = detail::as_nhwc(T[A.input].dims);
    const auto out = detail::as_nhwc(T[A.output].dims);
    return {in[0], in[1], in[2], in[3], out[1], out[2], A.kernel_h, A.kernel_w, A.stride_h, A.stride_w,
            A.pad_top, A.pad_left, A.pad_bottom, A.pad_right};
  }

  template <auto const& T>
  static constexpr check_result check() {
    const tensor_desc& in = T[A.input];
    const tensor_desc& out = T[A.output];
    if (in.dims.rank != 4 && in.dims.rank != 3) return {check_error::input_rank};
    if (in.dims.rank == 3 && A.kernel_h != 1) return {check_error::input_rank};
    if (in.type != out.type) return {check_error::dtype};
    const auto x = detail::as_nhwc(in.dims);
    const int ho = window::output_extent(x[1], A.pad_top, A.pad_bottom, A.kernel_h, A.stride_h, 1);
    const int wo = window::output_extent(x[2], A.pad_left, A.pad_right, A.kernel_w, A.stride_w, 1);
    return tessera::detail::expect_shape(out.dims, detail::nhwc_like(in.dims, x[0], ho, wo, x[3]));
  }

  template <auto const& T>
  using value_t = storage_t<T[A.input].type>;

  /// The family that runs this layer: `F`, or the reference where F's traits decline it.
  template <auto const& T, kernels::kernel_family F>
  static constexpr kernels::kernel_family family = Max ? kernels::choose_max_pool<F, value_t<T>>(dims<T>())
                                                       : kernels::choose_average_pool<F, value_t<T>>(dims<T>(), A.count_include_pad);

  template <auto const& T, kernels::kernel_family F>
  static constexpr std::size_t scratch_for(const kernels::reference::pool2d_dims& d) {
    if constexpr (Max) return kernels::max_pool2d_scratch_bytes<family<T, F>>(d);
    else return kernels::average_pool2d_scratch_bytes<family<T, F>>(d);
  }

  template <auto const& T, kernels::kernel_family F>
  static constexpr const char* kernel_name() {
    return kernels::family_name(family<T, F>);
  }

  template <auto const& T, kernels::kernel_family F = kernels::native_family>
  static constexpr std::size_t scratch_bytes() {
    return scratch_for<T, F>(dims<T>());
  }

  /// Scratch of one output tile (padding counted on every side: an upper bound for the border tiles).
  template <auto const& T, kernels::kernel_family F>
  static constexpr std::size_t tile_scratch(const tile_geometry& g, const tile_shape& s) {
    return scratch_for<T, F>({1, g.input_rows(s.h), g.input_cols(s.w), s.c, s.h, s.w, A.kernel_h, A.kernel_w,
                              A.stride_h, A.stride_w, A.pad_top, A.pad_left, A.pad_bottom, A.pad_right});
  }

  template <auto const& T>
  static constexpr tile_geometry tile_geometry_of() {
    constexpr auto d = dims<T>();
    tile_geometry g{};
    g.kind = tiling_kind::tiled;
    g.batch = d.batch;
    g.out_h = d.out_h, g.out_w = d.out_w, g.out_c = d.channels;
    g.in_h = d.in_h, g.in_w = d.in_w, g.in_c = d.channels;
    g.channel_lockstep = true;
    g.kernel_h = A.kernel_h, g.kernel_w = A.kernel_w, g.stride_h = A.stride_h, g.stride_w = A.stride_w;
    g.pad_top = A.pad_top, g.pad_left = A.pad_left, g.pad_bottom = A.pad_bottom, g.pad_right = A.pad_right;
    g.in_elem_bytes = g.out_elem_bytes = static_cast<int>(size_of(T[A.input].type));
    g.macs_per_output = std::int64_t{A.kernel_h} * A.kernel_w;
    return g;
  }

  template <auto const& T, kernels::kernel_family F = kernels::native_family>
  static void run_tile(const tile_args& t) {
    const kernels::reference::pool2d_dims td{1,           t.in_rows,   t.in_cols,  t.c,        t.h,
                                             t.w,         A.kernel_h,  A.kernel_w, A.stride_h, A.stride_w,
                                             t.pad_top,   t.pad_left,  t.pad_bottom, t.pad_right};
    pool<T, F>(td, t.input[0], t.output, t.scratch);
  }

  template <auto const& T, kernels::kernel_family F = kernels::native_family>
  static void run(void* const* in, void* const* out, void* scratch) {
    static constexpr auto d = dims<T>();
    pool<T, F>(d, in[0], out[0], scratch);
  }

 private:
  template <auto const& T, kernels::kernel_family F>
  static void pool(const kernels::reference::pool2d_dims& d, const void* in, void* out, void* scratch) {
    constexpr auto run_family = family<T, kernels::runnable(F)>;
    const auto* x = static_cast<const value_t<T>*>(in);
    auto* y = static_cast<value_t<T>*>(out);
    if constexpr (Max) kernels::max_pool2d<run_family>(d, x, y, scratch);
    else kernels::average_pool2d<run_family>(d, A.count_include_pad, x, y, scratch);
  }
};

template <fixed_name Name, pool_attrs A>
using max_pool = pool_node<true, Name, A>;
template <fixed_name Name, pool_attrs A>
using average_pool = pool_node<false, Name, A>;

}  // namespace tessera::op
