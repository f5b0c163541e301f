// Compile-time constants of the arm_dsp convolutions: what a kernel otherwise derives per call
// from a layer's weights, bias and requantization into its scratch (the epilogue table, 12 bytes
// per channel; conv2d's expanded-weight cache; depthwise_hwc's weight pairs) computed by the
// compiler into flash for a layer whose constants are template arguments, as every network's
// are (onnx2hpp writes them so). The arena then holds only what depends on the feature map:
// the keyword-spotting DS-CNN on a Cortex-M4 drops from 26,576 to 17,856 bytes of arena, and
// no call spends instructions on the tables (docs/benchmarks.md).
//
// The same functions compute the constants here and in the kernels' per-call path (a tile, whose
// weights a DMA brought to L1): make_epilogue, detail::product_epilogue and pair_taps are constant
// expressions used by both; the expansion is detail::expand_pairs_portable here and its SXTB16
// twin detail::expand_pairs per call, one layout, and the kernel tests run both. What ends in
// flash: 12 bytes per output channel for the table and, for conv2d, the expanded weights where
// conv2d_weight_cache_bytes takes them (2 bytes per weight, rounded up to whole groups of 4 per
// filter), else the 8-bit weights regrouped as channel-pair words (conv2d_flash_format), in
// place of the 8-bit weights, which the kernel then no longer reads
// (kernels::conv2d_layer passes nullptr, so the linker drops them); depthwise_hwc's pairs likewise
// when its channels are whole groups of 4. The raw and exact epilogue kinds read the original
// requantization arrays and bias at run time; the others read only the table. The kernel
// variants a layer runs (conv2d's 2x4 kernel that stores its outputs, depthwise_chw's row
// kernel) are chosen here too, by the functions the per-call path runs, so that a firmware links
// only the variants its layers use.
#pragma once

#include <cstddef>
#include <cstdint>

#include <tessera/kernels/arm_dsp/conv2d_im2col.hpp>
#include <tessera/kernels/arm_dsp/depthwise_chw.hpp>
#include <tessera/kernels/arm_dsp/depthwise_hwc.hpp>
#include <tessera/kernels/arm_dsp/epilogue.hpp>
#include <tessera/kernels/arm_dsp/gemm_rows.hpp>
#include <tessera/kernels/arm_dsp/traits.hpp>
#include <tessera/kernels/conv_variant.hpp>

namespace tessera::kernels::arm_dsp {

// The convolution kernels that take flash_constants are named by their conv_variant: im2col
// (conv2d_im2col), depthwise_hwc and depthwise_chw.

/// How a whole layer's conv2d weights are held in flash: expanded to int16 where the
/// weight-cache budget takes them (16 cycles per 16 MACs in the 2x4 kernel), else as 8-bit
/// channel-pair words the 2x4 kernel widens itself (18 cycles, against 22 for the 1x4 kernel
/// that a tile runs from 8-bit rows; no bigger than the 8-bit weights, which are then not
/// linked).
constexpr weight_format conv2d_flash_format(const reference::conv2d_dims& d) {
  return conv2d_weight_cache_bytes(d) != 0 ? weight_format::expanded : weight_format::byte_pairs;
}

/// Weight words a kernel takes from flash: conv2d's weights in conv2d_flash_format (expanded:
/// the cache's size; byte pairs: a word per channel and group), depthwise_hwc's pairs; none for
/// depthwise_chw (its per-channel taps are set up per channel).
constexpr std::size_t flash_weight_words(conv_variant k, const reference::conv2d_dims& d) {
  switch (k) {
    case conv_variant::im2col:
      if (conv2d_flash_format(d) == weight_format::expanded) return conv2d_weight_cache_bytes(d) / 4;
      return std::size_t(d.out_c) * ((std::size_t(d.kernel_h) * d.kernel_w * d.in_c + 3) / 4);
    case conv_variant::depthwise_hwc: return depthwise_tap_pairs(d) * round_up(std::size_t(d.in_c), channel_lanes);
    case conv_variant::depthwise_chw:
    case conv_variant::reference: return 0;
  }
  return 0;
}

/// |acc| bound before the bias that the kernel's per-call make_epilogue uses (the same number).
template <class TIn>
constexpr std::int64_t flash_acc_bound(conv_variant k, const reference::conv2d_dims& d) {
  const std::int64_t terms =
      k == conv_variant::im2col ? std::int64_t{d.kernel_h} * d.kernel_w * d.in_c : std::int64_t{d.kernel_h} * d.kernel_w;
  return product_bound<TIn, std::int8_t>(terms);
}

/// The storage behind a flash_constants: `Entries` table entries and `Words` weight words.
template <std::size_t Entries, std::size_t Words>
struct flash_storage {
  epilogue_kind kind = epilogue_kind::raw;
  rq_entry table[Entries > 0 ? Entries : 1]{};
  std::uint32_t weights[Words > 0 ? Words : 1]{};
};

/// The constants pointing at `table` and `weight_words`, with the kernel variants that kernel
/// `k` runs for epilogue `kind` (those the per-call path would choose).
template <class TOut>
constexpr flash_constants flash_constants_of(conv_variant k, const reference::conv2d_dims& d, epilogue_kind kind,
                                             const rq_entry* table, const std::uint32_t* weight_words) {
  flash_constants c{kind, table, weight_words};
  if (k == conv_variant::im2col && weight_words != nullptr) {
    const weight_format format = conv2d_flash_format(d);
    c.pairs = detail::pair_kernels_for(format);
    c.block_store = detail::block_store_kernel<TOut>(kind, format);
  }
  if (k == conv_variant::depthwise_chw) c.chw_row = detail::chw_row_for<TOut>(d, kind);
  return c;
}

/// Fills `table` (d.out_c entries when `rq` is enabled) and `weights` (flash_weight_words) with
/// what kernel `k` derives per call, and returns the constants that point at them. layer_flash
/// calls it at compile time; the kernel tests call it at run time on random layers, so the
/// portable expansion the compiler bakes is checked against the reference there too.
template <class TIn, class TOut>
constexpr flash_constants derive_flash(conv_variant k, const reference::conv2d_dims& d, const std::int8_t* weights,
                                       const std::int32_t* bias, const requant_params& rq, rq_entry* table,
                                       std::uint32_t* weight_words) {
  const epilogue_kind kind = make_epilogue<TOut>(rq, d.out_c, table, bias, flash_acc_bound<TIn>(k, d)).kind;
  const std::size_t words = flash_weight_words(k, d);
  if (k == conv_variant::im2col && words > 0) {
    const int reduction = d.kernel_h * d.kernel_w * d.in_c;
    if (conv2d_flash_format(d) == weight_format::expanded)
      detail::expand_pairs_portable(weights, reduction, d.out_c, weight_words);
    else detail::pair_bytes_portable(weights, reduction, d.out_c, weight_words);
  }
  if (k == conv_variant::depthwise_hwc) pair_taps(weights, d.in_c, d.kernel_h * d.kernel_w, weight_words);
  return flash_constants_of<TOut>(k, d, kind, rq.enabled ? table : nullptr, words > 0 ? weight_words : nullptr);
}

/// Whether kernel `k` reads the 8-bit weights when given flash constants (kernels::conv2d_layer
/// passes nullptr otherwise, so the linker drops them): conv2d never (its weights come from
/// flash in one of two formats, conv2d_flash_format), depthwise_hwc for channels past the last
/// group of 4, depthwise_chw always.
constexpr bool flash_needs_weights(conv_variant k, const reference::conv2d_dims& d) {
  switch (k) {
    case conv_variant::im2col: return flash_weight_words(k, d) == 0;
    case conv_variant::depthwise_hwc: return d.in_c % channel_lanes != 0;
    case conv_variant::depthwise_chw:
    case conv_variant::reference: return true;
  }
  return true;
}

/// A layer's constants in flash: D, W, B and R are the op's dims, weights, bias and
/// requantization (template arguments, so `storage` is computed once by the compiler).
template <conv_variant K, class TIn, class TOut, const reference::conv2d_dims& D, auto const& W, auto const& B,
          auto const& R>
struct layer_flash {
  static constexpr requant_params rq = R.params();
  static constexpr std::size_t entries = rq.enabled ? static_cast<std::size_t>(D.out_c) : 0;
  static constexpr std::size_t words = flash_weight_words(K, D);

