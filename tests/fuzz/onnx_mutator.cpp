// Structure-aware mutator for the onnx2hpp fuzz target (issue 16, item 10): libFuzzer's
// LLVMFuzzerCustomMutator and LLVMFuzzerCustomCrossOver over onnx::ModelProto.
//
// A byte-level mutation of a model almost always breaks a nested length prefix (a node inside
// a graph inside a model: three varint lengths that must agree), so the protobuf parser refuses
// it and the converter's later stages see only the seeds. Here an input that parses is changed
// as a message: a dimension, an attribute value, an initializer's shape, type or data (resized
// to match, or deliberately not), a node's inputs, op type or domain, the opset, whole nodes
// removed or duplicated, nodes taken from a second model (cross-over). Serializing it again
// writes every length correctly. One mutation in eight, and every input that does not parse,
// still goes to libFuzzer's byte mutators, so the parser and the inconsistent-length checks
// keep their coverage.
//
// Built into onnx2hpp_struct_fuzzer (tests/fuzz/CMakeLists.txt) with the same
// LLVMFuzzerTestOneInput as onnx2hpp_fuzzer; run it with FUZZ_TARGET=onnx2hpp_struct.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

namespace {

using rng_t = std::minstd_rand;

std::size_t pick(rng_t& rng, std::size_t n) { return n == 0 ? 0 : std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); }
bool one_in(rng_t& rng, std::size_t n) { return pick(rng, n) == 0; }

template <class T, std::size_t N>
const T& pick_of(rng_t& rng, const T (&values)[N]) {
  return values[pick(rng, N)];
}

/// Extents, attribute and data values that sit on the converter's edges: 0, 1, the int8 and
/// int16 ranges, 2^31 and 2^32 around the 32-bit limits, and int64's ends.
std::int64_t interesting_int(rng_t& rng, std::int64_t current) {
  static constexpr std::int64_t values[] = {0,      1,           2,           3,           4,          7,
                                            8,      16,          -1,          -2,          127,        128,
                                            -128,   255,         256,         32767,       -32768,     65535,
                                            65536,  2147483647,  2147483648LL, -2147483648LL, 4294967296LL, std::numeric_limits<std::int64_t>::max(),
                                            std::numeric_limits<std::int64_t>::min()};
  // Wrapping arithmetic: the mutator is built with UBSan too.
  const auto u = static_cast<std::uint64_t>(current);
  switch (pick(rng, 4)) {
    case 0: return static_cast<std::int64_t>(u + 1);
    case 1: return static_cast<std::int64_t>(u - 1);
    case 2: return static_cast<std::int64_t>(u * 2);
    default: return pick_of(rng, values);
  }
}

float interesting_float(rng_t& rng, float current) {
  static constexpr float values[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 2.0f, 1e-30f, 1e-45f, 1e30f, 3.4e38f, 0.00390625f, 1.0f / 3};
  switch (pick(rng, 5)) {
    case 0: return current * 2;
    case 1: return current / 2;
    case 2: return -current;
    case 3: return one_in(rng, 2) ? std::numeric_limits<float>::infinity() : std::numeric_limits<float>::quiet_NaN();
    default: return pick_of(rng, values);
  }
}

const char* const op_types[] = {
    "Constant", "Conv", "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "Gemm", "MatMul", "Add", "Sub",
    "Mul", "Identity", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Pad", "Concat", "Slice", "Transpose", "Cast",
    "ConstantOfShape", "Resize", "QuantizeLinear", "DequantizeLinear", "QLinearConv", "QLinearMatMul", "ConvInteger",
    "MatMulInteger", "Relu", "Clip", "Sigmoid", "Tanh", "HardSigmoid", "HardSwish", "LeakyRelu", "ReduceMean", "Shape",
    "Gather", "iHardswish", "iGELU", "IntegerDiv", "TrueIntegerDiv", "IntegerMean", "ReduceSum", "iSoftmax", "ITAMax",
    "ITAPartialMax", "iRMSNorm", "iLayerNorm", "iNoNorm", "QLinearAdd", "QGemm", "QLinearConcat", "QLinearAveragePool",
    "QLinearGlobalAveragePool", "QLinearMul", "QLinearSigmoid", "QLinearLeakyRelu", "RequantShift", "Softmax"};
