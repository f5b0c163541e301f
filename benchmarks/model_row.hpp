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
  std::size_t dory_stack_bytes = 0;  ///< DORY's bidirectional stack on the same buffers
  std::size_t layers = 0;
  double host_ms = 0;            ///< median host inference time
  bool golden_match = false;     ///< output equals the golden output on the sample
};
