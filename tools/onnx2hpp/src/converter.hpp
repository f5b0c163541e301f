// The conversion pipeline, from a model file to the header text.
#pragma once

#include <string>

#include "cli.hpp"

namespace tessera::onnx2hpp {

/// Runs every stage; throws conversion_error (or std::runtime_error from the npz reader).
std::string convert(const options& o);

}  // namespace tessera::onnx2hpp