const char* const domains[] = {"", "ai.onnx", "com.microsoft", "PACTOps", "ai.onnx.contrib", "ai.onnx.ml"};
const char* const int_attributes[] = {"axis", "group", "ceil_mode", "count_include_pad", "channels_last", "transA",
                                      "transB", "div", "mul", "add", "n_levels", "n_levels_out", "signed", "allowzero",
                                      "keepdims", "exclude_outside", "antialias", "to", "value_int", "log2D"};
const char* const ints_attributes[] = {"axes", "perm", "pads", "strides", "dilations", "kernel_shape", "starts", "ends",
                                       "value_ints", "output_padding"};
const char* const float_attributes[] = {"alpha", "beta", "min", "max", "value_float", "cubic_coeff_a", "extrapolation_value"};
const char* const string_attributes[] = {"auto_pad", "mode", "coordinate_transformation_mode", "nearest_mode",
                                         "keep_aspect_ratio_policy"};
const char* const string_values[] = {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID", "constant", "reflect", "edge",
                                     "nearest", "linear", "cubic", "half_pixel", "pytorch_half_pixel", "align_corners",
                                     "asymmetric", "round_prefer_floor", "floor", "ceil", "", "stretch"};

/// Bytes per element of an ONNX element type (0: not stored in raw_data this way).
std::size_t element_bytes(int type) {
  using tp = onnx::TensorProto;
  switch (type) {
    case tp::INT8: case tp::UINT8: case tp::BOOL: return 1;
    case tp::INT16: case tp::UINT16: case tp::FLOAT16: case tp::BFLOAT16: return 2;
    case tp::INT32: case tp::UINT32: case tp::FLOAT: return 4;
    case tp::INT64: case tp::UINT64: case tp::DOUBLE: return 8;
    default: return 0;
  }
}

const int element_types[] = {onnx::TensorProto::INT8,  onnx::TensorProto::UINT8,   onnx::TensorProto::INT16,
                             onnx::TensorProto::UINT16, onnx::TensorProto::INT32,   onnx::TensorProto::UINT32,
                             onnx::TensorProto::INT64,  onnx::TensorProto::FLOAT,   onnx::TensorProto::FLOAT16,
                             onnx::TensorProto::DOUBLE, onnx::TensorProto::BOOL,    onnx::TensorProto::STRING,
                             onnx::TensorProto::UNDEFINED};

/// Every tensor name the graph defines (inputs, initializers, node outputs).
std::vector<std::string> tensor_names(const onnx::GraphProto& g) {
  std::vector<std::string> names;
  for (const auto& v : g.input()) names.push_back(v.name());
  for (const auto& t : g.initializer()) names.push_back(t.name());
  for (const auto& n : g.node())
    for (const auto& o : n.output()) names.push_back(o);
  return names;
}

/// Every TensorProto in the graph: initializers and the tensor attributes (Constant's value).
std::vector<onnx::TensorProto*> tensors(onnx::GraphProto& g) {
  std::vector<onnx::TensorProto*> found;
  for (auto& t : *g.mutable_initializer()) found.push_back(&t);
  for (auto& n : *g.mutable_node())
    for (auto& a : *n.mutable_attribute())
      if (a.has_t()) found.push_back(a.mutable_t());
  return found;
}

/// Every shape the graph declares (graph inputs, outputs, value_info).
std::vector<onnx::TensorShapeProto*> shapes(onnx::GraphProto& g) {
  std::vector<onnx::TensorShapeProto*> found;
  const auto add = [&](auto& values) {
    for (auto& v : values)
      if (v.type().has_tensor_type()) found.push_back(v.mutable_type()->mutable_tensor_type()->mutable_shape());
  };
  add(*g.mutable_input());
  add(*g.mutable_output());
  add(*g.mutable_value_info());
  return found;
}

std::int64_t element_count(const onnx::TensorProto& t) {
  std::int64_t n = 1;
  for (std::int64_t d : t.dims()) {
    if (d < 0 || d > (std::int64_t{1} << 16)) return -1;
    n *= d;
    if (n > (std::int64_t{1} << 16)) return -1;  // beyond -max_len anyway
  }
  return n;
}

