// The arm_dsp family's kernels (placeholder until they land: its traits accept nothing).
#pragma once

#include <tessera/kernels/arm_dsp/traits.hpp>

namespace tessera::kernels {
template <>
struct family_kernels<kernel_family::arm_dsp> : family_kernels<kernel_family::reference> {};
}  // namespace tessera::kernels
