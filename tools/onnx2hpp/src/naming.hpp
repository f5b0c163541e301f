// C++ names for what the header declares: layer and tensor names (tessera::fixed_name, at
// most 47 characters), constant identifiers derived from layer names, the namespace.
#pragma once

#include <set>
#include <string>

namespace tessera::onnx2hpp {

/// Longest name a tessera::fixed_name holds (its capacity minus the terminator).
inline constexpr std::size_t max_name_length = 47;

/// `raw` as an identifier: runs of other characters become one '_', no leading/trailing
/// '_' (so never a reserved `_X` or `__` name), a leading digit gets an 'n' prefix;
/// `fallback` when nothing is left. "/features.0/Conv" -> "features_0_Conv".
std::string sanitize_identifier(const std::string& raw, const std::string& fallback);

/// Hands out sanitized names, unique among those it gave, at most max_name_length long:
/// a repeated name gets a suffix ("Conv", "Conv_2", ...).
class unique_names {
 public:
  std::string claim(const std::string& raw, const std::string& fallback);

 private:
  std::set<std::string> used_;
};

/// Default namespace: the output file's stem, sanitized ("out/mini-net.hpp" -> "mini_net").
std::string namespace_from_output(const std::string& output_path);

/// Whether `ns` can name the generated namespace: identifiers separated by "::", none of them
/// a C++ keyword nor "tessera"/"std" (the header refers to those).
bool is_valid_namespace(const std::string& ns);

/// A C++ string literal (with quotes) for arbitrary bytes, e.g. ONNX tensor names.
std::string string_literal(const std::string& text);

/// Arbitrary bytes (a file name, an ONNX name) made safe for a `//` comment line: printable
/// ASCII stays, except '\\' (a trailing one would splice the next line into the comment);
/// everything else, newlines first, becomes a "\\xNN" escape. "a\n#error" -> "a\\x0a#error".
std::string comment_text(const std::string& text);

}  // namespace tessera::onnx2hpp
