#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "topology/collective_policy.hpp"

namespace podsim::collectives {

/// Collective operations. Sizes follow nccl-tests: all-reduce, broadcast and send/recv move
/// a buffer of S bytes per chip; reduce-scatter's input and all-gather's output are the
/// full S-byte array (each chip holds S/n of it); all-to-all sends S bytes per chip, S/n to
/// each member.
enum class Op { kAllReduce, kReduceScatter, kAllGather, kAllToAll, kBroadcast, kSendRecv };

/// How a collective is lowered to point-to-point transfers. The enum lives with the
/// topology, whose collective policy names one (topology/collective_policy.hpp).
using Algorithm = topology::CollectiveAlgorithm;
/// NCCL protocol of a collective on an NCCL cluster.
using Protocol = topology::CollectiveProtocol;

/// One collective over groups of chips.
struct CollectiveSpec {
  Op op = Op::kAllReduce;
  Algorithm algorithm = Algorithm::kAuto;
  std::uint64_t bytes = 0;  ///< S, see Op
  Protocol protocol = Protocol::kAuto;  ///< NCCL clusters only; elsewhere ignored
};

/// The most pieces a hierarchical collective is cut into (collectives.pieces in a topology;
/// lower_hierarchical): each piece is a copy of the whole lowering to simulate, and at 8 the
/// fill left is an eighth of the shorter part's time.
inline constexpr int kMaxHierarchicalPieces = 8;

/// "all-reduce", "reduce-scatter", ... as written on the command line and in outputs.
std::string_view op_name(Op op);
std::string_view algorithm_name(Algorithm a);
std::string_view protocol_name(Protocol p);
/// All names, for error messages ("did you mean").
std::vector<std::string> op_names();
std::vector<std::string> algorithm_names();
std::vector<std::string> protocol_names();
std::optional<Op> op_from_name(std::string_view name);
std::optional<Algorithm> algorithm_from_name(std::string_view name);
std::optional<Protocol> protocol_from_name(std::string_view name);

/// nccl-tests bus-bandwidth factor: busbw = algbw × factor, algbw = S / time.
/// all-reduce 2(n−1)/n; reduce-scatter, all-gather, all-to-all (n−1)/n; others 1.
double bus_bandwidth_factor(Op op, std::uint32_t n);

}  // namespace podsim::collectives
