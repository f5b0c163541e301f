// Writes the plan pictures of docs/planning.md: ResNet-8 (the bundled model) on gap8 and the
// keyword-spotting network on stm32h7, each as an L1 and an L2 memory map and a timeline.
//
//   cmake --build build --target tessera_plan_pictures && build/benchmarks/tessera_plan_pictures docs/pictures
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <tessera/report/plan_pictures.hpp>
#include <tessera/tessera.hpp>

#include "qemu/kws_network.hpp"
#include "resnet8.hpp"

namespace {

std::byte* aligned(std::vector<std::byte>& v) {
  return reinterpret_cast<std::byte*>((reinterpret_cast<std::uintptr_t>(v.data()) + 15) / 16 * 16);
}

template <class Net, tessera::target_desc Target>
bool draw(const std::string& dir, const std::string& name) {
  using run = tessera::tiled_executor<Net, tessera::target<Target>>;
  std::vector<std::byte> l3(run::l3_bytes + 16), l2(run::l2_bytes + 16), l1(run::l1_bytes + 16);
  std::vector<std::byte> input(Net::template input_elements<0> * sizeof(typename Net::template input_t<0>) + 16);
  std::vector<std::byte> output(Net::template output_elements<0> * sizeof(typename Net::template output_t<0>) + 16);
  for (std::size_t i = 0; i < input.size(); ++i) input[i] = static_cast<std::byte>(i * 37 + 11);
  auto pictures = tessera::report::plan_pictures_of<run>(aligned(l3), aligned(l2), aligned(l1), {aligned(input)},
                                                         {aligned(output)});
  pictures.l1.title = fmt::format("{}: L1 on {}", name, Target.name.c_str());
  pictures.l2.title = fmt::format("{}: L2 on {}", name, Target.name.c_str());
  pictures.time.title = fmt::format("{}: timeline on {}", name, Target.name.c_str());
  const std::string base = fmt::format("{}/{}_{}", dir, name, Target.name.c_str());
  namespace r = tessera::report;
  const bool ok = r::write_text_file(base + "_l1.svg", r::svg_memory_map(pictures.l1)) &&
                  r::write_text_file(base + "_l2.svg", r::svg_memory_map(pictures.l2)) &&
                  r::write_text_file(base + "_timeline.svg", r::svg_timeline(pictures.time));
  const auto& s = pictures.stats;
  fmt::print("{}_{{l1,l2,timeline}}.svg: {} cycles ({} compute, {} DMA busy, {} stalled), {} L1 and {} L2 buffers, "
             "{} spans, hazards {}\n",
             base, s.total_cycles, s.compute_cycles, s.dma_busy_cycles, s.stall_cycles, pictures.l1.buffers.size(),
             pictures.l2.buffers.size(), pictures.time.spans.size(), pictures.hazards);
  return ok && pictures.hazards == 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : ".";
  const bool ok = draw<resnet8::network, tessera::targets::gap8>(dir, "resnet8") &
                  draw<kws::network, tessera::targets::stm32h7>(dir, "kws");
  return ok ? 0 : 1;
}
