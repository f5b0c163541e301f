// Runs one generated network on a corpus case and compares it with the golden data: every
// graph output, and (optionally) every stored intermediate activation.
//
// Golden arrays are ONNX (logical) tensors; device buffers are physical. `tensor_origin` in the
// generated header maps one to the other. Activations are keyed by QuantLib module names, not
// ONNX names (corpus README), so each one is matched to an unused device tensor produced by a
// node of the same kind with the same logical shape and equal values.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

#include <tessera/dma/simulated_policy.hpp>
#include <tessera/tessera.hpp>

#include "device_values.hpp"
#include "npz.hpp"

namespace tessera::testing {

/// How a corpus case is run: the fused network (what users get), the unfused one (every
/// intermediate exists and is compared), or the fused one tiled on several targets.
enum class execution_variant { fused, unfused, tiled };

struct corpus_result {
  void merge(const corpus_result& other, const std::string& label) {
    skipped = skipped || other.skipped;
    for (const auto& f : other.failures) failures.push_back(label + ": " + f);
    outputs_checked += other.outputs_checked;
    max_difference = std::max(max_difference, other.max_difference);
    elements_compared += other.elements_compared;
    elements_different += other.elements_different;
    top1_checked += other.top1_checked;
    top1_agreed += other.top1_agreed;
    integer_outputs_exact += other.integer_outputs_exact;
    outputs_equal_to_flat += other.outputs_equal_to_flat;
  }

  bool skipped = false;             ///< a golden file is missing
  std::vector<std::string> failures;
  int outputs_checked = 0;
  int activations_checked = 0;
  int activations_total = 0;
  std::int64_t max_difference = 0;   ///< largest |got - want| over the outputs
  std::int64_t elements_compared = 0;
  std::int64_t elements_different = 0;
  int top1_checked = 0;  ///< rows compared by argmax (cases marked `classifier`)
  int top1_agreed = 0;
  int integer_outputs_exact = 0;  ///< outputs equal to outputs_integer.npz (the integer rule), when present
  /// The outputs as read (logical values, graph order): a tiled run's are held to the flat
  /// run's exactly (same_outputs_as), whatever tolerance the golden data allows.
  std::vector<std::vector<std::int64_t>> outputs;
  int outputs_equal_to_flat = 0;  ///< outputs of tiled runs equal to the flat executor's
  std::string summary() const {
    std::string s = fmt::format("{} outputs within tolerance, max |difference| {} ({} of {} elements differ), "
                                "{}/{} activations exact",
                                outputs_checked, max_difference, elements_different, elements_compared,
                                activations_checked, activations_total);
    if (top1_checked > 0) s += fmt::format(", top-1 agrees on {}/{}", top1_agreed, top1_checked);
    if (integer_outputs_exact > 0)
      s += fmt::format(", {} outputs bit-exact with the integer rule", integer_outputs_exact);
    if (outputs_equal_to_flat > 0) s += fmt::format(", {} tiled outputs equal to the flat run's", outputs_equal_to_flat);
    return s;
  }
};

namespace detail {

inline std::vector<std::int64_t> shape_vector(const shape& s) {
  return {s.dims.begin(), s.dims.begin() + s.rank};
}

/// Producer kinds that may have written an activation, from its QuantLib module name.
inline bool kind_matches(const std::string& key, const std::string& producer) {
  if (key.find("conv2d_pass") != std::string::npos) return producer == "Conv";
  // A linear layer's output is its Gemm/MatMul's, or with --no-fuse (a MatMul's bias Add its
  // own node) the bias Add's.
  if (key.find("lin_pass") != std::string::npos) return producer == "Gemm" || producer == "MatMul" || producer == "Add";
  if (key.find("act_pass") != std::string::npos || key.find("rqs_") != std::string::npos)
    return producer == "RequantShift";
  return producer != "Conv" && producer != "Gemm" && producer != "MatMul";
}

inline std::string first_difference(const std::vector<std::int64_t>& got, const std::vector<std::int64_t>& want) {
  std::size_t bad = 0, first = got.size();
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i]) {
      if (first == got.size()) first = i;
      ++bad;
    }
  if (bad == 0) return "";
  return fmt::format("{} of {} elements differ, first at {}: got {}, want {}", bad, got.size(), first, got[first],
                     want[first]);
}

