#include "config/source_map.hpp"

namespace podsim::config {

namespace {
/// True if `prefix` is `path` or one of its ancestors at a '.' boundary.
bool is_prefix(const std::string& prefix, const std::string& path) {
  if (prefix.empty()) return true;
  if (path.size() < prefix.size() || path.compare(0, prefix.size(), prefix) != 0) return false;
  return path.size() == prefix.size() || path[prefix.size()] == '.' || path[prefix.size()] == '[';
}
}  // namespace

bool SourceMap::is_default(const std::string& path) const {
  for (const auto& d : defaults_) {
    if (is_prefix(d, path)) return true;
  }
  return false;
}

std::string join_path(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

void SourceMap::add_file(std::string path, std::string file) {
  origins_.push_back(Origin{std::move(path), std::move(file), true});
}

void SourceMap::add_flag(std::string path, std::string flag_text) {
  origins_.push_back(Origin{std::move(path), std::move(flag_text), false});
}

std::string SourceMap::locate(const std::string& key_path, const YAML::Mark& mark) const {
  const Origin* best = nullptr;
  for (const Origin& o : origins_) {
    // Later registrations win on equal length: an override replaces what a file said.
    if (is_prefix(o.path, key_path) && (best == nullptr || o.path.size() >= best->path.size())) {
      best = &o;
    }
  }
  if (best == nullptr) return "<input>";
  if (!best->is_file) return best->where;
  if (mark.is_null()) {
    // A node without a position was created by an override below it (--set a.b=1 makes `a`):
    // that flag is where the problem came from.
    for (const Origin& o : origins_) {
      if (!o.is_file && is_prefix(key_path, o.path)) return o.where;
    }
    return best->where;
  }
  return best->where + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

std::string locate_path(const YAML::Node& root, const std::string& key_path, const SourceMap& sources) {
  YAML::Node at;
  at.reset(root);
  YAML::Mark mark = root.Mark();
  std::size_t begin = 0;
  while (begin <= key_path.size() && !key_path.empty()) {
    const std::size_t dot = key_path.find('.', begin);
    const std::string key = key_path.substr(begin, dot == std::string::npos ? std::string::npos : dot - begin);
    const std::string walked = key_path.substr(0, dot);
    if (!at.IsMap()) break;
    const YAML::Node& here = at;
    const YAML::Node next = here[key];
    // A default podsim filled in has no position: report its nearest written ancestor.
    if (!next.IsDefined() || sources.is_default(walked)) break;
    mark = next.Mark();
    at.reset(next);
    if (dot == std::string::npos) break;
    begin = dot + 1;
  }
  return sources.locate(key_path, mark);
}

}  // namespace podsim::config
