// Reference gemm (fully connected): hand-checked cases and a randomized comparison.
#include <catch2/catch.hpp>

#include <tessera/kernels/reference/gemm.hpp>

#include <cstdint>
#include <random>
#include <vector>

using tessera::requant_params;
using tessera::kernels::reference::gemm;
using tessera::kernels::reference::gemm_dims;
using tessera::kernels::reference::gemm_scratch_bytes;

static_assert(gemm_scratch_bytes(gemm_dims{4, 8, 16}) == 0);

namespace {
// a = [1 2 3; 4 5 6] (u8), w = [1 0 -1; 2 1 0] (s8, one row per output feature)
// a @ w^T = [1-3, 2+2; 4-6, 8+5] = [-2 4; -2 13]
const std::uint8_t a[6] = {1, 2, 3, 4, 5, 6};
const std::int8_t w[6] = {1, 0, -1, 2, 1, 0};
constexpr gemm_dims d{2, 2, 3};
}  // namespace

TEST_CASE("gemm: int32 output, with and without bias", "[reference][gemm]") {
  std::int32_t out[4] = {};
  gemm(d, a, w, nullptr, requant_params{}, out, nullptr);
  CHECK(std::vector<std::int32_t>(out, out + 4) == std::vector<std::int32_t>{-2, 4, -2, 13});

  // bias broadcast over rows: [-2+100, 4-100; -2+100, 13-100]
  const std::int32_t bias[2] = {100, -100};
  gemm(d, a, w, bias, requant_params{}, out, nullptr);
  CHECK(std::vector<std::int32_t>(out, out + 4) == std::vector<std::int32_t>{98, -96, 98, -87});
}

TEST_CASE("gemm: per-tensor requant with a 64-bit product", "[reference][gemm]") {
  // mul = 2^27, shift 30: y = (acc*2^27 + 2^29) >> 30 = round_half_up(acc / 8).
  // 98*2^27 = 1.3e10 needs the 64-bit intermediate.
  //   98 -> floor(102/8) = 12;  -96 -> floor(-92/8) = -12;  -87 -> floor(-83/8) = -11 (-10.875)
  // without bias: -2 -> floor(2/8) = 0 (-0.25);  4 -> floor(8/8) = 1 (tie 0.5 -> 1);  13 -> floor(17/8) = 2
  const std::int32_t mul[1] = {1 << 27};
  const std::int32_t add[1] = {0};
  const requant_params rq{.enabled = true, .mul = mul, .add = add, .length = 1, .inner = 1, .shift = 30, .lo = -128, .hi = 127};
  const std::int32_t bias[2] = {100, -100};
  std::int8_t out[4] = {};
  gemm(d, a, w, bias, rq, out, nullptr);
  CHECK(std::vector<int>(out, out + 4) == std::vector<int>{12, -12, 12, -11});
  gemm(d, a, w, nullptr, rq, out, nullptr);
  CHECK(std::vector<int>(out, out + 4) == std::vector<int>{0, 1, 0, 2});
}

TEST_CASE("gemm: per-feature requant, shift 0, u8 clamp", "[reference][gemm]") {
  // acc (with bias) = [98 -96; 98 -87]; feature 0: mul 2 add 1; feature 1: mul 3 add 400; shift 0:
  //   [2*98+1, 3*(-96)+400; 2*98+1, 3*(-87)+400] = [197, 112; 197, 139]
  // then with add 0 on feature 1: -288 and -261 clamp to 0; and 2*98+60 = 256 clamps to 255.
  const std::int32_t bias[2] = {100, -100};
  const std::int32_t mul[2] = {2, 3};
  std::int32_t add[2] = {1, 400};
  const requant_params rq{.enabled = true, .mul = mul, .add = add, .length = 2, .inner = 1, .shift = 0, .lo = 0, .hi = 255};
  std::uint8_t out[4] = {};
  gemm(d, a, w, bias, rq, out, nullptr);
  CHECK(std::vector<int>(out, out + 4) == std::vector<int>{197, 112, 197, 139});
  add[0] = 60;
  add[1] = 0;
  gemm(d, a, w, bias, rq, out, nullptr);
  CHECK(std::vector<int>(out, out + 4) == std::vector<int>{255, 0, 255, 0});
}

TEST_CASE("gemm: randomized agreement with A @ B + C on untransposed B", "[reference][gemm][random]") {
  std::mt19937 rng(777u);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 100; ++trial) {
    const int m = uni(1, 5), n = uni(1, 7), k = uni(1, 40);
    std::vector<std::uint8_t> av(static_cast<std::size_t>(m) * k);
    std::vector<int> b_kn(static_cast<std::size_t>(k) * n);  // ONNX B as [k][n]
    std::vector<std::int32_t> bias(static_cast<std::size_t>(n));
    for (auto& v : av) v = static_cast<std::uint8_t>(uni(0, 255));
    for (auto& v : b_kn) v = uni(-128, 127);
    for (auto& v : bias) v = uni(-50000, 50000);
    std::vector<std::int8_t> w_nk(b_kn.size());
    for (int t = 0; t < k; ++t)
      for (int c = 0; c < n; ++c) w_nk[static_cast<std::size_t>(c) * k + t] = static_cast<std::int8_t>(b_kn[static_cast<std::size_t>(t) * n + c]);
    std::vector<std::int32_t> got(static_cast<std::size_t>(m) * n);
    gemm(gemm_dims{m, n, k}, av.data(), w_nk.data(), bias.data(), requant_params{}, got.data(), nullptr);
    bool ok = true;
    for (int r = 0; r < m; ++r)
      for (int c = 0; c < n; ++c) {
        std::int64_t s = bias[c];
        for (int t = 0; t < k; ++t) s += std::int64_t{av[r * k + t]} * b_kn[t * n + c];
        ok = ok && got[r * n + c] == s;
      }
    INFO("trial " << trial << " m " << m << " n " << n << " k " << k);
    REQUIRE(ok);
  }
}

TEST_CASE("gemm: per-row requant uses the flat output index (length m, inner n)", "[reference][gemm]") {
  // acc (with bias) = [98 -96; 98 -87]; row 0: add 0, row 1: add 1000; mul 1, shift 0:
  //   [98, -96; 1098, 913]
  const std::int32_t bias[2] = {100, -100};
  const std::int32_t mul[2] = {1, 1};
  const std::int32_t add[2] = {0, 1000};
  const requant_params rq{.enabled = true, .mul = mul, .add = add, .length = 2, .inner = 2, .shift = 0, .lo = -32768, .hi = 32767};
  std::int16_t out[4] = {};
  gemm(d, a, w, bias, rq, out, nullptr);
  CHECK(std::vector<int>(out, out + 4) == std::vector<int>{98, -96, 1098, 913});
}
