// A minimal XML reader for the plan-picture tests: enough of XML to check that the SVG the
// report writes is well formed (balanced tags, one root, quoted attributes, only known
// entities, no stray '<' or '&') and to read its elements' attributes back, unescaped.
// Not a general parser: no DTDs, no CDATA, no namespaces beyond reading the xmlns attribute.
#pragma once

#include <algorithm>
#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tessera::testing {

struct xml_element {
  std::string name{};
  std::map<std::string, std::string> attributes{};  ///< values unescaped
  std::string text{};                             ///< direct text content, unescaped
  int depth = 0;                                  ///< 0 for the root
};

struct xml_document {
  std::vector<xml_element> elements;  ///< in document order
  std::string error;                  ///< empty when well formed

  bool ok() const { return error.empty(); }
  std::string attribute(const xml_element& e, const std::string& name) const {
    const auto it = e.attributes.find(name);
    return it == e.attributes.end() ? std::string() : it->second;
  }
  /// The elements named `name` whose class attribute is `cls`, in document order.
  std::vector<const xml_element*> all(const std::string& name, const std::string& cls) const {
    std::vector<const xml_element*> out;
    for (const xml_element& e : elements) {
      const auto it = e.attributes.find("class");
      if (e.name == name && it != e.attributes.end() && it->second == cls) out.push_back(&e);
    }
    return out;
  }
};

namespace detail {
/// Replaces the five predefined entities and numeric references (ASCII only); false on a bare
/// '&' or an unknown entity.
inline bool unescape(std::string_view in, std::string& out) {
  out.clear();
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '&') {
      out += in[i];
      continue;
    }
    const std::size_t end = in.find(';', i);
    if (end == std::string_view::npos) return false;
    const std::string_view name = in.substr(i + 1, end - i - 1);
    if (name == "amp") out += '&';
    else if (name == "lt") out += '<';
    else if (name == "gt") out += '>';
    else if (name == "quot") out += '"';
    else if (name == "apos") out += '\'';
    else if (name.size() > 1 && name[0] == '#') {
      int code = 0;
      for (const char c : name.substr(1)) {
        if (c < '0' || c > '9') return false;
        code = code * 10 + (c - '0');
      }
      if (code <= 0 || code > 127) return false;
      out += static_cast<char>(code);
    } else {
      return false;
    }
    i = end;
  }
  return true;
}
inline bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
         c == ':' || c == '.';
}
}  // namespace detail

inline xml_document parse_xml(std::string_view s) {
  xml_document doc;
  std::vector<std::size_t> open;  // indices into doc.elements
  int roots = 0;
  std::size_t i = 0;
  auto fail = [&](std::string what) {
    doc.error = what + " at byte " + std::to_string(i);
    return doc;
  };
  while (i < s.size()) {
    if (s[i] != '<') {  // text: only inside the root, no bare '&', no '>' problems checked
      const std::size_t next = std::min(s.find('<', i), s.size());
      const std::string_view text = s.substr(i, next - i);
      std::string value;
      if (!detail::unescape(text, value)) return fail("bad entity in text");
      if (open.empty() && value.find_first_not_of(" \t\r\n") != std::string::npos) return fail("text outside the root");
      if (!open.empty()) doc.elements[open.back()].text += value;
      i = next;
      continue;
    }
    if (s.substr(i, 5) == "<?xml") {
      if (i != 0) return fail("XML declaration not at the start");
      const std::size_t end = s.find("?>", i);
      if (end == std::string_view::npos) return fail("unterminated declaration");
      i = end + 2;
      continue;
    }
    if (s.substr(i, 4) == "<!--") {
      const std::size_t end = s.find("-->", i);
      if (end == std::string_view::npos) return fail("unterminated comment");
      i = end + 3;
      continue;
    }
    if (s.substr(i, 2) == "</") {
      std::size_t j = i + 2;
      while (j < s.size() && detail::is_name_char(s[j])) ++j;
      const std::string name(s.substr(i + 2, j - i - 2));
      while (j < s.size() && s[j] == ' ') ++j;
      if (j >= s.size() || s[j] != '>') return fail("bad end tag");
      if (open.empty() || doc.elements[open.back()].name != name) return fail("unbalanced </" + name + ">");
      open.pop_back();
      i = j + 1;
      continue;
    }
    // A start tag.
    std::size_t j = i + 1;
    while (j < s.size() && detail::is_name_char(s[j])) ++j;
    if (j == i + 1) return fail("bad tag name");
    if (open.empty() && ++roots > 1) return fail("second root element");
    xml_element e{.name = std::string(s.substr(i + 1, j - i - 1)), .depth = static_cast<int>(open.size())};
    bool self_closing = false;
    for (;;) {
      while (j < s.size() && (s[j] == ' ' || s[j] == '\n' || s[j] == '\t' || s[j] == '\r')) ++j;
      if (j >= s.size()) return fail("unterminated tag");
      if (s[j] == '>') { ++j; break; }
      if (s.substr(j, 2) == "/>") { j += 2; self_closing = true; break; }
      const std::size_t name_begin = j;
      while (j < s.size() && detail::is_name_char(s[j])) ++j;
      if (j == name_begin || j + 1 >= s.size() || s[j] != '=' || (s[j + 1] != '"' && s[j + 1] != '\''))
        return fail("bad attribute in <" + e.name + ">");
      const std::string name(s.substr(name_begin, j - name_begin));
      const char quote = s[j + 1];
      const std::size_t value_end = s.find(quote, j + 2);
      if (value_end == std::string_view::npos) return fail("unterminated attribute value");
      const std::string_view raw = s.substr(j + 2, value_end - j - 2);
      if (raw.find('<') != std::string_view::npos) return fail("'<' in attribute " + name);
      std::string value;
      if (!detail::unescape(raw, value)) return fail("bad entity in attribute " + name);
      if (!e.attributes.emplace(name, value).second) return fail("duplicate attribute " + name);
      j = value_end + 1;
      if (j < s.size() && s[j] != ' ' && s[j] != '>' && s[j] != '/' && s[j] != '\n') return fail("no space after attribute");
    }
    doc.elements.push_back(std::move(e));
    if (!self_closing) open.push_back(doc.elements.size() - 1);
    i = j;
  }
  if (!open.empty()) {
    i = s.size();
    return fail("unclosed <" + doc.elements[open.back()].name + ">");
  }
  if (roots != 1) return fail("no root element");
  return doc;
}

}  // namespace tessera::testing
