// libFuzzer target: a topology document through `podsim topo`'s path. The input is written to
// topologies/ of a private copy of the repository's layout (fuzz_workspace.hpp), beside every
// shipped topology, so a multislice's `slice: tpu-v5e-16x16.yaml` resolves; then
// config::load_topology and, for up to kMaxChips chips, the built graph and its facts
// (chips, links, diameter, bisection, ring bandwidth per axis).
//
// Acceptable: podsim::InputError. Anything else — another exception (it terminates at the
// throw, with its stack), a sanitizer report, a timeout — is a finding.

#include <cstddef>
#include <cstdint>

#include "config/topology_config.hpp"
#include "fuzz_workspace.hpp"
#include "topology/graph_analysis.hpp"
#include "topology/topology.hpp"
#include "util/error.hpp"

namespace {

/// The loader accepts up to 2^20 chips; the graph facts run breadth-first searches over
/// the whole machine, so only smaller machines get them (each input stays fast).
constexpr std::uint64_t kMaxChips = 4096;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace podsim;
  const auto file = fuzz::Workspace::get().write("topologies/fuzz-topology.yaml", data, size);
  try {
    const config::LoadedTopology loaded = config::load_topology(file);
    if (topology::chip_count(loaded.spec) > kMaxChips) return 0;
    const topology::Topology topo(loaded.spec);
    (void)topology::analyze(topo);
  } catch (const InputError& e) {
    fuzz::note("topology", e.what());
  }
  return 0;
}
