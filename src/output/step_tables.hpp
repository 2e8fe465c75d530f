#pragma once

#include <optional>
#include <string>
#include <vector>

#include "output/table.hpp"
#include "runtime/scenario.hpp"
#include "runtime/step_simulation.hpp"
#include "topology/topology.hpp"

namespace podsim::output {

/// Names that describe a run in reports.
struct RunLabels {
  std::string scenario;
  std::string topology;  ///< "TPU v4 16x16x16"-style, from the topology's name and shape
};

/// The /summary table alone (one row): what a sweep keeps of a point.
Table summary_table(const runtime::Scenario& scenario, const runtime::StepReport& report, const RunLabels& labels);

/// /breakdown: one row per pipeline stage, the time categories summing to the step.
Table breakdown_table(const runtime::StepReport& report);
/// /memory: one row per pipeline stage, HBM one chip of it needs.
Table memory_table(const runtime::StepReport& report);

/// The four tables of `podsim run` (docs/output-schema.md): /summary (one row),
/// /breakdown and /memory (one row per pipeline stage, with the number of chips each row
/// stands for), /links (one row per directed link that carried traffic).
std::vector<Table> step_tables(const runtime::Scenario& scenario, const runtime::StepReport& report,
                               const topology::Topology& topo, const RunLabels& labels);

/// The stage whose time is mostly compute (the one that sets the pace): the report's
/// headline breakdown.
std::size_t pacing_stage(const runtime::StepReport& report);

/// The pipeline stage whose chips need the most memory (the first such).
std::size_t fullest_stage(const runtime::StepReport& report);

/// The link busiest over the step and its busy share of the step (0 and no link when
/// nothing moved).
struct BusiestLink {
  double utilization = 0;
  std::optional<topology::LinkId> link;
};
BusiestLink busiest_link(const runtime::StepReport& report);

/// Seconds a stage's communication of `axis` (0 tp, 1 dp, 2 pp) ran hidden under other
/// work: its busy time minus what was exposed as `exposed`.
double overlapped_s(const runtime::StageResult& stage, runtime::TimeCategory exposed, std::size_t axis);

using topology::link_label;  // "x+" / "scale-out up": a link's short name (topology.hpp)

}  // namespace podsim::output
