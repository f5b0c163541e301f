// Whether the arm_dsp family's kernels can run in this translation unit: when the compiler
// targets the Arm DSP extension (Cortex-M4/M7/M33/M55), unless TESSERA_FORCE_REFERENCE_KERNELS
// is defined. The one place this is decided: family.hpp's table and arm_dsp/kernels.hpp both
// read TESSERA_KERNELS_ARM_DSP.
#pragma once

#if !defined(TESSERA_FORCE_REFERENCE_KERNELS) && defined(__ARM_FEATURE_DSP)
#define TESSERA_KERNELS_ARM_DSP 1
#else
#define TESSERA_KERNELS_ARM_DSP 0
#endif
