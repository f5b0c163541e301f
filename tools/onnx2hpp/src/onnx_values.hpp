// Reading ONNX attributes and constant tensors as exact integers.
//
// The dialect stores integers loosely: weights as float32 initializers holding exact integers,
// RequantShift's `div` as a float, an int or a one-element list. These helpers accept those
// spellings and reject anything that is not an exact integer, naming the node.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include <tessera/core/dtype.hpp>

#include "diagnostics.hpp"
#include "ir.hpp"

namespace tessera::onnx2hpp {

const onnx::AttributeProto* find_attribute(const onnx::NodeProto& node, const std::string& name);

std::int64_t int_attribute(const onnx::NodeProto& node, const std::string& name, std::int64_t fallback);
std::vector<std::int64_t> ints_attribute(const onnx::NodeProto& node, const std::string& name,
                                         std::vector<std::int64_t> fallback);
std::string string_attribute(const onnx::NodeProto& node, const std::string& name, std::string fallback);
float float_attribute(const onnx::NodeProto& node, const std::string& name, float fallback);

/// A number given as INT, FLOAT, or a one-element INTS/FLOATS/TENSOR (the dialect uses all of
/// them); fails when the attribute is missing or is not a single number.
double number_attribute(const onnx::NodeProto& node, const node_context& where, const std::string& name);
bool has_attribute(const onnx::NodeProto& node, const std::string& name);
/// number_attribute that must hold an exact integer (QuantLib writes integers as floats).
std::int64_t integer_attribute(const onnx::NodeProto& node, const node_context& where, const std::string& name);
/// k of an attribute that must be 2^k, k in [0, 62] (RequantShift's div, the norms' D).
int power_of_two_attribute(const onnx::NodeProto& node, const node_context& where, const std::string& name);

/// The values of a constant tensor as exact integers (float tensors must hold integers).
/// `role` names the tensor in messages, e.g. "weights 'conv.weight'".
int_array integer_tensor(const onnx::TensorProto& t, const node_context& where, const std::string& role);

/// Fails unless every value lies in [lo, hi]; `range_name` e.g. "int8".
void require_range(const int_array& a, std::int64_t lo, std::int64_t hi, const node_context& where,
                   const std::string& role, const std::string& range_name);

/// require_range over a dtype's range; messages name it in C terms ("int8", "uint16", ...).
void require_fits(const int_array& a, tessera::dtype type, const node_context& where, const std::string& role);
std::string c_type_name(tessera::dtype type);

/// The tensor of a Constant node (attribute `value`, `value_int(s)` or `value_float(s)`).
onnx::TensorProto constant_node_tensor(const onnx::NodeProto& node);

}  // namespace tessera::onnx2hpp
