// More multiplier bits for the requantizations of standard quantized ONNX whose output zero
// point limited their shift.
//
// The library's requant adds `add` as int32, and for QDQ/QOperator add = zero_out * 2^shift
// (integer_requant), so a uint8 output with zero point 123 caps the shift at 24 and leaves
// mul with as few as 15 significant bits: a ResNet-8 exported by torch then differs from the
// float reference on most outputs. When the requantized accumulator comes straight from a
// Conv or Gemm (and nothing else reads it), the pass picks the shift by mul alone and splits
// add = q * mul + r with 0 <= r < mul: q joins the producer's int32 bias and r stays the add.
// (acc + q) * mul + r == acc * mul + add, so the result is the one of the wider rule, with no
// library change. It runs after typing and before fusion, so the fused and unfused headers
// compute the same numbers.
#pragma once

#include "ir.hpp"

namespace tessera::onnx2hpp {

void widen_requant_shifts(graph& g);

}  // namespace tessera::onnx2hpp
