// Runtime tests of the plan pictures (report/svg): the SVG is well formed (read back by a
// minimal XML reader, tests/support/svg_checker.hpp) and its data rectangles are exactly the
// inputs (count per class, data-* attributes, order), for hand-made inputs and for the
// timeline of a traced simulated run. The hidden test "[svg-files]" writes the pictures for
// the ctest runtime/svg_well_formed (Python's xml.etree reads them: tests/runtime/CMakeLists.txt).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "../support/svg_checker.hpp"

#include <tessera/dma/simulated_policy.hpp>
#include <tessera/report/svg.hpp>

namespace {

using tessera::dma::event_kind;
using tessera::dma::trace_event;
using tessera::report::buffer_kind;
using tessera::report::buffer_lifetime;
using tessera::report::span_kind;
using tessera::report::timeline_span;
using tessera::testing::parse_xml;
using tessera::testing::xml_document;
using tessera::testing::xml_element;
namespace targets = tessera::targets;

std::uint64_t number(const xml_document& doc, const xml_element& e, const char* name) {
  return std::stoull(doc.attribute(e, name));
}
double real(const xml_document& doc, const xml_element& e, const char* name) { return std::stod(doc.attribute(e, name)); }

/// Labels with every XML special character, to check the escaping end to end.
tessera::report::memory_map hand_memory_map() {
  return {.level = "L1",
          .capacity = 64 * 1024,
          .buffers = {{"in[0] <tile 0> & \"x\"", 0, 4096, 0, 900, buffer_kind::input},
                      {"in[1]", 4096, 4096, 450, 1400, buffer_kind::input},
                      {"w 'conv1'", 8192, 2000, 0, 1400, buffer_kind::weights},
                      {"out", 10192, 1, 1399, 1400, buffer_kind::output},  // 1 byte, 1 cycle: still 1 px
                      {"instant", 0, 16, 700, 700, buffer_kind::scratch},  // lives no time at all
                      {"past the end", 65000, 1000, 100, 200, buffer_kind::other}}};
}

tessera::report::timeline hand_timeline() {
  return {.lanes = {"core 0", "DMA L2<->L1", "DMA L3<->L2"},
          .spans = {{0, span_kind::compute, 0, 100, "conv1 <0,0>"},
                    {1, span_kind::dma_in, 0, 53, "x & y", 1, 100},
                    {1, span_kind::dma_out, 100, 153, "store", 1, 100},
                    {2, span_kind::dma_in, 0, 350, "weights", 2, 100},
                    {2, span_kind::dma_out, 400, 750, "spill", 2, 100},
                    {0, span_kind::stall, 100, 350, "stall on \"weights\"", 2, 100},
                    {0, span_kind::compute, 350, 351, "one cycle"},
                    {5, span_kind::compute, 0, 10, "no such lane"}},  // drawn on extra lanes 3..5
          .title = "A hand-made timeline"};
}

/// A traced run on gap8 with both DMA levels: filters from L3 once, then a double-buffered
/// L2 <-> L1 tile pipeline, one layer tag per phase.
tessera::dma::simulated_policy<> traced_gap8_run(std::vector<std::uint8_t>& l3, std::vector<std::uint8_t>& l2,
                                                 std::vector<std::uint8_t>& l1) {
  constexpr std::size_t tiles = 6, tile = 512;
  l3.assign(4096, 1);
  l2.assign(2 * tiles * tile, 2);
  l1.assign(4096 + 4 * tile, 0);
  auto* p3 = reinterpret_cast<std::byte*>(l3.data());
  auto* p2 = reinterpret_cast<std::byte*>(l2.data());
  auto* p1 = reinterpret_cast<std::byte*>(l1.data());
  auto linear = [](std::byte* dst, const std::byte* src, std::size_t n, bool inbound, int level) {
    return tessera::dma::transfer{.dst = dst, .src = src, .row_bytes = n, .outer_level = level, .inbound = inbound};
  };
  tessera::dma::simulated_policy<> dma{targets::gap8};
  dma.record_trace();
  dma.set_trace_tag(0);
  const auto w = dma.start(linear(p1, p3, 1024, true, 2));
  std::vector<tessera::dma::handle> loads(tiles), stores(tiles);
  loads[0] = dma.start(linear(p1 + 4096, p2, tile, true, 1));
  dma.wait(w);
  for (std::size_t i = 0; i < tiles; ++i) {
    dma.set_trace_tag(1 + static_cast<int>(i) / 3);
    if (i + 1 < tiles) loads[i + 1] = dma.start(linear(p1 + 4096 + (i + 1) % 2 * tile, p2 + (i + 1) * tile, tile, true, 1));
    dma.wait(loads[i]);
    if (i >= 2) dma.wait(stores[i - 2]);
    dma.compute(1000 + 300 * i);
    stores[i] = dma.start(linear(p2 + (tiles + i) * tile, p1 + 4096 + 2 * tile + i % 2 * tile, tile, false, 1));
  }
  dma.wait(stores[tiles - 2]);
  dma.wait(stores[tiles - 1]);
  dma.finish();
  return dma;
}

const char* class_of(const trace_event& e) {
  if (e.kind == event_kind::compute) return "compute";
  if (e.kind == event_kind::stall) return "stall";
  return e.inbound ? "dma-in" : "dma-out";
}

}  // namespace

