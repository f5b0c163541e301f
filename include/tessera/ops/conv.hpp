// Convolution node: 1D and 2D; standard, grouped and depthwise; stride, padding, dilation;
// optional bias and fused RequantShift.
//
// Tensors (physical): input {N, H, W, C} or {N, W, C} for 1D (then kernel_h == 1),
// weights [F][KH][KW][C/groups] (onnx2hpp reorders ONNX's [F][C/g][KH][KW] offline),
// output {N, Ho, Wo, F} (or {N, Wo, F}); s32 without requantization, else 8/16-bit.
#pragma once

#include <tessera/graph/constant.hpp>
#include <tessera/graph/node.hpp>
#include <tessera/kernels/dispatch.hpp>
#include <tessera/kernels/reference/analog_conv2d.hpp>
#include <tessera/core/window.hpp>
#include <tessera/planning/tile_geometry.hpp>

namespace tessera::op {

struct conv_attrs {
  tensor_id input = 0;
  tensor_id output = 0;
  int kernel_h = 1, kernel_w = 1;
  int stride_h = 1, stride_w = 1;
  int dilation_h = 1, dilation_w = 1;
  int pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  int groups = 1;
  /// The stored value the padding reads: the input's zero point (the true value 0), which
  /// onnx2hpp writes for an asymmetric input; each kernel family pads with it in place.
  std::int32_t pad_value = 0;
  /// Every weight is -1, 0 or 1 (checked against the weights): an analog engine whose rules
  /// ask for ternary weights may run the layer (target/engine.hpp). onnx2hpp sets it.
  bool ternary_weights = false;
};

namespace detail {
/// Views a 1D {N, W, C} or 2D {N, H, W, C} feature map as {N, H, W, C}.
constexpr std::array<int, 4> as_nhwc(const shape& s) {
  if (s.rank == 3) return {s[0], 1, s[1], s[2]};
  return {s[0], s[1], s[2], s[3]};
}
constexpr shape nhwc_like(const shape& like, int n, int h, int w, int c) {
  if (like.rank == 3) return shape{n, w, c};
  return shape{n, h, w, c};
}
}  // namespace detail

template <fixed_name Name, conv_attrs A, auto const& Weights, auto const& Bias = none, auto const& Requant = none>
struct conv : unary_node<Name, op_kind::conv, A> {
  static constexpr std::size_t constant_bytes = Weights.bytes() + Bias.bytes() + Requant.bytes();

  template <auto const& T>
  static constexpr kernels::reference::conv2d_dims dims() {
    const auto in = detail::as_nhwc(T[A.input].dims);
    const auto out = detail::as_nhwc(T[A.output].dims);
    return {in[0], in[1], in[2], in[3], out[1], out[2], out[3], A.kernel_h, A.kernel_w, A.stride_h, A.stride_w,
            A.dilation_h, A.dilation_w, A.pad_top, A.pad_left, A.groups, A.pad_value};
  }

  template <auto const& T>
  static constexpr check_result check() {
    const tensor_desc& in = T[A.input];
    const tensor_desc& out = T[A.output];
    if (in.dims.rank != 4 && in.dims.rank != 3) return {check_error::input_rank};
    if (in.dims.rank == 3 && A.kernel_h != 1) return {check_error::input_rank};
    const auto x = detail::as_nhwc(in.dims);
    const int f = out.dims.from_back(0);
    if (A.groups < 1 || x[3] % A.groups != 0 || f % A.groups != 0) return {check_error::input_shape};
    if (Weights.size() != static_cast<std::size_t>(f) * A.kernel_h * A.kernel_w * (x[3] / A.groups))
      return {check_error::constant_size};
    if constexpr (!is_none<Bias>) {
      if (Bias.size() != static_cast<std::size_t>(f)) return {check_error::constant_size};
    }
    if (!output_type_fits<Requant>(out.type)) return {check_error::dtype};
    if (A.pad_value < min_of(in.type) || A.pad_value > max_of(in.type)) return {check_error::dtype};
    if (A.ternary_weights)
      for (std::size_t i = 0; i < Weights.size(); ++i)
        if (Weights.data()[i] < -1 || Weights.data()[i] > 1) return {check_error::constant_value};
    const int ho = window::output_extent(x[1], A.pad_top, A.pad_bottom, A.kernel_h, A.stride_h, A.dilation_h);
    const int wo = window::output_extent(x[2], A.pad_left, A.pad_right, A.kernel_w, A.stride_w, A.dilation_w);
    return tessera::detail::expect_shape(out.dims, detail::nhwc_like(in.dims, x[0], ho, wo, f));
  }

  template <auto const& T>
  using in_t = storage_t<T[A.input].type>;
  template <auto const& T>
  using out_t = storage_t<T[A.output].type>;
  using w_t = typename std::remove_cvref_t<decltype(Weights)>::value_type;

