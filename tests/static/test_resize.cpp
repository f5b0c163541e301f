// Compile-only tests of Resize: the node's checks, its kernel dims, the kernel evaluated at
// compile time on the worked examples of docs/semantics.md, and a network with a Resize between
// two convolutions planned flat and tiled (the Resize runs on its L2 buffers). This file
// compiling is the test.
#include <array>
#include <string_view>

#include <tessera/tessera.hpp>

namespace {

using tessera::op::resize_coordinates;
using tessera::op::resize_mode;
using tessera::op::resize_nearest_rounding;

inline constexpr tessera::tensor_table<6> tensors{{{
    {"x", tessera::dtype::u8, {1, 5, 7, 8}},
    {"y", tessera::dtype::u8, {1, 10, 14, 8}},
    {"odd", tessera::dtype::u8, {1, 7, 9, 8}},
    {"wrong_channels", tessera::dtype::u8, {1, 10, 14, 4}},
    {"wide", tessera::dtype::s32, {1, 5, 7, 8}},
    {"wide_y", tessera::dtype::s32, {1, 10, 14, 8}},
}}};

using nearest = tessera::op::resize<"up", {.input = 0, .output = 1}>;  // torch's: asymmetric, floor
using bilinear = tessera::op::resize<"up", {.input = 0, .output = 2, .mode = resize_mode::linear,
                                            .coordinates = resize_coordinates::half_pixel}>;

static_assert(nearest::kind == tessera::op_kind::resize);
static_assert(tessera::name_of(nearest::kind) == std::string_view("Resize"));
static_assert(nearest::check<tensors>().ok());
static_assert(bilinear::check<tensors>().ok());
static_assert(tessera::op::resize<"up", {.input = 0, .output = 3}>::check<tensors>().error ==
              tessera::check_error::output_shape);  // channels change
static_assert(tessera::op::resize<"up", {.input = 4, .output = 5}>::check<tensors>().error ==
              tessera::check_error::dtype);  // int32: the linear sum is only proven for 8 bits
static_assert(tessera::op::resize<"up", {.input = 0, .output = 5}>::check<tensors>().error ==
              tessera::check_error::dtype);  // the type changes
static_assert(bilinear::dims<tensors>().out_h == 7 && bilinear::dims<tensors>().out_w == 9);
static_assert(bilinear::dims<tensors>().in_h == 5 && bilinear::dims<tensors>().channels == 8);
static_assert(bilinear::macs<tensors>() == 4 * 7 * 9 * 8 && nearest::macs<tensors>() == 0);
static_assert(bilinear::scratch_bytes<tensors>() == 0);

// The kernel at compile time: half_pixel 3 -> 7 over one row [0 70 140] (docs/semantics.md's
// example, o = 4: lo 1, hi 2, weight 878/2048: 70 + 70 * 878 / 2048 = 100.0 -> 100).
constexpr std::array<int, 7> half_pixel_row = [] {
  const std::uint8_t in[3] = {0, 70, 140};
  std::uint8_t out[7] = {};
  tessera::kernels::reference::resize({1, 1, 3, 1, 1, 7, resize_mode::linear, resize_coordinates::half_pixel, {}}, in,
                                      out);
  std::array<int, 7> r{};
  for (int i = 0; i < 7; ++i) r[static_cast<std::size_t>(i)] = out[i];
  return r;
}();
// x = -2/7 -> 0, 1/7, 4/7, 1, 10/7, 13/7, 16/7 -> 2: 0, 10, 40, 70, 100, 130, 140
static_assert(half_pixel_row == std::array<int, 7>{0, 10, 40, 70, 100, 130, 140});

// A Resize between two convolutions, as a U-Net decoder has it: flat (arena) and tiled plans.
inline constexpr tessera::constant<std::int8_t, 8 * 3 * 3 * 8> weights{};
inline constexpr tessera::requant_constants<1> rq{{1}, {0}, 4, 0, 255, 1};
inline constexpr tessera::tensor_table<4> net_tensors{{{
    {"in", tessera::dtype::u8, {1, 5, 7, 8}},
    {"c1", tessera::dtype::u8, {1, 5, 7, 8}},
    {"up", tessera::dtype::u8, {1, 10, 14, 8}},
    {"c2", tessera::dtype::u8, {1, 10, 14, 8}},
}}};
using net = tessera::network<
    net_tensors, tessera::graph_inputs<0>, tessera::graph_outputs<3>,
    tessera::op::conv<"c1", {.input = 0, .output = 1, .kernel_h = 3, .kernel_w = 3, .pad_top = 1, .pad_left = 1,
                             .pad_bottom = 1, .pad_right = 1},
                      weights, tessera::none, rq>,
    tessera::op::resize<"up", {.input = 1, .output = 2, .mode = resize_mode::linear,
                               .coordinates = resize_coordinates::half_pixel}>,
    tessera::op::conv<"c2", {.input = 2, .output = 3, .kernel_h = 3, .kernel_w = 3, .pad_top = 1, .pad_left = 1,
                             .pad_bottom = 1, .pad_right = 1},
                      weights, tessera::none, rq>>;
static_assert(tessera::arena_plan_of<net>.arena_bytes >= 5 * 7 * 8 + 10 * 14 * 8);
using tiled = tessera::tiled_executor<net, tessera::target<tessera::targets::stm32h7>>;
static_assert(!tiled::plan.layers[1].tiled, "the Resize runs on its L2 buffers");

}  // namespace
