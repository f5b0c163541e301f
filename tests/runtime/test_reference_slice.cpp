// Reference slice: positive, negative and non-unit steps.
#include <catch2/catch.hpp>

#include <tessera/kernels/reference/slice.hpp>

#include <cstdint>
#include <vector>

using tessera::kernels::reference::slice;
using tessera::kernels::reference::slice_dims;
using tessera::kernels::reference::slice_scratch_bytes;

static_assert(slice_scratch_bytes(slice_dims{1, {6}, {3}, {0}, {2}}) == 0);

TEST_CASE("slice: 1D steps", "[reference][slice]") {
  const std::int8_t in[6] = {0, 1, 2, 3, 4, 5};
  std::int8_t out[3] = {};
  // start 5, step -2: in[5], in[3], in[1]
  slice(slice_dims{1, {6}, {3}, {5}, {-2}}, in, out);
  CHECK(std::vector<int>(out, out + 3) == std::vector<int>{5, 3, 1});
  // start 1, step 3: in[1], in[4]
  slice(slice_dims{1, {6}, {2}, {1}, {3}}, in, out);
  CHECK(std::vector<int>(out, out + 2) == std::vector<int>{1, 4});
  // full reversal: start 5, step -1
  std::int8_t rev[6] = {};
  slice(slice_dims{1, {6}, {6}, {5}, {-1}}, in, rev);
  CHECK(std::vector<int>(rev, rev + 6) == std::vector<int>{5, 4, 3, 2, 1, 0});
}

TEST_CASE("slice: 2D, one axis forward with step 2, the other reversed", "[reference][slice]") {
  // in [3][4] = 0..11; rows start 0 step 2 (rows 0, 2); cols start 3 step -1 count 3 (cols 3, 2, 1)
  //   row 0: 3 2 1;  row 2: 11 10 9
  std::uint8_t in[12];
  for (int i = 0; i < 12; ++i) in[i] = static_cast<std::uint8_t>(i);
  std::uint8_t out[6] = {};
  slice(slice_dims{2, {3, 4}, {2, 3}, {0, 3}, {2, -1}}, in, out);
  CHECK(std::vector<int>(out, out + 6) == std::vector<int>{3, 2, 1, 11, 10, 9});
}

TEST_CASE("slice: middle axis of a rank-3 tensor", "[reference][slice]") {
  // in [2][3][2] = 0..11 (value = (a*3 + b)*2 + c); take b = 1..2
  //   a0: 2 3 4 5;  a1: 8 9 10 11
  std::int32_t in[12];
  for (int i = 0; i < 12; ++i) in[i] = i;
  std::int32_t out[8] = {};
  slice(slice_dims{3, {2, 3, 2}, {2, 2, 2}, {0, 1, 0}, {1, 1, 1}}, in, out);
  CHECK(std::vector<std::int32_t>(out, out + 8) == std::vector<std::int32_t>{2, 3, 4, 5, 8, 9, 10, 11});
}
