// RequantShift constants in the order the device reads them.
//
// The kernels index mul/add by (physical flat index / inner) % length
// (tessera::requant_params). A constant broadcast over a tensor varies along some logical
// axes; in the physical layout those become a run of physical axes [first, last]. The table
// covers that run (length = product of its extents, inner = product of the extents after it),
// e.g. a per-channel (C, 1, 1) constant on an NHWC map: the run is the last axis, length C,
// inner 1; a per-row (M, 1) constant of a Gemm (M, N): length M, inner N. Axes of extent 1
// inside the run are harmless; other non-varying axes inside it are filled by repetition.
#pragma once

#include "device_ir.hpp"
#include "diagnostics.hpp"
#include "ir.hpp"
#include "layout_math.hpp"

namespace tessera::onnx2hpp {

device::requant_table make_requant_table(const requant& rq, const dims& logical, const layout& l,
                                         const node_context& where);

}  // namespace tessera::onnx2hpp
