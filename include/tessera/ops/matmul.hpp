// MatMul node over two run-time tensors (batched, numpy broadcasting of the batch dims),
// optional fused RequantShift. A MatMul with a constant right operand is a `gemm` instead.
//
// Tensors: a {batch..., M, K}, b {batch..., K, N}, output {batch..., M, N}; the ranks may
// differ (missing leading batch dims broadcast), at most 3 batch dims.
#pragma once

#include <tessera/graph/constant.hpp>
#include <tessera/graph/node.hpp>
#include <tessera/kernels/dispatch.hpp>
#include <tessera/planning/tile_geometry.hpp>

namespace tessera::op {

struct matmul_attrs {
  tensor_id a = 0;
  tensor_id b = 0;
  tensor_id output = 0;
  /// b is {batch..., N, K}: a Transpose of its last two axes folded into the MatMul.
  bool b_transposed = false;
};

namespace detail {
/// Output batch dims and per-operand batch strides (0 where an operand broadcasts). `a`, `b`:
/// the extents the product runs over; `a_stored`, `b_stored`: the shapes the operands are laid
/// out in, which differ from them only for a state tensor read at a shorter length than its
/// capacity (its batch strides are the capacity's).
constexpr kernels::reference::matmul_dims matmul_dims_of(const shape& a, const shape& b, bool b_transposed,
                                                         const shape& a_stored, const shape& b_stored) {
  kernels::reference::matmul_dims d{};
  d.m = a.from_back(1);
  d.k = a.from_back(0);
  d.n = b_transposed ? b.from_back(1) : b.from_back(0);
  d.b_transposed = b_transposed;
  const int batch_rank = (a.rank > b.rank ? a.rank : b.rank) - 2;
  d.batch_rank = batch_rank;
  std::int64_t a_stride = std::int64_t{a_stored.from_back(1)} * a_stored.from_back(0);
  std::int64_t b_stride = std::int64_t{b_stored.from_back(1)} * b_stored.from_back(0);
  for (int i = batch_rank - 1; i >= 0; --i) {  // i counts batch dims outermost-first
    const int from_back = batch_rank - 1 - i + 2;
    const int da = a.from_back(from_back);
    const int db = b.from_back(from_back);
    d.batch[static_cast<std::size_t>(i)] = da > db ? da : db;
    d.a_stride[static_cast<std::size_t>(i)] = da == 1 ? 0 : a_stride;
    d.b_stride[static_cast<std::size_t>(i)] = db == 1 ? 0 : b_stride;
    a_stride *= a_stored.from_back(from_back);
    b_stride *= b_stored.from_back(from_back);
  }
  return d;
}
constexpr kernels::reference::matmul_dims matmul_dims_of(const shape& a, const shape& b, bool b_transposed = false) {
  return matmul_dims_of(a, b, b_transposed, a, b);
}

/// Where the output's sequence axis must be, given the operands' (-1: none; -2: they disagree,
/// or the sequence is contracted on one operand only).
constexpr int matmul_sequence_axis(const tensor_desc& a, const tensor_desc& b, bool b_transposed, int out_rank) {
  const int b_k = b.dims.rank - (b_transposed ? 1 : 2), b_n = b.dims.rank - (b_transposed ? 2 : 1);
  const bool a_contracted = a.sequence_axis == a.dims.rank - 1, b_contracted = b.sequence_axis == b_k;
  if (a_contracted != b_contracted) return -2;
  if (a_contracted) return -1;
  // `free_axis` (a's rows, b's columns) becomes the output's `out_axis`; batch axes align from the back.
  const auto axis_of = [&](const tensor_desc& t, int free_axis, int out_axis) {
    if (t.sequence_axis < 0) return -1;
    if (t.sequence_axis == free_axis) return out_axis;
    return t.sequence_axis - t.dims.rank + out_rank;
  };
  const int from_a = axis_of(a, a.dims.rank - 2, out_rank - 2), from_b = axis_of(b, b_n, out_rank - 1);
  if (from_a >= 0 && from_b >= 0 && from_a != from_b) return -2;
  return from_a >= 0 ? from_a : from_b;
}
}  // namespace detail

template <fixed_name Name, matmul_attrs A, auto const& Requant = none>
struct matmul {
  static constexpr fixed_name name = Name;
  static constexpr op_kind kind = op_kind::matmul;
  static constexpr matmul_attrs attrs = A;
  static constexpr std::array<tensor_id, 2> inputs{A.a, A.b};
  static constexpr std::array<tensor_id, 1> outputs{A.output};
  static constexpr bool is_alias = false;
  static constexpr std::size_t constant_bytes = Requant.bytes();

