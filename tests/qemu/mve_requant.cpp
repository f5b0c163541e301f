// Focused test of the arm_mve requantization epilogue against tessera::requantize: every path,
// carry boundaries (L == ~AL), extreme mul/add/shift/lo/hi, all output widths.
#include <cstdio>
#include <cstring>
#include <tessera/kernels/arm_mve/requant.hpp>
#include "../kernels/equivalence.hpp"
using namespace tessera;
using namespace tessera::kernels::arm_mve;
static testing::rng R{777};
alignas(16) static std::int32_t table[64 * 12];
alignas(16) static std::int32_t acc[64];
alignas(16) static std::int32_t mulv[64], addv[64], biasv[64];
static std::int64_t extrav[64];
alignas(16) static std::uint8_t out[64 * 4 + 64];
static int path_count[6];  // indexed by requant_path
static std::int64_t acc_bound;
alignas(16) static std::int32_t acc_pairs[6 * 40];
static bool use_pairs;
static bool vector_table;
static int pair_row;
static int failures, checks;

static std::uint32_t inv32(std::uint32_t a) {  // inverse of odd a mod 2^32 (Newton)
  std::uint32_t x = a;
  for (int i = 0; i < 5; ++i) x *= 2 - a * x;
  return x;
}

// requant_block3 against requant_row on the same plan: 3 rows of one mat_mult_3x2 block.
alignas(16) static std::int32_t block[6 * 40];
alignas(16) static std::uint8_t out3[3 * 64 * 4 + 64], out1[3 * 64 * 4];
template <class TOut>
void check_block(const requant_plan& p, int n) {
  for (int i = 0; i < 6 * ((n + 1) / 2); ++i) block[i] = acc[i % n];
  std::memset(out3, 0x5A, sizeof out3);
  requant_block3(p, block, n, reinterpret_cast<TOut*>(out3), n);
  for (int r = 0; r < 3; ++r) requant_row(p, block + 2 * r, acc_layout::pairs, n, reinterpret_cast<TOut*>(out1) + r * n);
  ++checks;
  if (std::memcmp(out3, out1, 3 * n * sizeof(TOut)) != 0 || out3[3 * n * sizeof(TOut)] != 0x5A) {
    ++failures;
    if (failures < 20) std::printf("FAIL block3 path %d n %d\n", int(p.path), n);
  }
}

template <class TOut>
void check(const requant_params& rq, int n) {
  const requant_plan p = vector_table ? plan_requant(rq, n, biasv, no_correction{}, acc_bound, table)
                                      : plan_requant(rq, n, biasv, [](int c) { return extrav[c]; }, acc_bound, table);
  path_count[int(p.path)]++;
  check_block<TOut>(p, n);
  std::memset(out, 0x5A, sizeof out);
  if (use_pairs) {
    for (int c = 0; c < n; ++c) acc_pairs[(c >> 1) * 6 + 2 * pair_row + (c & 1)] = acc[c];
    requant_row(p, acc_pairs + 2 * pair_row, acc_layout::pairs, n, reinterpret_cast<TOut*>(out));
  } else {
    requant_row(p, acc, acc_layout::contiguous, n, reinterpret_cast<TOut*>(out));
  }
  for (int c = 0; c < n; ++c) {
    const std::int64_t acc_true = std::int64_t{acc[c]} + biasv[c] + extrav[c];
    TOut expect;
    if (rq.enabled) {
      const int i = rq.length == 1 ? 0 : c;
      expect = static_cast<TOut>(requantize(acc_true, rq.mul[i], rq.add[i], rq.shift, rq.lo, rq.hi));
    } else {
      expect = static_cast<TOut>(static_cast<std::int32_t>(acc_true));
    }
    TOut got;
    std::memcpy(&got, out + c * sizeof(TOut), sizeof(TOut));
    ++checks;
    if (got != expect) {
      if (failures < 20)
        std::printf("FAIL path %d c %d acc %ld off %lld mul %ld add %ld s %d lo %ld hi %ld: got %ld want %ld\n", int(p.path), c,
                    long(acc[c]), (long long)(biasv[c] + extrav[c]), long(rq.mul[rq.length == 1 ? 0 : c]),
                    long(rq.add[rq.length == 1 ? 0 : c]), rq.shift, long(rq.lo), long(rq.hi), long(got), long(expect));
      ++failures;
    }
  }
  for (std::size_t b = n * sizeof(TOut); b < n * sizeof(TOut) + 16; ++b)
    if (out[b] != 0x5A) { ++failures; std::printf("FAIL overwrite\n"); break; }
}

