#pragma once

// Ctrl-C as a request to stop early, for work that can answer with what it has so far (the
// planner's search: the best layouts simulated until then).

namespace podsim {

/// While one lives, the first SIGINT sets a flag that requested() reads instead of ending the
/// process; a second SIGINT ends it as usual. The flag is the one piece of process-wide state a
/// signal handler can write (std::sig_atomic_t), kept in interrupt.cpp; scopes do not nest.
class InterruptScope {
 public:
  InterruptScope();
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

  /// Whether Ctrl-C was pressed since this scope began.
  bool requested() const;

 private:
  void (*previous_)(int);
};

}  // namespace podsim
