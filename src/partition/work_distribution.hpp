#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "partition/communicator.hpp"

namespace podsim::partition {

/// Does `items` across the processes of `comm`, dynamically and in contiguous runs
/// (ContiguousDealer): process 0 keeps every other process items ahead (and does items itself
/// in between), so fast and slow items balance and no process waits for the next item. `work(item)`
/// runs on the process that got the item and returns its result as bytes; `collect(item, bytes)`
/// runs on process 0 for every item, in the order results arrive. Every process calls this; it
/// returns when all items are done. An exception in `work` stops the caller, and through the CLI,
/// the whole job (MPI_Abort).
void distribute(const Communicator& comm, const std::vector<std::uint64_t>& items,
                const std::function<std::vector<char>(std::uint64_t)>& work,
                const std::function<void(std::uint64_t, const std::vector<char>&)>& collect);

}  // namespace podsim::partition
