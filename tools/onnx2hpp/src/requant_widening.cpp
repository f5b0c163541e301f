#include "requant_widening.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <variant>
#include <vector>

#include "quantization.hpp"

namespace tessera::onnx2hpp {

namespace {

constexpr std::int64_t int32_max = std::numeric_limits<std::int32_t>::max();

/// floor(a / b) for b > 0.
std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  const std::int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

/// The channel axis of a producer's logical output (Conv: NC..., Gemm: [..., N]), the number
/// of channels, and each channel's weights (a row of `weights`).
struct producer_view {
  int axis = 0;
  std::int64_t channels = 0;
  const int_array* weights = nullptr;
  std::optional<int_array>* bias = nullptr;
};

std::optional<producer_view> view_of(node& n, std::size_t output_rank) {
  if (auto* c = std::get_if<ops::conv>(&n.operation))
    return producer_view{1, c->weights.shape.empty() ? 0 : c->weights.shape.front(), &c->weights, &c->bias};
  if (auto* gm = std::get_if<ops::gemm>(&n.operation))
    return producer_view{static_cast<int>(output_rank) - 1, gm->n, &gm->weights, &gm->bias};
  return std::nullopt;
}

/// The axis along which `a` varies (-1 when it holds one value; -2 when it varies along more).
int varying_axis(const int_array& a) {
  int axis = -1;
  for (std::size_t i = 0; i < a.shape.size(); ++i) {
    if (a.shape[i] == 1) continue;
    if (axis != -1) return -2;
    axis = static_cast<int>(i);
  }
  return axis;
}

/// Rewrites `rq` (the requantization of producer `p`'s accumulator) with the shift the mul limit
/// alone allows, moving the excess of add into p's bias; leaves both unchanged when the wider
/// form does not fit (bias or accumulator beyond int32, per-channel layout not along p's channels).
void widen(requant& rq, node& producer, const graph& g, const node_context& where) {
  if (rq.divisor != 1) return;  // an exact mean's mul is exact already (and a power of two)
  const requant_source& src = *rq.source;
  const tensor& out = g.tensors[static_cast<std::size_t>(producer.outputs.front())];
  const std::optional<producer_view> p = view_of(producer, out.shape.size());
  if (!p || p->channels <= 0 || producer.inputs.empty()) return;
  const int axis = varying_axis(rq.mul);
  if (axis == -2 || (axis >= 0 && (axis != p->axis || rq.mul.shape[static_cast<std::size_t>(axis)] != p->channels)))
    return;

  const integer_multipliers wide =
      integer_requant(src.scale_in, src.zero_in, src.scale_out, src.zero_out, where, requant_add::unbounded);
  if (wide.shift <= rq.shift) return;
  // A multiplier below 2^-63 rounds to mul 0 (every output is the zero point): nothing to move
  // into the bias, and floor_div below would divide by 0 (fuzzer finding).
  if (std::any_of(wide.mul.begin(), wide.mul.end(), [](std::int64_t m) { return m <= 0; })) return;

  // The accumulator of channel c is sum(x * w[c]) + bias[c] + q[c]: bound it by the input's range.
  const tensor& in = g.tensors[static_cast<std::size_t>(producer.inputs.front())];
  const std::int64_t max_x = std::max(std::llabs(tessera::min_of(in.type)), std::llabs(tessera::max_of(in.type)));
  const auto per_channel = static_cast<std::size_t>(p->weights->values.size() / static_cast<std::size_t>(p->channels));
  std::vector<std::int64_t> bias(static_cast<std::size_t>(p->channels), 0);
  if (*p->bias) bias = (*p->bias)->values;
  if (bias.size() != static_cast<std::size_t>(p->channels) ||
      per_channel * static_cast<std::size_t>(p->channels) != p->weights->values.size())
    return;
  std::vector<std::int64_t> add(wide.add.size());
  for (std::size_t c = 0; c < bias.size(); ++c) {
    const std::size_t k = wide.mul.size() == 1 ? 0 : c;
    const std::int64_t q = floor_div(wide.add[k], wide.mul[k]);
    add[k] = wide.add[k] - q * wide.mul[k];
    if (__builtin_add_overflow(bias[c], q, &bias[c])) return;
    std::int64_t bound = std::llabs(bias[c]);
    for (std::size_t i = 0; i < per_channel && bound <= int32_max; ++i) {
      const std::int64_t w = std::llabs(p->weights->values[c * per_channel + i]);
      bound = w > int32_max ? int32_max + 1 : bound + w * max_x;  // |w| <= 2^31, max_x <= 2^31: no overflow
    }
    if (bound > int32_max) return;
  }
  *p->bias = int_array{{p->channels}, std::move(bias)};
  rq.mul.values = wide.mul;
  rq.add.values = std::move(add);
  rq.shift = wide.shift;
}

}  // namespace

void widen_requant_shifts(graph& g) {
  const auto readers = g.consumers();
  std::vector<node*> producer_of(g.tensors.size(), nullptr);  // single-output producers
  for (node& n : g.nodes)
    if (n.outputs.size() == 1) producer_of[static_cast<std::size_t>(n.outputs.front())] = &n;
  for (node& n : g.nodes) {
    auto* r = std::get_if<ops::requant_shift>(&n.operation);
    if (r == nullptr || !r->rq.source || n.inputs.size() != 1) continue;
    const auto acc = static_cast<std::size_t>(n.inputs.front());
    node* producer = producer_of[acc];
    if (producer == nullptr || producer->fused_requant || readers[acc].size() != 1 ||
        g.is_graph_output(n.inputs.front()))
      continue;
    widen(r->rq, *producer, g, node_context{n.name, n.onnx_op});
  }
}

}  // namespace tessera::onnx2hpp
