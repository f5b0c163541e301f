// Accelerator dispatch (target/engine.hpp, planning/dispatch.hpp): every rule of an engine's
// table refusing a layer (and the CPU taking it), the policies and overrides, the plan that
// puts an accelerator's tiles in its own memories, and tiled runs with the simulated engine
// bit-exact with the flat executor, 0 hazards in the simulated DMA and the compile-time proof.
#include <array>
#include <cstddef>
#include <cstdint>

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <type_traits>

#include <tessera/dma/simulated_policy.hpp>
#include <tessera/report/plan_pictures.hpp>
#include <tessera/report/tiled_plan_table.hpp>
#include <tessera/tessera.hpp>

#include "../support/tiny_networks.hpp"

namespace {

using net = tiny::separable::network;
using tessera::engine_desc;
using tessera::engine_op;
using tessera::op_bit;
using tessera::rule;

// Nodes: conv 0 (3x3, 3->8, u8 in), dw1 1, pw1 2, dw2 3 (stride 2, asymmetric padding), cast 4,
// pw2 5, pool 6, flatten 7, fc 8 (int32 logits).
constexpr auto& summary = net::summary;

/// A DIANA-like digital engine with memories of `Act` and `Weights` bytes.
template <std::size_t Act = 256 * 1024, std::size_t Weights = 64 * 1024>
constexpr engine_desc digital = [] {
  engine_desc e = tessera::targets::diana_digital;
  e.activations.bytes = Act;
  e.weights.bytes = Weights;
  return e;
}();

template <std::size_t L1, std::size_t Act, std::size_t Weights, tessera::dispatch_policy Policy = tessera::dispatch_policy::first_match>
constexpr tessera::target_desc diana_like = [] {
  tessera::target_desc t = tessera::targets::diana;
  t.levels[0].bytes = L1;
  t.levels[1].bytes = 64 * 1024;
  t.accelerators[0] = digital<Act, Weights>;
  t.dispatch = Policy;
  return t;
}();

constexpr tessera::target_desc with_rules(const tessera::engine_rules& r) {
  tessera::target_desc t = diana_like<8192, 8192, 4096>;
  t.accelerators[0].rules = r;
  return t;
}
constexpr tessera::engine_rules digital_rules = tessera::targets::diana_digital.rules;

constexpr int engine_of(const tessera::target_desc& t, std::size_t n) { return tessera::engine_for(summary, t, n).engine; }

// --- which layers the DIANA-like digital engine takes, and why not the others ----------------
constexpr tessera::target_desc diana8k = diana_like<8192, 8192, 4096>;
static_assert(engine_op_of(summary.nodes[0]) == engine_op::convolution);
static_assert(engine_op_of(summary.nodes[1]) == engine_op::depthwise);
static_assert(engine_op_of(summary.nodes[6]) == engine_op::pool);
static_assert(engine_op_of(summary.nodes[8]) == engine_op::dense);
static_assert(engine_of(diana8k, 0) == 1 && engine_of(diana8k, 1) == 1 && engine_of(diana8k, 2) == 1);
static_assert(engine_of(diana8k, 3) == 0 && engine_for(summary, diana8k, 3).first_refusal == rule::padding);
static_assert(engine_of(diana8k, 4) == 0 && engine_for(summary, diana8k, 4).first_refusal == rule::op_kind);
static_assert(engine_of(diana8k, 5) == 1);
static_assert(engine_of(diana8k, 6) == 0 && engine_for(summary, diana8k, 6).first_refusal == rule::op_kind);
static_assert(engine_of(diana8k, 8) == 0 && engine_for(summary, diana8k, 8).first_refusal == rule::activation_bits);
// A target without accelerators: everything on the CPU, nothing evaluated.
static_assert(engine_of(tessera::targets::gap8, 0) == 0);

// --- every rule, failing on a layer the engine otherwise takes: the CPU gets it --------------
/// The summary with node `n`'s geometry changed by `edit`.
template <class Edit>
constexpr auto edited(std::size_t n, Edit edit) {
  auto g = summary;
  edit(g.nodes[n].geometry);
  return g;
}
constexpr rule refusal(const tessera::target_desc& t, std::size_t n) {
  return tessera::engine_for(summary, t, n).first_refusal;
}
template <class Summary>
constexpr rule refusal_in(const Summary& g, const tessera::target_desc& t, std::size_t n) {
  const auto e = tessera::engine_for(g, t, n);
  return e.engine == 0 ? e.first_refusal : rule::holds;
}
// op kind: an engine without convolutions.
static_assert([] {
  tessera::engine_rules r = digital_rules;
  r.ops = op_bit(engine_op::depthwise);
  return engine_of(with_rules(r), 0) == 0 && refusal(with_rules(r), 0) == rule::op_kind &&
         engine_of(with_rules(r), 1) == 1;
}());
// activation bits: a 16-bit output.
static_assert(refusal_in(edited(0, [](auto& g) { g.out_elem_bytes = 2; }), diana8k, 0) == rule::activation_bits);
// weight format: filters of two bytes per weight.
static_assert(refusal_in(edited(2, [](auto& g) { g.weight_bytes_per_channel *= 2; }), diana8k, 2) == rule::weight_format);
// kernel size: no 3x3, and a non-square kernel.
static_assert([] {
  tessera::engine_rules r = digital_rules;
  r.kernel_sizes = 1u << 1;
  return refusal(with_rules(r), 0) == rule::kernel_size && engine_of(with_rules(r), 2) == 1;
}());
static_assert(refusal_in(edited(0,
                                [](auto& g) {
                                  g.kernel_w = 1;  // a 3x1 conv: 9 weights per output channel
                                  g.macs_per_output = 9;
                                  g.weight_bytes_per_channel = 9;
                                }),
                         diana8k, 0) == rule::kernel_size);
// stride: stride 1 only (dw2 has stride 2 and symmetric padding after the edit).
static_assert([] {
  tessera::engine_rules r = digital_rules;
  r.strides = 1u << 1;
  const auto g = edited(3, [](auto& geo) { geo.pad_left = 1; });
  return refusal_in(g, with_rules(r), 3) == rule::stride && refusal_in(g, with_rules(digital_rules), 3) == rule::holds;
}());
// dilation.
static_assert(refusal_in(edited(0, [](auto& g) { g.dilation_h = g.dilation_w = 2; }), diana8k, 0) == rule::dilation);
// padding: more than the engine adds, or asymmetric (dw2 as written).
static_assert([] {
  tessera::engine_rules r = digital_rules;
  r.max_padding = 0;
  return refusal(with_rules(r), 0) == rule::padding && engine_of(with_rules(r), 2) == 1 &&
         refusal(diana8k, 3) == rule::padding;
}());
// padding that reads a zero point: the engines pad with 0, so the layer stays on the CPU.
static_assert(refusal_in(edited(0, [](auto& g) { g.pad_value = 3; }), diana8k, 0) == rule::padding);
// channel multiple: 16 (conv has 8 output channels).
static_assert([] {
  tessera::engine_rules r = digital_rules;
  r.channel_multiple = 16;
  return refusal(with_rules(r), 0) == rule::channel_multiple && engine_of(with_rules(r), 5) == 1;
}());
// width multiple: 16 (the maps are 11 and 5 wide).
static_assert([] {
  tessera::engine_rules r = digital_rules;
  r.width_multiple = 16;
  return refusal(with_rules(r), 0) == rule::width_multiple && refusal(with_rules(r), 5) == rule::width_multiple;
}());
// array rows: C * FX * FY = 27 for conv, 8 for pw1.
static_assert([] {
  tessera::engine_rules r = digital_rules;
  r.max_array_rows = 20;
  return refusal(with_rules(r), 0) == rule::array_rows && engine_of(with_rules(r), 2) == 1;
}());
// array columns: 8 output channels for conv, 12 for pw1.
static_assert([] {
  tessera::engine_rules r = digital_rules;
  r.max_array_cols = 10;
  return engine_of(with_rules(r), 0) == 1 && refusal(with_rules(r), 2) == rule::array_cols;
}());

// --- overrides and policies ----------------------------------------------------------------
constexpr tessera::target_desc forced(tessera::fixed_name layer, int engine) {
  tessera::target_desc t = diana8k;
  t.engine_overrides[0] = {layer, engine};
  return t;
}
static_assert(engine_of(forced("conv", 0), 0) == 0 && tessera::engine_for(summary, forced("conv", 0), 0).forced);
static_assert(engine_of(forced("conv", 0), 1) == 1);
// Forcing a layer onto an engine whose rules it breaks: the plan fails naming it (the
// executor turns that into engine_rule_broken, tests/compile_fail/engine_rule_broken.cpp).
constexpr auto broken_plan = tessera::plan_for(summary, forced("dw2", 1));
static_assert(!broken_plan.fits && broken_plan.failing_level == -1 && broken_plan.failing_node == 3);
static_assert(broken_plan.broken_engine == 1 && broken_plan.broken_rule == rule::padding);
constexpr auto no_engine_plan = tessera::plan_for(summary, forced("pw1", 3));
static_assert(!no_engine_plan.fits && no_engine_plan.broken_rule == rule::no_engine);

// HTVM's mixed policy with a second engine that takes every convolution: the first and last
// layers with filters and the depthwise layers on the first engine, the rest on the second.
constexpr tessera::target_desc two_engines = [] {
  tessera::target_desc t = diana_like<8192, 8192, 4096, tessera::dispatch_policy::mixed>;
  engine_desc second = digital<8192, 4096>;
  second.name = "analog-like";
  second.activations.name = "ANA-ACT";
  second.weights.name = "ANA-WEIGHTS";
  second.rules.ops = op_bit(engine_op::convolution);
  t.accelerators[1] = second;
  t.accelerator_count = 2;
  return t;
}();
static_assert(engine_of(two_engines, 0) == 1);  // the first layer with filters
static_assert(engine_of(two_engines, 1) == 1);  // depthwise
static_assert(engine_of(two_engines, 2) == 2 && engine_of(two_engines, 5) == 2);
static_assert(engine_of(two_engines, 8) == 0);  // the last layer with filters: no engine takes int32 outputs
constexpr tessera::target_desc two_first_match = [] {
  tessera::target_desc t = two_engines;
  t.dispatch = tessera::dispatch_policy::first_match;
  return t;
}();
static_assert(engine_of(two_first_match, 2) == 1 && engine_of(two_first_match, 5) == 1);


// --- the plan: accelerator tiles in the engine's memories -----------------------------------
template <tessera::target_desc T>
using tiled = tessera::tiled_executor<net, tessera::target<T>>;
using diana_run = tiled<diana8k>;
static_assert(diana_run::plan.fits);
// No fused block takes a layer the engine runs: pw1 and pw2 stay separate layers.
static_assert(!diana_run::summary.nodes[2].geometry.fused() && !diana_run::summary.nodes[5].geometry.fused());
static_assert(diana_run::plan.layers[0].engine == 1 && diana_run::plan.layers[3].engine == 0);
constexpr std::size_t act_base = tessera::local_base(diana8k, 1, false);
constexpr std::size_t weight_base = tessera::local_base(diana8k, 1, true);
static_assert(act_base == 8192 && weight_base == 8192 + 8192);
static_assert(diana_run::plan.layers[0].input[0] >= act_base && diana_run::plan.layers[0].weights[0] >= weight_base);
static_assert(diana_run::plan.layers[3].input[0] < 8192);
static_assert(diana_run::plan.local[1].base == act_base && diana_run::plan.local[1].bytes > 0);
static_assert(diana_run::plan.local[2].base == weight_base && diana_run::plan.local[2].bytes > 0);
// The engine's compute steps carry engine 1, the CPU's engine 0.
constexpr bool steps_name_their_engine() {
  for (const auto& s : diana_run::program.steps)
    if (s.kind == tessera::schedule::step_kind::compute && s.tile >= 0 &&
        s.engine != static_cast<std::uint8_t>(diana_run::plan.layers[s.layer].engine))
      return false;
  return true;
}
static_assert(steps_name_their_engine());

// A tight engine: its activation memory forces tiles, its weight memory filter blocks.
constexpr tessera::target_desc tight = diana_like<4096, 1024, 256>;
using tight_run = tiled<tight>;
static_assert(tight_run::plan.fits && tight_run::plan.layers[0].engine == 1);
static_assert(tight_run::plan.layers[0].solution.cost.tiles > 1);
static_assert(tight_run::plan.layers[5].solution.cost.constant_memory_bytes <= 256);
static_assert(tight_run::plan.local[1].bytes <= 1024 && tight_run::plan.local[2].bytes <= 256);

// --- runs -------------------------------------------------------------------------------------
using tiny::separable::random_image;
using tiny::separable::run_flat;

template <tessera::target_desc Target>
struct dispatched_run {
  using run = tiled<Target>;
  using engines = typename run::accelerators;
  std::array<std::int32_t, 5> logits{};
  std::uint64_t hazards = 0, cycles = 0;
  std::int64_t jobs = 0, engine_tiles = 0;

