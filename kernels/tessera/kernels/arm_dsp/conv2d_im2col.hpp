// arm_dsp conv2d (groups == 1, any kernel, stride, dilation, padding; 1x1 included): the generic
// pixel-block loop (algorithm/conv2d.hpp) with im2col of 4 output pixels at a time into int16,
// then the micro-kernel for every output channel: 2 channels x 4 pixels when the layer's weights
// fit the expanded-weight cache (conv2d_weight_cache_bytes, expanded into channel pairs once per
// call, or once per filter block when the tiles of a layer say their scratch is `prepared`; a
// whole layer's come from flash, beyond the budget as 8-bit channel-pair words the kernel
// widens itself), 1 x 4 from the 8-bit weights otherwise.
//
// Estimated Cortex-M4 cycles per 16 MACs (docs/benchmarks.md, "Cycle model"; the shapes and
// loops were chosen by cycles, not instructions): 16 in the 2x4 kernel from expanded weights,
// 18 from 8-bit pair words, 22 in the 1x4 kernel. Around it: the block's expansion (an interior
// pixel's kernel rows straight from the input, a border pixel staged whole and expanded once; a
// 1x1 stride-1 layer packs its 4 consecutive pixels in one pass, about 26 cycles a group of all
// 4 pixels) and the epilogue: a whole 4-pixel block with a saturating 8-bit epilogue is
// requantized and stored by the 2x4 kernel from its registers (about 9 cycles an output, against
// 12 through the accumulator block and the per-pixel store loop), other blocks and epilogues go
// through the accumulators (5.5 instructions per 8-bit output).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <tessera/core/requant.hpp>
#include <tessera/core/window.hpp>
#include <tessera/kernels/algorithm/conv2d.hpp>
#include <tessera/kernels/algorithm/im2col.hpp>
#include <tessera/kernels/arm_dsp/detail/expand.hpp>
#include <tessera/kernels/arm_dsp/detail/mat_mult.hpp>
#include <tessera/kernels/arm_dsp/epilogue.hpp>
#include <tessera/kernels/arm_dsp/traits.hpp>
#include <tessera/kernels/reference/conv2d.hpp>

