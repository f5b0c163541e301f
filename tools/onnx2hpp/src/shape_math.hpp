// Small helpers on dimension lists (logical or physical shapes, row-major).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "diagnostics.hpp"
#include "ir.hpp"

namespace tessera::onnx2hpp {

std::int64_t element_count(const dims& d);

/// "(1, 3, 8, 8)"; "()" for a scalar.
std::string to_string(const dims& d);
std::string to_string(const std::vector<int>& d);

/// numpy broadcasting; false when the shapes do not broadcast.
bool broadcast_shapes(const dims& a, const dims& b, dims& out);

/// `d` with leading 1s up to `rank` dimensions.
dims with_rank(const dims& d, std::size_t rank);

/// Row-major element strides of a shape.
std::vector<std::int64_t> strides_of(const dims& d);

/// ONNX axis in [-rank, rank) -> [0, rank); fails otherwise.
int normalize_axis(std::int64_t axis, std::size_t rank, const node_context& where);

/// The most values a constant the converter makes (broadcast or synthesized, not read from the
/// model) may hold: 2^20, 1 MiB of int8 constants. Without a bound a model of a few hundred
/// bytes whose activation extents are large asks for gigabytes (fuzzer findings).
inline constexpr std::int64_t max_made_constant_values = std::int64_t{1} << 20;

/// Materializes `a` (shape broadcastable to `shape`, same rank) over the full `shape`; fails
/// when that exceeds max_made_constant_values (callers with a node check it first).
std::vector<std::int64_t> expand_to(const int_array& a, const dims& shape);

/// Transposes row-major data: output dim i is input dim perm[i] (ONNX Transpose semantics).
std::vector<std::int64_t> transpose_values(const std::vector<std::int64_t>& values, const dims& shape,
                                           const std::vector<int>& perm);

/// The shape of `transpose_values`' result.
dims permute_dims(const dims& shape, const std::vector<int>& perm);

}  // namespace tessera::onnx2hpp
