#include "fusion.hpp"

#include <algorithm>

#include "shape_math.hpp"

namespace tessera::onnx2hpp {
namespace {

/// The node that reads `t`, if it is the only reader and `t` is not a graph output.
int sole_consumer(const graph& g, const std::vector<std::vector<int>>& consumers, tensor_ref t) {
  const auto& readers = consumers[static_cast<std::size_t>(t)];
  if (readers.size() != 1 || g.is_graph_output(t)) return -1;
  return readers[0];
}

/// Drops the nodes marked in `removed`.
void erase_nodes(graph& g, const std::vector<bool>& removed) {
  std::vector<node> kept;
  kept.reserve(g.nodes.size());
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    if (!removed[i]) kept.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(kept);
}

/// Whether a constant at the output's rank varies only along the last axis.
bool is_last_axis_vector(const int_array& c) {
  for (std::size_t i = 0; i + 1 < c.shape.size(); ++i)
    if (c.shape[i] != 1) return false;
  return true;
}

void fold_bias_adds(graph& g) {
  const auto consumers = g.consumers();
  std::vector<bool> removed(g.nodes.size(), false);
  for (node& n : g.nodes) {
    auto* product = std::get_if<ops::gemm>(&n.operation);
    if (product == nullptr || product->bias || n.fused_requant) continue;
    const int c = sole_consumer(g, consumers, n.outputs[0]);
    if (c < 0) continue;
    node& add_node = g.nodes[static_cast<std::size_t>(c)];
    const auto* add = std::get_if<ops::binary>(&add_node.operation);
    if (add == nullptr || add->kind != ops::binary_kind::add || add->a_offset != 0 || !add->constant_b ||
        add_node.fused_requant)
      continue;
    if (!is_last_axis_vector(*add->constant_b)) continue;
    const auto& product_shape = g.tensors[static_cast<std::size_t>(n.outputs[0])].shape;
    if (g.tensors[static_cast<std::size_t>(add_node.outputs[0])].shape != product_shape) continue;  // Add broadcasts
    const int_array& constant = *add->constant_b;
    product->bias = int_array{{product->n}, expand_to({{1, constant.shape.back()}, constant.values}, {1, product->n})};
    n.outputs[0] = add_node.outputs[0];
    removed[static_cast<std::size_t>(c)] = true;
  }
  erase_nodes(g, removed);
}

void fold_pads_into_convs(graph& g) {
  const auto consumers = g.consumers();
  std::vector<bool> removed(g.nodes.size(), false);
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const auto* pad = std::get_if<ops::pad>(&g.nodes[i].operation);
    if (pad == nullptr) continue;
    const std::size_t rank = pad->before.size();
    if ((rank != 3 && rank != 4) || pad->before[0] != 0 || pad->before[1] != 0 || pad->after[0] != 0 ||
        pad->after[1] != 0)
      continue;  // only the spatial axes of a feature map
    const int c = sole_consumer(g, consumers, g.nodes[i].outputs[0]);
    if (c < 0) continue;
    auto* conv = std::get_if<ops::conv>(&g.nodes[static_cast<std::size_t>(c)].operation);
    if (conv == nullptr) continue;
    // The conv's own padding reads conv->pad_value: the two fold when they pad with one value.
    if (conv->window.pads() && conv->pad_value != pad->value) continue;
    conv->pad_value = pad->value;
    const std::size_t first = 4 - rank;  // a 1D map pads the width slot only
    for (std::size_t axis = 2; axis < rank; ++axis) {
      conv->window.pad_begin[first + axis - 2] += pad->before[axis];
      conv->window.pad_end[first + axis - 2] += pad->after[axis];
    }
    g.nodes[static_cast<std::size_t>(c)].inputs[0] = g.nodes[i].inputs[0];
    removed[i] = true;
  }
  erase_nodes(g, removed);
}

void fuse_requant_shifts(graph& g) {
  const std::vector<int> producer = g.producers();
  const auto consumers = g.consumers();
  std::vector<bool> removed(g.nodes.size(), false);
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const auto* rq = std::get_if<ops::requant_shift>(&g.nodes[i].operation);
    if (rq == nullptr) continue;
    const tensor_ref accumulator = g.nodes[i].inputs[0];
    const int p = producer[static_cast<std::size_t>(accumulator)];
    if (p < 0 || sole_consumer(g, consumers, accumulator) != static_cast<int>(i)) continue;
    node& source = g.nodes[static_cast<std::size_t>(p)];
    if (!accepts_fused_requant(source.operation) || source.fused_requant) continue;
    source.fused_requant = rq->rq;
    source.outputs[0] = g.nodes[i].outputs[0];
    removed[i] = true;
  }
  erase_nodes(g, removed);
}

