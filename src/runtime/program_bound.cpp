#include "runtime/program_bound.hpp"

#include <algorithm>
#include <array>

namespace podsim::runtime {

using parallelism::Stream;
using parallelism::TaskKind;

SimTime program_bound_ps(const parallelism::StepPlan& plan, CommModel& comm) {
  std::vector<double> link_work(comm.resources(), 0.0);
  SimTime bound = 0;
  for (const parallelism::StageProgram& program : plan.stages) {
    std::array<SimTime, parallelism::kStreams> stream{};
    SimTime dp_communicator = 0;  // the dp streams' collectives
    for (const parallelism::Task& t : program.tasks) {
      const CommProfile* profile = nullptr;
      if (t.kind == TaskKind::kCollective) {
        profile = &comm.collective(t.axis, t.op, t.bytes, program.stage, t.peer);
      } else if (t.kind == TaskKind::kSend) {
        profile = &comm.send(program.stage, t.peer, t.bytes);
      }
      SimTime least = 0;
      if (t.kind == TaskKind::kCompute) least = t.duration_ps;
      if (profile != nullptr) {
        // As the executor launches it: a collective's own duration besides its transfer.
        least = profile->alone_ps() + (t.kind == TaskKind::kCollective ? t.duration_ps : 0);
        if (profile->bandwidth_ps > 0) {
          for (const network::ResourceUse& u : profile->uses) {
            if (u.fraction > 0) link_work[u.resource] += static_cast<double>(profile->bandwidth_ps) * std::min(u.fraction, 1.0);
          }
        }
      }
      stream[static_cast<std::size_t>(t.stream)] += least;
      if (t.kind == TaskKind::kCollective && (t.stream == Stream::kDpGather || t.stream == Stream::kDpReduce)) {
        dp_communicator += least;
      }
    }
    for (const SimTime s : stream) bound = std::max(bound, s);
    if (plan.dp_serial) bound = std::max(bound, dp_communicator);
  }
  for (const double w : link_work) bound = std::max(bound, static_cast<SimTime>(w));
  return bound;
}

}  // namespace podsim::runtime
