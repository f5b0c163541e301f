// The conversion pipeline, from a model file to the header text.
#pragma once

#include <string>

#include "cli.hpp"

namespace tessera::onnx2hpp {

/// Runs every stage; throws conversion_error (or std::runtime_error from the npz reader).
std::string convert(const options& o);

/// The same for a model file's bytes already in memory (the fuzz target, tests/fuzz);
/// `o.model_path` only names the model in messages.
/// With `sample_inputs_image` non-null, that string is the --sample-inputs file's bytes (read
/// with tools::read_npz_image; `o.sample_inputs_path` then only names it in messages): the
/// sample-inputs fuzz target.
std::string convert_model_bytes(const std::string& model_bytes, const options& o,
                                const std::string* sample_inputs_image = nullptr);

}  // namespace tessera::onnx2hpp
