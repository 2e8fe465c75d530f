#include "config/document.hpp"

#include <fstream>
#include <sstream>

#include "util/error.hpp"

namespace podsim::config {

std::string display_name(const std::filesystem::path& file) {
  std::error_code ec;
  const auto absolute = std::filesystem::absolute(file, ec);
  if (!ec) {
    const auto relative = absolute.lexically_normal().lexically_relative(std::filesystem::current_path(ec));
    if (!ec && !relative.empty() && relative.native().rfind("..", 0) != 0) return relative.string();
  }
  return file.lexically_normal().string();
}

YAML::Node load_yaml_file(const std::filesystem::path& file, const std::string& shown) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) throw InputError(shown + ": cannot open: no such file");
  if (std::filesystem::is_directory(file, ec)) {
    throw InputError(shown + ": cannot open: it is a directory");
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(shown + ": cannot open: permission denied or unreadable");
  std::stringstream buffer;
  buffer << in.rdbuf();
  try {
    YAML::Node root = YAML::Load(buffer.str());
    if (!root.IsDefined() || root.IsNull()) throw InputError(shown + ":1:1: the file is empty");
    return root;
  } catch (const YAML::Exception& e) {
    const std::string where = e.mark.is_null()
                                  ? shown
                                  : shown + ":" + std::to_string(e.mark.line + 1) + ":" +
                                        std::to_string(e.mark.column + 1);
    throw InputError(where + ": malformed YAML: " + e.msg);
  }
}

void apply_overrides(YAML::Node root, const std::vector<Override>& overrides, SourceMap& sources) {
  for (const Override& o : overrides) {
    YAML::Node value;
    try {
      value = YAML::Load(o.value);
    } catch (const YAML::Exception& e) {
      throw InputError(o.text + ": malformed YAML value: " + e.msg);
    }
    YAML::Node at = root;
    std::string walked;
    std::size_t begin = 0;
    while (true) {
      const std::size_t dot = o.path.find('.', begin);
      const std::string key = o.path.substr(begin, dot == std::string::npos ? std::string::npos : dot - begin);
      if (!at.IsMap() && !at.IsNull() && at.IsDefined()) {
        throw InputError(o.text + ": " + (walked.empty() ? std::string("the document") : walked) +
                         " is a single value, not a mapping of keys");
      }
      if (dot == std::string::npos) {
        at[key] = value;
        break;
      }
      YAML::Node next = at[key];
      if (!next.IsDefined() || next.IsNull()) {
        at[key] = YAML::Node(YAML::NodeType::Map);
        next = at[key];
      }
      at.reset(next);
      walked = join_path(walked, key);
      begin = dot + 1;
    }
    sources.add_flag(o.path, o.text);
  }
}

std::string dump(const YAML::Node& root) {
  YAML::Emitter out;
  out << root;
  return std::string(out.c_str()) + "\n";
}

std::filesystem::path include_file(YAML::Node parent, const std::string& parent_path, const std::string& key,
                                   const std::filesystem::path& dir, SourceMap& sources) {
  const YAML::Node& self = parent;
  const YAML::Node value = self[key];
  if (!value.IsDefined() || !value.IsScalar()) return dir;
  const std::string path = join_path(parent_path, key);
  const std::filesystem::path file = dir / value.Scalar();
  const std::string shown = display_name(file);
  YAML::Node loaded;
  try {
    loaded = load_yaml_file(file, shown);
  } catch (const InputError& e) {
    throw InputError(sources.locate(path, value.Mark()) + ": " + path + ": cannot include \"" + value.Scalar() +
                     "\": " + e.what());
  }
  parent[key] = loaded;
  sources.add_file(path, shown);
  return file.parent_path();
}

}  // namespace podsim::config