namespace tessera::kernels::arm_dsp {

namespace detail {

/// im2col's `Pack` for the byte staging row (algorithm/im2col.hpp): short byte runs, a few taps'
/// channels. The empty asm keeps GCC from turning the loops into memset/memcpy calls, which
/// cost more than the copy itself at these lengths. Padding taps are the stored byte of the
/// input's zero point (`pad`), which the expansion then widens like any input byte.
struct stage_bytes {
  std::uint8_t pad;
  std::uint8_t* zero(std::uint8_t* dst, int n) const {
    const std::uint8_t v = pad;
    for (int i = 0; i < n; ++i) {
      *dst++ = v;
      asm("" : "+r"(dst));
    }
    return dst;
  }
  static std::uint8_t* copy(std::uint8_t* dst, const std::uint8_t* src, int n) {
    for (int i = 0; i < n; ++i) {
      *dst++ = *src++;
      asm("" : "+r"(dst));
    }
    return dst;
  }
};

/// im2col of output pixel (oy, ox) into its slot of a 4-pixel block (`dst`: the slot's first
/// group; groups are 8 words apart). When the pixel's window columns are inside the input and
/// a kernel row's kernel_w*in_c bytes split into whole words, each kernel row is expanded
/// straight from the input; otherwise the whole pixel is staged as bytes by the generic walk
/// (algorithm/im2col.hpp: padding, dilation, odd rows) and expanded once. The window's fields
/// are read into locals first (the expansion's asm clobbers memory): read through `d` per kernel
/// row, with the row's offset multiplied out each time, they cost a 10x4 single-channel layer
/// about 30 cycles a kernel row for 4 taps, and staging each border row by its own call about
/// 100 (together 4% of the keyword-spotting network's cycles on the Cortex-M4).
template <class TIn>
void im2col_pixel(const reference::conv2d_dims& d, const TIn* in, int oy, int ox, bool contiguous, std::uint32_t* dst,
                  std::uint8_t* staging) {
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(in);
  const int segment = d.kernel_w * d.in_c;
  const int kernel_h = d.kernel_h;
  if (segment % 4 != 0 || !contiguous) {
    stage_bytes pack{static_cast<std::uint8_t>(d.pad_value)};
    algorithm::im2col_pixel(d, bytes, oy, ox, staging, pack);
    expand_row<TIn, 8>(reinterpret_cast<const TIn*>(staging), kernel_h * segment, dst);
    return;
  }
  const int in_h = d.in_h, dilation_h = d.dilation_h, groups = segment / 4;
  const std::uint32_t pad = pad_pair(d.pad_value);
  const std::ptrdiff_t step = std::ptrdiff_t{d.in_w} * d.in_c * dilation_h;
  int iy = window::origin(oy, d.stride_h, d.pad_top);
  const std::uint8_t* src =
      bytes + (std::int64_t{iy} * d.in_w + window::origin(ox, d.stride_w, d.pad_left)) * d.in_c;
  for (int i = 0; i < kernel_h; ++i, iy += dilation_h, src += step) {
    if (iy < 0 || iy >= in_h) dst = fill_groups<8>(groups, pad, dst);
    else dst = expand_groups<TIn, 8>(reinterpret_cast<const TIn*>(src), groups, dst);
  }
}

/// Whether a block of 4 pixels is 4 consecutive input pixels of whole groups: a 1x1 stride-1
/// convolution without padding whose pixels hold whole 4-byte groups.
constexpr bool packs_consecutive_pixels(const reference::conv2d_dims& d) {
  return d.kernel_h == 1 && d.kernel_w == 1 && d.stride_h == 1 && d.stride_w == 1 && d.pad_top == 0 &&
         d.pad_left == 0 && d.out_h == d.in_h && d.out_w == d.in_w && d.in_c % 4 == 0;
}

/// Arguments of the asm block pack of 4 consecutive pixels (offsets are part of its code).
struct pixels4_args {
  const void* src;     // 0: pixel 0's first channel
  std::uint32_t* dst;  // 4: the block ([group][pixel][even, odd] words)
  int pixel_bytes;     // 8: bytes from one pixel to the next (in_c, a multiple of 4)
  int groups;          // 12: groups per pixel (>= 1)
};
static_assert(offsetof(pixels4_args, dst) == 4 && offsetof(pixels4_args, pixel_bytes) == 8 &&
              offsetof(pixels4_args, groups) == 12);

// A 1x1 layer's block straight from the input: per group, the 4 pixels' words (four pipelined
// LDRs, three at register offsets 1, 2 and 3 pixels on), SXTB16/UXTB16 into the block's 8 words
// and one STM: about 26 estimated Cortex-M4 cycles a group of 4 pixels, against about 50 per
// pixel and kernel row plus 8.4 a group through im2col_pixel (a 1x1 32->64 layer's pack went
// from 200 to about 60 cycles a pixel). Registers: r0 source, r1-r3 one to three pixels' bytes,
// r4-r11 the block's words in store order, r12 destination, lr the groups left.
#define TESSERA_DSP_PACK_PIXELS4(EXT) \
  "push {r4-r11, lr}\n\t"            \
  "ldr r12, [r0, #4]\n\t"            \
  "ldr r1, [r0, #8]\n\t"             \
  "ldr lr, [r0, #12]\n\t"            \
  "ldr r0, [r0]\n\t"                 \
  "add r2, r1, r1\n\t"               \
  "add r3, r2, r1\n\t"               \
  "1:\n\t"                           \
  "ldr r7, [r0, r1]\n\t"             \
  "ldr r9, [r0, r2]\n\t"             \
  "ldr r11, [r0, r3]\n\t"            \
  "ldr r5, [r0], #4\n\t"             \
  EXT " r4, r5\n\t"                  \
  EXT " r5, r5, ror #8\n\t"          \
  EXT " r6, r7\n\t"                  \
  EXT " r7, r7, ror #8\n\t"          \
  EXT " r8, r9\n\t"                  \
  EXT " r9, r9, ror #8\n\t"          \
  EXT " r10, r11\n\t"                \
  EXT " r11, r11, ror #8\n\t"        \
  "stm r12!, {r4-r11}\n\t"           \
  "subs lr, lr, #1\n\t"              \
  "bne 1b\n\t"                       \
  "pop {r4-r11, pc}\n\t"
[[gnu::naked, gnu::noinline]] inline void pack_pixels4_s8(const pixels4_args*) {
  asm volatile(TESSERA_DSP_PACK_PIXELS4("sxtb16"));
}
[[gnu::naked, gnu::noinline]] inline void pack_pixels4_u8(const pixels4_args*) {
  asm volatile(TESSERA_DSP_PACK_PIXELS4("uxtb16"));
}
#undef TESSERA_DSP_PACK_PIXELS4

/// The block of `count` <= 4 pixels starting at the cursor (the other slots are zeroed so the
/// micro-kernel reads defined values).
template <class TIn>
[[gnu::noinline]] void im2col_block(const reference::conv2d_dims& d, const TIn* in, algorithm::pixel_cursor& cursor,
                                    int count, int groups, std::uint32_t* col, std::uint8_t* staging) {
  algorithm::pixel_cursor at = cursor;  // a local copy: the byte stores below could alias `cursor`
  for (int p = 0; p < tile_pixels; ++p) {
    if (p < count) {
      im2col_pixel(d, in, at.y(), at.x(), d.dilation_w == 1 && at.columns_inside(), col + 2 * p, staging);
      at.next();
    } else {
      fill_groups<8>(groups, 0, col + 2 * p);
    }
  }
  cursor = at;
}

using block_store_fn = void (*)(const pair_store_args*);

/// The 2x4 kernel that requantizes and stores TOut itself for epilogue kind `k` (the 8-bit
/// saturating kinds), or nullptr. A constant expression: a whole layer's is chosen at compile
/// time (flash_constants::block_store), so its firmware links only that variant.
template <class TOut>
constexpr block_store_fn block_store_kernel(epilogue_kind k, weight_format f = weight_format::expanded) {
  if constexpr (sizeof(TOut) != 1) {
    return nullptr;
  } else {
    const bool bytes = f == weight_format::byte_pairs;
    if (k == epilogue_kind::sat) {
      if constexpr (std::is_signed_v<TOut>) return bytes ? &block_2x4_bytes_store_s8_asm : &block_2x4_store_s8_asm;
      else return bytes ? &block_2x4_bytes_store_u8_asm : &block_2x4_store_u8_asm;
    }
    if (std::is_signed_v<TOut> && k == epilogue_kind::sat_lo0) {
      return bytes ? &block_2x4_bytes_store_u7_asm : &block_2x4_store_u7_asm;
    }
    return nullptr;
  }
}

/// The 2x4 kernel's accumulating forms for one prepared-weight format: every channel into
/// `acc` (acc[4c + p]), and the odd last channel alone, after `pairs` pairs, through the 1x4
/// kernel. A whole layer's is chosen at compile time (flash_constants::pairs), so a firmware
/// links only the formats its layers use.
struct pair_kernels {
  void (*all)(const std::uint32_t* w, int groups, int n, const std::int16_t* col, std::int32_t* acc);
  void (*last)(const std::uint32_t* w, int groups, int pairs, const std::int16_t* col, std::int32_t* acc);
};
inline constexpr pair_kernels expanded_pair_kernels{&block_2x4_expanded, &last_row_expanded};
inline constexpr pair_kernels byte_pair_kernels{&block_2x4_bytes, &last_row_bytes};
constexpr const pair_kernels* pair_kernels_for(weight_format f) {
  return f == weight_format::byte_pairs ? &byte_pair_kernels : &expanded_pair_kernels;
}

/// The block's 4 pixels requantized and stored by `kernel` (block_store_kernel of the plan's
/// kind; `out`: pixel 0's first channel; a pixel's `n` channels are contiguous, the next
/// pixel's follow); an odd last channel through the 1x4 kernel and `acc`.
template <class TOut>
void block_2x4_store8(block_store_fn kernel, const pair_kernels& k, const epilogue_plan& plan, const std::uint32_t* w,
                      int groups, int n, const std::int16_t* col, TOut* out, std::int32_t* acc) {
  const int pairs = n / 2;
  auto* bytes = reinterpret_cast<std::uint8_t*>(out);
  if (pairs > 0) {
    const pair_store_args args{w,          col, col + 16 * groups, bytes, bytes + 2 * pairs, (groups - 1) % 4,
                               reinterpret_cast<const std::uint32_t*>(plan.table), n};
    kernel(&args);
  }
  if (n % 2 != 0) {
    k.last(w, groups, pairs, col, acc);
    store_fixed(acc, 1, plan, n - 1, tile_pixels, out + (n - 1), n);
  }
}

}  // namespace detail

/// The convolution's atom (algorithm/conv2d.hpp): 4-pixel im2col blocks, then the micro-kernel
/// over every output channel, storing the outputs itself (`block_store`, with prepared weights
/// and a saturating 8-bit epilogue) or into a block of accumulators for the epilogue per pixel.
template <class TIn, class TOut>
struct conv2d_atom {
  static constexpr int pixels = tile_pixels;
  const reference::conv2d_dims& d;
  int groups;
  std::uint32_t* col;
  std::uint8_t* staging;
  std::int32_t* acc;
  epilogue_plan plan;
  detail::weight_rows rows;
  const std::uint32_t* cache;  ///< the prepared weights (2x4 kernel), or nullptr: the 1x4 from `rows`
  const detail::pair_kernels* pairs;   ///< the 2x4 kernel's forms for `cache`'s format
  detail::block_store_fn block_store;  ///< the 2x4 kernel storing TOut, or nullptr
  algorithm::pixel_cursor at{};  ///< set at each image's first block

