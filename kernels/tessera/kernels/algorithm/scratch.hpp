// Scratch layouts: one function per kernel both sizes and lays out its scratch.
//
// A kernel's traits call `carve` to tell the planner how many bytes to reserve, and the kernel
// calls the same function to find its parts in the buffer it is given, so the two can never
// disagree (they used to be written twice: a sum of sizes beside the traits, pointer arithmetic
// in the kernel). The caller's buffer may start at any offset of an L1 arena; `total` includes
// the slack for aligning it to `base_align`.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tessera::kernels {

/// Alignment of a scratch area: of its start (`base`, for the widest load of the kernel) and of
/// each part within it (`part`).
struct scratch_alignment {
  std::size_t base = 1;
  std::size_t part = 1;
};

/// Consecutive parts of one scratch area: their offsets from the aligned start and the bytes
/// the caller must provide.
template <std::size_t N>
struct scratch_layout {
  std::size_t offset[N > 0 ? N : 1]{};
  std::size_t size[N > 0 ? N : 1]{};
  std::size_t total = 0;  ///< bytes to reserve, alignment slack included
  std::size_t base_align = 1;

  /// Part `i` of the caller's scratch `p`, as `T*`.
  template <class T>
  T* part(void* p, std::size_t i) const {
    const auto start = (reinterpret_cast<std::uintptr_t>(p) + (base_align - 1)) & ~std::uintptr_t(base_align - 1);
    return reinterpret_cast<T*>(start + offset[i]);
  }
};

/// Lays out parts of `sizes` bytes one after the other, each at a multiple of `align.part`.
/// Example: carve({16, 16}, 192, 432, 10) -> offsets 0, 192, 624; total 640 + 15.
template <class... Sizes>
constexpr scratch_layout<sizeof...(Sizes)> carve(scratch_alignment align, Sizes... sizes) {
  scratch_layout<sizeof...(Sizes)> layout;
  layout.base_align = align.base;
  const std::size_t list[] = {std::size_t(sizes)..., 0};
  std::size_t at = 0;
  for (std::size_t i = 0; i < sizeof...(Sizes); ++i) {
    layout.offset[i] = at;
    layout.size[i] = list[i];
    at += (list[i] + align.part - 1) / align.part * align.part;
  }
  layout.total = at + (align.base - 1);
  return layout;
}

}  // namespace tessera::kernels
