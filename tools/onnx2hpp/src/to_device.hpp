// The layout pass: turns the logical IR into the physical device graph.
//
// Activations of convolutions and pools are channels-last on the device, so every rank-4
// tensor produced by or feeding a Conv/MaxPool/AveragePool is NHWC (perm {0, 2, 3, 1}),
// rank-3 NWC ({0, 2, 1}); a graph input is channels-last only when it feeds such an op
// (possibly through a RequantShift, Pad or Slice). Other tensors keep the identity layout.
// Elementwise and data-movement ops work in the layout of their input, with their axis
// attributes and constants remapped through the permutation; where an op needs a layout its
// operand does not have, an op::transpose is inserted (an op::reshape when only extent-1 dims
// move, which stores the same bytes). A Transpose moves no data: its output takes the layout
// that stores the input's bytes unchanged, and the first reader needing another layout copies
// once. A Reshape/Flatten of a permuted tensor keeps the data when every reader is a gemm
// contracting over the whole flattened axis: the gemm's weights are permuted offline instead,
// and the tensor's origin records the view and permutation.
#pragma once

#include "device_ir.hpp"
#include "ir.hpp"

namespace tessera::onnx2hpp {

device::graph to_device(const graph& g);

}  // namespace tessera::onnx2hpp