  explicit dispatched_run(const std::array<std::uint8_t, 14 * 11 * 3>& image) {
    alignas(16) static std::byte l2[run::l2_bytes];
    alignas(16) static std::byte l1[run::l1_bytes];
    tessera::dma::simulated_policy<> dma(Target);
    if constexpr (Target.accelerator_count > 0) engines::reset_counts();
    run::run(l2, l1, {image.data()}, {logits.data()}, dma);
    dma.finish();
    hazards = dma.hazard_count();
    cycles = dma.stats().total_cycles;
    if constexpr (Target.accelerator_count > 0) {
      for (int e = 1; e <= Target.accelerator_count; ++e) jobs += engines::jobs(e);
      for (const auto& l : run::plan.layers)
        if (l.tiled && l.engine > 0) engine_tiles += l.solution.cost.tiles;
    }
  }
};

constexpr tessera::target_desc cpu_only(tessera::target_desc t) {
  t.accelerator_count = 0;
  return t;
}

}  // namespace

TEMPLATE_TEST_CASE_SIG("layers on the simulated accelerator are bit-exact and hazard-free", "[dispatch]",
                       ((std::size_t L1, std::size_t Act, std::size_t Weights), L1, Act, Weights),
                       (8192, 8192, 4096), (4096, 1024, 256), (4096, 2048, 512), (2048, 768, 192),
                       (8192, 65536, 65536)) {
  constexpr tessera::target_desc target = diana_like<L1, Act, Weights>;
  for (std::uint32_t seed : {1u, 2u, 3u}) {
    const auto image = random_image(seed);
    const dispatched_run<target> dispatched(image);
    CHECK(dispatched.logits == run_flat(image));
    CHECK(dispatched.hazards == 0);
    CHECK(dispatched.jobs == dispatched.engine_tiles);  // every engine tile was one job
    CHECK(dispatched.engine_tiles > 0);
  }
}

