#pragma once

#include <memory>
#include <string>
#include <vector>

#include "config/input_record.hpp"
#include "output/output_claim.hpp"
#include "partition/communicator.hpp"
#include "partition/mpi_executor.hpp"

namespace podsim::cli {

/// Facts about this invocation that every output records, and the processes running it.
struct Invocation {
  std::string version;       ///< podsim's version
  std::string command_line;  ///< argv joined, each argument shell-quoted when needed
  std::string arguments;     ///< the same without argv[0] (which may differ between processes)
  const partition::Communicator* world = nullptr;  ///< every command prints and writes on process 0 only

  bool prints() const { return world == nullptr || world->root(); }
};

/// With --stats: one line on stderr about the partitioned simulations of the command
/// (processes, runs, windows per simulated second, remote events), from process 0.
void report_parallel_stats(const partition::ParallelStats& stats, const Invocation& invocation);
/// On several processes, says on stderr (process 0) when a step gave some of them nothing to
/// do: nothing shared out (`communications`: the contention-aware measurements it made), or
/// fewer simulations than processes.
void note_idle_processes(const partition::ParallelStats& stats, std::size_t communications,
                         const Invocation& invocation);

/// Claims `output_file` (OutputClaim: not an input, a regular or new file, not being
/// written by another podsim) on the process that writes; nullptr when there is no output
/// file or this process does not write. Call before simulating.
std::unique_ptr<output::OutputClaim> claim_output(const std::string& output_file,
                                                  const std::vector<config::InputRecord>& inputs,
                                                  const Invocation& invocation);

/// Throws InputError on every process, naming the first difference, unless all processes
/// of the invocation read the same `inputs` (by content): call after reading them, before
/// any work the processes share (partition::require_agreement).
void require_same_inputs(const std::vector<config::InputRecord>& inputs, const Invocation& invocation);

/// Builds the Invocation of `argv` run by the processes of `world`.
Invocation make_invocation(int argc, char** argv, const partition::Communicator& world);

}  // namespace podsim::cli
