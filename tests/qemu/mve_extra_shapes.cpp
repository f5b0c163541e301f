// Extra bit-exactness checks of the arm_mve kernels on shapes the shared harness does not draw:
// int16 outputs, batch > 1, depthwise 5x5 / 7x7 / wide planes, huge average-pool windows,
// rank-3/4 Add/Sub with broadcast, batched MatMul with broadcast and large k*n, long Gemm rows;
// convolutions pad with drawn pad values (the input's zero point) on these shapes too.
#include <cstdio>
#include <cstring>
#include <limits>
#include <type_traits>
#include <tessera/kernels/dispatch.hpp>
#include "../kernels/equivalence.hpp"
using namespace tessera;
using namespace tessera::kernels;
using tessera::testing::rng;
constexpr auto F = kernel_family::arm_mve;
using T = family_traits<F>;
using K = family_kernels<F>;
alignas(16) static std::uint8_t ina[96 * 1024], inb[40 * 1024], wts[40 * 1024];
// Output and scratch between 64 guard bytes on each side (a kernel writing before its output
// went unnoticed with a trailing guard only: issue 16 item 10).
alignas(16) static std::uint8_t expect[80 * 1024], actual_area[64 + 80 * 1024 + 64], scratch_area[64 + 48 * 1024 + 64];
static std::uint8_t* const actual = actual_area + 64;
static std::uint8_t* const scratch = scratch_area + 64;
static std::int32_t bias[4096], mulv[4096], addv[4096];
static rng R{4242};
static rng P{4243};  // pad values: their own stream, so the shapes drawn from R stay the same
static int failures, cases, pad_value_cases;

template <class TT> void fill(void* p, std::size_t n) {
  auto* q = static_cast<TT*>(p);
  const int mode = R.range(0, 9);
  for (std::size_t i = 0; i < n; ++i) {
    int v = std::is_signed_v<TT> ? R.range(-128, 127) : R.range(0, 255);
    if (mode == 0) v = std::is_signed_v<TT> ? -128 : 0;
    if (mode == 1) v = std::is_signed_v<TT> ? 127 : 255;
    q[i] = TT(v);
  }
}
template <class TOut> requant_params make_rq(int ch) {
  requant_params rq{};
  if (sizeof(TOut) == 4 && R.chance(70)) return rq;
  rq.enabled = true; rq.inner = 1; rq.length = R.chance(60) ? ch : 1;
  rq.shift = R.chance(15) ? R.range(0, 40) : R.range(8, 34);
  const int big = R.chance(25) ? (1 << 27) : (1 << 12);
  for (int c = 0; c < rq.length; ++c) mulv[c] = R.range(-big / 8, big), addv[c] = R.range(-(1 << 20), 1 << 20);
  rq.mul = mulv; rq.add = addv;
  if (sizeof(TOut) == 1) { rq.lo = std::is_signed_v<TOut> ? -128 : 0; rq.hi = std::is_signed_v<TOut> ? 127 : 255; }
  else if (sizeof(TOut) == 2) { rq.lo = -32768; rq.hi = 32767; }
  else { rq.lo = R.chance(50) ? INT32_MIN : -1000000; rq.hi = R.chance(50) ? INT32_MAX : 1000000; }
  if (R.chance(15)) rq.lo = 0;
  return rq;
}
static void guard(std::size_t out_bytes, std::size_t sb) {
  std::memset(actual_area, 0xA5, 64); std::memset(actual, 0x5A, out_bytes); std::memset(actual + out_bytes, 0xA5, 64);
  std::memset(scratch_area, 0xA5, 64); std::memset(scratch + sb, 0xA5, 64);
}
static void check(const char* what, int it, std::size_t out_bytes, std::size_t sb) {
  ++cases;
  bool ok = std::memcmp(expect, actual, out_bytes) == 0;
  for (int i = 0; i < 64; ++i)
    ok = ok && actual_area[i] == 0xA5 && actual[out_bytes + i] == 0xA5 && scratch_area[i] == 0xA5 && scratch[sb + i] == 0xA5;
  if (!ok) { ++failures; std::printf("MISMATCH %s iteration %d (%u bytes)\n", what, it, unsigned(out_bytes)); }
}
template <class F2> void with_out(int pick, F2&& f) {
  if (pick == 0) f(std::int8_t{}); else if (pick == 1) f(std::uint8_t{}); else if (pick == 2) f(std::int16_t{}); else f(std::int32_t{});
}
template <class F2> void with_in(bool s, F2&& f) { if (s) f(std::int8_t{}); else f(std::uint8_t{}); }

