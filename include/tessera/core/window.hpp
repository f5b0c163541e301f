// Window arithmetic of convolutions and pools along one axis: the one home of these formulas.
//
// The ops (output shapes), the planner (tile halos), the schedule (tile boxes), the kernels
// (im2col, padded planes, interior fast paths) and onnx2hpp (shape checks, in 64 bits) all call
// these functions, so a rule such as "the padding reads as zero" or "the last window may not
// run past the padded input" is written once. Every function is a template over the integer
// type: the library plans in `int`, onnx2hpp validates untrusted sizes in `std::int64_t`.
#pragma once

namespace tessera::window {

/// Input extent that `outputs` consecutive windows cover (padding included):
/// (outputs - 1) * stride + (kernel - 1) * dilation + 1. E.g. 4 outputs, stride 2, 3x3: 9.
template <class Int>
constexpr Int span(Int outputs, Int stride, Int kernel, Int dilation) {
  return (outputs - 1) * stride + (kernel - 1) * dilation + 1;
}

/// Output extent by ONNX's floor rule: the windows that fit the padded input,
/// (in + pad_before + pad_after - (kernel - 1) * dilation - 1) / stride + 1, and 0 when not even
/// one fits. E.g. 32 + 1 + 1 - 2 - 1 = 31, / 2 + 1 = 16.
template <class Int>
constexpr Int output_extent(Int in, Int pad_before, Int pad_after, Int kernel, Int stride, Int dilation) {
  const Int room = in + pad_before + pad_after - (kernel - 1) * dilation - 1;
  return room < 0 ? Int{0} : room / stride + 1;
}

/// The input coordinate of tap 0 of output `o`'s window: o * stride - pad_before (negative
/// inside the leading padding).
template <class Int>
constexpr Int origin(Int o, Int stride, Int pad_before) {
  return o * stride - pad_before;
}

/// Taps [begin, end) of a window starting at input coordinate `first` whose inputs
/// first + t * dilation lie in [0, size); the others read the padding. begin == end when none.
template <class Int>
struct tap_range {
  Int begin, end;
  constexpr Int count() const { return end - begin; }
};
template <class Int>
constexpr tap_range<Int> taps_inside(Int first, Int kernel, Int dilation, Int size) {
  Int begin = first >= 0 ? Int{0} : (-first + dilation - 1) / dilation;
  Int end = first > size - 1 ? Int{0} : (size - 1 - first) / dilation + 1;
  if (end > kernel) end = kernel;
  if (begin > end) begin = end;
  return {begin, end};
}

/// Outputs [begin, end) whose whole window lies inside the input (no tap in the padding): the
/// interior that kernels run without border checks. begin == end when there is none.
template <class Int>
constexpr tap_range<Int> interior_outputs(Int outputs, Int stride, Int pad_before, Int kernel, Int dilation,
                                          Int size) {
  Int begin = (pad_before + stride - 1) / stride;  // first o with o * stride >= pad_before
  const Int room = size - (kernel - 1) * dilation + pad_before;  // o * stride < room fits
  Int end = room > 0 ? (room - 1) / stride + 1 : Int{0};
  if (end > outputs) end = outputs;
  if (begin > end) begin = end;
  return {begin, end};
}

}  // namespace tessera::window
