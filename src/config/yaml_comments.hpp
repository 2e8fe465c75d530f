#pragma once

// Internal to config: YAML text with its comments cut short before yaml-cpp parses it.

#include <string>
#include <string_view>

namespace podsim::config {

/// `text` with every comment it can prove is one reduced to its "#": the comment still stands
/// where it stood, every line keeps its number and everything before a "#" its column, so
/// yaml-cpp reads the same document with the same marks (line and column in messages), only
/// faster — its scanner costs the same per character of comment as of content, and podsim's
/// configuration files are mostly comment (a sweep parses them at every point).
///
/// A "#" counts as a comment when it starts a line's content or follows a space or tab,
/// outside a quoted scalar. Where the text could hold something this scan cannot follow —
/// a block scalar ("|" or ">"), a quoted scalar still open at the end of its line, a tag,
/// anchor, alias or directive (yaml-cpp reads where they end leniently) — the rest
/// of the text is left as it is; text that is not well-formed UTF-8 is left whole.
std::string shorten_comments(std::string_view text);

}  // namespace podsim::config
