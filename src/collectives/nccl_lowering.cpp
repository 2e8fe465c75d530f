// NCCL's algorithms lowered to transfers on a GPU cluster (docs/collectives.md, "NCCL").
//
// - ring: 2(n−1) steps (n−1 for reduce-scatter and all-gather) of S/n per channel. On one
//   node one ring carries everything (NCCL's channels share each GPU's NVLink); across
//   nodes one ring per GPU index (rail), each S/g, entering and leaving every node on its
//   rail, as NCCL's channels spread over the NICs.
// - tree: NCCL's double binary tree across nodes, a chain inside each node, per rail;
//   reduce up and broadcast down, pipelined in NCCL's chunks.
// - nvls: the NVSwitch reduces (multimem.ld_reduce) and multicasts (multimem.st): per GPU
//   S up and S/n down, then S/n up and S down, i.e. S(n+1)/n each way, pipelined in
//   NCCL's NVLS chunks.
// - nvls-tree: NVLS inside nodes, a double binary tree per rail across them.
// - collnet: scatter to the GPUs inside a node, each GPU's shard reduced by the scale-out
//   switches (SHARP) and returned, gathered inside the node.
// Protocol and per-step costs come through NcclEmitter (nccl_emitter.hpp).
#include "collectives/nccl_lowering.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>

#include "collectives/link_images.hpp"
#include "collectives/nccl_emitter.hpp"
#include "util/error.hpp"