/// Moves a tensor's values into raw_data (typed fields cleared), so that its size can be set.
void to_raw(onnx::TensorProto& t) {
  std::string raw = t.raw_data();
  const auto append = [&](const void* p, std::size_t n) { raw.append(static_cast<const char*>(p), n); };
  const std::size_t eb = element_bytes(t.data_type());
  for (std::int32_t v : t.int32_data()) append(&v, std::min<std::size_t>(eb ? eb : 4, 4));
  for (std::int64_t v : t.int64_data()) append(&v, 8);
  for (float v : t.float_data()) append(&v, 4);
  for (double v : t.double_data()) append(&v, 8);
  t.clear_int32_data();
  t.clear_int64_data();
  t.clear_float_data();
  t.clear_double_data();
  t.set_raw_data(raw);
}

/// Resizes raw_data to the tensor's element count (the consistent case), repeating its bytes.
void fit_raw_data(onnx::TensorProto& t, rng_t& rng) {
  const std::int64_t count = element_count(t);
  const std::size_t eb = element_bytes(t.data_type());
  if (count < 0 || eb == 0) return;
  to_raw(t);
  std::string raw = t.raw_data();
  const std::size_t want = static_cast<std::size_t>(count) * eb;
  if (raw.empty()) raw.push_back(static_cast<char>(pick(rng, 256)));
  std::string out;
  out.reserve(want);
  while (out.size() < want) out.push_back(raw[out.size() % raw.size()]);
  t.set_raw_data(out);
}

void mutate_tensor(onnx::TensorProto& t, rng_t& rng) {
  switch (pick(rng, 8)) {
    case 0: {  // one extent, data resized to match
      if (t.dims_size() == 0) {
        t.add_dims(1);
      } else {
        auto& d = *t.mutable_dims()->Mutable(static_cast<int>(pick(rng, static_cast<std::size_t>(t.dims_size()))));
        d = interesting_int(rng, d);
      }
      fit_raw_data(t, rng);
      break;
    }
    case 1: {  // rank changed, data resized
      if (t.dims_size() > 0 && one_in(rng, 2)) {
        t.mutable_dims()->RemoveLast();
      } else {
        t.add_dims(static_cast<std::int64_t>(1 + pick(rng, 4)));
      }
      fit_raw_data(t, rng);
      break;
    }
    case 2: {  // another element type, data resized
      t.set_data_type(pick_of(rng, element_types));
      fit_raw_data(t, rng);
      break;
    }
    case 3: {  // data bytes mutated in place (same length)
      to_raw(t);
      std::string raw = t.raw_data();
      if (raw.empty()) break;
      std::vector<std::uint8_t> bytes(raw.begin(), raw.end());
      const std::size_t n = LLVMFuzzerMutate(bytes.data(), bytes.size(), bytes.size());
      t.set_raw_data(std::string(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n)));
      fit_raw_data(t, rng);
      break;
    }
    case 4: {  // every element the same edge value
      const std::int64_t count = element_count(t);
      if (count <= 0) break;
      const std::size_t eb = element_bytes(t.data_type());
      if (eb == 0) break;
      std::string raw;
      if (t.data_type() == onnx::TensorProto::FLOAT) {
        const float f = interesting_float(rng, 1.0f);
        for (std::int64_t i = 0; i < count; ++i) raw.append(reinterpret_cast<const char*>(&f), 4);
      } else {
        const std::int64_t v = interesting_int(rng, 0);
        for (std::int64_t i = 0; i < count; ++i) raw.append(reinterpret_cast<const char*>(&v), eb);
      }
      t.clear_int32_data();
      t.clear_int64_data();
      t.clear_float_data();
      t.clear_double_data();
      t.set_raw_data(raw);
      break;
    }
    case 5: {  // raw_data moved into the typed field ONNX also allows (int32_data for 8/16-bit)
      to_raw(t);
      const std::string raw = t.raw_data();
      const std::size_t eb = element_bytes(t.data_type());
      if (eb == 0 || raw.size() % eb != 0) break;
      t.clear_raw_data();
      for (std::size_t i = 0; i < raw.size(); i += eb) {
        std::int64_t v = 0;
        std::memcpy(&v, raw.data() + i, eb);
        if (eb == 1) v = static_cast<std::int8_t>(v);
        if (eb == 2) v = static_cast<std::int16_t>(v);
        if (t.data_type() == onnx::TensorProto::FLOAT) {
          float f = 0;
          std::memcpy(&f, raw.data() + i, 4);
          t.add_float_data(f);
        } else if (eb == 8) {
          t.add_int64_data(v);
        } else {
          t.add_int32_data(static_cast<std::int32_t>(v));
        }
      }
      break;
    }
    case 6: {  // inconsistent on purpose: a byte more or less than the shape needs
      to_raw(t);
      std::string raw = t.raw_data();
      if (!raw.empty() && one_in(rng, 2)) raw.pop_back(); else raw.push_back('\x7f');
      t.set_raw_data(raw);
      break;
    }
    default: {  // a dimension that does not match the data
      if (t.dims_size() == 0) t.add_dims(0);
      auto& d = *t.mutable_dims()->Mutable(static_cast<int>(pick(rng, static_cast<std::size_t>(t.dims_size()))));
      d = interesting_int(rng, d);
      break;
    }
  }
}

