// Prints the device graph as the generated header: constants, the tensor table, the
// network type and the origin table (meta::origins). Typed C++ only: no kernels, no plans.
#pragma once

#include <string>

#include "device_ir.hpp"

namespace tessera::onnx2hpp {

/// The header text; `ns` is a valid namespace (naming.hpp). `float_boundary` (--float-boundary)
/// adds `float_ends` after the network type, for tessera::float_executor; the graph must have
/// float ends (g.boundaries), which the converter checks.
std::string emit_header(const device::graph& g, const std::string& ns, bool float_boundary = false);

}  // namespace tessera::onnx2hpp
