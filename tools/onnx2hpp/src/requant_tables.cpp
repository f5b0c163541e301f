#include "requant_tables.hpp"

#include <algorithm>

#include "shape_math.hpp"

namespace tessera::onnx2hpp {
namespace {

/// Value of the broadcast constant `c` at a logical coordinate.
std::int64_t value_at(const int_array& c, const std::vector<std::int64_t>& coordinate) {
  const auto strides = strides_of(c.shape);
  std::int64_t index = 0;
  for (std::size_t d = 0; d < c.shape.size(); ++d)
    if (c.shape[d] != 1) index += coordinate[d] * strides[d];
  return c.values[static_cast<std::size_t>(index)];
}

bool is_scalar(const int_array& c) { return element_count(c.shape) == 1; }

}  // namespace

device::requant_table make_requant_table(const requant& rq, const dims& logical, const layout& l,
                                         const node_context& where) {
  device::requant_table table;
  table.shift = rq.shift;
  table.lo = rq.lo;
  table.hi = rq.hi;
  table.rounding = rq.rounding;
  table.zero_point = rq.zero_point;
  table.divisor = rq.divisor;
  if (is_scalar(rq.mul) && is_scalar(rq.add)) {
    table.mul = rq.mul.values;
    table.add = rq.add.values;
    return table;
  }
  if (!is_plain(l, logical)) where.fail("a per-channel RequantShift on a reordered flattened tensor is not supported");

  // Physical axes along which mul or add vary.
  const dims physical = physical_shape(logical, l);
  int first = -1, last = -1;
  for (std::size_t i = 0; i < l.perm.size(); ++i) {
    const auto axis = static_cast<std::size_t>(l.perm[i]);
    if (rq.mul.shape[axis] != 1 || rq.add.shape[axis] != 1) {
      if (first < 0) first = static_cast<int>(i);
      last = static_cast<int>(i);
    }
  }
  const auto run_begin = physical.begin() + first, run_end = physical.begin() + last + 1;
  const std::int64_t length = element_count(dims(run_begin, run_end));
  table.inner = element_count(dims(run_end, physical.end()));

  // Walk the run's physical coordinates in row-major order; map each to its logical coordinate.
  std::vector<std::int64_t> coordinate(logical.size(), 0);
  for (std::int64_t j = 0; j < length; ++j) {
    std::int64_t rest = j;
    for (int i = last; i >= first; --i) {
      const auto extent = physical[static_cast<std::size_t>(i)];
      coordinate[static_cast<std::size_t>(l.perm[static_cast<std::size_t>(i)])] = rest % extent;
      rest /= extent;
    }
    table.mul.push_back(value_at(rq.mul, coordinate));
    table.add.push_back(value_at(rq.add, coordinate));
  }
  return table;
}

}  // namespace tessera::onnx2hpp
