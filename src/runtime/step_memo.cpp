#include "runtime/step_memo.hpp"

#include <utility>

namespace podsim::runtime {

const ExecutedStep* StepMemo::find(const StepKey& key) const {
  const auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : &it->second;
}

void StepMemo::add(const StepKey& key, ExecutedStep step) {
  const std::size_t links = step.links.size() + step.execution.stages.size();
  if (link_entries_ + links > kMaxLinkEntries) {
    entries_.clear();
    link_entries_ = 0;
  }
  if (entries_.emplace(key, std::move(step)).second) link_entries_ += links;
}

}  // namespace podsim::runtime