  static constexpr flash_storage<entries, words> bake() {
    flash_storage<entries, words> s{};
    s.kind = derive_flash<TIn, TOut>(K, D, W.data(), B.data(), rq, s.table, s.weights).kind;
    return s;
  }
  static constexpr flash_storage<entries, words> storage = bake();

  /// Whether the kernel reads the requantization arrays and bias at run time (the raw and
  /// exact kinds), and the 8-bit weights.
  static constexpr bool needs_requant = storage.kind == epilogue_kind::raw || storage.kind == epilogue_kind::exact;
  static constexpr bool needs_weights = flash_needs_weights(K, D);
  static constexpr flash_constants constants = flash_constants_of<TOut>(
      K, D, storage.kind, entries > 0 ? storage.table : nullptr, words > 0 ? storage.weights : nullptr);
};

/// A fully connected layer's table (gemm_rows): per output feature with the bias folded in, or
/// per row (then the kernel adds the bias to its sums at run time). `table` holds max(m, n)
/// entries. Constant expression, like derive_flash.
template <class TA, class TOut>
constexpr flash_constants derive_gemm_flash(const reference::gemm_dims& d, const std::int32_t* bias,
                                            const requant_params& rq, rq_entry* table) {
  const epilogue_plan p = detail::product_epilogue<true, TA, TOut>(d.m, d.n, d.k, bias, rq, table);
  return {p.kind, rq.enabled ? table : nullptr, nullptr};
}

/// A Gemm layer's table in flash (D, B, R: the op's dims, bias and requantization).
template <class TA, class TOut, const reference::gemm_dims& D, auto const& B, auto const& R>
struct gemm_layer_flash {
  static constexpr requant_params rq = R.params();
  static constexpr std::size_t entries = rq.enabled ? static_cast<std::size_t>(D.n > D.m ? D.n : D.m) : 0;

  static constexpr flash_storage<entries, 0> bake() {
    flash_storage<entries, 0> s{};
    s.kind = derive_gemm_flash<TA, TOut>(D, B.data(), rq, s.table).kind;
    return s;
  }
  static constexpr flash_storage<entries, 0> storage = bake();

  /// The raw and exact kinds read the requantization arrays and the bias at run time; a
  /// per-row requantization adds the bias to its sums.
  static constexpr bool needs_requant = storage.kind == epilogue_kind::raw || storage.kind == epilogue_kind::exact;
  static constexpr bool needs_bias = needs_requant || is_rowwise(rq, D.m, D.n);
  static constexpr flash_constants constants{storage.kind, entries > 0 ? storage.table : nullptr, nullptr};
};

}  // namespace tessera::kernels::arm_dsp
