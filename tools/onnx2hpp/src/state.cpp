#include "state.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "diagnostics.hpp"
#include "onnx_values.hpp"

namespace tessera::onnx2hpp {

namespace {

/// Logical (ONNX) shapes by tensor name.
using shape_map = std::map<std::string, dims>;

/// One --state pair as the model has it.
struct cache_pair {
  std::string input, output;  ///< the cache graph input and its grown copy
  std::string rows;           ///< the Concat's second input: what a call appends
  int axis = 0;               ///< the Concat's (logical) axis
};

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) text += (text.empty() ? "" : "\n  ") + line;
  return text;
}

const onnx::ValueInfoProto* graph_input(const onnx::GraphProto& g, const std::string& name) {
  for (const auto& v : g.input())
    if (v.name() == name) return &v;
  return nullptr;
}

/// The pairs of --state, checked against the model: every problem at once.
std::vector<cache_pair> find_pairs(const onnx::GraphProto& g, const options& o) {
  std::vector<std::string> problems;
  std::vector<cache_pair> pairs;
  std::set<std::string> seen;
  for (const auto& pair : o.states) {
    const std::string& in = pair.first;  // not a structured binding: clang 14 (the fuzzer's) cannot capture one
    const std::string& out = pair.second;
    const std::string spec = fmt::format("--state {}={}", in, out);
    if (!seen.insert(in).second || !seen.insert(out).second) {
      problems.push_back(spec + ": a cache or grown cache named twice");
      continue;
    }
    for (const auto& shape : o.shapes)
      if (shape.first == in) problems.push_back(spec + ": --shape of a cache input (its length is --max-context's)");
    const onnx::ValueInfoProto* input = graph_input(g, in);
    if (input == nullptr) problems.push_back(fmt::format("{}: the model has no graph input '{}'", spec, in));
    if (std::none_of(g.output().begin(), g.output().end(), [&](const auto& v) { return v.name() == out; }))
      problems.push_back(fmt::format("{}: the model has no graph output '{}'", spec, out));
    const onnx::NodeProto* concat = nullptr;
    for (const auto& n : g.node()) {
      if (std::find(n.output().begin(), n.output().end(), out) != n.output().end()) concat = &n;
      if (n.op_type() != "Concat" && std::find(n.input().begin(), n.input().end(), in) != n.input().end())
        problems.push_back(fmt::format("{}: node '{}' ({}) reads the cache '{}'; only the Concat that grows it may",
                                       spec, n.name(), n.op_type(), in));
    }
    if (concat == nullptr || concat->op_type() != "Concat" || concat->input_size() != 2 || concat->input(0) != in ||
        concat->input(1) == in) {
      problems.push_back(fmt::format("{}: '{}' must be the output of a Concat of '{}' and the rows a call appends "
                                     "(Concat(cache, rows, axis), the cache first)",
                                     spec, out, in));
      continue;
    }
    if (input == nullptr) continue;
    const auto& shape = input->type().tensor_type().shape();
    bool fixed = input->type().has_tensor_type() && input->type().tensor_type().has_shape();
    for (const auto& d : shape.dim()) fixed = fixed && d.has_dim_value() && d.dim_value() >= 0;
    if (!fixed) {
      problems.push_back(fmt::format("{}: the shape of '{}' must be fixed in the model", spec, in));
      continue;
    }
    std::int64_t axis = int_attribute(*concat, "axis", 0);
    if (axis < 0) axis += shape.dim_size();
    if (axis < 0 || axis >= shape.dim_size()) {
      problems.push_back(fmt::format("{}: the Concat's axis is outside the cache's {} dimensions", spec, shape.dim_size()));
      continue;
    }
    pairs.push_back({in, out, concat->input(1), static_cast<int>(axis)});
  }
  if (!problems.empty()) fail(joined(problems));
  return pairs;
}

/// Extent of `name` along `axis` in ONNX's shapes (-1: unknown).
std::int64_t extent(const shape_map& shapes, const std::string& name, int axis) {
  const auto it = shapes.find(name);
  if (it == shapes.end() || axis >= static_cast<int>(it->second.size())) return -1;
  return it->second[static_cast<std::size_t>(axis)];
}

/// The tensors computed from the grown caches (a fixpoint: the model need not be sorted yet).
std::set<std::string> downstream_of_caches(const onnx::GraphProto& g, const std::vector<cache_pair>& pairs) {
  std::set<std::string> reached;
  for (const auto& p : pairs) reached.insert(p.output);
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& n : g.node()) {
      if (std::none_of(n.input().begin(), n.input().end(), [&](const std::string& i) { return reached.count(i) > 0; }))
        continue;
      for (const auto& out : n.output()) grew = reached.insert(out).second || grew;
    }
  }
  return reached;
}

