// Gemm and MatMul. A product with a constant right operand becomes a `gemm` with weights
// stored [N][K] (each output one contiguous dot product); a product of two run-time tensors
// becomes a `matmul`.
#include <cmath>

#include <fmt/format.h>

#include "lower_ops.hpp"
#include "onnx_values.hpp"
#include "shape_math.hpp"

namespace tessera::onnx2hpp {
namespace {

/// Gemm's alpha/beta as an exact integer factor.
std::int64_t integer_factor(const onnx::NodeProto& n, const node_context& where, const char* name) {
  const float value = float_attribute(n, name, 1.0f);
  if (std::trunc(value) != value || std::fabs(value) > 65536.0f)
    where.fail(fmt::format("{} = {} is not a small integer; integerized models use integer factors", name, value));
  return static_cast<std::int64_t>(value);
}

/// Whether every row of the (M, N) matrix `c` equals the first one (then C is a bias).
bool rows_identical(const int_array& c) {
  const std::int64_t rows = c.shape[0], cols = c.shape[1];
  for (std::int64_t r = 1; r < rows; ++r)
    for (std::int64_t j = 0; j < cols; ++j)
      if (c.values[static_cast<std::size_t>(r * cols + j)] != c.values[static_cast<std::size_t>(j)]) return false;
  return true;
}

/// B [K][N] -> weights [N][K].
int_array weights_from_b(const int_array& b, bool transposed) {
  if (transposed) return b;
  return {{b.shape[1], b.shape[0]}, transpose_values(b.values, b.shape, {1, 0})};
}

}  // namespace

void lower_gemm(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  const dims a = cx.input_shape(n, 0, where);
  const tensor_ref input = cx.tensor_input(n, 0, where, "input A");
  if (a.size() != 2) where.fail("input A must be a matrix, got " + to_string(a));
  if (int_attribute(n, "transA", 0) != 0) where.fail("transA = 1 is not supported");
  if (!cx.is_constant_input(n, 1)) where.fail("a run-time B operand is not supported (B must be a constant)");
  const int_array b = cx.constant_input(n, 1, where, "B");
  if (b.shape.size() != 2) where.fail("B must be a matrix, got " + to_string(b.shape));
  require_fits(b, tessera::dtype::s8, where, "weights B");
  const bool trans_b = int_attribute(n, "transB", 0) != 0;
  const std::int64_t m = a[0], k = a[1];
  const std::int64_t b_k = trans_b ? b.shape[1] : b.shape[0];
  if (b_k != k) where.fail(fmt::format("A {} and B {} do not agree on K", to_string(a), to_string(b.shape)));

  ops::gemm op;
  op.k = k;
  op.n = trans_b ? b.shape[0] : b.shape[1];
  op.weights = weights_from_b(b, trans_b);
  // alpha scales the weights exactly (it may widen them to int16: the kernel reads any width).
  const std::int64_t alpha = integer_factor(n, where, "alpha");
  if (alpha != 1) {
    for (auto& v : op.weights.values) v *= alpha;
    require_fits(op.weights, tessera::dtype::s16, where, "weights B scaled by alpha");
  }
  const dims y{m, op.n};

  std::optional<int_array> full_c;  // a C that differs between rows: added by its own node
  const std::int64_t beta = integer_factor(n, where, "beta");
  if (cx.has_input(n, 2) && beta != 0) {
    int_array c = cx.constant_input(n, 2, where, "C");
    dims broadcast;
    if (c.shape.size() > 2 || !broadcast_shapes(c.shape, y, broadcast) || broadcast != y)
      where.fail("C " + to_string(c.shape) + " does not broadcast to the output " + to_string(y));
    for (auto& v : c.values) v *= beta;
    require_fits(c, tessera::dtype::s32, where, beta == 1 ? "C" : "C scaled by beta");
    c.shape = with_rank(c.shape, 2);
    if (c.shape[0] == 1 || rows_identical(c)) {
      op.bias =
          int_array{{op.n}, expand_to({{1, c.shape[1]}, {c.values.begin(), c.values.begin() + c.shape[1]}}, {1, op.n})};
    } else {
      full_c = std::move(c);
    }
  }

  if (!full_c) {
    const tensor_ref output = cx.define_output(n, 0, y, where);
    cx.add_node(where, std::move(op), {input}, {output});
    return;
  }
  // Y = (A B) + C with a C per row and column: a gemm and an add of the constant C.
  const tensor_ref product = cx.new_tensor(y);
  cx.add_node(where, std::move(op), {input}, {product});
  const tensor_ref output = cx.define_output(n, 0, y, where);
  ops::binary add;
  add.constant_b = std::move(full_c);
  cx.add_node({where.name + "_add_c", where.op}, std::move(add), {product}, {output});
}

void lower_matmul(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  const dims a = cx.input_shape(n, 0, where);
  const dims b = cx.input_shape(n, 1, where);
  if (cx.is_constant_input(n, 0)) where.fail("a constant left operand is not supported");
  const tensor_ref input = cx.tensor_input(n, 0, where, "input A");
  if (a.empty()) where.fail("input A is a scalar; MatMul needs rank >= 1");

  if (cx.is_constant_input(n, 1)) {
    int_array w = cx.constant_input(n, 1, where, "B");
    if (w.shape.size() < 2 || element_count(w.shape) != w.shape[w.shape.size() - 2] * w.shape.back())
      where.fail("a constant B must be a matrix (batched constant weights are not supported), got " +
                 to_string(w.shape));
    require_fits(w, tessera::dtype::s8, where, "weights B");
    const dims b_batch(w.shape.begin(), w.shape.end() - 2);  // all 1s
    w.shape = {w.shape[w.shape.size() - 2], w.shape.back()};
    const std::int64_t k = w.shape[0];
    if (a.back() != k) where.fail(fmt::format("A {} and B {} do not agree on K", to_string(a), to_string(b)));
    ops::gemm op;
    op.k = k;
    op.n = w.shape[1];
    op.weights = weights_from_b(w, false);
    dims rows(a.begin(), a.end() - 1);  // the gemm keeps A's leading dims
    dims direct = rows;
    direct.push_back(op.n);
    // ONNX broadcasting may add B's leading 1s to the result's rank.
    dims y;
    if (a.size() >= 2) {
      broadcast_shapes(dims(a.begin(), a.end() - 2), b_batch, y);
      y.push_back(a[a.size() - 2]);
    } else {
      y = b_batch;
    }
    y.push_back(op.n);
    if (y == direct) {
      const tensor_ref output = cx.define_output(n, 0, y, where);
      cx.add_node(where, std::move(op), {input}, {output});
      return;
    }
    const tensor_ref product = cx.new_tensor(direct);
    cx.add_node(where, std::move(op), {input}, {product});
    const tensor_ref output = cx.define_output(n, 0, y, where);
    cx.add_node({where.name + "_rank", where.op}, ops::reshape{}, {product}, {output});
    return;
  }

  const tensor_ref right = cx.tensor_input(n, 1, where, "input B");
  if (a.size() < 2 || b.size() < 2)
    where.fail("MatMul of two run-time tensors needs matrices (rank >= 2), got " + to_string(a) + " x " + to_string(b));
  if (a.back() != b[b.size() - 2])
    where.fail(fmt::format("A {} and B {} do not agree on K", to_string(a), to_string(b)));
  dims y;
  if (!broadcast_shapes(dims(a.begin(), a.end() - 2), dims(b.begin(), b.end() - 2), y))
    where.fail("the batch dimensions of " + to_string(a) + " and " + to_string(b) + " do not broadcast");
  y.push_back(a[a.size() - 2]);
  y.push_back(b.back());
  const tensor_ref output = cx.define_output(n, 0, y, where);
  cx.add_node(where, ops::matmul{}, {input, right}, {output});
}

}  // namespace tessera::onnx2hpp
