// libFuzzer target: config::shorten_comments must not change what yaml-cpp reads. For any
// input, yaml-cpp either reads the text and its shortened form as the same document (kinds,
// tags, scalars, keys, and every node's line and column: tests/unit/yaml_same.hpp), or fails
// on both with the same message (which names line and column).
//
// Acceptable: nothing but agreement. A difference aborts (a finding).

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "../unit/yaml_same.hpp"
#include "config/yaml_comments.hpp"

namespace {

/// The document, or the message yaml-cpp fails with.
struct Read {
  std::optional<YAML::Node> node;
  std::string error;
};

Read read(const std::string& text) {
  Read r;
  try {
    r.node = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    r.error = e.what();
  }
  return r;
}

[[noreturn]] void differ(const std::string& what) {
  std::fprintf(stderr, "yaml_comments: the shortened text reads differently: %s\n", what.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const Read a = read(text);
  const Read b = read(podsim::config::shorten_comments(text));
  if (a.node.has_value() != b.node.has_value()) differ(a.node ? "only the original parses: " + b.error
                                                               : "only the shortened parses: " + a.error);
  if (!a.node) {
    if (a.error != b.error) differ("\"" + a.error + "\" vs \"" + b.error + "\"");
    return 0;
  }
  if (const std::string d = podsim::test::yaml_difference(*a.node, *b.node); !d.empty()) differ(d);
  return 0;
}