/// Compares within `tolerance` (0: bit-exact): "" when every element is within it, else how
/// many are not and the first. `max_difference` gets the largest |got - want|.
inline std::string difference_beyond(const std::vector<std::int64_t>& got, const std::vector<std::int64_t>& want,
                                     std::int64_t tolerance, std::int64_t& max_difference, std::int64_t& different) {
  std::size_t bad = 0, first = got.size();
  for (std::size_t i = 0; i < got.size(); ++i) {
    const std::int64_t d = got[i] > want[i] ? got[i] - want[i] : want[i] - got[i];
    max_difference = std::max(max_difference, d);
    if (d != 0) ++different;
    if (d > tolerance) {
      if (first == got.size()) first = i;
      ++bad;
    }
  }
  if (bad == 0) return "";
  return fmt::format("{} of {} elements differ by more than {}, first at {}: got {}, want {}", bad, got.size(),
                     tolerance, first, got[first], want[first]);
}

/// Rows (over the last axis of `row` elements) whose argmax differs; the first maximum wins.
inline int argmax_disagreements(const std::vector<std::int64_t>& got, const std::vector<std::int64_t>& want,
                                std::size_t row, int& rows) {
  int bad = 0;
  for (std::size_t r = 0; row > 0 && r + row <= got.size(); r += row) {
    const auto g = std::max_element(got.begin() + static_cast<std::ptrdiff_t>(r),
                                    got.begin() + static_cast<std::ptrdiff_t>(r + row)) - got.begin();
    const auto w = std::max_element(want.begin() + static_cast<std::ptrdiff_t>(r),
                                    want.begin() + static_cast<std::ptrdiff_t>(r + row)) - want.begin();
    ++rows;
    if (g != w) ++bad;
  }
  return bad;
}

/// With TESSERA_DUMP_TENSORS=DIR, the flat fused run writes every tensor it saw that is an ONNX
/// tensor, in logical (ONNX) order, for tools/onnx2hpp/testing/ort_oracle.py, which feeds them
/// to ONNX Runtime op by op: DIR/tensors.txt has one line per tensor, "FILE NAME TYPE DIMS...",
/// FILE holding the values as little-endian int64.
template <class Net, auto const& Origins, class Seen, class Result>
void dump_tensors(const Seen& seen, Result& result) {
  const char* dir = std::getenv("TESSERA_DUMP_TENSORS");
  if (dir == nullptr || *dir == 0) return;
  std::filesystem::create_directories(dir);
  std::ofstream index(std::filesystem::path(dir) / "tensors.txt");
  int count = 0;
  for (const tensor_origin& origin : Origins) {
    const auto it = seen.find(origin.id);
    if (it == seen.end() || *origin.onnx_name == 0) continue;
    const auto values = tools::read_logical(origin, Net::tensors[origin.id].type, it->second.data());
    const std::string file = fmt::format("t{}.bin", count++);
    std::ofstream out(std::filesystem::path(dir) / file, std::ios::binary);
    out.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * 8));
    index << file << ' ' << origin.onnx_name << ' ' << name_of(Net::tensors[origin.id].type);
    for (std::int64_t d : shape_vector(origin.logical)) index << ' ' << d;
    index << '\n';
    if (!out || !index) result.failures.push_back(fmt::format("cannot write the tensor dump in {}", dir));
  }
}

}  // namespace detail

/// A zeroed buffer of exactly `bytes`, aligned to arena_alignment, between two guard zones of
/// at least `guard_bytes` filled with a pattern. `check` throws when a guard changed (the
/// executor wrote before or after its buffer); under AddressSanitizer the guards are also
/// poisoned, so a read of them stops the test at the access. (The runner used to hand out
/// the arena with up to 16 bytes of unguarded slack after it, and the graph inputs and outputs
/// in plain vectors, where a write past them went unnoticed in a Release build: issue 16.)
class guarded_buffer {
 public:
  static constexpr std::size_t guard_bytes = 64;
  static constexpr std::byte pattern{0xA5};

