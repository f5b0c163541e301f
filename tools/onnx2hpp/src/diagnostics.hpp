// The one error type of the converter. Every failure ends as a single line on stderr:
//   onnx2hpp: error: node 'Conv_3' (Conv): weights do not fit int8 (element 17 is 300)
//   onnx2hpp: error: cannot parse 'x.onnx' as an ONNX model (truncated or not a model file)
// and exit code 1, with no output file written (main.cpp).
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace tessera::onnx2hpp {

class conversion_error : public std::runtime_error {
 public:
  /// A model-level problem (file, checker, graph inputs, ...).
  explicit conversion_error(const std::string& reason) : std::runtime_error(reason) {}
  /// A problem with one node: the message names it as `node 'NAME' (OP): REASON`.
  conversion_error(const std::string& node, const std::string& op_type, const std::string& reason)
      : std::runtime_error("node '" + node + "' (" + op_type + "): " + reason) {}
};

/// Where a node-level error is reported from: the ONNX node's name and op type.
struct node_context {
  std::string name;
  std::string op;

  [[noreturn]] void fail(const std::string& reason) const { throw conversion_error(name, op, reason); }
};

[[noreturn]] inline void fail(const std::string& reason) { throw conversion_error(reason); }

}  // namespace tessera::onnx2hpp
