#include "runtime/time_category.hpp"

namespace podsim::runtime {

namespace {
constexpr std::array<std::string_view, kCategories> kNames{
    "compute.forward", "compute.backward", "compute.recompute", "compute.optimizer", "comm.tp", "comm.dp",
    "comm.pp",         "comm.other",       "bubble",            "input_stall",       "idle"};
constexpr std::array<std::string_view, kCategories> kColumns{
    "compute_forward_s", "compute_backward_s", "compute_recompute_s", "compute_optimizer_s",
    "comm_tp_s",         "comm_dp_s",          "comm_pp_s",           "comm_other_s",
    "bubble_s",          "input_stall_s",      "idle_s"};
constexpr std::array<std::string_view, kCategories> kLabels{
    "forward",      "backward",   "recompute", "optimizer",   "tensor-parallel comm", "data-parallel comm",
    "pipeline p2p", "other comm", "bubble",    "input stall", "idle"};
}  // namespace

std::string_view category_label(TimeCategory c) { return kLabels[static_cast<std::size_t>(c)]; }
std::string_view category_name(TimeCategory c) { return kNames[static_cast<std::size_t>(c)]; }
std::string_view category_column(TimeCategory c) { return kColumns[static_cast<std::size_t>(c)]; }

TimeCategory compute_category(parallelism::ComputeCategory c) {
  switch (c) {
    case parallelism::ComputeCategory::kBackward:
      return TimeCategory::kBackward;
    case parallelism::ComputeCategory::kRecompute:
      return TimeCategory::kRecompute;
    case parallelism::ComputeCategory::kOptimizer:
      return TimeCategory::kOptimizer;
    default:
      return TimeCategory::kForward;
  }
}

TimeCategory comm_category(parallelism::CommAxis axis) {
  switch (axis) {
    case parallelism::CommAxis::kTp:
      return TimeCategory::kCommTp;
    case parallelism::CommAxis::kDp:
    case parallelism::CommAxis::kDpReplica:
      return TimeCategory::kCommDp;
    case parallelism::CommAxis::kPp:
      return TimeCategory::kCommPp;
    default:
      return TimeCategory::kCommOther;
  }
}

}  // namespace podsim::runtime