/// A constant operand of an Add/Sub/Mul/Div computed from the caches that spans the grown
/// length (`grown` positions, against an operand that spans it too) and holds one value along
/// it (Deeploy's export adds such a score offset) is given extent 1 there: it then broadcasts
/// at any length, with the same values. One that varies along it (a causal mask) stays, and
/// is reported.
void broadcast_uniform_constants(onnx::ModelProto& model, const std::vector<cache_pair>& pairs, std::int64_t grown,
                                 const shape_map& shapes) {
  auto& g = *model.mutable_graph();
  const std::set<std::string> computed = downstream_of_caches(g, pairs);
  std::vector<std::string> problems;
  std::map<std::string, int> initializer;
  for (int i = 0; i < g.initializer_size(); ++i) initializer[g.initializer(i).name()] = i;
  for (auto& n : *g.mutable_node()) {
    const std::string& op = n.op_type();
    if ((op != "Add" && op != "Sub" && op != "Mul" && op != "Div") || n.input_size() != 2 ||
        n.output_size() < 1 || computed.count(n.output(0)) == 0)
      continue;
    for (int c = 0; c < 2; ++c) {
      const auto found = initializer.find(n.input(c));
      const auto other = shapes.find(n.input(1 - c));
      if (found == initializer.end() || other == shapes.end()) continue;
      const onnx::TensorProto& constant = g.initializer(found->second);
      int_array values;
      try {
        values = integer_tensor(constant, {n.name(), op}, "constant");
      } catch (const conversion_error&) {
        continue;  // not integers: left as it is
      }
      const auto rank = static_cast<int>(values.shape.size()), other_rank = static_cast<int>(other->second.size());
      for (int a = 0; a < rank; ++a) {
        const int aligned = a - rank + other_rank;
        if (values.shape[static_cast<std::size_t>(a)] != grown || aligned < 0 ||
            other->second[static_cast<std::size_t>(aligned)] != grown)
          continue;
        std::int64_t inner = 1;
        for (int k = a + 1; k < rank; ++k) inner *= values.shape[static_cast<std::size_t>(k)];
        bool uniform = true;
        std::vector<std::int64_t> kept;
        for (std::size_t i = 0; i < values.values.size(); ++i) {
          const std::size_t first = i - (i / static_cast<std::size_t>(inner) % static_cast<std::size_t>(grown)) *
                                            static_cast<std::size_t>(inner);
          uniform = uniform && values.values[i] == values.values[first];
          if (i == first) kept.push_back(values.values[i]);
        }
        if (!uniform) {
          problems.push_back(fmt::format(
              "node '{}' ({}): its constant '{}' spans the {} cached and appended positions (axis {}) and varies along "
              "them (a causal mask?): a one-step network needs constants that hold at every cache length; the masked "
              "form is the prefill, exported with empty caches",
              n.name(), op, constant.name(), grown, a));
          break;
        }
        onnx::TensorProto narrow;
        narrow.set_name(constant.name() + "__broadcast_over_the_cache_length");
        narrow.set_data_type(constant.data_type());
        for (int k = 0; k < rank; ++k) narrow.add_dims(k == a ? 1 : values.shape[static_cast<std::size_t>(k)]);
        switch (constant.data_type()) {
          case onnx::TensorProto::FLOAT:
            for (auto v : kept) narrow.add_float_data(static_cast<float>(v));
            break;
          case onnx::TensorProto::DOUBLE:
            for (auto v : kept) narrow.add_double_data(static_cast<double>(v));
            break;
          case onnx::TensorProto::INT64:
            for (auto v : kept) narrow.add_int64_data(v);
            break;
          case onnx::TensorProto::INT32:
          case onnx::TensorProto::INT16:
          case onnx::TensorProto::INT8:
          case onnx::TensorProto::UINT16:
          case onnx::TensorProto::UINT8:
            for (auto v : kept) narrow.add_int32_data(static_cast<std::int32_t>(v));
            break;
          default: continue;
        }
        *g.add_initializer() = narrow;
        n.set_input(c, narrow.name());
        break;  // one axis of one constant per node is the length
      }
    }
  }
  if (!problems.empty()) fail("--state: " + joined(problems));
}

