// The rounding of means (docs/semantics.md, "Rounding of means"): every kernel family's dispatch
// runs the reference kernel for a half-to-even requantization (or one with a divisor: exact
// means), and the family's own kernel for the same requantization rounded half up (where its
// traits accept the case); the rule itself, round_divide's cases included. Compile-only:
// the traits of every family compile on every host.
#include <cstdint>

#include <tessera/graph/constant.hpp>
#include <tessera/kernels/dispatch.hpp>

namespace {

using tessera::rounding;
using tessera::kernels::conv_variant;
using tessera::kernels::kernel_family;

// A 2x2 global average pool of 16 channels as onnx2hpp lowers it: a depthwise conv of ones and a
// per-tensor requantization with mul / 2^shift = 1/4.
constexpr tessera::kernels::reference::conv2d_dims pool_2x2{1, 2, 2, 16, 1, 1, 16, 2, 2, 1, 1, 1, 1, 0, 0, 16};
inline constexpr tessera::requant_constants<1> even{{1 << 30}, {0}, 32, -128, 127, 1, rounding::half_even, 0};
inline constexpr tessera::requant_constants<1> up{{1 << 30}, {0}, 32, -128, 127, 1};

static_assert(up.params().mode == rounding::half_up, "requant_constants: half up is the default");
static_assert(even.params().mode == rounding::half_even && even.params().zero_point == 0);

template <kernel_family F>
constexpr bool mean_runs_on_reference() {
  using s8 = std::int8_t;
  return tessera::kernels::choose_conv2d<F, s8, s8, s8>(pool_2x2, even.params()) == conv_variant::reference &&
         tessera::kernels::choose_gemm<F, s8, s8, s8>({1, 16, 4}, even.params()) == kernel_family::reference &&
         tessera::kernels::choose_matmul<F, s8, s8, s8>({1, 16, 4, 0, {}, {}, {}}, even.params()) ==
             kernel_family::reference;
}
static_assert(mean_runs_on_reference<kernel_family::reference>());
static_assert(mean_runs_on_reference<kernel_family::x86>());
static_assert(mean_runs_on_reference<kernel_family::arm_dsp>());
static_assert(mean_runs_on_reference<kernel_family::arm_mve>());
static_assert(mean_runs_on_reference<kernel_family::rv32>());
static_assert(mean_runs_on_reference<kernel_family::rvv>());

// Half up keeps each family's own depthwise kernel where it had one (rv32 leaves depthwise
// layers to the reference in every case).
template <kernel_family F>
constexpr bool half_up_keeps_family() {
  using s8 = std::int8_t;
  return tessera::kernels::choose_conv2d<F, s8, s8, s8>(pool_2x2, up.params()) != conv_variant::reference;
}
static_assert(half_up_keeps_family<kernel_family::x86>());
static_assert(half_up_keeps_family<kernel_family::arm_dsp>());
static_assert(half_up_keeps_family<kernel_family::arm_mve>());
static_assert(half_up_keeps_family<kernel_family::rvv>());

// The rule: ties to the result whose distance from the zero point is even.
static_assert(tessera::requantize(10, 1, 0, 2, -128, 127, rounding::half_even) == 2);      // 2.5 -> 2
static_assert(tessera::requantize(10, 1, 0, 2, -128, 127) == 3);                          // half up: 3
static_assert(tessera::requantize(10, 1, 4, 2, -128, 127, rounding::half_even, 1) == 3);  // 3.5 = 2.5 + 1: 2 + 1
static_assert(tessera::requantize(-6, 1, 0, 2, -128, 127, rounding::half_even) == -2);    // -1.5 -> -2
static_assert(tessera::requantize(1 << 20, 1, 0, 2, 0, 255, rounding::half_even, 255) == 255);  // clamp

// Exact means: t / (divisor * 2^shift). A 2x3 window (count 6 = 3 * 2) of equal scales is mul 1,
// shift 1, divisor 3: sums 6k + 3 are exact ties, rounded to the even neighbour (half up: up).
static_assert(tessera::round_divide(9, 3, 1, rounding::half_even) == 2);     // 1.5 -> 2
static_assert(tessera::round_divide(15, 3, 1, rounding::half_even) == 2);    // 2.5 -> 2
static_assert(tessera::round_divide(15, 3, 1) == 3);                         // half up: 3
static_assert(tessera::round_divide(-3, 3, 1, rounding::half_even) == 0);    // -0.5 -> 0
static_assert(tessera::round_divide(-9, 3, 1, rounding::half_even) == -2);   // -1.5 -> -2
static_assert(tessera::round_divide(-9, 3, 1) == -1);                        // half up: -1
static_assert(tessera::round_divide(-10, 3, 1, rounding::half_even) == -2);  // -1.67 -> -2
static_assert(tessera::round_divide(-8, 3, 1, rounding::half_even) == -1);   // -1.33 -> -1
static_assert(tessera::round_divide(7, 9, 0, rounding::half_even) == 1);     // odd divisor, no shift: 0.78 -> 1
static_assert(tessera::round_divide(10, 1, 2, rounding::half_even) == 2);    // divisor 1: round_shift's rule
// The zero point counts the parity from it, as above: add = zy * 6 (t = 15 + 6: 2.5 + 1 -> 3).
static_assert(tessera::requantize(15, 1, 6, 1, -128, 127, rounding::half_even, 1, 3) == 3);
// A requantization with a divisor runs the reference kernel in every family, half up or not.
inline constexpr tessera::requant_constants<1> divided{{1}, {0}, 1, -128, 127, 1, rounding::half_up, 0, 3};
static_assert(!tessera::kernels::families_round_like(divided.params()));

}  // namespace
