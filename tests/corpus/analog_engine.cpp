// The analog-like engine (issue 13) on its ternary-weight test model (make_analog_models.py):
// onnx2hpp marks the convolutions ternary, the dispatcher sends them to the analog array, and
// the simulated engine's results equal a numpy model of the array's documented numerics
// (docs/semantics.md, "Analog-like engine") exactly - on a target whose only accelerator is the
// analog array, and on the DIANA-like preset under HTVM's mixed policy (first and last
// convolutions on the digital engine, the CPU's integers; the middle one on the array). The
// flat executor, with the CPU's integers, equals the numpy reference of the CPU rules.
#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <vector>

#include <catch2/catch.hpp>

#include <tessera/dma/simulated_policy.hpp>
#include <tessera/tessera.hpp>

#include "device_values.hpp"
#include "npz.hpp"
#include "ternary_convs.hpp"

namespace {

namespace model = ternary_convs;
using net = model::network;
const std::filesystem::path case_dir = TESSERA_ANALOG_CASE_DIR;

// Nodes: conv_a 0, conv_b 1, pool 2, conv_c 3 (RequantShifts fused into the convolutions).
static_assert(net::summary.nodes[0].ternary_weights && net::summary.nodes[1].ternary_weights &&
              net::summary.nodes[3].ternary_weights);

constexpr tessera::target_desc analog_only = [] {
  tessera::target_desc t = tessera::targets::diana;
  t.accelerators[0] = tessera::targets::diana_analog;
  t.accelerator_count = 1;
  t.dispatch = tessera::dispatch_policy::first_match;
  return t;
}();
constexpr auto& diana = tessera::targets::diana;

// Who runs what: every convolution on the array; under the mixed policy the first and last on
// the digital engine (engine 1), the middle one on the array (engine 2); the pool on the CPU.
static_assert(tessera::engine_for(net::summary, analog_only, 0).engine == 1);
static_assert(tessera::engine_for(net::summary, analog_only, 1).engine == 1);
static_assert(tessera::engine_for(net::summary, analog_only, 2).engine == 0);
static_assert(tessera::engine_for(net::summary, analog_only, 3).engine == 1);
static_assert(tessera::engine_for(net::summary, diana, 0).engine == 1);
static_assert(tessera::engine_for(net::summary, diana, 1).engine == 2);
static_assert(tessera::engine_for(net::summary, diana, 3).engine == 1);
// Without ternary weights the array refuses a layer (the corpus networks all run digital).
static_assert([] {
  auto g = net::summary;
  g.nodes[1].ternary_weights = false;
  return tessera::engine_for(g, diana, 1).engine == 1 &&
         tessera::first_broken_rule(tessera::targets::diana_analog, g.nodes[1]) == tessera::rule::weight_format;
}());

const tessera::tensor_origin* origin_of(tessera::tensor_id id) {
  for (const auto& o : model::meta::origins)
    if (o.id == id) return &o;
  return nullptr;
}

std::vector<std::int64_t> golden(const char* file) {
  return tessera::tools::read_npz((case_dir / file).string()).at(0).values;
}

/// The model's input in its device layout.
std::vector<std::byte> input() {
  const auto sample = tessera::tools::read_npz((case_dir / "inputs.npz").string()).at(0);
  std::vector<std::byte> in(net::tensors[net::inputs[0]].bytes());
  tessera::tools::write_logical(*origin_of(net::inputs[0]), net::tensors[net::inputs[0]].type, sample.values, in.data());
  return in;
}

std::vector<std::int64_t> logical_output(const std::vector<std::byte>& out) {
  return tessera::tools::read_logical(*origin_of(net::outputs[0]), net::tensors[net::outputs[0]].type, out.data());
}

template <tessera::target_desc Target>
struct dispatched {
  using run = tessera::tiled_executor<net, tessera::target<Target>>;
  std::vector<std::int64_t> output;
  std::uint64_t hazards = 0;
  std::int64_t jobs = 0;
  dispatched() {
    const std::vector<std::byte> in = input();
    std::vector<std::byte> out(net::tensors[net::outputs[0]].bytes());
    alignas(16) static std::byte l2[run::l2_bytes];
    alignas(16) static std::byte l1[run::l1_bytes];
    tessera::dma::simulated_policy<> dma(Target);
    run::accelerators::reset_counts();
    run::run(l2, l1, {in.data()}, {out.data()}, dma);
    dma.finish();
    hazards = dma.hazard_count();
    for (int e = 1; e <= Target.accelerator_count; ++e) jobs += run::accelerators::jobs(e);
    output = logical_output(out);
  }
};

}  // namespace

TEST_CASE("the flat executor computes the CPU's integers", "[analog]") {
  const std::vector<std::byte> in = input();
  std::vector<std::byte> out(net::tensors[net::outputs[0]].bytes());
  alignas(16) static std::byte arena[tessera::executor<net>::arena_bytes];
  tessera::executor<net>::run(arena, {in.data()}, {out.data()});
  CHECK(logical_output(out) == golden("outputs.npz"));
}

TEST_CASE("every ternary convolution on the analog array equals the numpy model of its numerics", "[analog]") {
  const dispatched<analog_only> run;
  CHECK(run.output == golden("outputs_analog.npz"));
  CHECK(run.output != golden("outputs.npz"));
  CHECK(run.hazards == 0);
  CHECK(run.jobs > 0);
}

TEST_CASE("DIANA-like mixed policy: digital edges, the analog array between", "[analog]") {
  const dispatched<diana> run;
  CHECK(run.output == golden("outputs_mixed.npz"));
  CHECK(run.hazards == 0);
}