namespace podsim::collectives::detail {

namespace {

using nccl::Algo;
using nccl::Proto;

constexpr std::uint64_t kNvlsChannels = 16;  // NCCL_NVLS_NCHANNELS default
constexpr double kNvlsWire = 6.0 / 5.0;     // tuning.cc: NVLS bus-to-algorithm ratio 5/6

SimTime us(double v) { return static_cast<SimTime>(std::llround(v * 1e6)); }

/// The group's chips node by node, in the group's order.
std::vector<std::vector<ChipId>> by_node(const topology::Topology& topo, const Group& group) {
  std::map<int, std::size_t> index;
  std::vector<std::vector<ChipId>> nodes;
  for (ChipId c : group.chips) {
    const int node = topo.coord(c)[1];
    auto [it, inserted] = index.try_emplace(node, nodes.size());
    if (inserted) nodes.emplace_back();
    nodes[it->second].push_back(c);
  }
  return nodes;
}

/// Payload bytes per wire byte of a protocol: LL sends 4 B of data with a 4 B flag, LL128
/// 120 B with an 8 B flag in each 128 B line (NVIDIA/nccl issue #281; device.h
/// NCCL_LL128_LINEELEMS/DATAELEMS).
double wire_factor(Proto p) { return p == Proto::kLL ? 2.0 : p == Proto::kLL128 ? 128.0 / 120.0 : 1.0; }

/// Data bytes of one NCCL step (buffer size / NCCL_STEPS): Simple 4 MiB / 8; LL 512 KiB /
/// 8 of lines half flags; LL128 120·640·8·8 B / 8 with 120 of 128 bytes data.
double step_data_bytes(Proto p) {
  if (p == Proto::kSimple) return static_cast<double>(nccl::kSimpleStepBytes);
  return p == Proto::kLL ? 32768.0 : 614400.0 * 120.0 / 128.0;
}

int pieces(double bytes, double chunk, int cap = kMaxPieces) {
  return static_cast<int>(std::clamp(std::ceil(bytes / chunk), 1.0, static_cast<double>(cap)));
}

/// NVLS chunk size (enqueue.cc computeCollChunkInfo, v2.20.5): 128 KiB, smaller for small
/// messages; `tree`: the NVLS-tree variant.
double nvls_chunk(double bytes, std::uint64_t local, int nodes, bool tree) {
  const double ops = static_cast<double>(kNvlsChannels * local);
  double chunk = tree ? (nodes >= 4 ? 65536.0 : 524288.0) : 131072.0;
  if (!tree) {
    if (bytes < 64 * ops * chunk && chunk > 65536) chunk = 65536;
    if (bytes < 8 * ops * chunk && chunk > 32768) chunk = 32768;
    if (bytes < 2 * ops * chunk && chunk > 16384) chunk = 16384;
  } else {
    if (bytes < 32 * ops * chunk && chunk > 262144) chunk = 262144;
    if (bytes < 16 * ops * chunk && chunk > 131072) chunk = 131072;
    if (bytes < 4 * ops * chunk && chunk > 65536) chunk = 65536;
    if (bytes < 1 * ops * chunk && chunk > 32768) chunk = 32768;
  }
  return chunk;
}

/// Binary tree over `n` nodes (mirrored for the second tree of a double binary tree, so
/// that the leaves of one are inner nodes of the other): parent of node i, or −1.
int tree_parent(int i, int n, bool mirror) {
  const int m = mirror ? n - 1 - i : i;
  if (m == 0) return -1;
  const int pm = (m - 1) / 2;
  return mirror ? n - 1 - pm : pm;
}

struct Context {
  const topology::Topology& topo;
  NcclEmitter& em;
  const nccl::Model& model;
  Op op;
  Proto proto;
  double bytes;
  std::vector<std::vector<ChipId>> nodes;
  /// The schedule holds this collective alone: it may stand for a larger periodic one.
  bool alone = false;
  int local() const { return static_cast<int>(nodes.front().size()); }
  /// NCCL's per-rank payload rate for `a` (GB/s before the bus-to-algorithm ratio).
  double bus_Bps(Algo a) const {
    const int oi = op == Op::kAllReduce ? 0 : op == Op::kReduceScatter ? 1 : op == Op::kAllGather ? 2 : 3;
    return model.entries[static_cast<std::size_t>(oi)][static_cast<std::size_t>(a)][static_cast<std::size_t>(proto)].bus_GBps * 1e9;
  }
};

/// A ring over an even number of identical nodes repeats every two nodes (the channel
/// orders alternate direction per node). When nothing couples the repeats (no link carries
/// hops of two of them, every hop's route matches its first-pair counterpart link by link
/// in bandwidth and latency) every pair of nodes runs exactly as the first pair does with
/// its ring closed on itself (same steps, same chunk, the same dependencies shifted):
/// only that pair is simulated, and its links' loads are mapped onto every pair's links.
/// Returns those link images, or nothing when the ring is not periodic that way.
std::optional<Schedule::Images> ring_images(const topology::Topology& topo,
                                            const std::vector<std::vector<VertexId>>& orders, std::size_t period) {
  LinkImageBuilder images(topo);
  for (const auto& order : orders) {
    const std::size_t n = order.size();
    for (std::size_t p = 0; p < n; ++p) {
      const std::size_t q = p % period;
      const VertexId src = order[p];
      const VertexId dst = order[(p + 1) % n];
      const VertexId rsrc = order[q];
      const VertexId rdst = order[(q + 1) % period];
      if ((topo.node_switch(src) == topo.node_switch(dst)) != (topo.node_switch(rsrc) == topo.node_switch(rdst))) {
        return std::nullopt;
      }
      if (!images.pair(rsrc, rdst, src, dst, static_cast<std::uint32_t>(p / period))) return std::nullopt;
    }
  }
  return images.images();
}

void lower_ring(Context& c) {
  const int n_nodes = static_cast<int>(c.nodes.size());
  const int g = c.local();
  const int channels = n_nodes > 1 ? g : 1;
  std::vector<std::vector<VertexId>> orders(static_cast<std::size_t>(channels));
  for (int k = 0; k < channels; ++k) {
    for (int i = 0; i < n_nodes; ++i) {
      const auto& node = c.nodes[static_cast<std::size_t>(i)];
      for (int j = 0; j < g; ++j) {
        // Alternate directions so consecutive nodes meet on one rail.
        const int local = n_nodes == 1 ? j : i % 2 == 0 ? (k + j) % g : ((k - 1 - j) % g + g) % g;
        orders[static_cast<std::size_t>(k)].push_back(node[static_cast<std::size_t>(local)]);
      }
    }
  }
  const auto n = orders.front().size();
  const int steps = c.op == Op::kAllReduce ? 2 * static_cast<int>(n - 1) : static_cast<int>(n - 1);
  const double chunk = c.bytes / channels / static_cast<double>(n);
  // O(g·n) transfers instead of O(n²) where the ring repeats every two nodes (ring_images).
  const auto period = static_cast<std::size_t>(2 * g);
  bool uniform = true;
  for (const auto& node : c.nodes) uniform = uniform && static_cast<int>(node.size()) == g;
  if (c.alone && uniform && n_nodes >= 4 && n_nodes % 2 == 0) {
    if (auto images = ring_images(c.topo, orders, period)) {
      for (auto& order : orders) order.resize(period);
      c.em.schedule().set_images(std::move(*images));
    }
  }
  const std::size_t ring = orders.front().size();
  // LL's and LL128's rates are limits of the GPU side (llMaxBw, the per-channel LL128 caps, the
  // rate measured for LL128), a rank's total over its channels. Across nodes a rank's channels
  // leave on two links, NVLink to its neighbours and its NIC to the next node; each link's FIFO
  // of the rank's sends gets the share of that rate its channels have, so that the rank as a
  // whole sends no faster. Simple's rate is NCCL's estimate of the links themselves (channels ×
  // the graph's speed): there the links bind, and each link's FIFO keeps the whole rate.
  const double rate = c.bus_Bps(Algo::kRing);
  // Per channel and ring position, decided once for every step: does the hop stay on the node,
  // and at what rate does its sender's FIFO on that link go.
  struct Hop {
    bool same_node = true;
    double rate_Bps = 0;
  };
  std::vector<std::vector<Hop>> hop(static_cast<std::size_t>(channels), std::vector<Hop>(ring));
  std::map<VertexId, std::pair<int, int>> leaving;  // per rank: channels leaving on NVLink, on the NIC
  for (std::size_t k = 0; k < hop.size(); ++k) {
    const auto& order = orders[k];
    for (std::size_t i = 0; i < ring; ++i) {
      hop[k][i].same_node = c.topo.node_switch(order[i]) == c.topo.node_switch(order[(i + 1) % ring]);
      auto& l = leaving[order[i]];
      (hop[k][i].same_node ? l.first : l.second) += 1;
    }
  }
  for (std::size_t k = 0; k < hop.size(); ++k) {
    for (std::size_t i = 0; i < ring; ++i) {
      Hop& h = hop[k][i];
      const auto& l = leaving[orders[k][i]];
      h.rate_Bps = c.proto == Proto::kSimple
                       ? rate
                       : rate * (h.same_node ? l.first : l.second) / static_cast<double>(channels);
    }
  }
  double intra = nccl::hop_latency_us(Algo::kRing, c.proto, false);
  if (n_nodes > 1) intra = std::max(intra, nccl::net_overhead_us(c.proto));
  // Simple hands every step over in slices, each behind a barrier, a system-scope fence and
  // a flag post (prims_simple.h): NCCL's hwLat once more per slice of every loop, which its
  // tuning, charging hwLat once per step, leaves out (docs/collectives.md, "Simple's slices").
  double handover = 0;
  if (c.proto == Proto::kSimple) {
    const auto total = static_cast<std::uint64_t>(c.bytes);
    const int loops = nccl::simple_ring_loops(nccl::ctas(c.model, {Algo::kRing, Proto::kSimple, 0}, total),
                                              c.model.system.ranks, total);
    handover = nccl::kSimpleSlicesPerStep * loops * nccl::hop_latency_us(Algo::kRing, Proto::kSimple, false);
  }
  const SimTime intra_ps = us(intra + handover);
  const SimTime inter_ps = us(nccl::hop_latency_us(Algo::kRing, c.proto, true) + handover);
  std::vector<std::vector<TransferIndex>> sent(static_cast<std::size_t>(channels), std::vector<TransferIndex>(ring));
  for (int s = 0; s < steps; ++s) {
    for (int k = 0; k < channels; ++k) {
      const auto& order = orders[static_cast<std::size_t>(k)];
      auto& mine = sent[static_cast<std::size_t>(k)];
      std::vector<TransferIndex> now(ring);
      for (std::size_t i = 0; i < ring; ++i) {
        std::vector<TransferIndex> deps;
        if (s > 0) deps = {mine[i], mine[(i + ring - 1) % ring]};  // own last send, what it received
        const Hop& h = hop[static_cast<std::size_t>(k)][i];
        now[i] = c.em.send(order[i], order[(i + 1) % ring], chunk, std::move(deps), h.rate_Bps,
                           h.same_node ? intra_ps : inter_ps);
      }
      mine.swap(now);
    }
  }
}

void lower_broadcast(Context& c) {
  // A pipelined chain from the first chip through the ring order, in NCCL steps.
  std::vector<VertexId> order;
  for (const auto& node : c.nodes) order.insert(order.end(), node.begin(), node.end());
  const int p = broadcast_pieces(c.bytes, c.proto);
  const double piece = c.bytes / p;
  const double rate = c.bus_Bps(Algo::kRing);
  std::vector<TransferIndex> got(order.size());
  for (int q = 0; q < p; ++q) {
    for (std::size_t i = 0; i + 1 < order.size(); ++i) {
      std::vector<TransferIndex> deps;
      if (i > 0) deps.push_back(got[i]);
      got[i + 1] = c.em.send(order[i], order[i + 1], piece, std::move(deps), rate, 0);
    }
  }
}

constexpr VertexId kNoParent = ~VertexId{0};
using Deps = std::vector<TransferIndex>;

/// The sends of a set of trees that reduce up and broadcast down, piece by piece:
/// `parent[t][x]` is chip x's parent in tree t (kNoParent at the root). Piece q's reduce
/// leaves the chips at height h (their distance to their deepest leaf) once their children's
/// have arrived, and its broadcast leaves the chips at depth d (their distance from the root)
/// once it reached them. A caller adds the sends in the order they can go (pipelined: piece q
/// at height h about q + h steps in), because each link serves its sends first come, first
/// served: a ready send added behind one still waiting for its data would wait with it
/// (NCCL's channels stream their pieces through the tree concurrently, up and down).
class TreeSends {
 public:
  TreeSends(Context& c, const std::vector<std::map<VertexId, VertexId>>& parent, double piece, int p, double rate,
            SimTime intra_ps, SimTime inter_ps)
      : c_(c), parent_(parent), piece_(piece), pieces_(p), rate_(rate), intra_ps_(intra_ps), inter_ps_(inter_ps),
        shapes_(parent.size()),
        up_(parent.size(), std::vector<std::map<VertexId, TransferIndex>>(static_cast<std::size_t>(p))),
        have_(static_cast<std::size_t>(p), std::vector<std::map<VertexId, Deps>>(parent.size())) {
    for (std::size_t t = 0; t < parent.size(); ++t) {
      Shape& sh = shapes_[t];
      for (const auto& [x, px] : parent[t]) {
        if (px == kNoParent) {
          sh.root = x;
        } else {
          sh.children[px].push_back(x);
        }
      }
      std::map<VertexId, std::size_t> height;
      std::function<std::size_t(VertexId)> height_of = [&](VertexId x) -> std::size_t {
        auto it = height.find(x);
        if (it != height.end()) return it->second;
        std::size_t h = 0;
        for (VertexId ch : sh.children[x]) h = std::max(h, height_of(ch) + 1);
        return height[x] = h;
      };
      std::function<void(VertexId, std::size_t)> place = [&](VertexId x, std::size_t depth) {
        if (sh.by_depth.size() <= depth) sh.by_depth.resize(depth + 1);
        sh.by_depth[depth].push_back(x);
        for (VertexId ch : sh.children[x]) place(ch, depth + 1);
      };
      place(sh.root, 0);
      for (const auto& [x, px] : parent[t]) {
        const std::size_t h = height_of(x);
        if (sh.by_height.size() <= h) sh.by_height.resize(h + 1);
        sh.by_height[h].push_back(x);
      }
      height_ = std::max(height_, sh.by_height.size());
      depth_ = std::max(depth_, sh.by_depth.size());
    }
  }

