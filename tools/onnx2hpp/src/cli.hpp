// Command line of onnx2hpp.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <tessera/core/dtype.hpp>

namespace tessera::onnx2hpp {

struct options {
  std::string model_path;
  std::string output_path;
  /// Empty: derived from the output file's stem.
  std::string namespace_name;
  /// --no-fuse clears it.
  bool fuse = true;
  /// --input-type NAME=TYPE, in command-line order.
  std::vector<std::pair<std::string, tessera::dtype>> input_types;
  /// --sample-inputs FILE.npz.
  std::string sample_inputs_path;
  /// --batch N: the extent of every dynamic leading (batch) dimension of the graph inputs (0: none).
  std::int64_t batch = 0;
  /// --shape NAME=D1,D2,...: the whole shape of graph input NAME, in command-line order.
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> shapes;
  /// --float-boundary: also emit `float_ends` (float in, float out on the device).
  bool float_boundary = false;
  /// --state IN=OUT: a cache graph input and the graph output that is its grown copy, in
  /// command-line order (state.hpp).
  std::vector<std::pair<std::string, std::string>> states;
  /// --max-context N: the positions every state holds (0: not given).
  std::int64_t max_context = 0;
  bool help = false;
};

/// Parses argv; throws conversion_error on a malformed command line.
options parse_command_line(int argc, const char* const* argv);

std::string usage_text();

/// Parses a dtype name of the command line: s8, u8, s16, u16 or s32.
bool parse_dtype(const std::string& text, tessera::dtype& out);

}  // namespace tessera::onnx2hpp
