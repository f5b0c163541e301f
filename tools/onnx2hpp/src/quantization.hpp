// Standard ONNX quantization (QDQ and QOperator) in Tessera's integers: reading scales and
// zero points, and the one rule that turns a real multiplier into a RequantShift.
//
// A quantized tensor q stands for the real value scale * (q - zero_point). An integer op on
// such tensors accumulates sum((x - zx) * (w - zw)) + bias exactly (zero points folded into
// its constants), whose real value is s_x * s_w[c] * acc; QuantizeLinear then needs
//     y = saturate(round(acc * M[c]) + z_y),   M[c] = s_x * s_w[c] / s_y,
// which `integer_requant` turns into (mul[c], add[c], shift) for
//     y = clamp((acc * mul + add + 2^(shift-1)) >> shift, lo, hi)       (core/requant.hpp).
// See tools/onnx2hpp/README.md ("Standard quantized ONNX") for where it may differ by one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include <tessera/core/dtype.hpp>

#include "diagnostics.hpp"

namespace tessera::onnx2hpp {

/// Whether the `add` of a requantization must fit the library's int32 (`int32`), or may be any
/// int64 because it will be split into the producer's bias (`unbounded`, see widen_requant_shifts).
enum class requant_add { int32, unbounded };

/// The integer form of y = round(scale_in[c] * (acc - zero_in) / scale_out) + zero_out:
///   M[c]  = scale_in[c] / scale_out
///   shift = the largest s in [0, 62] such that every mul[c] = round(M[c] * 2^s) (half away
///           from zero) is at most 2^31 - 1 and every add[c] = zero_out * 2^s - zero_in * mul[c]
///           fits int32 (`requant_add::int32`; with `unbounded`, s <= 46 when zero_out != 0);
/// fails naming the node when no shift works (M >= 2^31).
struct integer_multipliers {
  std::vector<std::int64_t> mul;
  std::vector<std::int64_t> add;
  int shift = 0;
};
integer_multipliers integer_requant(const std::vector<double>& scale_in, std::int64_t zero_in, double scale_out,
                                    std::int64_t zero_out, const node_context& where,
                                    requant_add add_range = requant_add::int32);

/// ONNX QuantizeLinear of one real value, before saturation: round half to even (r / scale) + zp.
std::int64_t quantize_real(double r, double scale, std::int64_t zero_point);

/// The values of a float constant (FLOAT or DOUBLE, raw or typed), e.g. a scale or a Clip bound.
std::vector<double> float_values(const onnx::TensorProto& t, const node_context& where, const std::string& role);

/// The Tessera type of a zero point's ONNX element type (INT8, UINT8, INT32); fails otherwise.
tessera::dtype zero_point_type(int onnx_elem_type, const node_context& where, const std::string& role);

}  // namespace tessera::onnx2hpp
