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

std::optional<ParsedFiles::Sections::Keys> ParsedFiles::Sections::keys_of(const std::filesystem::path& file,
                                                                         const std::vector<Override>& overrides) {
  std::array<std::string, 6> own;  // per section: the file and its overrides, in order
  for (auto& o : own) o = file.string() + '\x1e';
  for (const Override& o : overrides) {
    const int s = section_of(o.path);
    if (s < 0) return std::nullopt;  // name, description, …: read whole
    // The directory matters where the value names a file (model: other.yaml).
    own[static_cast<std::size_t>(s)] += o.path + '\x1f' + o.value + '\x1f' + o.dir.string() + '\x1e';
  }
  Keys k;
  k.model = own[0];
  k.hardware = own[1];
  k.topology = own[2];
  k.network = own[3];
  // What read_composed hands each reader besides its own part of the document.
  k.parallel = own[4] + '\x1d' + k.topology;
  k.training = own[5] + '\x1d' + k.model + '\x1d' + k.hardware;
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
  auto keys = keys_of(file, overrides);
  if (!keys) return std::nullopt;
  Found f;
  f.keys = std::move(*keys);
  const Keys& k = f.keys;
  f.model = kept(model_, k.model);
  f.chip = kept(hardware_, k.hardware);
  f.topology = kept(topology_, k.topology);
  f.network = kept(network_, k.network);
  f.parallel = kept(parallel_, k.parallel);
  f.training = kept(training_, k.training);
  f.top = kept(top_, k.top);
  return f;
}

CachedReading ParsedFiles::Sections::assemble(Found& f) {
  CachedReading out;
  out.scenario = runtime::Scenario{std::move(*f.model),   std::move(*f.chip),     std::move(*f.topology),
                                   std::move(*f.network), std::move(*f.parallel), std::move(*f.training)};
  // As read_composed finishes: the chip runs the stack the training section names.
  out.scenario.chip.stack = workload::stack_profile(out.scenario.training.stack).family;
  out.name = std::move(f.top->first);
  out.inputs = std::move(f.top->second);
  ++hits_;
  return out;
}

void ParsedFiles::Sections::keep(const Found& found, const CachedReading& read) {
  const Keys& k = found.keys;
  put(model_, k.model, read.scenario.model);
  put(hardware_, k.hardware, read.scenario.chip);
  put(topology_, k.topology, read.scenario.topology);
  put(network_, k.network, read.scenario.network);
  put(parallel_, k.parallel, read.scenario.parallel);
  put(training_, k.training, read.scenario.training);
  put(top_, k.top, std::pair(read.name, read.inputs));
}

}  // namespace podsim::config