  /// Steps a piece takes from the leaves to the root and back: piece q is done after step
  /// q + span() − 1.
  int span() const { return static_cast<int>(height_ + depth_); }

  /// The sends due at step `s` of the pipeline: piece q's reduce from height s − q and its
  /// broadcast from depth s − q − height. `ready[q]`, if any, gates each chip's contribution
  /// to piece q.
  void step(int s, const std::vector<const std::map<VertexId, TransferIndex>*>& ready) {
    const auto gate = [&](int q) { return ready.empty() ? nullptr : ready[static_cast<std::size_t>(q)]; };
    const auto height = static_cast<int>(height_);
    for (int h = 0; h < height; ++h) {
      if (const int q = s - h; q >= 0 && q < pieces_) up(q, static_cast<std::size_t>(h), gate(q));
    }
    for (int d = 0; d < static_cast<int>(depth_); ++d) {
      if (const int q = s - height - d; q >= 0 && q < pieces_) down(q, static_cast<std::size_t>(d), gate(q));
    }
  }

  /// What gates each chip's copy of piece q of the result (once step() passed its last broadcast).
  std::map<VertexId, Deps> result(int q) const {
    std::map<VertexId, Deps> out;
    for (const auto& tree : have_[static_cast<std::size_t>(q)]) {
      for (const auto& [x, deps] : tree) out[x].insert(out[x].end(), deps.begin(), deps.end());
    }
    return out;
  }

