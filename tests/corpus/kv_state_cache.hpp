// The KV-cache check shared by the state tests (kv_state.cpp, kv_state_tiled.cpp): rows
// [0, length) of every cache of a state equal a trajectory's K/V rows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

namespace tessera::testing {

/// Differences between `s`'s caches (buffers 2l and 2l + 1: layer l's keys and values, each
/// [1, heads, capacity, hd]) and the trajectory's rows `k_rows`, `v_rows` ([layers, steps,
/// heads, hd]) over the state's positions.
template <class State, class Rows>
int cache_differences(const State& s, const Rows& k_rows, const Rows& v_rows, int steps, int heads, int head_dim) {
  int wrong = 0;
  const auto check = [&]<std::size_t B>(std::integral_constant<std::size_t, B>) {
    constexpr int layer = static_cast<int>(B / 2);
    const Rows& rows = B % 2 == 0 ? k_rows : v_rows;
    const auto* cache = s.template buffer<B>();
    for (int h = 0; h < heads; ++h)
      for (int p = 0; p < s.length(); ++p)
        for (int d = 0; d < head_dim; ++d) {
          const auto expected =
              static_cast<std::int64_t>(rows[static_cast<std::size_t>(((layer * steps + p) * heads + h) * head_dim + d)]);
          wrong += cache[(h * State::capacity + p) * head_dim + d] != expected;
        }
  };
  [&]<std::size_t... B>(std::index_sequence<B...>) {
    (check(std::integral_constant<std::size_t, B>{}), ...);
  }(std::make_index_sequence<State::buffer_count>{});
  return wrong;
}

}  // namespace tessera::testing
