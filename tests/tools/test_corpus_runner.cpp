// The corpus runner's own checks (tests/support/corpus_runner.hpp, issue 16 item 10): its
// guard zones catch an executor that writes outside its buffer, and a linear layer's stored
// activation is matched against the bias Add that --no-fuse keeps as its own node.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include "corpus_runner.hpp"

using tessera::testing::guarded_buffer;

TEST_CASE("guarded_buffer: exact size, aligned, zeroed; writes outside are caught") {
  for (std::size_t bytes : {0u, 1u, 15u, 16u, 1000u}) {
    guarded_buffer b(bytes, "arena");
    REQUIRE(reinterpret_cast<std::uintptr_t>(b.data()) % tessera::arena_alignment == 0);
    for (std::size_t i = 0; i < bytes; ++i) REQUIRE(b.data()[i] == std::byte{0});
    std::fill_n(b.data(), bytes, std::byte{0xFF});  // the whole buffer is the executor's
    REQUIRE_NOTHROW(b.check());
  }
#if !defined(__SANITIZE_ADDRESS__)  // under ASan the guards are poisoned: the write itself stops the test
  {
    guarded_buffer b(100, "L1");
    b.data()[100] = std::byte{0};  // one past the end: was within the old 16 bytes of slack
    REQUIRE_THROWS_WITH(b.check(), "the executor wrote after its L1 buffer of 100 bytes");
  }
  {
    guarded_buffer b(100, "L2");
    b.data()[-1] = std::byte{0};
    REQUIRE_THROWS_WITH(b.check(), "the executor wrote before its L2 buffer of 100 bytes");
  }
#endif
}

TEST_CASE("kind_matches: a linear layer's output is its Gemm/MatMul's or its bias Add's") {
  using tessera::testing::detail::kind_matches;
  CHECK(kind_matches("lin_pass_0", "Gemm"));
  CHECK(kind_matches("lin_pass_0", "MatMul"));
  CHECK(kind_matches("lin_pass_0", "Add"));  // --no-fuse: the MatMul's bias Add is its own node
  CHECK_FALSE(kind_matches("lin_pass_0", "Conv"));
  CHECK(kind_matches("conv2d_pass_1", "Conv"));
  CHECK_FALSE(kind_matches("conv2d_pass_1", "Add"));
}