static void conv_cases(int iterations, bool depthwise) {
  for (int it = 0; it < iterations; ++it) {
    reference::conv2d_dims d{};
    d.batch = R.range(1, 3);
    d.kernel_h = depthwise ? R.range(1, 7) : R.range(1, 5);
    d.kernel_w = depthwise ? R.range(1, 7) : R.range(1, 5);
    d.stride_h = R.range(1, 3); d.stride_w = R.range(1, 3);
    d.dilation_h = R.chance(20) ? R.range(2, 3) : 1; d.dilation_w = R.chance(20) ? R.range(2, 3) : 1;
    d.pad_top = R.range(0, d.kernel_h); d.pad_left = R.range(0, d.kernel_w);  // pads up to the kernel size
    const bool wide = depthwise && R.chance(25);
    d.in_h = R.range(d.dilation_h * (d.kernel_h - 1) + 1, wide ? 8 : 20);
    d.in_w = R.range(d.dilation_w * (d.kernel_w - 1) + 1, wide ? 160 : 20);
    d.in_c = depthwise ? R.range(1, wide ? 8 : 48) : R.range(1, 24);
    d.out_c = depthwise ? d.in_c : R.range(1, 40);
    d.groups = depthwise ? d.in_c : 1;
    const int pb = R.range(0, d.kernel_h), pr = R.range(0, d.kernel_w);
    d.out_h = (d.in_h + d.pad_top + pb - d.dilation_h * (d.kernel_h - 1) - 1) / d.stride_h + 1;
    d.out_w = (d.in_w + d.pad_left + pr - d.dilation_w * (d.kernel_w - 1) - 1) / d.stride_w + 1;
    const std::size_t in_n = std::size_t(d.batch) * d.in_h * d.in_w * d.in_c;
    const std::size_t w_n = std::size_t(d.out_c) * d.kernel_h * d.kernel_w * (d.in_c / d.groups);
    const std::size_t out_n = std::size_t(d.batch) * d.out_h * d.out_w * d.out_c;
    if (in_n > sizeof ina || w_n > sizeof wts || out_n * 4 > sizeof expect) continue;
    const int before = cases;
    with_in(R.chance(50), [&](auto iv) {
      with_out(R.range(0, 3), [&](auto ov) {
        using TIn = decltype(iv); using TOut = decltype(ov);
        constexpr int lo = std::numeric_limits<TIn>::min(), hi = std::numeric_limits<TIn>::max();
        const int pad_pick = P.range(0, 4);
        d.pad_value = pad_pick == 0 ? 0 : pad_pick == 1 ? lo : pad_pick == 2 ? hi : P.range(lo, hi);
        fill<TIn>(ina, in_n); fill<std::int8_t>(wts, w_n);
        for (int c = 0; c < d.out_c; ++c) bias[c] = R.range(-(1 << 20), 1 << 20);
        const requant_params rq = make_rq<TOut>(d.out_c);
        const std::int32_t* b = R.chance(80) ? bias : nullptr;
        const auto* in = reinterpret_cast<const TIn*>(ina); const auto* w = reinterpret_cast<const std::int8_t*>(wts);
        reference::conv2d(d, in, w, b, rq, reinterpret_cast<TOut*>(expect), nullptr);
        const std::size_t ob = out_n * sizeof(TOut);
        if (depthwise) {
          if (!T::depthwise_accepts<TIn, std::int8_t, TOut>(d, rq)) { ++failures; std::printf("declined dw\n"); return; }
          for (int v = 0; v < 2; ++v) {
            const std::size_t sb = v == 0 ? T::depthwise_hwc_scratch_bytes(d) : T::depthwise_chw_scratch_bytes(d);
            if (sb > 48 * 1024) { std::printf("dw scratch %u skipped\n", unsigned(sb)); continue; }
            guard(ob, sb);
            if (v == 0) K::depthwise_hwc(d, in, w, b, rq, reinterpret_cast<TOut*>(actual), scratch);
            else K::depthwise_chw(d, in, w, b, rq, reinterpret_cast<TOut*>(actual), scratch);
            check(v == 0 ? "dw_hwc" : "dw_chw", it, ob, sb);
          }
        } else {
          if (!T::conv2d_accepts<TIn, std::int8_t, TOut>(d, rq)) { ++failures; std::printf("declined conv\n"); return; }
          const std::size_t sb = T::conv2d_scratch_bytes(d);
          if (sb > 48 * 1024) return;
          guard(ob, sb);
          K::conv2d(d, in, w, b, rq, reinterpret_cast<TOut*>(actual), scratch);
          check("conv2d", it, ob, sb);
        }
      });
    });
    if (reference::reads_pad_value(d)) pad_value_cases += cases - before;
  }
}