void mutate_attribute(onnx::AttributeProto& a, rng_t& rng) {
  using ap = onnx::AttributeProto;
  switch (a.type()) {
    case ap::INT: a.set_i(interesting_int(rng, a.i())); break;
    case ap::FLOAT: a.set_f(interesting_float(rng, a.f())); break;
    case ap::STRING: a.set_s(pick_of(rng, string_values)); break;
    case ap::TENSOR: mutate_tensor(*a.mutable_t(), rng); break;
    case ap::INTS: {
      const std::size_t what = pick(rng, 4);
      if (a.ints_size() == 0 || what == 0) {
        a.add_ints(interesting_int(rng, 1));
      } else if (what == 1) {
        a.mutable_ints()->RemoveLast();
      } else if (what == 2) {
        std::swap(*a.mutable_ints()->Mutable(0), *a.mutable_ints()->Mutable(a.ints_size() - 1));
      } else {
        auto& v = *a.mutable_ints()->Mutable(static_cast<int>(pick(rng, static_cast<std::size_t>(a.ints_size()))));
        v = interesting_int(rng, v);
      }
      break;
    }
    case ap::FLOATS: {
      if (a.floats_size() == 0 || one_in(rng, 3)) {
        a.add_floats(interesting_float(rng, 1.0f));
      } else {
        auto& v = *a.mutable_floats()->Mutable(static_cast<int>(pick(rng, static_cast<std::size_t>(a.floats_size()))));
        v = interesting_float(rng, v);
      }
      break;
    }
    default: a.set_type(ap::INT); a.set_i(interesting_int(rng, 0)); break;
  }
  if (one_in(rng, 16)) {  // a value of the wrong type under a known name
    const ap::AttributeType types[] = {ap::INT, ap::INTS, ap::FLOAT, ap::STRING, ap::TENSOR, ap::FLOATS};
    a.set_type(pick_of(rng, types));
  }
}

void add_attribute(onnx::NodeProto& n, rng_t& rng) {
  using ap = onnx::AttributeProto;
  onnx::AttributeProto* a = n.add_attribute();
  switch (pick(rng, 4)) {
    case 0: a->set_name(pick_of(rng, int_attributes)); a->set_type(ap::INT); a->set_i(interesting_int(rng, 1)); break;
    case 1: {
      a->set_name(pick_of(rng, ints_attributes));
      a->set_type(ap::INTS);
      const std::size_t count = pick(rng, 9);
      for (std::size_t i = 0; i < count; ++i) a->add_ints(one_in(rng, 2) ? 1 : interesting_int(rng, 1));
      break;
    }
    case 2: a->set_name(pick_of(rng, float_attributes)); a->set_type(ap::FLOAT); a->set_f(interesting_float(rng, 1.0f)); break;
    default: a->set_name(pick_of(rng, string_attributes)); a->set_type(ap::STRING); a->set_s(pick_of(rng, string_values)); break;
  }
}