/// The model with every cache input at `length` positions; the shapes ONNX recorded for the
/// other tensors are dropped, so that shape inference recomputes them.
onnx::ModelProto at_cache_length(const onnx::ModelProto& model, const std::vector<cache_pair>& pairs,
                                 std::int64_t length) {
  onnx::ModelProto copy = model;
  auto& g = *copy.mutable_graph();
  for (auto& input : *g.mutable_input())
    for (const auto& p : pairs)
      if (input.name() == p.input)
        input.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(p.axis)->set_dim_value(length);
  g.clear_value_info();
  for (auto& output : *g.mutable_output())
    if (output.type().has_tensor_type()) output.mutable_type()->mutable_tensor_type()->clear_shape();
  return copy;
}

/// The tensors of `capacity` (the model at cache length C - S) whose extents grow one for one
/// with the cache (`probe`: at C - S + 1) become sequence tensors; anything else that changes
/// with the length is reported.
void mark_sequence_tensors(device::graph& capacity, const device::graph& probe) {
  if (capacity.tensors.size() != probe.tensors.size() || capacity.nodes.size() != probe.nodes.size())
    fail("--state: the model lowers to different graphs at two cache lengths; Tessera's state networks need a graph "
         "whose operations do not depend on the length");
  std::vector<std::string> problems;
  for (std::size_t i = 0; i < capacity.nodes.size(); ++i) {
    const auto& a = capacity.nodes[i];
    const auto& b = probe.nodes[i];
    if (a.operation.index() != b.operation.index()) {
      problems.push_back(fmt::format("layer '{}': a different operation at another cache length", a.name));
      continue;
    }
    const auto* x = std::get_if<device::binary>(&a.operation);
    const auto* y = std::get_if<device::binary>(&b.operation);
    if (x != nullptr && (x->b_shape != y->b_shape || x->constant_b != y->constant_b))
      problems.push_back(fmt::format("layer '{}': its constant operand spans the cache length and varies along it "
                                     "(a causal mask?): a one-step network needs constants that hold at every length; "
                                     "export the masked form with empty caches (a prefill)",
                                     a.name));
  }
  for (std::size_t t = 0; t < capacity.tensors.size(); ++t) {
    device::tensor& a = capacity.tensors[t];
    const device::tensor& b = probe.tensors[t];
    if (a.shape.size() != b.shape.size()) {
      problems.push_back(fmt::format("tensor '{}': its rank depends on the cache length", a.name));
      continue;
    }
    int grows = -1, changed = 0;
    for (std::size_t d = 0; d < a.shape.size(); ++d) {
      if (a.shape[d] == b.shape[d]) continue;
      ++changed;
      if (b.shape[d] == a.shape[d] + 1) grows = static_cast<int>(d);
    }
    if (changed == 0) continue;
    if (changed > 1 || grows < 0) {
      problems.push_back(fmt::format("tensor '{}': its extents change other than one for one with the cache length",
                                     a.name));
      continue;
    }
    a.sequence_axis = grows;
  }
  if (!problems.empty()) fail("--state: " + joined(problems));
}

template <class F>
void for_each_input(device::any_op& op, F f) {
  std::visit(
      [&](auto& o) {
        if constexpr (requires { o.input; }) f(o.input);
        if constexpr (requires { o.a; }) f(o.a);
        if constexpr (requires { o.b; }) {
          if (o.b >= 0) f(o.b);
        }
        if constexpr (requires { o.inputs; })
          for (auto& i : o.inputs) f(i);
        if constexpr (requires { o.rows; }) f(o.rows);
      },
      op);
}

bool reads(device::any_op& op, device::tensor_id t) {
  bool found = false;
  for_each_input(op, [&](device::tensor_id& i) { found = found || i == t; });
  return found;
}

void redirect_readers(device::graph& g, device::tensor_id from, device::tensor_id to) {
  for (auto& n : g.nodes)
    for_each_input(n.operation, [&](device::tensor_id& i) {
      if (i == from) i = to;
    });
}

