// arm_dsp elementwise Add / Sub of two 8-bit tensors with the requantization fused: sums of a
// chunk of channels into int32, then the shared epilogue (epilogue.hpp): 12 instructions per
// int8 element measured (the reference: 36). B is either dense like A or one row of channels
// broadcast over all rows.
#pragma once

#include <cstddef>
#include <cstdint>

#include <tessera/core/requant.hpp>
#include <tessera/kernels/algorithm/binary.hpp>
#include <tessera/kernels/arm_dsp/epilogue.hpp>
#include <tessera/kernels/arm_dsp/traits.hpp>
#include <tessera/kernels/reference/binary.hpp>

namespace tessera::kernels::arm_dsp {

/// out[i] = a[i] +/- b[i] (or b[i mod C] for a broadcast row), requantized per tensor or per
/// channel of the last dimension C.
/// - `a`: dense over `d.out`, `b`: dense or one broadcast row (binary_layout_supported), 8-bit.
/// - `out`: dense over `d.out`; int32 sums when requantization is disabled.
/// - `scratch`: binary_scratch(d).total bytes, any alignment.
template <class TA, class TB, class TOut>
void binary_add_sub(reference::binary_op op, const reference::binary_dims& d, const TA* a, const TB* b,
                    const requant_params& rq, TOut* out, void* scratch) {
  const int channels = d.out[static_cast<std::size_t>(d.rank - 1)];
  const auto layout = binary_scratch(d);
  auto* sums = layout.part<std::int32_t>(scratch, 0);
  auto* table = layout.part<rq_entry>(scratch, 1);
  const epilogue_plan plan =
      make_epilogue<TOut>(rq, channels, table, nullptr, value_bound<TA>() + value_bound<TB>());
  const bool add = op == reference::binary_op::add;
  algorithm::binary_rows(d, a, b, out, [&](const TA* ar, const TB* br, TOut* o, int n_channels) {
    for (int c0 = 0; c0 < n_channels; c0 += binary_chunk) {
      const int n = n_channels - c0 < binary_chunk ? n_channels - c0 : binary_chunk;
      if (add) {
        for (int i = 0; i < n; ++i) sums[i] = std::int32_t{ar[c0 + i]} + std::int32_t{br[c0 + i]};
      } else {
        for (int i = 0; i < n; ++i) sums[i] = std::int32_t{ar[c0 + i]} - std::int32_t{br[c0 + i]};
      }
      store_channels<1>(sums, plan, c0, n, o + c0);
    }
  });
}

}  // namespace tessera::kernels::arm_dsp