/// One structural change; false when the model offers nothing for the chosen kind.
bool mutate_once(onnx::ModelProto& m, rng_t& rng) {
  onnx::GraphProto& g = *m.mutable_graph();
  switch (pick(rng, 14)) {
    case 0: {  // a declared extent (graph input, output or value_info)
      auto all = shapes(g);
      if (all.empty()) return false;
      onnx::TensorShapeProto& s = *all[pick(rng, all.size())];
      if (s.dim_size() == 0 || one_in(rng, 8)) {
        s.add_dim()->set_dim_value(interesting_int(rng, 1));
      } else if (one_in(rng, 8)) {
        s.mutable_dim()->RemoveLast();
      } else {
        auto& d = *s.mutable_dim(static_cast<int>(pick(rng, static_cast<std::size_t>(s.dim_size()))));
        if (one_in(rng, 6)) d.set_dim_param("N"); else d.set_dim_value(interesting_int(rng, d.dim_value()));
      }
      return true;
    }
    case 1: case 2: {  // an attribute's value
      if (g.node_size() == 0) return false;
      onnx::NodeProto& n = *g.mutable_node(static_cast<int>(pick(rng, static_cast<std::size_t>(g.node_size()))));
      if (n.attribute_size() == 0) return false;
      mutate_attribute(*n.mutable_attribute(static_cast<int>(pick(rng, static_cast<std::size_t>(n.attribute_size())))), rng);
      return true;
    }
    case 3: {  // an attribute added or removed
      if (g.node_size() == 0) return false;
      onnx::NodeProto& n = *g.mutable_node(static_cast<int>(pick(rng, static_cast<std::size_t>(g.node_size()))));
      if (n.attribute_size() > 0 && one_in(rng, 2)) {
        n.mutable_attribute()->DeleteSubrange(static_cast<int>(pick(rng, static_cast<std::size_t>(n.attribute_size()))), 1);
      } else {
        add_attribute(n, rng);
      }
      return true;
    }
    case 4: case 5: {  // an initializer or Constant: shape, type, data
      auto all = tensors(g);
      if (all.empty()) return false;
      mutate_tensor(*all[pick(rng, all.size())], rng);
      return true;
    }
    case 6: {  // a node's input rewired to another tensor (or omitted, or one more)
      if (g.node_size() == 0) return false;
      onnx::NodeProto& n = *g.mutable_node(static_cast<int>(pick(rng, static_cast<std::size_t>(g.node_size()))));
      const auto names = tensor_names(g);
      const std::string name = names.empty() || one_in(rng, 10) ? std::string() : names[pick(rng, names.size())];
      const std::size_t what = pick(rng, 6);
      if (n.input_size() == 0 || what == 0) {
        n.add_input(name);
      } else if (what == 1) {
        n.mutable_input()->RemoveLast();
      } else {
        n.set_input(static_cast<int>(pick(rng, static_cast<std::size_t>(n.input_size()))), name);
      }
      return true;
    }
    case 7: {  // op type (and sometimes domain)
      if (g.node_size() == 0) return false;
      onnx::NodeProto& n = *g.mutable_node(static_cast<int>(pick(rng, static_cast<std::size_t>(g.node_size()))));
      if (one_in(rng, 4)) n.set_domain(pick_of(rng, domains)); else n.set_op_type(pick_of(rng, op_types));
      return true;
    }
    case 8: {  // a node removed (its consumers now read an undefined tensor) or bypassed
      if (g.node_size() == 0) return false;
      const int i = static_cast<int>(pick(rng, static_cast<std::size_t>(g.node_size())));
      if (one_in(rng, 2) && g.node(i).input_size() > 0 && g.node(i).output_size() > 0) {
        // Bypass: consumers of its first output read its first input instead.
        const std::string from = g.node(i).output(0), to = g.node(i).input(0);
        for (auto& n : *g.mutable_node())
          for (auto& in : *n.mutable_input())
            if (in == from) in = to;
        for (auto& out : *g.mutable_output())
          if (out.name() == from) out.set_name(to);
      }
      g.mutable_node()->DeleteSubrange(i, 1);
      return true;
    }
    case 9: {  // a node duplicated behind itself, reading the original's output where it can
      if (g.node_size() == 0) return false;
      const int i = static_cast<int>(pick(rng, static_cast<std::size_t>(g.node_size())));
      onnx::NodeProto copy = g.node(i);
      if (copy.output_size() > 0 && copy.input_size() > 0) copy.set_input(0, copy.output(0));
      for (auto& out : *copy.mutable_output()) out += "_dup";
      copy.set_name(copy.name() + "_dup");
      *g.add_node() = copy;
      if (g.output_size() > 0 && copy.output_size() > 0 && one_in(rng, 2)) g.mutable_output(0)->set_name(copy.output(0));
      return true;
    }
    case 10: {  // two nodes swapped (order matters before the topological sort)
      if (g.node_size() < 2) return false;
      g.mutable_node()->SwapElements(static_cast<int>(pick(rng, static_cast<std::size_t>(g.node_size()))),
                                     static_cast<int>(pick(rng, static_cast<std::size_t>(g.node_size()))));
      return true;
    }
    case 11: {  // a graph input's or output's element type
      const std::size_t total = static_cast<std::size_t>(g.input_size() + g.output_size());
      if (total == 0) return false;
      const std::size_t k = pick(rng, total);
      onnx::ValueInfoProto& v = k < static_cast<std::size_t>(g.input_size())
                                    ? *g.mutable_input(static_cast<int>(k))
                                    : *g.mutable_output(static_cast<int>(k - static_cast<std::size_t>(g.input_size())));
      v.mutable_type()->mutable_tensor_type()->set_elem_type(pick_of(rng, element_types));
      return true;
    }
    case 12: {  // a graph output renamed to another tensor, or one added/removed
      const auto names = tensor_names(g);
      if (names.empty()) return false;
      if (g.output_size() == 0 || one_in(rng, 4)) {
        g.add_output()->set_name(names[pick(rng, names.size())]);
      } else if (g.output_size() > 1 && one_in(rng, 3)) {
        g.mutable_output()->RemoveLast();
      } else {
        g.mutable_output(static_cast<int>(pick(rng, static_cast<std::size_t>(g.output_size()))))
            ->set_name(names[pick(rng, names.size())]);
      }
      return true;
    }
    default: {  // the opset: another version or domain
      if (m.opset_import_size() == 0 || one_in(rng, 8)) {
        auto* o = m.add_opset_import();
        o->set_domain(pick_of(rng, domains));
        o->set_version(static_cast<std::int64_t>(1 + pick(rng, 24)));
      } else {
        auto* o = m.mutable_opset_import(static_cast<int>(pick(rng, static_cast<std::size_t>(m.opset_import_size()))));
        o->set_version(static_cast<std::int64_t>(1 + pick(rng, 24)));
      }
      return true;
    }
  }
}

