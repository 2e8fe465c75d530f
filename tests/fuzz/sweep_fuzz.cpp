// libFuzzer target: a sweep file through config::load_sweep, as `podsim sweep` reads it
// before simulating: YAML, the base scenario (`base: ../examples/…` resolves: the input is
// written to configs/sweeps/ of a private copy of the repository's layout, see
// fuzz_workspace.hpp), axes and zip groups, derive expressions evaluated on the base, and
// every swept value loaded alone on the base. Then the first and last points' overrides and
// descriptions. No point is simulated.
//
// load_sweep loads the base scenario once per swept value (about 20 ms for the 4096-chip
// examples under the sanitizers), by design: an input of 2 KB can list a thousand values and
// take 20 s. Inputs with more than kMaxSeparators list separators (',' or a new line, an
// upper bound on the values) are skipped so that libFuzzer's -timeout=10 catches hangs,
// not long lists.
//
// Acceptable: podsim::InputError (InfeasibleLayout included). Anything else — another
// exception (it terminates at the throw, with its stack), a sanitizer report, a timeout —
// is a finding.

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "config/sweep_config.hpp"
#include "fuzz_workspace.hpp"
#include "util/error.hpp"

namespace {

constexpr std::ptrdiff_t kMaxSeparators = 200;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace podsim;
  const auto separators =
      std::count_if(data, data + size, [](std::uint8_t c) { return c == ',' || c == '\n'; });
  if (separators > kMaxSeparators) return 0;
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
