#pragma once

#include <span>
#include <string>
#include <string_view>

namespace podsim {

/// Levenshtein edit distance between two strings (bytes).
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate closest to `word` if it is close enough to be a plausible typo
/// (edit distance at most a third of the word, at least 1), else an empty string.
std::string closest_match(std::string_view word, std::span<const std::string> candidates);

/// " (did you mean \"x\"?)" or "" — ready to append to an error message.
std::string did_you_mean(std::string_view word, std::span<const std::string> candidates);

/// Appends `item` to `out`, preceded by `separator` unless `out` is empty.
void append_joined(std::string& out, std::string_view separator, std::string_view item);

/// "a, b or c" for error messages that list the valid values.
std::string join_choices(std::span<const std::string> choices);

}  // namespace podsim
