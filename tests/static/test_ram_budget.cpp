// The flat executor's arena within a RAM budget (planning/ram_budget.hpp): per layer the faster
// kernel variant where its scratch fits the budget, the least-scratch one elsewhere, and
// outputs written over their inputs where the kernel allows it. Compile-only: the arm_dsp
// traits compile on every host, so this plans the Cortex-M4 arena; the keyword-spotting
// firmware runs the same plan under QEMU (bit-exact, benchmarks/qemu/kws_firmware.cpp).
#include <cstddef>
#include <type_traits>

#include <tessera/tessera.hpp>

#include "../../benchmarks/qemu/kws_network.hpp"
#include "../support/arena_cases.hpp"

namespace {

namespace k = tessera::kernels;
using k::conv_variant;
using k::kernel_family;
constexpr auto dsp = kernel_family::arm_dsp;
constexpr auto ref = kernel_family::reference;
constexpr auto& g = kws::network::summary;
constexpr auto& tensors = kws::tensors;
using dw1 = kws::depthwise<1, "dw1">;
using pw1 = kws::pointwise<1, "pw1">;

// The layers' choices on the Cortex-M4: the depthwise layers prefer the CHW kernel (1,843
// bytes of scratch: four int16 planes), which writes in place, and may run the HWC one (175
// bytes: a 16-channel chunk of accumulators, the pad row and the tap pointers), which does not;
// the pointwise layers write in place.
static_assert(dw1::variant<tensors, dsp> == conv_variant::depthwise_chw);
static_assert(dw1::lean_variant<tensors, dsp> == conv_variant::depthwise_hwc);
static_assert(g.nodes[1].scratch[static_cast<std::size_t>(dsp)] == 1843);
static_assert(g.nodes[1].lean_scratch[static_cast<std::size_t>(dsp)] == 64 + 40 + 64 + 7);
static_assert(pw1::lean_variant<tensors, dsp> == pw1::variant<tensors, dsp>);
static_assert(pw1::writes_in_place<tensors, dsp>() && dw1::writes_in_place<tensors, dsp>());
static_assert(!pw1::writes_in_place<tensors, ref>());  // the reference writes outputs as it sums
static_assert(g.nodes[2].in_place[static_cast<std::size_t>(dsp)] && !g.nodes[0].in_place[static_cast<std::size_t>(dsp)]);

// The default budget (least_ram) on the Cortex-M4: every depthwise and pointwise output takes
// its input's 8,000 bytes, so one map is live at those steps and the CHW kernel's 1,843 bytes
// cost less than the HWC kernel's 175 plus a second map: 8,000 + 1,856 = 9,856 bytes, against
// CMSIS-NN's 16,256 (two 8,000-byte ping-pong buffers and 256 bytes of scratch,
// docs/benchmarks.md), with every layer's fastest kernel.
constexpr auto least = tessera::plan_within_ram(g, dsp, dsp);
static_assert(least.arena_bytes == 9856 && least.arena_bytes <= 16256);
static_assert(least.choices.in_place);
static_assert([] {
  for (bool lean : least.choices.lean)
    if (lean) return false;
  return true;
}());
static_assert(least.tensor_offset[2] == least.tensor_offset[1]);  // dw1 writes over conv0's output
static_assert(least.tensor_offset[3] == least.tensor_offset[2]);  // pw1 writes over dw1's output
static_assert(arena_cases::valid_plan(g, least, {}, true, dsp));
static_assert(tessera::plan_within_ram(g, dsp, dsp, tessera::any_ram).arena_bytes == 9856);

// Where the kernels that run do not write in place (the reference, which stands in for arm_dsp
// on a host), the budget chooses between the variants: by default every depthwise layer runs
// HWC (the pointwise steps hold two maps and 1,607 bytes of scratch: 17,616 bytes); a budget
// of the CHW kernels' arena, 17,856, gives every layer its faster variant; in between, none
// fits (each depthwise step peaks alike).
constexpr auto on_host = tessera::plan_within_ram(g, dsp, ref);
static_assert(on_host.arena_bytes == 17616 && on_host.tensor_offset[3] != on_host.tensor_offset[2]);
static_assert(on_host.choices.lean[1] && on_host.choices.lean[3] && on_host.choices.lean[5] &&
              on_host.choices.lean[7] && !on_host.choices.lean[0] && !on_host.choices.lean[2]);
static_assert(arena_cases::valid_plan(g, on_host, {}, true, dsp));
constexpr auto roomy = tessera::plan_within_ram(g, dsp, ref, 17856);
static_assert(roomy.arena_bytes == 17856 && !roomy.choices.lean[1] && !roomy.choices.lean[7]);
static_assert(tessera::plan_within_ram(g, dsp, ref, tessera::any_ram).arena_bytes == 17856);
static_assert(tessera::plan_within_ram(g, dsp, ref, 17700).arena_bytes == 17616);
static_assert(arena_cases::valid_plan(g, roomy, {}, true, dsp));

// The executor plans with the kernels it runs.
static_assert(tessera::executor<kws::network, dsp>::arena_bytes ==
              (k::family_available(dsp) ? least.arena_bytes : on_host.arena_bytes));

// When an output may take its input's bytes: only when no later node reads that input (or
// anything sharing its buffer). A chain 0 -> t1 -> t2 (node 1 in place) -> t3, where node 2
// reads t1 again: t2 must not overwrite t1.
constexpr auto branch = [] {
  auto h = arena_cases::lifetime_graph<3, 3>({{{64, 0, 2}, {64, 1, 2}, {64, 2, 2}}});
  // node 0 writes t1; node 1 reads t1 (as input 0) and writes t2; node 2 reads t1 and t2.
  h.nodes[1].inputs[0] = 1;
  h.nodes[1].input_count = 1;
  for (auto& n : h.nodes) n.in_place[static_cast<std::size_t>(dsp)] = true;
  return h;
}();
static_assert(tessera::plan_within_ram(branch, dsp, dsp).tensor_offset[2] !=
              tessera::plan_within_ram(branch, dsp, dsp).tensor_offset[1]);
// Without the later read, t2 takes t1's bytes (and node 2's input 0, t2, dies there: t3 too).
constexpr auto chain = [] {
  auto h = arena_cases::lifetime_graph<3, 4>({{{64, 0, 1}, {64, 1, 2}, {64, 2, 3}}});
  for (auto& n : h.nodes) n.in_place[static_cast<std::size_t>(dsp)] = true;
  return h;
}();
constexpr auto chained = tessera::plan_within_ram(chain, dsp, dsp);
static_assert(chained.tensor_offset[1] == chained.tensor_offset[2] && chained.tensor_offset[2] == chained.tensor_offset[3]);
static_assert(chained.arena_bytes == 64 && arena_cases::valid_plan(chain, chained, {}, true, dsp));
// ... and not when the plan runs other kernels (the flag is per family).
static_assert(tessera::plan_within_ram(chain, dsp, ref).arena_bytes == 128);

}  // namespace
