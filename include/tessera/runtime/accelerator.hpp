// The driver interface of a target's accelerators (target/engine.hpp), and the host model that
// simulates them.
//
// The tiled executor moves an accelerator layer's tiles into the engine's memories with the
// same DMA steps as a CPU layer's (schedule/emit.hpp: the filters into its weight memory, the
// input tiles into its activation memory) and, at each compute step of that layer, hands the
// driver one job: configure the engine for the tile and start it, then wait for it. A vendor
// implements, for its engine(s):
//
//   static std::byte* activation_memory(int engine);  // where the engine's activation memory is mapped
//   static std::byte* weight_memory(int engine);      // ... its weight memory
//   static void start(const accelerator_job& job);    // configure (layer, tile, addresses) and start
//   static void wait(int engine);                     // block until the started job completes
//
// and names it in its target type (`using accelerators = my_driver;` beside `desc` and
// `dma_policy`).
//
// `job.geometry` describes the layer (op shape, kernel, stride, padding, bit widths), `job.tile`
// the tile (origin, extents, its share of the padding) with pointers into the engine's
// memories; the layer's bias and requantisation constants are the node's (job.layer), read
// where the model keeps them. `job.reference` is the layer's tile function with the reference
// kernels' integer semantics: the host model runs it, so a simulated engine computes exactly
// what the CPU would; a driver for real hardware ignores it. An analog engine computes its own
// integers (kernels/reference/analog_conv2d.hpp): for it the model runs `job.analog` with
// `job.numerics` instead.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <tessera/planning/tile_geometry.hpp>
#include <tessera/target/target.hpp>

namespace tessera {

/// One tile on an accelerator (see the header comment).
struct accelerator_job {
  int engine = 0;  ///< 1-based accelerator index of the target
  int layer = 0;   ///< node index in the plan's summary
  const tile_geometry* geometry = nullptr;
  tile_args tile{};
  void (*reference)(const tile_args&) = nullptr;
  /// An analog engine (numerics not exact): the layer's tile function with those numerics.
  const kernels::reference::analog_numerics* numerics = nullptr;
  void (*analog)(const tile_args&, const kernels::reference::analog_numerics&) = nullptr;
};

/// What a driver of a target's accelerators provides (see the header comment).
/// The functions are static: a device has one set of engines, as it has one DMA.
template <class D>
concept accelerator_driver = requires(const accelerator_job& job, int engine) {
  { D::activation_memory(engine) } -> std::same_as<std::byte*>;
  { D::weight_memory(engine) } -> std::same_as<std::byte*>;
  D::start(job);
  D::wait(engine);
};

namespace accel {

/// A target without accelerators.
struct none {
  static std::byte* activation_memory(int) { return nullptr; }
  static std::byte* weight_memory(int) { return nullptr; }
  static void start(const accelerator_job&) {}
  static void wait(int) {}
};

/// The host model of the accelerators of `Desc`: their memories are static arrays of their
/// capacities, a job runs the layer's reference tile function at once (the engine's time is
/// the compute model's, which the simulated DMA clock advances by), and the model counts jobs
/// per engine for the reports.
template <target_desc Desc>
struct simulated {
  static constexpr int count = Desc.accelerator_count;

  static std::byte* activation_memory(int engine) { return storage().activations[index(engine)]; }
  static std::byte* weight_memory(int engine) { return storage().weights[index(engine)]; }
  static void start(const accelerator_job& job) {
    ++storage().jobs[index(job.engine)];
    if (job.numerics != nullptr && !job.numerics->exact())
      job.analog(job.tile, *job.numerics);
    else
      job.reference(job.tile);
  }
  static void wait(int) {}
  /// Jobs run on engine `engine` since the program started (or since reset_counts()).
  static std::int64_t jobs(int engine) { return storage().jobs[index(engine)]; }
  static void reset_counts() { storage().jobs = {}; }

 private:
  static constexpr std::size_t largest(bool weights) {
    std::size_t most = 16;
    for (int e = 1; e <= count; ++e) {
      const std::size_t b = weights ? Desc.accelerator(e).weights.bytes : Desc.accelerator(e).activations.bytes;
      if (b > most) most = b;
    }
    return most;
  }
  struct memories {
    alignas(16) std::byte activations[(count > 0 ? count : 1)][largest(false)];
    alignas(16) std::byte weights[(count > 0 ? count : 1)][largest(true)];
    std::array<std::int64_t, (count > 0 ? count : 1)> jobs{};
  };
  static memories& storage() {
    static memories m{};
    return m;
  }
  static std::size_t index(int engine) { return static_cast<std::size_t>(engine - 1); }
};

}  // namespace accel

/// The accelerator driver of target type `Target`: `Target::accelerators` if it names one, the
/// host model for a target description with accelerators, else none.
template <class Target>
struct accelerators_of {
  using type = std::conditional_t<(Target::desc.accelerator_count > 0), accel::simulated<Target::desc>, accel::none>;
};
template <class Target>
  requires requires { typename Target::accelerators; }
struct accelerators_of<Target> {
  using type = typename Target::accelerators;
};

}  // namespace tessera
