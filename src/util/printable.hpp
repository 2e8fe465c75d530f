#pragma once

// Text from files a user names (scenario names, table cells of a result file, row ids of a
// CSV) reaches the terminal. A byte sequence such as ESC [ 2 J would clear it, and invalid
// UTF-8 garbles the columns of a table: what podsim prints goes through printable() first.

#include <string>
#include <string_view>

namespace podsim {

/// `text` with everything a terminal would act on or render wrongly made visible:
/// - control characters other than newline and tab (C0, DEL) as \xNN;
/// - C1 controls (U+0080–U+009F) and the bidirectional overrides and isolates (U+202A–U+202E,
///   U+2066–U+2069, which reorder what a reader sees) as \uNNNN;
/// - bytes that are not valid UTF-8 (stray continuation bytes, truncated or overlong
///   sequences, surrogates, beyond U+10FFFF) as \xNN, one per byte.
/// Valid printable UTF-8 is returned unchanged, so for ordinary text printable(s) == s.
std::string printable(std::string_view text);

}  // namespace podsim
