#include "cli/app.hpp"

#include <algorithm>
#include <cmath>
#include <chrono>
#include <iostream>
#include <thread>
#include <new>
#include <optional>

#include <unistd.h>

#include <CLI/CLI.hpp>

#include "cli/collective_command.hpp"
#include "cli/invocation.hpp"
#include "cli/plan_command.hpp"
#include "cli/printable_stream.hpp"
#include "cli/report_command.hpp"
#include "cli/run_command.hpp"
#include "cli/sweep_command.hpp"
#include "cli/topo_command.hpp"
#include "cli/validate_command.hpp"
#include "cli/whatif_command.hpp"
#include "collectives/collective_spec.hpp"
#include "partition/agreement.hpp"
#include "util/error.hpp"
#include "util/printable.hpp"
#include "util/suggest.hpp"

namespace podsim::cli {

namespace {

/// Writes `line` and a newline to stderr in one write(2): under mpirun the processes share
/// one stderr, and a message written piece by piece interleaves with another's
/// ("podsimpodsim: …").
void write_line(const std::string& message) {
  std::string line = printable(message) + '\n';
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(STDERR_FILENO, line.data() + done, line.size() - done);
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

std::string list(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) append_joined(s, " | ", n);
  return s;
}

/// Prints an error and ends the command with `code`. With several processes every one
/// that fails stops the whole job (MPI_Abort), so none waits forever for a failed peer.
/// Input errors are the same on every process: process 0 reports them; the others give
/// it a moment to do so and speak up only if it did not (the error was theirs alone).
int report(const partition::Communicator& world, const char* kind, const std::string& message, int code,
           bool same_everywhere) {
  if (world.size() == 1) {
    write_line("podsim: " + std::string(kind) + message);
    return code;
  }
  if (!world.root() && same_everywhere) std::this_thread::sleep_for(std::chrono::milliseconds(300));
  write_line("podsim (process " + std::to_string(world.rank()) + " of " + std::to_string(world.size()) + "): " + kind +
             message);
  world.abort(code);
  return code;
}

/// A path option given as "" would silently mean "no file": refused instead.
const CLI::Validator kFileName(
    [](std::string& value) { return value.empty() ? std::string("a file name cannot be empty") : std::string(); },
    "FILE");

/// CLI::Range lets NaN through (every comparison with it is false).
CLI::Validator finite_range(double low, double high) {
  return CLI::Validator(
      [low, high](std::string& value) {
        double v = 0;
        if (!CLI::detail::lexical_cast(value, v) || !std::isfinite(v) || v < low || v > high) {
          return "expected a number from " + CLI::detail::to_string(low) + " to " + CLI::detail::to_string(high) +
                 ", got \"" + value + "\"";
        }
        return std::string();
      },
      "NUMBER in [" + CLI::detail::to_string(low) + " - " + CLI::detail::to_string(high) + "]");
}

/// The subcommands, for the did-you-mean of a mistyped one.
const std::vector<std::string> kCommands{"run", "sweep", "plan", "whatif", "validate", "report", "topo", "collective"};

}  // namespace

int run(int argc, char** argv, const partition::Communicator& world) {
  const Invocation invocation = make_invocation(argc, argv, world);
  const PrintableStream printable_errors(std::cerr);  // CLI11's messages repeat the arguments
  CLI::App app{"podsim: a discrete-event simulator of large-model training on accelerator pods", "podsim"};
  app.set_version_flag("--version", "podsim " + invocation.version);
  app.require_subcommand(1);
  // Command-line mistakes read like every other podsim error.
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return std::string("podsim: error: ") + e.what() + "\nRun with --help for more information.\n";
  });

  RunOptions run_opts;
  CLI::App* run_cmd = app.add_subcommand("run", "Simulate one training step of a scenario: where the time goes, MFU, memory");
  run_cmd->add_option("scenario", run_opts.file, "Scenario file (configs/examples/*.yaml)")->required();
  run_cmd->add_option("--output,-o", run_opts.output_file, "Write /summary, /breakdown, /memory, /links to this HDF5 file")
      ->check(kFileName);
  run_cmd->add_flag("--json", run_opts.json, "Print the summary as one JSON object");
  run_cmd->add_option("--trace", run_opts.trace_file,
                      "Write the step's timeline as Chrome trace-event JSON (open it in ui.perfetto.dev)")
      ->check(kFileName);
  run_cmd->add_option("--trace-stages", run_opts.trace_stages, "Only these pipeline stages in the trace, e.g. 0,15")
      ->delimiter(',')
      ->check(CLI::Range(0, 1 << 20));
  run_cmd->add_option("--trace-max-events", run_opts.trace_max_events,
                      "At most this many intervals in the trace (the latest are left out); default 1000000")
      ->check(CLI::Range(std::size_t{1}, std::size_t{100'000'000}));
  run_cmd->add_flag("--timeline", run_opts.timeline,
                    "Also write every interval of every stream as the /timeline table of the -o file (--trace does too)");
  run_cmd->add_flag("--allow-oom", run_opts.allow_oom, "Report a layout that does not fit in HBM without failing");
  run_cmd->add_flag("--force", run_opts.force,
                    "Simulate a step beyond the work budget (2e7 tasks, about 2 GB; the estimate is in the refusal)");
  run_cmd->add_flag("--stats", run_opts.stats, "Report the simulations split over MPI processes on stderr");
  run_cmd->add_option("--set", run_opts.sets,
                      "Override a key: --set parallelism.tp=4 --set training.micro_batch=2 (repeatable)");

  SweepOptions sweep_opts;
  CLI::App* sweep_cmd = app.add_subcommand(
      "sweep", "Simulate every point of a sweep (axes over any scenario key), spread over MPI processes; resumable");
  sweep_cmd->add_option("sweep", sweep_opts.file, "Sweep file (docs/sweep.md)")->required();
  sweep_cmd->add_option("--output,-o", sweep_opts.output_file,
                        "HDF5 file for the /sweep table; rerunning with the same file resumes")
      ->required()
      ->check(kFileName);
  sweep_cmd->add_flag("--quiet,-q", sweep_opts.quiet, "No progress line on stderr");
  sweep_cmd->add_flag("--force", sweep_opts.force,
                      "Run even beyond the sweep's work budget (an hour of estimated simulation per process)");
  sweep_cmd->add_option("--flush-every", sweep_opts.flush_seconds,
                        "Seconds between writes of the finished rows (the whole file is rewritten atomically)")
      ->check(finite_range(0.0, 86400.0))
      ->capture_default_str();

  PlanOptions plan_opts;
  CLI::App* plan_cmd = app.add_subcommand(
      "plan", "Data or model parallelism? Every layout of the chips simulated and ranked, with reasons");
  plan_cmd->add_option("--model,-m", plan_opts.model, "Model file, or a name in configs/models (gpt3-175b)")->required();
  plan_cmd->add_option("--hardware", plan_opts.hardware, "Hardware file, or a name in configs/hardware (tpu-v4)")
      ->required();
  plan_cmd->add_option("--topology,-t", plan_opts.topology, "Topology file, or a name in topologies (tpu-v4-8x8x16-twisted)")
      ->required();
  plan_cmd->add_option("--global-batch,-b", plan_opts.global_batch, "Sequences per step")
      ->required()
      ->check(CLI::Range(1, 1 << 30));
  plan_cmd->add_option("--seq-len", plan_opts.seq_len, "Tokens per sequence (default: the model's)")
      ->check(CLI::Range(1, 1 << 24));
  plan_cmd->add_option("--top", plan_opts.top, "Layouts to print")->capture_default_str()->check(CLI::Range(1, 1000000));
  CLI::Option* contention_top = plan_cmd->add_option(
      "--contention-top", plan_opts.contention_top,
      "Best layouts (on the analytical network) simulated again on the contention-aware one (default: --top; 0: none)");
  plan_cmd->add_option("--memory-headroom", plan_opts.memory_headroom,
                       "Share of each chip's HBM a recommended layout leaves free (0.05: at most 95 % used)")
      ->capture_default_str()
      ->check(finite_range(0.0, 0.9));
  plan_cmd->add_option("--micro-batches", plan_opts.micro_batches, "Micro batches to try (those dividing the batch)")
      ->delimiter(',')
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 20));
  plan_cmd->add_option("--output,-o", plan_opts.output_file, "Write every layout (the /plan table) to this HDF5 file")
      ->check(kFileName);
  plan_cmd->add_flag("--json", plan_opts.json, "Print the ranked layouts as one JSON object");
  plan_cmd->add_option("--emit", plan_opts.emit,
                       "Print the N-th ranked layout as a scenario podsim run takes (on the network it was ranked on) "
                       "instead of the table")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000000}))
      ->excludes("--json");
  plan_cmd->add_option("--max-simulations", plan_opts.max_simulations,
                       "Stop the search after N layouts simulated and rank the best so far (as Ctrl-C does)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000000}));
  plan_cmd->add_flag("--quiet,-q", plan_opts.quiet, "No progress line on stderr");
  plan_cmd->add_flag("--exhaustive", plan_opts.exhaustive,
                     "Simulate every layout instead of searching (no pruning by lower bounds): slow, for checking");
  plan_cmd->add_flag("--force", plan_opts.force,
                     "Simulate even beyond the plan's work budget (20 min of estimated simulation per process)");
  plan_cmd->add_option("--set", plan_opts.sets,
                       "Override a key of the base scenario: --set training.flash_attention=true (repeatable)");
  plan_cmd->add_option("--root", plan_opts.root, "Repository root where names are looked up")->check(kFileName);

  WhatifOptions whatif_opts;
  CLI::App* whatif_cmd = app.add_subcommand(
      "whatif", "Which knob buys most? Each hardware and software knob varied alone: elasticity of the step time");
  whatif_cmd->add_option("scenario", whatif_opts.file, "Scenario file (configs/examples/*.yaml)")->required();
  whatif_cmd->add_option("--knobs,-k", whatif_opts.knobs,
                         "Scenario keys to vary, e.g. hardware.peak.bf16,topology.link.bandwidth (default: docs/whatif.md)")
      ->delimiter(',');
  whatif_cmd->add_option("--step", whatif_opts.step, "How far each continuous knob moves, down and up")
      ->capture_default_str();
  whatif_cmd->add_option("--set", whatif_opts.sets, "Override a key of the scenario first (repeatable)");
  whatif_cmd->add_option("--output,-o", whatif_opts.output_file,
                         "Write the /whatif, /sweep and /inputs tables to this HDF5 file (rerunning resumes)")
      ->check(kFileName);
  whatif_cmd->add_flag("--replan", whatif_opts.replan,
                       "Also find each variant's best layout (podsim plan, analytical network): a faster ICI can change it");
  whatif_cmd->add_flag("--json", whatif_opts.json, "Print the result as one JSON object");
  whatif_cmd->add_flag("--quiet,-q", whatif_opts.quiet, "No progress line on stderr");

  ValidateOptions validate_opts;
  CLI::App* validate_cmd = app.add_subcommand("validate", "Compare predictions with published measurements");
  validate_cmd->add_option("--data", validate_opts.data,
                           "CSV in the 26-column format of configs/validation/published.csv (default: that file)")
      ->check(kFileName);
  validate_cmd->add_option("--root", validate_opts.root, "Repository root holding configs/ and topologies/")
      ->check(kFileName);
  validate_cmd->add_flag("--json", validate_opts.json, "Print JSON; it ends with {\"mape\", \"rows\", \"skipped\"}");
  CLI::Option* explain = validate_cmd->add_option(
      "--explain", validate_opts.explain,
      "Validate one row (its id) and print the step podsim simulated for it, as `podsim run` does");
  validate_cmd
      ->add_flag("--cross", validate_opts.cross,
                 "Leave one source out: predict each source's rows with every end-to-end constant refitted without "
                 "them (configs/validation/fitted.csv), beside the in-sample error and one constant MFU per family "
                 "(under a minute on one core)")
      ->excludes(explain);
  validate_cmd->add_flag("--quiet,-q", validate_opts.quiet, "--cross: no progress lines on stderr");

  TopoOptions topo;
  CLI::App* topo_cmd = app.add_subcommand("topo", "Chips, links, diameter, bisection and per-axis bandwidth of a topology");
  topo_cmd->add_option("file", topo.file, "Topology file (topologies/*.yaml)")->required();
  topo_cmd->add_flag("--json", topo.json, "Print one JSON object instead of tables");
  topo_cmd->add_option("--set", topo.sets,
                       "Override a key: --set link.bandwidth=\"50 GB/s\" or, as run writes it, --set topology.nodes=64 "
                       "(repeatable)");

  CollectiveOptions coll;
  CLI::App* coll_cmd = app.add_subcommand("collective", "Time a collective on a simulated pod, like nccl-tests");
  coll_cmd->add_option("--topology,-t", coll.args.topology_file, "Topology file (topologies/*.yaml)")->required();
  coll_cmd->add_option("--hardware", coll.hardware,
                       "Hardware file, or a name in configs/hardware (a100-80gb): its link efficiency scales the links, "
                       "as run and validate do")
      ->check(kFileName);
  coll_cmd->add_option("--op", coll.args.op, list(collectives::op_names()))->capture_default_str();
  coll_cmd->add_option("--algorithm,-a", coll.args.algorithm, list(collectives::algorithm_names()))->capture_default_str();
  coll_cmd->add_option("--protocol", coll.args.protocol, "NCCL protocol on a GPU cluster: " + list(collectives::protocol_names()))
      ->capture_default_str();
  coll_cmd->add_option("--axes", coll.args.axes,
                       "Axes each group spans, e.g. x or x,y; every group along them runs at once. 'all' = one group of every chip")
      ->capture_default_str();
  coll_cmd->add_option("--sizes,-s", coll.args.sizes,
                       "Bytes per chip: a list (1KiB,1MiB,1GiB) and/or ranges doubling from A to B (A..B)")
      ->capture_default_str();
  coll_cmd->add_option("--network,-n", coll.args.network, "analytical (α-β, no contention) | contention (shared links)")
      ->capture_default_str();
  coll_cmd->add_option("--output,-o", coll.output_file, "Write the results to this HDF5 file")->check(kFileName);
  coll_cmd->add_flag("--json", coll.json, "Print JSON instead of a table");
  coll_cmd->add_flag("--stats", coll.stats, "Report the simulations split over MPI processes on stderr");
  coll_cmd->add_flag("--force", coll.force,
                     "Simulate sizes beyond the work budget (2.5e7 transfers in one collective, 60 s in all)");
  coll_cmd->add_option("--set", coll.args.sets,
                       "Override a key of the resolved request: --set topology.link.bandwidth=\"50 GB/s\", "
                       "--set network.max_chunks=32 (repeatable)");

  ReportOptions report_opts;
  CLI::App* report_cmd = app.add_subcommand("report", "Read a podsim result file back: its tables as text, one as CSV, or its scenario");
  report_cmd->add_option("file", report_opts.file, "A file podsim wrote with -o")->required();
  report_cmd->add_option("--csv", report_opts.csv, "Print this table (summary, breakdown, links, …) as CSV, every row")
      ->check(CLI::Validator([](std::string& v) { return v.empty() ? std::string("give a table name") : std::string(); }, "TABLE"));
  report_cmd->add_option("--html", report_opts.html,
                         "Write one self-contained HTML page of the file (figures inline, nothing fetched): send it to a colleague")
      ->check(kFileName);
  report_cmd->add_flag("--scenario", report_opts.scenario,
                       "Print the resolved scenario the file was made from (podsim run accepts it back)");
  report_cmd->add_option("--rows", report_opts.max_rows, "Rows of a long table shown as text")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 30));

  // Processes started with different commands (mpiexec … : …) would wait for each other
  // forever: they agree on the command before anything else.
  try {
    partition::require_agreement(world, "the command they run",
                                 {{"podsim version", invocation.version}, {"command", invocation.arguments}});
  } catch (const InputError& e) {
    return report(world, "error: ", e.what(), kExitBadInput, true);
  }

  // Said before CLI11 parses: it would call a mistyped command "an extra argument", and
  // no command at all "A subcommand is required".
  if (argc < 2) {
    if (world.root()) std::cerr << "podsim: error: give a command: " << join_choices(kCommands) << "\n\n" << app.help();
    return kExitBadInput;
  }
  const std::string first = argv[1];
  if (!first.empty() && first[0] != '-' && std::find(kCommands.begin(), kCommands.end(), first) == kCommands.end()) {
    if (world.root()) {
      write_line("podsim: error: unknown command \"" + first + "\"" + did_you_mean(first, kCommands) + "; commands are " +
                 join_choices(kCommands) + " (podsim --help)");
    }
    return kExitBadInput;
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Every process parses the same arguments; one voice is enough.
    const int code = world.root() ? app.exit(e) : e.get_exit_code();
    return code == 0 ? kExitOk : kExitBadInput;
  }

  if (contention_top->count() == 0) plan_opts.contention_top = plan_opts.top;
  // Text for a person goes through printable(); JSON, CSV and a stored scenario are data.
  const bool machine_readable = (run_cmd->parsed() && run_opts.json) || (plan_cmd->parsed() && (plan_opts.json || plan_opts.emit > 0)) ||
                                (whatif_cmd->parsed() && whatif_opts.json) ||
                                (validate_cmd->parsed() && validate_opts.json) || (topo_cmd->parsed() && topo.json) ||
                                (coll_cmd->parsed() && coll.json) ||
                                (report_cmd->parsed() && (!report_opts.csv.empty() || report_opts.scenario));
  std::optional<PrintableStream> printable_output;
  if (!machine_readable) printable_output.emplace(std::cout);

  try {
    if (run_cmd->parsed()) run_scenario(run_opts, invocation);
    if (sweep_cmd->parsed()) run_sweep_command(sweep_opts, invocation);
    if (plan_cmd->parsed()) {
      if (const int code = run_plan_command(plan_opts, invocation); code != kExitOk) return code;
    }
    if (whatif_cmd->parsed()) run_whatif_command(whatif_opts, invocation);
    if (topo_cmd->parsed()) run_topo(topo, invocation);
    if (validate_cmd->parsed()) run_validate(validate_opts, invocation);
    if (coll_cmd->parsed()) run_collective(coll, invocation);
    if (report_cmd->parsed()) run_report(report_opts, invocation);
  } catch (const InputError& e) {
    return report(world, "error: ", e.what(), kExitBadInput, true);
  } catch (const SimulationError& e) {
    return report(world, "simulation failed: ", e.what(), kExitFailure, false);
  } catch (const std::bad_alloc&) {
    return report(world, "simulation failed: ", "out of memory", kExitFailure, false);
  } catch (const std::exception& e) {
    return report(world, "internal error: ", e.what(), kExitFailure, false);
  }
  return kExitOk;
}

}  // namespace podsim::cli
