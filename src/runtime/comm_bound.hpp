#pragma once

#include "parallelism/step_bound.hpp"
#include "runtime/comm_memo.hpp"
#include "runtime/scenario.hpp"
#include "topology/topology.hpp"

namespace podsim::runtime {

/// What parallelism::step_lower_bound_ps needs of the network: the time alone
/// (CommProfile::alone_ps) of one tensor-parallel collective of `s`'s buffer, per pipeline
/// stage and operation, measured on the analytical network exactly as a simulation of `s`
/// measures it (and kept in `memo`, which that simulation then reuses). `topo` is `s`'s
/// topology with the chip's link efficiencies applied. Empty without tensor parallelism. Only
/// the operations `ops` marks are measured (the others are 0): parallelism::tp_ops_read(s)
/// gives those the bound reads for `s`.
parallelism::TpTimes tp_alone_times(const Scenario& s, const topology::Topology& topo, CommMemo& memo,
                                    const std::array<bool, 3>& ops);

/// The same for ZeRO-3's per-layer data-parallel collectives (parallelism::Zero3Times), per
/// stage; empty unless `s` runs ZeRO-3 with data parallelism.
std::vector<parallelism::Zero3Times> zero3_alone_times(const Scenario& s, const topology::Topology& topo,
                                                       CommMemo& memo);

}  // namespace podsim::runtime
