#include "sweep/sweep_run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>

#include "config/scenario_config.hpp"
#include "output/hdf5_reader.hpp"
#include "output/hdf5_writer.hpp"
#include "output/output_claim.hpp"
#include "partition/work_distribution.hpp"
#include "runtime/step_work.hpp"
#include "sweep/sweep_point.hpp"
#include "util/error.hpp"
#include "util/progress_line.hpp"

namespace podsim::sweep {

namespace {

using Clock = std::chrono::steady_clock;

std::string column_name(const std::string& key) {
  std::string out;
  for (char c : key) out += (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_') ? c : '_';
  return out;
}

/// The /sweep table of `results` (ordered by index).
output::Table make_table(const config::LoadedSweep& sweep, const std::map<std::uint64_t, PointResult>& results) {
  output::Table t;
  t.name = "sweep";
  t.description = "podsim sweep: one row per point; swept values as written, derived values, feasibility, metrics";
  t.add_int("index", "1");
  const auto keys = sweep.keys();
  for (const auto& k : keys) t.add_text("swept_" + column_name(k));
  for (const auto& d : sweep.derived) t.add_int("derived_" + column_name(d.key), "1");
  t.add_int("feasible", "1");
  t.add_text("reason");
  const MetricSchema& m = metric_schema();
  for (const auto& name : m.texts) t.add_text(name);
  for (const auto& [name, unit] : m.ints) t.add_int(name, unit);
  // A when-given metric (the time to train) has a column only if some point gives it.
  std::vector<bool> written(m.reals.size(), true);
  for (std::size_t i = 0; i < m.reals.size(); ++i) {
    if (!m.is_when_given(m.reals[i].first)) continue;
    written[i] = std::any_of(results.begin(), results.end(), [&](const auto& kv) { return !std::isnan(kv.second.reals[i]); });
  }
  for (std::size_t i = 0; i < m.reals.size(); ++i) {
    if (written[i]) t.add_real(m.reals[i].first, m.reals[i].second);
  }
  for (const auto& [index, r] : results) {
    t.ints("index").push_back(static_cast<std::int64_t>(index));
    const auto overrides = sweep.overrides_at(index);
    for (std::size_t k = 0; k < keys.size(); ++k) t.texts("swept_" + column_name(keys[k])).push_back(overrides[k].value);
    for (std::size_t k = 0; k < sweep.derived.size(); ++k) {
      t.ints("derived_" + column_name(sweep.derived[k].key)).push_back(r.derived[k]);
    }
    t.ints("feasible").push_back(r.feasible ? 1 : 0);
    t.texts("reason").push_back(r.reason);
    for (std::size_t i = 0; i < m.texts.size(); ++i) t.texts(m.texts[i]).push_back(r.texts[i]);
    for (std::size_t i = 0; i < m.ints.size(); ++i) t.ints(m.ints[i].first).push_back(r.ints[i]);
    for (std::size_t i = 0; i < m.reals.size(); ++i) {
      if (written[i]) t.reals(m.reals[i].first).push_back(r.reals[i]);
    }
  }
  return t;
}

/// Each chip count's point with the most tokens per second, by chip count; empty when the
/// points share one count. `points` are feasible, in rank order (ties keep the better rank).
std::vector<PointResult> best_per_chip_count(const std::vector<PointResult>& points) {
  const std::size_t chips_at = int_metric_index("chips");
  const std::size_t tokens = metric_index("tokens_per_s");
  std::map<std::int64_t, const PointResult*> best;
  for (const PointResult& p : points) {
    const PointResult*& b = best[p.ints[chips_at]];
    if (b == nullptr || p.reals[tokens] > b->reals[tokens]) b = &p;
  }
  std::vector<PointResult> out;
  if (best.size() < 2) return out;
  for (const auto& [chips, p] : best) out.push_back(*p);
  return out;
}

/// How the /inputs table names an input: relative to the sweep file's folder, so that the
/// same sweep resumed from another working directory names its files the same way.
std::string input_key(const config::LoadedSweep& sweep, const std::filesystem::path& input) {
  std::error_code ec;
  const auto base = std::filesystem::weakly_canonical(sweep.dir.empty() ? std::filesystem::path(".") : sweep.dir, ec);
  const auto file = std::filesystem::weakly_canonical(input, ec);
  const auto relative = file.lexically_relative(base);
  return relative.empty() ? file.string() : relative.string();
}

/// The /inputs table: every file the sweep reads and its SHA-256 when this run read it.
output::Table inputs_table(const config::LoadedSweep& sweep) {
  output::Table t;
  t.name = "inputs";
  t.description = "every file the sweep reads (relative to the sweep file's folder) and its SHA-256; a resumed "
                  "sweep must read the same bytes";
  t.add_text("file");
  t.add_text("sha256");
  for (const auto& input : sweep.inputs) {
    t.texts("file").push_back(input_key(sweep, input.path));
    t.texts("sha256").push_back(input.sha256);
  }
  return t;
}

/// Refuses to resume from `file` when any input's content differs from what the rows in it
/// were computed from: a file edited between a kill and a resume would leave old rows with
/// old numbers beside new ones.
void check_same_inputs(const config::LoadedSweep& sweep, const std::filesystem::path& file,
                       const std::string& stored_version, const std::string& version) {
  const std::string refuse = file.string() + ": cannot resume: ";
  const std::string advice = "; give a new output file, or remove this one to start over";
  if (stored_version != version) {
    throw InputError(refuse + "it was written by podsim " + stored_version + ", this is podsim " + version + advice);
  }
  const output::StoredFile stored = output::read_hdf5(file, "inputs");
  if (!stored.table) throw InputError(refuse + "it does not record which files it was computed from (/inputs)" + advice);
  const auto& files = stored.table->texts("file");
  const auto& digests = stored.table->texts("sha256");
  for (const auto& input : sweep.inputs) {
    const std::string key = input_key(sweep, input.path);
    const auto at = std::find(files.begin(), files.end(), key);
    if (at == files.end()) {
      throw InputError(refuse + input.shown + " is read now but was not when it was written" + advice);
    }
    const std::string& then = digests[static_cast<std::size_t>(at - files.begin())];
    if (then != input.sha256) {
      throw InputError(refuse + input.shown + " changed since its rows were computed (SHA-256 " + then.substr(0, 12) +
                       "… then, " + input.sha256.substr(0, 12) + "… now)" + advice);
    }
  }
}

/// Points an earlier run of the same sweep already wrote.
std::map<std::uint64_t, PointResult> resume(const config::LoadedSweep& sweep, const std::filesystem::path& file,
                                           const std::string& config_yaml, const std::string& version) {
  std::map<std::uint64_t, PointResult> done;
  std::error_code missing;
  if (!std::filesystem::exists(file, missing)) return done;
  output::StoredFile stored = output::read_hdf5(file, "sweep");
  if (stored.table) check_same_inputs(sweep, file, stored.podsim_version, version);
  if (stored.config_yaml != config_yaml || !stored.table) {
    throw InputError(file.string() + ": holds the results of another sweep (or none); give a new output file, or "
                                     "remove this one to start over");
  }
  const output::Table& t = *stored.table;
  const MetricSchema& m = metric_schema();
  try {
    for (std::size_t row = 0; row < t.rows(); ++row) {
      PointResult r;
      r.index = static_cast<std::uint64_t>(t.ints("index")[row]);
      r.feasible = t.ints("feasible")[row] != 0;
      r.reason = t.texts("reason")[row];
      for (const auto& d : sweep.derived) r.derived.push_back(t.ints("derived_" + column_name(d.key))[row]);
      for (const auto& name : m.texts) r.texts.push_back(t.texts(name)[row]);
      for (const auto& [name, unit] : m.ints) r.ints.push_back(t.ints(name)[row]);
      for (const auto& [name, unit] : m.reals) {
        const bool absent = m.is_when_given(name) && !t.has(name);
        r.reals.push_back(absent ? std::numeric_limits<double>::quiet_NaN() : t.reals(name)[row]);
      }
      done.emplace(r.index, std::move(r));
    }
  } catch (const SimulationError& e) {
    // The same sweep written by a podsim with other columns.
    throw InputError(file.string() + ": its /sweep table is not the one this podsim writes (" + e.what() +
                     "); give a new output file, or remove this one to start over");
  }
  return done;
}

/// Says on stderr (with progress) what the points left will take, estimated from the base
/// scenario's step; refuses beyond kSweepSecondsBudget per process unless forced.
void check_cost(const config::LoadedSweep& sweep, std::size_t todo, const SweepOutput& out,
                const partition::Communicator& comm) {
  if (todo == 0) return;
  const double each = kSweepSecondsPerPoint +
                      runtime::repeated_step_seconds(config::load_scenario(sweep.base, sweep.fixed, false).scenario);
  const double per_process = static_cast<double>(todo) * each / comm.size();
  if (out.progress && comm.root()) {
    std::fprintf(stderr, "[sweep] %zu points to simulate: about %.0f s estimated on %d process%s\n", todo, per_process,
                 comm.size(), comm.size() == 1 ? "" : "es");
  }
  if (out.force || per_process <= kSweepSecondsBudget) return;
  char line[256];
  std::snprintf(line, sizeof line,
                "this sweep would take about %.0f s on %d process%s (%zu points, about %.3g s each, as its base "
                "scenario's step); podsim's budget for a sweep is %.0f s per process",
                per_process, comm.size(), comm.size() == 1 ? "" : "es", todo, each, kSweepSecondsBudget);
  throw InputError(std::string(line) + ": sweep fewer values, run it on more processes (mpirun), or pass --force "
                                       "(it can be stopped and resumed at any time)");
}

}  // namespace

std::string sweep_config_yaml(const config::LoadedSweep& sweep) {
  return sweep.resolved_yaml + "# base scenario, resolved:\n---\n" +
         config::load_scenario(sweep.base, sweep.fixed, false).resolved_yaml();
}

SweepSummary run_sweep(const config::LoadedSweep& sweep, const SweepOutput& out, const partition::Communicator& comm) {
  const auto start = Clock::now();
  const std::string config_yaml = sweep_config_yaml(sweep);
  // Process 0 writes: it claims the file (not an input, not being written by another podsim).
  std::unique_ptr<output::OutputClaim> claim;
  const bool to_file = !out.file.empty();
  if (comm.root() && to_file) {
    std::vector<std::filesystem::path> inputs;
    for (const auto& input : sweep.inputs) inputs.push_back(input.path);
    claim = std::make_unique<output::OutputClaim>(out.file, inputs);
  }
  // Every process reads the file: the points to do must be the same everywhere.
  std::map<std::uint64_t, PointResult> results;
  if (to_file) results = resume(sweep, out.file, config_yaml, out.podsim_version);
  SweepSummary summary;
  summary.points = sweep.points();
  summary.resumed = results.size();
  std::vector<std::uint64_t> todo;
  for (std::uint64_t i = 0; i < summary.points; ++i) {
    if (results.count(i) == 0) todo.push_back(i);
  }

  const output::FileInfo info{out.podsim_version, out.command_line, config_yaml, 1};
  const output::Table inputs = inputs_table(sweep);
  auto write = [&] {
    if (!to_file) return;
    std::vector<output::Table> tables{make_table(sweep, results), inputs};
    if (out.extra_tables) {
      for (auto& t : out.extra_tables(results)) tables.push_back(std::move(t));
    }
    claim->write(output::hdf5_bytes(info, tables));
  };
  check_cost(sweep, todo.size(), out, comm);
  ProgressLine progress("sweep", "points", out.progress && comm.root(), summary.points, results.size(), comm.size());
  auto last_write = Clock::now();
  const auto flush_every = std::chrono::duration<double>(out.flush_seconds);
  SharedWork shared;  // this process's points share their communication measurements and parsed files
  partition::distribute(
      comm, todo, [&](std::uint64_t i) { return evaluate_point(sweep, i, shared).serialize(); },
      [&](std::uint64_t i, const std::vector<char>& bytes) {
        PointResult r = PointResult::deserialize(i, bytes);
        summary.simulated += r.feasible ? 1 : 0;
        results.emplace(i, std::move(r));
        // Rows land in the file in batches: the whole file is rewritten atomically.
        if (Clock::now() - last_write >= flush_every) {
          write();
          last_write = Clock::now();
        }
        progress.update(results.size(), false);
      });
  if (comm.root()) {
    write();
    progress.update(results.size(), true);
    for (const auto& [i, r] : results) {
      summary.infeasible += r.feasible ? 0 : 1;
      if (r.feasible) summary.fastest.push_back(r);
    }
    // Points that train on different tokens per step (a swept batch or sequence length) are
    // compared by throughput; otherwise by step time (the same order, read more directly).
    const std::size_t step = metric_index("step_time_s");
    const std::size_t tokens = metric_index("tokens_per_s");
    const auto per_step = [&](const PointResult& r) { return r.reals[tokens] * r.reals[step]; };
    summary.by_throughput = std::any_of(summary.fastest.begin(), summary.fastest.end(), [&](const PointResult& r) {
      return std::abs(per_step(r) - per_step(summary.fastest.front())) > 1e-6 * per_step(r);
    });
    std::stable_sort(summary.fastest.begin(), summary.fastest.end(), [&](const PointResult& a, const PointResult& b) {
      return summary.by_throughput ? a.reals[tokens] > b.reals[tokens] : a.reals[step] < b.reals[step];
    });
    summary.best_per_chip_count = best_per_chip_count(summary.fastest);
    if (summary.fastest.size() > 5) summary.fastest.resize(5);
    summary.results = std::move(results);
  }
  summary.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return summary;
}

}  // namespace podsim::sweep
