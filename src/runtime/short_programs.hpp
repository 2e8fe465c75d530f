#pragma once

// Short programs: a step of many microbatches simulated from programs that hold few of them.
//
// A step's programs are a warm-up, a middle that repeats (one microbatch, or an interleaved
// pipeline's group of pp, per period) and a drain; a step with more microbatches has the same
// warm-up and drain and a longer middle, every stage's by whole periods. The executor's steady
// state (steady_state.hpp) already adds repeated periods rather than simulating them, but it
// still needs the programs built to the end: building them is a quarter of a sweep point's time
// and most of its memory traffic (docs/sweep.md, "Speed").
//
// So a sweep's step (totals only, no host that limits) is built with the microbatches held
// here, and execute_step lengthens it by the rest at a repeated period: it inserts the missing
// periods just past everything the run has touched, which is what the step's own programs
// hold there. Times, sums (replayed in order), events and the comm model's counts move as the
// whole step's would; task and message numbers only as far as the short programs go. Adding
// repeats gives the same bits wherever they are found, so the result is the whole step's.
// Where it cannot be lengthened (no period repeats before the short programs end, the period
// does not divide what is missing, or its FLOPs are not whole microbatches'), the step is built
// whole and run again.
// `tests/validation/steady_state_test.cpp` (ShortPrograms.*) checks, bit for bit, that both
// give one result.
//
// Not for GPipe (its forwards and its backwards are two repeating runs, not one), nor for
// programs whose compute waits for the host to issue kernels (their total is summed over the
// programs as built), nor for ZeRO-3 pipelines, whose state repeats only late if at all.

#include "parallelism/parallel_spec.hpp"

namespace podsim::runtime {

/// The microbatches to build for a step of `microbatches` under `parallel`: the step's own
/// where short programs do not apply or would save little, else fewer by a multiple of 4 (or of
/// 2·pp for an interleaved pipeline), so that a period of 1, 2 or 4 microbatches (pp or 2·pp)
/// divides what is missing, and enough that the repeat is found before the short programs end.
int held_microbatches(const parallelism::ParallelSpec& parallel, int microbatches);

}  // namespace podsim::runtime
