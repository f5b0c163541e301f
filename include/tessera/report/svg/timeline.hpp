// Timeline picture of a run: one lane per engine and core, time to the right. Host only ({fmt}).
//
// Lanes are drawn top to bottom in the order given (e.g. "core 0", "DMA L2<->L1",
// "DMA L3<->L2"). Compute is green; DMA loads and stores have one colour per outer level
// (L2: blue loads, orange stores; L3: teal loads, purple stores); stalls are red hatched. A
// span of a few cycles in a long run is still drawn 1 px wide.
//
// Every span rectangle is `<rect class="compute|dma-in|dma-out|stall" data-lane=".."
// data-label=".." data-level=".." data-bytes=".." data-begin=".." data-end="..">` holding
// exactly its input, so that tests read the picture back.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <tessera/report/svg/detail/canvas.hpp>
#include <tessera/report/svg/options.hpp>

namespace tessera::report {

enum class span_kind : std::uint8_t {
  compute,  ///< a core computes
  dma_in,   ///< a DMA load (outer level -> inner)
  dma_out,  ///< a DMA store (inner -> outer level)
  stall,    ///< a core waits for a transfer
};
inline constexpr std::size_t span_kind_count = 4;

/// The CSS class of a span's rectangle (also what tests count).
constexpr const char* name_of(span_kind k) {
  constexpr const char* names[span_kind_count] = {"compute", "dma-in", "dma-out", "stall"};
  return names[static_cast<std::size_t>(k)];
}

/// One span [t_begin, t_end) on lane `lane` (an index into timeline::lanes).
struct timeline_span {
  int lane = 0;
  span_kind kind = span_kind::compute;
  std::uint64_t t_begin = 0;
  std::uint64_t t_end = 0;
  std::string label{};    ///< shown in the rectangle when it fits, always in its tooltip; any text
  int level = 0;          ///< DMA spans (and stalls): the transfer's outer level (1 = L2, 2 = L3); else 0
  std::uint64_t bytes = 0;  ///< DMA spans (and stalls): the transfer's bytes; else 0
};

struct timeline {
  std::vector<std::string> lanes{};  ///< lane names, top to bottom
  std::vector<timeline_span> spans{};
  std::string title{};  ///< empty: "Timeline"
};

namespace svg_detail {
/// Compute green; loads and stores per outer level; stalls use the hatch pattern.
inline const char* colour_of(span_kind k, int level) {
  if (k == span_kind::compute) return "#59a14f";
  if (k == span_kind::stall) return "url(#stall-hatch)";
  const bool in = k == span_kind::dma_in;
  if (level == 1) return in ? "#4e79a7" : "#f28e2b";
  if (level == 2) return in ? "#76b7b2" : "#b07aa1";
  return in ? "#9d9d9d" : "#6b6b6b";
}
}  // namespace svg_detail

/// The SVG document of `tl` (a complete file, UTF-8). Spans on a lane outside `tl.lanes` are
/// drawn on an extra lane "lane <n>" so that nothing is lost silently; a negative lane is skipped.
inline std::string svg_timeline(const timeline& tl, const svg_options& options = {}) {
  namespace d = svg_detail;
  constexpr double left = 138, right = 24, top = 62, bottom = 46, gap = 8;
  std::vector<std::string> lanes = tl.lanes;
  std::uint64_t t_max = 1;
  for (const timeline_span& s : tl.spans) {
    t_max = std::max({t_max, s.t_begin, s.t_end});
    while (s.lane >= 0 && static_cast<std::size_t>(s.lane) >= lanes.size()) lanes.push_back(fmt::format("lane {}", lanes.size()));
  }
  const double width = options.width, lane_h = options.lane_height;
  const double plot_height = static_cast<double>(lanes.size()) * (lane_h + gap) + gap;
  const d::scale x{0, static_cast<double>(t_max), left, width - right};
  auto lane_top = [&](int lane) { return top + gap + static_cast<double>(lane) * (lane_h + gap); };
  d::canvas c(width, top + plot_height + bottom, tl.title.empty() ? std::string("Timeline") : tl.title);

  // Legend: the kinds (and levels) present.
  std::array<std::array<bool, 4>, span_kind_count> present{};  // [kind][level, clamped to 3]
  for (const timeline_span& s : tl.spans)
    present[static_cast<std::size_t>(s.kind)][static_cast<std::size_t>(std::clamp(s.level, 0, 3))] = true;
  double lx = left;
  if (present[0][0] || present[0][1] || present[0][2] || present[0][3]) lx = c.legend_entry(lx, 44, d::colour_of(span_kind::compute, 0), "compute");
  for (int level = 0; level <= 3; ++level)
    for (const span_kind k : {span_kind::dma_in, span_kind::dma_out})
      if (present[static_cast<std::size_t>(k)][static_cast<std::size_t>(level)])
        lx = c.legend_entry(lx, 44, d::colour_of(k, level),
                            fmt::format("{} L{}", k == span_kind::dma_in ? "load from" : "store to", level + 1));
  for (bool any : present[static_cast<std::size_t>(span_kind::stall)])
    if (any) {
      c.legend_entry(lx, 44, d::colour_of(span_kind::stall, 0), "stall");
      break;
    }

  for (std::size_t l = 0; l < lanes.size(); ++l) {
    const double y = lane_top(static_cast<int>(l));
    c.raw(fmt::format("<rect class=\"lane\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#f4f4f4\"/>\n",
                      left, y, width - right - left, lane_h));
    c.text(left - 8, y + lane_h / 2 + 4, lanes[l], "end");
  }
  for (std::uint64_t t : d::ticks(t_max, 10, false)) {
    c.line(x(static_cast<double>(t)), top, x(static_cast<double>(t)), top + plot_height, "#dddddd");
    c.text(x(static_cast<double>(t)), top + plot_height + 14, d::cycles_text(t), "middle");
  }
  c.text((left + width - right) / 2, top + plot_height + 34, fmt::format("time ({})", options.time_unit), "middle");

  for (const timeline_span& s : tl.spans) {
    if (s.lane < 0) continue;  // no lane to draw it on (documented above)
    const d::pixel_span h = d::visible(x(static_cast<double>(s.t_begin)), x(static_cast<double>(std::max(s.t_begin, s.t_end))));
    const double y = lane_top(s.lane) + (s.kind == span_kind::stall ? lane_h * 0.2 : 0);
    const double hh = s.kind == span_kind::stall ? lane_h * 0.6 : lane_h;
    const std::string label = d::escape(s.label);
    c.raw(fmt::format("<rect class=\"{}\" data-lane=\"{}\" data-label=\"{}\" data-level=\"{}\" data-bytes=\"{}\" "
                      "data-begin=\"{}\" data-end=\"{}\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
                      "fill=\"{}\" stroke=\"{}\" stroke-width=\"0.5\"><title>{}: {} [{}, {})</title></rect>\n",
                      name_of(s.kind), s.lane, label, s.level, s.bytes, s.t_begin, s.t_end, h.at, y, h.size, hh,
                      d::colour_of(s.kind, s.level), s.kind == span_kind::stall ? "#d62728" : "#333", label,
                      d::escape(options.time_unit), s.t_begin, s.t_end));
    if (s.kind != span_kind::stall && h.size >= d::text_width(s.label, 10) + 4)
      c.text(h.at + h.size / 2, y + lane_h / 2 + 3.5, s.label, "middle", "font-size=\"10\" pointer-events=\"none\"");
  }
  return std::move(c).finish();
}

}  // namespace tessera::report
