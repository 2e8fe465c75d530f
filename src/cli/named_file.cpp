#include "cli/named_file.hpp"

#include <algorithm>
#include <vector>

#include "util/error.hpp"
#include "util/input_file.hpp"
#include "util/suggest.hpp"

namespace podsim::cli {

namespace fs = std::filesystem;

fs::path resolve_named_file(const std::string& flag, const std::string& value, const fs::path& dir) {
  std::error_code unreadable;
  if (fs::exists(fs::symlink_status(value, unreadable))) {
    (void)check_input_file(value, flag + " " + value);  // a device, FIFO, directory or loop says so
    return value;
  }
  const fs::path named = dir / (value + ".yaml");
  if (fs::is_regular_file(named)) return named;
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  throw InputError(flag + " " + value + ": no such file, nor a file " + value + ".yaml in " + dir.string() +
                   did_you_mean(value, names) + (names.empty() ? "" : "; known names are " + join_choices(names)));
}

fs::path repository_root(const std::string& root) { return root.empty() ? fs::path(PODSIM_SOURCE_DIR) : fs::path(root); }

}  // namespace podsim::cli
