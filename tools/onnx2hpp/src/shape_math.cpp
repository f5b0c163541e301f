#include "shape_math.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tessera::onnx2hpp {

std::int64_t element_count(const dims& d) {
  std::int64_t n = 1;
  for (auto x : d) {
    // A fuzzed model's extents can overflow int64 (undefined behaviour): refuse the shape.
    if (__builtin_mul_overflow(n, x, &n))
      throw conversion_error("a tensor of shape " + to_string(d) + " has too many elements");
  }
  return n;
}

std::string to_string(const dims& d) { return fmt::format("({})", fmt::join(d, ", ")); }
std::string to_string(const std::vector<int>& d) { return fmt::format("({})", fmt::join(d, ", ")); }

bool broadcast_shapes(const dims& a, const dims& b, dims& out) {
  const std::size_t rank = std::max(a.size(), b.size());
  const dims pa = with_rank(a, rank), pb = with_rank(b, rank);
  out.assign(rank, 1);
  for (std::size_t i = 0; i < rank; ++i) {
    if (pa[i] != pb[i] && pa[i] != 1 && pb[i] != 1) return false;
    out[i] = pa[i] == 1 ? pb[i] : pa[i];
  }
  return true;
}

dims with_rank(const dims& d, std::size_t rank) {
  if (d.size() >= rank) return d;
  dims out(rank - d.size(), 1);
  out.insert(out.end(), d.begin(), d.end());
  return out;
}

std::vector<std::int64_t> strides_of(const dims& d) {
  std::vector<std::int64_t> s(d.size(), 1);
  for (std::size_t i = d.size(); i-- > 1;) s[i - 1] = s[i] * d[i];
  return s;
}

int normalize_axis(std::int64_t axis, std::size_t rank, const node_context& where) {
  const auto r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= r) where.fail(fmt::format("axis {} is out of range for rank {}", axis, rank));
  return static_cast<int>(axis < 0 ? axis + r : axis);
}

std::vector<std::int64_t> expand_to(const int_array& a, const dims& shape) {
  const std::int64_t count = element_count(shape);
  if (count > max_made_constant_values)
    fail(fmt::format("a constant {} broadcast to {} would hold {} values, more than 2^20 (1 MiB of constants)",
                     to_string(a.shape), to_string(shape), count));
  std::vector<std::int64_t> out(static_cast<std::size_t>(count));
  const auto source_strides = strides_of(a.shape);
  std::vector<std::int64_t> index(shape.size(), 0);
  for (std::int64_t i = 0; i < count; ++i) {
    std::int64_t source = 0;
    for (std::size_t d = 0; d < shape.size(); ++d)
      if (a.shape[d] != 1) source += index[d] * source_strides[d];
    out[static_cast<std::size_t>(i)] = a.values[static_cast<std::size_t>(source)];
    for (std::size_t d = shape.size(); d-- > 0;) {  // odometer over the output index
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

dims permute_dims(const dims& shape, const std::vector<int>& perm) {
  dims out(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) out[i] = shape[static_cast<std::size_t>(perm[i])];
  return out;
}

std::vector<std::int64_t> transpose_values(const std::vector<std::int64_t>& values, const dims& shape,
                                           const std::vector<int>& perm) {
  const dims out_shape = permute_dims(shape, perm);
  const auto in_strides = strides_of(shape);
  std::vector<std::int64_t> out(values.size());
  std::vector<std::int64_t> index(out_shape.size(), 0);
  for (std::size_t o = 0; o < out.size(); ++o) {
    std::int64_t source = 0;
    for (std::size_t d = 0; d < out_shape.size(); ++d)
      source += index[d] * in_strides[static_cast<std::size_t>(perm[d])];
    out[o] = values[static_cast<std::size_t>(source)];
    for (std::size_t d = out_shape.size(); d-- > 0;) {
      if (++index[d] < out_shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

}  // namespace tessera::onnx2hpp
