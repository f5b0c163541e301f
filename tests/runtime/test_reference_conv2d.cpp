// Reference conv2d: hand-checked cases, then a randomized comparison with an independent
// NCHW formula written straight from the corpus spec.
#include <catch2/catch.hpp>

#include <tessera/kernels/reference/conv2d.hpp>

#include <cstdint>
#include <random>
#include <vector>

namespace {

using tessera::requant_params;
using tessera::kernels::reference::conv2d;
using tessera::kernels::reference::conv2d_dims;
using tessera::kernels::reference::conv2d_scratch_bytes;

// 1 x H x W x C conv with the common defaults: stride 1, dilation 1, no pad, groups 1.
constexpr conv2d_dims simple_dims(int in_h, int in_w, int in_c, int out_h, int out_w, int out_c, int kh, int kw) {
  return conv2d_dims{1, in_h, in_w, in_c, out_h, out_w, out_c, kh, kw, 1, 1, 1, 1, 0, 0, 1};
}

// The kernel is constexpr: a 1x1 conv over two channels, 3*4 + 5*(-2) + bias 7 = 9.
constexpr std::int32_t constexpr_conv() {
  const conv2d_dims d = simple_dims(1, 1, 2, 1, 1, 1, 1, 1);
  const std::int8_t in[2] = {3, 5};
  const std::int8_t w[2] = {4, -2};
  const std::int32_t bias[1] = {7};
  std::int32_t out[1] = {};
  conv2d(d, in, w, bias, requant_params{}, out, nullptr);
  return out[0];
}
static_assert(constexpr_conv() == 9);
static_assert(conv2d_scratch_bytes(simple_dims(4, 4, 3, 2, 2, 8, 3, 3)) == 0);

}  // namespace