// A driver as a vendor writes it (runtime/accelerator.hpp): the engine's memories where the
// device maps them (here: its own arrays), start/wait per job. This one counts the jobs and
// the layers it was configured for, and computes with the job's reference function, as the
// host model does; it is named by a target type of the user's own.
struct vendor_driver {
  alignas(16) static inline std::byte activations[8192];
  alignas(16) static inline std::byte weights[4096];
  static inline int started = 0, waited = 0, last_layer = -1;
  static inline bool geometry_seen = true;
  static std::byte* activation_memory(int) { return activations; }
  static std::byte* weight_memory(int) { return weights; }
  static void start(const tessera::accelerator_job& job) {
    ++started;
    last_layer = job.layer;
    geometry_seen = geometry_seen && job.geometry != nullptr && job.tile.h > 0 && job.tile.output != nullptr;
    job.reference(job.tile);
  }
  static void wait(int) { ++waited; }
};
static_assert(tessera::accelerator_driver<vendor_driver>);
struct vendor_target {
  static constexpr tessera::target_desc desc = [] {
    tessera::target_desc t = diana8k;
    t.accelerator_count = 1;  // the digital engine only
    return t;
  }();
  using dma_policy = tessera::dma::memcpy_policy;
  using accelerators = vendor_driver;
};