  template <auto const& T>
  static constexpr kernels::reference::matmul_dims dims() {
    return detail::matmul_dims_of(T[A.a].dims, T[A.b].dims, A.b_transposed);
  }
  /// The product over the first `length` positions of the sequence tensors (a state operand
  /// keeps its capacity's strides; the others are stored compactly).
  template <auto const& T>
  static constexpr kernels::reference::matmul_dims dims_at(int length) {
    const shape a = live_dims(T[A.a], length), b = live_dims(T[A.b], length);
    return detail::matmul_dims_of(a, b, A.b_transposed, T[A.a].state ? T[A.a].dims : a,
                                  T[A.b].state ? T[A.b].dims : b);
  }

  template <auto const& T>
  static constexpr check_result check() {
    const shape& a = T[A.a].dims;
    const shape& b = T[A.b].dims;
    const tensor_desc& out = T[A.output];
    if (a.rank < 2 || b.rank < 2 || a.rank > 5 || b.rank > 5) return {check_error::input_rank};
    if (a.from_back(0) != b.from_back(A.b_transposed ? 0 : 1)) return {check_error::input_shape};
    // A state operand is read at its capacity's strides, which the kernel allows between
    // matrices only: its sequence axis cannot be a matrix's last (contiguous) axis.
    for (const tensor_desc* t : {&T[A.a], &T[A.b]})
      if (t->state && t->sequence_axis == t->dims.rank - 1) return {check_error::sequence};
    const int rank = a.rank > b.rank ? a.rank : b.rank;
    shape expected;
    expected.rank = rank;
    for (int i = 2; i < rank; ++i) {
      const int da = a.from_back(i), db = b.from_back(i);
      if (da != db && da != 1 && db != 1) return {check_error::input_shape};
      expected.dims[static_cast<std::size_t>(rank - 1 - i)] = da > db ? da : db;
    }
    expected.dims[static_cast<std::size_t>(rank - 2)] = a.from_back(1);
    expected.dims[static_cast<std::size_t>(rank - 1)] = A.b_transposed ? b.from_back(1) : b.from_back(0);
    if (!output_type_fits<Requant>(out.type)) return {check_error::dtype};
    if (detail::matmul_sequence_axis(T[A.a], T[A.b], A.b_transposed, rank) != out.sequence_axis || out.state ||
        !tessera::detail::requant_fits_sequence(Requant.params(), out))
      return {check_error::sequence};
    return tessera::detail::expect_shape(out.dims, expected);
  }

  template <auto const& T>
  using a_t = storage_t<T[A.a].type>;
  template <auto const& T>
  using b_t = storage_t<T[A.b].type>;
  template <auto const& T>
  using out_t = storage_t<T[A.output].type>;

  /// The family that runs this layer: `F`, or the reference where F's traits decline it.
  template <auto const& T, kernels::kernel_family F>
  static constexpr kernels::kernel_family family =
      kernels::choose_matmul<F, a_t<T>, b_t<T>, out_t<T>>(dims<T>(), Requant.params());

  template <auto const& T, kernels::kernel_family F>
  static constexpr const char* kernel_name() {
    return kernels::family_name(family<T, F>);
  }

  template <auto const& T, kernels::kernel_family F = kernels::native_family>
  static constexpr std::size_t scratch_bytes() {
    return kernels::matmul_scratch_bytes<family<T, F>>(dims<T>());
  }

  template <auto const& T>
  static constexpr std::int64_t macs() {
    return T[A.output].dims.elements() * T[A.a].dims.from_back(0);
  }

  /// Whether the product tiles through L1: each image (every batch index) reads its own A and B
  /// matrices (no broadcast batch dimension) and the requantization is per tensor or per output
  /// column. Over a run-time length (tiles_at_length) the network's summary keeps the tiling
  /// where the length is a product's N or K (a head's keys or values), not its rows.
  template <auto const& T>
  static constexpr bool tiles() {
    constexpr auto d = dims<T>();
    const tensor_desc &a = T[A.a], &b = T[A.b];
    if (a.dims.rank != b.dims.rank) return false;
    for (std::size_t i = 0; i < static_cast<std::size_t>(d.batch_rank); ++i)  // a stride of 0: broadcast
      if (d.batch[i] > 1 && (d.a_stride[i] == 0 || d.b_stride[i] == 0)) return false;
    const requant_params rq = Requant.params();
    return !rq.enabled || rq.length == 1 || (rq.inner == 1 && rq.length == d.n);
  }

