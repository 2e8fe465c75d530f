#include "runtime/comm_memo.hpp"

#include <cstring>
#include <stdexcept>

namespace podsim::runtime {

namespace {

template <typename T>
void put(std::vector<char>& out, const T& v) {
  const auto* p = reinterpret_cast<const char*>(&v);
  out.insert(out.end(), p, p + sizeof v);
}

template <typename T>
T take(const std::vector<char>& in, std::size_t& at) {
  if (at + sizeof(T) > in.size()) throw std::length_error("a packed measurement ends early");
  T v;
  std::memcpy(&v, in.data() + at, sizeof v);
  at += sizeof v;
  return v;
}

}  // namespace

std::vector<char> to_bytes(const Measured& m) {
  std::vector<char> out;
  put(out, m.profile.latency_ps);
  put(out, m.profile.bandwidth_ps);
  put(out, m.profile.compute_units);
  put(out, m.how);
  put(out, static_cast<std::uint64_t>(m.profile.uses.size()));
  for (const auto& u : m.profile.uses) {
    put(out, u.resource);
    put(out, u.fraction);
  }
  put(out, static_cast<std::uint64_t>(m.links.size()));
  for (const auto& [link, load] : m.links) {
    put(out, link);
    put(out, load.bytes);
    put(out, load.busy_ps);
  }
  return out;
}

Measured measured_from_bytes(const std::vector<char>& bytes) {
  Measured m;
  std::size_t at = 0;
  m.profile.latency_ps = take<SimTime>(bytes, at);
  m.profile.bandwidth_ps = take<SimTime>(bytes, at);
  m.profile.compute_units = take<int>(bytes, at);
  m.how = take<std::uint8_t>(bytes, at);
  m.profile.uses.resize(take<std::uint64_t>(bytes, at));
  for (auto& u : m.profile.uses) {
    u.resource = take<std::uint32_t>(bytes, at);
    u.fraction = take<double>(bytes, at);
  }
  m.links.resize(take<std::uint64_t>(bytes, at));
  for (auto& [link, load] : m.links) {
    link = take<topology::LinkId>(bytes, at);
    load.bytes = take<double>(bytes, at);
    load.busy_ps = take<SimTime>(bytes, at);
  }
  return m;
}

std::uint32_t CommMemo::context(const topology::TopologySpec& topology, const network::NetworkSpec& network,
                                const std::string& mesh) {
  for (std::size_t i = 0; i < contexts_.size(); ++i) {
    const Context& c = contexts_[i];
    if (c.mesh == mesh && c.network == network && c.topology == topology) return static_cast<std::uint32_t>(i);
  }
  if (contexts_.size() >= kMaxContexts) {
    contexts_.clear();
    ++generation_;
    entries_.clear();
    alone_.clear();
    link_entries_ = 0;
  }
  contexts_.push_back(Context{topology, network, mesh});
  return static_cast<std::uint32_t>(contexts_.size() - 1);
}

const Measured* CommMemo::find(std::uint32_t context, const Key& key) const {
  const auto it = entries_.find({context, key});
  return it == entries_.end() ? nullptr : &it->second;
}

void CommMemo::add(std::uint32_t context, const Key& key, const Measured& measured) {
  if (link_entries_ + measured.links.size() > kMaxLinkEntries) {
    entries_.clear();
    link_entries_ = 0;
  }
  if (entries_.emplace(std::make_pair(context, key), measured).second) link_entries_ += measured.links.size();
}

const SimTime* CommMemo::alone(std::uint32_t context, const Key& key) const {
  const auto it = alone_.find({context, key});
  return it == alone_.end() ? nullptr : &it->second;
}

void CommMemo::add_alone(std::uint32_t context, const Key& key, SimTime alone_ps) {
  // Small (a time per communication), but bounded with the measurements all the same.
  if (alone_.size() >= kMaxLinkEntries / 16) alone_.clear();
  alone_.emplace(std::make_pair(context, key), alone_ps);
}

}  // namespace podsim::runtime
