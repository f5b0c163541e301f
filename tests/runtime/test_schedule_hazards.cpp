// The hazards the compile-time checker names (tests/compile_fail/hazard_*.cpp), replayed at
// run time through the simulated DMA: the same hand-edited step programs, and the simulator
// catches each one independently (or, for a read of stale data, which leaves no transfer in
// flight to detect, the result is wrong). The unedited program is clean on both.
#include <array>
#include <cstddef>
#include <cstdint>

#include <catch2/catch.hpp>

#include <tessera/dma/simulated_policy.hpp>

#include "../support/hazard_programs.hpp"

namespace {

using hazard_test::run;
using tessera::dma::hazard_kind;

std::array<std::uint8_t, 12 * 10 * 3> image() {
  std::array<std::uint8_t, 12 * 10 * 3> v{};
  std::uint32_t seed = 77;
  for (auto& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<std::uint8_t>(seed >> 24);
  }
  return v;
}

struct replayed {
  std::array<std::int32_t, 6> logits{};
  tessera::dma::simulated_policy<> dma{hazard_test::small_l1};
};

template <const auto& Program>
replayed replay() {
  alignas(16) static std::byte l2[run::l2_bytes];
  alignas(16) static std::byte l1[run::l1_bytes];
  replayed r;
  const auto in = image();
  run::replay<Program>(nullptr, l2, l1, {in.data()}, {r.logits.data()}, r.dma);
  r.dma.finish();
  return r;
}

std::array<std::int32_t, 6> expected() {
  alignas(16) static std::byte arena[tessera::executor<hazard_test::net>::arena_bytes];
  std::array<std::int32_t, 6> logits{};
  const auto in = image();
  tessera::executor<hazard_test::net>::run(arena, {in.data()}, {logits.data()});
  return logits;
}

}  // namespace

TEST_CASE("the emitted program is clean on the checker and the simulator", "[schedule][hazards]") {
  STATIC_REQUIRE(tessera::schedule::check(hazard_test::net::summary, run::plan, run::program).ok());
  const replayed r = replay<hazard_test::program>();
  CHECK(r.dma.hazard_count() == 0);
  CHECK(r.logits == expected());
}

TEST_CASE("the simulator catches each hazard the checker names", "[schedule][hazards]") {
  using tessera::schedule::hazard;
  const auto kind_of = [](const auto& program) {
    return tessera::schedule::check(hazard_test::net::summary, run::plan, program).kind;
  };
  SECTION("read before wait") {
    STATIC_REQUIRE(kind_of(hazard_test::read_before_wait) == hazard::read_before_wait);
    CHECK(replay<hazard_test::read_before_wait>().dma.hazard_count(hazard_kind::read_before_wait) > 0);
  }
  SECTION("write while a store is in flight") {
    STATIC_REQUIRE(kind_of(hazard_test::write_in_flight) == hazard::write_in_flight);
    CHECK(replay<hazard_test::write_in_flight>().dma.hazard_count(hazard_kind::write_while_read) > 0);
  }
  SECTION("refill while a load is in flight") {
    STATIC_REQUIRE(kind_of(hazard_test::refill_in_flight) == hazard::refill_in_flight);
    CHECK(replay<hazard_test::refill_in_flight>().dma.hazard_count(hazard_kind::overlapping_transfers) > 0);
  }
  SECTION("load of data whose store is in flight") {
    STATIC_REQUIRE(kind_of(hazard_test::read_unproduced) == hazard::read_unproduced);
    CHECK(replay<hazard_test::read_unproduced>().dma.hazard_count(hazard_kind::overlapping_transfers) > 0);
  }
  SECTION("store before compute") {
    STATIC_REQUIRE(kind_of(hazard_test::store_before_compute) == hazard::store_before_compute);
    CHECK(replay<hazard_test::store_before_compute>().dma.hazard_count(hazard_kind::write_while_read) > 0);
  }
  SECTION("a store never waited for") {
    STATIC_REQUIRE(kind_of(hazard_test::never_waited) == hazard::incomplete_layer);
    CHECK(replay<hazard_test::never_waited>().dma.hazard_count(hazard_kind::never_waited) == 1);
  }
  SECTION("a tile keeps a scratch no earlier tile of its filter block prepared (checker only: the kernels decide)") {
    STATIC_REQUIRE(kind_of(hazard_test::prepared_first_tile) == hazard::lost_scratch);
    STATIC_REQUIRE(kind_of(hazard_test::prepared_across_layers) == hazard::lost_scratch);
  }
  SECTION("stale read: nothing in flight to detect, but the result is wrong") {
    STATIC_REQUIRE(kind_of(hazard_test::stale_read) == hazard::stale_read);
    const replayed r = replay<hazard_test::stale_read>();
    CHECK(r.dma.hazard_count() == 0);
    CHECK(r.logits != expected());
  }
}
