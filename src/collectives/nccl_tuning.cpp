#include "collectives/nccl_tuning.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "util/error.hpp"

namespace podsim::collectives::nccl {

namespace {

using topology::GpuArch;

constexpr int kTree = 0, kRing = 1, kCollNetDirect = 2, kCollNetChain = 3, kNvls = 4, kNvlsTree = 5;
constexpr int kLL = 0, kLL128 = 1, kSimple = 2;
// hwLat rows: NVLink (0), PCI (1, unused: GPUs here talk over NVLink or the network), network (2).
constexpr int kNvlink = 0, kNet = 2;

// tuning.cc: "Latencies in us, Bandwidths in GB/s".
// baseLat[algorithm][protocol]: Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree.
constexpr double kBaseLat[kAlgos][kProtos] = {
    {6.8, 14.0, 0}, {6.6, 14.0, 8.4}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
// hwLat[NVLINK, PCI, NET][algorithm][protocol]: per-step latency of each link type.
constexpr double kHwLat[3][kAlgos][kProtos] = {
    {{.6, 1.25, 28}, {.6, 1.9, 3.4}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 23}, {0, 0, 23}},
    {{1.0, 1.9, 28}, {1.0, 2.5, 5.7}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 0}, {0, 0, 0}},
    {{5.0, 8.5, 28}, {2.7, 4.0, 14.0}, {0, 0, 31}, {0, 0, 30}, {0, 0, 18}, {0, 0, 14}}};
// [Volta, Ampere, Hopper][1 node, 2 nodes, 4+ nodes]. For several nodes llMaxBws is
// indexed by CPU vendor instead of GPU (Intel row 0, AMD row 1): podsim assumes Intel hosts.
constexpr double kLlMaxBw[3][3] = {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {87.7, 22.5, 19.0}};
constexpr double kPerChMaxRingLL128Bw[3][3] = {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}};
constexpr double kPerChMaxTreeLL128Bw[3][3] = {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}};
// What an LL128 ring moves over NVLink, where it is measured (GB/s per channel of NCCL's ring
// graph, i.e. per two CTAs; 0: not measured, NCCL's own figure stands). NCCL's tuning gives
// LL128 0.92 of the channel's bandwidth (capped by kPerChMaxRingLL128Bw, 20 on Ampere) and
// chooses by that; its kernel moves less. Ampere: 8x A100-SXM4-40GB on one NVSwitch node,
// nccl-tests all_reduce_perf -g 8 (AFDWang/Hetu-Galvatron tests/profiler/test_hardware_profile.py
// at 6f77a6cb), 2-16 MiB, the sizes NCCL runs LL128: least squares 13.3 us per MiB, a bus
// bandwidth of 138 GB/s on its 12 ring channels = 11.5 per channel, 0.62 of NCCL's 220.8.
// docs/collectives.md, "LL128's rate".
constexpr double kMeasuredRingLL128PerCh[3] = {0, 11.5, 0};
constexpr double kPerChMaxTreeBw[3][3] = {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}};
// "Trees are not perfectly sticking to the model for medium sizes": powers of two, 64 B to 256 MB.
constexpr double kTreeCorrection[kProtos][23] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};
// Network post overhead (getNetOverhead): 1 us on Intel hosts (2 on AMD).
constexpr double kNetOverhead = 1.0;

// graph/search.cc: the bandwidths a channel is tried at, highest first.
const std::vector<double> kSpeedIntra{40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0};
const std::vector<double> kSpeedInter{48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0,
                                      7.0,  6.0,  5.0,  4.0,  3.0,  2.4,  1.2,  0.24, 0.12};