/// Whether `rq` has one entry (an activation's requantization: per tensor).
bool per_tensor(const requant& rq) {
  return rq.divisor == 1 && rq.mul.values.size() == 1 && rq.add.values.size() == 1;
}

/// An Add of two run-time operands reads the outputs of RequantShift nodes that nothing else
/// reads (integer_add's rescales of two scales onto a common one in int16): they fold into it,
/// a RequantizedAdd (ops/requantized_add.hpp), one pass over the two 8-bit operands instead of
/// three passes with two 16-bit tensors between them. Only where the operand has the Add's
/// shape (no broadcast) and the requantization is per tensor (the op also takes per-channel
/// ones; no exporter writes them in front of an Add), and only for an Add that reads a wider
/// than 8-bit operand: the optimized families' Add kernels take 8-bit operands, and a vector
/// one (arm_mve, rvv, x86) runs such an Add after an 8-bit RequantShift faster than the fused
/// node's scalar loop. Deeploy's ResNet-8 (RequantShift_17 feeds Add_22 in int8), its three
/// such pairs fused, under QEMU: Cortex-M55 +8.1% instructions, rvv +43.7%, but Cortex-M4 -2.1%
/// and scalar rv32 -2.7% (2026-11-29); a node that picks its loop by kernel family would take
/// both gains (not built).
void fold_operand_requants_into_adds(graph& g) {
  const std::vector<int> producer = g.producers();
  const auto consumers = g.consumers();
  std::vector<bool> removed(g.nodes.size(), false);
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    node& add_node = g.nodes[i];
    auto* add = std::get_if<ops::binary>(&add_node.operation);
    if (add == nullptr || add->kind != ops::binary_kind::add || add->constant_b || add->a_offset != 0 ||
        add->b_offset != 0 || add_node.inputs.size() != 2 || add_node.inputs[0] == add_node.inputs[1])
      continue;  // (one tensor read twice: folding its producer would leave the second read dangling)
    const dims& out_shape = g.tensors[static_cast<std::size_t>(add_node.outputs[0])].shape;
    const bool wide = std::any_of(add_node.inputs.begin(), add_node.inputs.end(), [&](tensor_ref t) {
      return tessera::size_of(g.tensors[static_cast<std::size_t>(t)].type) > 1;
    });
    if (!wide) continue;
    for (std::size_t operand = 0; operand < 2; ++operand) {
      const tensor_ref t = add_node.inputs[operand];
      const int p = producer[static_cast<std::size_t>(t)];
      if (p < 0 || removed[static_cast<std::size_t>(p)] || sole_consumer(g, consumers, t) != static_cast<int>(i))
        continue;
      const node& source = g.nodes[static_cast<std::size_t>(p)];
      const auto* rq = std::get_if<ops::requant_shift>(&source.operation);
      if (rq == nullptr || source.fused_requant || g.tensors[static_cast<std::size_t>(t)].shape != out_shape ||
          g.tensors[static_cast<std::size_t>(source.inputs[0])].shape != out_shape ||
          !per_tensor(rq->rq))
        continue;
      (operand == 0 ? add->a_rq : add->b_rq) = rq->rq;
      add_node.inputs[operand] = source.inputs[0];
      removed[static_cast<std::size_t>(p)] = true;
    }
  }
  erase_nodes(g, removed);
}