TEST_CASE("a user's driver runs the accelerator's jobs in its own memories", "[dispatch]") {
  using run = tessera::tiled_executor<net, vendor_target>;
  static_assert(std::is_same_v<run::accelerators, vendor_driver>);
  const auto image = random_image(10);
  std::array<std::int32_t, 5> logits{};
  alignas(16) static std::byte l2[run::l2_bytes];
  alignas(16) static std::byte l1[run::l1_bytes];
  tessera::dma::simulated_policy<> dma(vendor_target::desc);
  run::run(l2, l1, {image.data()}, {logits.data()}, dma);
  dma.finish();
  CHECK(logits == run_flat(image));
  CHECK(dma.hazard_count() == 0);
  std::int64_t engine_tiles = 0;
  for (const auto& l : run::plan.layers)
    if (l.tiled && l.engine > 0) engine_tiles += l.solution.cost.tiles;
  CHECK(vendor_driver::started == engine_tiles);
  CHECK(vendor_driver::waited == engine_tiles);
  CHECK(vendor_driver::geometry_seen);
  CHECK(vendor_driver::last_layer == 5);  // pw2, the last layer the engine takes
  // The DMA filled the driver's memories: the engine's filters landed in its weight memory.
  bool filled = false;
  for (std::byte b : vendor_driver::weights) filled = filled || b != std::byte{0};
  CHECK(filled);
}

