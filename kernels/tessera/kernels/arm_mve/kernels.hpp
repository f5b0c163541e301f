// The arm_mve family's kernels (placeholder until they land: its traits accept nothing).
#pragma once

#include <tessera/kernels/arm_mve/traits.hpp>

namespace tessera::kernels {
template <>
struct family_kernels<kernel_family::arm_mve> : family_kernels<kernel_family::reference> {};
}  // namespace tessera::kernels
