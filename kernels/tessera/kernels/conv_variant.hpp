// The convolution kernels a family may provide, as one choice per layer (kernels::choose_conv2d
// in dispatch.hpp picks it; a family's flash constants are keyed by it, arm_dsp/flash_constants.hpp).
#pragma once

#include <cstdint>

namespace tessera::kernels {

enum class conv_variant : std::uint8_t {
  reference,      ///< the scalar reference
  im2col,         ///< the family's convolution (pointwise without im2col where it applies)
  depthwise_hwc,  ///< the family's channels-last depthwise kernel
  depthwise_chw,  ///< DORY's depthwise variant: the tile is reordered to CHW in scratch first
};

constexpr const char* variant_name(conv_variant v) {
  switch (v) {
    case conv_variant::reference: return "reference";
    case conv_variant::im2col: return "conv";
    case conv_variant::depthwise_hwc: return "dw-hwc";
    case conv_variant::depthwise_chw: return "dw-chw";
  }
  return "?";
}

}  // namespace tessera::kernels
