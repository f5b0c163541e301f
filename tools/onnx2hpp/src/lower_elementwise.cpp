// Add, Sub, Mul and the dialect's RequantShift.
#include <cmath>

#include <fmt/format.h>

#include "lower_ops.hpp"
#include "onnx_values.hpp"
#include "shape_math.hpp"

namespace tessera::onnx2hpp {
namespace {

void lower_binary(lowering_context& cx, const onnx::NodeProto& n, const node_context& where, ops::binary_kind kind) {
  int left = 0, right = 1;
  if (cx.is_constant_input(n, 0)) {
    if (cx.is_constant_input(n, 1)) where.fail("both operands are constants (fold them before converting)");
    if (kind == ops::binary_kind::sub) where.fail("a constant left operand of Sub is not supported");
    std::swap(left, right);  // Add and Mul commute: the kernel takes its constant on the right
  }
  const dims a = cx.input_shape(n, left, where);
  const dims b = cx.input_shape(n, right, where);
  dims y;
  if (!broadcast_shapes(a, b, y)) where.fail("operands " + to_string(a) + " and " + to_string(b) + " do not broadcast");

  ops::binary op;
  op.kind = kind;
  std::vector<tensor_ref> inputs{cx.tensor_input(n, left, where, "operand")};
  if (cx.is_constant_input(n, right)) {
    int_array c = cx.constant_input(n, right, where, "constant operand");
    require_fits(c, tessera::dtype::s32, where, "constant operand");
    c.shape = with_rank(c.shape, y.size());
    op.constant_b = std::move(c);
  } else {
    inputs.push_back(cx.tensor_input(n, right, where, "operand"));
  }
  const tensor_ref output = cx.define_output(n, 0, y, where);
  cx.add_node(where, std::move(op), std::move(inputs), {output});
}

/// mul/add of a RequantShift at the input's rank. QuantLib writes per-channel constants as
/// (C,), (C, 1) or (C, 1, 1) whatever the map's rank: a constant whose only non-1 extent is
/// C = x[1] is per channel when numpy would align it elsewhere (a (C,) vector on (N, C, H, W))
/// or not at all ((C, 1, 1) on a 1D map (N, C, W)).
int_array requant_constant(int_array c, const dims& x, const node_context& where, const std::string& role) {
  while (c.shape.size() > x.size() && c.shape.front() == 1) c.shape.erase(c.shape.begin());
  const auto broadcasts = [&](const dims& s) {
    if (s.size() != x.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i)
      if (s[i] != 1 && s[i] != x[i]) return false;
    return true;
  };
  std::size_t varying = 0;
  for (auto d : c.shape) varying += d != 1 ? 1 : 0;
  const bool per_channel = x.size() >= 2 && varying == 1 && element_count(c.shape) == x[1] &&
                           (c.shape.size() == 1 || !broadcasts(with_rank(c.shape, x.size())));
  if (per_channel) {
    c.shape = dims(x.size(), 1);
    c.shape[1] = x[1];
  }
  c.shape = with_rank(c.shape, x.size());
  if (!broadcasts(c.shape))
    where.fail(role + " " + to_string(c.shape) + " does not broadcast to the input " + to_string(x));
  require_fits(c, tessera::dtype::s32, where, role);
  return c;
}

}  // namespace

void lower_add(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  lower_binary(cx, n, where, ops::binary_kind::add);
}
void lower_sub(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  lower_binary(cx, n, where, ops::binary_kind::sub);
}
void lower_mul(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  lower_binary(cx, n, where, ops::binary_kind::mul);
}

void lower_requant_shift(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  const dims x = cx.input_shape(n, 0, where);
  const tensor_ref input = cx.tensor_input(n, 0, where, "input");
  requant rq;
  rq.mul = requant_constant(cx.constant_input(n, 1, where, "mul"), x, where, "mul");
  rq.add = requant_constant(cx.constant_input(n, 2, where, "add"), x, where, "add");

  std::int64_t div = integer_attribute(n, where, "div");
  if (const std::int64_t* factor = cx.folded_division(n.input(0))) {
    // A TrueIntegerDiv folded in (lower_true_integer_div): Deeploy's mul' = mul * factor * 256,
    // div' = div * 256; add' = add * 256 keeps the sum's scale (the corpus has add = 0).
    for (auto& m : rq.mul.values) m *= *factor * 256;
    for (auto& a : rq.add.values) a *= 256;
    require_fits(rq.mul, tessera::dtype::s32, where, "mul (with the TrueIntegerDiv folded in)");
    require_fits(rq.add, tessera::dtype::s32, where, "add (with the TrueIntegerDiv folded in)");
    div *= 256;
  }
  while (rq.shift < 63 && (std::int64_t{1} << rq.shift) < div) ++rq.shift;
  if (div < 1 || rq.shift > 62 || (std::int64_t{1} << rq.shift) != div)
    where.fail(fmt::format("div = {} is not a power of two in [1, 2^62]", div));

  const char* levels_name = has_attribute(n, "n_levels_out") ? "n_levels_out" : "n_levels";
  if (!has_attribute(n, levels_name)) where.fail("missing attribute 'n_levels_out' (or 'n_levels')");
  const std::int64_t levels = integer_attribute(n, where, levels_name);
  // QuantLib's RequantShift is signed unless told otherwise.
  const bool is_signed = !has_attribute(n, "signed") || integer_attribute(n, where, "signed") != 0;
  if (levels < 2) where.fail(fmt::format("{} = {} must be at least 2", levels_name, levels));
  if (is_signed) {
    rq.lo = -(levels / 2);
    rq.hi = levels / 2 - 1;
    rq.type = levels <= 256 ? tessera::dtype::s8 : levels <= 65536 ? tessera::dtype::s16 : tessera::dtype::s32;
    if (levels > (std::int64_t{1} << 32))
      where.fail(fmt::format("{} = {} needs more than 32 bits", levels_name, levels));
  } else {
    rq.lo = 0;
    rq.hi = levels - 1;
    if (levels > 65536) where.fail(fmt::format("unsigned {} = {} needs more than 16 bits", levels_name, levels));
    rq.type = levels <= 256 ? tessera::dtype::u8 : tessera::dtype::u16;
  }
  const tensor_ref output = cx.define_output(n, 0, x, where);
  cx.add_node(where, ops::requant_shift{std::move(rq)}, {input}, {output});
}

}  // namespace tessera::onnx2hpp
