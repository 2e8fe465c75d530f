#include "config/network_reader.hpp"

namespace podsim::config {

network::NetworkSpec read_network(Reader& r) {
  r.allow_only({"model", "contention", "flow_min", "min_chunk", "max_chunks", "min_partitioned_transfers"});
  r.set_default("contention", "auto");
  r.set_default("flow_min", "1 MiB");
  r.set_default("model", "analytical");
  r.set_default("min_chunk", "64 KiB");
  r.set_default("max_chunks", "16");
  network::NetworkSpec spec;
  spec.fidelity = r.choice("model", network::kFidelities, network::fidelity_name);
  spec.contention = r.choice("contention", network::kContentionModels, network::contention_model_name);
  spec.flow_min_bytes = r.bytes("flow_min");
  const std::uint64_t chunk = r.bytes("min_chunk");
  if (chunk == 0 || chunk > (1ull << 30)) r.fail("min_chunk", "must be between 1 B and 1 GiB");
  spec.min_chunk_bytes = chunk;
  spec.max_chunks = static_cast<std::uint32_t>(r.integer("max_chunks", 1, 65536));
  r.set_default("min_partitioned_transfers", "20000");
  spec.min_partitioned_transfers = static_cast<std::uint64_t>(r.integer("min_partitioned_transfers", 0, 1LL << 40));
  return spec;
}

}  // namespace podsim::config