  guarded_buffer(std::size_t bytes, std::string name)
      : name_(std::move(name)), bytes_(bytes), storage_(guard_bytes + arena_alignment + bytes + guard_bytes, pattern) {
    const auto first = reinterpret_cast<std::uintptr_t>(storage_.data()) + guard_bytes;
    offset_ = (first + arena_alignment - 1) / arena_alignment * arena_alignment -
              reinterpret_cast<std::uintptr_t>(storage_.data());
    std::fill_n(storage_.data() + offset_, bytes_, std::byte{0});
    poison(true);
  }
  guarded_buffer(const guarded_buffer&) = delete;
  guarded_buffer& operator=(const guarded_buffer&) = delete;
  ~guarded_buffer() { poison(false); }

  std::byte* data() { return storage_.data() + offset_; }

  void check() {
    poison(false);
    const auto damaged = [&](std::size_t from, std::size_t to) {
      return std::any_of(storage_.begin() + static_cast<std::ptrdiff_t>(from),
                         storage_.begin() + static_cast<std::ptrdiff_t>(to), [](std::byte b) { return b != pattern; });
    };
    const bool before = damaged(0, offset_), after = damaged(offset_ + bytes_, storage_.size());
    poison(true);
    if (before || after)
      throw std::runtime_error(fmt::format("the executor wrote {} its {} buffer of {} bytes", before ? "before" : "after",
                                           name_, bytes_));
  }

 private:
  void poison([[maybe_unused]] bool on) {
#if defined(__SANITIZE_ADDRESS__)
    if (on) {
      ASAN_POISON_MEMORY_REGION(storage_.data(), offset_);
      ASAN_POISON_MEMORY_REGION(storage_.data() + offset_ + bytes_, storage_.size() - offset_ - bytes_);
    } else {
      ASAN_UNPOISON_MEMORY_REGION(storage_.data(), storage_.size());
    }
#endif
  }

  std::string name_;
  std::size_t bytes_;
  std::vector<std::byte> storage_;
  std::size_t offset_ = 0;
};

/// Runs a network with the flat executor (all tensors in one arena); returns the hazard count (0).
template <class Net>
struct flat_execution {
  template <class Observer>
  std::uint64_t operator()(const typename executor<Net>::inputs_t& inputs, const typename executor<Net>::outputs_t& outputs,
                           Observer&& observer) const {
    guarded_buffer arena(executor<Net>::arena_bytes, "arena");
    executor<Net>::run(arena.data(), inputs, outputs, observer);
    arena.check();
    return 0;
  }
};

/// Runs a network tiled for `Target` over the simulated DMA; returns the hazard count.
template <class Net, target_desc Target>
struct tiled_execution {
  using run = tiled_executor<Net, tessera::target<Target>>;
  template <class Observer>
  std::uint64_t operator()(const typename run::inputs_t& inputs, const typename run::outputs_t& outputs,
                           Observer&& observer) const {
    guarded_buffer l3(run::l3_bytes, "L3"), l2(run::l2_bytes, "L2"), l1(run::l1_bytes, "L1");
    dma::simulated_policy<> dma(Target);
    run::run(l3.data(), l2.data(), l1.data(), inputs, outputs, dma, observer);
    dma.finish();
    l3.check();
    l2.check();
    l1.check();
    return dma.hazard_count();
  }
};

