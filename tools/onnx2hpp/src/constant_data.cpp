#include "constant_data.hpp"

#include <cstdint>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "diagnostics.hpp"

namespace tessera::onnx2hpp {
namespace {

using tp = onnx::TensorProto;

/// Where a tensor sits, for messages: "initializer 'w'" or "node 'c' (Constant): attribute 'value'".
struct tensor_place {
  const onnx::NodeProto* node = nullptr;  ///< null for an initializer
  std::string what;                       ///< "initializer 'w'" / "attribute 'value'"

  [[noreturn]] void fail(const std::string& reason) const {
    if (node != nullptr) throw conversion_error(node->name(), node->op_type(), what + ": " + reason);
    throw conversion_error(what + ": " + reason);
  }
};

/// Bytes per element, 0 for a type without a fixed size (STRING, UNDEFINED, unknown).
std::size_t element_bytes(int type) {
  switch (type) {
    case tp::INT8:
    case tp::UINT8:
    case tp::BOOL: return 1;
    case tp::INT16:
    case tp::UINT16:
    case tp::FLOAT16:
    case tp::BFLOAT16: return 2;
    case tp::INT32:
    case tp::UINT32:
    case tp::FLOAT: return 4;
    case tp::INT64:
    case tp::UINT64:
    case tp::DOUBLE:
    case tp::COMPLEX64: return 8;
    case tp::COMPLEX128: return 16;
    default: return 0;
  }
}

std::string type_name(int type) {
  return tp::DataType_IsValid(type) ? tp::DataType_Name(static_cast<tp::DataType>(type)) : std::to_string(type);
}

/// The typed field ONNX keeps a type's values in (onnx.proto, TensorProto), and how many
/// entries one element takes there.
struct typed_field {
  const char* name;
  int size;
  int per_element;
};

typed_field field_of(const tp& t) {
  switch (t.data_type()) {
    case tp::FLOAT: return {"float_data", t.float_data_size(), 1};
    case tp::COMPLEX64: return {"float_data", t.float_data_size(), 2};
    case tp::DOUBLE: return {"double_data", t.double_data_size(), 1};
    case tp::COMPLEX128: return {"double_data", t.double_data_size(), 2};
    case tp::INT64: return {"int64_data", t.int64_data_size(), 1};
    case tp::UINT32:
    case tp::UINT64: return {"uint64_data", t.uint64_data_size(), 1};
    default: return {"int32_data", t.int32_data_size(), 1};  // INT8..UINT16, INT32, BOOL, FLOAT16, BFLOAT16
  }
}

/// The range a value of `type` held in int32_data / uint64_data must lie in.
bool narrow_range(int type, std::int64_t& lo, std::int64_t& hi) {
  switch (type) {
    case tp::INT8: lo = -128, hi = 127; return true;
    case tp::UINT8: lo = 0, hi = 255; return true;
    case tp::BOOL: lo = 0, hi = 1; return true;
    case tp::INT16: lo = -32768, hi = 32767; return true;
    case tp::UINT16:
    case tp::FLOAT16:  // bit patterns
    case tp::BFLOAT16: lo = 0, hi = 65535; return true;
    default: return false;
  }
}

void check_tensor(const tp& t, const tensor_place& place) {
  if (t.data_location() == tp::EXTERNAL || t.external_data_size() > 0)
    place.fail("external data was not loaded");  // load_external_data runs first
  const int type = t.data_type();
  const std::size_t bytes = element_bytes(type);
  if (bytes == 0)
    place.fail(fmt::format("element type {} is not supported (onnx2hpp reads numeric tensors)", type_name(type)));

  std::uint64_t count = 1;
  for (int i = 0; i < t.dims_size(); ++i) {
    const std::int64_t d = t.dims(i);
    if (d < 0) place.fail(fmt::format("dimension {} is {}", i, d));
    if (__builtin_mul_overflow(count, static_cast<std::uint64_t>(d), &count) ||
        count > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      place.fail("its dimensions have more elements than int64 counts");
  }
  std::uint64_t expected_bytes = 0;
  if (__builtin_mul_overflow(count, static_cast<std::uint64_t>(bytes), &expected_bytes))
    place.fail(fmt::format("{} elements of {} overflow a byte count", count, type_name(type)));

  // Every typed field but the one this type uses must be empty.
  const typed_field field = field_of(t);
  const typed_field all[] = {{"float_data", t.float_data_size(), 1}, {"double_data", t.double_data_size(), 1},
                             {"int32_data", t.int32_data_size(), 1}, {"int64_data", t.int64_data_size(), 1},
                             {"uint64_data", t.uint64_data_size(), 1}, {"string_data", t.string_data_size(), 1}};
  for (const typed_field& f : all) {
    if (f.size == 0) continue;
    if (t.has_raw_data())
      place.fail(fmt::format("holds both raw_data and {} (ONNX allows one)", f.name));
    if (std::string(f.name) != field.name)
      place.fail(fmt::format("element type {} keeps its values in {}, but the tensor holds {} values in {}",
                             type_name(type), field.name, f.size, f.name));
  }

  if (t.has_raw_data()) {
    const std::uint64_t got = t.raw_data().size();
    if (got != expected_bytes)
      place.fail(fmt::format("raw_data holds {} bytes, but {} elements of {} need {} ({} bytes each)", got, count,
                             type_name(type), expected_bytes, bytes));
    return;
  }
  const std::uint64_t expected_values = count * static_cast<std::uint64_t>(field.per_element);
  if (static_cast<std::uint64_t>(field.size) != expected_values)
    place.fail(fmt::format("{} holds {} values, but its shape needs {} elements of {}", field.name, field.size, count,
                           type_name(type)));

  std::int64_t lo = 0, hi = 0;
  if (narrow_range(type, lo, hi)) {
    for (int i = 0; i < t.int32_data_size(); ++i)
      if (t.int32_data(i) < lo || t.int32_data(i) > hi)
        place.fail(fmt::format("element {} = {} in int32_data does not fit {} [{}, {}] (ONNX would read only its "
                               "low bits)",
                               i, t.int32_data(i), type_name(type), lo, hi));
  }
  if (type == tp::UINT32) {
    for (int i = 0; i < t.uint64_data_size(); ++i)
      if (t.uint64_data(i) > std::numeric_limits<std::uint32_t>::max())
        place.fail(fmt::format("element {} = {} in uint64_data does not fit UINT32", i, t.uint64_data(i)));
  }
}

void check_graph(const onnx::GraphProto& g);

void check_attributes(const onnx::NodeProto& node) {
  for (const auto& a : node.attribute()) {
    const tensor_place place{&node, "attribute '" + a.name() + "'"};
    if (a.has_sparse_tensor() || a.sparse_tensors_size() > 0)
      place.fail("sparse tensors are not supported (store the constant dense)");
    if (a.has_t()) check_tensor(a.t(), place);
    for (int i = 0; i < a.tensors_size(); ++i)
      check_tensor(a.tensors(i), tensor_place{&node, fmt::format("attribute '{}' tensor {}", a.name(), i)});
    if (a.has_g()) check_graph(a.g());
    for (const auto& sub : a.graphs()) check_graph(sub);
  }
  if (node.op_type() == "Constant" && (node.domain().empty() || node.domain() == "ai.onnx")) {
    for (const auto& a : node.attribute()) {
      if (a.name() == "value" && (a.type() != onnx::AttributeProto::TENSOR || !a.has_t()))
        throw conversion_error(node.name(), node.op_type(), "attribute 'value' must be a tensor");
    }
  }
}

void check_graph(const onnx::GraphProto& g) {
  if (g.sparse_initializer_size() > 0)
    fail("sparse initializer '" + g.sparse_initializer(0).values().name() +
         "' is not supported (store the constant dense)");
  for (const auto& init : g.initializer()) check_tensor(init, tensor_place{nullptr, "initializer '" + init.name() + "'"});
  for (const auto& node : g.node()) check_attributes(node);
}

}  // namespace

void check_constant_data(const onnx::ModelProto& model) { check_graph(model.graph()); }

}  // namespace tessera::onnx2hpp
