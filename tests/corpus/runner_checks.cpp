// The corpus runner (tests/support/corpus_runner.hpp) on a real corpus case, built on its own so
// that these checks need one small network, not the whole corpus executable (issue 16 item 10).
//
// Kernels/Integer/Attention has six linear layers, each a MatMul and its bias Add. QuantLib
// stores each layer's output (`..._lin_pass_N`) after the bias: fused, the Add is folded into
// the MatMul; with --no-fuse it is a node of its own, and only the Add's output holds the stored
// values. A runner that matched lin_pass only against Gemm/MatMul outputs failed this correct
// network's activation check (6 of 19 activations unmatched).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <cstddef>

#include "attention_fused.hpp"
#include "attention_unfused.hpp"
#include "corpus_runner.hpp"

#ifndef TESSERA_ATTENTION_DIR
#error "TESSERA_ATTENTION_DIR: the corpus case directory (tests/corpus/CMakeLists.txt)"
#endif

namespace {
using namespace tessera::testing;
namespace fused = attention_fused;
namespace unfused = attention_unfused;
const std::filesystem::path dir = TESSERA_ATTENTION_DIR;

/// Runs the network flat, then writes one byte just outside graph output 0 (`offset` -1: before
/// it, else at its end), as an executor with an off-by-one would.
template <class Net>
struct stray_output_write {
  std::ptrdiff_t offset;
  template <class Observer>
  std::uint64_t operator()(const typename tessera::executor<Net>::inputs_t& inputs,
                           const typename tessera::executor<Net>::outputs_t& outputs, Observer&& observer) const {
    flat_execution<Net>{}(inputs, outputs, observer);
    const auto at = offset < 0 ? offset : static_cast<std::ptrdiff_t>(Net::tensors[Net::outputs[0]].bytes());
    static_cast<std::byte*>(outputs[0])[at] = std::byte{0};
    return 0;
  }
};
}  // namespace

TEST_CASE("unfused MatMul + bias Add: every stored activation, the linear layers' included, is matched") {
  const corpus_result r = run_corpus_case<unfused::network, unfused::meta::origins>(dir, true);
  REQUIRE_FALSE(r.skipped);
  for (const auto& f : r.failures) FAIL_CHECK(f);
  CHECK(r.activations_total == 19);
  CHECK(r.activations_checked == r.activations_total);
  CHECK(r.outputs_checked == 1);
}

TEST_CASE("fused: outputs exact (the network the stray writes below run)") {
  const corpus_result r = run_corpus_case<fused::network, fused::meta::origins>(dir, false);
  for (const auto& f : r.failures) FAIL_CHECK(f);
  CHECK(r.outputs_checked == 1);
}

#if !defined(__SANITIZE_ADDRESS__)  // under ASan the guards are poisoned: the write itself stops the test
TEST_CASE("a write one byte past or before a graph output is reported") {
  using net = fused::network;
  const auto bytes = std::to_string(net::tensors[net::outputs[0]].bytes());
  CHECK_THROWS_WITH((run_corpus_case<net, fused::meta::origins>(dir, false, stray_output_write<net>{0})),
                    "the executor wrote after its output 0 buffer of " + bytes + " bytes");
  CHECK_THROWS_WITH((run_corpus_case<net, fused::meta::origins>(dir, false, stray_output_write<net>{-1})),
                    "the executor wrote before its output 0 buffer of " + bytes + " bytes");
}
#endif
