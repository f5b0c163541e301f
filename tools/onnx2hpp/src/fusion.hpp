// Graph fusions (on by default, all off with --no-fuse):
//  - a MatMul/Gemm product followed by an Add of a constant along its last axis takes that
//    constant as its bias;
//  - a zero Pad of the spatial axes that feeds only a Conv becomes the Conv's padding;
//  - a RequantShift becomes the epilogue of the Conv/Gemm/MatMul/Add/Sub that produces its
//    input, so the int32 accumulator never reaches memory.
// Each applies only when the intermediate tensor has no other reader and is not a graph
// output, so no observable tensor disappears.
#pragma once

#include "ir.hpp"

namespace tessera::onnx2hpp {

void fuse(graph& g);

}  // namespace tessera::onnx2hpp
