#include "config/overrides.hpp"

#include "util/error.hpp"

namespace podsim::config {

std::vector<Override> parse_overrides(const std::vector<std::string>& assignments) {
  std::vector<Override> out;
  for (const std::string& a : assignments) {
    const std::string text = "--set " + a;
    const auto eq = a.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw InputError(text + ": expected key.path=value, e.g. --set link.bandwidth=\"50 GB/s\"");
    }
    std::string path = a.substr(0, eq);
    for (std::size_t i = 0; i < path.size(); ++i) {
      const char c = path[i];
      const bool ok = std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' ||
                      (c == '.' && i > 0 && i + 1 < path.size() && path[i - 1] != '.');
      if (!ok) throw InputError(text + ": \"" + path + "\" is not a key path like link.bandwidth");
    }
    std::string value = a.substr(eq + 1);
    // YAML reads an empty value as null, which would quietly mean "the default".
    if (value.find_first_not_of(" \t") == std::string::npos) {
      throw InputError(text + ": no value after \"=\"; write one, e.g. --set " + path + "=4 (or '\"\"' for empty text)");
    }
    out.push_back(Override{std::move(path), std::move(value), text, std::filesystem::path()});
  }
  return out;
}

}  // namespace podsim::config
