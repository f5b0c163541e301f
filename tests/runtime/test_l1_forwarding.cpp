// L1 forwarding (planning/l1_forwarding.hpp): a one-tile layer's output read where it was
// computed by the next one-tile layer. What the plan decides and where it places the consumer,
// what the program then leaves out (counted against the tensor table, not against the
// planner), that the hazard proof tracks the slot from the producer's compute to the
// consumer's read (and names what goes wrong when a plan or a program breaks the chain), and
// that the runs stay bit-exact with 0 hazards in the simulated DMA.
#include <array>
#include <cstddef>
#include <cstdint>

#include <catch2/catch.hpp>

#include <tessera/dma/simulated_policy.hpp>
#include <tessera/schedule/hazard_check.hpp>
#include <tessera/schedule/statistics.hpp>
#include <tessera/tessera.hpp>

#include "../support/program_surgery.hpp"
#include "../support/tiny_networks.hpp"

namespace {

using tessera::schedule::hazard;
using tessera::schedule::step_kind;
using tessera::schedule::transfer_role;

constexpr tessera::target_desc roomy = tiny::sweep_target<8192>;  // every layer one tile
constexpr tessera::target_desc small = tiny::sweep_target<800>;   // conv and dw in several tiles

template <class Net, tessera::target_desc Target>
using tiled = tessera::tiled_executor<Net, tessera::target<Target>>;

/// Issue steps of `role` for `layer`.
template <std::size_t N>
constexpr int issues(const tessera::schedule::step_program<N>& p, transfer_role role, int layer) {
  int n = 0;
  for (const auto& s : p.steps)
    if (s.kind == step_kind::issue && s.role == role && s.layer == layer) ++n;
  return n;
}

/// Steps of any kind for `layer`.
template <std::size_t N>
constexpr int steps_of(const tessera::schedule::step_program<N>& p, int layer) {
  int n = 0;
  for (const auto& s : p.steps) n += s.layer == layer ? 1 : 0;
  return n;
}

/// The program the emitter writes for `Plan`, a plan the test changed.
template <const auto& Summary, const auto& Plan>
constexpr auto program_of =
    tessera::schedule::emit_program<tessera::schedule::count_steps(Summary, Plan)>(Summary, Plan);

// --- features: conv -> dw -> pool -> flatten -> fc, each one tile at 8 kB ---------------------
using features = tiled<tiny::features::network, roomy>;
constexpr auto& fplan = features::plan;
// dw reads conv's result, pool dw's and fc pool's, where they were computed; nothing else reads
// any of them, so none is stored. Between pool and fc, flatten (a reshape on the same L2 bytes)
// runs nothing (planning/no_op_aliases.hpp): fc reads pool's bytes, dense, under other extents.
static_assert(fplan.layers[1].forwarded_operand == 0 && fplan.layers[2].forwarded_operand == 0 &&
              fplan.layers[4].forwarded_operand == 0);
static_assert(fplan.layers[0].output_forwarded && fplan.layers[1].output_forwarded && fplan.layers[2].output_forwarded);
static_assert(fplan.layers[0].output_unstored && fplan.layers[1].output_unstored && fplan.layers[2].output_unstored);
static_assert(fplan.layers[1].input[0] == fplan.layers[0].output[0] && fplan.layers[2].input[0] == fplan.layers[1].output[0] &&
              fplan.layers[4].input[0] == fplan.layers[2].output[0]);
static_assert(fplan.l1_bytes <= roomy.levels[0].bytes);
// The program: no load for dw, pool and fc, no store for conv, dw and pool; no step at all for
// flatten.
static_assert(issues(features::program, transfer_role::input, 1) == 0 && issues(features::program, transfer_role::input, 2) == 0 &&
              issues(features::program, transfer_role::input, 4) == 0);
static_assert(issues(features::program, transfer_role::output, 0) == 0 && issues(features::program, transfer_role::output, 1) == 0 &&
              issues(features::program, transfer_role::output, 2) == 0);
static_assert(steps_of(features::program, 3) == 0);
// What moves between L2 and L1, from the tensor table: the image (12x10x3) in, the logits
// (6 x int32) out.
constexpr auto ftotals = tessera::schedule::totals(features::summary, fplan, features::program);
static_assert(ftotals.bytes_by_role[static_cast<std::size_t>(transfer_role::input)] == 12 * 10 * 3);
static_assert(ftotals.bytes_by_role[static_cast<std::size_t>(transfer_role::output)] == 6 * 4);
// With the result stored, fc loads it through the flatten: the proof follows the bytes to pool.
constexpr auto stored_pool = [] {
  auto p = fplan;
  p.layers[2].output_unstored = false;
  p.layers[4].forwarded_operand = -1;
  p.layers[2].output_forwarded = false;
  return p;
}();
constexpr auto& stored_pool_program = program_of<features::summary, stored_pool>;
static_assert(issues(stored_pool_program, transfer_role::output, 2) == 1 && issues(stored_pool_program, transfer_role::input, 4) == 1);
static_assert(steps_of(stored_pool_program, 3) == 0);
static_assert(tessera::schedule::check(features::summary, stored_pool, stored_pool_program).kind == hazard::none);
// ... and when that store is dropped, fc's load of `flat` reads bytes pool never stored.
constexpr auto unstored_pool = [] {
  auto p = stored_pool;
  p.layers[2].output_unstored = true;
  return p;
}();
constexpr auto& unstored_pool_program = program_of<features::summary, unstored_pool>;
static_assert(tessera::schedule::check(features::summary, unstored_pool, unstored_pool_program).kind == hazard::read_unproduced);

// Several tiles: nothing is forwarded (a layer's result is whole in L1 only when it is one tile).
using features_small = tiled<tiny::features::network, small>;
static_assert([] {
  for (const auto& l : features_small::plan.layers)
    if (l.forwarded_operand >= 0 || l.output_forwarded || l.output_unstored) return false;
  return true;
}());

// --- residual: conv_a -> conv_b -> add(a, b): conv_b reads a in L1, add reads it from L2 -----
using residual = tiled<tiny::residual::network, roomy>;
static_assert(residual::plan.layers[1].forwarded_operand == 0 && residual::plan.layers[0].output_forwarded);
static_assert(!residual::plan.layers[0].output_unstored);  // the add reads it too: still stored
static_assert(issues(residual::program, transfer_role::output, 0) == 1 && issues(residual::program, transfer_role::input, 1) == 0);

// --- separable: conv -> dw1 -> [pw1 -> dw2] -> cast -> pw2 -> pool -> flatten -> fc -----------
// Every layer reads its input where the layer before computed it: the fused block dw1's result,
// pw2 the block's through the cast, fc pool's through the flatten. (The block's buffers do not
// all fit clear of both dw1's and pw2's at 8 kB: it lies over pw2's block, and pw2, reading the
// block's result in L1 in turn, is placed around it, so no filter load loses its overlap.)
using separable = tiled<tiny::separable::network, roomy>;
constexpr auto& splan = separable::plan;
static_assert(splan.layers[1].forwarded_operand == 0 && splan.layers[3].forwarded_operand == 0 &&
              splan.layers[5].forwarded_operand == 0 && splan.layers[6].forwarded_operand == 0 &&
              splan.layers[8].forwarded_operand == 0);
static_assert(splan.layers[0].output_unstored && splan.layers[1].output_unstored && splan.layers[3].output_unstored &&
              splan.layers[5].output_unstored && splan.layers[6].output_unstored);
static_assert(steps_of(separable::program, 4) == 0 && steps_of(separable::program, 7) == 0);

// --- what the hazard proof names when the chain is broken ------------------------------------
constexpr auto kind_of = [](const auto& plan, const auto& program) {
  return tessera::schedule::check(features::summary, plan, program).kind;
};
// dw computes before conv: its operand slot does not hold conv's result yet.
constexpr auto consumer_first =
    surgery::move(features::program, surgery::find(features::program, surgery::is_compute(1, 0)),
                  surgery::find(features::program, surgery::is_compute(0, 0)));
static_assert(kind_of(fplan, consumer_first) == hazard::stale_read);
// dw's result laid over its own operand: the kernel would read and write the same bytes.
constexpr auto output_over_operand = [] {
  auto p = fplan;
  p.layers[1].output = p.layers[1].input;
  return p;
}();
static_assert(kind_of(output_over_operand, features::program) == hazard::overlapping_buffers);
// pool's operand slot moved off dw's result: it would read bytes dw never wrote.
constexpr auto operand_elsewhere = [] {
  auto p = fplan;
  p.layers[2].input = {p.layers[2].input[0] + 16, p.layers[2].input[1] + 16};
  return p;
}();
static_assert(kind_of(operand_elsewhere, features::program) == hazard::stale_read);
// A store dropped although another layer still reads the tensor: the residual's `a`, which the
// add reads from L2.
constexpr auto dropped_store = [] {
  auto p = residual::plan;
  p.layers[0].output_unstored = true;
  return p;
}();
constexpr auto& dropped_program = program_of<residual::summary, dropped_store>;
static_assert(tessera::schedule::check(residual::summary, dropped_store, dropped_program).kind == hazard::read_unproduced);
// pool no longer marked as reading dw's result in L1, in a program that does not load it: its
// operand slot holds no loaded tile.
constexpr auto never_read = [] {
  auto p = fplan;
  p.layers[2].forwarded_operand = -1;
  return p;
}();
static_assert(kind_of(never_read, features::program) == hazard::stale_read);

template <class Run, class In, class Out>
std::uint64_t run_simulated(const In& in, Out& out, const tessera::target_desc& t) {
  alignas(16) static std::byte l2[Run::l2_bytes];
  alignas(16) static std::byte l1[Run::l1_bytes];
  tessera::dma::simulated_policy<> dma(t);
  Run::run(l2, l1, {in.data()}, {out.data()}, dma);
  dma.finish();
  return dma.hazard_count();
}

}  // namespace

