#include "layout_math.hpp"

#include "shape_math.hpp"

namespace tessera::onnx2hpp {

permutation identity_permutation(std::size_t rank) {
  permutation p(rank);
  for (std::size_t i = 0; i < rank; ++i) p[i] = static_cast<int>(i);
  return p;
}

permutation channels_last_permutation(std::size_t rank) {
  permutation p{0};
  for (std::size_t i = 2; i < rank; ++i) p.push_back(static_cast<int>(i));
  p.push_back(1);
  return p;
}

permutation inverse(const permutation& p) {
  permutation inv(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) inv[static_cast<std::size_t>(p[i])] = static_cast<int>(i);
  return inv;
}

bool is_identity(const permutation& p) { return p == identity_permutation(p.size()); }

layout plain_layout(const dims& logical, permutation perm) { return {logical, std::move(perm)}; }

bool is_plain(const layout& l, const dims& logical) { return l.view == logical; }

dims physical_shape(const dims& logical, const layout& l) {
  return is_plain(l, logical) ? permute_dims(logical, l.perm) : logical;
}

bool same_data_order(const dims& shape, const permutation& a, const permutation& b) {
  permutation sa, sb;
  for (int axis : a)
    if (shape[static_cast<std::size_t>(axis)] != 1) sa.push_back(axis);
  for (int axis : b)
    if (shape[static_cast<std::size_t>(axis)] != 1) sb.push_back(axis);
  return sa == sb;
}

bool is_row_major(const dims& logical, const layout& l) {
  return same_data_order(l.view, l.perm, identity_permutation(l.perm.size())) &&
         element_count(l.view) == element_count(logical);
}

}  // namespace tessera::onnx2hpp
