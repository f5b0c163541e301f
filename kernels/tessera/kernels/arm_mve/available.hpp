// Whether the arm_mve family's kernels can run in this translation unit: when the compiler
// targets Helium's integer MVE (Cortex-M55/M85), unless TESSERA_FORCE_REFERENCE_KERNELS is
// defined. The one place this is decided: family.hpp's table and arm_mve/kernels.hpp both read
// TESSERA_KERNELS_ARM_MVE.
#pragma once

#if !defined(TESSERA_FORCE_REFERENCE_KERNELS) && defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#define TESSERA_KERNELS_ARM_MVE 1
#else
#define TESSERA_KERNELS_ARM_MVE 0
#endif
