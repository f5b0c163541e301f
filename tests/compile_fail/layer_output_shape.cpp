// expect-error: layer_check_failed<[^,]*"bad_conv"}, tessera::op_kind::conv, tessera::check_error::output_shape
// A conv whose declared output shape disagrees with stride and padding: one diagnostic naming
// the layer, the error and both shapes.
#include <tessera/tessera.hpp>

inline constexpr tessera::constant<std::int8_t, 9> w{{0, 0, 0, 0, 1, 0, 0, 0, 0}};
inline constexpr tessera::tensor_table<2> tensors{{{
    {"in", tessera::dtype::s8, {1, 8, 8, 1}},
    {"out", tessera::dtype::s32, {1, 8, 8, 1}},  // stride 2 gives 4x4
}}};
using net = tessera::network<tensors, tessera::graph_inputs<0>, tessera::graph_outputs<1>,
                             tessera::op::conv<"bad_conv",
                                               {.input = 0, .output = 1, .kernel_h = 3, .kernel_w = 3,
                                                .stride_h = 2, .stride_w = 2, .pad_top = 1, .pad_left = 1,
                                                .pad_bottom = 1, .pad_right = 1},
                                               w>>;
constexpr auto arena = tessera::executor<net>::arena_bytes;
