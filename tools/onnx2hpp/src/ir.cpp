#include "ir.hpp"

#include <algorithm>

namespace tessera::onnx2hpp {

std::vector<std::vector<int>> graph::consumers() const {
  std::vector<std::vector<int>> result(tensors.size());
  for (int n = 0; n < static_cast<int>(nodes.size()); ++n) {
    for (tensor_ref t : nodes[static_cast<std::size_t>(n)].inputs) {
      auto& list = result[static_cast<std::size_t>(t)];
      if (list.empty() || list.back() != n) list.push_back(n);  // a node reading t twice counts once
    }
  }
  return result;
}

std::vector<int> graph::producers() const {
  std::vector<int> result(tensors.size(), -1);
  for (std::size_t n = 0; n < nodes.size(); ++n)
    for (tensor_ref t : nodes[n].outputs) result[static_cast<std::size_t>(t)] = static_cast<int>(n);
  return result;
}

bool graph::is_graph_output(tensor_ref t) const {
  return std::find(outputs.begin(), outputs.end(), t) != outputs.end();
}
bool graph::is_graph_input(tensor_ref t) const { return std::find(inputs.begin(), inputs.end(), t) != inputs.end(); }

bool accepts_fused_requant(const any_op& o) {
  return std::holds_alternative<ops::conv>(o) || std::holds_alternative<ops::gemm>(o) ||
         std::holds_alternative<ops::matmul>(o) || std::holds_alternative<ops::binary>(o) ||
         std::holds_alternative<ops::hardswish>(o) || std::holds_alternative<ops::gelu>(o) ||
         std::holds_alternative<ops::integer_div>(o);
}

const char* ops::resize_name(ops::resize_mode m) { return m == ops::resize_mode::linear ? "linear" : "nearest"; }

const char* ops::resize_name(ops::resize_coordinates c) {
  switch (c) {
    case ops::resize_coordinates::half_pixel: return "half_pixel";
    case ops::resize_coordinates::pytorch_half_pixel: return "pytorch_half_pixel";
    case ops::resize_coordinates::align_corners: return "align_corners";
    case ops::resize_coordinates::asymmetric: return "asymmetric";
  }
  return "?";
}

const char* ops::resize_name(ops::resize_nearest_rounding r) {
  switch (r) {
    case ops::resize_nearest_rounding::round_prefer_floor: return "round_prefer_floor";
    case ops::resize_nearest_rounding::round_prefer_ceil: return "round_prefer_ceil";
    case ops::resize_nearest_rounding::floor: return "floor";
    case ops::resize_nearest_rounding::ceil: return "ceil";
  }
  return "?";
}

}  // namespace tessera::onnx2hpp
