#include "to_device.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "requant_tables.hpp"
#include "shape_math.hpp"

namespace tessera::onnx2hpp {
namespace {

/// Name suffix of a tensor copied into another layout, e.g. "_nhwc".
std::string layout_suffix(const permutation& p) {
  if (p.size() == 4 && p == channels_last_permutation(4)) return "_nhwc";
  if (p.size() == 3 && p == channels_last_permutation(3)) return "_nwc";
  if (is_identity(p)) return "_rowmajor";
  std::string s = "_p";
  for (int axis : p) s += std::to_string(axis);
  return s;
}

/// Physical axis values of a per-logical-axis list.
dims permuted(const dims& per_axis, const permutation& perm) { return permute_dims(per_axis, perm); }

class layout_pass {
 public:
  explicit layout_pass(const graph& g) : g_(g), consumers_(g.consumers()), placed_(g.tensors.size()) {
    out_.model_file = g.model_file;
    out_.boundaries = g.boundaries;
  }

  device::graph run() {
    for (tensor_ref t : g_.inputs) {
      const dims& shape = shape_of(t);
      const bool channels_last = (shape.size() == 3 || shape.size() == 4) && feeds_window_op(t);
      place(t, plain_layout(shape, channels_last ? channels_last_permutation(shape.size())
                                                 : identity_permutation(shape.size())));
      out_.inputs.push_back(placed_[static_cast<std::size_t>(t)].id);
    }
    for (const node& n : g_.nodes) std::visit([&](const auto& o) { lower(n, o); }, n.operation);
    for (tensor_ref t : g_.outputs) add_graph_output(t);
    return std::move(out_);
  }

 private:
  struct placement {
    device::tensor_id id = -1;
    layout where;
  };

  const dims& shape_of(tensor_ref t) const { return g_.tensors[static_cast<std::size_t>(t)].shape; }
  const placement& placed(tensor_ref t) const { return placed_[static_cast<std::size_t>(t)]; }

  // -------------------------------------------------------------------------- decisions

  /// Whether a graph input reaches a Conv/pool, directly or through layout-following ops.
  bool feeds_window_op(tensor_ref t) const {
    for (int c : consumers_[static_cast<std::size_t>(t)]) {
      const any_op& o = g_.nodes[static_cast<std::size_t>(c)].operation;
      if (std::holds_alternative<ops::conv>(o) || std::holds_alternative<ops::pool>(o) ||
          std::holds_alternative<ops::resize>(o))
        return true;
      const bool follows = std::holds_alternative<ops::requant_shift>(o) || std::holds_alternative<ops::pad>(o) ||
                           std::holds_alternative<ops::slice>(o) || std::holds_alternative<ops::lookup_table>(o);
      if (follows && feeds_window_op(g_.nodes[static_cast<std::size_t>(c)].outputs[0])) return true;
    }
    return false;
  }

  /// For a gemm reading a tensor of logical shape `s` stored as `l`: the number of leading
  /// view dims that make up the rows when the permutation only reorders within a row (then
  /// the weights can absorb it), else -1.
  static int rows_split(const dims& s, const layout& l, std::int64_t k) {
    if (s.empty() || s.back() != k) return -1;
    const std::int64_t rows = element_count(s) / k;
    std::int64_t product = 1;
    for (std::size_t split = 0; split <= l.view.size(); ++split) {
      if (product == rows) return static_cast<int>(split);
      if (split == l.view.size() || l.perm[split] != static_cast<int>(split)) return -1;
      product *= l.view[split];
    }
    return -1;
  }

  /// Whether every reader of `t` (a reshape's output) can take its data in layout `l`.
  bool absorbable(tensor_ref t, const layout& l) const {
    if (g_.is_graph_output(t)) return false;  // callers read outputs in ONNX order
    for (int c : consumers_[static_cast<std::size_t>(t)]) {
      const node& reader = g_.nodes[static_cast<std::size_t>(c)];
      if (const auto* product = std::get_if<ops::gemm>(&reader.operation)) {
        if (rows_split(shape_of(t), l, product->k) < 0) return false;
      } else if (std::holds_alternative<ops::reshape>(reader.operation)) {
        const bool back_to_view = shape_of(reader.outputs[0]) == l.view;  // a plain tensor again
        if (!back_to_view && !absorbable(reader.outputs[0], l)) return false;
      } else {
        return false;
      }
    }
    return true;
  }

