#pragma once
// Whether two YAML documents are the same to podsim: the same tree (kinds, tags, scalars, keys
// in order) and every node at the same line and column (what error messages show). Shared by
// the yaml_comments unit test and fuzz target.

#include <string>

#include <yaml-cpp/yaml.h>

namespace podsim::test {

/// "" when `a` and `b` are the same; else where they first differ.
inline std::string yaml_difference(const YAML::Node& a, const YAML::Node& b, const std::string& at = "") {
  const std::string here = at.empty() ? "(root)" : at;
  if (a.Type() != b.Type()) return here + ": kind";
  if (a.Tag() != b.Tag()) return here + ": tag";
  if (a.Mark().line != b.Mark().line || a.Mark().column != b.Mark().column) return here + ": position";
  if (a.IsScalar()) return a.Scalar() == b.Scalar() ? "" : here + ": value \"" + a.Scalar() + "\" vs \"" + b.Scalar() + "\"";
  if (a.size() != b.size()) return here + ": size";
  auto i = a.begin();
  auto j = b.begin();
  for (std::size_t k = 0; i != a.end(); ++i, ++j, ++k) {
    const std::string child = at + "[" + std::to_string(k) + "]";
    if (a.IsMap()) {
      if (const auto d = yaml_difference(i->first, j->first, child + ".key"); !d.empty()) return d;
      if (const auto d = yaml_difference(i->second, j->second, child); !d.empty()) return d;
    } else if (const auto d = yaml_difference(*i, *j, child); !d.empty()) {
      return d;
    }
  }
  return "";
}

}  // namespace podsim::test
