#include "converter.hpp"

#include <algorithm>
#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "constant_data.hpp"
#include "diagnostics.hpp"
#include "emitter.hpp"
#include "fusion.hpp"
#include "legacy_attributes.hpp"
#include "lowering.hpp"
#include "model_checker.hpp"
#include "model_loader.hpp"
#include "naming.hpp"
#include "npz.hpp"
#include "requant_widening.hpp"
#include "state.hpp"
#include "to_device.hpp"
#include "types.hpp"

namespace tessera::onnx2hpp {

namespace {

/// --batch and --shape: the graph inputs' dynamic dimensions fixed before shape inference (which
/// then propagates them), and the intermediate shapes the exporter recorded dropped, since they
/// carry the dynamic dimensions too.
void fix_input_shapes(onnx::ModelProto& model, const options& o) {
  if (o.batch == 0 && o.shapes.empty()) return;
  auto& g = *model.mutable_graph();
  for (const auto& given : o.shapes) {
    const std::string& name = given.first;  // not a structured binding: clang 14 (the fuzzer's) cannot capture one
    const auto it = std::find_if(g.input().begin(), g.input().end(),
                                 [&](const onnx::ValueInfoProto& v) { return v.name() == name; });
    if (it == g.input().end()) fail("--shape " + name + ": the model has no graph input '" + name + "'");
  }
  for (auto& input : *g.mutable_input()) {
    if (!input.type().has_tensor_type()) continue;
    auto* shape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
    const auto given = std::find_if(o.shapes.begin(), o.shapes.end(), [&](const auto& s) { return s.first == input.name(); });
    if (given != o.shapes.end()) {
      if (shape->dim_size() != static_cast<int>(given->second.size()) && shape->dim_size() != 0)
        fail(fmt::format("--shape {}: {} dimensions given, the model's input has {}", input.name(),
                         given->second.size(), shape->dim_size()));
      for (int d = 0; d < shape->dim_size(); ++d) {
        const auto& dim = shape->dim(d);
        if (dim.has_dim_value() && dim.dim_value() > 0 && dim.dim_value() != given->second[static_cast<std::size_t>(d)])
          fail(fmt::format("--shape {}: dimension {} is {} in the model, {} given", input.name(), d, dim.dim_value(),
                           given->second[static_cast<std::size_t>(d)]));
      }
      shape->clear_dim();
      for (std::int64_t v : given->second) shape->add_dim()->set_dim_value(v);
    } else if (o.batch > 0 && shape->dim_size() > 0) {
      auto* first = shape->mutable_dim(0);
      if (first->has_dim_param() || !first->has_dim_value() || first->dim_value() <= 0) first->set_dim_value(o.batch);
    }
  }
  g.clear_value_info();
  for (auto& output : *g.mutable_output())
    if (output.type().has_tensor_type()) output.mutable_type()->mutable_tensor_type()->clear_shape();
}

/// The whole pipeline but the emitter: checks, lowering, types, fusion, layouts.
device::graph lower_to_device(onnx::ModelProto model, const options& o, const std::string* sample_inputs_image) {
  fix_input_shapes(model, o);
  // Float ends written as float ops (Div, Add, Round, Clip; Sub, Mul): not the network's ops.
  const fake_float_ends fake = find_fake_float_ends(model);
  // Unsupported ops first: that is the most useful message for a model that has one.
  reject_unsupported_ops(model.graph(), fake.taken);
  // Before anything reads a constant: ONNX's checker and shape inference trust their sizes.
  check_constant_data(model);
  sort_nodes_topologically(*model.mutable_graph());
  upgrade_legacy_attributes(model);
  const shape_map inferred = check_and_infer_shapes(model);

  graph g = lower_model(model, inferred, std::filesystem::path(o.model_path).filename().string(), fake);
  std::optional<std::vector<tools::npy_array>> samples;
  // Fractions are read (and refused by assign_input_types) so that the float samples of an input
  // the device quantizes can sit beside integer ones.
  if (sample_inputs_image != nullptr)
    samples = tools::read_npz_image(*sample_inputs_image, o.sample_inputs_path, true);
  else if (!o.sample_inputs_path.empty())
    samples = tools::read_npz(o.sample_inputs_path, true);
  assign_input_types(g, o.input_types, samples ? &*samples : nullptr);
  propagate_types(g);
  // A fake-quantized output's integer type is its tensor's (sample data may have typed it).
  for (auto& b : g.boundaries)
    if (!b.input && !b.ops.empty())
      b.type = g.tensors[static_cast<std::size_t>(g.outputs[static_cast<std::size_t>(b.index)])].type;
  widen_requant_shifts(g);
  if (o.fuse) fuse(g);
  // Asked for float ends the model does not have: say so here rather than emit a header whose
  // float_executor call fails to compile (float_ends missing) in the user's build.
  if (o.float_boundary && g.boundaries.empty())
    fail("--float-boundary: the model has no float ends (no float graph input read by a QuantizeLinear or by a "
         "fake quantization such as Div, Add, Round, Clip; no float graph output written by a DequantizeLinear or by "
         "Sub, Mul): its inputs and outputs are integer tensors already");
  return to_device(g);
}

std::string convert_model(onnx::ModelProto model, const options& o, const std::string& ns,
                          const std::string* sample_inputs_image) {
  if (o.states.empty()) return emit_header(lower_to_device(std::move(model), o, sample_inputs_image), ns, o.float_boundary);
  // --sample-inputs lists every graph input, the caches too: each lowering reads them.
  const device::graph g = lower_with_state(model, o, [&](onnx::ModelProto variant) {
    return lower_to_device(std::move(variant), o, sample_inputs_image);
  });
  return emit_header(g, ns, o.float_boundary);
}

std::string namespace_of(const options& o) {
  const std::string ns = o.namespace_name.empty() ? namespace_from_output(o.output_path) : o.namespace_name;
  if (!is_valid_namespace(ns)) fail("'" + ns + "' cannot name the namespace (use --namespace NAME)");
  return ns;
}

}  // namespace

std::string convert(const options& o) {
  const std::string ns = namespace_of(o);
  return convert_model(read_model(o.model_path), o, ns, nullptr);
}

std::string convert_model_bytes(const std::string& model_bytes, const options& o,
                                const std::string* sample_inputs_image) {
  const std::string ns = namespace_of(o);
  return convert_model(parse_model(model_bytes, o.model_path), o, ns, sample_inputs_image);
}

}  // namespace tessera::onnx2hpp
