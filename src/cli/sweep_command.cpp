#include "cli/sweep_command.hpp"

#include <cmath>
#include <cstdio>
#include <iostream>

#include "config/sweep_config.hpp"
#include "output/time_to_train_text.hpp"
#include "sweep/sweep_run.hpp"
#include "util/suggest.hpp"

namespace podsim::cli {

void run_sweep_command(const SweepOptions& options, const Invocation& invocation) {
  // Every process reads and checks the sweep: bad axes fail here, before any work.
  const config::LoadedSweep sweep = config::load_sweep(options.file, !options.quiet && invocation.prints());
  require_same_inputs(sweep.inputs, invocation);
  const sweep::SweepSummary s = sweep::run_sweep(
      sweep, sweep::SweepOutput{options.output_file, invocation.version, invocation.command_line, !options.quiet,
                         options.flush_seconds, {}, options.force},
      *invocation.world);
  if (!invocation.prints()) return;
  char line[512];
  // Only what the sweep found goes to stdout (it does not depend on the processes); the
  // speed is on the progress line.
  std::snprintf(line, sizeof line,
                "sweep %s: %llu points in %s (%llu resumed from the file, %llu simulated now, %llu infeasible)\n",
                options.file.c_str(), static_cast<unsigned long long>(s.points), options.output_file.c_str(),
                static_cast<unsigned long long>(s.resumed), static_cast<unsigned long long>(s.simulated),
                static_cast<unsigned long long>(s.infeasible));
  std::cout << line;
  if (s.fastest.empty()) return;
  // The fastest points, by their swept values: what a capacity planner looks at first.
  const auto keys = sweep.keys();
  const std::size_t step = sweep::metric_index("step_time_s");
  const std::size_t mfu = sweep::metric_index("mfu");
  const std::size_t tokens = sweep::metric_index("tokens_per_s");
  const std::size_t train = sweep::metric_index("time_to_train_s");
  std::cout << (s.by_throughput ? "highest-throughput feasible points (their tokens per step differ):\n"
                                : "fastest feasible points:\n");
  const auto print_point = [&](const sweep::PointResult& r, const std::string& lead) {
    const auto values = sweep.overrides_at(r.index);
    std::string swept;
    for (std::size_t k = 0; k < keys.size(); ++k) append_joined(swept, " ", keys[k] + "=" + values[k].value);
    std::snprintf(line, sizeof line, "  %s#%-6llu %10.4f s/step  %12.0f tokens/s  MFU %5.1f%%  ", lead.c_str(),
                  static_cast<unsigned long long>(r.index), r.reals[step], r.reals[tokens], 100.0 * r.reals[mfu]);
    std::cout << line;
    // With training.tokens: how long the run takes at this point (runtime/time_to_train.hpp).
    if (const double t = r.reals[train]; !std::isnan(t)) std::cout << output::span_text(t) << " to train  ";
    std::cout << swept << "\n";
  };
  for (const auto& r : s.fastest) print_point(r, "");
  if (s.best_per_chip_count.empty()) return;
  std::cout << "best point per chip count (most tokens/s):\n";
  const std::size_t chips_at = sweep::int_metric_index("chips");
  for (const auto& r : s.best_per_chip_count) {
    std::snprintf(line, sizeof line, "%6lld chips  ", static_cast<long long>(r.ints[chips_at]));
    print_point(r, line);
  }
}

}  // namespace podsim::cli