/// Whether `rq` maps every value to itself before its clamp: mul = 2^shift, add = 0 (then
/// (x * 2^shift + 2^(shift-1)) >> shift = x under either rounding).
bool is_identity_but_clamp(const requant& rq) {
  if (rq.shift < 0 || rq.shift > 62 || rq.divisor != 1) return false;
  const std::int64_t one = std::int64_t{1} << rq.shift;
  return std::all_of(rq.mul.values.begin(), rq.mul.values.end(), [&](std::int64_t m) { return m == one; }) &&
         std::all_of(rq.add.values.begin(), rq.add.values.end(), [](std::int64_t a) { return a == 0; });
}

/// The requantization a node's output went through (fused, or its own op), if any.
requant* output_requant(node& n) {
  if (n.fused_requant) return &*n.fused_requant;
  if (auto* r = std::get_if<ops::requant_shift>(&n.operation)) return &r->rq;
  return nullptr;
}

/// A requantization that only clamps (a Relu/Clip/Hardtanh between a QuantizeLinear and a
/// DequantizeLinear of the same quantization: torch's ReLU6 keeps its input's scale) narrows the
/// clamp of the requantization that produced its input instead of running as a pass of its own:
/// clamp(clamp(v, a, b), c, d) = clamp(v, clamp(a, c, d), clamp(b, c, d)), exactly. It looks
/// through Casts between them that nothing else reads and that keep the shape (torch's
/// Linear+ReLU export: Gemm, Cast, ReLU): the producer then writes the clamp's output and the
/// Casts go too, so that no tensor of the graph holds other values than in the model (ONNX
/// Runtime's op-by-op comparison reads them by name).
bool fold_clamps_once(graph& g) {
  const std::vector<int> producer = g.producers();
  const auto consumers = g.consumers();
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const auto* clamp = std::get_if<ops::requant_shift>(&g.nodes[i].operation);
    if (clamp == nullptr || !is_identity_but_clamp(clamp->rq)) continue;
    const tensor_ref input = g.nodes[i].inputs[0];
    if (g.tensors[static_cast<std::size_t>(input)].type != clamp->rq.type) continue;
    int p = producer[static_cast<std::size_t>(input)];
    if (p < 0 || sole_consumer(g, consumers, input) != static_cast<int>(i)) continue;
    std::vector<int> casts;  // the shape-keeping reshapes between the producer and the clamp
    while (std::holds_alternative<ops::reshape>(g.nodes[static_cast<std::size_t>(p)].operation)) {
      const tensor_ref before = g.nodes[static_cast<std::size_t>(p)].inputs[0];
      const tensor_ref after = g.nodes[static_cast<std::size_t>(p)].outputs[0];
      const int q = producer[static_cast<std::size_t>(before)];
      const tensor& b = g.tensors[static_cast<std::size_t>(before)];
      if (q < 0 || sole_consumer(g, consumers, before) != p || b.type != clamp->rq.type ||
          b.shape != g.tensors[static_cast<std::size_t>(after)].shape)
        break;
      casts.push_back(p);
      p = q;
    }
    node& source = g.nodes[static_cast<std::size_t>(p)];
    requant* narrowed = output_requant(source);
    if (narrowed == nullptr || narrowed->type != clamp->rq.type || source.outputs.size() != 1) continue;
    auto within = [&](std::int64_t v) { return std::clamp(v, clamp->rq.lo, clamp->rq.hi); };
    narrowed->lo = within(narrowed->lo);
    narrowed->hi = within(narrowed->hi);
    source.outputs[0] = g.nodes[i].outputs[0];
    std::vector<bool> removed(g.nodes.size(), false);
    removed[i] = true;
    for (int c : casts) removed[static_cast<std::size_t>(c)] = true;
    erase_nodes(g, removed);
    return true;
  }
  return false;
}

void fold_clamps_into_producers(graph& g) {
  while (fold_clamps_once(g)) {
  }
}

}  // namespace

void fuse(graph& g) {
  fold_bias_adds(g);
  fold_pads_into_convs(g);
  fuse_requant_shifts(g);
  fold_clamps_into_producers(g);
  fold_operand_requants_into_adds(g);
}

}  // namespace tessera::onnx2hpp