/// The readers of a state tensor read it in place: a Reshape that keeps its shape is dropped,
/// a Transpose of its last two axes whose readers are all MatMul right operands becomes their
/// transposed operand; any other reader is reported.
void read_states_in_place(device::graph& g) {
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t i = 0; i < g.nodes.size() && !changed; ++i) {
      auto& op = g.nodes[i].operation;
      if (const auto* r = std::get_if<device::reshape>(&op); r != nullptr && g.tensors[static_cast<std::size_t>(r->input)].state) {
        if (g.tensors[static_cast<std::size_t>(r->input)].shape != g.tensors[static_cast<std::size_t>(r->output)].shape)
          fail(fmt::format("--state: layer '{}' reshapes the cache '{}': a cache is read in its own shape", g.nodes[i].name,
                           g.tensors[static_cast<std::size_t>(r->input)].name));
        const device::tensor_id from = r->output, to = r->input;
        g.nodes.erase(g.nodes.begin() + static_cast<std::ptrdiff_t>(i));
        redirect_readers(g, from, to);
        changed = true;
      } else if (const auto* t = std::get_if<device::transpose>(&op);
                 t != nullptr && g.tensors[static_cast<std::size_t>(t->input)].state) {
        const auto rank = t->perm.size();
        bool swaps_last_two = rank >= 2 && t->perm[rank - 1] == static_cast<int>(rank) - 2 &&
                              t->perm[rank - 2] == static_cast<int>(rank) - 1;
        for (std::size_t k = 0; k + 2 < rank; ++k) swaps_last_two = swaps_last_two && t->perm[k] == static_cast<int>(k);
        std::vector<device::matmul*> readers;
        bool only_right_operands = true;
        for (auto& n : g.nodes) {
          if (!reads(n.operation, t->output)) continue;
          auto* m = std::get_if<device::matmul>(&n.operation);
          if (m != nullptr && m->b == t->output && m->a != t->output && !m->b_transposed) readers.push_back(m);
          else only_right_operands = false;
        }
        if (!swaps_last_two || !only_right_operands || readers.empty())
          fail(fmt::format("--state: layer '{}' transposes the cache '{}': a cache is read in place, by MatMul (as its "
                           "right operand through a Transpose of the last two axes)",
                           g.nodes[i].name, g.tensors[static_cast<std::size_t>(t->input)].name));
        for (auto* m : readers) {
          m->b = t->input;
          m->b_transposed = true;
        }
        g.nodes.erase(g.nodes.begin() + static_cast<std::ptrdiff_t>(i));
        changed = true;
      }
    }
  }
  std::vector<std::string> problems;
  for (auto& n : g.nodes) {
    if (std::holds_alternative<device::matmul>(n.operation) || std::holds_alternative<device::state_append>(n.operation))
      continue;
    for_each_input(n.operation, [&](device::tensor_id& i) {
      if (g.tensors[static_cast<std::size_t>(i)].state)
        problems.push_back(fmt::format("layer '{}' reads the cache '{}': a cache is read in place, by MatMul only "
                                       "(directly, through a Reshape that keeps its shape or a Transpose of its last "
                                       "two axes)",
                                       n.name, g.tensors[static_cast<std::size_t>(i)].name));
    });
  }
  if (!problems.empty()) fail("--state: " + joined(problems));
}

/// Every layer that computes over the run-time length has a kernel for it (the library's
/// `run_at`): reported here by name rather than as a compile error in the user's build.
void check_sequence_layers(device::graph& g) {
  std::vector<std::string> problems;
  for (auto& n : g.nodes) {
    bool touches = false;
    for_each_input(n.operation, [&](device::tensor_id& i) { touches = touches || g.tensors[std::size_t(i)].sequence_axis >= 0; });
    std::visit(
        [&](const auto& o) {
          if constexpr (requires { o.output; }) touches = touches || g.tensors[std::size_t(o.output)].sequence_axis >= 0;
        },
        n.operation);
    const bool runs_at_length =
        std::holds_alternative<device::matmul>(n.operation) || std::holds_alternative<device::binary>(n.operation) ||
        std::holds_alternative<device::requant_shift>(n.operation) ||
        std::holds_alternative<device::integer_div>(n.operation) || std::holds_alternative<device::softmax>(n.operation) ||
        std::holds_alternative<device::transpose>(n.operation) || std::holds_alternative<device::reshape>(n.operation) ||
        std::holds_alternative<device::state_append>(n.operation);
    if (touches && !runs_at_length)
      problems.push_back(fmt::format("layer '{}' computes over the cache length, which Tessera runs for MatMul, "
                                     "Add/Sub/Mul, RequantShift, IntegerDiv, the softmaxes, Transpose and Reshape only",
                                     n.name));
  }
  if (!problems.empty()) fail("--state: " + joined(problems));
}

device::tensor_id find_tensor(const device::graph& g, const std::vector<device::tensor_id>& among, const std::string& name) {
  for (device::tensor_id t : among) {
    const auto& source = g.tensors[static_cast<std::size_t>(t)].source;
    if (source && source->onnx_name == name) return t;
  }
  fail("--state: '" + name + "' has no tensor in the converted graph");
}

}  // namespace

