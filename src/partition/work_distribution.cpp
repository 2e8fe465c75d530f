#include "partition/work_distribution.hpp"

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
    comm.send(0, kResult, {});
    while (true) {
      int from = 0;
      int tag = 0;
      const std::vector<char> message = comm.receive(from, tag);
      if (tag == kStop) break;
      ByteReader r(message);
      const std::uint64_t item = r.u64();
      ByteWriter w;
      w.u64(item);
      w.append(work(item));
      comm.send(0, kResult, w.take());
    }
    // Nobody starts the next distribute() before process 0 has finished this one: a request
    // for the next round must not reach this round's loop.
    comm.barrier();
    return;
  }
  // Process 0: keeps every worker two items ahead (so none waits while process 0 is busy
  // with an item of its own), and does one item itself whenever no message is waiting. Each
  // process gets its items in a contiguous run (contiguous_dealer.hpp), so that what its
  // simulations measure serves its next ones.
  constexpr int kAhead = 2;
  ContiguousDealer dealer(items.size(), comm.size());
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
    while (out < kAhead && dealer.left() > 0) {
      comm.send(from, kWork, item_message(items[*dealer.next(from)]));
      ++out;
    }
    if (out == 0) {
      comm.send(from, kStop, {});
      ++stopped;
    }
  };
  while (done < items.size() || stopped < workers) {
    int from = 0;
    int tag = 0;
    if (comm.poll(from, tag)) {
      answer(from, comm.receive(from, tag));
    } else if (dealer.left() > 0) {
      const std::uint64_t item = items[*dealer.next(0)];
      collect(item, work(item));
      ++done;
    } else {
      answer(from, comm.receive(from, tag));
    }
  }
  comm.barrier();
}

}  // namespace podsim::partition