 private:
  /// Piece q's reduce sends from the chips at height h; `ready[x]`, if given, gates chip x's
  /// contribution.
  void up(int q, std::size_t h, const std::map<VertexId, TransferIndex>* ready) {
    for (std::size_t t = 0; t < parent_.size(); ++t) {
      if (h >= shapes_[t].by_height.size()) continue;
      for (VertexId x : shapes_[t].by_height[h]) {
        if (x == shapes_[t].root) continue;
        const VertexId px = parent_[t].at(x);
        up_[t][static_cast<std::size_t>(q)][x] = c_.em.send(x, px, piece_, from_children(t, q, x, ready), rate_, hop(x, px));
      }
    }
  }

  /// Piece q's broadcast sends from the chips at depth d (the root's, at depth 0, once its
  /// children's reduce and its own contribution are in).
  void down(int q, std::size_t d, const std::map<VertexId, TransferIndex>* ready) {
    auto& have = have_[static_cast<std::size_t>(q)];
    for (std::size_t t = 0; t < parent_.size(); ++t) {
      if (d >= shapes_[t].by_depth.size()) continue;
      if (d == 0) have[t][shapes_[t].root] = from_children(t, q, shapes_[t].root, ready);
      for (VertexId x : shapes_[t].by_depth[d]) {
        for (VertexId ch : shapes_[t].children[x]) have[t][ch] = {c_.em.send(x, ch, piece_, have[t][x], rate_, hop(x, ch))};
      }
    }
  }