  // -------------------------------------------------------------------------- building

  device::tensor_id add_tensor(tensor_ref t, const layout& l, std::string name, bool is_onnx_tensor) {
    const tensor& source = g_.tensors[static_cast<std::size_t>(t)];
    device::tensor d;
    d.name = std::move(name);
    d.type = source.type;
    d.shape = physical_shape(source.shape, l);
    if (is_onnx_tensor && !source.onnx_name.empty())
      d.source = device::origin{source.onnx_name, source.producer, source.shape, l};
    out_.tensors.push_back(std::move(d));
    return static_cast<device::tensor_id>(out_.tensors.size() - 1);
  }

  /// Defines the device tensor of a logical tensor, in layout `l`.
  device::tensor_id place(tensor_ref t, const layout& l, const std::string& fallback_name = "") {
    const tensor& source = g_.tensors[static_cast<std::size_t>(t)];
    const std::string name = source.onnx_name.empty() ? fallback_name : source.onnx_name;
    placed_[static_cast<std::size_t>(t)] = {add_tensor(t, l, name, true), l};
    return placed_[static_cast<std::size_t>(t)].id;
  }

  device::tensor_id place_output(const node& n, const layout& l) { return place(n.outputs[0], l, n.name + "_out"); }

  void add_node(std::string name, device::any_op o) { out_.nodes.push_back({std::move(name), std::move(o)}); }

  /// The device tensor holding `t` in the plain layout `target`, inserting a copy if needed.
  device::tensor_id in_layout(tensor_ref t, const permutation& target, const node_context& reader) {
    const placement& p = placed(t);
    const dims& shape = shape_of(t);
    if (!is_plain(p.where, shape))
      reader.fail("internal error: a reordered flattened tensor reaches an op that cannot absorb it");
    if (p.where.perm == target) return p.id;
    const auto key = std::make_pair(t, target);
    if (const auto it = copies_.find(key); it != copies_.end()) return it->second;

    const std::string name = out_.tensors[static_cast<std::size_t>(p.id)].name + layout_suffix(target);
    const device::tensor_id copy = add_tensor(t, plain_layout(shape, target), name, false);
    if (same_data_order(shape, p.where.perm, target)) {
      add_node(name, device::reshape{p.id, copy});  // only extent-1 dims move: same bytes
    } else {
      // Copy dim i reads source physical dim inverse(source perm)[target[i]].
      const permutation from_source = inverse(p.where.perm);
      permutation perm;
      for (int axis : target) perm.push_back(from_source[static_cast<std::size_t>(axis)]);
      add_node(name, device::transpose{p.id, copy, perm});
    }
    copies_.emplace(key, copy);
    return copy;
  }

  std::optional<device::requant_table> fused_table(const node& n, const layout& out_layout) const {
    if (!n.fused_requant) return std::nullopt;
    return make_requant_table(*n.fused_requant, shape_of(n.outputs[0]), out_layout, {n.name, n.onnx_op});
  }

  static std::optional<std::vector<std::int64_t>> values_of(const std::optional<int_array>& a) {
    if (!a) return std::nullopt;
    return a->values;
  }

  // -------------------------------------------------------------------------- ops

  void lower(const node& n, const ops::conv& o) {
    const node_context where{n.name, n.onnx_op};
    const permutation cl = channels_last_permutation(shape_of(n.inputs[0]).size());
    const device::tensor_id in = in_layout(n.inputs[0], cl, where);
    const layout out_layout = plain_layout(shape_of(n.outputs[0]), cl);
    const device::tensor_id out = place_output(n, out_layout);
    add_node(n.name, device::conv{in, out, o.window, o.groups, o.weights.values, o.pad_value, values_of(o.bias),
                                  fused_table(n, out_layout)});
  }

  void lower(const node& n, const ops::pool& o) {
    const node_context where{n.name, n.onnx_op};
    const permutation cl = channels_last_permutation(shape_of(n.inputs[0]).size());
    const device::tensor_id in = in_layout(n.inputs[0], cl, where);
    const device::tensor_id out = place_output(n, plain_layout(shape_of(n.outputs[0]), cl));
    add_node(n.name, device::pool{o.max, in, out, o.window, o.count_include_pad});
  }

