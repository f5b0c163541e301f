// Compile-only tests of the row ops (op::softmax, op::normalization): node checks, kinds and
// names, constants, and the tiling: the solver may split rows across tiles but never a row, even
// when L1 holds less than a whole layer. This file compiling is the test.
#include <string_view>

#include <tessera/tessera.hpp>

namespace {

using tessera::check_error;
using tessera::op::norm_kind;
using tessera::op::softmax_kind;

inline constexpr tessera::tensor_table<6> tensors{{{
    {"x", tessera::dtype::s8, {1, 12, 40}},
    {"p", tessera::dtype::u8, {1, 12, 40}},
    {"y", tessera::dtype::s8, {1, 12, 40}},
    {"z", tessera::dtype::s8, {1, 12, 40}},
    {"wide", tessera::dtype::s32, {1, 12, 40}},
    {"short", tessera::dtype::u8, {1, 12, 39}},
}}};

inline constexpr tessera::constant<std::int32_t, 40> w{};
inline constexpr tessera::constant<std::int32_t, 40> b{};
inline constexpr tessera::constant<std::int32_t, 3 * 40> w_rows{};  // iNoNorm: one weight row per row % 3
inline constexpr tessera::constant<std::int32_t, 5 * 40> w_bad_rows{};  // 12 rows are not a multiple of 5

constexpr tessera::op::softmax_params ita{.kind = softmax_kind::ita_max};
constexpr tessera::op::norm_params layer{.kind = norm_kind::layer, .shift = 14};
constexpr tessera::op::norm_params no_norm{.kind = norm_kind::no_norm, .shift = 16, .mul = 425, .weight_rows = 3};

using softmax = tessera::op::softmax<"softmax", {.input = 0, .output = 1, .params = ita}>;
using norm = tessera::op::normalization<"norm", {.input = 1, .output = 2, .params = layer}, w, b>;
using nonorm = tessera::op::normalization<"nonorm", {.input = 2, .output = 3, .params = no_norm}, w_rows, b>;
using network = tessera::network<tensors, tessera::graph_inputs<0>, tessera::graph_outputs<3>, softmax, norm, nonorm>;

static_assert(softmax::kind == tessera::op_kind::ita_max && norm::kind == tessera::op_kind::i_layer_norm);
static_assert(tessera::name_of(nonorm::kind) == std::string_view("iNoNorm"));
static_assert(tessera::name_of(tessera::op::softmax<"s", {.params = {.kind = softmax_kind::ita_partial_max}}>::kind) ==
              std::string_view("ITAPartialMax"));
static_assert(softmax::check<tensors>().ok() && norm::check<tensors>().ok() && nonorm::check<tensors>().ok());
static_assert(norm::constant_bytes == 2 * 160 && nonorm::constant_bytes == 480 + 160 && softmax::constant_bytes == 0);

// Checks: a softmax writes uint8 and reads 8 bits; a norm's constants have rows of L values.
static_assert(tessera::op::softmax<"s", {.input = 0, .output = 2, .params = ita}>::check<tensors>().error ==
              check_error::dtype);
static_assert(tessera::op::softmax<"s", {.input = 4, .output = 1, .params = ita}>::check<tensors>().error ==
              check_error::dtype);
static_assert(tessera::op::softmax<"s", {.input = 0, .output = 5, .params = ita}>::check<tensors>().error ==
              check_error::output_shape);
static_assert(tessera::op::normalization<"n", {.input = 0, .output = 2, .params = layer}, w_rows, b>::check<tensors>()
                  .error == check_error::constant_size);  // weight_rows 1 but 3 rows given
static_assert(tessera::op::normalization<"n", {.input = 0, .output = 2, .params = {.kind = norm_kind::no_norm,
                                                                                    .weight_rows = 5}},
                                         w_bad_rows, b>::check<tensors>()
                  .error == check_error::constant_size);
static_assert(tessera::op::normalization<"n", {.input = 0, .output = 1, .params = layer}, w, b>::check<tensors>().error ==
              check_error::dtype);  // [-128, 127] does not fit uint8

// Tiling: rows only, whole rows (channel_step = L = 40) ...
static_assert(softmax::tile_geometry_of<tensors>().channel_step == 40 &&
              softmax::tile_geometry_of<tensors>().out_h == 12);
static_assert(nonorm::tile_geometry_of<tensors>().channel_step == 40 &&
              nonorm::tile_geometry_of<tensors>().kind == tessera::tiling_kind::tiled);
// ... also where L1 holds only a few rows: 2 rows in + 2 rows out need 4 * 48 (16-byte aligned).
constexpr tessera::tile_problem small_l1{softmax::tile_geometry_of<tensors>(), 4 * 48, false, 1, 1, 1};
static_assert(tessera::solve_tiles(small_l1).feasible && tessera::solve_tiles(small_l1).tile.c == 40 &&
              tessera::solve_tiles(small_l1).tile.h < 12);
// One row must fit: 1 row in + 1 row out = 2 * 48 bytes.
static_assert(tessera::solve_tiles(small_l1).smallest_bytes == 2 * 48);
static_assert(!tessera::solve_tiles(tessera::tile_problem{softmax::tile_geometry_of<tensors>(), 2 * 48 - 1, false, 1, 1, 1})
                   .feasible);

static_assert(network::node_count == 3);
static_assert(network::summary.nodes[1].kind == tessera::op_kind::i_layer_norm);
static_assert(network::summary.nodes[0].scratch[0] == 0);

}  // namespace
