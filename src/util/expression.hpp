#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>
#include <string>
#include <string_view>

namespace podsim {

/// Integer arithmetic over named variables: + − * / ( ) and whole numbers, as in a sweep's
/// `derive: { parallelism.dp: "chips / (tp * pp)" }`.
///
/// Division must be exact (a layout with a fractional dp is not a layout): evaluate()
/// returns std::nullopt for an inexact or by-zero division, and the reason in `why`.
/// Syntax errors and unknown variables throw InputError naming the position.
class Expression {
 public:
  /// Parses `text`; throws InputError ("at character 7: expected a number or a name").
  explicit Expression(std::string text);

  /// Value with `vars`; throws InputError for a name not in `vars`.
  std::optional<std::int64_t> evaluate(const std::map<std::string, std::int64_t>& vars, std::string* why) const;

  /// The names it uses.
  const std::vector<std::string>& names() const { return names_; }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  std::vector<std::string> names_;
};

}  // namespace podsim