TEST_CASE("two accelerators under the mixed policy are bit-exact", "[dispatch]") {
  for (std::uint32_t seed : {4u, 5u}) {
    const auto image = random_image(seed);
    const dispatched_run<two_engines> mixed(image);
    CHECK(mixed.logits == run_flat(image));
    CHECK(mixed.hazards == 0);
    CHECK(mixed.jobs == mixed.engine_tiles);
  }
}

TEST_CASE("the accelerator makes the simulated run faster than the CPU alone", "[dispatch]") {
  const auto image = random_image(7);
  const dispatched_run<diana8k> dispatched(image);
  const dispatched_run<cpu_only(diana8k)> cpu(image);
  CHECK(dispatched.logits == cpu.logits);
  CHECK(dispatched.cycles < cpu.cycles);
}

// The latency objective plans the engine's tiles too (engine_problem_of): by the engine's
// model with its array granules, each engine layer no slower in that model than under DORY's
// objective with HTVM's heuristics, and the run stays bit-exact and hazard-free, also where
// the engine's memories force tiling.
template <tessera::target_desc T>
constexpr tessera::target_desc with_latency_objective = [] {
  tessera::target_desc t = T;
  t.objective = tessera::tiling_objective::latency;
  return t;
}();

template <tessera::target_desc Target>
void check_latency_objective_on_engines() {
  constexpr tessera::target_desc latency = with_latency_objective<Target>;
  using by_latency = tiled<latency>;
  using by_dory = tiled<Target>;
  int engine_layers = 0, faster = 0;
  for (std::size_t n = 0; n < by_latency::plan.layers.size(); ++n) {
    const auto& l = by_latency::plan.layers[n];
    const auto& d = by_dory::plan.layers[n];
    if (!l.tiled || l.engine == 0) continue;
    REQUIRE(d.engine == l.engine);
    CHECK(l.solution.cycles <= d.solution.cycles);
    ++engine_layers;
    faster += l.solution.cycles < d.solution.cycles;
  }
  CHECK(engine_layers > 0);
  CHECK(faster > 0);  // on this network 3 of its 4 engine layers, in both memories (2026-11-28)
  for (std::uint32_t seed : {11u, 12u}) {
    const auto image = random_image(seed);
    const dispatched_run<latency> run(image);
    CHECK(run.logits == run_flat(image));
    CHECK(run.hazards == 0);
    CHECK(run.jobs == run.engine_tiles);
  }
}