static void pool_cases(int iterations) {
  for (int it = 0; it < iterations; ++it) {
    reference::pool2d_dims d{};
    d.batch = R.range(1, 2);
    const bool global = R.chance(30);
    d.in_h = global ? R.range(30, 60) : R.range(1, 16); d.in_w = global ? R.range(30, 60) : R.range(1, 16);
    d.kernel_h = global ? d.in_h : R.range(1, d.in_h); d.kernel_w = global ? d.in_w : R.range(1, d.in_w);
    d.stride_h = global ? 1 : R.range(1, 3); d.stride_w = global ? 1 : R.range(1, 3);
    d.pad_top = global ? 0 : R.range(0, d.kernel_h - 1); d.pad_left = global ? 0 : R.range(0, d.kernel_w - 1);
    d.pad_bottom = global ? 0 : R.range(0, d.kernel_h - 1); d.pad_right = global ? 0 : R.range(0, d.kernel_w - 1);
    d.channels = global ? R.range(1, 20) : R.range(1, 40);
    d.out_h = (d.in_h + d.pad_top + d.pad_bottom - d.kernel_h) / d.stride_h + 1;
    d.out_w = (d.in_w + d.pad_left + d.pad_right - d.kernel_w) / d.stride_w + 1;
    const std::size_t in_n = std::size_t(d.batch) * d.in_h * d.in_w * d.channels;
    const std::size_t out_n = std::size_t(d.batch) * d.out_h * d.out_w * d.channels;
    if (in_n > sizeof ina || out_n > sizeof expect) continue;
    const bool is_max = R.chance(40), cip = R.chance(50);
    with_in(R.chance(50), [&](auto v) {
      using TT = decltype(v);
      fill<TT>(ina, in_n);
      const auto* in = reinterpret_cast<const TT*>(ina);
      if (is_max) reference::max_pool2d(d, in, reinterpret_cast<TT*>(expect));
      else reference::average_pool2d(d, cip, in, reinterpret_cast<TT*>(expect));
      guard(out_n, 0);
      if (is_max) K::max_pool2d(d, in, reinterpret_cast<TT*>(actual), scratch);
      else K::average_pool2d(d, cip, in, reinterpret_cast<TT*>(actual), scratch);
      check(is_max ? "max_pool" : "avg_pool", it, out_n, 0);
    });
  }
}

static void binary_cases(int iterations) {
  for (int it = 0; it < iterations; ++it) {
    reference::binary_dims d{};
    d.rank = R.range(1, 4);
    std::int64_t total = 1;
    for (int ax = 0; ax < d.rank; ++ax) { d.out[ax] = R.range(1, ax == d.rank - 1 ? 70 : 6); total *= d.out[ax]; }
    std::int64_t stride = 1;
    const bool row = R.chance(40);
    for (int ax = d.rank - 1; ax >= 0; --ax) {
      d.a_stride[ax] = stride;
      d.b_stride[ax] = row ? (ax == d.rank - 1 ? 1 : 0) : stride;
      stride *= d.out[ax];
    }
    const auto op = R.chance(50) ? reference::binary_op::add : reference::binary_op::sub;
    with_in(R.chance(50), [&](auto av) { with_in(R.chance(50), [&](auto bv) { with_out(R.range(0, 3), [&](auto ov) {
      using TA = decltype(av); using TB = decltype(bv); using TOut = decltype(ov);
      fill<TA>(ina, total); fill<TB>(inb, total);
      const requant_params rq = make_rq<TOut>(d.out[d.rank - 1]);
      const auto* a = reinterpret_cast<const TA*>(ina); const auto* b = reinterpret_cast<const TB*>(inb);
      reference::binary(op, d, a, b, rq, reinterpret_cast<TOut*>(expect));
      if (!T::binary_accepts<TA, TB, TOut>(op, d, rq)) { ++failures; std::printf("declined binary\n"); return; }
      const std::size_t sb = T::binary_scratch_bytes(d), ob = total * sizeof(TOut);
      guard(ob, sb);
      K::binary(op, d, a, b, rq, reinterpret_cast<TOut*>(actual), scratch);
      check("binary", it, ob, sb);
    }); }); });
  }
}