  void pack(const TIn* image, int p0, int count) {
    if (p0 == 0) at = algorithm::pixel_cursor(d);
    if (count == tile_pixels && detail::packs_consecutive_pixels(d)) {
      const detail::pixels4_args args{image + std::int64_t{p0} * d.in_c, col, d.in_c, groups};
      if constexpr (std::is_signed_v<TIn>) detail::pack_pixels4_s8(&args);
      else detail::pack_pixels4_u8(&args);
      for (int p = 0; p < tile_pixels; ++p) at.next();  // a later partial block reads the cursor
      return;
    }
    detail::im2col_block(d, image, at, count, groups, col, staging);
  }
  void compute(int count, TOut* out, std::ptrdiff_t) {
    const auto* block = reinterpret_cast<const std::int16_t*>(col);
    // A whole block with a saturating 8-bit epilogue: stored by the kernel itself.
    if (block_store != nullptr && count == tile_pixels) {
      return detail::block_2x4_store8(block_store, *pairs, plan, cache, groups, d.out_c, block, out, acc);
    }
    if (cache != nullptr) pairs->all(cache, groups, d.out_c, block, acc);
    else detail::block_1x4<true>(rows, d.out_c, block, acc);
    for (int p = 0; p < count; ++p) store_channels<tile_pixels>(acc + p, plan, 0, d.out_c, out + std::int64_t{p} * d.out_c);
  }
};

/// Standard convolution, NHWC.
/// - `input`:   [batch][in_h][in_w][in_c], int8 or uint8.
/// - `weights`: [out_c][kernel_h][kernel_w][in_c] int8 (groups == 1).
/// - `bias`:    [out_c] int32 or nullptr.
/// - `rq`:      disabled (TOut = int32 accumulators), per tensor, or per output channel.
/// - `output`:  [batch][out_h][out_w][out_c].
/// - `scratch`: conv2d_scratch(d).total bytes, any alignment.
/// - `prepared`: `scratch` holds the expanded weights and requantization table of an earlier
///   call with the same weights, bias, requantization and channels (only the map may differ):
///   the parts after the accumulators do not depend on the map, so they are kept.
/// - `flash`: the table, expanded weights and store kernel computed at compile time
///   (flash_constants.hpp); then `scratch` is conv2d_scratch(d, true).total bytes, and `weights`
///   is read only where `flash->weights` is nullptr (it may be nullptr otherwise).
/// - `From`: constants_from::flash when `flash` is given (the layer's kernel variants come from
///   it, and the run-time choice among them, which would link every variant, is not
///   instantiated).
/// Bit-exact with reference::conv2d whenever the int32 sum does not overflow (the reference's
/// own precondition).
template <constants_from From = constants_from::call, class TIn, class TOut>
void conv2d_im2col(const reference::conv2d_dims& d, const TIn* input, const std::int8_t* weights,
                   const std::int32_t* bias, const requant_params& rq, TOut* output, void* scratch,
                   bool prepared = false, const flash_constants* flash = nullptr) {
  const int k = d.kernel_h * d.kernel_w * d.in_c;
  const int groups = (k + 3) / 4;
  const auto layout = conv2d_scratch(d, flash != nullptr);
  const std::uint32_t* cache = flash != nullptr ? flash->weights : nullptr;
  epilogue_plan plan{};
  if (flash != nullptr) {
    plan = flash->plan(bias, rq);
  } else {
    auto* table = layout.part<rq_entry>(scratch, 3);
    plan = make_epilogue<TOut>(rq, d.out_c, table, bias, product_bound<TIn, std::int8_t>(k), prepared);
    if (conv2d_weight_cache_bytes(d) != 0 && groups > 0) {
      auto* expanded = layout.part<std::uint32_t>(scratch, 4);
      if (!prepared) detail::expand_pairs(weights, k, d.out_c, expanded);
      cache = expanded;
    }
  }
  conv2d_atom<TIn, TOut> atom{d,
                              groups,
                              layout.part<std::uint32_t>(scratch, 0),
                              layout.part<std::uint8_t>(scratch, 1),
                              layout.part<std::int32_t>(scratch, 2),
                              plan,
                              {reinterpret_cast<const std::uint8_t*>(weights), k / 4, k % 4},
                              cache,
                              nullptr,
                              nullptr};
  if constexpr (From == constants_from::flash) {
    atom.pairs = flash->pairs;
    atom.block_store = flash->block_store;
  } else if (cache != nullptr) {
    atom.pairs = &detail::expanded_pair_kernels;
    atom.block_store = detail::block_store_kernel<TOut>(plan.kind);
  }
  algorithm::conv2d_pixel_blocks(d, input, output, atom);
}

}  // namespace tessera::kernels::arm_dsp
