// Whether the x86 family's kernels can run in this translation unit: when the compiler targets
// SSE4.1 (AVX2 paths where it targets AVX2), unless TESSERA_FORCE_REFERENCE_KERNELS is defined.
// The one place this is decided: family.hpp's table and x86/kernels.hpp both read
// TESSERA_KERNELS_X86.
#pragma once

#if !defined(TESSERA_FORCE_REFERENCE_KERNELS) && defined(__SSE4_1__)
#define TESSERA_KERNELS_X86 1
#else
#define TESSERA_KERNELS_X86 0
#endif
