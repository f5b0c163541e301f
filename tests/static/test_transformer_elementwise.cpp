// Compile-only tests of the transformer-era elementwise and reduction nodes (iHardswish, iGELU,
// ReduceSum/ReduceMean, IntegerDiv, Gather): the rules on hand-computed values, node checks and
// a network of them. This file compiling is the test.
#include <array>
#include <string_view>

#include <tessera/tessera.hpp>

namespace {

namespace ref = tessera::kernels::reference;

// ---------------------------------------------------------------- the rounding divisions
static_assert(tessera::divide_round_half_away(5, 2) == 3 && tessera::divide_round_half_away(-5, 2) == -3);
static_assert(tessera::divide_round_half_away(7, 4) == 2 && tessera::divide_round_half_away(-7, 4) == -2);
static_assert(tessera::divide_round_half_away(4, 3) == 1 && tessera::divide_round_half_away(-4, 3) == -1);
static_assert(tessera::divide_round_half_away(0, 3) == 0);
// A power-of-two length shifts (half up): -16/32 is 0 by the shift, -1 half away from zero.
static_assert(tessera::integer_mean(-16, 32) == 0 && tessera::integer_mean(16, 32) == 1);
static_assert(tessera::integer_mean(-17, 32) == -1 && tessera::integer_mean(15, 32) == 0);
static_assert(tessera::integer_mean(-3, 6) == -1 && tessera::integer_mean(-2, 6) == 0 && tessera::integer_mean(3, 6) == 1);
static_assert(tessera::integer_mean(-7, 1) == -7);

// ---------------------------------------------------------------- iHardswish (corpus constants)
inline constexpr ref::hardswish_params hs{765, 1530, 33};
static_assert(ref::hardswish_value(-127, hs) == -127 * (638 * 33));
static_assert(ref::hardswish_value(-800, hs) == 0);         // gate clamps at 0
static_assert(ref::hardswish_value(1000, hs) == 1000 * 1530 * 33);  // gate clamps at six
static_assert(ref::hardswish_value(0, hs) == 0);

// ---------------------------------------------------------------- iGELU (ICCT constants)
inline constexpr ref::gelu_params ge{-40, 1743};
// x = 10: q = 10, d = -30, L = 1743 - 900 = 843, y = 10 * (2586 >> 1) = 12930.
static_assert(ref::gelu_value(10, ge) == 12930);
// x = -10: L = -843, y = -10 * (900 >> 1) = -4500.
static_assert(ref::gelu_value(-10, ge) == -4500);
// |x| beyond -b: d = 0, L = sign(x) * one: y = x * one for x > 0, 0 for x < 0.
static_assert(ref::gelu_value(100, ge) == 100 * 1743 && ref::gelu_value(-100, ge) == 0);
// x = -1: d = -39, L = -(1743 - 1521) = -222, (1743 - 222) >> 1 = 760, y = -760.
static_assert(ref::gelu_value(-1, ge) == -760);

// ---------------------------------------------------------------- IntegerDiv
inline constexpr ref::integer_div_params div{1, 0, 1};
static_assert(ref::integer_div_value(5, 2, div) == 3 && ref::integer_div_value(-5, 2, div) == -3);
static_assert(ref::integer_div_value(7, 0, div) == 0);
// Delta*eta*a / (eta*b + eps): 4*2*3 / (2*5 + 1) = 24 / 11 = 2.18 -> 2.
static_assert(ref::integer_div_value(3, 5, {4, 1, 2}) == 2);

// ---------------------------------------------------------------- reductions
constexpr std::array<std::int8_t, 12> values{1, -2, 3, -4, 5, -6, 7, -8, 9, -10, 11, -12};  // {2, 3, 2}
template <ref::reduce_op Op, std::size_t N>
constexpr std::array<std::int32_t, N> reduced(std::array<bool, tessera::max_rank> axes) {
  std::array<std::int32_t, N> out{};
  ref::reduce(Op, {3, {2, 3, 2}, axes}, values.data(), out.data());
  return out;
}
// Over axis 1: {1+3+5, -2-4-6, 7+9+11, -8-10-12}.
static_assert(reduced<ref::reduce_op::sum, 4>({false, true, false}) == std::array<std::int32_t, 4>{9, -12, 27, -30});
// Means over 3 (not a power of two): 3, -4, 9, -10.
static_assert(reduced<ref::reduce_op::mean, 4>({false, true, false}) == std::array<std::int32_t, 4>{3, -4, 9, -10});
// Over axes 0 and 2 (L = 4, a shift): each sum is -2 (1 - 2 + 7 - 8, ...), (-2 + 2) >> 2 = 0;
// over axis 0 (L = 2): (1 + 7 + 1) >> 1 = 4, (-2 - 8 + 1) >> 1 = -5, ...
static_assert(reduced<ref::reduce_op::sum, 3>({true, false, true}) == std::array<std::int32_t, 3>{-2, -2, -2});
static_assert(reduced<ref::reduce_op::mean, 3>({true, false, true}) == std::array<std::int32_t, 3>{0, 0, 0});
static_assert(reduced<ref::reduce_op::mean, 6>({true, false, false}) ==
              std::array<std::int32_t, 6>{4, -5, 6, -7, 8, -9});

// ---------------------------------------------------------------- gather
constexpr std::array<std::int8_t, 6> gather_in{1, 2, 3, 4, 5, 6};  // {2, 3}
constexpr std::array<std::int32_t, 2> picks{2, 0};
constexpr auto gathered = [] {
  std::array<std::int8_t, 4> out{};
  ref::gather({2, 3, 1}, gather_in.data(), picks.data(), 2, out.data());
  return out;
}();
static_assert(gathered == std::array<std::int8_t, 4>{3, 1, 6, 4});

// ---------------------------------------------------------------- nodes and a network
inline constexpr tessera::requant_constants<1> rq{{1}, {0}, 16, -128, 127, 1};
inline constexpr tessera::constant<std::int32_t, 1> class_token{{0}};
inline constexpr tessera::tensor_table<9> tensors{{{
    {"x", tessera::dtype::s8, {1, 4, 10}},
    {"hs", tessera::dtype::s8, {1, 4, 10}},
    {"ge", tessera::dtype::s32, {1, 4, 10}},
    {"mean", tessera::dtype::s8, {1, 10}},
    {"sum", tessera::dtype::s32, {1, 1, 10}},
    {"cls", tessera::dtype::s8, {1, 10}},
    {"den", tessera::dtype::s8, {1, 1, 10}},
    {"quot", tessera::dtype::s32, {1, 4, 10}},
    {"narrow_sum", tessera::dtype::s8, {1, 1, 10}},
}}};
using hardswish = tessera::op::hardswish<"hs", {.input = 0, .output = 1, .three = 765, .six = 1530, .one_over_six = 33}, rq>;
using gelu = tessera::op::gelu<"ge", {.input = 1, .output = 2, .b = -40, .one = 1743}>;
using mean = tessera::op::reduce_mean<"mean", {.input = 1, .output = 3, .axes = {false, true}, .keepdims = false}>;
using sum = tessera::op::reduce_sum<"sum", {.input = 1, .output = 4, .axes = {false, true}, .keepdims = true}>;
using cls = tessera::op::gather<"cls", {.input = 1, .output = 5, .axis = 1}, class_token>;
using quotient = tessera::op::integer_div<"div", {.a = 1, .b = 6, .output = 7, .delta = 16, .eps = 1, .eta = 2}>;
using network = tessera::network<tensors, tessera::graph_inputs<0, 6>, tessera::graph_outputs<2, 3, 4, 5, 7>, hardswish,
                                 gelu, mean, sum, cls, quotient>;

static_assert(hardswish::check<tensors>().ok() && gelu::check<tensors>().ok() && mean::check<tensors>().ok());
static_assert(sum::check<tensors>().ok() && cls::check<tensors>().ok() && quotient::check<tensors>().ok());
static_assert(tessera::name_of(hardswish::kind) == std::string_view("iHardswish"));
static_assert(hardswish::tile_geometry_of<tensors>().kind == tessera::tiling_kind::tiled);
// Without the requant the int32 output is the only one that fits.
static_assert(tessera::op::hardswish<"h", {.input = 0, .output = 1, .three = 765, .six = 1530, .one_over_six = 33}>::
                  check<tensors>().error == tessera::check_error::dtype);
// iGELU's b must be negative.
static_assert(tessera::op::gelu<"g", {.input = 1, .output = 2, .b = 40, .one = 1743}>::check<tensors>().error ==
              tessera::check_error::dtype);
// A sum of 4 int8 values does not fit int8; keepdims false has no extent-1 axis.
static_assert(tessera::op::reduce_sum<"s", {.input = 1, .output = 8, .axes = {false, true}}>::check<tensors>().error ==
              tessera::check_error::dtype);
static_assert(tessera::op::reduce_sum<"s", {.input = 1, .output = 4, .axes = {false, true}, .keepdims = false}>::
                  check<tensors>().error == tessera::check_error::output_shape);
// An index beyond the axis.
inline constexpr tessera::constant<std::int32_t, 1> bad_index{{4}};
static_assert(tessera::op::gather<"c", {.input = 1, .output = 5, .axis = 1}, bad_index>::check<tensors>().error ==
              tessera::check_error::constant_size);
// b broadcasts along axis 1 (stride 0).
static_assert(quotient::dims<tensors>().b_stride[1] == 0 && quotient::dims<tensors>().a_stride[1] == 10);
static_assert(network::node_count == 6);
static_assert(network::constant_bytes() == 8 + 4);

}  // namespace
