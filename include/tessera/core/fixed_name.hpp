// A short fixed-capacity name usable as a template argument (layer and tensor names).
//
// One type for every length (unlike a `fixed_string<N>`) so that names can live in arrays
// of descriptors and diagnostics print them as text.
#pragma once

#include <cstddef>

namespace tessera {

struct fixed_name {
  static constexpr std::size_t capacity = 48;
  char text[capacity]{};

  constexpr fixed_name() = default;
  template <std::size_t N>
  constexpr fixed_name(const char (&s)[N]) {  // NOLINT: implicit by design, names are literals
    static_assert(N <= capacity, "fixed_name: name longer than 47 characters");
    for (std::size_t i = 0; i < N; ++i) text[i] = s[i];
  }
  constexpr const char* c_str() const { return text; }
  constexpr bool empty() const { return text[0] == '\0'; }
  friend constexpr bool operator==(const fixed_name&, const fixed_name&) = default;
};

}  // namespace tessera
