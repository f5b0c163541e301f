// The x86 family's kernels (placeholder until they land: its traits accept nothing).
#pragma once

#include <tessera/kernels/x86/traits.hpp>

namespace tessera::kernels {
template <>
struct family_kernels<kernel_family::x86> : family_kernels<kernel_family::reference> {};
}  // namespace tessera::kernels
