// The plan pictures: the L1 memory map has exactly one rectangle per buffer the step program
// fills in L1 (input and filter tiles it loads, output tiles and scratch its tiles write), at
// the plan's offsets and sizes; the timeline has one span per event of the traced run; both
// are well-formed SVG (read back with tests/support/svg_checker.hpp).
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include <tessera/report/plan_pictures.hpp>

#include "../support/hazard_programs.hpp"
#include "../support/svg_checker.hpp"

namespace {

// The feature network with a small L1 (many tiles, double buffering), as the hazard tests plan it.
using hazard_test::net;
using hazard_test::run;

/// (offset, bytes) of every L1 buffer the program fills, computed from the program alone.
std::vector<std::pair<std::size_t, std::size_t>> l1_fills() {
  namespace s = tessera::schedule;
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (const s::step& st : run::program.steps) {
    if (st.kind == s::step_kind::issue) {
      const s::transfer_desc d = s::describe(net::summary, run::plan, st);
      if (d.dst.where == s::space::l1) out.emplace_back(static_cast<std::size_t>(d.dst.offset), d.bytes());
    } else if (st.kind == s::step_kind::compute && st.tile >= 0) {
      const auto& l = run::plan.layers[st.layer];
      const auto& g = net::summary.nodes[st.layer].geometry;
      out.emplace_back(l.output[st.slot], s::output_box(g, s::position(g, l.solution.tile, st.tile)).bytes());
      if (l.solution.cost.scratch_bytes > 0) out.emplace_back(l.scratch, l.solution.cost.scratch_bytes);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("plan pictures show exactly the program's buffers and the run's events", "[report][svg]") {
  alignas(16) static std::byte l2[run::l2_bytes];
  alignas(16) static std::byte l1[run::l1_bytes];
  std::array<std::uint8_t, 12 * 10 * 3> image{};
  for (std::size_t i = 0; i < image.size(); ++i) image[i] = static_cast<std::uint8_t>(i * 7);
  std::array<std::int32_t, 6> logits{};
  const auto pictures = tessera::report::plan_pictures_of<run>(nullptr, l2, l1, {image.data()}, {logits.data()});
  CHECK(pictures.hazards == 0);

  const auto doc = tessera::testing::parse_xml(tessera::report::svg_memory_map(pictures.l1));
  REQUIRE(doc.ok());
  std::vector<std::pair<std::size_t, std::size_t>> drawn;
  for (const auto* rect : doc.all("rect", "buffer"))
    drawn.emplace_back(std::stoull(doc.attribute(*rect, "data-offset")), std::stoull(doc.attribute(*rect, "data-bytes")));
  std::sort(drawn.begin(), drawn.end());
  CHECK(drawn == l1_fills());
  for (const auto& b : pictures.l1.buffers) CHECK(b.t_begin <= b.t_end);

  const auto time = tessera::testing::parse_xml(tessera::report::svg_timeline(pictures.time));
  REQUIRE(time.ok());
  const std::size_t spans = time.all("rect", "compute").size() + time.all("rect", "dma-in").size() +
                            time.all("rect", "dma-out").size() + time.all("rect", "stall").size();
  CHECK(spans == pictures.time.spans.size());
  std::int64_t tile_computes = 0, issues = 0;
  for (const auto& st : run::program.steps) {
    tile_computes += st.kind == tessera::schedule::step_kind::compute && st.tile >= 0;
    issues += st.kind == tessera::schedule::step_kind::issue;
  }
  CHECK(static_cast<std::int64_t>(time.all("rect", "compute").size()) == tile_computes);
  CHECK(static_cast<std::int64_t>(time.all("rect", "dma-in").size() + time.all("rect", "dma-out").size()) == issues);
}
