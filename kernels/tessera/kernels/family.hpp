// Kernel families: which implementation of the kernels a build runs.
//
// Three tiers (../../../docs/kernels.md):
//   arch/<arch>.hpp          thin wrappers over one architecture's instructions (SMLAD, VMLADAV, PMADDWD)
//   <family>/traits.hpp      what each kernel of the family computes at once (micro-tile, lanes),
//                            which cases it takes, and its scratch-size functions; plain constexpr
//                            data that compiles on every host, so x86 tests plan a Cortex-M schedule
//   <family>/<kernel>.hpp    the algorithms, which need the architecture's headers
// and `dispatch.hpp` on top: picks the family's kernel when its traits accept the case, else
// the scalar reference, which is always available and is the judge of correctness.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tessera::kernels {

enum class kernel_family : std::uint8_t {
  reference,  ///< portable scalar loops (reference/)
  x86,        ///< SSE4.1, with AVX2 paths where the compiler targets them (x86/)
  arm_dsp,    ///< Cortex-M4/M7/M33 DSP extension: SMLAD, SXTB16, ... (arm_dsp/)
  arm_mve,    ///< Cortex-M55/M85 Helium (arm_mve/)
};

inline constexpr std::size_t family_count = 4;

/// The best family the compiler targets in this translation unit.
inline constexpr kernel_family native_family =
#if defined(TESSERA_FORCE_REFERENCE_KERNELS)
    kernel_family::reference;
#elif defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
    kernel_family::arm_mve;
#elif defined(__ARM_FEATURE_DSP)
    kernel_family::arm_dsp;
#elif defined(__SSE4_1__)
    kernel_family::x86;
#else
    kernel_family::reference;
#endif

/// Whether family `f`'s kernels can run in this translation unit (the reference always can;
/// an MVE build can also run the DSP kernels, since Armv8.1-M Mainline keeps the DSP extension).
constexpr bool family_available(kernel_family f) {
  switch (f) {
    case kernel_family::reference: return true;
    case kernel_family::x86:
#if defined(__SSE4_1__) && !defined(TESSERA_FORCE_REFERENCE_KERNELS)
      return true;
#else
      return false;
#endif
    case kernel_family::arm_dsp:
#if defined(__ARM_FEATURE_DSP) && !defined(TESSERA_FORCE_REFERENCE_KERNELS)
      return true;
#else
      return false;
#endif
    case kernel_family::arm_mve:
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1) && !defined(TESSERA_FORCE_REFERENCE_KERNELS)
      return true;
#else
      return false;
#endif
  }
  return false;
}

constexpr const char* family_name(kernel_family f) {
  switch (f) {
    case kernel_family::reference: return "reference";
    case kernel_family::x86: return "x86";
    case kernel_family::arm_dsp: return "arm-dsp";
    case kernel_family::arm_mve: return "arm-mve";
  }
  return "?";
}

}  // namespace tessera::kernels
