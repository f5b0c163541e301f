// Classify one sample with a network converted by onnx2hpp, on the host, and print the plan.
//
//   classify_resnet8 inputs.npz [outputs.npz]
//
// The firmware version of this program is the three lines marked "device": a static arena,
// the input in the network's physical layout (NHWC, true uint8 values) and one call.
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <exception>
#include <vector>

#include <fmt/format.h>

#include <tessera/report/plan_pictures.hpp>
#include <tessera/report/plan_table.hpp>
#include <tessera/report/tiled_plan_table.hpp>
#include <tessera/tessera.hpp>

#include TESSERA_MODEL_HEADER
#include "npz.hpp"

namespace model = TESSERA_MODEL;
using network = model::network;
using run_network = tessera::executor<network>;

namespace {
const tessera::tensor_origin& origin_of(tessera::tensor_id id) {
  for (const auto& o : model::meta::origins)
    if (o.id == id) return o;
  std::fprintf(stderr, "no origin for tensor %d\n", id);
  std::exit(1);
}
}  // namespace

int main(int argc, char** argv) try {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s inputs.npz [outputs.npz]\n", argv[0]);
    return 2;
  }
  static_assert(network::inputs.size() == 1 && network::outputs.size() == 1, "one input, one output");

  // The sample is an ONNX (NCHW) tensor; the device wants the physical layout of the input.
  const auto sample = tessera::tools::read_npz(argv[1]).at(0);
  const auto& in_origin = origin_of(network::inputs[0]);
  std::vector<network::input_t<0>> input(network::input_elements<0>);
  for (std::size_t i = 0; i < sample.values.size(); ++i)
    input[static_cast<std::size_t>(in_origin.physical_index(static_cast<std::int64_t>(i)))] =
        static_cast<network::input_t<0>>(sample.values[i]);

  alignas(16) static std::byte arena[run_network::arena_bytes];  // device
  std::vector<network::output_t<0>> output(network::output_elements<0>);
  const auto start = std::chrono::steady_clock::now();
  run_network::run(arena, {input.data()}, {output.data()});  // device
  const auto elapsed = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start);

  fmt::print("{}\n", tessera::report::plan_table<network>());
  std::size_t best = 0;
  for (std::size_t i = 1; i < output.size(); ++i)
    if (output[i] > output[best]) best = i;
  std::vector<long long> logits(output.begin(), output.end());
  fmt::print("output {}: [{}]\n", origin_of(network::outputs[0]).onnx_name, fmt::join(logits, ", "));
  fmt::print("top-1 class: {}   (host inference {:.2f} ms, arena {} bytes)\n", best, elapsed.count(),
             run_network::arena_bytes);

  // The same network planned for a GAP8-like target (64 kB L1, 512 kB L2, 8 MB L3) and run on
  // the simulated DMA: tiles, bytes moved per level, cycles and overlap per layer.
  using on_gap8 = tessera::tiled_executor<network, tessera::target<tessera::targets::gap8>>;
  alignas(16) static std::byte l2[on_gap8::l2_bytes];
  alignas(16) static std::byte l1[on_gap8::l1_bytes];
  std::vector<network::output_t<0>> tiled_output(network::output_elements<0>);
  const auto simulation = tessera::report::simulate<on_gap8>(l2, l1, {input.data()}, {tiled_output.data()});
  fmt::print("\n{}", tessera::report::tiled_plan_table<network, on_gap8>(simulation));
  const bool tiled_equal = tiled_output == output && simulation.hazards == 0;
  fmt::print("tiled output equals the flat one: {}\n", tiled_equal ? "yes" : "NO");

  // Pictures of that plan as it ran: the L1 and L2 memory maps and the timeline (SVG).
  {
    const auto pictures = tessera::report::plan_pictures_of<on_gap8>(nullptr, l2, l1, {input.data()}, {tiled_output.data()});
    const char* dir = std::getenv("TESSERA_PICTURES_DIR");
    const std::string base = std::string(dir != nullptr ? dir : ".") + "/resnet8_gap8";
    const bool written = tessera::report::write_text_file(base + "_l1.svg", tessera::report::svg_memory_map(pictures.l1)) &&
                         tessera::report::write_text_file(base + "_l2.svg", tessera::report::svg_memory_map(pictures.l2)) &&
                         tessera::report::write_text_file(base + "_timeline.svg", tessera::report::svg_timeline(pictures.time));
    if (written) fmt::print("plan pictures: {0}_l1.svg, {0}_l2.svg, {0}_timeline.svg\n", base);
    else fmt::print("plan pictures: could not write {}_*.svg\n", base);
  }

  if (argc > 2) {
    const auto golden = tessera::tools::read_npz(argv[2]).at(0);
    bool equal = golden.values.size() == logits.size();
    for (std::size_t i = 0; equal && i < logits.size(); ++i) equal = golden.values[i] == logits[i];
    fmt::print("golden output: {}\n", equal ? "bit-exact match" : "MISMATCH");
    return equal && tiled_equal ? 0 : 1;
  }
  return tiled_equal ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "error: %s\n", e.what());
  return 1;
}
