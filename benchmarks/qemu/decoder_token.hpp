// The inputs of step t of the benchmark decoder (make_llama_models.py `bench`, decoder_tokens.hpp):
// the token [d_model] and its rotary matrix [hd, hd], int8 as the device takes them. Shared by
// the per-token firmware (decoder_firmware.cpp, decoder_cluster_firmware.cpp) and the host
// benchmark (benchmarks/bench_decoder.cpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "decoder_tokens.hpp"

namespace tessera::bench {

struct decoder_token {
  static constexpr int d_model = static_cast<int>(decoder_tokens::arrays[0].logical.dims[2]);
  static constexpr int rope_size =
      static_cast<int>(decoder_tokens::arrays[1].logical.dims[1] * decoder_tokens::arrays[1].logical.dims[2]);
  std::array<std::int8_t, d_model> token{};
  std::array<std::int8_t, rope_size> rope{};

  /// Loads step `t`'s token and rotary matrix.
  void load(int t) {
    for (int i = 0; i < d_model; ++i)
      token[std::size_t(i)] = static_cast<std::int8_t>(decoder_tokens::array_0[t * d_model + i]);
    for (int i = 0; i < rope_size; ++i)
      rope[std::size_t(i)] = static_cast<std::int8_t>(decoder_tokens::array_1[t * rope_size + i]);
  }
};

}  // namespace tessera::bench
