// im2col, written once: the receptive field of an output pixel laid out as one reduction row
// ([kernel_h][kernel_w][in_c], the weights' order), taps in the padding as the true value 0
// (the stored conv2d_dims::pad_value).
//
// The walk (which taps of a kernel row lie inside the input, where the padding starts) is the
// same for every instruction set; what differs is how a run of channels is written: widened to
// int16 (x86), copied as bytes to be expanded later (arm_dsp), copied as int8 with uint8 values
// shifted by -128 (arm_mve). A family passes that as a `Pack`:
//   Dst zero(Dst dst, int n)                 writes n padding values: the true 0, which is the
//                                            stored pad_value (the input's zero point), in
//                                            the family's representation
//   Dst copy(Dst dst, const TIn* src, int n) writes n input values
// both returning dst advanced past what they wrote.
#pragma once

#include <cstdint>

#include <tessera/core/window.hpp>
#include <tessera/kernels/reference/conv2d.hpp>

namespace tessera::kernels::algorithm {

/// One kernel row of a window: kernel_w taps of in_c channels from input row `row` (nullptr when
/// the kernel row lies in the padding), the first tap at input column `ix0`.
template <class Pack, class TIn, class Dst>
inline Dst im2col_kernel_row(const reference::conv2d_dims& d, const TIn* row, int ix0, Dst dst, Pack& pack) {
  const int c = d.in_c;
  if (row == nullptr) return pack.zero(dst, d.kernel_w * c);
  if (d.dilation_w == 1) {  // the inside taps are one contiguous run of the input row
    const auto taps = window::taps_inside(ix0, d.kernel_w, 1, d.in_w);
    dst = pack.zero(dst, taps.begin * c);
    dst = pack.copy(dst, row + std::int64_t(ix0 + taps.begin) * c, taps.count() * c);
    return pack.zero(dst, (d.kernel_w - taps.end) * c);
  }
  for (int j = 0; j < d.kernel_w; ++j) {
    const int ix = ix0 + j * d.dilation_w;
    dst = ix >= 0 && ix < d.in_w ? pack.copy(dst, row + std::int64_t(ix) * c, c) : pack.zero(dst, c);
  }
  return dst;
}

/// Input row `iy` of `image`, or nullptr in the padding.
template <class TIn>
inline const TIn* input_row(const reference::conv2d_dims& d, const TIn* image, int iy) {
  return iy >= 0 && iy < d.in_h ? image + std::int64_t(iy) * d.in_w * d.in_c : nullptr;
}

/// The whole reduction row of output pixel (oy, ox) of one image. The window's parameters are
/// read into locals first: packs may copy with assembly that clobbers memory, after which
/// fields read through `d` would be loaded again for every kernel row.
template <class Pack, class TIn, class Dst>
inline Dst im2col_pixel(const reference::conv2d_dims& d, const TIn* image, int oy, int ox, Dst dst, Pack& pack) {
  const int c = d.in_c, in_h = d.in_h, in_w = d.in_w, kernel_h = d.kernel_h, kernel_w = d.kernel_w;
  const int dilation_h = d.dilation_h;
  const int iy0 = window::origin(oy, d.stride_h, d.pad_top);
  const int ix0 = window::origin(ox, d.stride_w, d.pad_left);
  const std::int64_t pitch = std::int64_t(in_w) * c;
  if (d.dilation_w != 1) {
    for (int i = 0; i < kernel_h; ++i) {
      dst = im2col_kernel_row(d, input_row(d, image, iy0 + i * dilation_h), ix0, dst, pack);
    }
    return dst;
  }
  // Without dilation the inside taps [begin, end) are the same run of every kernel row.
  const auto taps = window::taps_inside(ix0, kernel_w, 1, in_w);
  const int left = taps.begin * c, inside = taps.count() * c, right = (kernel_w - taps.end) * c;
  const TIn* run = inside > 0 ? image + std::int64_t(ix0 + taps.begin) * c : image;
  for (int i = 0; i < kernel_h; ++i) {
    const int iy = iy0 + i * dilation_h;
    if (iy < 0 || iy >= in_h) {
      dst = pack.zero(dst, left + inside + right);
      continue;
    }
    dst = pack.zero(dst, left);
    dst = pack.copy(dst, run + iy * pitch, inside);
    dst = pack.zero(dst, right);
  }
  return dst;
}

/// Walks the output pixels of one image in row-major order and knows the output columns whose
/// window columns lie wholly inside the input (for every row: with dilation_w == 1 their kernel
/// rows are contiguous runs of the input, which kernels may expand without border checks once
/// the row itself is inside).
class pixel_cursor {
 public:
  /// A cursor to assign before use (atoms start one per image, at its first block).
  pixel_cursor() = default;
  explicit pixel_cursor(const reference::conv2d_dims& d)
      : out_w_(d.out_w),
        columns_(window::interior_outputs(d.out_w, d.stride_w, d.pad_left, d.kernel_w, d.dilation_w, d.in_w)) {}

  int y() const { return oy_; }
  int x() const { return ox_; }
  /// Whether the current pixel's window columns are inside the input (its rows may not be).
  bool columns_inside() const { return ox_ >= columns_.begin && ox_ < columns_.end; }
  void next() {
    if (++ox_ == out_w_) ox_ = 0, ++oy_;
  }

 private:
  int out_w_ = 0;
  window::tap_range<int> columns_{0, 0};
  int oy_ = 0, ox_ = 0;
};

}  // namespace tessera::kernels::algorithm
