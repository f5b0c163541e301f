// What the fuzz targets share: how a finding is reported (a line naming the target, then an
// abort, so that libFuzzer saves the input), and that an exception a target does not expect is
// a finding.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <typeinfo>

namespace tessera::fuzz {

[[noreturn]] inline void finding(const char* target, const char* what, const char* type, const char* message) {
  std::fprintf(stderr, "\n%s: FINDING: %s %s: %s\n", target, what, type, message);
  std::fflush(stderr);
  std::abort();
}

/// Returns body(); `body` catches the exceptions its target expects, and any other is a finding.
template <class Body>
auto unexpected_exceptions_are_findings(const char* target, Body&& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    finding(target, "unexpected exception", typeid(e).name(), e.what());
  } catch (...) {
    finding(target, "unexpected non-std exception", "", "");
  }
}

}  // namespace tessera::fuzz
