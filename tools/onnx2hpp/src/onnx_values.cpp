#include "onnx_values.hpp"

#include <fmt/format.h>
#include <cmath>
#include <cstring>
#include <type_traits>

namespace tessera::onnx2hpp {

const onnx::AttributeProto* find_attribute(const onnx::NodeProto& node, const std::string& name) {
  for (const auto& a : node.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

std::int64_t integer_attribute(const onnx::NodeProto& n, const node_context& where, const std::string& name) {
  const double v = number_attribute(n, where, name);
  if (std::trunc(v) != v || std::fabs(v) > 9.0e15)
    where.fail(fmt::format("attribute '{}' = {} is not an integer", name, v));
  return static_cast<std::int64_t>(v);
}

int power_of_two_attribute(const onnx::NodeProto& n, const node_context& where, const std::string& name) {
  const std::int64_t v = integer_attribute(n, where, name);
  int k = 0;
  while (k < 63 && (std::int64_t{1} << k) < v) ++k;
  if (v < 1 || k > 62 || (std::int64_t{1} << k) != v)
    where.fail(fmt::format("{} = {} is not a power of two in [1, 2^62]", name, v));
  return k;
}

bool has_attribute(const onnx::NodeProto& node, const std::string& name) {
  return find_attribute(node, name) != nullptr;
}

std::int64_t int_attribute(const onnx::NodeProto& node, const std::string& name, std::int64_t fallback) {
  const auto* a = find_attribute(node, name);
  if (a == nullptr) return fallback;
  if (a->type() != onnx::AttributeProto::INT)
    throw conversion_error(node.name(), node.op_type(), "attribute '" + name + "' must be an integer");
  return a->i();
}

std::vector<std::int64_t> ints_attribute(const onnx::NodeProto& node, const std::string& name,
                                         std::vector<std::int64_t> fallback) {
  const auto* a = find_attribute(node, name);
  if (a == nullptr) return fallback;
  if (a->type() != onnx::AttributeProto::INTS)
    throw conversion_error(node.name(), node.op_type(), "attribute '" + name + "' must be a list of integers");
  return {a->ints().begin(), a->ints().end()};
}

std::string string_attribute(const onnx::NodeProto& node, const std::string& name, std::string fallback) {
  const auto* a = find_attribute(node, name);
  if (a == nullptr) return fallback;
  if (a->type() != onnx::AttributeProto::STRING)
    throw conversion_error(node.name(), node.op_type(), "attribute '" + name + "' must be a string");
  return a->s();
}

float float_attribute(const onnx::NodeProto& node, const std::string& name, float fallback) {
  const auto* a = find_attribute(node, name);
  if (a == nullptr) return fallback;
  if (a->type() == onnx::AttributeProto::FLOAT) return a->f();
  if (a->type() == onnx::AttributeProto::INT) return static_cast<float>(a->i());
  throw conversion_error(node.name(), node.op_type(), "attribute '" + name + "' must be a number");
}

double number_attribute(const onnx::NodeProto& node, const node_context& where, const std::string& name) {
  const auto* a = find_attribute(node, name);
  if (a == nullptr) where.fail("missing attribute '" + name + "'");
  switch (a->type()) {
    case onnx::AttributeProto::INT: return static_cast<double>(a->i());
    case onnx::AttributeProto::FLOAT: return a->f();
    case onnx::AttributeProto::INTS:
      if (a->ints_size() == 1) return static_cast<double>(a->ints(0));
      break;
    case onnx::AttributeProto::FLOATS:
      if (a->floats_size() == 1) return a->floats(0);
      break;
    case onnx::AttributeProto::TENSOR: {  // QuantLib also writes one-element tensors
      const int_array value = integer_tensor(a->t(), where, "attribute '" + name + "'");
      if (value.values.size() == 1) return static_cast<double>(value.values[0]);
      break;
    }
    default: break;
  }
  where.fail("attribute '" + name + "' must be a single number");
}

namespace {

/// A constant's elements, as read from the file: doubles for float tensors, else int64.
struct decoded {
  std::vector<double> floats;
  std::vector<std::int64_t> ints;
  bool is_float = false;
};

/// Decodes `raw_data` holding `count` little-endian elements of type T (the host is
/// little-endian, as ONNX's raw_data is).
template <class T>
void decode_raw(const std::string& raw, std::size_t count, decoded& out, const node_context& where,
                const std::string& role) {
  if (raw.size() != count * sizeof(T))
    where.fail(fmt::format("{} holds {} bytes of data for {} elements", role, raw.size(), count));
  for (std::size_t i = 0; i < count; ++i) {
    T v;
    std::memcpy(&v, raw.data() + i * sizeof(T), sizeof(T));
    if constexpr (std::is_floating_point_v<T>)
      out.floats.push_back(static_cast<double>(v));
    else
      out.ints.push_back(static_cast<std::int64_t>(v));
  }
}

decoded decode(const onnx::TensorProto& t, std::size_t count, const node_context& where, const std::string& role) {
  using tp = onnx::TensorProto;
  if (t.data_location() == tp::EXTERNAL) where.fail(role + " uses external data, which is not supported");
  decoded out;
  out.is_float = t.data_type() == tp::FLOAT || t.data_type() == tp::DOUBLE;
  if (t.has_raw_data()) {
    const std::string& raw = t.raw_data();
    switch (t.data_type()) {
      case tp::FLOAT: decode_raw<float>(raw, count, out, where, role); break;
      case tp::DOUBLE: decode_raw<double>(raw, count, out, where, role); break;
      case tp::INT8: decode_raw<std::int8_t>(raw, count, out, where, role); break;
      case tp::UINT8:
      case tp::BOOL: decode_raw<std::uint8_t>(raw, count, out, where, role); break;
      case tp::INT16: decode_raw<std::int16_t>(raw, count, out, where, role); break;
      case tp::UINT16: decode_raw<std::uint16_t>(raw, count, out, where, role); break;
      case tp::INT32: decode_raw<std::int32_t>(raw, count, out, where, role); break;
      case tp::UINT32: decode_raw<std::uint32_t>(raw, count, out, where, role); break;
      case tp::INT64: decode_raw<std::int64_t>(raw, count, out, where, role); break;
      default: where.fail(role + " has an unsupported element type (" + tp::DataType_Name(t.data_type()) + ")");
    }
  } else {
    // Typed fields: the small integer types all share int32_data.
    switch (t.data_type()) {
      case tp::FLOAT: out.floats.assign(t.float_data().begin(), t.float_data().end()); break;
      case tp::DOUBLE: out.floats.assign(t.double_data().begin(), t.double_data().end()); break;
      case tp::INT8:
      case tp::UINT8:
      case tp::BOOL:
      case tp::INT16:
      case tp::UINT16:
      case tp::INT32: out.ints.assign(t.int32_data().begin(), t.int32_data().end()); break;
      case tp::UINT32:
        for (auto v : t.uint64_data()) out.ints.push_back(static_cast<std::int64_t>(v));
        break;
      case tp::INT64: out.ints.assign(t.int64_data().begin(), t.int64_data().end()); break;
      default: where.fail(role + " has an unsupported element type (" + tp::DataType_Name(t.data_type()) + ")");
    }
  }
  const std::size_t got = out.is_float ? out.floats.size() : out.ints.size();
  if (got != count) where.fail(fmt::format("{} holds {} values but its shape needs {}", role, got, count));
  return out;
}

}  // namespace

int_array integer_tensor(const onnx::TensorProto& t, const node_context& where, const std::string& role) {
  int_array a;
  std::size_t count = 1;
  for (auto d : t.dims()) {
    if (d < 0) where.fail(role + " has a negative dimension");
    a.shape.push_back(d);
    if (__builtin_mul_overflow(count, static_cast<std::size_t>(d), &count))
      where.fail(role + " has too many elements");
  }
  const decoded values = decode(t, count, where, role);
  if (!values.is_float) {
    a.values = values.ints;
    return a;
  }
  a.values.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const double v = values.floats[i];
    // |v| < 2^62 keeps later products and sums of constants well inside int64.
    if (!std::isfinite(v) || std::trunc(v) != v || std::fabs(v) >= 4.611686018427388e18)
      where.fail(
          fmt::format("{}: element {} = {} is not an integer (onnx2hpp converts integerized models only)", role, i, v));
    a.values.push_back(static_cast<std::int64_t>(v));
  }
  return a;
}

void require_range(const int_array& a, std::int64_t lo, std::int64_t hi, const node_context& where,
                   const std::string& role, const std::string& range_name) {
  for (std::size_t i = 0; i < a.values.size(); ++i) {
    if (a.values[i] < lo || a.values[i] > hi)
      where.fail(fmt::format("{}: element {} = {} does not fit {}", role, i, a.values[i], range_name));
  }
}

std::string c_type_name(tessera::dtype type) {
  switch (type) {
    case tessera::dtype::s8: return "int8";
    case tessera::dtype::u8: return "uint8";
    case tessera::dtype::s16: return "int16";
    case tessera::dtype::u16: return "uint16";
    case tessera::dtype::s32: return "int32";
  }
  return "?";
}

void require_fits(const int_array& a, tessera::dtype type, const node_context& where, const std::string& role) {
  require_range(a, tessera::min_of(type), tessera::max_of(type), where, role, c_type_name(type));
}

onnx::TensorProto constant_node_tensor(const onnx::NodeProto& node) {
  const node_context where{node.name(), node.op_type()};
  for (const auto& a : node.attribute()) {
    onnx::TensorProto t;
    if (a.name() == "value") return a.t();
    if (a.name() == "value_float") {
      t.set_data_type(onnx::TensorProto::FLOAT);
      t.add_float_data(a.f());
      return t;
    }
    if (a.name() == "value_floats") {
      t.set_data_type(onnx::TensorProto::FLOAT);
      t.add_dims(a.floats_size());
      for (float f : a.floats()) t.add_float_data(f);
      return t;
    }
    if (a.name() == "value_int") {
      t.set_data_type(onnx::TensorProto::INT64);
      t.add_int64_data(a.i());
      return t;
    }
    if (a.name() == "value_ints") {
      t.set_data_type(onnx::TensorProto::INT64);
      t.add_dims(a.ints_size());
      for (auto v : a.ints()) t.add_int64_data(v);
      return t;
    }
  }
  where.fail("Constant without a supported value attribute (value, value_int(s), value_float(s))");
}

}  // namespace tessera::onnx2hpp
