// onnx2hpp: converts a quantized ONNX model into a Tessera header (see --help).
//
// The output path is checked before the conversion (never the model itself; a link is
// written through), and the header goes to a unique temporary file renamed into place only
// when the whole conversion succeeded (output_file.hpp): a failed run never leaves a partial
// header for a build to pick up, and two runs never share a temporary file. A header that is
// already there with the same bytes is not touched, so reruns do not force recompiles.
#include <iostream>

#include "cli.hpp"
#include "converter.hpp"
#include "diagnostics.hpp"
#include "output_file.hpp"

int main(int argc, char** argv) {
  try {
    const tessera::onnx2hpp::options options = tessera::onnx2hpp::parse_command_line(argc, argv);
    if (options.help) {
      std::cout << tessera::onnx2hpp::usage_text();
      return 0;
    }
    const std::string output =
        tessera::onnx2hpp::resolve_output_path(options.output_path, options.model_path, options.sample_inputs_path);
    tessera::onnx2hpp::write_if_changed(output, tessera::onnx2hpp::convert(options));
    return 0;
  } catch (const std::exception& e) {
    // conversion_error, the npz reader's runtime_error, and anything protobuf/ONNX throw.
    std::cerr << "onnx2hpp: error: " << e.what() << '\n';
    return 1;
  }
}