  void lower(const node& n, const ops::gemm& o) {
    const node_context where{n.name, n.onnx_op};
    const tensor_ref t = n.inputs[0];
    const placement& p = placed(t);
    std::vector<std::int64_t> weights = o.weights.values;
    device::tensor_id in = p.id;
    if (!is_plain(p.where, shape_of(t))) {
      // The input is a flattened permuted map: permute the K axis of the weights the same way.
      const int split = rows_split(shape_of(t), p.where, o.k);
      if (split < 0) where.fail("internal error: the gemm cannot absorb its input's layout");
      dims w_view{o.n};
      permutation w_perm{0};
      for (std::size_t i = static_cast<std::size_t>(split); i < p.where.view.size(); ++i) {
        w_view.push_back(p.where.view[i]);
        w_perm.push_back(p.where.perm[i] - split + 1);
      }
      weights = transpose_values(weights, w_view, w_perm);
    } else {
      in = in_layout(t, identity_permutation(shape_of(t).size()), where);
    }
    const layout out_layout = plain_layout(shape_of(n.outputs[0]), identity_permutation(shape_of(n.outputs[0]).size()));
    const device::tensor_id out = place_output(n, out_layout);
    add_node(n.name,
             device::gemm{in, out, o.n, o.k, std::move(weights), values_of(o.bias), fused_table(n, out_layout)});
  }

  void lower(const node& n, const ops::matmul&) {
    const node_context where{n.name, n.onnx_op};
    const device::tensor_id a = in_layout(n.inputs[0], identity_permutation(shape_of(n.inputs[0]).size()), where);
    const device::tensor_id b = in_layout(n.inputs[1], identity_permutation(shape_of(n.inputs[1]).size()), where);
    const layout out_layout = plain_layout(shape_of(n.outputs[0]), identity_permutation(shape_of(n.outputs[0]).size()));
    const device::tensor_id out = place_output(n, out_layout);
    add_node(n.name, device::matmul{a, b, out, fused_table(n, out_layout)});
  }

  void lower(const node& n, const ops::binary& o) {
    const node_context where{n.name, n.onnx_op};
    const dims& y = shape_of(n.outputs[0]);
    // Work in the layout of the first operand that has the output's shape; operands of lower
    // rank broadcast in logical order, which only the identity layout keeps.
    permutation l = identity_permutation(y.size());
    bool lower_rank = false;
    for (tensor_ref t : n.inputs) lower_rank = lower_rank || shape_of(t).size() < y.size();
    for (tensor_ref t : n.inputs) {
      if (!lower_rank && shape_of(t) == y && is_plain(placed(t).where, y)) {
        l = placed(t).where.perm;
        break;
      }
    }
    const auto operand = [&](tensor_ref t) {
      return in_layout(t, shape_of(t).size() == y.size() ? l : identity_permutation(shape_of(t).size()), where);
    };
    device::binary d;
    d.kind = o.kind;
    d.a_offset = o.a_offset;
    d.b_offset = o.b_offset;
    d.a = operand(n.inputs[0]);
    if (n.inputs.size() > 1) {
      d.b = operand(n.inputs[1]);
    } else {
      d.b = -1;
      d.b_shape = permute_dims(o.constant_b->shape, l);
      d.constant_b = transpose_values(o.constant_b->values, o.constant_b->shape, l);
    }
    const layout out_layout = plain_layout(y, l);
    d.output = place_output(n, out_layout);
    d.rq = fused_table(n, out_layout);
    // A RequantizedAdd's operands have the output's shape and layout (fusion.cpp).
    const auto operand_table = [&](const std::optional<requant>& rq) -> std::optional<device::requant_table> {
      if (!rq) return std::nullopt;
      return make_requant_table(*rq, y, out_layout, where);
    };
    d.a_rq = operand_table(o.a_rq);
    d.b_rq = operand_table(o.b_rq);
    add_node(n.name, std::move(d));
  }

  /// The input's plain layout (ops that follow their input's layout).
  const placement& plain_input(const node& n, const node_context& where) {
    const placement& p = placed(n.inputs[0]);
    if (!is_plain(p.where, shape_of(n.inputs[0])))
      where.fail("internal error: a reordered flattened tensor reaches an op that cannot absorb it");
    return p;
  }

  void lower(const node& n, const ops::requant_shift& o) {
    const node_context where{n.name, n.onnx_op};
    const placement& p = plain_input(n, where);
    const layout out_layout = plain_layout(shape_of(n.outputs[0]), p.where.perm);
    const device::tensor_id in = p.id;
    const device::tensor_id out = place_output(n, out_layout);
    add_node(n.name,
             device::requant_shift{in, out, make_requant_table(o.rq, shape_of(n.outputs[0]), out_layout, where)});
  }

