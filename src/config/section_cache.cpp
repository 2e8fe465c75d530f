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

namespace {
template <typename Value>
std::optional<Value> kept(const std::map<std::string, Value>& in, const std::string& key) {
  const auto it = in.find(key);
  return it == in.end() ? std::nullopt : std::optional<Value>(it->second);
}
}  // namespace

std::optional<ParsedFiles::Sections::Found> ParsedFiles::Sections::lookup(const std::filesystem::path& file,
                                                                         const std::vector<Override>& overrides) const {
  const auto keys = keys_of(file, overrides);
  if (!keys) return std::nullopt;
  return Found{kept(model_, keys->model),     kept(hardware_, keys->hardware), kept(topology_, keys->topology),
               kept(network_, keys->network), kept(parallel_, keys->parallel), kept(training_, keys->training),
               kept(top_, keys->top)};
}

std::optional<CachedReading> ParsedFiles::Sections::assemble(const Found& f) {
  if (!f.model || !f.chip || !f.topology || !f.network || !f.parallel || !f.training || !f.top) return std::nullopt;
  CachedReading out;
  out.scenario = runtime::Scenario{*f.model, *f.chip, *f.topology, *f.network, *f.parallel, *f.training};
  // As read_composed finishes: the chip runs the stack the training section names.
  out.scenario.chip.stack = workload::stack_profile(out.scenario.training.stack).family;
  out.name = f.top->first;
  out.inputs = f.top->second;
  ++hits_;
  return out;
}

std::optional<CachedReading> ParsedFiles::Sections::find(const std::filesystem::path& file,
                                                         const std::vector<Override>& overrides) {
  const auto found = lookup(file, overrides);
  return found ? assemble(*found) : std::nullopt;
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
