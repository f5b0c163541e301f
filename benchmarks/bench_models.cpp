// Model benchmark: prints one table row per model (see CMakeLists.txt for what is measured).
//
// Compile time: the benchmark writes a small program that includes the model's header and
// instantiates its flat executor and its tiled executor planned for the GAP8 preset, and
// times `g++ -std=c++20 -O2 -c` on it with /usr/bin/time
// (wall seconds and peak resident memory of the compiler). Report these as measured on this
// machine; they vary with load, unlike the byte counts.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <tessera/target/target.hpp>

#include "model_list.hpp"

namespace {

struct compile_cost {
  double seconds = -1;
  long peak_kib = -1;
};

compile_cost measure_compile(const model_row& row) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "tessera_bench_compile";
  fs::create_directories(dir);
  const fs::path source = dir / (row.name + ".cpp");
  const fs::path stats = dir / (row.name + ".time");
  std::ofstream(source) << "#include \"" << row.header << "\"\n"
                        << "std::size_t arena_bytes() { return tessera::executor<" << row.network_type
                        << ">::arena_bytes; }\n"
                        << "void run(std::byte* a, const void* i, void* o) { tessera::executor<" << row.network_type
                        << ">::run(a, {i}, {o}); }\n"
                        << "using gap8 = tessera::tiled_executor<" << row.network_type
                        << ", tessera::target<tessera::targets::gap8>>;\n"
                        << "void run_gap8(std::byte* l2, std::byte* l1, const void* i, void* o) {\n"
                        << "  tessera::dma::memcpy_policy dma; gap8::run(l2, l1, {i}, {o}, dma); }\n";
  const std::string command = fmt::format("/usr/bin/time -f '%e %M' -o {} {} -std=c++20 -O2 {} {} -c {} -o {} 2>&1",
                                          stats.string(), TESSERA_BENCH_CXX, TESSERA_BENCH_ARCH, TESSERA_BENCH_INCLUDES,
                                          source.string(), (dir / (row.name + ".o")).string());
  compile_cost cost;
  if (std::system(command.c_str()) != 0) return cost;
  std::ifstream in(stats);
  in >> cost.seconds >> cost.peak_kib;
  return cost;
}

}  // namespace

