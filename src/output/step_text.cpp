#include "output/step_text.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "hardware/dtype.hpp"
#include "output/json_writer.hpp"
#include "output/prediction_band.hpp"
#include "output/text_table.hpp"
#include "output/time_to_train_text.hpp"
#include "parallelism/zero3_collectives.hpp"
#include "runtime/critical_path.hpp"
#include "util/units.hpp"

namespace podsim::output {

namespace {

using runtime::TimeCategory;

using units::format_fixed;

/// 253500 -> "253,500".
std::string grouped(double v) {
  std::string digits = format_fixed(v, 0);
  std::string out;
  const std::size_t first = digits.size() % 3 == 0 ? 3 : digits.size() % 3;
  out = digits.substr(0, first);
  for (std::size_t i = first; i < digits.size(); i += 3) {
    out += ',';
    out += digits.substr(i, 3);
  }
  return out;
}

std::string gib(double bytes) { return format_fixed(bytes / double(1ull << 30), 1); }

/// "compute  forward", "         backward", …, "exposed  tensor-parallel comm", …, "bubble":
/// the categories' labels under their group's name.
std::string row_label(TimeCategory c) {
  const auto i = static_cast<std::size_t>(c);
  std::string group;
  if (c == TimeCategory::kForward) group = "compute  ";
  else if (c == TimeCategory::kCommTp) group = "exposed  ";
  else if (i < static_cast<std::size_t>(TimeCategory::kBubble)) group = "         ";
  return group + std::string(runtime::category_label(c));
}

}  // namespace

std::string step_text(const runtime::Scenario& s, const runtime::StepReport& r, const topology::Topology& topo,
                      const RunLabels& labels) {
  std::ostringstream out;
  const auto& p = s.parallel;
  out << s.model.name << " · " << labels.topology << " (" << r.chips << " chips) · dp " << p.dp << " × tp " << p.tp
      << " × pp " << p.pp;
  if (p.virtual_stages > 1) out << " × v " << p.virtual_stages;
  out << " · " << parallelism::schedule_label(p);
  if (p.microbatch_group > 0) out << " in microbatch groups of " << p.microbatch_group;
  if (p.zero > 0) out << " · ZeRO-" << p.zero;
  if (parallelism::hybrid_shard(p)) out << " in groups of " << parallelism::zero_shard(p);
  if (p.zero == 3 && s.training.zero3_collectives == parallelism::Zero3Collectives::kPerTensor) out << " per tensor";
  if (parallelism::fsdp_gathers_once(p, s.training)) out << " gathered once a step";
  if (p.sequence_parallel && p.tp > 1) out << " · sequence parallel";
  out << " · " << hardware::dtype_name(s.training.precision.compute) << " · recompute "
      << parallelism::recompute_name(s.training.recompute) << "\n";
  const std::size_t mem_stage = fullest_stage(r);
  const auto& mem = r.memory[mem_stage];
  out << "step " << format_fixed(r.step_s, 3) << " s   tokens/s " << grouped(r.tokens_per_s) << "   MFU " << format_fixed(100 * r.mfu, 1)
      << " %   HFU " << format_fixed(100 * r.hfu, 1) << " %   memory " << gib(mem.total) << " / " << gib(mem.capacity)
      << " GiB per chip (" << (r.fits() ? "fits" : "DOES NOT FIT") << ")\n";
  out << "podsim's error on runs like this: " << band_text(prediction_band(s.chip)) << "\n";
  out << "batch " << s.training.global_batch << " × " << s.training.seq_len << " tokens = " << r.microbatches
      << (r.microbatches == 1 ? " microbatch of " : " microbatches of ") << s.training.micro_batch << " per replica · "
      << s.chip.name << " · "
      << (s.network.fidelity == network::Fidelity::kContention ? "contention-aware" : "analytical") << " network\n";
  if (s.network.fidelity == network::Fidelity::kContention) {
    const auto& c = r.contention;
    out << "contention-aware network: " << c.flows + c.chunks << " communications measured (" << c.flows
        << " as flows, " << c.chunks << " as chunks; network.contention " << network::contention_model_name(s.network.contention)
        << "), " << c.renamed << " of them another's measurement renamed (the same on other chips and links: not simulated), "
        << c.one_group << " on one group standing for its disjoint images, " << c.periods
        << " as one period of their symmetry standing for the whole\n";
  }
  out << "mesh: " << r.mesh << "   matmul padding waste " << format_fixed(100 * r.padding_waste(), 1) << " % (tile "
      << s.chip.matmul_tile << ")\n";
  if (const auto t = runtime::time_to_train(s.training, r.tokens_per_s, r.chips)) out << time_to_train_text(*t, r.chips) << "\n";
  out << "\n";

  const std::size_t pace = pacing_stage(r);
  const auto& st = r.execution.stages[pace];
  std::string title = "where the time goes";
  if (r.execution.stages.size() > 1) title += " (stage " + std::to_string(st.stage) + ", the busiest)";
  TextTable t({title, "s", "%"});
  t.set_align(0, Align::kLeft);
  for (std::size_t c = 0; c < runtime::kCategories; ++c) {
    const double sec = to_seconds(st.time_ps[c]);
    t.add_row({row_label(static_cast<TimeCategory>(c)), format_fixed(sec, 3), format_fixed(r.step_s > 0 ? 100 * sec / r.step_s : 0, 1)});
  }
  out << t.render();
  const double overlapped_dp = overlapped_s(st, TimeCategory::kCommDp, 1);
  if (overlapped_dp > 0) out << "  (data-parallel comm hidden under compute: " << format_fixed(overlapped_dp, 3) << " s)\n";
  if (st.compute_slowed_ps > 0) {
    // On a TPU communication holds no compute units (chip.sms 0): only HBM bandwidth is shared.
    out << "  (compute slowed by the " << (s.chip.sms > 0 ? "SMs and " : "") << "HBM bandwidth communication takes beside it: "
        << format_fixed(to_seconds(st.compute_slowed_ps), 3) << " s of it)\n";
  }
  if (st.compute_host_bound_ps > 0) {
    out << "  (compute waiting for the host to issue kernels: " << format_fixed(to_seconds(st.compute_host_bound_ps), 3)
        << " s of it; training.host)\n";
  }
  if (r.execution.stages.size() > 1) {
    SimTime lo = st.time_ps[static_cast<std::size_t>(TimeCategory::kBubble)];
    SimTime hi = lo;
    for (const auto& other : r.execution.stages) {
      lo = std::min(lo, other.time_ps[static_cast<std::size_t>(TimeCategory::kBubble)]);
      hi = std::max(hi, other.time_ps[static_cast<std::size_t>(TimeCategory::kBubble)]);
    }
    out << "  bubble across the " << r.execution.stages.size() << " stages: " << format_fixed(to_seconds(lo), 3) << " – "
        << format_fixed(to_seconds(hi), 3) << " s\n";
  }
  const auto contributors = runtime::path_contributors(r.execution.critical_path);
  if (!contributors.empty()) {
    out << "\nwhat limits the step (its critical path; shortening one by x shortens the step by at most x):\n";
    TextTable cp({"on the critical path", "s", "%"});
    cp.set_align(0, Align::kLeft);
    for (std::size_t i = 0; i < std::min<std::size_t>(5, contributors.size()); ++i) {
      const auto& c = contributors[i];
      const double sec = to_seconds(c.ps);
      cp.add_row({runtime::contributor_label(c), format_fixed(sec, 3),
                  format_fixed(r.step_s > 0 ? 100 * sec / r.step_s : 0, 1)});
    }
    out << cp.render();
  }
  out << "\nmemory per chip (stage " << mem_stage << "): weights " << gib(mem.weights) << " · gradients "
      << gib(mem.gradients) << " · optimizer " << gib(mem.optimizer) << " · activations " << gib(mem.activations)
      << " · temporary " << gib(mem.temporary) << " = " << gib(mem.total) << " of " << gib(mem.capacity) << " GiB";
  if (mem.offloaded > 0) out << " (and " << gib(mem.offloaded) << " GiB of activations offloaded to the host)";
  out << "\n";
  const BusiestLink b = busiest_link(r);
  out << "bytes per step per chip: tp " << units::format_bytes(st.comm_bytes[0]) << " · dp "
      << units::format_bytes(st.comm_bytes[1]) << " · pp " << units::format_bytes(st.comm_bytes[2]);
  if (st.comm_bytes[3] > 0) out << " · other " << units::format_bytes(st.comm_bytes[3]);
  if (b.link) out << "     busiest link " << format_fixed(100 * b.utilization, 0) << " % (" << link_label(topo, *b.link) << ")";
  out << "\n";
  return out.str();
}

namespace {

/// Row `row` of `t` as JSON members named like the table's columns (one vocabulary for
/// --json and HDF5).
void row_members(JsonWriter& j, const Table& t, std::size_t row) {
  for (const auto& c : t.columns) {
    j.key(c.name);
    if (std::holds_alternative<std::vector<double>>(c.values)) {
      j.value(c.reals()[row]);
    } else if (std::holds_alternative<std::vector<std::int64_t>>(c.values)) {
      j.value(c.ints()[row]);
    } else {
      j.value(c.texts()[row]);
    }
  }
}

}  // namespace

std::string step_json(const runtime::Scenario& s, const runtime::StepReport& r, const RunLabels& labels) {
  JsonWriter j(2);
  j.begin_object();
  // Every /summary column, by its name there: the layout, the metrics, the memory peak.
  row_members(j, summary_table(s, r, labels), 0);
  // The pacing stage's /breakdown row (its *_s categories sum to step_time_s) and the
  // fullest stage's /memory row (its *_bytes parts sum to total_bytes).
  j.key("breakdown");
  j.begin_object();
  row_members(j, breakdown_table(r), pacing_stage(r));
  j.end_object();
  j.key("memory");
  j.begin_object();
  row_members(j, memory_table(r), fullest_stage(r));
  j.end_object();
  // How far step times like this one are from measured ones (docs/calibration.md).
  const PredictionBand band = prediction_band(s.chip);
  j.member("error_band", band.mape);
  j.member("error_band_basis", band.basis);
  j.key("critical_path");
  j.begin_array();
  for (const auto& c : runtime::path_contributors(r.execution.critical_path)) {
    j.begin_object();
    j.member("category", runtime::category_name(c.category));
    j.member("operation", c.operation);
    j.member("duration_s", to_seconds(c.ps));
    j.end_object();
  }
  j.end_array();
  j.end_object();
  return j.str();
}

}  // namespace podsim::output