TEST_CASE("the latency objective tiles the accelerator's layers by its model", "[dispatch]") {
  check_latency_objective_on_engines<diana8k>();
  check_latency_objective_on_engines<diana_like<4096, 1024, 256>>();
}

// --- the accelerator's DMA path (engine_desc::dma) --------------------------------------------
/// diana8k with the digital engine's DMA path at `Rate` bytes per cycle on DMA engine 1, or
/// without a path of its own (Rate 0: its tiles move on the target's L2 DMA, engine 0).
template <std::uint32_t Rate>
constexpr tessera::target_desc with_engine_path = [] {
  tessera::target_desc t = diana8k;
  t.accelerators[0].dma.bytes_per_cycle = Rate;
  return t;
}();
static_assert(diana8k.accelerator(1).dma.dma_engine == 1 && diana8k.transfer_path(1, 1).bytes_per_cycle == 8);
static_assert(diana8k.transfer_path(1, 0).bytes_per_cycle == diana8k.levels[1].bytes_per_cycle);
static_assert(with_engine_path<0>.transfer_path(1, 1).dma_engine == 0);  // no path: L2's
// Each transfer names the memory it fills or drains: an engine layer's its engine's, a CPU
// layer's the CPU's L1 (on a two-level target every transfer has an L1 side).
constexpr bool transfers_name_their_memory() {
  int on_engine = 0, on_cpu = 0;
  for (const auto& s : diana_run::program.steps) {
    if (s.kind != tessera::schedule::step_kind::issue) continue;
    const auto d = tessera::schedule::describe(diana_run::summary, diana_run::plan, s);
    if (d.engine != diana_run::plan.layers[s.layer].engine) return false;
    (d.engine > 0 ? on_engine : on_cpu) += 1;
  }
  return on_engine > 0 && on_cpu > 0;
}
static_assert(transfers_name_their_memory());
// The latency objective's model of an engine layer moves its tiles on the engine's path.
static_assert(tessera::engine_problem_of(summary, with_engine_path<1>, 0, 1).latency.transfer.bytes_per_cycle == 1);
static_assert(tessera::problem_of(summary, with_engine_path<1>, 3, 8192).latency.transfer.bytes_per_cycle ==
              diana8k.levels[1].bytes_per_cycle);

/// The DMA engines' busy cycles the step program implies: each transfer on its path
/// (target_desc::transfer_path), timed by that path's figures.
template <tessera::target_desc T>
std::array<std::uint64_t, tessera::dma::max_dma_engines> busy_cycles_by_path() {
  using run = tiled<T>;
  std::array<std::uint64_t, tessera::dma::max_dma_engines> busy{};
  for (const auto& s : run::program.steps) {
    if (s.kind != tessera::schedule::step_kind::issue) continue;
    const auto d = tessera::schedule::describe(run::summary, run::plan, s);
    const tessera::memory_level& path = T.transfer_path(d.outer_level, d.engine);
    busy[path.dma_engine] += path.transfer_cycles(d.bytes());
  }
  return busy;
}

template <tessera::target_desc T>
std::array<std::uint64_t, tessera::dma::max_dma_engines> simulated_busy_cycles(std::uint64_t& cycles) {
  using run = tiled<T>;
  const auto image = random_image(21);
  std::array<std::int32_t, 5> logits{};
  alignas(16) static std::byte l2[run::l2_bytes];
  alignas(16) static std::byte l1[run::l1_bytes];
  tessera::dma::simulated_policy<> dma(T);
  run::run(l2, l1, {image.data()}, {logits.data()}, dma);
  dma.finish();
  CHECK(logits == run_flat(image));
  CHECK(dma.hazard_count() == 0);
  cycles = dma.stats().total_cycles;
  return dma.stats().engine_busy_cycles;
}

