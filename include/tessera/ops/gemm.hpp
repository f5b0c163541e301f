// Gemm / fully-connected node: Y[m][n] = sum_k A[m][k] * W[n][k] (+ bias[n]), optional fused
// RequantShift. Also what a MatMul with a constant right operand becomes.
//
// Tensors (physical): input {..., K} (every leading dimension is a row: M = elements / K),
// weights [N][K] (B transposed offline so that each output is one contiguous dot product),
// output {..., N}. When the input was flattened from a channels-last feature map, onnx2hpp
// has already permuted the K axis of the weights to that order.
#pragma once

#include <tessera/graph/constant.hpp>
#include <tessera/graph/node.hpp>
#include <tessera/kernels/dispatch.hpp>
#include <tessera/planning/tile_geometry.hpp>

namespace tessera::op {

struct gemm_attrs {
  tensor_id input = 0;
  tensor_id output = 0;
  int n = 0;  ///< output features
  int k = 0;  ///< input features (contracted)
};

template <fixed_name Name, gemm_attrs A, auto const& Weights, auto const& Bias = none, auto const& Requant = none>
struct gemm : unary_node<Name, op_kind::gemm, A> {
  static constexpr std::size_t constant_bytes = Weights.bytes() + Bias.bytes() + Requant.bytes();

  template <auto const& T>
  static constexpr kernels::reference::gemm_dims dims() {
    return {static_cast<int>(T[A.input].dims.elements() / A.k), A.n, A.k};
  }

  template <auto const& T>
  static constexpr check_result check() {
    const tensor_desc& in = T[A.input];
    const tensor_desc& out = T[A.output];
    if (in.dims.rank < 1) return {check_error::input_rank};
    if (in.dims.from_back(0) != A.k) return {check_error::input_shape};
    if (Weights.size() != static_cast<std::size_t>(A.n) * A.k) return {check_error::constant_size};
    if constexpr (!is_none<Bias>) {
      if (Bias.size() != static_cast<std::size_t>(A.n)) return {check_error::constant_size};
    }
    if (!output_type_fits<Requant>(out.type)) return {check_error::dtype};
    shape expected = in.dims;
    expected.dims[expected.rank - 1] = A.n;
    return tessera::detail::expect_shape(out.dims, expected);
  }

  template <auto const& T>
  using in_t = storage_t<T[A.input].type>;
  template <auto const& T>
  using out_t = storage_t<T[A.output].type>;
  using w_t = typename std::remove_cvref_t<decltype(Weights)>::value_type;

  /// The family that runs this layer: `F`, or the reference where F's traits decline it.
  template <auto const& T, kernels::kernel_family F>
  static constexpr kernels::kernel_family family = kernels::choose_gemm<F, in_t<T>, w_t, out_t<T>>(dims<T>(), Requant.params());

  template <auto const& T, kernels::kernel_family F>
  static constexpr const char* kernel_name() {
    return kernels::family_name(family<T, F>);
  }

  /// The whole layer's scratch (run() below): without what the family takes from flash.
  template <auto const& T, kernels::kernel_family F = kernels::native_family>
  static constexpr std::size_t scratch_bytes() {
    return kernels::gemm_layer_scratch_bytes<family<T, F>>(dims<T>());
  }

  /// dims<T>() once, as a reference the whole-layer kernel call takes as a template argument.
  template <auto const& T>
  static constexpr kernels::reference::gemm_dims dims_of = dims<T>();

  /// Scratch of a tile of `s.h` rows and `s.c` output features.
  template <auto const& T, kernels::kernel_family F>
  static constexpr std::size_t tile_scratch(const tile_geometry&, const tile_shape& s) {
    return kernels::gemm_scratch_bytes<family<T, F>>({s.h, s.c, A.k});
  }

  template <auto const& T>
  static constexpr std::int64_t macs() {
    constexpr auto d = dims<T>();
    return std::int64_t{d.m} * d.n * d.k;
  }

  /// A Gemm tiles as a 1x1 convolution over a {M, 1, K} map: rows of A, columns of W.
  template <auto const& T>
  static constexpr tile_geometry tile_geometry_of() {
    constexpr auto d = dims<T>();
    tile_geometry g{};
    g.kind = requant_tiles(Requant.params().length, Requant.params().inner, d.n, 1) ? tiling_kind::tiled
                                                                                    : tiling_kind::in_place;
    g.out_h = d.m, g.out_w = 1, g.out_c = d.n;
    g.in_h = d.m, g.in_w = 1, g.in_c = d.k;
    g.in_elem_bytes = static_cast<int>(size_of(T[A.input].type));
    g.out_elem_bytes = static_cast<int>(size_of(T[A.output].type));
    g.weight_bytes_per_channel = Weights.bytes() / static_cast<std::size_t>(d.n);
    g.macs_per_output = d.k;
    return g;
  }

  /// The filters, which the tiled executor moves into L1 a channel block at a time.
  static constexpr const void* filter_data() { return Weights.data(); }

  template <auto const& T, kernels::kernel_family F = kernels::native_family>
  static void run_tile(const tile_args& t) {
    constexpr auto d = dims<T>();
    const std::int32_t* bias = Bias.data() != nullptr ? Bias.data() + t.c0 : nullptr;
    kernels::gemm<family<T, kernels::runnable(F)>>({t.h, t.c, d.k}, static_cast<const in_t<T>*>(t.input[0]),
                                                   static_cast<const w_t*>(t.weights), bias,
                                                   requant_for_tile(Requant.params(), d.n, t.y0, t.c0, t.h, t.c),
                                                   static_cast<out_t<T>*>(t.output), t.scratch);
  }

  /// The whole layer: its constants are template arguments, so a family may take what its
  /// kernel derives from them from flash (kernels::gemm_layer).
  template <auto const& T, kernels::kernel_family F = kernels::native_family>
  static void run(void* const* in, void* const* out, void* scratch) {
    kernels::gemm_layer<family<T, kernels::runnable(F)>, dims_of<T>, Weights, Bias, Requant>(
        static_cast<const in_t<T>*>(in[0]), static_cast<out_t<T>*>(out[0]), scratch);
  }
};

}  // namespace tessera::op
