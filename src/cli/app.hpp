#pragma once

#include "partition/communicator.hpp"

namespace podsim::cli {

/// Exit codes: 0 success, 1 the simulation failed, 2 bad input (config, flags, files).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitBadInput = 2;
/// Ctrl-C stopped the work, which answered with what it had (128 + SIGINT, as shells report it).
inline constexpr int kExitInterrupted = 130;

/// Parses the command line, runs the chosen command, and turns errors into messages on
/// stderr and exit codes. The only place where exceptions stop. With several processes
/// (mpirun), a process that fails stops the whole job with its message and exit code.
int run(int argc, char** argv, const partition::Communicator& world);

}  // namespace podsim::cli
