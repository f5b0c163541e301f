// A main() for a libFuzzer target built without libFuzzer (any compiler): runs
// LLVMFuzzerTestOneInput once per file named on the command line and prints how many ran. A
// finding aborts, so the exit status says whether every file passed. The default ctest runs
// the npz target this way over the committed crafted files (a smoke, not a fuzz run).
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::ifstream file(argv[i], std::ios::binary);
    if (!file) {
      std::fprintf(stderr, "cannot open %s\n", argv[i]);
      return 2;
    }
    const std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("%d inputs replayed, no finding\n", argc - 1);
  return 0;
}
