// Umbrella header of the plan pictures (SVG, host only, {fmt}): the memory map of one level
// (address against time, one rectangle per buffer lifetime), the timeline (one lane per core
// and DMA engine: compute, loads and stores per level, stalls) and the timeline of a traced
// simulated run. docs/pictures.md shows what they look like and how to produce them.
#pragma once

#include <tessera/report/svg/memory_map.hpp>
#include <tessera/report/svg/options.hpp>
#include <tessera/report/svg/timeline.hpp>
#include <tessera/report/svg/trace_timeline.hpp>
#include <tessera/report/svg/write_file.hpp>
