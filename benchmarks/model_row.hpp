// One row of the model benchmark table, filled by a per-model translation unit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

struct model_row {
  std::string name;
  std::string header;            ///< generated header file name (for the compile-time probe)
  std::string network_type;      ///< fully qualified network type
  std::int64_t macs = 0;
  std::size_t constant_bytes = 0;
  std::size_t arena_bytes = 0;
  std::size_t lower_bound_bytes = 0;
  std::size_t aligned_bound_bytes = 0;  ///< the bound with every buffer rounded up to 16 B
  std::size_t greedy_bytes = 0;         ///< greedy by size alone (the plan before issue 15)
  std::size_t dory_stack_bytes = 0;     ///< DORY's bidirectional stack on the same buffers
  std::string arena_method;             ///< the planner's candidate that won
  std::size_t layers = 0;
  double host_ms = 0;            ///< median host inference time
  bool golden_match = false;     ///< output equals the golden output on the sample
};

/// One row of the tiling table: a model planned for one target and run on the simulated DMA.
struct tiling_row {
  std::string model;
  std::string target;
  std::string objective;               ///< the tile solver's objective ("dory" or "latency")
  std::string fusion;                  ///< the fusion selector's criterion and the blocks it fused ("latency:3")
  std::int64_t tiles = 0;              ///< tiles over all tiled layers
  int tiled_layers = 0;
  std::size_t l1_bytes = 0;            ///< L1 the plan uses
  std::size_t l2_bytes = 0;            ///< L2 arena + staging slots + caller buffers
  std::uint64_t l2_to_l1 = 0;          ///< bytes loaded into L1
  std::uint64_t l1_to_l2 = 0;          ///< bytes stored from L1
  std::uint64_t l3_to_l2 = 0;
  std::uint64_t load_bound = 0;        ///< every input and filter of tiled layers loaded once
  std::uint64_t filter_bytes = 0;      ///< filters of tiled layers (each moves into L1 once)
  std::uint64_t store_bound = 0;       ///< every output of tiled layers stored once
  std::uint64_t cycles = 0, compute_cycles = 0, dma_cycles = 0;
  double overlap = 0;
  std::uint64_t hazards = 0;
  bool exact = false;                  ///< output equals the untiled executor's
  /// Accelerator rows (TESSERA_BENCH_ACCELERATORS): the variant ("cpu only", "dispatched",
  /// "naive tiles"), and the layers with MACs and the MACs on the accelerators and in all.
  std::string dispatch;
  int engine_layers = 0, mac_layers = 0;
  std::int64_t engine_macs = 0, macs = 0;
  std::string assignment;  ///< per node: C (CPU), D/A (first/second accelerator), . (runs in L2)
};

/// One row of the search-budget table: every tile search a model's plans pose on one target
/// under one objective (its layers and its fused-block candidates), solved at run time without
/// a budget and under GCC's and clang's default budgets (tessera::gcc_search_budget,
/// tessera::clang_search_budget).
struct search_row {
  std::string model;
  std::string target;
  std::string objective;
  int searches = 0;
  std::int64_t most_work = 0;  ///< the costliest search's work without a budget (search_work units)
  struct under_budget {
    int cut = 0;          ///< searches stopped at the budget
    int slower = 0;       ///< of those, how many found a worse tile than the search run to the end
    double worst = 0;     ///< the largest such loss: modelled cycles (latency) or DORY's score, in %
  } gcc, clang;
};
