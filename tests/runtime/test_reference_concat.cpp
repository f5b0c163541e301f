// Reference concat.
#include <catch2/catch.hpp>

#include <tessera/kernels/reference/concat.hpp>

#include <cstdint>
#include <vector>

using tessera::kernels::reference::concat;
using tessera::kernels::reference::concat_scratch_bytes;

TEST_CASE("concat: middle axis, inner 1", "[reference][concat]") {
  // in0 [2][1] = [1; 2], in1 [2][2] = [10 11; 20 21], axis 1 -> [1 10 11; 2 20 21]
  const std::int8_t in0[2] = {1, 2};
  const std::int8_t in1[4] = {10, 11, 20, 21};
  const std::int8_t* inputs[2] = {in0, in1};
  const int extents[2] = {1, 2};
  std::int8_t out[6] = {};
  concat<std::int8_t>(2, 1, 2, inputs, extents, out);
  CHECK(std::vector<int>(out, out + 6) == std::vector<int>{1, 10, 11, 2, 20, 21});
  CHECK(concat_scratch_bytes(2, 1, 2, extents) == 0);
}

TEST_CASE("concat: inner > 1 and three inputs", "[reference][concat]") {
  // [2][e][2] tensors along axis 1, e = 1, 2, 1:
  //   in0 = a0 a1 | b0 b1;  in1 = c0 c1 c2 c3 | d0 d1 d2 d3;  in2 = e0 e1 | f0 f1
  //   out = a0 a1 c0 c1 c2 c3 e0 e1 | b0 b1 d0 d1 d2 d3 f0 f1
  const std::uint8_t in0[4] = {1, 2, 3, 4};
  const std::uint8_t in1[8] = {10, 11, 12, 13, 20, 21, 22, 23};
  const std::uint8_t in2[4] = {100, 101, 200, 201};
  const std::uint8_t* inputs[3] = {in0, in1, in2};
  const int extents[3] = {1, 2, 1};
  std::uint8_t out[16] = {};
  concat<std::uint8_t>(2, 2, 3, inputs, extents, out);
  CHECK(std::vector<int>(out, out + 16) ==
        std::vector<int>{1, 2, 10, 11, 12, 13, 100, 101, 3, 4, 20, 21, 22, 23, 200, 201});
}

TEST_CASE("concat: outermost axis appends", "[reference][concat]") {
  const std::int8_t in0[3] = {1, 2, 3};
  const std::int8_t in1[3] = {-1, -2, -3};
  const std::int8_t* inputs[2] = {in0, in1};
  const int extents[2] = {1, 1};
  std::int8_t out[6] = {};
  concat<std::int8_t>(1, 3, 2, inputs, extents, out);
  CHECK(std::vector<int>(out, out + 6) == std::vector<int>{1, 2, 3, -1, -2, -3});
}
