// A short fixed-capacity name usable as a template argument (layer and tensor names).
//
// One type for every length (unlike a `fixed_string<N>`) so that names can live in arrays
// of descriptors and diagnostics print them as text.
//
// How a diagnostic prints the text depends on how the array was initialized. Every name is
// built by initializing `text` from a pack of exactly its characters (`text{s[I]...}`, the
// rest of the array is the implicit zero filler), and then:
// - clang prints a `char` array as a string only when its explicit elements end with the one
//   terminator, so under clang the pack includes it: `fixed_name{"conv_a"}`. Characters
//   assigned one by one by a constexpr loop are stored as clang allocated them for the writes
//   (at least 8, then doubling), zeros included, and print as codes:
//   `fixed_name{{99, 111, 110, 118, 95, 97, 0, 0}}`. Clang also keeps, for each value, the form
//   in which it first became a template argument, so the form has to be right when the name is
//   made, not when it is printed.
// - GCC prints the explicit elements as a string, an explicit terminator as "\000", so under
//   GCC the pack stops before it: `fixed_name{"conv_a"}`.
// Code that computes a name (schedule/hazard_check.hpp) writes its text into a buffer and makes
// the name with `fixed_name::of(buffer)`.
#pragma once

#include <cstddef>
#include <utility>

namespace tessera {

struct fixed_name {
  static constexpr std::size_t capacity = 48;
  char text[capacity]{};

  constexpr fixed_name() = default;
  template <std::size_t N>
  constexpr fixed_name(const char (&s)[N])  // NOLINT: implicit by design, names are literals
      : fixed_name(s, std::make_index_sequence<(N <= capacity ? N - 1 : 0) + explicit_terminator>{}) {
    static_assert(N <= capacity, "fixed_name: name longer than 47 characters");
  }

  /// The text of `s` up to its terminator, at most 47 characters (for a name computed at
  /// compile time, see above).
  static constexpr fixed_name of(const char* s);

  constexpr const char* c_str() const { return text; }
  constexpr bool empty() const { return text[0] == '\0'; }
  friend constexpr bool operator==(const fixed_name&, const fixed_name&) = default;

 private:
#if defined(__clang__)
  static constexpr std::size_t explicit_terminator = 1;
#else
  static constexpr std::size_t explicit_terminator = 0;
#endif
  /// The first `sizeof...(I) - explicit_terminator` characters of `s` (and the terminator).
  template <std::size_t... I>
  constexpr fixed_name(const char* s, std::index_sequence<I...>)
      : text{(I + explicit_terminator < sizeof...(I) ? s[I] : '\0')...} {}
  /// `r` = the first `n` characters of `s`, `n` < capacity: one pack constructor per length.
  template <std::size_t... L>
  static constexpr void of_length(fixed_name& r, const char* s, std::size_t n, std::index_sequence<L...>) {
    (void)((n == L ? (r = fixed_name(s, std::make_index_sequence<L + explicit_terminator>{}), true) : false) || ...);
  }
};

// Defined after the class: defined inside it, clang 19 reported `of_length` as an undefined
// function when `of` was evaluated.
constexpr fixed_name fixed_name::of(const char* s) {
  std::size_t n = 0;
  while (n + 1 < capacity && s[n] != '\0') ++n;
  fixed_name r{};
  of_length(r, s, n, std::make_index_sequence<capacity>{});
  return r;
}

}  // namespace tessera