  /// The kernel family `F` runs this layer with (chosen once per layer, used by every tile).
  template <auto const& T, kernels::kernel_family F>
  static constexpr kernels::conv_variant variant = kernels::choose_conv2d<F, in_t<T>, w_t, out_t<T>>(dims<T>(), Requant.params());

  template <auto const& T, kernels::kernel_family F>
  static constexpr const char* kernel_name() {
    return kernels::variant_name(variant<T, F>);
  }

  /// The whole layer's scratch (run() below): without what the family takes from flash.
  template <auto const& T, kernels::kernel_family F = kernels::native_family>
  static constexpr std::size_t scratch_bytes() {
    return kernels::conv2d_layer_scratch_bytes<F>(variant<T, F>, dims<T>());
  }

  /// The variant with the least scratch (run_lean() below), which a plan within a RAM budget
  /// may choose instead (planning/ram_budget.hpp), and its scratch.
  template <auto const& T, kernels::kernel_family F>
  static constexpr kernels::conv_variant lean_variant = kernels::least_scratch_variant<F>(variant<T, F>, dims<T>());
  template <auto const& T, kernels::kernel_family F = kernels::native_family>
  static constexpr std::size_t lean_scratch_bytes() {
    return kernels::conv2d_layer_scratch_bytes<F>(lean_variant<T, F>, dims_of<T>);
  }

  /// Whether the whole-layer kernel of `F` (its own variant, run(); a plan never runs
  /// run_lean() in place) may write the output over the input: the family's kernel says it
  /// reads before it writes, and the bytes it writes are ones it has read: an output pixel no
  /// wider than an input pixel, or for a depthwise layer, whose kernels store a channel at a
  /// time, elements of one size.
  template <auto const& T, kernels::kernel_family F>
  static constexpr bool writes_in_place() {
    const auto& d = dims_of<T>;
    if (!kernels::conv2d_layer_in_place<F>(variant<T, F>, d)) return false;
    if (is_depthwise<T>) return sizeof(out_t<T>) == sizeof(in_t<T>);
    return std::int64_t{d.out_c} * std::int64_t{sizeof(out_t<T>)} <= std::int64_t{d.in_c} * std::int64_t{sizeof(in_t<T>)};
  }

  /// Scratch of one output tile (for the tile solver): the layer's kernel on the tile's shape,
  /// with the layer's padding (a border tile has at most that much; inner tiles have none), and
  /// when the channels split into blocks, on every narrower block (the last one).
  template <auto const& T, kernels::kernel_family F>
  static constexpr std::size_t tile_scratch(const tile_geometry& g, const tile_shape& s) {
    const auto padded = tile_dims<T>(g.input_rows(s.h), g.input_cols(s.w), s.h, s.w, s.c, A.pad_top, A.pad_left);
    const auto unpadded = tile_dims<T>(g.input_rows(s.h), g.input_cols(s.w), s.h, s.w, s.c);
    const auto scratch = [&](const kernels::reference::conv2d_dims& d) {
      return s.c < g.out_c ? kernels::conv2d_blocks_scratch_bytes<F>(variant<T, F>, d)
                           : kernels::conv2d_scratch_bytes<F>(variant<T, F>, d);
    };
    const std::size_t a = scratch(padded), b = scratch(unpadded);
    return a > b ? a : b;
  }

  /// The dims of one tile: `rows` x `cols` input pixels (padding excluded) to `h` x `w` x `c` outputs.
  template <auto const& T>
  static constexpr kernels::reference::conv2d_dims tile_dims(int rows, int cols, int h, int w, int c, int pad_top = 0,
                                                             int pad_left = 0) {
    const auto& d = dims_of<T>;
    const bool dw = is_depthwise<T>;
    return {1, rows, cols, dw ? c : d.in_c, h, w, c, A.kernel_h, A.kernel_w, A.stride_h, A.stride_w,
            A.dilation_h, A.dilation_w, pad_top, pad_left, dw ? c : A.groups, A.pad_value};
  }

  template <auto const& T>
  static constexpr std::int64_t macs() {
    constexpr auto d = dims<T>();
    return std::int64_t{d.batch} * d.out_h * d.out_w * d.out_c * d.kernel_h * d.kernel_w * (d.in_c / d.groups);
  }

  /// Depthwise with channel multiplier 1: input channels follow the output channel tile.
  template <auto const& T>
  static constexpr bool depthwise() {
    constexpr auto d = dims<T>();
    return A.groups > 1 && A.groups == d.in_c && d.out_c == d.in_c;
  }

  /// dims<T>() and depthwise<T>() evaluated once: the planner's scratch functions read them
  /// for every tile the solver tries (a constexpr local would be evaluated again each call).
  template <auto const& T>
  static constexpr kernels::reference::conv2d_dims dims_of = dims<T>();
  template <auto const& T>
  static constexpr bool is_depthwise = depthwise<T>();
  /// Whether some window reads a nonzero pad value: the kernels instantiate padding with the
  /// pad value only then (every tile reads a part of the layer's padding at most).
  template <auto const& T>
  static constexpr bool reads_pad_value = kernels::reference::reads_pad_value(dims_of<T>);

