#include "parallelism/step_program.hpp"

namespace podsim::parallelism {

std::string_view stream_name(Stream stream) {
  switch (stream) {
    case Stream::kCompute: return "compute";
    case Stream::kDpReduce: return "dp reduce";
    case Stream::kDpGather: return "dp gather";
    case Stream::kPpForward: return "pp forward";
    case Stream::kPpBackward: return "pp backward";
    case Stream::kOther: return "other comm";
    case Stream::kTp: return "tp comm";
  }
  return "?";
}

std::uint32_t StageProgram::add(Task task, std::span<const std::uint32_t> wait_for) {
  task.deps_begin = static_cast<std::uint32_t>(deps.size());
  deps.insert(deps.end(), wait_for.begin(), wait_for.end());
  task.deps_end = static_cast<std::uint32_t>(deps.size());
  tasks.push_back(task);
  return static_cast<std::uint32_t>(tasks.size() - 1);
}

}  // namespace podsim::parallelism