const std::vector<double> kSm90SpeedIntra{60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 6.0, 3.0};
const std::vector<double> kSm90SpeedInter{48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5,
                                          15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
constexpr int kMaxRingChannels = 16;  // MAXCHANNELS / 2

int arch_index(GpuArch a) { return a == GpuArch::kHopper ? 2 : a == GpuArch::kAmpere ? 1 : 0; }

int log2i(std::uint64_t n) {
  int l = 0;
  while (n >>= 1) ++l;
  return l;
}

/// Index of our op in Model::entries, and NCCL's step counts for it.
int op_index(Op op) {
  switch (op) {
    case Op::kAllReduce: return 0;
    case Op::kReduceScatter: return 1;
    case Op::kAllGather: return 2;
    case Op::kBroadcast: return 3;
    default: return -1;
  }
}
constexpr Op kModelOps[4] = {Op::kAllReduce, Op::kReduceScatter, Op::kAllGather, Op::kBroadcast};

/// The first speed of `speeds` not above `limit` (the last one if none is).
double first_speed_at_most(const std::vector<double>& speeds, double limit) {
  for (double s : speeds) {
    if (s <= limit) return s;
  }
  return speeds.back();
}

/// ncclTopoDupChannels: fast channels are split in two, up to the channel limit.
void dup_channels(Graph& g, bool sm90) {
  if (g.bw_intra_GBps < 25.0) return;
  if (sm90 && g.bw_intra_GBps < 50.0 && g.channels > 4) return;
  const int dup = std::min(g.channels * 2, kMaxRingChannels);
  const int div = (dup + g.channels - 1) / g.channels;
  g.bw_intra_GBps /= div;
  g.bw_inter_GBps /= div;
  g.channels = dup;
}

}  // namespace

bool tuned(Op op) { return op_index(op) >= 0; }

std::array<Graph, kAlgos> graphs_for(const System& s) {
  const bool sm90 = s.arch == GpuArch::kHopper;
  const int local = std::max(1, s.ranks / std::max(1, s.nodes));
  std::array<Graph, kAlgos> graphs{};
  // Ring (and the tree and CollNet graphs, which podsim takes to be the same): inside a
  // node the fastest speed whose channels fit the GPU's NVLink; across nodes one channel
  // per NIC at the fastest speed a NIC carries, as long as NVLink carries them too.
  Graph ring;
  if (s.nodes <= 1) {
    const auto& speeds = sm90 ? kSm90SpeedIntra : kSpeedIntra;
    const double speed = first_speed_at_most(speeds, s.nvlink_GBps);
    ring.channels = std::clamp(static_cast<int>(s.nvlink_GBps / speed), 1, kMaxRingChannels);
    ring.bw_intra_GBps = ring.bw_inter_GBps = speed;
  } else {
    const auto& speeds = sm90 ? kSm90SpeedInter : kSpeedInter;
    const double speed = first_speed_at_most(speeds, std::min(s.nvlink_GBps, s.nic_GBps));
    const int per_nic = std::max(1, static_cast<int>(s.nic_GBps / speed));
    const int fit_nvlink = std::max(1, static_cast<int>(s.nvlink_GBps / speed));
    ring.channels = std::clamp(std::min(local * per_nic, fit_nvlink), 1, kMaxRingChannels);
    ring.bw_intra_GBps = ring.bw_inter_GBps = speed;
  }
  dup_channels(ring, sm90);
  graphs[kRing] = graphs[kTree] = graphs[kCollNetDirect] = graphs[kCollNetChain] = ring;
  // NVLS: one channel per GPU of the node ("NVLS search must have ngpus heads"), each
  // pulling its share through the NVSwitch; a non-ring pattern may use ngpus/(ngpus−1) of
  // the NVLink bandwidth.
  if (s.nvls && sm90 && local >= 2) {
    Graph nvls;
    nvls.channels = local;
    const double total = s.nvlink_GBps * local / (local - 1.0);
    double speed = kSm90SpeedIntra.back();
    for (double v : kSm90SpeedIntra) {
      if (v <= s.nvlink_GBps && v * local <= total) {
        speed = v;
        break;
      }
    }
    nvls.bw_intra_GBps = speed;
    nvls.bw_inter_GBps = s.nodes > 1 ? first_speed_at_most(kSm90SpeedInter, s.nic_GBps) : speed;
    graphs[kNvls] = graphs[kNvlsTree] = nvls;
  }
  return graphs;
}

