#pragma once

#include <cstdint>
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

  /// Point to point, for handing out work: a message of bytes with a tag.
  void send(int to, int tag, const std::vector<char>& bytes) const;
  /// True if a message from anyone is waiting (`from`, `tag` then say whose and what).
  bool poll(int& from, int& tag) const;
  /// Receives the next message from anyone; `from` and `tag` say from whom and what. Waits
  /// asleep between checks (as barrier() does), not in MPI's busy loop: an idle process must
  /// not take a core from a busy one.
  std::vector<char> receive(int& from, int& tag) const;

  void barrier() const;
  /// Stops every process of the run with `code` (MPI_Abort). Returns only with one process.
  void abort(int code) const;

 private:
  int rank_;
  int size_;
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
