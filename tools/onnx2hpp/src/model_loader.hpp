// Reading an ONNX file and putting its nodes in execution order.
#pragma once

#include <filesystem>
#include <string>

#include <onnx/onnx_pb.h>

namespace tessera::onnx2hpp {

/// Parses the model file; a missing, truncated or non-ONNX file is a conversion_error.
onnx::ModelProto read_model(const std::string& path);

/// The same from the file's bytes already in memory (the fuzz target); `path` only names the
/// model in messages. External data is left unread (check_constant_data then rejects it).
onnx::ModelProto parse_model(const std::string& bytes, const std::string& path);

/// Reads every initializer's and Constant's external data into raw_data (read_model does
/// this). ONNX's `location` is relative to the model's directory, never the current one; an
/// absolute location or one with ".." is refused, as are an offset or length beyond the file.
void load_external_data(onnx::ModelProto& model, const std::filesystem::path& model_dir);

/// Reorders the graph's nodes topologically, keeping the file order where it is free.
/// ONNX requires topological order, but exporters do not always honour it (the corpus'
/// Identity/OutputIdentity lists a consumer first); the order carries no meaning, so sorting
/// is safe and lets the checker judge everything else. Fails on an input that nothing defines
/// (e.g. a missing initializer), on a tensor defined twice and on cycles.
void sort_nodes_topologically(onnx::GraphProto& graph);

}  // namespace tessera::onnx2hpp
