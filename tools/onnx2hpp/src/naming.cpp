#include "naming.hpp"

#include <filesystem>
#include <string_view>

#include <fmt/format.h>

namespace tessera::onnx2hpp {
namespace {

bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool is_reserved(std::string_view word) {
  static constexpr std::string_view words[] = {
      "alignas",     "alignof",   "and",        "and_eq",    "asm",      "auto",         "bitand",
      "bitor",       "bool",      "break",      "case",      "catch",    "char",         "char8_t",
      "char16_t",    "char32_t",  "class",      "compl",     "concept",  "const",        "consteval",
      "constexpr",   "constinit", "const_cast", "continue",  "co_await", "co_return",    "co_yield",
      "decltype",    "default",   "delete",     "do",        "double",   "dynamic_cast", "else",
      "enum",        "explicit",  "export",     "extern",    "false",    "float",        "for",
      "friend",      "goto",      "if",         "inline",    "int",      "long",         "mutable",
      "namespace",   "new",       "noexcept",   "not",       "not_eq",   "nullptr",      "operator",
      "or",          "or_eq",     "private",    "protected", "public",   "register",     "reinterpret_cast",
      "requires",    "return",    "short",      "signed",    "sizeof",   "static",       "static_assert",
      "static_cast", "struct",    "switch",     "template",  "this",     "thread_local", "throw",
      "true",        "try",       "typedef",    "typeid",    "typename", "union",        "unsigned",
      "using",       "virtual",   "void",       "volatile",  "wchar_t",  "while",        "xor",
      "xor_eq",      "tessera",   "std",        "main",      "final",    "override",     "import",
      "module"};
  for (std::string_view w : words)
    if (w == word) return true;
  return false;
}

}  // namespace

std::string sanitize_identifier(const std::string& raw, const std::string& fallback) {
  std::string out;
  for (char c : raw) {
    if (is_word_char(c) && c != '_') {
      out += c;
    } else if (!out.empty() && out.back() != '_') {
      out += '_';
    }
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  if (out.empty()) return fallback.empty() ? std::string("unnamed") : sanitize_identifier(fallback, "unnamed");
  if (out[0] >= '0' && out[0] <= '9') out.insert(out.begin(), 'n');
  return out;
}

std::string unique_names::claim(const std::string& raw, const std::string& fallback) {
  std::string base = sanitize_identifier(raw, fallback);
  if (base.size() > max_name_length) base.resize(max_name_length);
  while (!base.empty() && base.back() == '_') base.pop_back();
  std::string name = base;
  for (int k = 2; used_.count(name) != 0; ++k) {
    const std::string suffix = fmt::format("_{}", k);
    name = base.substr(0, std::min(base.size(), max_name_length - suffix.size())) + suffix;
  }
  used_.insert(name);
  return name;
}

std::string namespace_from_output(const std::string& output_path) {
  std::string ns = sanitize_identifier(std::filesystem::path(output_path).stem().string(), "model");
  if (is_reserved(ns)) ns += "_model";
  return ns;
}

bool is_valid_namespace(const std::string& ns) {
  std::size_t start = 0;
  while (true) {
    const std::size_t end = ns.find("::", start);
    const std::string part = ns.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (part.empty() || (part[0] >= '0' && part[0] <= '9') || is_reserved(part)) return false;
    for (char c : part)
      if (!is_word_char(c)) return false;
    if (part.find("__") != std::string::npos || part[0] == '_') return false;  // reserved identifiers
    if (end == std::string::npos) return true;
    start = end + 2;
  }
}

std::string string_literal(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f || c == '?') {
      out += fmt::format("\\{:03o}", c);  // octal: at most 3 digits, never runs into the next char
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string comment_text(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (c >= 0x20 && c < 0x7f && c != '\\')
      out += static_cast<char>(c);
    else
      out += fmt::format("\\x{:02x}", c);
  }
  return out;
}

}  // namespace tessera::onnx2hpp
