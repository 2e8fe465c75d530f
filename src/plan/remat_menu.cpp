#include "plan/remat_menu.hpp"

#include <algorithm>
#include <numeric>

#include "parallelism/program_builder.hpp"
#include "workload/layer_ops.hpp"

namespace podsim::plan {

namespace {

using workload::Recompute;

std::vector<Recompute> stack_policies(const hardware::ChipSpec& chip) {
  std::vector<Recompute> out{Recompute::kNone, Recompute::kSelective, Recompute::kFull};
  if (chip.stack != hardware::SoftwareStack::kXla) return out;
  out.insert(out.end(), {Recompute::kNothingSaveable, Recompute::kMinimal, Recompute::kMinimalFlash,
                         Recompute::kSaveDotExceptMlpwi, Recompute::kSaveDotExceptMlp, Recompute::kSaveQkvProj,
                         Recompute::kSaveOutProj});
  // Offloading moves tensors over the host link; without its bandwidth the move is not timed.
  if (chip.host_bandwidth_Bps > 0) out.insert(out.end(), {Recompute::kQkvProjOffloaded, Recompute::kMinimalOffloaded});
  return out;
}

bool subset(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  return std::includes(b.begin(), b.end(), a.begin(), a.end());
}

}  // namespace

bool RematMenu::dominates(std::size_t q, std::size_t r) const {
  return subset(rerun[q], rerun[r]) && (host[q] & ~host[r]) == 0;
}

RematMenu remat_menu(const runtime::Scenario& s, std::optional<workload::Recompute> fixed) {
  const std::vector<Recompute> policies = fixed ? std::vector<Recompute>{*fixed} : stack_policies(s.chip);
  const workload::Slicing slicing = parallelism::slicing_of(s.parallel, s.training);
  const workload::LayerWork layer = workload::transformer_layer(s.model, slicing);
  struct Entry {
    Recompute policy;
    double flops;
    std::vector<std::string> rerun;
    workload::TensorSet host;
  };
  std::vector<Entry> entries;
  for (Recompute p : policies) {
    const workload::LayerRemat remat = workload::apply_remat(s.model, layer, p, slicing);
    Entry e{p, 0, {}, remat.host};
    for (const auto& item : remat.rerun) {
      // An order key, not a time: FLOPs plus bytes, so a subset of re-runs never sums to more
      // and memory-bound re-runs count too.
      e.flops += item.cost.flops() + item.cost.bytes;
      e.rerun.push_back(item.name);
    }
    std::sort(e.rerun.begin(), e.rerun.end());
    entries.push_back(std::move(e));
  }
  // Least re-run work first (a dominating policy re-runs a subset, so it comes no later), the
  // menu's order among equals.
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.flops < b.flops; });
  RematMenu menu;
  for (auto& e : entries) {
    menu.policies.push_back(e.policy);
    menu.rerun.push_back(std::move(e.rerun));
    menu.host.push_back(e.host);
  }
  return menu;
}

}  // namespace podsim::plan
