#include "partition/work_distribution.hpp"

#include <algorithm>

#include "partition/contiguous_dealer.hpp"
#include "util/byte_buffer.hpp"

namespace podsim::partition {

namespace {
enum Tag : int { kWork = 1, kResult = 2, kStop = 3 };

std::vector<char> item_message(std::uint64_t item) {
  ByteWriter w;
  w.u64(item);
  return w.take();
}
}  // namespace

void distribute(const Communicator& comm, const std::vector<std::uint64_t>& items,
                const std::function<std::vector<char>(std::uint64_t)>& work,
                const std::function<void(std::uint64_t, const std::vector<char>&)>& collect) {
  if (comm.size() == 1) {
    for (std::uint64_t item : items) collect(item, work(item));
    return;
  }
  if (!comm.root()) {
    // A worker: ask for work by sending an empty result, do what comes, until told to stop.
    // Results go back without waiting for process 0 to take them (Outbox); work comes in
    // through an Inbox, waited for asleep. (kStop comes only once every item sent has come
    // back, so no work can be left behind it.)
    Outbox results(comm);
    Inbox work_in(comm);
    results.send(0, kResult, {});
    while (true) {
      int from = 0;
      int tag = 0;
      std::vector<char> message;
      work_in.wait(from, tag, message);
      if (tag == kStop) break;
      ByteReader r(message);
      const std::uint64_t item = r.u64();
      ByteWriter w;
      w.u64(item);
      w.append(work(item));
      results.send(0, kResult, w.take());
    }
    results.flush();
    // Nobody starts the next distribute() before process 0 has finished this one: a request
    // for the next round must not reach this round's loop.
    comm.barrier();
    return;
  }
  // Process 0: keeps every worker items ahead (so none waits while process 0 is busy with an
  // item of its own), and does one item itself whenever no message is waiting. Each process
  // gets its items in a contiguous run (contiguous_dealer.hpp), so that what its simulations
  // measure serves its next ones. Ahead: up to 16 items while many are left (a sweep point of
  // process 0's can take as long as ten of the worker's: two ahead left the worker idle half
  // the benchmark sweep), down to 2 near the end, where items queued at one process could not
  // go to another that is free.
  ContiguousDealer dealer(items.size(), comm.size());
  const auto ahead = [&] {
    return static_cast<int>(
        std::clamp<std::size_t>(dealer.left() / (4 * static_cast<std::size_t>(comm.size())), 2, 16));
  };
  std::size_t done = 0;
  int stopped = 0;
  const int workers = comm.size() - 1;
  std::vector<int> outstanding(static_cast<std::size_t>(comm.size()), 0);
  auto answer = [&](int from, const std::vector<char>& message) {
    int& out = outstanding[static_cast<std::size_t>(from)];
    if (!message.empty()) {
      ByteReader r(message);
      const std::uint64_t item = r.u64();
      collect(item, r.rest());
      ++done;
      --out;
    }
    while (out < ahead() && dealer.left() > 0) {
      comm.send(from, kWork, item_message(items[*dealer.next(from)]));
      ++out;
    }
    if (out == 0) {
      comm.send(from, kStop, {});
      ++stopped;
    }
  };
  // Results are received without waiting for their bytes (Inbox): a worker's result moves
  // while the worker is inside MPI, and process 0 goes on with its own items meanwhile.
  Inbox inbox(comm);
  while (done < items.size() || stopped < workers) {
    int from = 0;
    int tag = 0;
    std::vector<char> message;
    if (inbox.take(from, tag, message)) {
      answer(from, message);
    } else if (dealer.left() > 0) {
      const std::uint64_t item = items[*dealer.next(0)];
      collect(item, work(item));
      ++done;
    } else {
      inbox.wait(from, tag, message);
      answer(from, message);
    }
  }
  comm.barrier();
}

}  // namespace podsim::partition
