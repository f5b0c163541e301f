// Golden data of a corpus model on bare metal (tests/qemu_corpus): writes the golden inputs into
// the network's input buffers in device layout and compares outputs with the golden outputs,
// both through the converter's tensor origins (ONNX element k <-> physical index). Shared by
// corpus_model.cpp.in (flat executor) and corpus_cluster.cpp.in (tiled on cluster presets).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <utility>

#include <tessera/tessera.hpp>

namespace tessera::qemu_corpus {

inline std::int64_t load(dtype type, const void* base, std::int64_t i) {
  switch (type) {
    case dtype::s8: return static_cast<const std::int8_t*>(base)[i];
    case dtype::u8: return static_cast<const std::uint8_t*>(base)[i];
    case dtype::s16: return static_cast<const std::int16_t*>(base)[i];
    case dtype::u16: return static_cast<const std::uint16_t*>(base)[i];
    case dtype::s32: return static_cast<const std::int32_t*>(base)[i];
  }
  return 0;
}

inline void store(dtype type, void* base, std::int64_t i, std::int64_t v) {
  switch (type) {
    case dtype::s8: static_cast<std::int8_t*>(base)[i] = static_cast<std::int8_t>(v); break;
    case dtype::u8: static_cast<std::uint8_t*>(base)[i] = static_cast<std::uint8_t>(v); break;
    case dtype::s16: static_cast<std::int16_t*>(base)[i] = static_cast<std::int16_t>(v); break;
    case dtype::u16: static_cast<std::uint16_t*>(base)[i] = static_cast<std::uint16_t>(v); break;
    case dtype::s32: static_cast<std::int32_t*>(base)[i] = static_cast<std::int32_t>(v); break;
  }
}

/// The caller buffers of `Net` (one static buffer per graph input and output) filled from the
/// golden inputs, and the comparison of the outputs with the golden outputs.
template <class Net, auto const& Origins, auto const& GoldenIn, auto const& GoldenOut>
struct golden {
  using inputs_t = typename caller_buffers<Net>::inputs_t;
  using outputs_t = typename caller_buffers<Net>::outputs_t;

  template <std::size_t I>
  struct in_buffer {
    alignas(16) static inline std::byte data[Net::tensors[Net::inputs[I]].bytes()];
  };
  template <std::size_t I>
  struct out_buffer {
    alignas(16) static inline std::byte data[Net::tensors[Net::outputs[I]].bytes()];
  };

  static const tensor_origin* origin_of(tensor_id id) {
    for (const auto& o : Origins)
      if (o.id == id) return &o;
    return nullptr;
  }

  /// The input buffers, filled with the golden inputs (false: sizes do not match).
  static bool inputs(inputs_t& inputs) {
    [&]<std::size_t... I>(std::index_sequence<I...>) { ((inputs[I] = in_buffer<I>::data), ...); }(
        std::make_index_sequence<Net::inputs.size()>{});
    for (std::size_t i = 0; i < Net::inputs.size(); ++i) {
      const tensor_origin* o = origin_of(Net::inputs[i]);
      const auto& g = GoldenIn[i];
      if (o == nullptr || static_cast<std::int64_t>(g.count) != o->logical.elements()) {
        std::printf("input %u: no origin or size mismatch\n", static_cast<unsigned>(i));
        return false;
      }
      for (std::int64_t k = 0; k < o->logical.elements(); ++k)
        store(Net::tensors[Net::inputs[i]].type, const_cast<void*>(inputs[i]), o->physical_index(k),
              load(g.type, g.data, k));
    }
    return true;
  }

  /// The output buffers, filled with `fill` (so that a run that writes nothing cannot pass).
  static outputs_t outputs(std::byte fill = std::byte{0xA5}) {
    outputs_t outputs{};
    [&]<std::size_t... I>(std::index_sequence<I...>) { ((outputs[I] = out_buffer<I>::data), ...); }(
        std::make_index_sequence<Net::outputs.size()>{});
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((std::memset(out_buffer<I>::data, static_cast<int>(fill), sizeof(out_buffer<I>::data))), ...);
    }(std::make_index_sequence<Net::outputs.size()>{});
    return outputs;
  }

  /// Outputs that differ from the golden outputs (0: bit-exact); prints the first mismatch.
  static int mismatches(const outputs_t& outputs, const char* what) {
    int failures = 0;
    for (std::size_t i = 0; i < Net::outputs.size(); ++i) {
      const tensor_origin* o = origin_of(Net::outputs[i]);
      const auto& g = GoldenOut[i];
      if (o == nullptr || static_cast<std::int64_t>(g.count) != o->logical.elements()) {
        std::printf("%s output %u: no origin or size mismatch\n", what, static_cast<unsigned>(i));
        ++failures;
        continue;
      }
      int bad = 0;
      for (std::int64_t k = 0; k < o->logical.elements(); ++k) {
        const std::int64_t got = load(Net::tensors[Net::outputs[i]].type, outputs[i], o->physical_index(k));
        const std::int64_t want = load(g.type, g.data, k);
        if (got != want && bad++ == 0)
          std::printf("%s output %u element %ld: got %ld, want %ld\n", what, static_cast<unsigned>(i),
                      static_cast<long>(k), static_cast<long>(got), static_cast<long>(want));
      }
      if (bad != 0)
        std::printf("%s output %u: %d of %ld elements differ\n", what, static_cast<unsigned>(i), bad,
                    static_cast<long>(o->logical.elements()));
      failures += bad != 0;
    }
    return failures;
  }
};

}  // namespace tessera::qemu_corpus
