#include "collectives/collective_spec.hpp"

#include <array>
#include <utility>

namespace podsim::collectives {

namespace {
constexpr std::array<std::pair<Op, std::string_view>, 6> kOps{{
    {Op::kAllReduce, "all-reduce"},
    {Op::kReduceScatter, "reduce-scatter"},
    {Op::kAllGather, "all-gather"},
    {Op::kAllToAll, "all-to-all"},
    {Op::kBroadcast, "broadcast"},
    {Op::kSendRecv, "send-recv"},
}};
constexpr std::array<std::pair<Algorithm, std::string_view>, 10> kAlgorithms{{
    {Algorithm::kAuto, "auto"},
    {Algorithm::kRing, "ring"},
    {Algorithm::kBidirectionalRing, "bidirectional-ring"},
    {Algorithm::kTorus, "torus"},
    {Algorithm::kHierarchical, "hierarchical"},
    {Algorithm::kDimensionOrdered, "dimension-ordered"},
    {Algorithm::kTree, "tree"},
    {Algorithm::kNvls, "nvls"},
    {Algorithm::kNvlsTree, "nvls-tree"},
    {Algorithm::kCollNet, "collnet"},
}};
constexpr std::array<std::pair<Protocol, std::string_view>, 4> kProtocols{{
    {Protocol::kAuto, "auto"},
    {Protocol::kLL, "ll"},
    {Protocol::kLL128, "ll128"},
    {Protocol::kSimple, "simple"},
}};

template <typename T, std::size_t N>
std::string_view name_of(const std::array<std::pair<T, std::string_view>, N>& table, T value) {
  for (const auto& [v, name] : table) {
    if (v == value) return name;
  }
  return "?";
}

template <typename T, std::size_t N>
std::optional<T> value_of(const std::array<std::pair<T, std::string_view>, N>& table,
                          std::string_view name) {
  for (const auto& [v, n] : table) {
    if (n == name) return v;
  }
  return std::nullopt;
}

template <typename T, std::size_t N>
std::vector<std::string> names_of(const std::array<std::pair<T, std::string_view>, N>& table) {
  std::vector<std::string> out;
  for (const auto& entry : table) out.emplace_back(entry.second);
  return out;
}
}  // namespace

std::string_view op_name(Op op) { return name_of(kOps, op); }
std::string_view algorithm_name(Algorithm a) { return name_of(kAlgorithms, a); }
std::string_view protocol_name(Protocol p) { return name_of(kProtocols, p); }
std::vector<std::string> protocol_names() { return names_of(kProtocols); }
std::optional<Protocol> protocol_from_name(std::string_view name) {
  // NCCL writes them LL, LL128, Simple (NCCL_PROTO).
  std::string lower(name);
  for (char& ch : lower) ch = static_cast<char>(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
  return value_of(kProtocols, lower);
}
std::vector<std::string> op_names() { return names_of(kOps); }
std::vector<std::string> algorithm_names() { return names_of(kAlgorithms); }
std::optional<Op> op_from_name(std::string_view name) { return value_of(kOps, name); }
std::optional<Algorithm> algorithm_from_name(std::string_view name) {
  // "bidir-ring" is what people type; accept it as a synonym.
  if (name == "bidir-ring" || name == "bidirectional") return Algorithm::kBidirectionalRing;
  // NCCL_ALGO spellings.
  if (name == "NVLS") return Algorithm::kNvls;
  if (name == "NVLSTree") return Algorithm::kNvlsTree;
  if (name == "CollNet" || name == "CollnetDirect" || name == "CollNetDirect") return Algorithm::kCollNet;
  if (name == "Ring") return Algorithm::kRing;
  if (name == "Tree") return Algorithm::kTree;
  return value_of(kAlgorithms, name);
}

double bus_bandwidth_factor(Op op, std::uint32_t n) {
  const double nd = n;
  switch (op) {
    case Op::kAllReduce:
      return 2.0 * (nd - 1.0) / nd;
    case Op::kReduceScatter:
    case Op::kAllGather:
    case Op::kAllToAll:
      return (nd - 1.0) / nd;
    case Op::kBroadcast:
    case Op::kSendRecv:
      return 1.0;
  }
  return 1.0;
}

}  // namespace podsim::collectives
