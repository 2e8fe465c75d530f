#include "partition/contiguous_dealer.hpp"

#include <algorithm>

namespace podsim::partition {

ContiguousDealer::ContiguousDealer(std::size_t items, int processes)
    : runs_(static_cast<std::size_t>(std::max(processes, 1))), left_(items) {
  // Runs of equal length, the first `items % n` one longer.
  const std::size_t n = runs_.size();
  std::size_t at = 0;
  for (std::size_t p = 0; p < n; ++p) {
    runs_[p].front = at;
    at += items / n + (p < items % n ? 1 : 0);
    runs_[p].back = at;
  }
}

std::optional<std::size_t> ContiguousDealer::next(int process) {
  if (left_ == 0) return std::nullopt;
  Run& own = runs_.at(static_cast<std::size_t>(process));
  --left_;
  if (own.front < own.back) return own.front++;
  // The run with the most left (the first of equals): its last item.
  Run* most = &runs_.front();
  for (Run& r : runs_) {
    if (r.back - r.front > most->back - most->front) most = &r;
  }
  return --most->back;
}

}  // namespace podsim::partition