  /// The product of each image tiles as a Gemm over rows of A ({M, 1, K} map, the images as
  /// the batch) whose weights are the image's B, read whole by each tile (heads of attention:
  /// one head's queries against its keys). Output columns are not split: a block of columns of
  /// a [K][N] B would be a strided copy per row, and N is a sequence length or a head width.
  template <auto const& T>
  static constexpr tile_geometry tile_geometry_of() {
    constexpr auto d = dims<T>();
    tile_geometry g{};
    g.kind = tiles<T>() ? tiling_kind::tiled : tiling_kind::in_place;
    g.batch = static_cast<int>(T[A.output].dims.elements() / (std::int64_t{d.m} * d.n));
    g.out_h = g.in_h = d.m;
    g.out_c = g.channel_step = d.n;
    g.in_c = d.k;
    g.in_elem_bytes = static_cast<int>(size_of(T[A.a].type));
    g.out_elem_bytes = static_cast<int>(size_of(T[A.output].type));
    g.whole_operand_bytes = static_cast<std::size_t>(d.k) * static_cast<std::size_t>(d.n) * size_of(T[A.b].type);
    g.macs_per_output = d.k;
    return g;
  }

  /// The product of one tile: `s.h` rows of one image.
  static constexpr kernels::reference::matmul_dims tile_dims(const tile_geometry& g, int rows) {
    kernels::reference::matmul_dims d{};
    d.m = rows, d.n = g.out_c, d.k = g.in_c;
    d.b_transposed = A.b_transposed;
    return d;
  }

  template <auto const& T, kernels::kernel_family F>
  static constexpr std::size_t tile_scratch(const tile_geometry& g, const tile_shape& s) {
    return kernels::matmul_scratch_bytes<family<T, F>>(tile_dims(g, s.h));
  }

  /// Its tiles take N and K from their arguments (a run-time length: graph/network.hpp).
  static constexpr bool tiles_at_length = true;

  /// One tile: rows [y0, y0 + h) of image n, A's rows and the image's B in L1 (run_chosen), the
  /// product's N and K the tile's (t.c, t.in_channels: below the plan's over a run-time length).
  template <auto const& T, kernels::kernel_family F = kernels::native_family>
  static void run_tile(const tile_args& t) {
    static constexpr tile_geometry g = tile_geometry_of<T>();
    kernels::reference::matmul_dims d = tile_dims(g, t.h);
    d.n = t.c, d.k = t.in_channels;
    const requant_params rq = requant_for_tile(Requant.params(), d.n, t.y0, t.c0, t.h, t.c);
    run_chosen<T, F>(d, rq, t.input[0], t.input[1], t.output, t.scratch, tile_scratch<T, F>(g, {t.h, t.w, g.out_c}));
  }

  template <auto const& T, kernels::kernel_family F = kernels::native_family>
  static void run(void* const* in, void* const* out, void* scratch) {
    static constexpr auto d = dims<T>();
    kernels::matmul<family<T, kernels::runnable(F)>>(d, static_cast<const a_t<T>*>(in[0]),
                                                     static_cast<const b_t<T>*>(in[1]), Requant.params(),
                                                     static_cast<out_t<T>*>(out[0]), scratch);
  }

  /// Over the first `length` positions (runtime/sequence_executor.hpp): the family chosen for
  /// the capacity's extents where it accepts the live ones within the scratch planned for the
  /// capacity (its scratch grows with the extents), else the reference.
  template <auto const& T, kernels::kernel_family F = kernels::native_family>
  static void run_at(int length, void* const* in, void* const* out, void* scratch) {
    run_chosen<T, F>(dims_at<T>(length), Requant.params(), in[0], in[1], out[0], scratch, scratch_bytes<T, F>());
  }

 private:
  /// The product `d` (extents other than those the family was chosen for: a run-time length, a
  /// tile) with the family chosen for the whole product where it accepts `d` within the
  /// `scratch_available` bytes planned, else with the reference.
  template <auto const& T, kernels::kernel_family F>
  static void run_chosen(const kernels::reference::matmul_dims& d, const requant_params& rq, const void* a,
                         const void* b, void* out, void* scratch, std::size_t scratch_available) {
    const auto* a_data = static_cast<const a_t<T>*>(a);
    const auto* b_data = static_cast<const b_t<T>*>(b);
    auto* out_data = static_cast<out_t<T>*>(out);
    constexpr kernels::kernel_family chosen = family<T, kernels::runnable(F)>;
    if constexpr (chosen != kernels::kernel_family::reference) {
      if (kernels::family_traits<chosen>::template matmul_accepts<a_t<T>, b_t<T>, out_t<T>>(d, rq) &&
          kernels::matmul_scratch_bytes<chosen>(d) <= scratch_available) {
        kernels::matmul<chosen>(d, a_data, b_data, rq, out_data, scratch);
        return;
      }
    }
    kernels::reference::matmul(d, a_data, b_data, rq, out_data, nullptr);
  }
};

}  // namespace tessera::op