int main(int argc, char** argv) {
  const bool skip_compile = argc > 1 && std::string(argv[1]) == "--no-compile-time";
  if (std::system("test -x /usr/bin/time") != 0 && !skip_compile)
    std::fprintf(stderr, "note: /usr/bin/time missing (apt-get install time): compile time not measured\n");
  fmt::print("{:<16} {:>6} {:>11} {:>10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>7} {:<8} {:>9} {:>9} {:>9} {:>6}\n", "model",
             "layers", "MACs", "weights B", "arena B", "greedy B", "DORY B", "bound B", "bound16", "arena/", "plan",
             "host ms", "compile s", "cc MiB", "exact");
  fmt::print("{:<16} {:>6} {:>11} {:>10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>7} {:<8} {:>9} {:>9} {:>9} {:>6}\n", "", "", "",
             "", "", "", "stack", "", "B", "bound16", "", "", "", "", "");
  for (auto bench : bench_models) {
    const model_row row = bench();
    const compile_cost cost = skip_compile ? compile_cost{} : measure_compile(row);
    fmt::print("{:<16} {:>6} {:>11} {:>10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>7.3f} {:<8} {:>9.3f} {:>9.2f} {:>9.0f} {:>6}\n",
               row.name, row.layers, row.macs, row.constant_bytes, row.arena_bytes, row.greedy_bytes, row.dory_stack_bytes,
               row.lower_bound_bytes, row.aligned_bound_bytes,
               row.aligned_bound_bytes ? double(row.arena_bytes) / double(row.aligned_bound_bytes) : 1.0, row.arena_method,
               row.host_ms, cost.seconds, cost.peak_kib / 1024.0, row.golden_match ? "yes" : "no");
  }
  fmt::print("\narena: Tessera's plan (the lowest of greedy by size, first fit in three other orders, DORY's stack and a\n"
             "budgeted branch and bound; plan: the one that won); greedy: greedy by size alone (the plan before issue 15);\n"
             "DORY stack: DORY's bidirectional stack on the same buffers; bound: largest total of simultaneously live bytes;\n"
             "bound16: the same with every buffer rounded up to its 16-byte alignment (no aligned plan can use less).\n");
  fmt::print("host: native kernel family (x86 on this host), median of 15 runs; compile: g++ -std=c++20 -O2 -c of a TU that includes\n"
             "the model header and instantiates its flat and GAP8-tiled executors (wall time, peak RSS of the compiler).\n");

  fmt::print("\nTiling per target (simulated DMA; bounds: every input, filter and output of the tiled layers moved once;\n"
             "perfect overlap: cycles / max(compute cycles, DMA busy cycles of the busiest engine); act L1<>L2: L2->L1 + L1->L2 bytes less the filters;\n"
             "fusion: the selector's criterion (always: every block fused; -dw: depthwise -> pointwise blocks only) and the blocks it\n"
             "fused, depthwise first + pointwise first)\n");
  fmt::print("{:<22} {:<9} {:<8} {:<10} {:>6} {:>7} {:>8} {:>10} {:>10} {:>6} {:>10} {:>10} {:>6} {:>10} {:>9} {:>9} {:>8} {:>7} {:>8} {:>4} {:>5}\n",
             "model", "target", "solver", "fusion", "layers", "tiles", "L1 B", "L2 B", "L2->L1 B", "/bound", "L1->L2 B", "L3->L2 B",
             "/bound", "act L1<>L2", "cycles", "compute", "dma", "/perfect", "overlap", "haz", "exact");
  std::vector<std::vector<tiling_row>> all_rows;
  for (auto bench : bench_tilings) {
    all_rows.push_back(bench());
    for (const tiling_row& t : all_rows.back()) {
      const auto busiest = std::max(t.compute_cycles, t.dma_cycles);
      fmt::print("{:<22} {:<9} {:<8} {:<10} {:>6} {:>7} {:>8} {:>10} {:>10} {:>6.2f} {:>10} {:>10} {:>6.2f} {:>10} {:>9} {:>9} {:>8} {:>7.3f} {:>7.1f}% {:>4} {:>5}\n",
                 t.model, t.target, t.objective, t.fusion, t.tiled_layers, t.tiles, t.l1_bytes, t.l2_bytes, t.l2_to_l1,
                 t.load_bound ? double(t.l2_to_l1) / double(t.load_bound) : 0.0, t.l1_to_l2, t.l3_to_l2,
                 t.store_bound ? double(t.l1_to_l2) / double(t.store_bound) : 0.0,
                 t.l2_to_l1 + t.l1_to_l2 - t.filter_bytes, t.cycles, t.compute_cycles, t.dma_cycles,
                 busiest ? double(t.cycles) / double(busiest) : 1.0, 100.0 * t.overlap, t.hazards, t.exact ? "yes" : "no");
    }
  }
  // Accelerator dispatch (issue 13): the DIANA-like preset CPU only, with the digital engine,
  // and with naive accelerator tiling; "16k": the engine's memories cut to 16 kB + 4 kB.
  bool any_dispatch = false;
  for (const auto& model_rows : all_rows)
    for (const tiling_row& t : model_rows) any_dispatch = any_dispatch || !t.dispatch.empty();
  if (any_dispatch) {
    fmt::print("\nAccelerator dispatch on the DIANA-like preset (simulated cycles; engine: layers with MACs and MACs\n"
               "on the accelerators; vs cpu: against the CPU-only row of the model; layers: per node C = CPU,\n"
               "D = digital engine, A = analog array, . = runs in L2)\n");
    fmt::print("{:<28} {:<12} {:<11} {:>10} {:>8} {:>9} {:>8} {:>7} {:>4} {:>5}  {}\n", "model", "memory", "variant",
               "cycles", "vs cpu", "engine L", "of L", "MACs %", "haz", "exact", "layers");
    for (const auto& model_rows : all_rows) {
      std::uint64_t cpu = 0;
      for (const tiling_row& t : model_rows) {
        if (t.dispatch.empty()) continue;
        if (t.dispatch == "cpu only") cpu = t.cycles;
        fmt::print("{:<28} {:<12} {:<11} {:>10} {:>7.2f}x {:>9} {:>8} {:>6.1f}% {:>4} {:>5}  {}\n", t.model, t.target,
                   t.dispatch, t.cycles, t.cycles ? double(cpu) / double(t.cycles) : 0.0, t.engine_layers, t.mac_layers,
                   t.macs ? 100.0 * double(t.engine_macs) / double(t.macs) : 0.0, t.hazards, t.exact ? "yes" : "no",
                   t.assignment);
      }
    }
  }
  fmt::print("\nTile searches and the work budget (target_desc::search_budget): every search the plans pose (layers and\n"
             "fused-block candidates), solved at run time without a budget and under GCC's ({}) and clang's ({}) default\n"
             "budgets; most work: the costliest search without one (search_work units); cut: searches stopped at the budget;\n"
             "worse: of those, how many kept a worse tile than the search run to the end, and the largest loss (modelled\n"
             "cycles for the latency objective, DORY's score for DORY's)\n",
             tessera::gcc_search_budget, tessera::clang_search_budget);
  fmt::print("{:<28} {:<9} {:<8} {:>8} {:>10} {:>8} {:>8} {:>8} {:>10} {:>10} {:>10}\n", "model", "target", "solver",
             "searches", "most work", "gcc cut", "worse", "worst %", "clang cut", "worse", "worst %");
  for (auto bench : bench_searches)
    for (const search_row& r : bench())
      fmt::print("{:<28} {:<9} {:<8} {:>8} {:>10} {:>8} {:>8} {:>8.3f} {:>10} {:>10} {:>10.3f}\n", r.model, r.target,
                 r.objective, r.searches, r.most_work, r.gcc.cut, r.gcc.slower, r.gcc.worst, r.clang.cut, r.clang.slower,
                 r.clang.worst);
  return 0;
}