Model tune(const System& s) {
  Model m;
  m.system = s;
  m.graphs = graphs_for(s);
  const int n = s.ranks;
  const int nodes = std::max(1, s.nodes);
  const int ai = arch_index(s.arch);
  const int index2 = nodes <= 2 ? nodes - 1 : 2;
  const int index1 = nodes == 1 ? ai : 0;  // several nodes: Intel CPU row
  const double ll_max = kLlMaxBw[index1][index2];
  const double per_ch_tree = kPerChMaxTreeBw[ai][index2];
  const double per_ch_ring_ll128 = kPerChMaxRingLL128Bw[ai][index2];
  const double per_ch_tree_ll128 = kPerChMaxTreeLL128Bw[ai][index2];
  const double ppn = static_cast<double>(n) / nodes;
  const int ppn_int = n / nodes;
  const bool hopper = s.arch == GpuArch::kHopper;

  // Algorithms and protocols enabled (tuning.cc, after the model).
  std::array<bool, kAlgos> enabled{true, true, true, true, true, true};
  if (nodes == 1) enabled[kNvlsTree] = false;
  if (!s.collnet) {
    enabled[kCollNetDirect] = enabled[kCollNetChain] = false;
    if (nodes > 1) enabled[kNvls] = false;
  }
  // LL128 is enabled by default on Volta, Ampere and Hopper over NVLink (protoEnable 2).

  for (int oi = 0; oi < 4; ++oi) {
    const Op op = kModelOps[oi];
    const bool ar = op == Op::kAllReduce;
    const bool rs_ag = op == Op::kReduceScatter || op == Op::kAllGather;
    const int nsteps = ar ? 2 * (n - 1) : rs_ag ? n - 1 : n;
    const int inter_steps = ar ? (nodes > 1 ? 2 * nodes : 0) : rs_ag ? nodes - 1 : nodes;
    for (int a = 0; a < kAlgos; ++a) {
      if (op == Op::kBroadcast && a != kRing) continue;
      if (rs_ag && a != kRing && a != kNvls && a != kCollNetDirect) continue;
      const Graph& g = m.graphs[static_cast<std::size_t>(a)];
      for (int p = 0; p < kProtos; ++p) {
        if ((a == kNvls || a == kNvlsTree) && p != kSimple) continue;
        const bool collnet = a == kCollNetDirect || a == kCollNetChain;
        double bw = nodes <= 2 || collnet ? g.bw_intra_GBps : g.bw_inter_GBps;
        if (a == kNvls) bw = std::min(g.bw_intra_GBps, g.bw_inter_GBps);
        if (a == kNvlsTree) bw = std::min(g.bw_intra_GBps, nodes <= 2 ? g.bw_inter_GBps : g.bw_inter_GBps / 2);
        double bus = g.channels * bw;
        // "Various model refinements".
        if (a == kRing && p == kLL) bus = std::min(ll_max, bus * (nodes > 1 || ar ? 1.0 / 4.0 : 1.0 / 3.0));
        if (a == kRing && p == kLL128) bus = std::min(bus * (ppn < 2 ? 0.7 : 0.92), g.channels * per_ch_ring_ll128);
        if (a == kTree) bus = std::min(bus * .92, g.channels * per_ch_tree);
        if (a == kTree && p == kLL) bus = std::min(bus * 1.0 / 3.8, ll_max);
        if (a == kTree && p == kLL128) bus = std::min(bus * (nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0), g.channels * per_ch_tree_ll128);
        if (collnet && p != kSimple) bus = 0;
        if (a == kCollNetDirect && p == kSimple) {
          if (rs_ag) {
            bus = ppn * bw;  // needs one NIC per GPU, as podsim's clusters have
            const double w = (ppn - 1) / (8 - 1);
            bus *= w * 0.85 + (1 - w) * 0.95;
          } else {
            double factor = ppn / g.channels;  // GPU/NIC ratio
            factor -= (factor - 1) / 2;
            bus /= factor;
            if (hopper) bus *= .85;
          }
        }
        double algbw = bus;
        if (!(a == kCollNetDirect && rs_ag)) {
          const double ratio = a == kRing ? static_cast<double>(n) / nsteps : (a == kNvls || a == kNvlsTree) ? 5.0 / 6.0 : .5;
          algbw *= ratio;
        }
        if (!enabled[static_cast<std::size_t>(a)] || g.channels == 0) algbw = bus = 0;

        double lat = kBaseLat[a][p];
        double intra = kHwLat[kNvlink][a][p];
        const double inter = kHwLat[kNet][a][p];  // graph latencyInter: 0 on InfiniBand
        if (a == kRing) {
          if (op == Op::kBroadcast) {
            lat += kHwLat[nodes == 1 ? kNvlink : kNet][a][p];  // sameChannels
          } else {
            const double overhead = nodes > 1 ? kNetOverhead * (p == kSimple ? 3 : 1) : 0.0;
            intra = std::max(intra, overhead);
            lat += (nsteps - inter_steps) * intra + inter_steps * inter;
          }
        } else if (a == kTree) {
          lat += 2 * ((ppn_int - 1) * intra + log2i(static_cast<std::uint64_t>(nodes)) * inter);
        } else if (a == kCollNetDirect) {
          lat += 2 * (std::min(1, ppn_int - 1) * intra + (ppn_int - 1) * 0.4) + inter;
        } else if (a == kCollNetChain) {
          lat += 2 * (ppn_int - 1) * intra + inter;
        } else if (a == kNvls) {
          lat = intra + (nodes > 1 ? inter : 0.0);
        } else {
          lat += intra + 2 * log2i(static_cast<std::uint64_t>(nodes)) * inter;
        }
        auto& e = m.entries[static_cast<std::size_t>(oi)][static_cast<std::size_t>(a)][static_cast<std::size_t>(p)];
        e.latency_us = lat;
        e.bandwidth_GBps = algbw;
        e.bus_GBps = bus;
        // NCCL chooses by its model (bandwidth_GBps); transfers move at what was measured. The
        // measurement is of LL128 over NVLink: a ring with GPUs side by side on a node has such
        // hops on every channel (one GPU per node: none, and NCCL's figure stands).
        if (a == kRing && p == kLL128 && kMeasuredRingLL128PerCh[ai] > 0 && ppn_int >= 2) {
          e.bus_GBps = std::min(bus, g.channels * kMeasuredRingLL128PerCh[ai]);
        }
      }
    }
  }
  return m;
}

