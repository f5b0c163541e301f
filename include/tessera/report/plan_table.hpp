// Host-side report of a network and its plan: one row per layer, then totals. Uses {fmt}
// (host tools and reports only; target code never includes this header).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <fmt/format.h>

#include <tessera/planning/arena_plan.hpp>
#include <tessera/planning/ram_budget.hpp>

namespace tessera::report {

inline std::string format_shape(const shape& s) {
  std::string text = "{";
  for (int i = 0; i < s.rank; ++i) text += fmt::format("{}{}", i ? "," : "", s[i]);
  return text + "}";
}

/// The per-layer table of `Net` and the arena plan of its flat executor (`executor<Net>`: the
/// native kernels, the least RAM; planning/ram_budget.hpp). Each layer's kernel scratch is its
/// own column (the arena holds it while the layer runs); "in place" marks an output written
/// over its input, "least-scratch" a layer that runs its variant with less scratch.
template <class Net>
std::string plan_table() {
  constexpr auto& g = Net::summary;
  constexpr auto family = kernels::native_family;
  constexpr auto plan = plan_within_ram(g, family, kernels::runnable(family));
  constexpr auto f = static_cast<std::size_t>(family);
  std::string out = fmt::format("{:>3}  {:<28} {:<12} {:<16} {:<4} {:>10} {:>9} {:>9} {:>8} {:>9}  {}\n", "#", "layer",
                                "op", "output (NHWC)", "type", "MACs", "const B", "out B", "offset", "scratch B",
                                "kernel");
  for (std::size_t n = 0; n < g.nodes.size(); ++n) {
    const node_summary& node = g.nodes[n];
    const auto out_id = static_cast<std::size_t>(node.outputs[0]);
    const tensor_desc& t = g.tensors[out_id];
    const std::int64_t offset = plan.tensor_offset[out_id];
    const bool lean = plan.choices.lean[n];
    const std::size_t scratch = lean ? node.lean_scratch[f] : node.scratch[f];
    const auto in_id = node.input_count > 0 ? static_cast<std::size_t>(node.inputs[0]) : out_id;
    const bool in_place = !node.is_alias && offset >= 0 && in_id != out_id && plan.tensor_offset[in_id] == offset;
    const char* kernel = node.kernel[f];
    std::string what = kernel != nullptr ? kernel : "-";
    if (lean) what += ", least-scratch variant";
    if (in_place) what += ", in place";
    out += fmt::format("{:>3}  {:<28} {:<12} {:<16} {:<4} {:>10} {:>9} {:>9} {:>8} {:>9}  {}\n", n, node.name.c_str(),
                       std::string(name_of(node.kind)) + (node.is_alias ? "*" : ""), format_shape(t.dims),
                       name_of(t.type), node.macs, node.constant_bytes, t.bytes(),
                       offset < 0 ? std::string("caller") : std::to_string(offset), scratch, what);
  }
  out += fmt::format("total: {} layers, {} MACs, {} constant bytes, arena {} bytes (lower bound {} bytes, {} with "
                     "16-byte aligned buffers; plan: {}{})\n",
                     g.nodes.size(), Net::macs(), Net::constant_bytes(), plan.arena_bytes, plan.lower_bound_bytes,
                     plan.aligned_bound_bytes, name_of(plan.method), plan.optimal ? ", optimal" : "");
  out += fmt::format("(* aliases its input's buffer when both live in the arena; 'caller' = graph input/output buffer;\n"
                     " kernel: what the {} kernel family runs, 'reference' where it declines the case)\n",
                     kernels::family_name(kernels::native_family));
  return out;
}

}  // namespace tessera::report
