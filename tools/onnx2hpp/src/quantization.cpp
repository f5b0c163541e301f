#include "quantization.hpp"

#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

namespace tessera::onnx2hpp {

integer_multipliers integer_requant(const std::vector<double>& scale_in, std::int64_t zero_in, double scale_out,
                                    std::int64_t zero_out, const node_context& where, requant_add add_range) {
  constexpr std::int64_t int32_max = std::numeric_limits<std::int32_t>::max();
  const auto fits = [&](std::int64_t v) { return v >= -int32_max - 1 && v <= int32_max; };
  std::vector<double> m;
  for (double s : scale_in) {
    const double multiplier = s / scale_out;
    if (!std::isfinite(multiplier) || multiplier <= 0)
      where.fail(fmt::format("requantization multiplier {} (scale {} / output scale {}) is not a positive number",
                             multiplier, s, scale_out));
    m.push_back(multiplier);
  }
  // The largest shift keeps the most bits of M; mul < 2^31 keeps acc * mul (|acc| < 2^31)
  // inside int64 together with add and the rounding term.
  for (int shift = 62; shift >= 0; --shift) {
    integer_multipliers r;
    r.shift = shift;
    bool ok = true;
    for (double multiplier : m) {
      const double scaled = std::ldexp(multiplier, shift);
      if (scaled > static_cast<double>(int32_max)) {
        ok = false;
        break;
      }
      const std::int64_t mul = std::llround(scaled);
      if (mul > int32_max) {
        ok = false;
        break;
      }
      // zero_out * 2^shift must not overflow before it is checked: |zero_out| <= 2^16, so
      // shift <= 46 keeps it (and zero_in * mul, < 2^47) inside int64.
      const int shift_limit = add_range == requant_add::int32 ? 31 : 46;
      if (shift > shift_limit && zero_out != 0) {
        ok = false;
        break;
      }
      const std::int64_t add = zero_out * (std::int64_t{1} << shift) - zero_in * mul;
      if (add_range == requant_add::int32 && !fits(add)) {
        ok = false;
        break;
      }
      r.mul.push_back(mul);
      r.add.push_back(add);
    }
    if (ok) return r;
  }
  where.fail(fmt::format("requantization multiplier {} cannot be expressed as mul / 2^shift with a 31-bit mul "
                         "(zero points {} -> {})",
                         m.empty() ? 0.0 : m.front(), zero_in, zero_out));
}

std::int64_t quantize_real(double r, double scale, std::int64_t zero_point) {
  const double q = std::nearbyint(r / scale);  // the default rounding mode: half to even
  constexpr double bound = 1.0e15;
  return static_cast<std::int64_t>(std::fmax(-bound, std::fmin(bound, q))) + zero_point;
}

std::vector<double> float_values(const onnx::TensorProto& t, const node_context& where, const std::string& role) {
  using tp = onnx::TensorProto;
  if (t.data_location() == tp::EXTERNAL) where.fail(role + " uses external data, which is not supported");
  std::size_t count = 1;
  for (auto d : t.dims()) {
    if (d < 0) where.fail(role + " has a negative dimension");
    count *= static_cast<std::size_t>(d);
  }
  std::vector<double> out;
  const auto raw = [&](auto zero) {
    using T = decltype(zero);
    if (t.raw_data().size() != count * sizeof(T))
      where.fail(fmt::format("{} holds {} bytes of data for {} elements", role, t.raw_data().size(), count));
    for (std::size_t i = 0; i < count; ++i) {
      T v;
      std::memcpy(&v, t.raw_data().data() + i * sizeof(T), sizeof(T));
      out.push_back(static_cast<double>(v));
    }
  };
  if (t.data_type() == tp::FLOAT) {
    if (t.has_raw_data()) raw(0.0f);
    else out.assign(t.float_data().begin(), t.float_data().end());
  } else if (t.data_type() == tp::DOUBLE) {
    if (t.has_raw_data()) raw(0.0);
    else out.assign(t.double_data().begin(), t.double_data().end());
  } else {
    where.fail(role + " must be a float tensor, not " + tp::DataType_Name(t.data_type()));
  }
  if (out.size() != count)
    where.fail(fmt::format("{} holds {} values but its shape needs {}", role, out.size(), count));
  return out;
}

tessera::dtype zero_point_type(int onnx_elem_type, const node_context& where, const std::string& role) {
  switch (onnx_elem_type) {
    case onnx::TensorProto::INT8: return tessera::dtype::s8;
    case onnx::TensorProto::UINT8: return tessera::dtype::u8;
    case onnx::TensorProto::INT32: return tessera::dtype::s32;
    default:
      where.fail(role + " has element type " +
                 onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(onnx_elem_type)) +
                 "; onnx2hpp supports int8, uint8 (and int32 for biases)");
  }
}

}  // namespace tessera::onnx2hpp