  void lower(const node& n, const ops::lookup_table& o) {
    const placement& p = plain_input(n, {n.name, n.onnx_op});
    const device::tensor_id in = p.id;
    const device::tensor_id out = place_output(n, plain_layout(shape_of(n.outputs[0]), p.where.perm));
    add_node(n.name, device::lookup_table{in, out, o.table});
  }

  /// iHardswish, iGELU: elementwise, in their input's layout, with a fused requant.
  template <class Device, class Op>
  void lower_activation(const node& n, const Op& o) {
    const placement& p = plain_input(n, {n.name, n.onnx_op});
    const device::tensor_id in = p.id;
    const layout out_layout = plain_layout(shape_of(n.outputs[0]), p.where.perm);
    const device::tensor_id out = place_output(n, out_layout);
    add_node(n.name, Device{in, out, o, fused_table(n, out_layout)});
  }
  void lower(const node& n, const ops::hardswish& o) { lower_activation<device::hardswish>(n, o); }
  void lower(const node& n, const ops::gelu& o) { lower_activation<device::gelu>(n, o); }

  /// Row-major in and out (the axes are the logical ones).
  void lower(const node& n, const ops::reduce& o) {
    const node_context where{n.name, n.onnx_op};
    const device::tensor_id in = in_layout(n.inputs[0], identity_permutation(shape_of(n.inputs[0]).size()), where);
    const dims& y = shape_of(n.outputs[0]);
    const device::tensor_id out = place_output(n, plain_layout(y, identity_permutation(y.size())));
    add_node(n.name, device::reduce{in, out, o.mean, o.axes, o.keepdims});
  }

  void lower(const node& n, const ops::gather& o) {
    const node_context where{n.name, n.onnx_op};
    const device::tensor_id in = in_layout(n.inputs[0], identity_permutation(shape_of(n.inputs[0]).size()), where);
    const dims& y = shape_of(n.outputs[0]);
    const device::tensor_id out = place_output(n, plain_layout(y, identity_permutation(y.size())));
    add_node(n.name, device::gather{in, out, o.axis, o.indices});
  }

  /// Row-major operands (lower ranks broadcast in logical order) and output.
  void lower(const node& n, const ops::integer_div& o) {
    const node_context where{n.name, n.onnx_op};
    const auto operand = [&](tensor_ref t) { return in_layout(t, identity_permutation(shape_of(t).size()), where); };
    const device::tensor_id a = operand(n.inputs[0]);
    const device::tensor_id b = operand(n.inputs[1]);
    const dims& y = shape_of(n.outputs[0]);
    const layout out_layout = plain_layout(y, identity_permutation(y.size()));
    const device::tensor_id out = place_output(n, out_layout);
    add_node(n.name, device::integer_div{a, b, out, o, fused_table(n, out_layout)});
  }

  /// Row ops (softmax, normalization) read the last logical axis as rows: logical layout.
  std::pair<device::tensor_id, device::tensor_id> row_op_tensors(const node& n) {
    const node_context where{n.name, n.onnx_op};
    const device::tensor_id in = in_layout(n.inputs[0], identity_permutation(shape_of(n.inputs[0]).size()), where);
    const device::tensor_id out =
        place_output(n, plain_layout(shape_of(n.outputs[0]), identity_permutation(shape_of(n.outputs[0]).size())));
    return {in, out};
  }
  void lower(const node& n, const ops::softmax& o) {
    const auto [in, out] = row_op_tensors(n);
    add_node(n.name, device::softmax{in, out, o});
  }
  void lower(const node& n, const ops::normalization& o) {
    const auto [in, out] = row_op_tensors(n);
    add_node(n.name, device::normalization{in, out, o});
  }

  /// Channels-last in and out, as the pools.
  void lower(const node& n, const ops::resize& o) {
    const node_context where{n.name, n.onnx_op};
    const permutation cl = channels_last_permutation(shape_of(n.inputs[0]).size());
    const device::tensor_id in = in_layout(n.inputs[0], cl, where);
    const device::tensor_id out = place_output(n, plain_layout(shape_of(n.outputs[0]), cl));
    add_node(n.name, device::resize{in, out, o});
  }

