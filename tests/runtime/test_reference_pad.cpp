// Reference constant pad.
#include <catch2/catch.hpp>

#include <tessera/kernels/reference/pad.hpp>

#include <cstdint>
#include <vector>

using tessera::kernels::reference::pad;
using tessera::kernels::reference::pad_dims;
using tessera::kernels::reference::pad_scratch_bytes;

static_assert(pad_scratch_bytes(pad_dims{1, {3}, {1}, {1}}) == 0);

TEST_CASE("pad: rank 2, asymmetric, non-zero value", "[reference][pad]") {
  // in [2][2] = [1 2; 3 4], before {1, 0}, after {0, 2} -> out [3][4]:
  //   [-7 -7 -7 -7;  1 2 -7 -7;  3 4 -7 -7]
  const std::int8_t in[4] = {1, 2, 3, 4};
  std::int8_t out[12] = {};
  pad(pad_dims{2, {2, 2}, {1, 0}, {0, 2}}, in, std::int8_t{-7}, out);
  CHECK(std::vector<int>(out, out + 12) == std::vector<int>{-7, -7, -7, -7, 1, 2, -7, -7, 3, 4, -7, -7});
}

TEST_CASE("pad: NHWC spatial padding with 0, channels untouched", "[reference][pad]") {
  // in [1][1][2][2] (H=1, W=2, C=2) = pixels (1,2), (3,4); pad W by 1 each side, H by 1 after:
  //   out [1][2][4][2] = row0: (0,0) (1,2) (3,4) (0,0); row1: all zeros
  const std::uint8_t in[4] = {1, 2, 3, 4};
  std::uint8_t out[16];
  for (auto& v : out) v = 99;
  pad(pad_dims{4, {1, 1, 2, 2}, {0, 0, 1, 0}, {0, 1, 1, 0}}, in, std::uint8_t{0}, out);
  CHECK(std::vector<int>(out, out + 16) == std::vector<int>{0, 0, 1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
}

TEST_CASE("pad: zero pads copy, rank 5", "[reference][pad]") {
  std::int32_t in[6] = {1, -2, 3, -4, 5, -6};
  std::int32_t out[6] = {};
  pad(pad_dims{5, {1, 2, 1, 3, 1}, {}, {}}, in, 0, out);
  CHECK(std::vector<std::int32_t>(out, out + 6) == std::vector<std::int32_t>(in, in + 6));
}
