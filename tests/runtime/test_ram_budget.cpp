// The flat executor's plan within a RAM budget run for real (planning/ram_budget.hpp): outputs
// written over their inputs where the native kernels allow it (the x86 CHW depthwise kernel on
// this host; arm_dsp/arm_mve ones under QEMU) and a layer's least-scratch variant, each against
// the reference kernels, on random images.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include <catch2/catch.hpp>

#include <tessera/report/plan_table.hpp>

#include "../support/tiny_networks.hpp"

namespace {

namespace k = tessera::kernels;
using net = tiny::separable::network;
constexpr auto native = k::native_family;
constexpr auto ref = k::kernel_family::reference;
constexpr auto n_idx = static_cast<std::size_t>(native);

template <class Exec, class In, class Out>
Out run_with(const In& in) {
  alignas(16) static std::byte arena[Exec::arena_bytes > 0 ? Exec::arena_bytes : 1];  // a network of caller buffers only has none
  Out out{};
  Exec::run(arena, {in.data()}, {out.data()});
  return out;
}

// dw1 (3x3 over 8 channels at stride 1) runs the CHW kernel on x86, which writes in place: its
// output takes the conv output's bytes, which pw1 then reads.
TEST_CASE("in-place outputs and least-scratch variants compute what the reference computes", "[ram_budget]") {
  using fast = tessera::executor<net>;
  using roomy = tessera::executor<net, native, tessera::any_ram>;
  using reference = tessera::executor<net, ref>;
  const auto& dw1 = net::summary.nodes[1];
  if constexpr (native == k::kernel_family::x86) CHECK(dw1.in_place[n_idx]);
  if (k::family_available(native) && dw1.in_place[n_idx]) {
    CHECK(fast::plan.tensor_offset[2] == fast::plan.tensor_offset[1]);
    // (the peak is pw1's step, two maps: the arena is no larger, here the same)
    CHECK(fast::arena_bytes <= tessera::plan_arena(net::summary, {}, true, native).arena_bytes);
  }
  for (std::uint32_t seed = 1; seed <= 20; ++seed) {
    const auto image = tiny::separable::random_image(seed);
    const auto expected = run_with<reference, tiny::separable::image, tiny::separable::logits>(image);
    CHECK(run_with<fast, tiny::separable::image, tiny::separable::logits>(image) == expected);
    CHECK(run_with<roomy, tiny::separable::image, tiny::separable::logits>(image) == expected);
  }
}

// A depthwise layer reading a graph input cannot write in place; where its family prefers a
// CHW kernel with more scratch than the HWC one, the least budget runs the HWC kernel.
namespace dw_first {
using tiny::features::pseudo_random;
using tiny::features::requant;
inline constexpr auto weights = pseudo_random<std::int8_t, 8 * 3 * 3>(31, -128, 127);
inline constexpr auto bias = pseudo_random<std::int32_t, 8>(32, -3000, 3000);
inline constexpr auto rq = requant<8>(33, 9, -128, 127);
inline constexpr tessera::tensor_table<2> tensors{{{
    {"image", tessera::dtype::s8, {1, 9, 13, 8}},
    {"dw", tessera::dtype::s8, {1, 9, 13, 8}},
}}};
using network = tessera::network<
    tensors, tessera::graph_inputs<0>, tessera::graph_outputs<1>,
    tessera::op::conv<"dw",
                      {.input = 0, .output = 1, .kernel_h = 3, .kernel_w = 3, .pad_top = 1, .pad_left = 1,
                       .pad_bottom = 1, .pad_right = 1, .groups = 8},
                      weights, bias, rq>>;
using image = std::array<std::int8_t, 9 * 13 * 8>;
}  // namespace dw_first

TEST_CASE("a least-scratch variant chosen by the budget computes what the reference computes", "[ram_budget]") {
  using net1 = dw_first::network;
  using fast = tessera::executor<net1>;
  using roomy = tessera::executor<net1, native, tessera::any_ram>;
  using reference = tessera::executor<net1, ref>;
  const auto& node = net1::summary.nodes[0];
  const bool has_lean = node.lean_scratch[n_idx] < node.scratch[n_idx];
  CHECK(fast::plan.choices.lean[0] == has_lean);
  CHECK_FALSE(roomy::plan.choices.lean[0]);
  for (std::uint32_t seed = 1; seed <= 20; ++seed) {
    dw_first::image image{};
    const auto bytes = tiny::random_bytes<image.size()>(seed);
    for (std::size_t i = 0; i < image.size(); ++i) image[i] = static_cast<std::int8_t>(bytes[i]);
    using out_t = std::array<std::int8_t, 9 * 13 * 8>;
    const auto expected = run_with<reference, dw_first::image, out_t>(image);
    CHECK(run_with<fast, dw_first::image, out_t>(image) == expected);
    CHECK(run_with<roomy, dw_first::image, out_t>(image) == expected);
  }
}

// The plan table shows the executor's plan: its arena, each layer's scratch, in-place outputs.
TEST_CASE("the plan table reports the flat executor's arena and in-place outputs", "[ram_budget]") {
  const std::string table = tessera::report::plan_table<net>();
  CHECK(table.find("arena " + std::to_string(tessera::executor<net>::arena_bytes) + " bytes") != std::string::npos);
  CHECK(table.find("scratch B") != std::string::npos);
  if (net::summary.nodes[1].in_place[n_idx]) CHECK(table.find("in place") != std::string::npos);
}

}  // namespace
