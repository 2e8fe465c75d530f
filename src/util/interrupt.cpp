#include "util/interrupt.hpp"

#include <csignal>

namespace podsim {

namespace {

// Written by the handler only; a signal handler can reach nothing but static storage.
volatile std::sig_atomic_t interrupted = 0;

extern "C" void on_interrupt(int) {
  interrupted = 1;
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the process
}

}  // namespace

InterruptScope::InterruptScope() {
  interrupted = 0;
  previous_ = std::signal(SIGINT, on_interrupt);
}

InterruptScope::~InterruptScope() { std::signal(SIGINT, previous_ == SIG_ERR ? SIG_DFL : previous_); }

bool InterruptScope::requested() const { return interrupted != 0; }

}  // namespace podsim
