#include "config/section_cache.hpp"

#include <array>
#include <string_view>

#include "workload/stack_profile.hpp"

namespace podsim::config {

namespace {

constexpr std::array<std::string_view, 6> kSections = {"model",   "hardware",    "topology",
                                                       "network", "parallelism", "training"};

/// The section an override path reaches into ("training.recompute" → training), or -1.
int section_of(const std::string& path) {
  const std::string_view head = std::string_view(path).substr(0, path.find('.'));
  for (std::size_t i = 0; i < kSections.size(); ++i) {
    if (head == kSections[i]) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

struct ParsedFiles::Sections::Keys {
  std::array<std::string, 6> own;  // per section: the file and its overrides, in order
  std::string model, hardware, topology, network, parallel, training, top;
};

std::optional<ParsedFiles::Sections::Keys> ParsedFiles::Sections::keys_of(const std::filesystem::path& file,
                                                                         const std::vector<Override>& overrides) {
  Keys k;
  for (auto& own : k.own) own = file.string() + '\x1e';
  for (const Override& o : overrides) {
    const int s = section_of(o.path);
    if (s < 0) return std::nullopt;  // name, description, …: read whole
    // The directory matters where the value names a file (model: other.yaml).
    k.own[static_cast<std::size_t>(s)] += o.path + '\x1f' + o.value + '\x1f' + o.dir.string() + '\x1e';
  }
  k.model = k.own[0];
  k.hardware = k.own[1];
  k.topology = k.own[2];
  k.network = k.own[3];
  // What read_composed hands each reader besides its own part of the document.
  k.parallel = k.own[4] + '\x1d' + k.topology;
  k.training = k.own[5] + '\x1d' + k.model + '\x1d' + k.hardware;
  // The files read follow from the included ones; the name from the file (no override reaches it).
  k.top = k.model + '\x1d' + k.hardware + '\x1d' + k.topology;
  return k;
}

std::optional<CachedReading> ParsedFiles::Sections::find(const std::filesystem::path& file,
                                                         const std::vector<Override>& overrides) {
  const auto keys = keys_of(file, overrides);
  if (!keys) return std::nullopt;
  const auto model = model_.find(keys->model);
  const auto hardware = hardware_.find(keys->hardware);
  const auto topology = topology_.find(keys->topology);
  const auto network = network_.find(keys->network);
  const auto parallel = parallel_.find(keys->parallel);
  const auto training = training_.find(keys->training);
  const auto top = top_.find(keys->top);
  if (model == model_.end() || hardware == hardware_.end() || topology == topology_.end() ||
      network == network_.end() || parallel == parallel_.end() || training == training_.end() || top == top_.end()) {
    return std::nullopt;
  }
  CachedReading out;
  out.scenario = runtime::Scenario{model->second, hardware->second, topology->second,
                                   network->second, parallel->second, training->second};
  // As read_composed finishes: the chip runs the stack the training section names.
  out.scenario.chip.stack = workload::stack_profile(out.scenario.training.stack).family;
  out.name = top->second.first;
  out.inputs = top->second.second;
  ++hits_;
  return out;
}

void ParsedFiles::Sections::keep(const std::filesystem::path& file, const std::vector<Override>& overrides,
                                 const CachedReading& read) {
  const auto keys = keys_of(file, overrides);
  if (!keys) return;
  put(model_, keys->model, read.scenario.model);
  put(hardware_, keys->hardware, read.scenario.chip);
  put(topology_, keys->topology, read.scenario.topology);
  put(network_, keys->network, read.scenario.network);
  put(parallel_, keys->parallel, read.scenario.parallel);
  put(training_, keys->training, read.scenario.training);
  put(top_, keys->top, std::pair(read.name, read.inputs));
}

}  // namespace podsim::config
