#include <malloc.h>

#include "cli/app.hpp"
#include "partition/communicator.hpp"

int main(int argc, char** argv) {
  // Sweeps, plans and validation simulate step after step, each building and dropping step
  // programs of tens of MB. By default glibc hands such blocks back to the kernel (mmap,
  // trim) and the next step faults every page in again. Keeping freed memory in the process
  // took the 576-point sweep of tools/benchmark from 95,834 page faults and 6.34 s of CPU to
  // 7,488 and 4.78 s (perf stat, 2026-12-02, beside another job). A process that ends when
  // its command does loses nothing.
  // (32 MiB is the largest mmap threshold glibc documents; the trim threshold alone, without
  // it, doubled the faults: setting either stops glibc's own threshold adjustment.)
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  // MPI starts here when podsim was launched by mpirun, and ends when the session does.
  const podsim::partition::Session session(argc, argv);
  return podsim::cli::run(argc, argv, session.world());
}
