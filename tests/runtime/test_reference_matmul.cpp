// Reference matmul: batch broadcasting, fused requant, randomized comparison.
#include <catch2/catch.hpp>

#include <tessera/kernels/reference/matmul.hpp>

#include <cstdint>
#include <random>
#include <vector>

using tessera::requant_params;
using tessera::kernels::reference::matmul;
using tessera::kernels::reference::matmul_dims;
using tessera::kernels::reference::matmul_scratch_bytes;

static_assert(matmul_scratch_bytes(matmul_dims{2, 2, 2, 0, {}, {}, {}}) == 0);

TEST_CASE("matmul: single 2x2 product", "[reference][matmul]") {
  // [1 2; 3 4] @ [5 6; 7 8] = [5+14, 6+16; 15+28, 18+32] = [19 22; 43 50]
  const std::int8_t a[4] = {1, 2, 3, 4};
  const std::int8_t b[4] = {5, 6, 7, 8};
  std::int32_t out[4] = {};
  matmul(matmul_dims{2, 2, 2, 0, {}, {}, {}}, a, b, requant_params{}, out, nullptr);
  CHECK(std::vector<std::int32_t>(out, out + 4) == std::vector<std::int32_t>{19, 22, 43, 50});
}

TEST_CASE("matmul: A broadcast over one batch dim, per-row requant across batches", "[reference][matmul]") {
  // A [2][2] shared (stride 0); B [2][2][2]: B0 = [5 6; 7 8], B1 = [1 0; 0 -1].
  // out0 = [19 22; 43 50];  out1 = A @ B1 = [1 -2; 3 -4]
  const std::int8_t a[4] = {1, 2, 3, 4};
  const std::int8_t b[8] = {5, 6, 7, 8, 1, 0, 0, -1};
  const matmul_dims d{2, 2, 2, 1, {2, 0, 0}, {0, 0, 0}, {4, 0, 0}};
  std::int32_t out[8] = {};
  matmul(d, a, b, requant_params{}, out, nullptr);
  CHECK(std::vector<std::int32_t>(out, out + 8) == std::vector<std::int32_t>{19, 22, 43, 50, 1, -2, 3, -4});

  // Per-row requant (length m = 2, inner n = 2): the entry is (flat / 2) % 2, so it restarts
  // with row 0 in the second batch. Row 0: mul 1; row 1: mul 2; add 0, shift 0, s8:
  //   [19 22; 86 100 | 1 -2; 6 -8]
  const std::int32_t mul[2] = {1, 2};
  const std::int32_t add[2] = {0, 0};
  const requant_params rq{.enabled = true, .mul = mul, .add = add, .length = 2, .inner = 2, .shift = 0, .lo = -128, .hi = 127};
  std::int8_t q[8] = {};
  matmul(d, a, b, rq, q, nullptr);
  CHECK(std::vector<int>(q, q + 8) == std::vector<int>{19, 22, 86, 100, 1, -2, 6, -8});
}

TEST_CASE("matmul: both operands broadcast over different batch dims", "[reference][matmul]") {
  // A shape [2][1][1][1], B shape [3][1][1] -> out [2][3][1][1]: out[i][j] = A[i] * B[j]
  //   = [2*10, 2*20, 2*30, 3*10, 3*20, 3*30]
  const std::uint8_t a[2] = {2, 3};
  const std::int8_t b[3] = {10, 20, 30};
  const matmul_dims d{1, 1, 1, 2, {2, 3, 0}, {1, 0, 0}, {0, 1, 0}};
  std::int32_t out[6] = {};
  matmul(d, a, b, requant_params{}, out, nullptr);
  CHECK(std::vector<std::int32_t>(out, out + 6) == std::vector<std::int32_t>{20, 40, 60, 30, 60, 90});
}

TEST_CASE("matmul: randomized rank-3 batch broadcasting vs. explicit numpy indexing", "[reference][matmul][random]") {
  std::mt19937 rng(4242u);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 100; ++trial) {
    const int m = uni(1, 4), n = uni(1, 4), k = uni(1, 6);
    const int rank = uni(0, 3);
    // Each operand's batch dim is either the output's or 1 (broadcast).
    int out_b[3] = {1, 1, 1}, a_b[3] = {1, 1, 1}, b_b[3] = {1, 1, 1};
    for (int i = 0; i < rank; ++i) {
      out_b[i] = uni(1, 3);
      a_b[i] = uni(0, 1) ? out_b[i] : 1;
      b_b[i] = uni(0, 1) ? out_b[i] : 1;
    }
    const int a_batches = a_b[0] * a_b[1] * a_b[2];
    const int b_batches = b_b[0] * b_b[1] * b_b[2];
    std::vector<std::int8_t> av(static_cast<std::size_t>(a_batches) * m * k);
    std::vector<std::int8_t> bv(static_cast<std::size_t>(b_batches) * k * n);
    for (auto& v : av) v = static_cast<std::int8_t>(uni(-128, 127));
    for (auto& v : bv) v = static_cast<std::int8_t>(uni(-128, 127));

    matmul_dims d{m, n, k, rank, {}, {}, {}};
    std::int64_t as = std::int64_t{m} * k, bs = std::int64_t{k} * n;
    for (int i = rank - 1; i >= 0; --i) {
      d.batch[i] = out_b[i];
      d.a_stride[i] = a_b[i] == 1 ? 0 : as;
      d.b_stride[i] = b_b[i] == 1 ? 0 : bs;
      as *= a_b[i];
      bs *= b_b[i];
    }
    const int out_batches = out_b[0] * out_b[1] * out_b[2];
    std::vector<std::int32_t> got(static_cast<std::size_t>(out_batches) * m * n);
    matmul(d, av.data(), bv.data(), requant_params{}, got.data(), nullptr);

    bool ok = true;
    for (int i0 = 0; i0 < out_b[0]; ++i0)
      for (int i1 = 0; i1 < out_b[1]; ++i1)
        for (int i2 = 0; i2 < out_b[2]; ++i2) {
          // numpy: a broadcast dim of size 1 is indexed with 0.
          const int ai = ((a_b[0] == 1 ? 0 : i0) * a_b[1] + (a_b[1] == 1 ? 0 : i1)) * a_b[2] + (a_b[2] == 1 ? 0 : i2);
          const int bi = ((b_b[0] == 1 ? 0 : i0) * b_b[1] + (b_b[1] == 1 ? 0 : i1)) * b_b[2] + (b_b[2] == 1 ? 0 : i2);
          const int oi = (i0 * out_b[1] + i1) * out_b[2] + i2;
          for (int r = 0; r < m; ++r)
            for (int c = 0; c < n; ++c) {
              std::int64_t s = 0;
              for (int t = 0; t < k; ++t) s += std::int64_t{av[(ai * m + r) * k + t]} * bv[(bi * k + t) * n + c];
              ok = ok && got[(oi * m + r) * n + c] == s;
            }
        }
    INFO("trial " << trial << " rank " << rank);
    REQUIRE(ok);
  }
}