TEST_CASE("forwarded one-tile chains are bit-exact and hazard-free", "[schedule][forwarding]") {
  const auto seeds = {1u, 2u, 3u};
  SECTION("features") {
    for (std::uint32_t seed : seeds) {
      const auto in = tiny::random_bytes<12 * 10 * 3>(seed);
      std::array<std::int32_t, 6> out{};
      CHECK(run_simulated<features>(in, out, roomy) == 0);
      CHECK(out == (tiny::flat_result<tiny::features::network, std::array<std::int32_t, 6>>(in)));
    }
  }
  SECTION("residual") {
    for (std::uint32_t seed : seeds) {
      const auto in = tiny::random_bytes<16>(seed);
      std::array<std::int32_t, 3> out{};
      CHECK(run_simulated<residual>(in, out, roomy) == 0);
      CHECK(out == (tiny::flat_result<tiny::residual::network, std::array<std::int32_t, 3>>(in)));
    }
  }
  SECTION("separable") {
    for (std::uint32_t seed : seeds) {
      const auto in = tiny::separable::random_image(seed);
      tiny::separable::logits out{};
      CHECK(run_simulated<separable>(in, out, roomy) == 0);
      CHECK(out == tiny::separable::run_flat(in));
    }
  }
}

TEST_CASE("a broken chain is wrong at run time where the simulator sees no transfer", "[schedule][forwarding]") {
  // dw computing before conv reads the slot's old bytes: no transfer is in flight for the
  // simulator to flag, the result differs (the proof above names it at compile time).
  const auto in = tiny::random_bytes<12 * 10 * 3>(5);
  alignas(16) static std::byte l2[features::l2_bytes];
  alignas(16) static std::byte l1[features::l1_bytes];
  std::array<std::int32_t, 6> out{};
  tessera::dma::simulated_policy<> dma(roomy);
  features::replay<consumer_first>(nullptr, l2, l1, {in.data()}, {out.data()}, dma);
  dma.finish();
  CHECK(out != (tiny::flat_result<tiny::features::network, std::array<std::int32_t, 6>>(in)));
}
