#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace podsim::partition {

/// The processes of a run and the few things they do together. With one process (podsim
/// started without mpirun) every operation is local and MPI is never touched.
class Communicator {
 public:
  Communicator(int rank, int size) : rank_(rank), size_(size) {}
  int rank() const { return rank_; }
  int size() const { return size_; }
  bool root() const { return rank_ == 0; }

  std::int64_t min(std::int64_t v) const;
  std::int64_t sum(std::int64_t v) const;
  /// Element-wise sum over processes, in place.
  void sum(std::vector<double>& v) const;
  void sum(std::vector<std::int64_t>& v) const;
  /// Element-wise max over processes, in place.
  void max(std::vector<std::int64_t>& v) const;

  /// Every process sends `out[r]` to process r and gets what each sent it.
  std::vector<std::vector<char>> exchange(const std::vector<std::vector<char>>& out) const;

  /// Point to point, for handing out work: a message of bytes with a tag (received through an
  /// Inbox).
  void send(int to, int tag, const std::vector<char>& bytes) const;

  void barrier() const;
  /// Stops every process of the run with `code` (MPI_Abort). Returns only with one process.
  void abort(int code) const;

 private:
  int rank_;
  int size_;
};

/// Sends that return at once. A blocking send of a message past MPI's eager limit (4 KiB on
/// Open MPI's shared memory) waits until the receiver posts its receive: a worker handing back
/// a sweep point's result (larger than that) waited until process 0 had finished a point of its
/// own, and spent half the benchmark sweep waiting (0.4 s busy of 1.0 s, 2026-12-09). An
/// Outbox keeps each message's bytes until it has gone; flush() (and the destructor) waits for
/// them all, asleep between checks.
class Outbox {
 public:
  explicit Outbox(const Communicator& comm);
  ~Outbox();
  Outbox(const Outbox&) = delete;
  Outbox& operator=(const Outbox&) = delete;

  void send(int to, int tag, std::vector<char> bytes);
  /// Returns once every message sent has gone.
  void flush();

 private:
  struct Pending;
  const Communicator& comm_;
  std::vector<std::unique_ptr<Pending>> pending_;
};

/// Messages received without waiting for their bytes. A message past the eager limit moves only
/// while its sender is inside MPI, so a blocking receive of a worker's result held process 0
/// until the worker had finished its next item, and the two took turns: on the benchmark sweep
/// the worker computed 0.4–0.5 s of 0.9–1.1 s (2026-12-09). An Inbox starts receiving each
/// message whose envelope has arrived (MPI_Improbe, MPI_Imrecv) and hands out those whose bytes
/// are in, so process 0 goes on with its own items meanwhile.
class Inbox {
 public:
  explicit Inbox(const Communicator& comm);
  ~Inbox();
  Inbox(const Inbox&) = delete;
  Inbox& operator=(const Inbox&) = delete;

  /// The oldest message whose bytes are all in, if any (`from`, `tag`, `bytes` then say it).
  bool take(int& from, int& tag, std::vector<char>& bytes);
  /// Waits, asleep between checks (not in MPI's busy loop: an idle process must not take a core
  /// from a busy one), until take() has a message, and takes it.
  void wait(int& from, int& tag, std::vector<char>& bytes);

 private:
  struct Pending;
  /// Starts receiving every message whose envelope has arrived.
  void start_arrived();
  const Communicator& comm_;
  std::deque<std::unique_ptr<Pending>> pending_;
};

/// MPI for the lifetime of a command: initialised when podsim was started by an MPI
/// launcher (mpirun/mpiexec set OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_RANK), finalised at
/// the end. Without a launcher podsim runs as one process and never loads MPI state.
class Session {
 public:
  Session(int& argc, char**& argv);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const Communicator& world() const { return world_; }

 private:
  bool initialised_ = false;
  Communicator world_{0, 1};
};

}  // namespace podsim::partition