device::graph lower_with_state(const onnx::ModelProto& model, const options& o, const lower_to_device_fn& lower) {
  const std::vector<cache_pair> pairs = find_pairs(model.graph(), o);
  // The model as exported, and the logical shapes the converter computed for its tensors (ONNX's
  // shape inference does not know the dialect's ops).
  device::graph as_exported = lower(model);
  shape_map shapes;
  for (const auto& t : as_exported.tensors)
    if (t.source) shapes.emplace(t.source->onnx_name, t.source->logical);
  std::int64_t cached = -1, appended = -1;
  std::vector<std::string> problems;
  for (const auto& p : pairs) {
    const std::int64_t n = extent(shapes, p.input, p.axis), s = extent(shapes, p.rows, p.axis);
    if (n < 0 || s < 1) {
      problems.push_back(fmt::format("--state {}={}: the extents of '{}' and '{}' along the Concat's axis are not known",
                                     p.input, p.output, p.input, p.rows));
      continue;
    }
    if ((cached >= 0 && n != cached) || (appended >= 0 && s != appended))
      problems.push_back(fmt::format("--state {}={}: {} cached and {} appended positions, the first pair {} and {}: "
                                     "the caches of one state have one length",
                                     p.input, p.output, n, s, cached, appended));
    if (cached < 0) cached = n, appended = s;
  }
  if (!problems.empty()) fail(joined(problems));
  const std::int64_t capacity = o.max_context;
  if (capacity < appended)
    fail(fmt::format("--max-context {}: a call appends {} positions to each cache", capacity, appended));

  device::graph g;
  const bool prefill = cached == 0;
  if (prefill) {
    g = std::move(as_exported);
  } else {
    onnx::ModelProto broadcast = model;
    broadcast_uniform_constants(broadcast, pairs, cached + appended, shapes);
    // At the capacity and one past it: the model's shapes must follow the caches' length.
    const auto at_length = [&](std::int64_t length) {
      try {
        return lower(at_cache_length(broadcast, pairs, length));
      } catch (const conversion_error& e) {
        fail(fmt::format("--state: with caches of {} positions instead of {}: {}\n  (a one-step network needs "
                         "shapes and constants that hold at every cache length; every cache that attention reads "
                         "beside a --state one must be a --state too)",
                         length, cached, e.what()));
      }
    };
    g = at_length(capacity - appended);
    const device::graph probe = at_length(capacity - appended + 1);
    mark_sequence_tensors(g, probe);
  }

  for (const auto& p : pairs) {
    const device::tensor_id in = find_tensor(g, g.inputs, p.input), out = find_tensor(g, g.outputs, p.output);
    auto node = std::find_if(g.nodes.begin(), g.nodes.end(), [&](const device::node& n) {
      const auto* c = std::get_if<device::concat>(&n.operation);
      return c != nullptr && c->output == out;
    });
    const auto* concat = node == g.nodes.end() ? nullptr : std::get_if<device::concat>(&node->operation);
    if (concat == nullptr || concat->inputs.size() != 2 || concat->inputs[0] != in)
      fail(fmt::format("--state {}={}: the converted graph does not grow the cache by one Concat", p.input, p.output));
    const device::tensor_id rows = concat->inputs[1];
    const int axis = concat->axis;
    device::tensor& state = g.tensors[static_cast<std::size_t>(out)];
    if (prefill) {
      // An empty cache: the grown one holds the rows alone, so its readers read them.
      state.shape[static_cast<std::size_t>(axis)] = capacity;
      state.sequence_axis = axis;
      *node = {node->name, device::state_append{rows, out, axis}};
      for (auto& n : g.nodes)
        if (!std::holds_alternative<device::state_append>(n.operation))
          for_each_input(n.operation, [&](device::tensor_id& i) {
            if (i == out) i = rows;
          });
    } else {
      if (state.sequence_axis != axis || state.shape[static_cast<std::size_t>(axis)] != capacity)
        fail(fmt::format("--state {}={}: the grown cache does not grow along the Concat's axis", p.input, p.output));
      *node = {node->name, device::state_append{rows, out, axis}};
    }
    state.state = true;
    g.tensors[static_cast<std::size_t>(in)].sequence_axis = -1;  // no longer in the graph
    g.inputs.erase(std::find(g.inputs.begin(), g.inputs.end(), in));
  }
  read_states_in_place(g);
  check_sequence_layers(g);
  return g;
}

}  // namespace tessera::onnx2hpp
