// Host time of one converted network with the x86 kernels, per op and kernel: where a
// network's time goes on the host (issue 14: MobileNetV2's zero-point Pad pass; AVX2 against
// SSE4.1). Built once per instruction set (benchmarks/CMakeLists.txt); prints a table.
//
//   bench_host_model_<model>_<isa> [runs]
//
// Times are wall time on a shared machine: compare ratios between rows and builds, not the
// absolute figures. The input is a fixed pseudo-random sample: the kernels take no
// data-dependent branches, so the values do not change the time.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <tessera/tessera.hpp>

#include TESSERA_MODEL_HEADER

namespace {

namespace model = TESSERA_MODEL;
using network = model::network;
using run_network = tessera::executor<network>;
using clock_type = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

/// Records the time since the previous node finished (the executor calls it after each node).
struct node_timer {
  std::vector<std::vector<double>>* per_node;
  clock_type::time_point* last;
  void operator()(int node, tessera::tensor_id, const void*) const {
    const auto now = clock_type::now();
    auto& samples = (*per_node)[static_cast<std::size_t>(node)];
    // One observer call per output: only the first of a node measures it.
    if (samples.size() < sample_index + 1)
      samples.push_back(std::chrono::duration<double, std::micro>(now - *last).count());
    *last = now;
  }
  std::size_t sample_index = 0;
};

}  // namespace

int main(int argc, char** argv) {
  static_assert(network::inputs.size() == 1, "one input");
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 30;

  std::vector<network::input_t<0>> input(network::input_elements<0>);
  std::uint32_t state = 12345;
  for (auto& v : input) {
    state = state * 1664525u + 1013904223u;
    v = static_cast<network::input_t<0>>(state >> 24);
  }
  std::vector<std::vector<std::byte>> outputs;
  typename run_network::outputs_t out{};
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (outputs.emplace_back(network::template output_elements<I> * sizeof(network::template output_t<I>)), ...);
    ((out[I] = outputs[I].data()), ...);
  }(std::make_index_sequence<network::outputs.size()>{});

  alignas(16) static std::byte arena[run_network::arena_bytes];
  std::vector<std::vector<double>> per_node(network::node_count);
  std::vector<double> totals;
  run_network::run(arena, {input.data()}, out);  // warm-up
  for (int r = 0; r < runs; ++r) {
    auto start = clock_type::now();
    const auto begin = start;
    run_network::run(arena, {input.data()}, out, node_timer{&per_node, &start, static_cast<std::size_t>(r)});
    totals.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - begin).count());
  }

  // Per op and kernel: the sum over nodes of each node's median.
  struct row {
    int nodes = 0;
    double us = 0;
  };
  std::map<std::string, row> rows;
  double node_sum = 0;
  for (std::size_t n = 0; n < network::node_count; ++n) {
    const auto& s = network::summary.nodes[n];
    const char* kernel = s.kernel[static_cast<std::size_t>(tessera::kernels::native_family)];
    const std::string key = fmt::format("{:<14} {}", tessera::name_of(s.kind), kernel != nullptr ? kernel : "-");
    const double us = median(per_node[n]);
    rows[key].nodes += 1;
    rows[key].us += us;
    node_sum += us;
  }
  std::vector<std::pair<std::string, row>> sorted(rows.begin(), rows.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second.us > b.second.us; });
  fmt::print("{} on the host, {} ({} runs; arena {} bytes): {:.3f} ms per inference (median)\n",
             TESSERA_BENCH_NAME, TESSERA_BENCH_ISA, runs, run_network::arena_bytes, median(totals));
  fmt::print("{:<28} {:>6} {:>10} {:>7}\n", "op / kernel", "nodes", "us", "share");
  for (const auto& [key, r] : sorted)
    fmt::print("{:<28} {:>6} {:>10.1f} {:>6.1f}%\n", key, r.nodes, r.us, node_sum > 0 ? 100.0 * r.us / node_sum : 0.0);
  return 0;
}
