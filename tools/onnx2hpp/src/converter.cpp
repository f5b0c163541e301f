#include "converter.hpp"

#include <filesystem>
#include <optional>

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
#include "to_device.hpp"
#include "types.hpp"

namespace tessera::onnx2hpp {

namespace {

std::string convert_model(onnx::ModelProto model, const options& o, const std::string& ns) {
  // Unsupported ops first: that is the most useful message for a model that has one.
  reject_unsupported_ops(model.graph());
  // Before anything reads a constant: ONNX's checker and shape inference trust their sizes.
  check_constant_data(model);
  sort_nodes_topologically(*model.mutable_graph());
  upgrade_legacy_attributes(model);
  const shape_map inferred = check_and_infer_shapes(model);

  graph g = lower_model(model, inferred, std::filesystem::path(o.model_path).filename().string());
  std::optional<std::vector<tools::npy_array>> samples;
  if (!o.sample_inputs_path.empty()) samples = tools::read_npz(o.sample_inputs_path);
  assign_input_types(g, o.input_types, samples ? &*samples : nullptr);
  propagate_types(g);
  widen_requant_shifts(g);
  if (o.fuse) fuse(g);
  return emit_header(to_device(g), ns);
}

std::string namespace_of(const options& o) {
  const std::string ns = o.namespace_name.empty() ? namespace_from_output(o.output_path) : o.namespace_name;
  if (!is_valid_namespace(ns)) fail("'" + ns + "' cannot name the namespace (use --namespace NAME)");
  return ns;
}

}  // namespace

std::string convert(const options& o) {
  const std::string ns = namespace_of(o);
  return convert_model(read_model(o.model_path), o, ns);
}

std::string convert_model_bytes(const std::string& model_bytes, const options& o) {
  const std::string ns = namespace_of(o);
  return convert_model(parse_model(model_bytes, o.model_path), o, ns);
}

}  // namespace tessera::onnx2hpp
