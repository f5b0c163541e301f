// Reference table lookup: the entry index of int8 and uint8 inputs, output types, in place.
#include <catch2/catch.hpp>

#include <tessera/kernels/reference/lookup_table.hpp>

#include <array>
#include <cstdint>
#include <vector>

using tessera::kernels::reference::lookup_table;
using tessera::kernels::reference::lookup_table_entries;
using tessera::kernels::reference::lookup_table_index;
using tessera::kernels::reference::lookup_table_scratch_bytes;

static_assert(lookup_table_scratch_bytes(1000) == 0);
static_assert(lookup_table_entries == 256);
// Entry 0 serves the smallest input value: -128 for int8, 0 for uint8.
static_assert(lookup_table_index(std::int8_t{-128}) == 0);
static_assert(lookup_table_index(std::int8_t{0}) == 128);
static_assert(lookup_table_index(std::int8_t{127}) == 255);
static_assert(lookup_table_index(std::uint8_t{0}) == 0);
static_assert(lookup_table_index(std::uint8_t{255}) == 255);

namespace {
/// table[k] = k - 128 reinterpreted: the identity on int8 inputs.
constexpr std::array<std::int8_t, 256> identity_s8 = [] {
  std::array<std::int8_t, 256> t{};
  for (int k = 0; k < 256; ++k) t[static_cast<std::size_t>(k)] = static_cast<std::int8_t>(k - 128);
  return t;
}();
// The kernel is constexpr.
constexpr int constexpr_lookup() {
  const std::int8_t in[2] = {-7, 100};
  std::int8_t out[2] = {};
  lookup_table(2, in, identity_s8.data(), out);
  return out[0] * 1000 + out[1];
}
static_assert(constexpr_lookup() == -7 * 1000 + 100);
}  // namespace

TEST_CASE("lookup_table: int8 in, uint8 out (a quantized sigmoid's shape)", "[reference][lookup_table]") {
  // table[k] = k / 2 (a monotonic map onto [0, 127]); input x reads entry x + 128.
  std::array<std::uint8_t, 256> table{};
  for (int k = 0; k < 256; ++k) table[static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(k / 2);
  const std::int8_t in[5] = {-128, -1, 0, 1, 127};
  std::uint8_t out[5] = {};
  lookup_table(5, in, table.data(), out);
  // entries 0, 127, 128, 129, 255 -> 0, 63, 64, 64, 127
  CHECK(std::vector<int>(out, out + 5) == std::vector<int>{0, 63, 64, 64, 127});
}

TEST_CASE("lookup_table: uint8 in, int8 out, in place", "[reference][lookup_table]") {
  // table[k] = 255 - k: uint8 input x reads entry x.
  std::array<std::uint8_t, 256> table{};
  for (int k = 0; k < 256; ++k) table[static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(255 - k);
  std::uint8_t data[4] = {0, 1, 128, 255};
  lookup_table(4, data, table.data(), data);
  CHECK(std::vector<int>(data, data + 4) == std::vector<int>{255, 254, 127, 0});

  std::array<std::int8_t, 256> signed_table{};
  for (int k = 0; k < 256; ++k)
    signed_table[static_cast<std::size_t>(k)] = static_cast<std::int8_t>(k < 128 ? -k : 127);
  const std::uint8_t in[3] = {0, 100, 200};
  std::int8_t out[3] = {};
  lookup_table(3, in, signed_table.data(), out);
  CHECK(std::vector<int>(out, out + 3) == std::vector<int>{0, -100, 127});
}
