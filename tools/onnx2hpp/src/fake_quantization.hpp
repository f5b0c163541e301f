// Fake-quantized float ends: the quantization of a float graph input, or the dequantization of
// a float graph output, written as plain float ops instead of QuantizeLinear / DequantizeLinear,
// as Brevitas- and DeepQuant-style exporters and Deeploy's Kernels/Mixed tests write them:
//
//   input:  x -> Div(scale) or Mul(multiplier) -> [Add(zero point) | Sub(-zero point)] -> Round
//             -> Clip(lo, hi) -> [Cast(int8 | uint8)]            the integer tensor the network reads
//   output: the integer tensor -> [Cast(float)] -> [Sub(zero point) | Add(-zero point)]
//             -> Mul(scale) or Div(divisor) -> y                 a float graph output
//
// find_fake_float_ends only reads the graph: the chains' nodes stay in the model (every one a
// standard op, so ONNX's checker and shape inference see the model as written), the lowering
// skips them (`taken`) and takes the ends off as float ends of the network, with the arithmetic
// the model wrote (tessera::float_arithmetic: the zero point is added before rounding, the
// multiplier is not a divisor), which float_executor reproduces exactly on the device.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include <onnx/onnx_pb.h>

#include <tessera/core/dtype.hpp>
#include <tessera/graph/float_ends.hpp>

namespace tessera::onnx2hpp {

struct fake_float_end {
  std::string onnx_name;       ///< the float graph input or output
  bool input = true;
  std::string integer_tensor;  ///< the ONNX name of the integer tensor (input: the chain's last output)
  tessera::float_arithmetic arithmetic = tessera::float_arithmetic::divide;
  double scale = 1;            ///< the model's divisor or multiplier (a float32 value)
  std::int64_t zero_point = 0;
  std::int64_t lo = 0, hi = 0;  ///< input: the Clip's bounds within the integer type
  tessera::dtype type = tessera::dtype::s8;  ///< input: the integer type (the Cast's, or the Clip's range)
  std::string ops;             ///< the chain's ops, for the header: "Div, Add, Round, Clip"
  std::vector<std::string> nodes;  ///< the chain's nodes, by their first output
};

struct fake_float_ends {
  std::vector<fake_float_end> ends;
  /// The chains' nodes, by their first output's name: the lowering skips them.
  std::unordered_set<std::string> taken;

  const fake_float_end* input(const std::string& name) const;
  const fake_float_end* output(const std::string& name) const;
};

/// Every chain of the file comment's forms at a float graph input or output of `model`. A chain
/// that does not match in full (a tensor read elsewhere, a scale that is no positive finite
/// scalar, a zero point or a Clip bound that is not an integer, bounds that fit no 8-bit type) is
/// not taken: its ops then meet the converter's usual checks.
fake_float_ends find_fake_float_ends(const onnx::ModelProto& model);

}  // namespace tessera::onnx2hpp