static void matmul_cases(int iterations) {
  for (int it = 0; it < iterations; ++it) {
    reference::matmul_dims d{};
    const bool big = R.chance(20);
    d.m = R.range(1, 7); d.n = big ? R.range(100, 140) : R.range(1, 30); d.k = big ? R.range(500, 600) : R.range(1, 80);
    d.batch_rank = big ? 0 : R.range(0, 3);
    int batches = 1;
    std::int64_t as = std::int64_t(d.m) * d.k, bs = std::int64_t(d.k) * d.n;
    for (int i = d.batch_rank - 1; i >= 0; --i) {
      d.batch[i] = R.range(1, 3);
      d.a_stride[i] = R.chance(25) ? 0 : as; d.b_stride[i] = R.chance(25) ? 0 : bs;
      if (d.a_stride[i]) as *= d.batch[i];
      if (d.b_stride[i]) bs *= d.batch[i];
      batches *= d.batch[i];
    }
    if (std::size_t(as) > sizeof ina || std::size_t(bs) > sizeof inb + 0 || std::size_t(batches) * d.m * d.n * 4 > sizeof expect) continue;
    with_in(R.chance(50), [&](auto av) { with_in(R.chance(50), [&](auto bv) { with_out(R.range(0, 3), [&](auto ov) {
      using TA = decltype(av); using TB = decltype(bv); using TOut = decltype(ov);
      fill<TA>(ina, as); fill<TB>(inb, bs);
      const requant_params rq = make_rq<TOut>(d.n);
      const auto* a = reinterpret_cast<const TA*>(ina); const auto* b = reinterpret_cast<const TB*>(inb);
      reference::matmul(d, a, b, rq, reinterpret_cast<TOut*>(expect), nullptr);
      const std::size_t sb = T::matmul_scratch_bytes(d), ob = std::size_t(batches) * d.m * d.n * sizeof(TOut);
      if (sb > 48 * 1024) { std::printf("matmul scratch %u skipped\n", unsigned(sb)); return; }
      guard(ob, sb);
      K::matmul(d, a, b, rq, reinterpret_cast<TOut*>(actual), scratch);
      check("matmul", it, ob, sb);
    }); }); });
  }
}

static void gemm_cases(int iterations) {
  for (int it = 0; it < iterations; ++it) {
    const reference::gemm_dims d{R.range(1, 8), R.range(1, 40), R.range(1, 1000)};
    if (std::size_t(d.n) * d.k > sizeof wts || std::size_t(d.m) * d.k > sizeof ina) continue;
    with_in(R.chance(50), [&](auto av) { with_out(R.range(0, 3), [&](auto ov) {
      using TA = decltype(av); using TOut = decltype(ov);
      fill<TA>(ina, std::size_t(d.m) * d.k); fill<std::int8_t>(wts, std::size_t(d.n) * d.k);
      for (int c = 0; c < d.n; ++c) bias[c] = R.range(-(1 << 20), 1 << 20);
      const bool rowwise = sizeof(TOut) <= 2 && R.chance(30);
      requant_params rq = make_rq<TOut>(rowwise ? d.m : d.n);
      if (rowwise && rq.length != 1) rq.inner = d.n;
      const auto* a = reinterpret_cast<const TA*>(ina); const auto* w = reinterpret_cast<const std::int8_t*>(wts);
      const std::int32_t* b = R.chance(80) ? bias : nullptr;
      reference::gemm(d, a, w, b, rq, reinterpret_cast<TOut*>(expect), nullptr);
      if (!T::gemm_accepts<TA, std::int8_t, TOut>(d, rq)) { ++failures; std::printf("declined gemm\n"); return; }
      const std::size_t sb = T::gemm_scratch_bytes(d), ob = std::size_t(d.m) * d.n * sizeof(TOut);
      guard(ob, sb);
      K::gemm(d, a, w, b, rq, reinterpret_cast<TOut*>(actual), scratch);
      check("gemm", it, ob, sb);
    }); });
  }
}

int main() {
  conv_cases(300, false);
  conv_cases(400, true);
  pool_cases(300);
  binary_cases(300);
  matmul_cases(200);
  gemm_cases(200);
  std::printf("extra arm-mve checks: %d cases, %d failures, %d convolutions with a pad value\n", cases, failures,
              pad_value_cases);
  return failures != 0;
}
