// Memory map picture of one memory level: address against time, one rectangle per buffer
// lifetime. Host only ({fmt}).
//
// x = time (cycles, 0 at the left), y = address (byte offset from the level's base, 0 at the
// top, growing downwards as in a memory dump). A dashed line marks the level's capacity; a
// buffer placed past it is drawn past it, over a shaded band. Example: an L1 of 64 KiB with
// an input tile at offset 0 (4 KiB, cycles [0, 900)) and its double-buffered twin at 4 KiB
// (cycles [450, 1400)) gives two rectangles, the second one 1/16 of the plot height lower.
//
// Every buffer rectangle is `<rect class="buffer" data-label=".." data-kind=".."
// data-offset=".." data-bytes=".." data-begin=".." data-end="..">` holding exactly its input,
// so that tests read the picture back (report/svg/detail/canvas.hpp for the conventions).
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

/// What a buffer holds; chooses its colour and its data-kind.
enum class buffer_kind : std::uint8_t {
  input,       ///< an input (activation) tile
  output,      ///< an output tile
  weights,     ///< filters, biases, requantization constants
  scratch,     ///< a kernel's scratch (im2col, accumulators)
  activation,  ///< a whole tensor of the activation arena (L2)
  staging,     ///< a slot transfers pass through (filter staging, spilled tiles)
  other,
};
inline constexpr std::size_t buffer_kind_count = 7;

constexpr const char* name_of(buffer_kind k) {
  constexpr const char* names[buffer_kind_count] = {"input", "output", "weights", "scratch",
                                                    "activation", "staging", "other"};
  return names[static_cast<std::size_t>(k)];
}

/// One buffer's lifetime: `bytes` bytes at `offset` of the level, live in cycles [t_begin, t_end).
struct buffer_lifetime {
  std::string label{};  ///< shown in the rectangle when it fits, always in its tooltip; any text
  std::size_t offset = 0;
  std::size_t bytes = 0;
  std::uint64_t t_begin = 0;
  std::uint64_t t_end = 0;
  buffer_kind kind = buffer_kind::other;
};

/// The buffers of one memory level (e.g. "L1", capacity 65,536 B) over a run.
struct memory_map {
  std::string level{};
  std::size_t capacity = 0;  ///< bytes the plan may use (the dashed line)
  std::vector<buffer_lifetime> buffers{};
  std::string title{};  ///< empty: "<level> memory map"
};

namespace svg_detail {
inline const char* colour_of(buffer_kind k) {
  constexpr const char* colours[buffer_kind_count] = {"#4e79a7", "#f28e2b", "#59a14f", "#bab0ac",
                                                      "#76b7b2", "#edc948", "#b07aa1"};
  return colours[static_cast<std::size_t>(k)];
}
}  // namespace svg_detail

/// The SVG document of `map` (a complete file, UTF-8). Rectangles are drawn in input order.
inline std::string svg_memory_map(const memory_map& map, const svg_options& options = {}) {
  namespace d = svg_detail;
  constexpr double left = 84, right = 24, top = 62, bottom = 46;
  const double width = options.width, plot_height = options.plot_height;
  std::uint64_t t_max = 1, address_max = std::max<std::uint64_t>(map.capacity, 1);
  for (const buffer_lifetime& b : map.buffers) {
    t_max = std::max({t_max, b.t_end, b.t_begin});
    address_max = std::max<std::uint64_t>(address_max, b.offset + b.bytes);
  }
  const d::scale x{0, static_cast<double>(t_max), left, width - right};
  const d::scale y{0, static_cast<double>(address_max), top, top + plot_height};
  const std::string title =
      map.title.empty() ? fmt::format("{} memory map ({} buffers)", map.level, map.buffers.size()) : map.title;
  d::canvas c(width, top + plot_height + bottom, title);

  // Legend: the kinds present, in enum order.
  std::array<bool, buffer_kind_count> present{};
  for (const buffer_lifetime& b : map.buffers) present[static_cast<std::size_t>(b.kind)] = true;
  double lx = left;
  for (std::size_t k = 0; k < buffer_kind_count; ++k)
    if (present[k]) lx = c.legend_entry(lx, 44, d::colour_of(static_cast<buffer_kind>(k)), name_of(static_cast<buffer_kind>(k)));

  // Frame, grid and axes. Past the capacity (an over-full plan) the band is shaded.
  c.raw(fmt::format("<rect class=\"frame\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#fafafa\" "
                    "stroke=\"#888\"/>\n",
                    left, top, width - right - left, plot_height));
  if (address_max > map.capacity) {
    c.raw(fmt::format("<rect class=\"overflow\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
                      "fill=\"#fde0dd\"/>\n",
                      left, y(static_cast<double>(map.capacity)), width - right - left,
                      top + plot_height - y(static_cast<double>(map.capacity))));
  }
  for (std::uint64_t t : d::ticks(t_max, 10, false)) {
    c.line(x(static_cast<double>(t)), top, x(static_cast<double>(t)), top + plot_height, "#e4e4e4");
    c.text(x(static_cast<double>(t)), top + plot_height + 14, d::cycles_text(t), "middle");
  }
  c.text((left + width - right) / 2, top + plot_height + 34, fmt::format("time ({})", options.time_unit), "middle");
  for (std::uint64_t a : d::ticks(address_max, 8, true)) {
    c.line(left - 4, y(static_cast<double>(a)), left, y(static_cast<double>(a)), "#888");
    c.text(left - 7, y(static_cast<double>(a)) + 4, d::bytes_text(a), "end");
  }
  c.text(14, top + plot_height / 2, fmt::format("{} address (0 at the top)", map.level), "middle",
         fmt::format("transform=\"rotate(-90 14 {:.1f})\"", top + plot_height / 2));

  for (const buffer_lifetime& b : map.buffers) {
    const d::pixel_span h = d::visible(x(static_cast<double>(b.t_begin)),
                                       x(static_cast<double>(std::max(b.t_begin, b.t_end))));
    const d::pixel_span v = d::visible(y(static_cast<double>(b.offset)), y(static_cast<double>(b.offset + b.bytes)));
    const std::string label = d::escape(b.label);
    c.raw(fmt::format("<rect class=\"buffer\" data-label=\"{}\" data-kind=\"{}\" data-offset=\"{}\" data-bytes=\"{}\" "
                      "data-begin=\"{}\" data-end=\"{}\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
                      "fill=\"{}\" fill-opacity=\"0.85\" stroke=\"#333\" stroke-width=\"0.5\">"
                      "<title>{}: {} at offset {}, {} [{}, {})</title></rect>\n",
                      label, name_of(b.kind), b.offset, b.bytes, b.t_begin, b.t_end, h.at, v.at, h.size, v.size,
                      d::colour_of(b.kind), label, d::bytes_text(b.bytes), b.offset, d::escape(options.time_unit),
                      b.t_begin, b.t_end));
    if (h.size >= d::text_width(b.label, 10) + 4 && v.size >= 12)
      c.text(h.at + h.size / 2, v.at + v.size / 2 + 3.5, b.label, "middle", "font-size=\"10\" pointer-events=\"none\"");
  }

  // The capacity line last, so that it stays visible over the buffers.
  const double cap = y(static_cast<double>(map.capacity));
  c.line(left, cap, width - right, cap, "#d62728", "stroke-width=\"1.5\" stroke-dasharray=\"6 4\" class=\"capacity\"");
  c.text(width - right - 4, cap - 4, fmt::format("capacity {}", d::bytes_text(map.capacity)), "end",
         "fill=\"#d62728\"");
  return std::move(c).finish();
}

}  // namespace tessera::report
