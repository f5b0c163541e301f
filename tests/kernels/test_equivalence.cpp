// Host runs of the randomized equivalence checks: the reference against itself (which checks
// the harness) and the x86 family, built once for SSE4.1 and once for AVX2 (CMakeLists.txt).
//
// On the host every operand of a case sits against an inaccessible page (fenced_operands): the
// checks run twice, once with each operand ending where a PROT_NONE page begins (a read one
// byte past the end faults) and once starting where one ends (a read one byte before faults).
// The static pool of equivalence.hpp can only catch writes next to an operand; reads need the MMU.
#include <catch2/catch.hpp>

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "equivalence.hpp"

using tessera::kernels::kernel_family;
namespace detail = tessera::testing::equivalence_detail;

namespace {

enum class fence_side { after, before };

/// Per operand slot: [PROT_NONE page][data pages][PROT_NONE page], mapped once.
struct fenced_slot {
  std::uint8_t* data = nullptr;
  std::size_t capacity = 0;  // whole pages
};

fenced_slot slots[detail::slot_count];
fence_side side = fence_side::after;
struct sigaction previous_segv {};

std::size_t page_bytes() { return static_cast<std::size_t>(sysconf(_SC_PAGESIZE)); }

void map_slots() {
  if (slots[0].data != nullptr) return;
  const std::size_t page = page_bytes();
  for (int s = 0; s < detail::slot_count; ++s) {
    const std::size_t capacity = (detail::slot_capacity[s] + page - 1) / page * page;
    void* map = mmap(nullptr, capacity + 2 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(map != MAP_FAILED);
    auto* base = static_cast<std::uint8_t*>(map);
    REQUIRE(mprotect(base + page, capacity, PROT_READ | PROT_WRITE) == 0);
    slots[s] = {base + page, capacity};
  }
}

/// equivalence.hpp's place_operand_hook: `bytes` ending at the trailing fence page or starting
/// at the end of the leading one. (An int32 operand ends 4-byte aligned: pages are.)
std::uint8_t* place_fenced(int slot, std::size_t bytes) {
  const fenced_slot& s = slots[slot];
  if (bytes > s.capacity) {
    std::fprintf(stderr, "operand %s of %zu bytes exceeds its %zu\n", detail::slot_names[slot], bytes, s.capacity);
    std::abort();
  }
  return side == fence_side::after ? s.data + s.capacity - bytes : s.data;
}

/// Names the operand and the case when a kernel touches a fence, then lets the fault go on to
/// the previous handler (Catch2's, which names the test). Only async-signal-safe calls.
void on_segv(int sig, siginfo_t* info, void* context) {
  const auto* addr = static_cast<const std::uint8_t*>(info->si_addr);
  const std::size_t page = page_bytes();
  char message[256];
  int length = 0;
  for (int s = 0; s < detail::slot_count; ++s) {
    const fenced_slot& f = slots[s];
    const bool before = addr >= f.data - page && addr < f.data;
    const bool past = addr >= f.data + f.capacity && addr < f.data + f.capacity + page;
    if (before || past)
      length = std::snprintf(message, sizeof message, "FENCE %s case %d touched %s its operand %s\n",
                             detail::current_kernel, detail::current_case, before ? "before" : "past",
                             detail::slot_names[s]);
  }
  if (length > 0) {
    [[maybe_unused]] const auto written = write(STDERR_FILENO, message, static_cast<std::size_t>(length));
  }
  sigaction(SIGSEGV, &previous_segv, nullptr);  // the access faults again, into the previous handler
  (void)sig, (void)context;
}

/// While alive, operands are placed against the fences (`side`) and a fault names its operand.
struct fenced_operands {
  explicit fenced_operands(fence_side s) {
    map_slots();
    side = s;
    detail::place_operand_hook = &place_fenced;
    struct sigaction action {};
    action.sa_sigaction = &on_segv;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, &previous_segv);
  }
  ~fenced_operands() {
    detail::place_operand_hook = nullptr;
    sigaction(SIGSEGV, &previous_segv, nullptr);
  }
  fenced_operands(const fenced_operands&) = delete;
  fenced_operands& operator=(const fenced_operands&) = delete;
};

/// Runs `body` in a child process; true when the child was killed by SIGSEGV.
template <class Body>
bool faults(Body&& body) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    signal(SIGSEGV, SIG_DFL);  // no handler: the child just dies of it
    body();
    _exit(0);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV;
}

/// Runs every kernel kind with the operands against each fence in turn.
template <kernel_family F>
int run_fenced(std::uint32_t seed, int iterations) {
  int failures = 0;
  for (fence_side s : {fence_side::after, fence_side::before}) {
    fenced_operands fences(s);
    failures += tessera::testing::run_all_equivalence_checks<F>(seed, iterations);
  }
  return failures;
}

}  // namespace

TEST_CASE("guards: a write one byte outside the output, the scratch or a pooled operand is reported", "[kernels]") {
  using namespace detail;
  constexpr std::size_t out = 10, sb = 7;
  const auto case_with = [&](auto&& damage) {
    begin_case();
    auto* w = place<std::int8_t>(slot_weights, 5);  // the static pool (no hook): guards around it
    arm_guards(out, sb);
    std::memset(actual, 0, out);
    std::memset(expected, 0, out);
    damage(w);
    return verify("deliberate", 0, out, sb);
  };
  CHECK(case_with([](std::int8_t*) {}));
  CHECK_FALSE(case_with([](std::int8_t*) { actual[out] = 0; }));      // one past the output
  CHECK_FALSE(case_with([](std::int8_t*) { actual[-1] = 0; }));       // one before it
  CHECK_FALSE(case_with([](std::int8_t*) { scratch[sb] = 0; }));      // one past the scratch
  CHECK_FALSE(case_with([](std::int8_t*) { scratch[-1] = 0; }));      // one before it
  CHECK_FALSE(case_with([](std::int8_t* w) { w[5] = 0; }));           // one past an operand
  CHECK_FALSE(case_with([](std::int8_t* w) { w[-1] = 0; }));          // one before it
}

TEST_CASE("fences: a read one byte past or before an operand faults, its last and first bytes do not", "[kernels]") {
  using detail::place;
  const auto read = [](fence_side s, int index) {
    return faults([=] {
      fenced_operands fences(s);
      detail::begin_case();
      volatile const std::uint8_t* in = place<std::uint8_t>(detail::slot_a, 10);
      [[maybe_unused]] std::uint8_t v = in[index];
    });
  };
  CHECK_FALSE(read(fence_side::after, 9));
  CHECK(read(fence_side::after, 10));
  CHECK_FALSE(read(fence_side::before, 0));
  CHECK(read(fence_side::before, -1));
  // An int32 operand (bias, mul, add) ends aligned and its next element faults.
  CHECK(faults([] {
    fenced_operands fences(fence_side::after);
    volatile const std::int32_t* bias = place<std::int32_t>(detail::slot_bias, 3);
    [[maybe_unused]] std::int32_t v = bias[3];
  }));
}

TEST_CASE("reference family: the harness runs every kernel kind", "[kernels]") {
  CHECK(run_fenced<kernel_family::reference>(1u, 40) == 0);
}

TEST_CASE("x86 family: bit-exact with the reference on randomized shapes", "[kernels][x86]") {
  static_assert(tessera::kernels::family_available(kernel_family::x86), "built without SSE4.1");
  CHECK(run_fenced<kernel_family::x86>(12345u, 300) == 0);
}
