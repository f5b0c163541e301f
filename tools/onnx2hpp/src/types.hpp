// Element types: of the graph inputs (command line, sample data or the model) and, from
// them, of every tensor.
//
// Rules (../../../docs/semantics.md): Conv/Gemm/MatMul/Add/Sub produce int32 accumulators;
// RequantShift produces the type its n_levels and signedness call for; pools and data
// movement keep their input's type.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <tessera/core/dtype.hpp>

#include "ir.hpp"
#include "npz.hpp"

namespace tessera::onnx2hpp {

/// Types the graph inputs. Per input, the first that applies: an explicit `--input-type`;
/// the sample array at the same position (`samples`, may be null): the smallest of u8, s8,
/// u16, s16, s32 holding all its values, which is how Deeploy types its inputs; the model's
/// own integer element type. A float input with neither is an error asking for --input-type.
void assign_input_types(graph& g, const std::vector<std::pair<std::string, tessera::dtype>>& explicit_types,
                        const std::vector<tools::npy_array>* samples);

/// Types every other tensor. A Concat must not mix types (its kernel copies bytes): when its
/// inputs differ only because graph inputs were typed from samples, those inputs are widened
/// to a common type (Deeploy's type "backtracking", corpus case Others/Backtracking);
/// otherwise it is an error.
void propagate_types(graph& g);

}  // namespace tessera::onnx2hpp
