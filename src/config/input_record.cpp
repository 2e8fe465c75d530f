#include "config/input_record.hpp"

#include "util/input_file.hpp"
#include "util/sha256.hpp"

namespace podsim::config {

void merge_inputs(std::vector<InputRecord>& into, const std::vector<InputRecord>& more) {
  for (const InputRecord& m : more) {
    bool known = false;
    for (const InputRecord& i : into) known = known || i.path == m.path;
    if (!known) into.push_back(m);
  }
}

std::vector<std::pair<std::string, std::string>> content_digests(const std::vector<InputRecord>& inputs) {
  std::vector<std::pair<std::string, std::string>> out;
  out.reserve(inputs.size());
  for (const InputRecord& input : inputs) {
    out.emplace_back(input.shown, input.sha256.empty() ? sha256_hex(read_input_file(input.path, input.shown))
                                                       : input.sha256);
  }
  return out;
}

}  // namespace podsim::config