TEST_CASE("conv2d: valid 2x2 kernel, with and without bias", "[reference][conv2d]") {
  // in = [1 2 3; 4 5 6; 7 8 9], w = [1 2; 3 4]
  // out00 = 1*1 + 2*2 + 4*3 + 5*4 = 37   out01 = 2 + 6 + 15 + 24 = 47
  // out10 = 4 + 10 + 21 + 32 = 67        out11 = 5 + 12 + 24 + 36 = 77
  const conv2d_dims d = simple_dims(3, 3, 1, 2, 2, 1, 2, 2);
  const std::uint8_t in[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const std::int8_t w[4] = {1, 2, 3, 4};
  std::int32_t out[4] = {};
  conv2d(d, in, w, nullptr, requant_params{}, out, nullptr);
  CHECK(std::vector<std::int32_t>(out, out + 4) == std::vector<std::int32_t>{37, 47, 67, 77});

  const std::int32_t bias[1] = {10};
  conv2d(d, in, w, bias, requant_params{}, out, nullptr);
  CHECK(std::vector<std::int32_t>(out, out + 4) == std::vector<std::int32_t>{47, 57, 77, 87});
}

TEST_CASE("conv2d: zero padding and stride", "[reference][conv2d]") {
  const std::uint8_t in[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const std::int8_t w[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  SECTION("3x3 ones, pad 1 all around, stride 2: out = (3 + 2 - 3)/2 + 1 = 2") {
    // out00 window rows -1..1, cols -1..1 -> valid rows 0..1, cols 0..1: 1+2+4+5 = 12
    // out01 rows 0..1, cols 1..2: 2+3+5+6 = 16;  out10: 4+5+7+8 = 24;  out11: 5+6+8+9 = 28
    conv2d_dims d = simple_dims(3, 3, 1, 2, 2, 1, 3, 3);
    d.stride_h = d.stride_w = 2;
    d.pad_top = d.pad_left = 1;
    std::int32_t out[4] = {};
    conv2d(d, in, w, nullptr, requant_params{}, out, nullptr);
    CHECK(std::vector<std::int32_t>(out, out + 4) == std::vector<std::int32_t>{12, 16, 24, 28});
  }
  SECTION("asymmetric: pad_top 1 (bottom implied 1), no left pad, stride 2") {
    // out_w = 1 (cols 0..2); out00 rows -1..1 -> rows 0..1: 1+2+3+4+5+6 = 21
    // out10 rows 1..3 -> rows 1..2: 4+5+6+7+8+9 = 39
    conv2d_dims d = simple_dims(3, 3, 1, 2, 1, 1, 3, 3);
    d.stride_h = d.stride_w = 2;
    d.pad_top = 1;
    std::int32_t out[2] = {};
    conv2d(d, in, w, nullptr, requant_params{}, out, nullptr);
    CHECK(out[0] == 21);
    CHECK(out[1] == 39);
  }
}

TEST_CASE("conv2d: dilation", "[reference][conv2d]") {
  SECTION("1D (in_h = out_h = kernel_h = 1), kernel_w 2, dilation 2") {
    // out_w = 5 - 2*(2-1) - 1 + 1 = 3; out[x] = 2*in[x] + 1*in[x+2]
    // = 2*1+3 = 5, 2*2+4 = 8, 2*3+5 = 11
    conv2d_dims d = simple_dims(1, 5, 1, 1, 3, 1, 1, 2);
    d.dilation_w = 2;
    const std::int8_t in[5] = {1, 2, 3, 4, 5};
    const std::int8_t w[2] = {2, 1};
    std::int32_t out[3] = {};
    conv2d(d, in, w, nullptr, requant_params{}, out, nullptr);
    CHECK(std::vector<std::int32_t>(out, out + 3) == std::vector<std::int32_t>{5, 8, 11});
  }
  SECTION("2D 2x2 kernel, dilation 2 reads the four corners of a 3x3 image") {
    // 1*1 + 2*3 + 3*7 + 4*9 = 1 + 6 + 21 + 36 = 64
    conv2d_dims d = simple_dims(3, 3, 1, 1, 1, 1, 2, 2);
    d.dilation_h = d.dilation_w = 2;
    const std::uint8_t in[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    const std::int8_t w[4] = {1, 2, 3, 4};
    std::int32_t out[1] = {};
    conv2d(d, in, w, nullptr, requant_params{}, out, nullptr);
    CHECK(out[0] == 64);
  }
}

TEST_CASE("conv2d: groups and depthwise", "[reference][conv2d]") {
  SECTION("in_c 4, out_c 2, groups 2: each filter sees its own two channels") {
    // f0 (channels 0,1): 1*1 + 2*10 = 21;  f1 (channels 2,3): 3*100 + 4*(-1) = 296
    conv2d_dims d = simple_dims(1, 1, 4, 1, 1, 2, 1, 1);
    d.groups = 2;
    const std::int8_t in[4] = {1, 2, 3, 4};
    const std::int8_t w[4] = {1, 10, 100, -1};  // [out_c=2][1][1][in_c/groups=2]
    std::int32_t out[2] = {};
    conv2d(d, in, w, nullptr, requant_params{}, out, nullptr);
    CHECK(out[0] == 21);
    CHECK(out[1] == 296);
  }
  SECTION("in_c 2, out_c 4, groups 2 (channel multiplier 2)") {
    // g = f / 2: f0 = 5*1, f1 = 5*2, f2 = 7*3, f3 = 7*4
    conv2d_dims d = simple_dims(1, 1, 2, 1, 1, 4, 1, 1);
    d.groups = 2;
    const std::int8_t in[2] = {5, 7};
    const std::int8_t w[4] = {1, 2, 3, 4};
    std::int32_t out[4] = {};
    conv2d(d, in, w, nullptr, requant_params{}, out, nullptr);
    CHECK(std::vector<std::int32_t>(out, out + 4) == std::vector<std::int32_t>{5, 10, 21, 28});
  }
  SECTION("depthwise 2x2 over a 2x2x2 image, with bias") {
    // channel 0 = [1 2; 3 4], channel 1 = [10 20; 30 40], interleaved channels-last.
    // f0 = ones: 1+2+3+4 = 10, + bias 1 = 11;  f1 = [1 0; 0 -1]: 10 - 40 = -30, + bias -2 = -32
    conv2d_dims d = simple_dims(2, 2, 2, 1, 1, 2, 2, 2);
    d.groups = 2;
    const std::int8_t in[8] = {1, 10, 2, 20, 3, 30, 4, 40};
    const std::int8_t w[8] = {1, 1, 1, 1, 1, 0, 0, -1};  // [2][2][2][1]
    const std::int32_t bias[2] = {1, -2};
    std::int32_t out[2] = {};
    conv2d(d, in, w, bias, requant_params{}, out, nullptr);
    CHECK(out[0] == 11);
    CHECK(out[1] == -32);
  }
}

TEST_CASE("conv2d: fused per-channel requant, ties, negative values, clamping", "[reference][conv2d]") {
  // 1x1 conv, 3 pixels, 1 input channel, 2 filters w = {1, 2}, bias = {0, -5}:
  //   acc0 = x, acc1 = 2x - 5;  x = -3, 100, 1  ->  acc0 = -3, 100, 1;  acc1 = -11, 195, -3.
  // Channel 0: mul 1, add 0; channel 1: mul 3, add 1; shift 1, y = (acc*mul + add + 1) >> 1:
  //   ch0: (-3 + 1) >> 1 = -1 (tie -1.5 rounds up to -1);  (100 + 1) >> 1 = 50;  (1 + 1) >> 1 = 1 (tie 0.5 -> 1)
  //   ch1: (-33 + 1 + 1) >> 1 = -31 >> 1 = -16;  (585 + 1 + 1) >> 1 = 293;  (-9 + 1 + 1) >> 1 = -7 >> 1 = -4
  conv2d_dims d = simple_dims(1, 3, 1, 1, 3, 2, 1, 1);
  const std::int8_t in[3] = {-3, 100, 1};
  const std::int8_t w[2] = {1, 2};
  const std::int32_t bias[2] = {0, -5};
  const std::int32_t mul[2] = {1, 3};
  const std::int32_t add[2] = {0, 1};
  requant_params rq{.enabled = true, .mul = mul, .add = add, .length = 2, .inner = 1, .shift = 1, .lo = -128, .hi = 127};

  SECTION("s8 output clamps 293 to 127") {
    std::int8_t out[6] = {};
    conv2d(d, in, w, bias, rq, out, nullptr);
    CHECK(std::vector<int>(out, out + 6) == std::vector<int>{-1, -16, 50, 127, 1, -4});
  }
  SECTION("u8 output clamps negatives to 0 and keeps 255 range") {
    rq.lo = 0;
    rq.hi = 255;
    std::uint8_t out[6] = {};
    conv2d(d, in, w, bias, rq, out, nullptr);
    CHECK(std::vector<int>(out, out + 6) == std::vector<int>{0, 0, 50, 255, 1, 0});
  }
  SECTION("per-tensor: mul 3, add 1, shift 2 on both channels") {
    // y = (3*acc + 1 + 2) >> 2:  -3 -> -6 >> 2 = -2;  -11 -> -30 >> 2 = -8;  100 -> 303 >> 2 = 75;
    //   195 -> 588 >> 2 = 147 -> clamp 127;  1 -> 6 >> 2 = 1;  -3 -> -6 >> 2 = -2
    const std::int32_t m1[1] = {3};
    const std::int32_t a1[1] = {1};
    const requant_params pt{.enabled = true, .mul = m1, .add = a1, .length = 1, .inner = 1, .shift = 2, .lo = -128, .hi = 127};
    std::int8_t out[6] = {};
    conv2d(d, in, w, bias, pt, out, nullptr);
    CHECK(std::vector<int>(out, out + 6) == std::vector<int>{-2, -8, 75, 127, 1, -2});
  }
}

TEST_CASE("conv2d: the requant entry comes from the flat NHWC output index", "[reference][conv2d]") {
  // Same 1x1 conv as above (acc = [-3, -11 | 100, 195 | 1, -3]) with one requant entry per
  // output pixel (length 3, inner out_c = 2), add {0, 10, 20}, mul 1, shift 0:
  //   pixel 0: -3, -11;  pixel 1: 110, 205;  pixel 2: 21, 17
  const conv2d_dims d = simple_dims(1, 3, 1, 1, 3, 2, 1, 1);
  const std::int8_t in[3] = {-3, 100, 1};
  const std::int8_t w[2] = {1, 2};
  const std::int32_t bias[2] = {0, -5};
  const std::int32_t mul[3] = {1, 1, 1};
  const std::int32_t add[3] = {0, 10, 20};
  const requant_params rq{.enabled = true, .mul = mul, .add = add, .length = 3, .inner = 2, .shift = 0, .lo = -1000, .hi = 1000};
  std::int32_t out[6] = {};
  conv2d(d, in, w, bias, rq, out, nullptr);
  CHECK(std::vector<std::int32_t>(out, out + 6) == std::vector<std::int32_t>{-3, -11, 110, 205, 21, 17});
}

namespace {

// Independent formula from the corpus spec: NCHW tensors, ONNX weights [F][C/g][KH][KW],
// an explicitly zero-padded input, int64 accumulation.
std::vector<std::int32_t> conv_nchw(int n_batch, int c_in, int h, int w_, int f_out, int kh, int kw, int sh, int sw,
                                    int dh, int dw, int pt, int pl, int pb, int pr, int groups,
                                    const std::vector<int>& x_nchw, const std::vector<int>& w_fckk,
                                    const std::vector<int>& bias, int& ho, int& wo) {
  const int hp = h + pt + pb;
  const int wp = w_ + pl + pr;
  ho = (hp - dh * (kh - 1) - 1) / sh + 1;
  wo = (wp - dw * (kw - 1) - 1) / sw + 1;
  std::vector<int> xpad(static_cast<std::size_t>(n_batch) * c_in * hp * wp, 0);
  for (int n = 0; n < n_batch; ++n)
    for (int c = 0; c < c_in; ++c)
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w_; ++x)
          xpad[((n * c_in + c) * hp + y + pt) * wp + x + pl] = x_nchw[((n * c_in + c) * h + y) * w_ + x];
  const int cg = c_in / groups;
  const int fg = f_out / groups;
  std::vector<std::int32_t> out(static_cast<std::size_t>(n_batch) * f_out * ho * wo);
  for (int n = 0; n < n_batch; ++n)
    for (int f = 0; f < f_out; ++f)
      for (int y = 0; y < ho; ++y)
        for (int x = 0; x < wo; ++x) {
          std::int64_t s = bias[f];
          const int g = f / fg;
          for (int c = 0; c < cg; ++c)
            for (int i = 0; i < kh; ++i)
              for (int j = 0; j < kw; ++j)
                s += std::int64_t{xpad[((n * c_in + g * cg + c) * hp + y * sh + i * dh) * wp + x * sw + j * dw]} *
                     w_fckk[((f * cg + c) * kh + i) * kw + j];
          out[((n * f_out + f) * ho + y) * wo + x] = static_cast<std::int32_t>(s);
        }
  return out;
}

}  // namespace

TEST_CASE("conv2d: randomized agreement with a direct NCHW formula", "[reference][conv2d][random]") {
  std::mt19937 rng(20240611u);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 200; ++trial) {
    const int groups = uni(1, 3);
    const int c_in = groups * uni(1, 3);
    const int f_out = groups * uni(1, 3);
    const int n_batch = uni(1, 2);
    const int kh = uni(1, 3), kw = uni(1, 3);
    const int sh = uni(1, 3), sw = uni(1, 3);
    const int dh = uni(1, 2), dw = uni(1, 2);
    const int pt = uni(0, kh - 1), pb = uni(0, kh - 1), pl = uni(0, kw - 1), pr = uni(0, kw - 1);
    const int h = dh * (kh - 1) + uni(1, 5);  // big enough for at least one output
    const int w_ = dw * (kw - 1) + uni(1, 5);
    const int cg = c_in / groups;

    std::vector<int> x_nchw(static_cast<std::size_t>(n_batch) * c_in * h * w_);
    std::vector<int> w_fckk(static_cast<std::size_t>(f_out) * cg * kh * kw);
    std::vector<int> bias(static_cast<std::size_t>(f_out));
    for (int& v : x_nchw) v = uni(-128, 127);
    for (int& v : w_fckk) v = uni(-128, 127);
    for (int& v : bias) v = uni(-100000, 100000);
    int ho = 0, wo = 0;
    const auto expected = conv_nchw(n_batch, c_in, h, w_, f_out, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr, groups,
                                    x_nchw, w_fckk, bias, ho, wo);

    // Tessera layouts: NHWC input, [F][KH][KW][C/g] weights.
    std::vector<std::int8_t> x_nhwc(x_nchw.size());
    for (int n = 0; n < n_batch; ++n)
      for (int c = 0; c < c_in; ++c)
        for (int y = 0; y < h; ++y)
          for (int x = 0; x < w_; ++x)
            x_nhwc[((n * h + y) * w_ + x) * c_in + c] = static_cast<std::int8_t>(x_nchw[((n * c_in + c) * h + y) * w_ + x]);
    std::vector<std::int8_t> w_fkkc(w_fckk.size());
    for (int f = 0; f < f_out; ++f)
      for (int c = 0; c < cg; ++c)
        for (int i = 0; i < kh; ++i)
          for (int j = 0; j < kw; ++j)
            w_fkkc[((f * kh + i) * kw + j) * cg + c] = static_cast<std::int8_t>(w_fckk[((f * cg + c) * kh + i) * kw + j]);
    std::vector<std::int32_t> b32(bias.begin(), bias.end());

    const conv2d_dims d{n_batch, h, w_, c_in, ho, wo, f_out, kh, kw, sh, sw, dh, dw, pt, pl, groups};
    std::vector<std::int32_t> got(expected.size(), 0x7eadbeef);
    conv2d(d, x_nhwc.data(), w_fkkc.data(), b32.data(), requant_params{}, got.data(), nullptr);

    bool all_equal = true;
    for (int n = 0; n < n_batch; ++n)
      for (int f = 0; f < f_out; ++f)
        for (int y = 0; y < ho; ++y)
          for (int x = 0; x < wo; ++x)
            all_equal = all_equal && got[((n * ho + y) * wo + x) * f_out + f] == expected[((n * f_out + f) * ho + y) * wo + x];
    INFO("trial " << trial << ": groups " << groups << " c_in " << c_in << " f_out " << f_out << " k " << kh << "x"
                  << kw << " s " << sh << "," << sw << " d " << dh << "," << dw << " pads " << pt << "," << pl << ","
                  << pb << "," << pr);
    REQUIRE(all_equal);
  }
}
