// Runtime tests of the executor: a hand-written residual network run end to end, compared with
// the same arithmetic written out directly; observer calls; arena reuse.
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include "../support/tiny_networks.hpp"

namespace {

using tiny::residual::network;
using run_t = tessera::executor<network>;

// The residual network's arithmetic, written directly on an HxW grid (C = 1 input).
std::array<std::int32_t, 3> expected_logits(const std::array<std::uint8_t, 16>& x) {
  auto at = [&](int y, int xx) -> int { return (y < 0 || y > 3 || xx < 0 || xx > 3) ? 0 : x[static_cast<std::size_t>(y * 4 + xx)]; };
  auto rq = [](std::int64_t v, int mul, int shift) {
    std::int64_t r = (v * mul + (shift ? (1 << (shift - 1)) : 0)) >> shift;
    return static_cast<int>(r < -128 ? -128 : r > 127 ? 127 : r);
  };
  std::array<int, 32> flat{};  // sum tensor in HWC order
  for (int y = 0; y < 4; ++y)
    for (int xx = 0; xx < 4; ++xx) {
      int box = 0;
      for (int i = -1; i <= 1; ++i)
        for (int j = -1; j <= 1; ++j) box += at(y + i, xx + j);
      const int a0 = rq(at(y, xx), 2, 1);     // identity * 2, >> 1
      const int a1 = rq(box - 4, 1, 1);       // box sum + bias -4, >> 1
      const int b0 = a0, b1 = -a1;            // 1x1 conv [[1, 0], [0, -1]]
      flat[static_cast<std::size_t>((y * 4 + xx) * 2)] = rq(a0 + b0, 1, 0);
      flat[static_cast<std::size_t>((y * 4 + xx) * 2 + 1)] = rq(a1 + b1, 1, 0);
    }
  std::array<std::int32_t, 3> logits{};
  for (int k = 0; k < 32; ++k) {
    logits[0] += flat[static_cast<std::size_t>(k)];
    logits[1] += (k % 2) * flat[static_cast<std::size_t>(k)];
    logits[2] -= (k == 0) * flat[static_cast<std::size_t>(k)];
  }
  return logits;
}

}  // namespace

TEST_CASE("executor runs a residual network over caller memory", "[executor]") {
  alignas(16) static std::byte arena[run_t::arena_bytes];
  std::array<std::uint8_t, 16> input{};
  std::uint32_t seed = 12345;
  for (int trial = 0; trial < 20; ++trial) {
    for (auto& v : input) {
      seed = seed * 1664525u + 1013904223u;
      v = static_cast<std::uint8_t>(seed >> 24);
    }
    std::array<std::int32_t, 3> logits{};
    run_t::run(arena, {input.data()}, {logits.data()});
    CHECK(logits == expected_logits(input));
  }
}

TEST_CASE("executor calls the observer once per written tensor, in order", "[executor]") {
  alignas(16) static std::byte arena[run_t::arena_bytes];
  std::array<std::uint8_t, 16> input{};
  std::array<std::int32_t, 3> logits{};
  std::vector<std::pair<int, int>> calls;
  run_t::run(arena, {input.data()}, {logits.data()},
             [&](int node, tessera::tensor_id tensor, const void*) { calls.emplace_back(node, tensor); });
  CHECK(calls == std::vector<std::pair<int, int>>{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}});
}

TEST_CASE("the output of a graph is written to the caller's buffer", "[executor]") {
  alignas(16) static std::byte arena[run_t::arena_bytes];
  std::array<std::uint8_t, 16> input{};
  input.fill(10);
  std::array<std::int32_t, 3> logits{-1, -1, -1};
  const void* seen_output = nullptr;
  run_t::run(arena, {input.data()}, {logits.data()}, [&](int, tessera::tensor_id t, const void* p) {
    if (t == 5) seen_output = p;
  });
  CHECK(seen_output == logits.data());
  CHECK(logits == expected_logits(input));
}
