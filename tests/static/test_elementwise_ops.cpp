// Compile-only tests of the elementwise Mul (with input offsets) and the table lookup: node
// checks, kernel choice per family, scratch and the node summary. This file compiling is the test.
#include <string_view>

#include <tessera/tessera.hpp>

namespace {

using tessera::kernels::kernel_family;

// a (u8, zero point 128) * b (s8, zero point -3, one row broadcast), requantized to u8, then a
// table from u8 to s8.
inline constexpr tessera::requant_constants<1> mul_requant{{1 << 12}, {128 << 16}, 16, 0, 255, 1};
inline constexpr tessera::constant<std::int8_t, 256> table = [] {
  tessera::constant<std::int8_t, 256> t{};
  for (int k = 0; k < 256; ++k) t.values[static_cast<std::size_t>(k)] = static_cast<std::int8_t>(k / 2 - 64);
  return t;
}();
inline constexpr tessera::constant<std::int8_t, 255> short_table{};

inline constexpr tessera::tensor_table<5> tensors{{{
    {"a", tessera::dtype::u8, {1, 4, 4, 8}},
    {"b", tessera::dtype::s8, {1, 1, 1, 8}},
    {"product", tessera::dtype::u8, {1, 4, 4, 8}},
    {"y", tessera::dtype::s8, {1, 4, 4, 8}},
    {"wide", tessera::dtype::s32, {1, 4, 4, 8}},
}}};

using mul = tessera::op::mul<"mul", {.a = 0, .b = 1, .output = 2, .a_offset = -128, .b_offset = 3}, tessera::none,
                             mul_requant>;
using lut = tessera::op::lookup_table<"sigmoid", {.input = 2, .output = 3}, table>;
using network = tessera::network<tensors, tessera::graph_inputs<0, 1>, tessera::graph_outputs<3>, mul, lut>;

static_assert(mul::kind == tessera::op_kind::mul);
static_assert(tessera::name_of(lut::kind) == std::string_view("LookupTable"));
static_assert(mul::check<tensors>().ok());
static_assert(lut::check<tensors>().ok());
// The offsets reach the kernel's dims, and no optimized family takes a mul: the reference runs.
static_assert(mul::dims<tensors>().a_offset == -128 && mul::dims<tensors>().b_offset == 3);
static_assert(mul::family<tensors, kernel_family::x86> == kernel_family::reference);
static_assert(mul::family<tensors, kernel_family::arm_dsp> == kernel_family::reference);
static_assert(mul::family<tensors, kernel_family::arm_mve> == kernel_family::reference);
static_assert(mul::scratch_bytes<tensors, kernel_family::arm_dsp>() == 0);
// The same layer as an add without offsets runs the family's kernel.
using add = tessera::op::add<"add", {.a = 0, .b = 1, .output = 2}, tessera::none, mul_requant>;
static_assert(add::family<tensors, kernel_family::x86> == kernel_family::x86);
static_assert(tessera::op::add<"add", {.a = 0, .b = 1, .output = 2, .a_offset = 1}, tessera::none,
                               mul_requant>::family<tensors, kernel_family::x86> == kernel_family::reference);

// The table: 256 entries of the output's type, 8-bit input, same shape.
static_assert(lut::constant_bytes == 256);
static_assert(lut::scratch_bytes<tensors>() == 0);
static_assert(lut::tile_geometry_of<tensors>().kind == tessera::tiling_kind::tiled);
static_assert(tessera::op::lookup_table<"t", {.input = 2, .output = 3}, short_table>::check<tensors>().error ==
              tessera::check_error::constant_size);
static_assert(tessera::op::lookup_table<"t", {.input = 0, .output = 2}, table>::check<tensors>().error ==
              tessera::check_error::dtype);  // u8 output, int8 table
static_assert(tessera::op::lookup_table<"t", {.input = 4, .output = 3}, table>::check<tensors>().error ==
              tessera::check_error::dtype);  // int32 input

// The whole network: summary, constants, arena.
static_assert(network::node_count == 2);
static_assert(network::constant_bytes() == 8 + 256);
static_assert(network::summary.nodes[1].kind == tessera::op_kind::lookup_table);
static_assert(network::summary.nodes[0].scratch[static_cast<std::size_t>(kernel_family::x86)] == 0);
static_assert(tessera::executor<network>::arena_bytes == 128);

}  // namespace
