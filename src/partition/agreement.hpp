#pragma once

// Processes of one run must compute the same thing. Under `mpiexec -n 1 -wdir A podsim … :
// -n 1 -wdir B podsim …` they can be started with different commands, or read different
// files under the same names; then one waits forever in a collective the other never calls,
// or a sweep's rows come from two different machines. require_agreement compares, before any
// work, what each process holds, and turns a difference into one error every process raises
// alike: no hang, no mixed file.

#include <string>
#include <utility>
#include <vector>

#include "partition/communicator.hpp"

namespace podsim::partition {

/// One thing every process must hold alike: its name in messages, and its value (a command
/// line, or a file's SHA-256).
using AgreedItem = std::pair<std::string, std::string>;

/// Returns when every process of `comm` holds the same `items` (in order). Otherwise throws,
/// on every process, the same InputError: "the processes disagree on <what>", the first item
/// that differs, its value on process 0 and on the lowest process that differs, and which
/// processes hold which. Collective: every process calls it with the same `what`. One
/// exchange of a digest per process when they agree; the items themselves only when not.
void require_agreement(const Communicator& comm, const std::string& what, const std::vector<AgreedItem>& items);

}  // namespace podsim::partition