TEST_CASE("the accelerator's tiles move on its own DMA path", "[dispatch]") {
  std::uint64_t slow = 0, fast = 0, shared = 0;
  // Its own engine (1) carries exactly the engine layers' transfers, timed by its figures.
  const auto by_path = simulated_busy_cycles<with_engine_path<1>>(slow);
  CHECK(by_path == busy_cycles_by_path<with_engine_path<1>>());
  CHECK(by_path[1] > 0);
  CHECK(by_path[0] > 0);
  CHECK(simulated_busy_cycles<with_engine_path<32>>(fast) == busy_cycles_by_path<with_engine_path<32>>());
  CHECK(fast < slow);  // the same plan's engine transfers at 32 B/cycle instead of 1
  // Without a path of its own everything queues on the L2 DMA.
  const auto one_engine = simulated_busy_cycles<with_engine_path<0>>(shared);
  CHECK(one_engine[1] == 0);
  CHECK(one_engine == busy_cycles_by_path<with_engine_path<0>>());
}

TEST_CASE("the plan table names each layer's engine", "[dispatch]") {
  const auto image = random_image(8);
  std::array<std::int32_t, 5> logits{};
  alignas(16) static std::byte l2[diana_run::l2_bytes];
  alignas(16) static std::byte l1[diana_run::l1_bytes];
  const auto sim = tessera::report::simulate<diana_run>(l2, l1, {image.data()}, {logits.data()});
  CHECK(sim.hazards == 0);
  CHECK(logits == run_flat(image));
  const std::string table = tessera::report::tiled_plan_table<net, diana_run>(sim);
  INFO(table);
  CHECK(table.find("engine") != std::string::npos);
  CHECK(table.find("digital") != std::string::npos);
  CHECK(table.find("cpu") != std::string::npos);
  CHECK(table.find("engine digital: 4 layers with MACs") != std::string::npos);
}

TEST_CASE("the pictures draw the accelerator's lane and its memories", "[dispatch]") {
  const auto image = random_image(9);
  std::array<std::int32_t, 5> logits{};
  alignas(16) static std::byte l2[diana_run::l2_bytes];
  alignas(16) static std::byte l1[diana_run::l1_bytes];
  const auto pictures = tessera::report::plan_pictures_of<diana_run>(nullptr, l2, l1, {image.data()}, {logits.data()});
  CHECK(pictures.hazards == 0);
  const auto& lanes = pictures.time.lanes;
  REQUIRE(std::find(lanes.begin(), lanes.end(), std::string("digital")) != lanes.end());
  // Its transfers on its own DMA path, a lane of their own beside the CPU's L2 <-> L1 DMA.
  CHECK(std::find(lanes.begin(), lanes.end(), std::string("DMA1 L2<->digital")) != lanes.end());
  CHECK(std::find(lanes.begin(), lanes.end(), std::string("DMA L2<->L1")) != lanes.end());
  const int digital = static_cast<int>(std::find(lanes.begin(), lanes.end(), std::string("digital")) - lanes.begin());
  int on_engine = 0;
  for (const auto& span : pictures.time.spans) on_engine += span.lane == digital ? 1 : 0;
  std::int64_t engine_tiles = 0;
  for (const auto& l : diana_run::plan.layers)
    if (l.tiled && l.engine > 0) engine_tiles += l.solution.cost.tiles;
  CHECK(on_engine == engine_tiles);
  // The engine's buffers sit in its memories' range of the local space, inside the map.
  bool in_engine_memory = false;
  for (const auto& b : pictures.l1.buffers) {
    CHECK(b.offset + b.bytes <= pictures.l1.capacity);
    in_engine_memory = in_engine_memory || b.offset >= act_base;
  }
  CHECK(in_engine_memory);
}
