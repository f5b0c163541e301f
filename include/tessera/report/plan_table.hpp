// Host-side report of a network and its plan: one row per layer, then totals. Uses {fmt}
// (host tools and reports only; target code never includes this header).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <fmt/format.h>

#include <tessera/planning/arena_plan.hpp>

namespace tessera::report {

inline std::string format_shape(const shape& s) {
  std::string text = "{";
  for (int i = 0; i < s.rank; ++i) text += fmt::format("{}{}", i ? "," : "", s[i]);
  return text + "}";
}

/// The per-layer table of `Net` and its arena plan.
template <class Net>
std::string plan_table() {
  constexpr auto& g = Net::summary;
  constexpr auto plan = arena_plan_of<Net>;
  std::string out = fmt::format("{:>3}  {:<28} {:<12} {:<16} {:<4} {:>10} {:>9} {:>9} {:>8}  {}\n", "#", "layer", "op",
                                "output (NHWC)", "type", "MACs", "const B", "out B", "offset", "kernel");
  for (std::size_t n = 0; n < g.nodes.size(); ++n) {
    const node_summary& node = g.nodes[n];
    const tensor_desc& t = g.tensors[static_cast<std::size_t>(node.outputs[0])];
    const std::int64_t offset = plan.tensor_offset[static_cast<std::size_t>(node.outputs[0])];
    const char* kernel = node.kernel[static_cast<std::size_t>(kernels::native_family)];
    out += fmt::format("{:>3}  {:<28} {:<12} {:<16} {:<4} {:>10} {:>9} {:>9} {:>8}  {}\n", n, node.name.c_str(),
                       std::string(name_of(node.kind)) + (node.is_alias ? "*" : ""), format_shape(t.dims),
                       name_of(t.type), node.macs, node.constant_bytes, t.bytes(),
                       offset < 0 ? std::string("caller") : std::to_string(offset), kernel != nullptr ? kernel : "-");
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