  struct Shape {
    std::map<VertexId, std::vector<VertexId>> children;
    VertexId root = kNoParent;
    std::vector<std::vector<VertexId>> by_height;  // chips by distance to their deepest leaf
    std::vector<std::vector<VertexId>> by_depth;   // chips by distance from the root
  };

  SimTime hop(VertexId a, VertexId b) const {
    return c_.topo.node_switch(a) == c_.topo.node_switch(b) ? intra_ps_ : inter_ps_;
  }
  Deps from_children(std::size_t t, int q, VertexId x, const std::map<VertexId, TransferIndex>* ready) {
    Deps deps;
    for (VertexId ch : shapes_[t].children[x]) deps.push_back(up_[t][static_cast<std::size_t>(q)].at(ch));
    if (ready != nullptr && ready->count(x) != 0) deps.push_back(ready->at(x));
    return deps;
  }

  Context& c_;
  const std::vector<std::map<VertexId, VertexId>>& parent_;
  double piece_;
  int pieces_;
  double rate_;
  SimTime intra_ps_;
  SimTime inter_ps_;
  std::vector<Shape> shapes_;
  std::size_t height_ = 0;
  std::size_t depth_ = 0;
  std::vector<std::vector<std::map<VertexId, TransferIndex>>> up_;  // [tree][piece][chip]: its reduce send
  std::vector<std::vector<std::map<VertexId, Deps>>> have_;         // [piece][tree][chip]: gates its copy
};

/// Reduce up and broadcast down a set of trees, each carrying `bytes` in `p` pieces,
/// pipelined: at step s, piece q's reduce from height s − q and its broadcast from depth
/// s − q − height (TreeSends says why the order matters).
void run_trees(Context& c, const std::vector<std::map<VertexId, VertexId>>& parent, double bytes, int p, double rate,
               SimTime intra_ps, SimTime inter_ps) {
  TreeSends trees(c, parent, bytes / p, p, rate, intra_ps, inter_ps);
  for (int step = 0; step < p + trees.span(); ++step) trees.step(step, {});
}

void lower_tree(Context& c) {
  const int n_nodes = static_cast<int>(c.nodes.size());
  const int g = c.local();
  const int channels = n_nodes > 1 ? g : 1;
  const int trees = n_nodes > 1 ? 2 : 1;
  std::vector<std::map<VertexId, VertexId>> parent;
  for (int k = 0; k < channels; ++k) {
    for (int t = 0; t < trees; ++t) {
      std::map<VertexId, VertexId> tree;
      for (int i = 0; i < n_nodes; ++i) {
        const auto& node = c.nodes[static_cast<std::size_t>(i)];
        // The chain inside the node starts at the channel's GPU (its rail), its head.
        std::vector<VertexId> chain;
        for (int j = 0; j < g; ++j) chain.push_back(node[static_cast<std::size_t>((k + j) % g)]);
        const int pi = tree_parent(i, n_nodes, t == 1);
        tree[chain[0]] = pi < 0 ? kNoParent : c.nodes[static_cast<std::size_t>(pi)][static_cast<std::size_t>(k % g)];
        for (std::size_t j = 1; j < chain.size(); ++j) tree[chain[j]] = chain[j - 1];
      }
      parent.push_back(std::move(tree));
    }
  }
  const double per_tree = c.bytes / static_cast<double>(parent.size());
  const int p = tree_pieces(per_tree, c.proto, static_cast<double>(n_nodes) * g, static_cast<double>(parent.size()));
  run_trees(c, parent, per_tree, p, c.bus_Bps(Algo::kTree),
            us(nccl::hop_latency_us(Algo::kTree, c.proto, false)), us(nccl::hop_latency_us(Algo::kTree, c.proto, true)));
}

/// NVLS inside every node: `scatter` reduces each GPU's shard in the switch, `gather`
/// multicasts the shards back. `ready[x]` (if any) gates GPU x's multicast source.
struct NvlsPiece {
  std::map<VertexId, TransferIndex> reduced;  ///< GPU -> the switch's reduced shard arriving
  std::map<VertexId, TransferIndex> sent;     ///< GPU -> its shard's store to the switch
};

void nvls_scatter(Context& c, double piece, NvlsPiece& out) {
  for (const auto& node : c.nodes) {
    const VertexId sw = c.topo.node_switch(node.front());
    std::vector<TransferIndex> in;
    for (ChipId a : node) in.push_back(c.em.send(a, sw, piece, {}, 0, 0));
    for (ChipId b : node) out.reduced[b] = c.em.send(sw, b, piece / static_cast<double>(node.size()), in, 0, 0);
  }
}

void nvls_gather(Context& c, double piece, const std::map<VertexId, std::vector<TransferIndex>>& ready) {
  for (const auto& node : c.nodes) {
    const VertexId sw = c.topo.node_switch(node.front());
    std::vector<TransferIndex> in;
    for (ChipId b : node) {
      const auto it = ready.find(b);
      in.push_back(c.em.send(b, sw, piece / static_cast<double>(node.size()),
                             it == ready.end() ? std::vector<TransferIndex>{} : it->second, 0, 0));
    }
    for (ChipId d : node) c.em.send(sw, d, piece, in, 0, 0);
  }
}

void lower_nvls(Context& c) {
  const int p = pieces(c.bytes, nvls_chunk(c.bytes, static_cast<std::uint64_t>(c.local()), 1, false) *
                                    static_cast<double>(kNvlsChannels * static_cast<std::uint64_t>(c.local())));
  const double piece = c.bytes / p;
  c.em.set_wire_factor(kNvlsWire);
  std::vector<NvlsPiece> done(static_cast<std::size_t>(p));
  // Piece i's reduce goes out before piece i−1's multicast source, so each GPU's link to
  // the switch keeps streaming while the switch reduces.
  for (int i = 0; i <= p; ++i) {
    if (i < p && c.op != Op::kAllGather) nvls_scatter(c, piece, done[static_cast<std::size_t>(i)]);
    if (i >= 1 && c.op != Op::kReduceScatter) {
      std::map<VertexId, std::vector<TransferIndex>> ready;
      for (const auto& [x, t] : done[static_cast<std::size_t>(i - 1)].reduced) ready[x] = {t};
      nvls_gather(c, piece, ready);
    }
  }
}

void lower_nvls_tree(Context& c) {
  const int n_nodes = static_cast<int>(c.nodes.size());
  const int g = c.local();
  const int p = pieces(c.bytes, nvls_chunk(c.bytes, static_cast<std::uint64_t>(g), n_nodes, true) *
                                    static_cast<double>(kNvlsChannels * static_cast<std::uint64_t>(g)));
  const double piece = c.bytes / p;
  // One double binary tree per rail, over the nodes, on that GPU's shard of each piece.
  std::vector<std::map<VertexId, VertexId>> parent;
  for (int b = 0; b < g; ++b) {
    for (int t = 0; t < 2; ++t) {
      std::map<VertexId, VertexId> tree;
      for (int i = 0; i < n_nodes; ++i) {
        const int pi = tree_parent(i, n_nodes, t == 1);
        tree[c.nodes[static_cast<std::size_t>(i)][static_cast<std::size_t>(b)]] =
            pi < 0 ? kNoParent : c.nodes[static_cast<std::size_t>(pi)][static_cast<std::size_t>(b)];
      }
      parent.push_back(std::move(tree));
    }
  }
  const SimTime inter_ps = us(nccl::hop_latency_us(Algo::kNvlsTree, Proto::kSimple, true));
  // Each piece: reduced inside its node by the switch (scatter), across the nodes by the
  // trees on each GPU's shard, then multicast back (gather); the pieces stream through the
  // three one step apart, and through the trees as run_trees does.
  TreeSends trees(c, parent, piece / (2.0 * g), p, 0, inter_ps, inter_ps);
  std::vector<NvlsPiece> scattered(static_cast<std::size_t>(p));
  std::vector<const std::map<VertexId, TransferIndex>*> reduced_inside;
  for (const NvlsPiece& piece_inside : scattered) reduced_inside.push_back(&piece_inside.reduced);
  for (int step = 0; step < p + trees.span() + 1; ++step) {
    if (step < p) {
      c.em.set_wire_factor(kNvlsWire);
      nvls_scatter(c, piece, scattered[static_cast<std::size_t>(step)]);
    }
    c.em.set_wire_factor(1.0);
    trees.step(step - 1, reduced_inside);
    if (const int q = step - 1 - trees.span(); q >= 0 && q < p) {  // the step after its last broadcast
      c.em.set_wire_factor(kNvlsWire);
      nvls_gather(c, piece, trees.result(q));
    }
  }
}

void lower_collnet(Context& c) {
  const int g = c.local();
  const double fg = g;
  const int p = pieces(c.bytes, 131072.0 * fg * 16);
  const double shard = c.bytes / p / fg;
  const SimTime intra_ps = us(nccl::hop_latency_us(Algo::kCollNetDirect, Proto::kSimple, false) + 0.4 * (g - 1));
  const SimTime net_ps = us(nccl::hop_latency_us(Algo::kCollNetDirect, Proto::kSimple, true) / 2);
  std::vector<VertexId> root(static_cast<std::size_t>(g));
  for (int b = 0; b < g; ++b) {
    std::vector<ChipId> rail;
    for (const auto& node : c.nodes) rail.push_back(node[static_cast<std::size_t>(b)]);
    root[static_cast<std::size_t>(b)] = c.topo.common_fabric_switch(rail);
  }
  using Ready = std::map<VertexId, std::vector<TransferIndex>>;
  std::vector<Ready> scattered(static_cast<std::size_t>(p));
  std::vector<Ready> returned(static_cast<std::size_t>(p));
  for (int i = 0; i <= p + 1; ++i) {
    if (i < p) {
      auto& got = scattered[static_cast<std::size_t>(i)];
      for (const auto& node : c.nodes) {
        for (ChipId b : node) got[b];
        for (ChipId a : node) {
          for (ChipId b : node) {
            if (a != b) got[b].push_back(c.em.send(a, b, shard, {}, 0, intra_ps));
          }
        }
      }
    }
    if (i >= 1 && i <= p) {
      const auto q = static_cast<std::size_t>(i - 1);
      for (int b = 0; b < g; ++b) {
        std::vector<TransferIndex> in;
        for (const auto& node : c.nodes) {
          const ChipId head = node[static_cast<std::size_t>(b)];
          in.push_back(c.em.send(head, root[static_cast<std::size_t>(b)], shard, scattered[q][head], 0, net_ps));
        }
        for (const auto& node : c.nodes) {
          const ChipId head = node[static_cast<std::size_t>(b)];
          returned[q][head] = {c.em.send(root[static_cast<std::size_t>(b)], head, shard, in, 0, net_ps)};
        }
      }
    }
    if (i >= 2) {
      const auto q = static_cast<std::size_t>(i - 2);
      for (const auto& node : c.nodes) {
        for (ChipId b : node) {
          for (ChipId a : node) {
            if (a != b) c.em.send(b, a, shard, returned[q][b], 0, intra_ps);
          }
        }
      }
    }
  }
}

}  // namespace

int tree_pieces(double per_tree, Proto p, double chips, double trees) {
  const int cap = static_cast<int>(std::clamp(kTreeTransferBudget / (2.0 * chips * trees), 4.0, 2048.0));
  return pieces(per_tree, step_data_bytes(p), cap);
}

int broadcast_pieces(double bytes, Proto p) { return pieces(bytes, step_data_bytes(p)); }

std::optional<nccl::System> nccl_system(const topology::Topology& topo, const Group& group) {
  const auto& spec = topo.collectives().nccl;
  if (!spec || topo.kind() != "switch") return std::nullopt;
  const auto nodes = by_node(topo, group);
  nccl::System s;
  s.arch = spec->arch;
  s.ranks = static_cast<int>(group.size());
  s.nodes = static_cast<int>(nodes.size());
  s.nvlink_GBps = topo.axes()[0].link_bandwidth_Bps / 1e9;
  s.nic_GBps = topo.axes()[1].link_bandwidth_Bps / 1e9;
  const std::size_t local = nodes.front().size();
  bool even = true;
  for (const auto& n : nodes) even = even && n.size() == local;
  s.nvls = spec->nvls && local >= 2 && even;
  s.collnet = spec->collnet && nodes.size() >= 2 && even;
  return s;
}

void lower_nccl(const topology::Topology& topo, const CollectiveSpec& spec, const std::vector<Group>& groups,
                Symmetry symmetry, const Frontier& start, Frontier& end, Schedule& schedule) {
  for (const Group& group : groups) {
    const auto system = nccl_system(topo, group);
    if (!system) throw SimulationError("an NCCL algorithm on a topology without an nccl section");
    const nccl::Model model = nccl::tune(*system);
    const Proto proto = nccl::from_protocol(spec.protocol);
    Algo algo = Algo::kRing;
    switch (spec.algorithm) {
      case Algorithm::kTree: algo = Algo::kTree; break;
      case Algorithm::kNvls: algo = Algo::kNvls; break;
      case Algorithm::kNvlsTree: algo = Algo::kNvlsTree; break;
      case Algorithm::kCollNet: algo = Algo::kCollNetDirect; break;
      default: break;
    }
    const SimTime start_ps = topo.collectives().nccl->launch_ps +
                             us(algo == Algo::kNvls || algo == Algo::kNvlsTree ? nccl::hop_latency_us(algo, proto, false)
                                                                               : nccl::base_latency_us(algo, proto));
    NcclEmitter em(topo, schedule, start, wire_factor(proto), start_ps);
    Context c{topo, em, model, spec.op, proto, static_cast<double>(spec.bytes), by_node(topo, group),
              symmetry == Symmetry::kPeriod && groups.size() == 1 && schedule.size() == 0};
    if (spec.op == Op::kBroadcast) {
      lower_broadcast(c);
    } else if (algo == Algo::kRing) {
      lower_ring(c);
    } else if (algo == Algo::kTree) {
      lower_tree(c);
    } else if (algo == Algo::kNvls) {
      lower_nvls(c);
    } else if (algo == Algo::kNvlsTree) {
      lower_nvls_tree(c);
    } else {
      lower_collnet(c);
    }
    em.finish(end);
  }
}

}  // namespace podsim::collectives::detail
