#pragma once

// A step's timeline as Chrome trace-event JSON, which Perfetto (ui.perfetto.dev) and
// chrome://tracing open (docs/output-schema.md, "Timeline trace").

#include <cstddef>
#include <string>
#include <vector>

#include "runtime/step_simulation.hpp"

namespace podsim::output {

struct TraceOptions {
  std::vector<int> stages;                 ///< pipeline stages to include (empty: every stage)
  std::size_t max_events = 1'000'000;      ///< beyond it the latest intervals are left out, and the file says so
};

/// One process per pipeline stage (its representative chip: every chip of the stage runs the
/// same program), one thread per stream (compute, then the communication streams), and a
/// "critical path" thread holding the path's pieces where they ran. Complete events ("X")
/// in microseconds; the compute thread's events tile the step, so per stage their durations
/// sum to the step time and, per category, to /breakdown. Needs report.execution.timeline.
std::string chrome_trace(const runtime::StepReport& report, const TraceOptions& options);

}  // namespace podsim::output