double predict_us(const Model& m, Op op, Algo a, Proto p, std::uint64_t bytes) {
  const int oi = op_index(op);
  if (oi < 0) return -1;
  const auto ai = static_cast<std::size_t>(a);
  const auto pi = static_cast<std::size_t>(p);
  const auto& e = m.entries[static_cast<std::size_t>(oi)][ai][pi];
  double bw = e.bandwidth_GBps;
  double lat = e.latency_us;
  if (bw <= 0) return -1;
  const int log_size = log2i(bytes >> 6);
  if (a == Algo::kTree && log_size < 23) bw *= kTreeCorrection[pi][log_size];
  const auto& ring = m.graphs[static_cast<std::size_t>(Algo::kRing)];
  if (a == Algo::kRing && p == Proto::kSimple && m.system.nodes > 1 && op == Op::kAllReduce &&
      bytes / (static_cast<std::uint64_t>(std::max(1, ring.channels)) * static_cast<std::uint64_t>(m.system.ranks)) >= 64) {
    lat *= m.system.arch == topology::GpuArch::kVolta ? 1.9 : 1.4;  // "Plateau effect of ring"
  }
  return lat + static_cast<double>(bytes) / (1000 * bw);
}

Choice choose(const Model& m, Op op, std::uint64_t bytes, const Allowed& allowed) {
  Choice best;
  double best_us = -1;
  for (int a = 0; a < kAlgos; ++a) {
    if (!allowed.algos[static_cast<std::size_t>(a)]) continue;
    // topoGetAlgoInfo: NVLS reduce-scatter and all-gather only inside one node.
    if (a == kNvls && (op == Op::kReduceScatter || op == Op::kAllGather) && m.system.nodes > 1) continue;
    for (int p = 0; p < kProtos; ++p) {
      if (!allowed.protos[static_cast<std::size_t>(p)]) continue;
      const double t = predict_us(m, op, static_cast<Algo>(a), static_cast<Proto>(p), bytes);
      if (t >= 0 && (best_us < 0 || t < best_us)) {
        best_us = t;
        best = Choice{static_cast<Algo>(a), static_cast<Proto>(p), t};
      }
    }
  }
  if (best_us < 0) {
    throw InputError("NCCL has no algorithm and protocol for " + std::string(op_name(op)) +
                     " here among those allowed (its model gives them no bandwidth on this cluster)");
  }
  return best;
}

