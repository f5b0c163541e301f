// Size and units of the plan pictures (report/svg): shared by the memory map and the timeline.
#pragma once

#include <string>

namespace tessera::report {

struct svg_options {
  double width = 1200;         ///< picture width (px); the time axis spans it less the margins
  double plot_height = 480;    ///< memory map: height of the address axis (px)
  double lane_height = 24;     ///< timeline: height of one lane (px)
  std::string time_unit = "cycles";  ///< the x axis' unit, as printed (e.g. "steps" for step indices)
};

}  // namespace tessera::report
