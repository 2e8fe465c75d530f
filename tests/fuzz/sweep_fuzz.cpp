// libFuzzer target: a sweep file through config::load_sweep, as `podsim sweep` reads it
// before simulating: YAML, the base scenario (`base: ../examples/…` resolves: the input is
// written to configs/sweeps/ of a private copy of the repository's layout, see
// fuzz_workspace.hpp), axes and zip groups, derive expressions evaluated on the base, and
// every swept value loaded alone on the base. Then the first and last points' overrides and
// descriptions. No point is simulated.
//
// Acceptable: podsim::InputError (InfeasibleLayout included). Anything else — another
// exception (it terminates at the throw, with its stack), a sanitizer report, a timeout —
// is a finding.

#include <cstddef>
#include <cstdint>

#include "config/sweep_config.hpp"
#include "fuzz_workspace.hpp"
#include "util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace podsim;
  const auto file = fuzz::Workspace::get().write("configs/sweeps/fuzz-sweep.yaml", data, size);
  try {
    const config::LoadedSweep sweep = config::load_sweep(file);
    const std::uint64_t last = sweep.points() - 1;
    for (const std::uint64_t index : {std::uint64_t{0}, last}) {
      (void)sweep.overrides_at(index);
      (void)sweep.describe(index);
    }
    (void)sweep.keys();
  } catch (const InputError& e) {
    fuzz::note("sweep", e.what());
  }
  return 0;
}
