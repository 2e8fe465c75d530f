#include "cli/collective_json.hpp"

namespace podsim::cli {

std::string protocol_text(const collectives::CollectiveTiming& t) {
  return t.protocol == collectives::Protocol::kAuto ? std::string() : std::string(collectives::protocol_name(t.protocol));
}

void write_timing_members(output::JsonWriter& j, const collectives::CollectiveTiming& t) {
  j.member("bytes", t.bytes);
  j.member("algorithm", collectives::algorithm_name(t.algorithm));
  j.member("protocol", protocol_text(t));
  if (t.nccl_predicted_s >= 0) j.member("nccl_predicted_s", t.nccl_predicted_s);
  j.member("time_s", t.time_s);
  j.member("algbw_Bps", t.algbw_Bps);
  j.member("busbw_Bps", t.busbw_Bps);
  j.member("max_link_utilization", t.max_link_utilization);
  j.member("pieces", t.pieces);
}

}  // namespace podsim::cli
