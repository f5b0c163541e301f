// Physical layouts of tensors.
//
// A tensor's device data is transpose(reshape(logical, view), perm), as tessera::tensor_origin
// documents: physical dim i has extent view[perm[i]]. A "plain" layout has view == logical
// shape and the physical shape is the permuted logical shape (NCHW -> NHWC: perm {0,2,3,1}).
// A reshape of a permuted tensor that keeps the data makes a "flattened" layout: the view is
// the pre-reshape shape, and the physical shape is the logical one (only the element order
// differs); only consumers that can absorb the order (a gemm contracting over it) read it.
#pragma once

#include <vector>

#include "ir.hpp"

namespace tessera::onnx2hpp {

using permutation = std::vector<int>;

struct layout {
  dims view;
  permutation perm;
};

permutation identity_permutation(std::size_t rank);
/// NCHW -> NHWC ({0, 2, 3, 1}) for rank 4, NCW -> NWC ({0, 2, 1}) for rank 3.
permutation channels_last_permutation(std::size_t rank);
permutation inverse(const permutation& p);
bool is_identity(const permutation& p);

layout plain_layout(const dims& logical, permutation perm);
bool is_plain(const layout& l, const dims& logical);

/// Physical (device) shape of a tensor.
dims physical_shape(const dims& logical, const layout& l);

/// Whether the two permutations of `shape` store the elements in the same order: they only
/// differ in where the extent-1 dims go (NCHW (1, C, 1, 1) and NHWC hold the same bytes).
bool same_data_order(const dims& shape, const permutation& a, const permutation& b);

/// Whether the layout stores the elements in logical row-major order.
bool is_row_major(const dims& logical, const layout& l);

}  // namespace tessera::onnx2hpp