  void lower(const node& n, const ops::pad& o) {
    const placement& p = plain_input(n, {n.name, n.onnx_op});
    const permutation perm = p.where.perm;
    const device::tensor_id in = p.id;
    const device::tensor_id out = place_output(n, plain_layout(shape_of(n.outputs[0]), perm));
    add_node(n.name, device::pad{in, out, permuted(o.before, perm), permuted(o.after, perm), o.value});
  }

  void lower(const node& n, const ops::slice& o) {
    const placement& p = plain_input(n, {n.name, n.onnx_op});
    const permutation perm = p.where.perm;
    const device::tensor_id in = p.id;
    const device::tensor_id out = place_output(n, plain_layout(shape_of(n.outputs[0]), perm));
    add_node(n.name, device::slice{in, out, permuted(o.start, perm), permuted(o.step, perm)});
  }

  void lower(const node& n, const ops::concat& o) {
    const node_context where{n.name, n.onnx_op};
    const permutation perm = plain_input(n, where).where.perm;
    device::concat d;
    for (tensor_ref t : n.inputs) d.inputs.push_back(in_layout(t, perm, where));
    d.axis = inverse(perm)[static_cast<std::size_t>(o.axis)];
    d.output = place_output(n, plain_layout(shape_of(n.outputs[0]), perm));
    add_node(n.name, std::move(d));
  }

  /// A Transpose relabels the dims and leaves the bytes where they are: its output's layout
  /// is chosen so that it stores the same data (perm_out = inverse(T) o perm_in); a reader
  /// that needs another layout converts once, which is the copy the Transpose would make.
  void lower(const node& n, const ops::transpose& o) {
    const placement& p = plain_input(n, {n.name, n.onnx_op});
    const permutation undo = inverse(o.perm);
    permutation perm;
    for (int axis : p.where.perm) perm.push_back(undo[static_cast<std::size_t>(axis)]);
    const device::tensor_id in = p.id;
    const device::tensor_id out = place_output(n, plain_layout(shape_of(n.outputs[0]), perm));
    add_node(n.name, device::reshape{in, out});
  }

  void lower(const node& n, const ops::reshape&) {
    const node_context where{n.name, n.onnx_op};
    const tensor_ref t = n.inputs[0];
    const dims& x = shape_of(t);
    const dims& y = shape_of(n.outputs[0]);
    const placement& p = placed(t);
    layout out_layout = plain_layout(y, identity_permutation(y.size()));
    device::tensor_id in = p.id;
    if (x == y) {
      out_layout = p.where;  // Identity: same shape, same layout
    } else if (!is_plain(p.where, x) && y == p.where.view) {
      out_layout = plain_layout(y, p.where.perm);  // un-flattening: the data is plain again
    } else if (is_row_major(x, p.where)) {
      // The bytes already are in logical order (e.g. NHWC of a (1, C, 1, 1) map).
    } else if (absorbable(n.outputs[0], p.where)) {
      out_layout = p.where;  // keep the data; the reading gemms permute their weights
    } else {
      in = in_layout(t, identity_permutation(x.size()), where);
    }
    const device::tensor_id out = place_output(n, out_layout);
    add_node(n.name, device::reshape{in, out});
  }

  /// Graph outputs are caller buffers: one that is also a graph input (or an output listed
  /// twice) gets its own buffer and a copy node.
  void add_graph_output(tensor_ref t) {
    device::tensor_id id = placed(t).id;
    const auto listed = [&](const std::vector<device::tensor_id>& ids) {
      return std::find(ids.begin(), ids.end(), id) != ids.end();
    };
    if (listed(out_.inputs) || listed(out_.outputs)) {
      device::tensor copy = out_.tensors[static_cast<std::size_t>(id)];
      copy.name += "_copy";
      out_.tensors.push_back(copy);
      const auto copy_id = static_cast<device::tensor_id>(out_.tensors.size() - 1);
      add_node(copy.name, device::reshape{id, copy_id});
      id = copy_id;
    }
    out_.outputs.push_back(id);
  }

  const graph& g_;
  std::vector<std::vector<int>> consumers_;
  std::vector<placement> placed_;
  std::map<std::pair<tensor_ref, permutation>, device::tensor_id> copies_;
  device::graph out_;
};

}  // namespace

device::graph to_device(const graph& g) { return layout_pass(g).run(); }

}  // namespace tessera::onnx2hpp