int main() {
  for (int it = 0; it < 10000; ++it) {
    const int n = R.range(1, 40);
    requant_params rq{};
    rq.enabled = !R.chance(5);
    rq.length = R.chance(50) ? n : 1;
    rq.inner = 1;
    const int mmode = R.range(0, 6);
    const int smode = R.range(0, 9);
    rq.shift = mmode >= 5 && R.chance(60) ? R.range(10, 20) : smode == 0 ? R.range(0, 3) : smode < 4 ? R.range(32, 40) : smode < 6 ? R.range(41, 48) : R.range(4, 31);
    for (int c = 0; c < rq.length; ++c) {
      std::int32_t m;
      if (mmode == 0) m = R.range(-(1 << 27), 1 << 27);
      else if (mmode == 1) m = R.chance(50) ? (1 << 27) : -(1 << 27);
      else if (mmode == 2) m = R.range(-2000, 2000);
      else if (mmode == 3) m = static_cast<std::int32_t>(R.next()) >> R.range(3, 31);
      else if (mmode == 4) m = (static_cast<std::int32_t>(R.next()) >> 4) | 1;
      else m = R.range(-600, 600);  // corpus-like: narrow when the sums are short
      mulv[c] = m;
      const int amode = R.range(0, 3);
      addv[c] = mmode >= 5 ? R.range(-(1 << 15), 1 << 15) : amode == 0 ? R.range(-(1 << 20), 1 << 20) : amode == 1 ? static_cast<std::int32_t>(R.next())
                : amode == 2 ? (R.chance(50) ? INT32_MAX : INT32_MIN) : 0;
    }
    rq.mul = mulv;
    rq.add = addv;
    const int lmode = R.range(0, 5);
    if (lmode == 0) rq.lo = -128, rq.hi = 127;
    else if (lmode == 1) rq.lo = 0, rq.hi = 255;
    else if (lmode == 2) rq.lo = INT32_MIN, rq.hi = INT32_MAX;
    else if (lmode == 3) rq.lo = -32768, rq.hi = 32767;
    else { rq.lo = static_cast<std::int32_t>(R.next()) >> R.range(0, 31); rq.hi = rq.lo + (static_cast<std::int32_t>(R.next() >> R.range(1, 31))); if (rq.hi < rq.lo) rq.hi = rq.lo; }
    vector_table = R.chance(50);
    const int amode2 = mmode >= 5 && R.chance(70) ? 2 : R.range(0, 2);
    const bool small_acc = amode2 != 0;
    for (int c = 0; c < n; ++c) {
      biasv[c] = R.chance(30) ? 0 : static_cast<std::int32_t>(R.next()) >> R.range(1, 20);
      extrav[c] = vector_table || R.chance(60) ? 0 : 128 * std::int64_t{R.range(-2000, 2000)};
      std::int64_t a = amode2 == 2 ? R.range(-3000, 3000) : small_acc ? R.range(-300000, 300000) : std::int64_t{static_cast<std::int32_t>(R.next())} >> R.range(0, 8);
      // keep acc + off inside int32
      const std::int64_t off = biasv[c] + extrav[c];
      if (a + off > INT32_MAX) a = INT32_MAX - off;
      if (a + off < INT32_MIN) a = INT32_MIN - off;
      acc[c] = static_cast<std::int32_t>(a);
    }
    // Carry boundary: with s >= 32 (M = mul, no pre-shift) and odd mul, pick acc so that the low
    // product word is ~AL (+ -1, 0, +1).
    if (rq.enabled && rq.shift >= 32 && rq.shift <= 40 && R.chance(50)) {
      const std::int64_t rounding = std::int64_t{1} << (rq.shift - 1);
      for (int c = 0; c < n; ++c) {
        const int i = rq.length == 1 ? 0 : c;
        if ((rq.mul[i] & 1) == 0) continue;
        const std::int64_t off = biasv[c] + extrav[c];
        const std::uint64_t A = std::uint64_t(off * rq.mul[i]) + std::uint64_t(std::int64_t{rq.add[i]} + rounding);
        const std::uint32_t target = ~std::uint32_t(A) + std::uint32_t(R.range(-1, 1));
        std::int64_t a = std::int32_t(target * inv32(std::uint32_t(rq.mul[i])));
        if (a + off > INT32_MAX || a + off < INT32_MIN) continue;
        acc[c] = std::int32_t(a);
      }
    }
    // General-path carry boundary: AL == 0 (add cancels the rounding and the bias term).
    if (rq.enabled && rq.shift >= 1 && rq.shift <= 31 && R.chance(30)) {
      const std::int64_t rounding = std::int64_t{1} << (rq.shift - 1);
      for (int c = 0; c < n; ++c) {
        const int i = rq.length == 1 ? 0 : c;
        if (rq.length == 1) biasv[c] = 0, extrav[c] = 0;
        const std::int64_t off = biasv[c] + extrav[c];
        addv[i] = std::int32_t(std::uint32_t(-(std::uint64_t(off * rq.mul[i]) + std::uint64_t(rounding))) + std::uint32_t(R.range(-1, 1)));
      }
    }
    acc_bound = 0;
    for (int c = 0; c < n; ++c) acc_bound = acc_bound > (acc[c] < 0 ? -std::int64_t{acc[c]} : acc[c]) ? acc_bound : (acc[c] < 0 ? -std::int64_t{acc[c]} : acc[c]);
    if (R.chance(30)) acc_bound += R.range(0, 100000);
    use_pairs = R.chance(50);
    pair_row = R.range(0, 2);
    switch (R.range(0, 3)) {
      case 0: check<std::int8_t>(rq, n); break;
      case 1: check<std::uint8_t>(rq, n); break;
      case 2: check<std::int16_t>(rq, n); break;
      default: check<std::int32_t>(rq, n); break;
    }
  }
  std::printf("requant: %d checks, %d failures; paths raw %d narrow %d fast %d high %d general %d scalar %d\n", checks,
              failures, path_count[0], path_count[1], path_count[2], path_count[3], path_count[4], path_count[5]);
  // Every vector path must have been exercised (a path never taken is a path never tested).
  for (int path = 0; path < 5; ++path)
    if (path_count[path] == 0) {
      std::printf("FAIL: path %d never taken\n", path);
      return 1;
    }
  return failures != 0;
}
