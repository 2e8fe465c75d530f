#pragma once

#include <algorithm>
#include <array>

#include <cstdint>

namespace podsim::network {

/// Which network model a run uses: fidelity is a setting, not a fork.
enum class Fidelity {
  kAnalytical,  ///< α-β: route latency + bytes / slowest link; no contention; fastest
  kContention,  ///< links with bandwidth and latency, chunked messages, shared links
};
inline constexpr std::array<Fidelity, 2> kFidelities{Fidelity::kAnalytical, Fidelity::kContention};
/// "analytical", "contention": as written in configs and outputs.
inline const char* fidelity_name(Fidelity f) { return f == Fidelity::kContention ? "contention" : "analytical"; }

/// How the contention-aware model moves a message (`network.contention`).
enum class ContentionModel {
  kAuto,   ///< flows for a schedule whose mean message is at least flow_min_bytes, else chunks
  kFlow,   ///< one fluid flow per message, max-min fair link sharing (network/flow_network.hpp)
  kChunk,  ///< messages cut into chunks queued link by link (network/contention_network.hpp)
};
inline constexpr std::array<ContentionModel, 3> kContentionModels{ContentionModel::kAuto, ContentionModel::kFlow,
                                                                  ContentionModel::kChunk};
/// "auto", "flow", "chunk": as written in configs.
inline const char* contention_model_name(ContentionModel m) {
  return m == ContentionModel::kFlow ? "flow" : m == ContentionModel::kChunk ? "chunk" : "auto";
}

/// Settings of the network models.
struct NetworkSpec {
  Fidelity fidelity = Fidelity::kAnalytical;
  /// Contention-aware: flows or chunks, or chosen by message size.
  ContentionModel contention = ContentionModel::kAuto;
  /// Under kAuto: a schedule whose transfers carry at least this many bytes on average runs as
  /// flows.
  std::uint64_t flow_min_bytes = 1024 * 1024;
  /// Chunk model: a message is cut into chunks of at least this size...
  std::uint64_t min_chunk_bytes = 64 * 1024;
  /// ...and into at most this many chunks (larger chunks for larger messages).
  std::uint32_t max_chunks = 16;
  /// Under mpirun, a simulation of fewer transfers than this is run whole by every process
  /// rather than split: its synchronization windows would cost more than the split saves.
  std::uint64_t min_partitioned_transfers = 20'000;

  bool operator==(const NetworkSpec&) const = default;
};

/// The chunk size the chunk model cuts a message of `bytes` into: at most max_chunks chunks of
/// at least min_chunk_bytes (and at most 2 GiB).
inline std::uint64_t chunk_bytes(const NetworkSpec& spec, std::uint64_t bytes) {
  const std::uint64_t chunks = spec.max_chunks == 0 ? 1 : spec.max_chunks;
  const std::uint64_t wanted = (bytes + chunks - 1) / chunks;
  return std::clamp<std::uint64_t>(wanted, spec.min_chunk_bytes == 0 ? 1 : spec.min_chunk_bytes, 1ull << 31);
}

/// The contention-aware model for transfers of `mean_bytes` on average: kFlow or kChunk
/// (kAuto resolved by spec.flow_min_bytes).
inline ContentionModel contention_model_for(const NetworkSpec& spec, double mean_bytes) {
  if (spec.contention != ContentionModel::kAuto) return spec.contention;
  return mean_bytes >= static_cast<double>(spec.flow_min_bytes) ? ContentionModel::kFlow : ContentionModel::kChunk;
}

}  // namespace podsim::network
