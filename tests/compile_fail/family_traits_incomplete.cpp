// expect-error: family_traits<F> lacks a member every family declares
// A new kernel family whose traits forget members (here everything but the micro-tiles): the
// first layer that asks the family for a kernel fails with the message of kernels/concepts.hpp.
#include <tessera/kernels/dispatch.hpp>

namespace tessera::kernels {
inline constexpr auto new_family = static_cast<kernel_family>(200);
template <>
struct family_traits<new_family> {
  static constexpr micro_tile conv_tile{4, 2, 4};
  static constexpr micro_tile depthwise_tile{4, 1, 4};
  static constexpr micro_tile gemm_tile{4, 2, 4};
};
}  // namespace tessera::kernels

constexpr tessera::kernels::reference::gemm_dims dims{1, 10, 16};
constexpr auto chosen =
    tessera::kernels::choose_gemm<tessera::kernels::new_family, std::int8_t, std::int8_t, std::int8_t>(dims, {});

int main() { return static_cast<int>(chosen); }
