#include "runtime/comm_memo.hpp"

namespace podsim::runtime {

std::uint32_t CommMemo::context(const topology::TopologySpec& topology, const network::NetworkSpec& network,
                                const std::string& mesh) {
  for (std::size_t i = 0; i < contexts_.size(); ++i) {
    const Context& c = contexts_[i];
    if (c.mesh == mesh && c.network == network && c.topology == topology) return static_cast<std::uint32_t>(i);
  }
  if (contexts_.size() >= kMaxContexts) {
    contexts_.clear();
    entries_.clear();
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

}  // namespace podsim::runtime