TEST_CASE("svg: escaping, ticks and labels", "[svg]") {
  using namespace tessera::report::svg_detail;
  CHECK(escape("a<b & \"c\" 'd'>") == "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;");
  CHECK(ticks(1'698'138, 10, false) ==
        std::vector<std::uint64_t>{0, 200'000, 400'000, 600'000, 800'000, 1'000'000, 1'200'000, 1'400'000, 1'600'000});
  CHECK(ticks(64 * 1024, 8, true).size() == 9);  // step 8 KiB
  CHECK(ticks(64 * 1024, 8, true)[1] == 8192);
  CHECK(ticks(0, 10, false) == std::vector<std::uint64_t>{0});
  CHECK(ticks(7, 10, false) == std::vector<std::uint64_t>{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(cycles_text(9999) == "9999");
  CHECK(cycles_text(250'000) == "250k");
  CHECK(cycles_text(1'200'000) == "1200k");
  CHECK(cycles_text(12'000'000) == "12M");
  CHECK(bytes_text(512) == "512 B");
  CHECK(bytes_text(8192) == "8 KiB");
  CHECK(bytes_text(1536) == "1536 B");  // KiB only when exact or from 10 KiB on
  CHECK(bytes_text(12800) == "12.5 KiB");
  CHECK(bytes_text(1000) == "1000 B");
  CHECK(bytes_text(512 * 1024) == "512 KiB");
  CHECK(bytes_text(8 * 1024 * 1024) == "8 MiB");
}

TEST_CASE("svg: the checker rejects what is not well formed", "[svg]") {
  CHECK(parse_xml("<svg><rect a=\"1\"/></svg>").ok());
  CHECK_FALSE(parse_xml("<svg><rect a=\"1\"></svg>").ok());       // unclosed rect
  CHECK_FALSE(parse_xml("<svg><rect a=\"x<y\"/></svg>").ok());     // '<' in a value
  CHECK_FALSE(parse_xml("<svg><text>a & b</text></svg>").ok());    // bare '&'
  CHECK_FALSE(parse_xml("<svg/><svg/>").ok());                     // two roots
  CHECK_FALSE(parse_xml("<svg><rect a=1/></svg>").ok());           // unquoted
  CHECK_FALSE(parse_xml("<svg><rect a=\"1\" a=\"2\"/></svg>").ok());  // duplicate
  CHECK(parse_xml("<svg><text>a &amp; b</text></svg>").elements[1].text == "a & b");
}

TEST_CASE("svg: the memory map's rectangles are exactly its buffers", "[svg]") {
  const tessera::report::memory_map map = hand_memory_map();
  const std::string svg = tessera::report::svg_memory_map(map);
  const xml_document doc = parse_xml(svg);
  INFO(doc.error);
  REQUIRE(doc.ok());
  CHECK(doc.elements[0].name == "svg");
  CHECK(doc.attribute(doc.elements[0], "xmlns") == "http://www.w3.org/2000/svg");
  CHECK(doc.attribute(doc.elements[0], "width") == "1200");
  CHECK(doc.elements[1].name == "title");
  CHECK(doc.elements[1].text == "L1 memory map (6 buffers)");

  const auto rects = doc.all("rect", "buffer");
  REQUIRE(rects.size() == map.buffers.size());
  for (std::size_t i = 0; i < rects.size(); ++i) {
    const buffer_lifetime& b = map.buffers[i];
    const xml_element& r = *rects[i];
    INFO("buffer " << i << " " << b.label);
    CHECK(doc.attribute(r, "data-label") == b.label);
    CHECK(doc.attribute(r, "data-kind") == tessera::report::name_of(b.kind));
    CHECK(number(doc, r, "data-offset") == b.offset);
    CHECK(number(doc, r, "data-bytes") == b.bytes);
    CHECK(number(doc, r, "data-begin") == b.t_begin);
    CHECK(number(doc, r, "data-end") == b.t_end);
    CHECK(real(doc, r, "width") >= 1.0);
    CHECK(real(doc, r, "height") >= 1.0);
    CHECK(real(doc, r, "x") + real(doc, r, "width") <= 1200.0);
  }
  // Time to the right; address 0 at the top, growing downwards.
  CHECK(real(doc, *rects[1], "x") > real(doc, *rects[0], "x"));
  CHECK(real(doc, *rects[1], "y") > real(doc, *rects[0], "y"));
  CHECK(real(doc, *rects[0], "y") == real(doc, *rects[4], "y"));
  // The capacity line, the band past it (a buffer crosses it), a legend entry per kind present.
  std::size_t capacity_lines = 0;
  for (const xml_element& e : doc.elements) capacity_lines += e.name == "line" && doc.attribute(e, "class") == "capacity";
  CHECK(capacity_lines == 1);
  CHECK(doc.all("rect", "overflow").size() == 1);
  CHECK(doc.all("rect", "legend").size() == 5);  // input, output, weights, scratch, other
  // Labels reach the file escaped, never raw.
  CHECK(svg.find("<tile 0>") == std::string::npos);
  CHECK(svg.find("in[0] &lt;tile 0&gt; &amp; &quot;x&quot;") != std::string::npos);

  SECTION("within capacity: no overflow band; an empty map is still a picture") {
    tessera::report::memory_map fits = map;
    fits.buffers.pop_back();
    CHECK(parse_xml(tessera::report::svg_memory_map(fits)).all("rect", "overflow").empty());
    const xml_document empty = parse_xml(tessera::report::svg_memory_map({.level = "L2", .capacity = 0}));
    CHECK(empty.ok());
    CHECK(empty.all("rect", "buffer").empty());
  }
}

TEST_CASE("svg: the timeline's rectangles are exactly its spans", "[svg]") {
  const tessera::report::timeline tl = hand_timeline();
  const xml_document doc = parse_xml(tessera::report::svg_timeline(tl, {.width = 900}));
  INFO(doc.error);
  REQUIRE(doc.ok());
  CHECK(doc.attribute(doc.elements[0], "width") == "900");
  CHECK(doc.all("rect", "lane").size() == 6);  // three named, three added up to lane 5
  CHECK(doc.all("rect", "compute").size() == 3);
  CHECK(doc.all("rect", "dma-in").size() == 2);
  CHECK(doc.all("rect", "dma-out").size() == 2);
  CHECK(doc.all("rect", "stall").size() == 1);
  std::vector<const xml_element*> spans;
  for (const xml_element& e : doc.elements) {
    const std::string c = doc.attribute(e, "class");
    if (e.name == "rect" && (c == "compute" || c == "dma-in" || c == "dma-out" || c == "stall")) spans.push_back(&e);
  }
  REQUIRE(spans.size() == tl.spans.size());
  for (std::size_t i = 0; i < spans.size(); ++i) {
    const timeline_span& s = tl.spans[i];
    const xml_element& r = *spans[i];
    INFO("span " << i << " " << s.label);
    CHECK(doc.attribute(r, "class") == tessera::report::name_of(s.kind));
    CHECK(number(doc, r, "data-lane") == static_cast<std::uint64_t>(s.lane));
    CHECK(doc.attribute(r, "data-label") == s.label);
    CHECK(number(doc, r, "data-level") == static_cast<std::uint64_t>(s.level));
    CHECK(number(doc, r, "data-bytes") == s.bytes);
    CHECK(number(doc, r, "data-begin") == s.t_begin);
    CHECK(number(doc, r, "data-end") == s.t_end);
    CHECK(real(doc, r, "width") >= 1.0);
  }
  CHECK(doc.attribute(*spans[5], "fill") == "url(#stall-hatch)");
  CHECK(doc.attribute(*spans[1], "fill") != doc.attribute(*spans[3], "fill"));  // loads: L2 and L3 differ
  CHECK(doc.attribute(*spans[1], "fill") != doc.attribute(*spans[2], "fill"));  // load and store differ
}

TEST_CASE("svg: the timeline of a traced run is the trace, one rectangle per event", "[svg][trace]") {
  std::vector<std::uint8_t> l3, l2, l1;
  const auto dma = traced_gap8_run(l3, l2, l1);
  REQUIRE(dma.hazard_count() == 0);
  const std::vector<trace_event>& trace = dma.trace();
  const tessera::report::timeline tl = tessera::report::timeline_of(trace, targets::gap8);
  CHECK(tl.lanes == std::vector<std::string>{"core 0", "DMA L2<->L1", "DMA1 L3<->L2"});  // L3: its own engine
  CHECK(tl.title == "Timeline on gap8");

  const xml_document doc = parse_xml(tessera::report::svg_timeline(tl));
  INFO(doc.error);
  REQUIRE(doc.ok());
  std::vector<const xml_element*> spans;
  for (const xml_element& e : doc.elements) {
    const std::string c = doc.attribute(e, "class");
    if (e.name == "rect" && (c == "compute" || c == "dma-in" || c == "dma-out" || c == "stall")) spans.push_back(&e);
  }
  REQUIRE(spans.size() == trace.size());
  std::uint64_t compute = 0, busy = 0, stall = 0;
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const trace_event& e = trace[i];
    const xml_element& r = *spans[i];
    INFO("event " << i);
    CHECK(doc.attribute(r, "class") == class_of(e));
    CHECK(number(doc, r, "data-begin") == e.begin);
    CHECK(number(doc, r, "data-end") == e.end);
    const std::uint64_t lane = number(doc, r, "data-lane");
    const std::uint64_t cycles = number(doc, r, "data-end") - number(doc, r, "data-begin");
    if (e.kind == event_kind::transfer) {
      CHECK(lane == static_cast<std::uint64_t>(e.outer_level));  // lane 1: L2<->L1, lane 2: L3<->L2
      CHECK(number(doc, r, "data-bytes") == e.bytes);
      CHECK(number(doc, r, "data-level") == static_cast<std::uint64_t>(e.outer_level));
      busy += cycles;
    } else {
      CHECK(lane == 0);
      (e.kind == event_kind::compute ? compute : stall) += cycles;
    }
  }
  CHECK(compute == dma.stats().compute_cycles);
  CHECK(busy == dma.stats().dma_busy_cycles);
  CHECK(stall == dma.stats().stall_cycles);
  CHECK(stall > 0);
  CHECK(doc.all("rect", "dma-in").size() == 7);  // filters + 6 tiles
  CHECK(doc.all("rect", "dma-out").size() == 6);
  CHECK(doc.attribute(*spans[0], "data-label") == "load #0, 1024 B");
}

TEST_CASE("svg: timeline lanes follow the target and the engines in the trace", "[svg][trace]") {
  SECTION("stm32h7: the levels' own names; an idle level still has its lane") {
    const auto tl = tessera::report::timeline_of({}, targets::stm32h7);
    CHECK(tl.lanes == std::vector<std::string>{"core 0", "DMA AXI-SRAM<->DTCM"});
    CHECK(tl.spans.empty());
  }
  SECTION("several cores and DMA engines (a later simulator): one lane each") {
    const std::vector<trace_event> trace{
        {.kind = event_kind::compute, .engine = 1, .begin = 0, .end = 10, .tag = 3},
        {.kind = event_kind::transfer, .engine = 1, .begin = 0, .end = 20, .id = 0, .outer_level = 1, .inbound = true},
        {.kind = event_kind::compute, .engine = 0, .begin = 0, .end = 10}};
    const auto tl = tessera::report::timeline_of(trace, targets::siracusa, [](const trace_event& e) {
      return e.kind == event_kind::compute ? std::string("layer ") + std::to_string(e.tag) : std::string("dma");
    });
    CHECK(tl.lanes == std::vector<std::string>{"core 0", "core 1", "DMA L2<->L1", "DMA1 L2<->L1"});
    REQUIRE(tl.spans.size() == 3);
    CHECK(tl.spans[0].lane == 1);
    CHECK(tl.spans[0].label == "layer 3");
    CHECK(tl.spans[1].lane == 3);
    CHECK(tl.spans[1].kind == span_kind::dma_in);
    CHECK(tl.spans[2].lane == 0);
  }
}

// Hidden: run by the ctest runtime/svg_files (TESSERA_SVG_DIR set), whose files the ctest
// runtime/svg_well_formed reads with Python's xml.etree.
TEST_CASE("svg: write the pictures for the well-formedness check", "[.][svg-files]") {
  const char* dir = std::getenv("TESSERA_SVG_DIR");
  if (dir == nullptr) {
    WARN("TESSERA_SVG_DIR is not set: nothing written");
    return;
  }
  std::filesystem::create_directories(dir);
  const std::string base = std::string(dir) + "/";
  std::vector<std::uint8_t> l3, l2, l1;
  const auto dma = traced_gap8_run(l3, l2, l1);
  CHECK(tessera::report::write_text_file(base + "memory_map_hand.svg", tessera::report::svg_memory_map(hand_memory_map())));
  CHECK(tessera::report::write_text_file(base + "timeline_hand.svg", tessera::report::svg_timeline(hand_timeline())));
  CHECK(tessera::report::write_text_file(
      base + "timeline_gap8_trace.svg",
      tessera::report::svg_timeline(tessera::report::timeline_of(dma.trace(), targets::gap8))));
  CHECK_FALSE(tessera::report::write_text_file(base + "no/such/dir/x.svg", "x"));
}
