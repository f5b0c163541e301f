// Runs a model converted with onnx2hpp --float-boundary through tessera::float_executor, for
// tools/onnx2hpp/testing/check_float_boundary.py (which compares with ONNX Runtime).
//
//   float_boundary_runner CASE DIR
//
// Reads DIR/input<i>.bin (ONNX order: float32 for a float input, the integer type otherwise),
// puts each into the tensor's physical layout (meta::origins), runs the float executor and
// writes DIR/device_q<i>.bin (the integers the network read for float input i) and
// DIR/output<i>.bin (float32, or the integer type for an integer output), both in ONNX order.
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include <tessera/tessera.hpp>

#include "add_mixed.hpp"
#include "conv_u8.hpp"
#include "fake_div_s8.hpp"
#include "fake_mul_u8.hpp"
#include "maxpool_s8.hpp"
#if TESSERA_CORPUS_FLOAT_ENDS  // Deeploy's Kernels/Mixed, when the corpus is there
#include "kernels_mixed_dequant.hpp"
#include "kernels_mixed_quant.hpp"
#endif

namespace {

std::vector<char> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    std::exit(1);
  }
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

void write_file(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!f) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    std::exit(1);
  }
}

template <const auto& Origins>
const tessera::tensor_origin& origin_of(tessera::tensor_id id) {
  for (const auto& o : Origins)
    if (o.id == id) return o;
  std::fprintf(stderr, "no origin for tensor %d\n", id);
  std::exit(1);
}

/// ONNX-order bytes -> physical order (`to_physical`) or back, `size` bytes per element.
std::vector<char> reorder(const std::vector<char>& in, std::size_t size, const tessera::tensor_origin& o,
                          bool to_physical) {
  std::vector<char> out(in.size());
  const std::size_t n = in.size() / size;
  for (std::size_t i = 0; i < n; ++i) {
    const auto p = static_cast<std::size_t>(o.physical_index(static_cast<std::int64_t>(i)));
    if (to_physical) std::memcpy(out.data() + p * size, in.data() + i * size, size);
    else std::memcpy(out.data() + i * size, in.data() + p * size, size);
  }
  return out;
}

template <class Net, const auto& Ends, const auto& Origins>
int run_case(const std::string& dir) {
  using fx = tessera::float_executor<Net, Ends>;
  constexpr std::size_t ni = Net::inputs.size(), no = Net::outputs.size();
  std::vector<std::vector<char>> inputs(ni), outputs(no);
  typename fx::inputs_t in{};
  typename fx::outputs_t out{};
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((inputs[I] = reorder(read_file(dir + "/input" + std::to_string(I) + ".bin"),
                          Ends.inputs[I].is_float ? sizeof(float) : sizeof(typename Net::template input_t<I>),
                          origin_of<Origins>(Net::inputs[I]), true),
      in[I] = inputs[I].data()),
     ...);
  }(std::make_index_sequence<ni>{});
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((outputs[I].resize(Net::template output_elements<I> *
                        (Ends.outputs[I].is_float ? sizeof(float) : sizeof(typename Net::template output_t<I>))),
      out[I] = outputs[I].data()),
     ...);
  }(std::make_index_sequence<no>{});
  bool sizes_match = true;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((sizes_match = sizes_match &&
                    inputs[I].size() == Net::template input_elements<I> *
                                            (Ends.inputs[I].is_float ? sizeof(float)
                                                                     : sizeof(typename Net::template input_t<I>))),
     ...);
  }(std::make_index_sequence<ni>{});
  if (!sizes_match) {
    std::fprintf(stderr, "an input file does not hold its tensor's element count\n");
    return 1;
  }

  alignas(16) static std::byte arena[fx::arena_bytes];
  fx::run(arena, in, out);

  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (
        [&] {
          if constexpr (Ends.inputs[I].is_float) {
            using q_t = typename Net::template input_t<I>;
            const auto* q = fx::template quantized_input<I>(arena);
            std::vector<char> bytes(Net::template input_elements<I> * sizeof(q_t));
            std::memcpy(bytes.data(), q, bytes.size());
            write_file(dir + "/device_q" + std::to_string(I) + ".bin",
                       reorder(bytes, sizeof(q_t), origin_of<Origins>(Net::inputs[I]), false));
          }
        }(),
        ...);
  }(std::make_index_sequence<ni>{});
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (write_file(dir + "/output" + std::to_string(I) + ".bin",
                reorder(outputs[I],
                        Ends.outputs[I].is_float ? sizeof(float) : sizeof(typename Net::template output_t<I>),
                        origin_of<Origins>(Net::outputs[I]), false)),
     ...);
  }(std::make_index_sequence<no>{});
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s CASE DIR\n", argv[0]);
    return 2;
  }
  const std::string name = argv[1], dir = argv[2];
  if (name == "maxpool_s8") return run_case<maxpool_s8::network, maxpool_s8::float_ends, maxpool_s8::meta::origins>(dir);
  if (name == "conv_u8") return run_case<conv_u8::network, conv_u8::float_ends, conv_u8::meta::origins>(dir);
  if (name == "add_mixed") return run_case<add_mixed::network, add_mixed::float_ends, add_mixed::meta::origins>(dir);
  if (name == "fake_mul_u8") return run_case<fake_mul_u8::network, fake_mul_u8::float_ends, fake_mul_u8::meta::origins>(dir);
  if (name == "fake_div_s8") return run_case<fake_div_s8::network, fake_div_s8::float_ends, fake_div_s8::meta::origins>(dir);
#if TESSERA_CORPUS_FLOAT_ENDS
  if (name == "kernels_mixed_quant")
    return run_case<kernels_mixed_quant::network, kernels_mixed_quant::float_ends, kernels_mixed_quant::meta::origins>(dir);
  if (name == "kernels_mixed_dequant")
    return run_case<kernels_mixed_dequant::network, kernels_mixed_dequant::float_ends,
                    kernels_mixed_dequant::meta::origins>(dir);
#endif
  std::fprintf(stderr, "unknown case %s\n", name.c_str());
  return 2;
}
