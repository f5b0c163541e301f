// A network with a 4 GiB tensor (a Pad from one byte to 65536 x 65537), compiled for a 32-bit
// core: the build must fail naming the tensor (graph_check_failed<tensor_too_large, -1, 1>)
// instead of wrapping its size to one byte, planning it into a small L2 and faulting at run
// time (issue 16, item 3). tests/static/test_plan.cpp checks the same network on the host.
#include <tessera/tessera.hpp>

namespace huge_pad {
inline constexpr tessera::tensor_table<2> tensors{{{{"x", tessera::dtype::s8, {1, 1, 1, 1}},
                                                    {"y", tessera::dtype::s8, {1, 65536, 65537, 1}}}}};
using net = tessera::network<tensors, tessera::graph_inputs<0>, tessera::graph_outputs<1>,
                             tessera::op::pad<"pad", {.input = 0, .output = 1, .after = {0, 65535, 65536, 0}}>>;
}  // namespace huge_pad

constexpr auto checked = huge_pad::net::structure;
