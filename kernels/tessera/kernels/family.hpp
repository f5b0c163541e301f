// Kernel families: which implementation of the kernels a build runs.
//
// The tiers (../../../docs/kernels.md):
//   arch/<arch>.hpp          thin wrappers over one architecture's instructions (SMLAD, VMLADAV, PMADDWD)
//   algorithm/               the generic algorithms (tile loops, im2col walk, scratch carving)
//   <family>/traits.hpp      what each kernel of the family computes at once (micro-tile, lanes),
//                            which cases it takes, and its scratch layouts; plain constexpr data
//                            that compiles on every host, so x86 tests plan a Cortex-M schedule
//   <family>/<kernel>.hpp    the family's atoms and kernels, which need the architecture's headers
// and `dispatch.hpp` on top: picks the family's kernel when its traits accept the case, else
// the scalar reference, which is always available and is the judge of correctness.
#pragma once

#include <cstddef>
#include <cstdint>

#include <tessera/kernels/arm_dsp/available.hpp>
#include <tessera/kernels/arm_mve/available.hpp>
#include <tessera/kernels/rv32/available.hpp>
#include <tessera/kernels/rvv/available.hpp>
#include <tessera/kernels/x86/available.hpp>

namespace tessera::kernels {

enum class kernel_family : std::uint8_t {
  reference,  ///< portable scalar loops (reference/)
  x86,        ///< SSE4.1, with AVX2 paths where the compiler targets them (x86/)
  arm_dsp,    ///< Cortex-M4/M7/M33 DSP extension: SMLAD, SXTB16, ... (arm_dsp/)
  arm_mve,    ///< Cortex-M55/M85 Helium (arm_mve/)
  rv32,       ///< RV32IM scalar, PULP-NN's 4x2 micro-kernel without Xpulp (rv32/)
  rvv,        ///< RISC-V vector extension 1.0, RV32 (rvv/)
};

/// One row per family: its name in reports and whether its kernels can run in this translation
/// unit (decided in <family>/available.hpp). Rows are in order of preference: the last one
/// available is the native family. A new family adds its enum value and one row here.
struct family_entry {
  kernel_family family;
  const char* name;
  bool available;
};
inline constexpr family_entry families[] = {
    {kernel_family::reference, "reference", true},
    {kernel_family::x86, "x86", TESSERA_KERNELS_X86 != 0},
    {kernel_family::arm_dsp, "arm-dsp", TESSERA_KERNELS_ARM_DSP != 0},
    {kernel_family::arm_mve, "arm-mve", TESSERA_KERNELS_ARM_MVE != 0},
    {kernel_family::rv32, "rv32", TESSERA_KERNELS_RV32 != 0},
    {kernel_family::rvv, "rvv", TESSERA_KERNELS_RVV != 0},
};
inline constexpr std::size_t family_count = sizeof(families) / sizeof(families[0]);

// Rows are indexed by the enum value elsewhere (per-family arrays of the network summary).
static_assert([] {
  for (std::size_t i = 0; i < family_count; ++i)
    if (static_cast<std::size_t>(families[i].family) != i) return false;
  return true;
}(), "kernel families: one row per enum value, in enum order");

constexpr const family_entry& entry_of(kernel_family f) {
  for (const family_entry& e : families)
    if (e.family == f) return e;
  return families[0];
}

/// Whether family `f`'s kernels can run in this translation unit (the reference always can;
/// an MVE build can also run the DSP kernels, since Armv8.1-M Mainline keeps the DSP extension).
constexpr bool family_available(kernel_family f) { return entry_of(f).available; }

/// `f` when its kernels can run here, else the reference (a plan made on x86 for a Cortex-M
/// target runs the reference kernels on x86; its scratch is then 0, never more than planned).
constexpr kernel_family runnable(kernel_family f) { return family_available(f) ? f : kernel_family::reference; }

constexpr const char* family_name(kernel_family f) { return entry_of(f).name; }

/// The best family the compiler targets in this translation unit (the reference with
/// TESSERA_FORCE_REFERENCE_KERNELS).
inline constexpr kernel_family native_family = [] {
  kernel_family best = kernel_family::reference;
  for (const family_entry& e : families)
    if (e.available) best = e.family;
  return best;
}();

}  // namespace tessera::kernels