/// Runs `Net` on the case in `dir` with `execute` (flat or tiled) and compares. `Origins` is the
/// generated `meta::origins` table. Outputs may differ from the golden data by `tolerance` per
/// element (0: bit-exact; 1 for quantized models whose golden data is the float reference of
/// the ONNX semantics); the largest difference is reported. A case directory holding a file
/// named `classifier` also needs the argmax of every output row to agree (top-1), and one
/// holding `outputs_integer.npz` (the integer rule of docs/semantics.md evaluated independently,
/// tools/onnx2hpp/testing/integer_reference.py) needs every output to equal it exactly.
template <class Net, auto const& Origins, class Execute = flat_execution<Net>>
corpus_result run_corpus_case(const std::filesystem::path& dir, bool check_activations, Execute execute = {},
                              std::int64_t tolerance = 0) {
  namespace fs = std::filesystem;
  corpus_result result;
  if (!fs::exists(dir / "inputs.npz") || !fs::exists(dir / "outputs.npz")) {
    result.skipped = true;
    return result;
  }
  const auto fail = [&](std::string message) { result.failures.push_back(std::move(message)); };
  const auto origin_of = [](tensor_id id) -> const tensor_origin* {
    for (const tensor_origin& o : Origins)
      if (o.id == id) return &o;
    return nullptr;
  };

  const auto golden_inputs = tools::read_npz((dir / "inputs.npz").string());
  const auto golden_outputs = tools::read_npz((dir / "outputs.npz").string());
  if (golden_inputs.size() < Net::inputs.size()) {
    fail(fmt::format("inputs.npz has {} arrays, the network {} inputs", golden_inputs.size(), Net::inputs.size()));
    return result;
  }

  // Inputs: logical golden values into physical device buffers of the input's type, each
  // exactly sized and guarded like the arena (checked after the run, with the outputs).
  std::vector<std::unique_ptr<guarded_buffer>> input_buffers;
  typename executor<Net>::inputs_t inputs{};
  for (std::size_t i = 0; i < Net::inputs.size(); ++i) {
    const tensor_desc& desc = Net::tensors[Net::inputs[i]];
    const tensor_origin* origin = origin_of(Net::inputs[i]);
    if (origin == nullptr) {
      fail(fmt::format("input {} has no origin entry", i));
      return result;
    }
    const auto& golden = golden_inputs[i];
    if (static_cast<std::int64_t>(golden.values.size()) != origin->logical.elements()) {
      fail(fmt::format("input {} has {} golden values for {} elements", i, golden.values.size(),
                       origin->logical.elements()));
      return result;
    }
    input_buffers.push_back(std::make_unique<guarded_buffer>(desc.bytes(), fmt::format("input {}", i)));
    for (std::size_t k = 0; k < golden.values.size(); ++k) {
      const std::int64_t v = golden.values[k];
      if (v < min_of(desc.type) || v > max_of(desc.type)) {
        fail(fmt::format("input {} value {} does not fit {}", i, v, name_of(desc.type)));
        return result;
      }
      tools::store_element(desc.type, input_buffers.back()->data(), origin->physical_index(static_cast<std::int64_t>(k)), v);
    }
    inputs[i] = input_buffers.back()->data();
  }

  std::vector<std::unique_ptr<guarded_buffer>> output_buffers;
  typename executor<Net>::outputs_t outputs{};
  for (std::size_t i = 0; i < Net::outputs.size(); ++i) {
    output_buffers.push_back(
        std::make_unique<guarded_buffer>(Net::tensors[Net::outputs[i]].bytes(), fmt::format("output {}", i)));
    outputs[i] = output_buffers.back()->data();
  }

  // Run, keeping a copy of every tensor as it is written (buffers are reused later).
  std::map<tensor_id, std::vector<std::byte>> seen;
  const std::uint64_t hazards = execute(inputs, outputs, [&](int, tensor_id t, const void* data) {
    const auto* bytes = static_cast<const std::byte*>(data);
    seen[t].assign(bytes, bytes + Net::tensors[t].bytes());
  });
  for (auto& b : input_buffers) b->check();
  for (auto& b : output_buffers) b->check();
  if (hazards != 0) fail(fmt::format("the simulated DMA reported {} hazards", hazards));
  if constexpr (std::is_same_v<Execute, flat_execution<Net>>)
    if (!check_activations) detail::dump_tensors<Net, Origins>(seen, result);

  // Outputs, in graph order.
  for (std::size_t i = 0; i < Net::outputs.size() && i < golden_outputs.size(); ++i) {
    const tensor_origin* origin = origin_of(Net::outputs[i]);
    const auto& want = golden_outputs[i];
    if (origin == nullptr) {
      fail(fmt::format("output {} has no origin entry", i));
      continue;
    }
    const auto got = tools::read_logical(*origin, Net::tensors[Net::outputs[i]].type, output_buffers[i]->data());
    result.outputs.emplace_back(got.begin(), got.end());
    if (got.size() != want.values.size()) {
      fail(fmt::format("output {} ({}) has {} elements, golden {}", i, origin->onnx_name, got.size(), want.values.size()));
      continue;
    }
    result.elements_compared += static_cast<std::int64_t>(got.size());
    if (auto diff = detail::difference_beyond(got, want.values, tolerance, result.max_difference,
                                              result.elements_different);
        !diff.empty())
      fail(fmt::format("output {} ({}): {}", i, origin->onnx_name, diff));
    else
      ++result.outputs_checked;
    if (fs::exists(dir / "classifier") && !want.shape.empty()) {
      const auto row = static_cast<std::size_t>(want.shape.back());
      int rows = 0;
      const int bad = detail::argmax_disagreements(got, want.values, row, rows);
      result.top1_checked += rows;
      result.top1_agreed += rows - bad;
      if (bad > 0)
        fail(fmt::format("output {} ({}): top-1 class differs on {} of {} rows", i, origin->onnx_name, bad, rows));
    }
  }
  if (golden_outputs.size() != Net::outputs.size())
    fail(fmt::format("outputs.npz has {} arrays, the network {} outputs", golden_outputs.size(), Net::outputs.size()));
  if (fs::exists(dir / "outputs_integer.npz")) {
    const auto exact = tools::read_npz((dir / "outputs_integer.npz").string());
    if (exact.size() != Net::outputs.size())
      fail(fmt::format("outputs_integer.npz has {} arrays, the network {} outputs", exact.size(), Net::outputs.size()));
    for (std::size_t i = 0; i < Net::outputs.size() && i < exact.size(); ++i) {
      const tensor_origin* origin = origin_of(Net::outputs[i]);
      if (origin == nullptr) continue;
      const auto got = tools::read_logical(*origin, Net::tensors[Net::outputs[i]].type, output_buffers[i]->data());
      if (got.size() != exact[i].values.size())
        fail(fmt::format("output {} ({}) has {} elements, the integer rule {}", i, origin->onnx_name, got.size(),
                         exact[i].values.size()));
      else if (auto diff = detail::first_difference(got, exact[i].values); !diff.empty())
        fail(fmt::format("output {} ({}) differs from the integer rule: {}", i, origin->onnx_name, diff));
      else
        ++result.integer_outputs_exact;
    }
  }

  if (!check_activations || !fs::exists(dir / "activations.npz")) return result;
  const auto activations = tools::read_npz((dir / "activations.npz").string());
  std::vector<bool> used(std::size(Origins), false);
  for (const auto& act : activations) {
    ++result.activations_total;
    bool matched = false;
    std::string nearest;
    for (std::size_t o = 0; o < std::size(Origins) && !matched; ++o) {
      const tensor_origin& origin = Origins[o];
      if (used[o] || !seen.contains(origin.id)) continue;
      if (detail::shape_vector(origin.logical) != act.shape) continue;
      if (!detail::kind_matches(act.name, origin.producer)) continue;
      const auto got = tools::read_logical(origin, Net::tensors[origin.id].type, seen[origin.id].data());
      if (auto diff = detail::first_difference(got, act.values); diff.empty()) {
        used[o] = true;
        matched = true;
      } else if (nearest.empty()) {
        nearest = fmt::format(" (nearest candidate {}: {})", origin.onnx_name, diff);
      }
    }
    if (matched) ++result.activations_checked;
    else fail(fmt::format("activation {} {} matches no device tensor{}", act.name, act.shape, nearest));
  }
  return result;
}

/// Holds `tiled`'s outputs to `flat`'s (the same network on the flat executor) exactly: the
/// golden data of quantized models is a float reference that allows a unit per element, which
/// would let a tiled kernel's rounding slip through.
inline void same_outputs_as(corpus_result& tiled, const corpus_result& flat) {
  if (tiled.outputs.empty() || tiled.outputs.size() != flat.outputs.size()) return;  // failures say why
  for (std::size_t i = 0; i < tiled.outputs.size(); ++i) {
    if (tiled.outputs[i].size() != flat.outputs[i].size())
      tiled.failures.push_back(fmt::format("output {} has {} elements, the flat executor's {}", i,
                                           tiled.outputs[i].size(), flat.outputs[i].size()));
    else if (auto diff = detail::first_difference(tiled.outputs[i], flat.outputs[i]); !diff.empty())
      tiled.failures.push_back(fmt::format("output {} differs from the flat executor's: {}", i, diff));
    else
      ++tiled.outputs_equal_to_flat;
  }
}

}  // namespace tessera::testing
