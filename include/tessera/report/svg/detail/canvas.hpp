// The drawing back end of the plan pictures: XML escaping, axis ticks, number labels and a
// small SVG writer over a std::string. Private to report/svg (memory_map.hpp, timeline.hpp).
//
// The pictures are plain SVG 1.1 with inline colours (no script, no external CSS), so they
// render the same in a browser, on GitHub and in Inkscape; every data rectangle carries its
// input as data-* attributes so that tests and scripts can read the picture back.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace tessera::report::svg_detail {

/// `text` with the five XML special characters replaced by entities: safe in text content and
/// in double- or single-quoted attributes.
inline std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

/// Tick values 0, step, 2 step, ... <= max, with about `target` intervals. Decimal steps are
/// 1, 2, 5 x 10^k (cycles); binary steps are powers of two (bytes, so that ticks fall on KiB).
/// Example: max = 1,698,138 cycles, target 10: step 200,000, ticks 0 .. 1,600,000.
inline std::vector<std::uint64_t> ticks(std::uint64_t max, std::uint64_t target, bool binary) {
  const std::uint64_t wanted = std::max<std::uint64_t>(1, (max + target - 1) / target);
  std::uint64_t step = 1;
  if (binary) {
    while (step < wanted) step *= 2;
  } else {
    for (std::uint64_t decade = 1;; decade *= 10) {
      if (decade >= wanted) { step = decade; break; }
      if (2 * decade >= wanted) { step = 2 * decade; break; }
      if (5 * decade >= wanted) { step = 5 * decade; break; }
    }
  }
  std::vector<std::uint64_t> out;
  for (std::uint64_t v = 0; v <= max; v += step) out.push_back(v);
  return out;
}

/// A tick label for cycles: exact below 10,000, then k / M with at most 4 significant digits.
inline std::string cycles_text(std::uint64_t v) {
  if (v < 10'000) return fmt::format("{}", v);
  if (v < 10'000'000) return fmt::format("{:.4g}k", static_cast<double>(v) / 1e3);
  return fmt::format("{:.4g}M", static_cast<double>(v) / 1e6);
}

/// A byte count: "512 B", "48 KiB", "1.5 MiB" (KiB/MiB only when that is exact or >= 10 KiB).
inline std::string bytes_text(std::uint64_t v) {
  if (v >= (1u << 20) && v % (1u << 10) == 0) return fmt::format("{:.4g} MiB", static_cast<double>(v) / (1u << 20));
  if (v >= 1024 && (v % 1024 == 0 || v >= 10 * 1024)) return fmt::format("{:.4g} KiB", static_cast<double>(v) / 1024);
  return fmt::format("{} B", v);
}

/// Maps [d0, d1] onto [r0, r1] (pixels); a degenerate domain maps everything to r0.
struct scale {
  double d0 = 0, d1 = 1, r0 = 0, r1 = 1;
  double operator()(double v) const { return d1 == d0 ? r0 : r0 + (v - d0) * (r1 - r0) / (d1 - d0); }
};

/// A half-open span [lo, hi) in pixels, at least `min` pixels long: very short spans (a
/// 40-cycle compute in a million-cycle run) stay visible.
struct pixel_span {
  double at = 0, size = 0;
};
inline pixel_span visible(double lo, double hi, double min = 1.0) { return {lo, std::max(hi - lo, min)}; }

/// Approximate width of `text` in the pictures' 11 px sans-serif: decides whether a label fits
/// inside its rectangle (it is left to the tooltip when it does not).
inline double text_width(std::string_view text, double font_px = 11) {
  return static_cast<double>(text.size()) * font_px * 0.58;
}

/// An SVG document under construction. Coordinates are written with one decimal: finer does
/// not show at 1200 px and keeps files small.
class canvas {
 public:
  canvas(double width, double height, std::string_view title) : width_(width) {
    out_ = fmt::format(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.0f}\" height=\"{1:.0f}\" viewBox=\"0 0 {0:.0f} {1:.0f}\" "
        "font-family=\"sans-serif\" font-size=\"11\">\n"
        "<title>{2}</title>\n"
        "<defs><pattern id=\"stall-hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
        "patternTransform=\"rotate(45)\"><rect class=\"pattern\" width=\"6\" height=\"6\" fill=\"#fde0dd\"/>"
        "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#d62728\" stroke-width=\"3\"/></pattern></defs>\n"
        "<rect class=\"background\" width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        "<text x=\"12\" y=\"22\" font-size=\"15\" font-weight=\"bold\">{2}</text>\n",
        width, height, escape(title));
  }

  double width() const { return width_; }

  /// Appends raw SVG (callers escape what they interpolate).
  void raw(std::string_view svg) { out_ += svg; }

  void text(double x, double y, std::string_view content, std::string_view anchor = "start", std::string_view extra = "") {
    out_ += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"{}\"{}{}>{}</text>\n", x, y, anchor,
                        extra.empty() ? "" : " ", extra, escape(content));
  }

  void line(double x1, double y1, double x2, double y2, std::string_view stroke, std::string_view extra = "") {
    out_ += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\"{}{}/>\n", x1, y1, x2,
                        y2, stroke, extra.empty() ? "" : " ", extra);
  }

  /// A legend entry at (x, y): a swatch and its text; returns the x where the next entry goes.
  double legend_entry(double x, double y, std::string_view fill, std::string_view label) {
    out_ += fmt::format("<rect class=\"legend\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"12\" height=\"12\" fill=\"{}\" "
                        "stroke=\"#444\" stroke-width=\"0.5\"/>\n",
                        x, y - 10, fill);
    text(x + 16, y, label);
    return x + 16 + text_width(label) + 18;
  }

  std::string finish() && {
    out_ += "</svg>\n";
    return std::move(out_);
  }

 private:
  double width_;
  std::string out_;
};

}  // namespace tessera::report::svg_detail
