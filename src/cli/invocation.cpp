#include "cli/invocation.hpp"

#include <cstdio>

#include "partition/agreement.hpp"

namespace podsim::cli {

namespace {
std::string shell_quote(const std::string& arg) {
  if (!arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789-_./=:,+@%") == std::string::npos) {
    return arg;
  }
  std::string out = "'";
  for (char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}
}  // namespace

void report_parallel_stats(const partition::ParallelStats& stats, const Invocation& invocation) {
  if (!invocation.prints()) return;
  const double simulated_s = to_seconds(stats.simulated_ps);
  char line[512];
  std::snprintf(line, sizeof line,
                "podsim stats: %d process(es); %llu simulation(s) shared out whole; %llu run whole by every process "
                "(too small to split, or flows); %llu partitioned simulation(s) covering %.6g simulated s; %llu "
                "windows (%.4g per simulated s); %llu events, %llu sent to another process\n",
                invocation.world->size(), static_cast<unsigned long long>(stats.shared),
                static_cast<unsigned long long>(stats.whole),
                static_cast<unsigned long long>(stats.runs), simulated_s,
                static_cast<unsigned long long>(stats.windows), simulated_s > 0 ? double(stats.windows) / simulated_s : 0.0,
                static_cast<unsigned long long>(stats.events), static_cast<unsigned long long>(stats.remote_events));
  std::fputs(line, stderr);
}

void note_idle_processes(const partition::ParallelStats& stats, std::size_t communications,
                         const Invocation& invocation) {
  if (invocation.world == nullptr || invocation.world->size() < 2 || !invocation.prints()) return;
  const int processes = invocation.world->size();
  // What a step can share: its distinct contention-aware simulations (dealt out whole) and
  // the large ones split by chips. Anything else every process runs whole.
  const std::uint64_t pieces = stats.shared + stats.runs;
  if (pieces == 0) {
    std::fprintf(stderr,
                 "podsim: note: %d processes, but this step had nothing to share out (%s): every process ran it "
                 "whole, so one process is as fast (docs/parallel.md)\n",
                 processes,
                 communications == 0 ? "the analytical network measures each collective in a moment"
                                     : "its simulations were remembered or too small to split");
  } else if (stats.runs == 0 && stats.shared < static_cast<std::uint64_t>(processes)) {
    std::fprintf(stderr,
                 "podsim: note: %d processes for %llu simulation(s) to share out: %llu process(es) had none "
                 "(docs/parallel.md)\n",
                 processes, static_cast<unsigned long long>(stats.shared),
                 static_cast<unsigned long long>(static_cast<std::uint64_t>(processes) - stats.shared));
  }
}

std::unique_ptr<output::OutputClaim> claim_output(const std::string& output_file,
                                                  const std::vector<config::InputRecord>& inputs,
                                                  const Invocation& invocation) {
  if (output_file.empty() || !invocation.prints()) return nullptr;
  std::vector<std::filesystem::path> paths;
  for (const auto& input : inputs) paths.push_back(input.path);
  return std::make_unique<output::OutputClaim>(output_file, paths);
}

void require_same_inputs(const std::vector<config::InputRecord>& inputs, const Invocation& invocation) {
  if (invocation.world == nullptr || invocation.world->size() == 1) return;
  partition::require_agreement(*invocation.world, "their input files", config::content_digests(inputs));
}

Invocation make_invocation(int argc, char** argv, const partition::Communicator& world) {
  Invocation inv;
  inv.version = PODSIM_VERSION;
  inv.world = &world;
  for (int i = 0; i < argc; ++i) {
    if (i > 0) inv.command_line += ' ';
    inv.command_line += shell_quote(argv[i]);
    if (i > 1) inv.arguments += ' ';
    if (i > 0) inv.arguments += shell_quote(argv[i]);
  }
  return inv;
}

}  // namespace podsim::cli
