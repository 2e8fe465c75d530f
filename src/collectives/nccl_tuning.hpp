#pragma once

// NCCL's tuning model, ported from NVIDIA/nccl src/graph/tuning.cc at tag v2.20.5-1 (the
// version of the H200 measurements; the ring constants are the same in v2.18.5-1, the
// A100 one's). NCCL predicts, for every collective, algorithm and protocol,
//   time = latency + bytes / (1000 · bandwidth)      [µs, bytes, GB/s]
// and runs the (algorithm, protocol) with the smallest prediction (enqueue.cc
// topoGetAlgoInfo). podsim uses this model to choose what runs, as NCCL does; the time it
// reports comes from simulating that choice on the links (nccl_lowering.cpp).
//
// What NCCL's topology search (graph/search.cc) would find is approximated from the
// links (NcclGraph): docs/collectives.md says how. Everything else is the tuning code.

#include <array>
#include <cstdint>
#include <string>

#include "collectives/collective_spec.hpp"
#include "topology/collective_policy.hpp"

namespace podsim::collectives::nccl {

/// NCCL's algorithms, in NCCL's order (NCCL_ALGO_TREE … NCCL_ALGO_NVLS_TREE).
enum class Algo { kTree, kRing, kCollNetDirect, kCollNetChain, kNvls, kNvlsTree };
inline constexpr int kAlgos = 6;
/// NCCL's protocols, in NCCL's order (NCCL_PROTO_LL, LL128, SIMPLE).
enum class Proto { kLL, kLL128, kSimple };
inline constexpr int kProtos = 3;

/// One communicator as NCCL's tuning sees it.
struct System {
  topology::GpuArch arch = topology::GpuArch::kAmpere;
  int ranks = 1;
  int nodes = 1;           ///< nodes the ranks span (ranks / nodes GPUs on each)
  double nvlink_GBps = 0;  ///< one GPU's NVLink bandwidth to its NVSwitch, one direction
  double nic_GBps = 0;     ///< one GPU's NIC bandwidth, one direction
  bool nvls = false;       ///< NVLink SHARP available
  bool collnet = false;    ///< in-network reduction on the scale-out fabric available
};

/// What NCCL's search finds for one algorithm's graph: channels, per-channel bandwidth.
struct Graph {
  int channels = 0;
  double bw_intra_GBps = 0;  ///< per channel
  double bw_inter_GBps = 0;  ///< per channel
};

/// The tuned model of a communicator: latency (µs) and bandwidth (GB/s of algorithm
/// bandwidth) per operation, algorithm and protocol; bandwidth 0 = not available.
struct Model {
  struct Entry {
    double latency_us = 0;
    double bandwidth_GBps = 0;  ///< algorithm bandwidth: bytes / (time − latency)
    double bus_GBps = 0;        ///< before the bus-to-algorithm ratio: the per-rank rate
  };
  /// [op][algo][proto]; op indexes kModelOps.
  std::array<std::array<std::array<Entry, kProtos>, kAlgos>, 4> entries{};
  System system;
  std::array<Graph, kAlgos> graphs{};
};

/// Operations NCCL's model covers (all-to-all and send-recv are point-to-point in NCCL).
bool tuned(Op op);

/// NCCL's graphs for `s` (search.cc approximated; docs/collectives.md).
std::array<Graph, kAlgos> graphs_for(const System& s);

/// ncclTopoTuneModel for `s`, with its algorithm and protocol enables.
Model tune(const System& s);

/// ncclTopoGetAlgoTime: predicted µs for `bytes`, or a negative number if not available.
double predict_us(const Model& m, Op op, Algo a, Proto p, std::uint64_t bytes);

/// The choice of topoGetAlgoInfo: the available (algorithm, protocol) with the smallest
/// prediction, among those `allow` and `allow_proto` admit (NCCL_ALGO / NCCL_PROTO).
struct Choice {
  Algo algo = Algo::kRing;
  Proto proto = Proto::kSimple;
  double predicted_us = 0;
};
struct Allowed {
  std::array<bool, kAlgos> algos{true, true, true, true, true, true};
  std::array<bool, kProtos> protos{true, true, true};
};
/// Throws InputError (saying why) when nothing allowed is available.
Choice choose(const Model& m, Op op, std::uint64_t bytes, const Allowed& allowed = {});

/// The thread blocks (CTAs) NCCL launches for a collective of `bytes` (the whole buffer, S, for
/// every operation, as NCCL's nBytes) run as `c`. Each holds one SM
/// alone while the collective runs ("NCCL CTAs won't share an SM with compute kernels",
/// NVIDIA/nccl issue #689), so compute beside it has the rest. As v2.20.5 sets them
/// (enqueue.cc getChannnelThreadInfo): NVLS runs NCCL_NVLS_NCHANNELS (16, transport/nvls.cc);
/// ring, tree and CollNet the communicator's channels — twice the graph's (connect.cc
/// ncclTopoPostset), at most MAXCHANNELS (32) — ring and tree fewer while bytes < channels ×
/// threads × the protocol's per-thread threshold (small messages).
int ctas(const Model& m, const Choice& c, std::uint64_t bytes);
/// CTAs of a send/recv between two GPUs of `s` (its 2 ranks): across nodes
/// NCCL_NCHANNELS_PER_NET_PEER's starting value, 2 (graph/paths.cc ncclTopoGetNchannels);
/// inside a node, the communicator's ring channels (podsim's approximation of NCCL's
/// per-peer NVLink channels, which it caps by them).
int p2p_ctas(const System& s);

/// Bytes of one Simple step: the 4 MiB buffer over NCCL_STEPS (8).
inline constexpr std::uint64_t kSimpleStepBytes = (4ull << 20) / 8;
/// Steps of a Simple ring chunk, ALLREDUCE_CHUNKSTEPS (NCCL_STEPS / 2): 2 MiB chunks.
inline constexpr std::uint64_t kSimpleChunkSteps = 4;
/// Slices a Simple ring hands over per step and loop: a chunk is ALLREDUCE_CHUNKSTEPS (4)
/// steps, a slice ALLREDUCE_SLICESTEPS (2), so two 1 MiB slices per 2 MiB chunk
/// (src/include/collectives.h at v2.18.5-1; the same for all-gather and reduce-scatter).
inline constexpr int kSimpleSlicesPerStep = 2;
/// Loops a Simple ring makes over `bytes` (all_reduce.h runRing: loopSize = nChannels ·
/// nRanks · chunkSize, 2 MiB chunks): every loop repeats the ring's steps, and each step of
/// each loop hands over kSimpleSlicesPerStep slices. At least one.
int simple_ring_loops(int channels, int ranks, std::uint64_t bytes);

/// tuning.cc's per-step latency (hwLat, µs) of a hop over NVLink or over the network.
double hop_latency_us(Algo a, Proto p, bool network);
/// tuning.cc's base latency (baseLat, µs).
double base_latency_us(Algo a, Proto p);
/// Network post overhead per ring step on several nodes (getNetOverhead, Intel hosts; ×3
/// for Simple), which NCCL makes the floor of a ring's intra-node step latency.
double net_overhead_us(Proto p);

/// podsim's names for NCCL's algorithms and protocols.
Algorithm to_algorithm(Algo a);
Protocol to_protocol(Proto p);
Proto from_protocol(Protocol p);
std::string_view algo_name(Algo a);   ///< NCCL's spelling: "Tree", "Ring", "NVLS", …
std::string_view proto_name(Proto p); ///< "LL", "LL128", "Simple"

}  // namespace podsim::collectives::nccl
