// Where a device tensor comes from in the source model: host-side metadata that onnx2hpp
// emits beside the network so that tests and tools can read device buffers as ONNX tensors.
//
// The physical (device) data is `transpose(reshape(logical, view), perm)`: physical dim i has
// extent view[perm[i]]. A feature map NCHW -> NHWC has view = logical and perm = {0, 2, 3, 1};
// a Flatten of that map to {1, C*H*W} keeps the NHWC data, so its view is {1, C, H, W} with the
// same perm. Target code never reads this table, so it costs no flash.
#pragma once

#include <array>

#include <tessera/core/shape.hpp>
#include <tessera/graph/tensor.hpp>

namespace tessera {

struct tensor_origin {
  const char* onnx_name = "";
  tensor_id id = -1;
  const char* producer = "";  ///< ONNX op type that produced it ("" for a graph input)
  shape logical{};            ///< ONNX shape
  shape view{};               ///< same elements as logical, in logical order
  std::array<int, max_rank> perm{0, 1, 2, 3, 4};

  /// Physical flat index of the element at logical (row-major) flat index `i`.
  constexpr std::int64_t physical_index(std::int64_t i) const {
    std::array<int, max_rank> coord{};
    for (int d = view.rank - 1; d >= 0; --d) {
      coord[static_cast<std::size_t>(d)] = static_cast<int>(i % view[d]);
      i /= view[d];
    }
    std::int64_t p = 0;
    for (int d = 0; d < view.rank; ++d) p = p * view[perm[static_cast<std::size_t>(d)]] + coord[static_cast<std::size_t>(perm[static_cast<std::size_t>(d)])];
    return p;
  }
};

}  // namespace tessera