namespace {

constexpr int kMaxChannels = 32;        // MAXCHANNELS (device.h)
constexpr int kNvlsChannels = 16;       // NCCL_NVLS_NCHANNELS' default (transport/nvls.cc)
constexpr int kNetPeerChannels = 2;     // ncclTopoGetNchannels' start for a network peer
constexpr double kPciBandwidth = 12.0;  // PCI_BW, GB/s (tuning.cc)

/// The communicator's collective channels: twice the graph's (ncclTopoPostset).
int coll_channels(const Graph& g) { return std::clamp(2 * g.channels, 1, kMaxChannels); }

}  // namespace

int ctas(const Model& m, const Choice& c, std::uint64_t bytes) {
  if (c.algo == Algo::kNvls || c.algo == Algo::kNvlsTree) return kNvlsChannels;
  const Graph& ring = m.graphs[kRing];
  int nc = coll_channels(ring);
  if (c.algo == Algo::kCollNetDirect || c.algo == Algo::kCollNetChain) return nc;
  // ncclTopoTuneModel's maxThreads and threadThresholds (comm.h NCCL_*_THREAD_THRESHOLD).
  int threads = 512;
  double threshold = 64;  // Simple
  if (c.proto == Proto::kSimple && c.algo == Algo::kRing && ring.bw_intra_GBps * ring.channels <= kPciBandwidth) {
    threads = 256;
  }
  if (c.proto == Proto::kLL) threshold = 8.0 * (c.algo == Algo::kRing ? m.system.ranks : 1);
  if (c.proto == Proto::kLL128) {
    threads = 640;
    threshold = 8;
  }
  while (static_cast<double>(bytes) < static_cast<double>(nc) * threads * threshold && nc >= 2) --nc;
  return nc;
}

int p2p_ctas(const System& s) {
  if (s.nodes > 1) return kNetPeerChannels;
  return coll_channels(graphs_for(s)[kRing]);
}

int simple_ring_loops(int channels, int ranks, std::uint64_t bytes) {
  const std::uint64_t loop = static_cast<std::uint64_t>(std::max(1, channels)) *
                             static_cast<std::uint64_t>(std::max(1, ranks)) *
                             kSimpleStepBytes * kSimpleChunkSteps;
  return static_cast<int>(std::max<std::uint64_t>(1, (bytes + loop - 1) / loop));
}

double hop_latency_us(Algo a, Proto p, bool network) {
  return kHwLat[network ? kNet : kNvlink][static_cast<std::size_t>(a)][static_cast<std::size_t>(p)];
}

double base_latency_us(Algo a, Proto p) { return kBaseLat[static_cast<std::size_t>(a)][static_cast<std::size_t>(p)]; }

double net_overhead_us(Proto p) { return kNetOverhead * (p == Proto::kSimple ? 3 : 1); }

Algorithm to_algorithm(Algo a) {
  switch (a) {
    case Algo::kTree: return Algorithm::kTree;
    case Algo::kRing: return Algorithm::kRing;
    case Algo::kCollNetDirect:
    case Algo::kCollNetChain: return Algorithm::kCollNet;
    case Algo::kNvls: return Algorithm::kNvls;
    case Algo::kNvlsTree: return Algorithm::kNvlsTree;
  }
  return Algorithm::kRing;
}

Protocol to_protocol(Proto p) {
  return p == Proto::kLL ? Protocol::kLL : p == Proto::kLL128 ? Protocol::kLL128 : Protocol::kSimple;
}

Proto from_protocol(Protocol p) {
  return p == Protocol::kLL ? Proto::kLL : p == Protocol::kLL128 ? Proto::kLL128 : Proto::kSimple;
}

std::string_view algo_name(Algo a) {
  constexpr std::string_view kNames[kAlgos] = {"Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree"};
  return kNames[static_cast<std::size_t>(a)];
}

std::string_view proto_name(Proto p) {
  constexpr std::string_view kNames[kProtos] = {"LL", "LL128", "Simple"};
  return kNames[static_cast<std::size_t>(p)];
}

}  // namespace podsim::collectives::nccl
