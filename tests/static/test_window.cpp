// Window arithmetic (core/window.hpp) against brute force over the taps and outputs of small
// axes, and scratch carving (kernels/algorithm/scratch.hpp).
#include <cstdint>

#include <tessera/core/window.hpp>
#include <tessera/kernels/algorithm/scratch.hpp>
#include <tessera/kernels/arm_dsp/traits.hpp>
#include <tessera/kernels/arm_mve/traits.hpp>
#include <tessera/kernels/x86/traits.hpp>

namespace {

using namespace tessera;

// ONNX examples.
static_assert(window::output_extent(32, 1, 1, 3, 2, 1) == 16);
static_assert(window::output_extent(49, 4, 5, 10, 2, 1) == 25);  // keyword spotting's first layer
static_assert(window::output_extent(2, 0, 0, 3, 1, 1) == 0);            // no window fits
static_assert(window::output_extent<std::int64_t>(5, 0, 0, 3, 1, 2) == 1);  // dilated 3-tap window spans 5
static_assert(window::span(4, 2, 3, 1) == 9);
static_assert(window::span(1, 1, 3, 2) == 5);

/// Every function against a definition-level loop, over input sizes 1..9, kernels 1..5,
/// strides 1..3, dilations 1..3, paddings 0..3 and every output and window origin.
constexpr bool brute_force_agrees() {
  for (int size = 1; size <= 9; ++size)
    for (int kernel = 1; kernel <= 5; ++kernel)
      for (int stride = 1; stride <= 3; ++stride)
        for (int dilation = 1; dilation <= 3; ++dilation)
          for (int pad = 0; pad <= 3; ++pad) {
            const int outputs = window::output_extent(size, pad, pad, kernel, stride, dilation);
            // output_extent: the windows whose last tap stays within the padded input.
            int fitting = 0;
            while (window::origin(fitting, stride, pad) + (kernel - 1) * dilation <= size - 1 + pad) ++fitting;
            if (fitting != outputs) return false;
            if (outputs > 0 && window::span(outputs, stride, kernel, dilation) > size + 2 * pad) return false;
            const auto interior = window::interior_outputs(outputs, stride, pad, kernel, dilation, size);
            for (int o = 0; o < outputs; ++o) {
              const int first = window::origin(o, stride, pad);
              const auto taps = window::taps_inside(first, kernel, dilation, size);
              int inside = 0, begin = kernel, end = 0;
              for (int t = 0; t < kernel; ++t) {
                const int x = first + t * dilation;
                if (x >= 0 && x < size) {
                  ++inside;
                  if (t < begin) begin = t;
                  end = t + 1;
                }
              }
              if (taps.count() != inside) return false;
              if (inside > 0 && (taps.begin != begin || taps.end != end)) return false;
              const bool whole = inside == kernel;
              if (whole != (o >= interior.begin && o < interior.end)) return false;
            }
          }
  return true;
}
static_assert(brute_force_agrees());

// carve: parts at multiples of the part alignment, slack for the start.
constexpr auto layout = kernels::carve(kernels::scratch_alignment{16, 16}, 192, 432, 10);
static_assert(layout.offset[0] == 0 && layout.offset[1] == 192 && layout.offset[2] == 624);
static_assert(layout.total == 640 + 15);
static_assert(kernels::carve(kernels::scratch_alignment{1, 1}, 0).total == 0);

// The traits report the total of the layout the kernel carves (docs/kernels.md examples).
constexpr kernels::reference::conv2d_dims conv3x3{1, 8, 8, 16, 8, 8, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1};
static_assert(kernels::family_traits<kernels::kernel_family::arm_dsp>::conv2d_scratch_bytes(conv3x3) ==
              4 * 36 * 8 + 144 + 4 * 16 * 4 + 16 * 12 + 16 * 36 * 8 + 7);
static_assert(kernels::family_traits<kernels::kernel_family::arm_mve>::conv2d_scratch_bytes(conv3x3) ==
              192 + 192 + 432 + 15);
static_assert(kernels::family_traits<kernels::kernel_family::x86>::conv2d_scratch_bytes(conv3x3) == 2 * 144 * 2);

}  // namespace
