// The convolution's output-tile loop, written once: output pixels in blocks of the micro-tile's
// rows, each block packed (im2col) and then multiplied by every output channel's weights and
// stored requantized. Families supply the two steps as an `Atom` (concept `conv2d_atom`), which
// holds its scratch parts and per-call state (requantization tables, expanded weights):
//   static constexpr int pixels                                  output pixels per block
//   void pack(const TIn* image, int p0, int count)              im2col of pixels [p0, p0 + count)
//                                                                of one image (im2col atoms walk
//                                                                them with a pixel_cursor, reset
//                                                                at p0 == 0)
//   void compute(int count, TOut* out, std::ptrdiff_t flat)      micro-kernel and requantizing
//                                                                store; `flat` is the index of
//                                                                out[0] in the output tensor
// (one step, because some micro-kernels requantize from registers, others from a block of
// accumulators). A leftover block (count < pixels) goes through the same steps; each atom
// decides how its micro-kernel treats the missing rows (computed twice, zeroed, or unused).
#pragma once

#include <concepts>
#include <cstdint>

#include <tessera/kernels/reference/conv2d.hpp>

namespace tessera::kernels::algorithm {

template <class Atom, class TIn, class TOut>
concept conv2d_atom = requires(Atom& atom, const TIn* image, int count, TOut* out) {
  { Atom::pixels } -> std::convertible_to<int>;
  atom.pack(image, count, count);
  atom.compute(count, out, std::ptrdiff_t{0});
};

/// Runs `atom` over every output pixel of every image (NHWC input and output).
template <class Atom, class TIn, class TOut>
  requires conv2d_atom<Atom, TIn, TOut>
void conv2d_pixel_blocks(const reference::conv2d_dims& d, const TIn* input, TOut* output, Atom& atom) {
  constexpr int block = Atom::pixels;
  const int pixels = d.out_h * d.out_w;
  if (pixels <= 0 || d.out_c <= 0) return;
  for (int b = 0; b < d.batch; ++b) {
    // Pointer-sized offsets: 32-bit arithmetic on 32-bit targets, whose tensors fit their memory.
    const TIn* image = input + std::ptrdiff_t(b) * d.in_h * d.in_w * d.in_c;
    const std::ptrdiff_t image_out = std::ptrdiff_t(b) * pixels * d.out_c;
    for (int p0 = 0; p0 < pixels; p0 += block) {
      const int count = pixels - p0 < block ? pixels - p0 : block;
      atom.pack(image, p0, count);
      const std::ptrdiff_t flat = image_out + std::ptrdiff_t(p0) * d.out_c;
      atom.compute(count, output + flat, flat);
    }
  }
}

}  // namespace tessera::kernels::algorithm