  template <auto const& T>
  static constexpr tile_geometry tile_geometry_of() {
    constexpr auto d = dims<T>();
    tile_geometry g{};
    g.kind = requant_tiles(Requant.params().length, Requant.params().inner, d.out_c, d.out_w) ? tiling_kind::tiled
                                                                                               : tiling_kind::in_place;
    g.batch = d.batch;
    g.out_h = d.out_h, g.out_w = d.out_w, g.out_c = d.out_c;
    g.in_h = d.in_h, g.in_w = d.in_w, g.in_c = d.in_c;
    g.channel_lockstep = depthwise<T>();
    g.channel_step = (A.groups == 1 || depthwise<T>()) ? 1 : d.out_c;  // grouped: no channel tiles
    g.kernel_h = A.kernel_h, g.kernel_w = A.kernel_w, g.stride_h = A.stride_h, g.stride_w = A.stride_w;
    g.dilation_h = A.dilation_h, g.dilation_w = A.dilation_w;
    g.pad_top = A.pad_top, g.pad_left = A.pad_left, g.pad_bottom = A.pad_bottom, g.pad_right = A.pad_right;
    g.pad_value = reads_pad_value<T> ? A.pad_value : 0;
    g.in_elem_bytes = static_cast<int>(size_of(T[A.input].type));
    g.out_elem_bytes = static_cast<int>(size_of(T[A.output].type));
    g.weight_bytes_per_channel = Weights.bytes() / static_cast<std::size_t>(d.out_c);
    g.macs_per_output = std::int64_t{A.kernel_h} * A.kernel_w * (d.in_c / A.groups);
    return g;
  }

  /// One output tile from L1 buffers (bias and requantization are read in place).
  /// The filters, which the tiled executor moves into L1 a channel block at a time.
  static constexpr const void* filter_data() { return Weights.data(); }

  template <auto const& T, kernels::kernel_family F = kernels::native_family>
  static void run_tile(const tile_args& t) {
    constexpr auto run_family = kernels::runnable(F);
    constexpr auto d = dims<T>();
    const auto td = tile_dims<T>(t.in_rows, t.in_cols, t.h, t.w, t.c, t.pad_top, t.pad_left);
    const std::int32_t* bias = Bias.data() != nullptr ? Bias.data() + t.c0 : nullptr;
    kernels::conv2d<run_family, variant<T, run_family>, reads_pad_value<T>>(
        td, static_cast<const in_t<T>*>(t.input[0]), static_cast<const w_t*>(t.weights), bias,
        requant_for_tile(Requant.params(), d.out_c, t.y0, t.c0, t.h, t.c), static_cast<out_t<T>*>(t.output), t.scratch,
        t.prepared);
  }

  static constexpr bool ternary_weights = A.ternary_weights;

  /// One output tile with an analog engine's numerics (kernels/reference/analog_conv2d.hpp),
  /// as the host model of that engine computes it.
  template <auto const& T>
  static void run_tile_analog(const tile_args& t, const kernels::reference::analog_numerics& numerics) {
    constexpr auto d = dims<T>();
    const auto td = tile_dims<T>(t.in_rows, t.in_cols, t.h, t.w, t.c, t.pad_top, t.pad_left);
    const std::int32_t* bias = Bias.data() != nullptr ? Bias.data() + t.c0 : nullptr;
    kernels::reference::conv2d_analog(td, static_cast<const in_t<T>*>(t.input[0]), static_cast<const w_t*>(t.weights),
                                      bias, requant_for_tile(Requant.params(), d.out_c, t.y0, t.c0, t.h, t.c),
                                      static_cast<out_t<T>*>(t.output), numerics);
  }

  /// The whole layer: its constants are template arguments, so a family may take what its
  /// kernel derives from them from flash (kernels::conv2d_layer).
  template <auto const& T, kernels::kernel_family F = kernels::native_family>
  static void run(void* const* in, void* const* out, void* scratch) {
    constexpr auto run_family = kernels::runnable(F);
    kernels::conv2d_layer<run_family, variant<T, run_family>, reads_pad_value<T>, dims_of<T>, Weights, Bias, Requant>(
        static_cast<const in_t<T>*>(in[0]), static_cast<out_t<T>*>(out[0]), scratch);
  }
  /// The whole layer with its least-scratch variant (lean_scratch_bytes() of scratch).
  template <auto const& T, kernels::kernel_family F = kernels::native_family>
  static void run_lean(void* const* in, void* const* out, void* scratch) {
    constexpr auto run_family = kernels::runnable(F);
    kernels::conv2d_layer<run_family, lean_variant<T, run_family>, reads_pad_value<T>, dims_of<T>, Weights, Bias,
                          Requant>(static_cast<const in_t<T>*>(in[0]), static_cast<out_t<T>*>(out[0]), scratch);
  }
};

}  // namespace tessera::op
