#include "partition/work_distribution.hpp"

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
      if (tag == kStop) return;
      ByteReader r(message);
      const std::uint64_t item = r.u64();
      ByteWriter w;
      w.u64(item);
      w.append(work(item));
      comm.send(0, kResult, w.take());
    }
  }
  // Process 0: answer every request with the next item; do one item itself whenever no
  // request is waiting.
  std::size_t next = 0;
  std::size_t done = 0;
  int stopped = 0;
  const int workers = comm.size() - 1;
  auto answer = [&](int from, const std::vector<char>& message) {
    if (!message.empty()) {
      ByteReader r(message);
      const std::uint64_t item = r.u64();
      collect(item, r.rest());
      ++done;
    }
    if (next < items.size()) {
      comm.send(from, kWork, item_message(items[next++]));
    } else {
      comm.send(from, kStop, {});
      ++stopped;
    }
  };
  while (done < items.size() || stopped < workers) {
    int from = 0;
    int tag = 0;
    if (comm.poll(from, tag)) {
      answer(from, comm.receive(from, tag));
    } else if (next < items.size()) {
      const std::uint64_t item = items[next++];
      collect(item, work(item));
      ++done;
    } else {
      answer(from, comm.receive(from, tag));
    }
  }
}

}  // namespace podsim::partition
