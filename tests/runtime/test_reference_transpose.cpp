// Reference transpose: fixed perms checked by hand, random perms checked by inversion.
#include <catch2/catch.hpp>

#include <tessera/kernels/reference/transpose.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

using tessera::kernels::reference::transpose;
using tessera::kernels::reference::transpose_dims;
using tessera::kernels::reference::transpose_scratch_bytes;

static_assert(transpose_scratch_bytes(transpose_dims{2, {2, 3}, {1, 0}}) == 0);

TEST_CASE("transpose: 2D", "[reference][transpose]") {
  // [0 1 2; 3 4 5]^T = [0 3; 1 4; 2 5]
  const std::int8_t in[6] = {0, 1, 2, 3, 4, 5};
  std::int8_t out[6] = {};
  transpose(transpose_dims{2, {2, 3}, {1, 0}}, in, out);
  CHECK(std::vector<int>(out, out + 6) == std::vector<int>{0, 3, 1, 4, 2, 5});
}

TEST_CASE("transpose: NCHW -> NHWC", "[reference][transpose]") {
  // in [1][2][2][2] with value c*4 + h*2 + w; perm {0, 2, 3, 1}: out[h][w][c] = in[c][h][w]
  //   (h,w) = (0,0): 0 4;  (0,1): 1 5;  (1,0): 2 6;  (1,1): 3 7
  const std::uint8_t in[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  std::uint8_t out[8] = {};
  transpose(transpose_dims{4, {1, 2, 2, 2}, {0, 2, 3, 1}}, in, out);
  CHECK(std::vector<int>(out, out + 8) == std::vector<int>{0, 4, 1, 5, 2, 6, 3, 7});
}

TEST_CASE("transpose: rank 3 cyclic perm", "[reference][transpose]") {
  // in [2][3][4], value a*12 + b*4 + c; perm {2, 0, 1} -> out dims [4][2][3], out[i][j][k] = in[j][k][i]
  //   out[0][0][*] = in[0][*][0] = 0 4 8;  out[0][1][*] = in[1][*][0] = 12 16 20
  //   out[3][1][2] = in[1][2][3] = 12 + 8 + 3 = 23 (the last element)
  std::int32_t in[24];
  for (int i = 0; i < 24; ++i) in[i] = i;
  std::int32_t out[24] = {};
  transpose(transpose_dims{3, {2, 3, 4}, {2, 0, 1}}, in, out);
  CHECK(std::vector<std::int32_t>(out, out + 6) == std::vector<std::int32_t>{0, 4, 8, 12, 16, 20});
  CHECK(std::vector<std::int32_t>(out + 6, out + 12) == std::vector<std::int32_t>{1, 5, 9, 13, 17, 21});
  CHECK(out[23] == 23);
}

TEST_CASE("transpose: random perms up to rank 5 are undone by the inverse perm", "[reference][transpose][random]") {
  std::mt19937 rng(5150u);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 100; ++trial) {
    const int rank = uni(1, tessera::max_rank);
    transpose_dims d{rank, {}, {}};
    int total = 1;
    for (int i = 0; i < rank; ++i) {
      d.in[i] = uni(1, 4);
      total *= d.in[i];
    }
    std::iota(d.perm.begin(), d.perm.begin() + rank, 0);
    std::shuffle(d.perm.begin(), d.perm.begin() + rank, rng);
    std::vector<std::int16_t> in(static_cast<std::size_t>(total)), mid(in.size()), back(in.size());
    for (int i = 0; i < total; ++i) in[i] = static_cast<std::int16_t>(i);
    transpose(d, in.data(), mid.data());

    // Independent check of one forward element per output position: decode the output index
    // into coordinates, map them through perm, encode the input index.
    bool ok = true;
    for (int o = 0; o < total; ++o) {
      int rem = o, in_index = 0;
      int coord_in[tessera::max_rank] = {};
      for (int i = rank - 1; i >= 0; --i) {
        const int extent = d.in[d.perm[i]];
        coord_in[d.perm[i]] = rem % extent;
        rem /= extent;
      }
      for (int ax = 0; ax < rank; ++ax) in_index = in_index * d.in[ax] + coord_in[ax];
      ok = ok && mid[o] == in[in_index];
    }

    transpose_dims inv{rank, {}, {}};
    for (int i = 0; i < rank; ++i) {
      inv.in[i] = d.in[d.perm[i]];
      inv.perm[d.perm[i]] = i;
    }
    transpose(inv, mid.data(), back.data());
    INFO("trial " << trial << " rank " << rank);
    REQUIRE(ok);
    REQUIRE(back == in);
  }
}