std::size_t write_back(const onnx::ModelProto& m, std::uint8_t* data, std::size_t max_size) {
  std::string out;
  if (!m.SerializeToString(&out) || out.size() > max_size) return 0;
  std::memcpy(data, out.data(), out.size());
  return out.size();
}

}  // namespace

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
  rng_t rng(seed);
  onnx::ModelProto m;
  if (one_in(rng, 8) || !m.ParseFromArray(data, static_cast<int>(size)) || !m.has_graph())
    return LLVMFuzzerMutate(data, size, max_size);
  const std::size_t rounds = 1 + pick(rng, 3);
  bool changed = false;
  for (std::size_t r = 0; r < rounds; ++r) changed = mutate_once(m, rng) || changed;
  const std::size_t n = changed ? write_back(m, data, max_size) : 0;
  return n != 0 ? n : LLVMFuzzerMutate(data, size, max_size);
}

/// Nodes and initializers of the second model appended to the first: the graphs connect where
/// tensor names agree (most exporters name them alike), and the converter sees op mixes no
/// single seed has.
extern "C" std::size_t LLVMFuzzerCustomCrossOver(const std::uint8_t* data1, std::size_t size1, const std::uint8_t* data2,
                                                 std::size_t size2, std::uint8_t* out, std::size_t max_out_size,
                                                 unsigned int seed) {
  rng_t rng(seed);
  onnx::ModelProto a, b;
  if (!a.ParseFromArray(data1, static_cast<int>(size1)) || !b.ParseFromArray(data2, static_cast<int>(size2)) ||
      !a.has_graph() || !b.has_graph() || b.graph().node_size() == 0)
    return 0;
  onnx::GraphProto& g = *a.mutable_graph();
  const auto names = tensor_names(g);
  const int first = static_cast<int>(pick(rng, static_cast<std::size_t>(b.graph().node_size())));
  const int count = std::min(b.graph().node_size() - first, static_cast<int>(1 + pick(rng, 4)));
  for (int i = first; i < first + count; ++i) {
    onnx::NodeProto n = b.graph().node(i);
    // Its first input fed from a tensor of this graph, so that the node is reached.
    if (n.input_size() > 0 && !names.empty()) n.set_input(0, names[pick(rng, names.size())]);
    for (const auto& in : n.input())
      for (const auto& t : b.graph().initializer())
        if (t.name() == in && std::none_of(g.initializer().begin(), g.initializer().end(),
                                           [&](const onnx::TensorProto& x) { return x.name() == in; }))
          *g.add_initializer() = t;
    *g.add_node() = n;
  }
  if (g.output_size() > 0 && g.node(g.node_size() - 1).output_size() > 0 && one_in(rng, 2))
    g.mutable_output(0)->set_name(g.node(g.node_size() - 1).output(0));
  return write_back(a, out, max_out_size);
}
