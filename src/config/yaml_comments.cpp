#include "config/yaml_comments.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>

namespace podsim::config {

namespace {

bool blank(char c) { return c == ' ' || c == '\t'; }

/// Whether a quote at `at` of `line` may open a quoted scalar: a scalar starts after white
/// space, a flow indicator or ":" (JSON-like "a":"b"), or at the start of the line. Anywhere
/// else (it's, a'b) the quote is part of a plain scalar. Taking a quote for an opening one
/// when it is not only keeps comments as they are.
bool opens_scalar(std::string_view line, std::size_t at) {
  if (at == 0) return true;
  const char before = line[at - 1];
  return blank(before) || before == '[' || before == ']' || before == '{' || before == '}' || before == ',' ||
         before == ':';
}

/// What a quote at `at` of `line` is, outside any quoted scalar.
enum class QuoteRole { kOpens, kContent, kUnsure };

/// A quote right after a character that is not a blank (it's, a'b) is content; one at the start,
/// after a flow indicator or ":" opens a scalar. After blanks it opens one only where a token
/// starts (the blanks follow nothing, a flow indicator, ":", or a lone "-" or "?"); after the
/// content of a plain scalar (`true  'x`) yaml-cpp takes it for more of that scalar. A quote
/// wrongly taken for an opening one can seem to close and let a "#" inside the real scalar pass
/// for a comment, so what is neither is unsure: the scan stops.
QuoteRole quote_role(std::string_view line, std::size_t at) {
  if (at == 0) return QuoteRole::kOpens;
  if (!blank(line[at - 1])) {
    // Right after ":", "," or a closing bracket a quote opens a scalar only where that
    // character is an indicator (in a flow collection, or ":" after a quoted key: "a":"b"); in
    // a block (`k:"x`, `a,'b`) it is more of a plain scalar, whose later quotes may open one
    // that holds a "#" on the next line (fuzz findings, 2026-12-08). A line scan cannot tell.
    const char before = line[at - 1];
    if (before == '[' || before == '{') return QuoteRole::kOpens;
    if (before == ':' || before == ',' || before == ']' || before == '}') return QuoteRole::kUnsure;
    return QuoteRole::kContent;
  }
  std::size_t p = at;
  while (p > 0 && blank(line[p - 1])) --p;
  if (p == 0) return QuoteRole::kOpens;
  const char prev = line[p - 1];
  if (prev == '[' || prev == '{' || prev == ',' || prev == ':') return QuoteRole::kOpens;
  if ((prev == '-' || prev == '?') && (p == 1 || blank(line[p - 2]))) return QuoteRole::kOpens;
  return QuoteRole::kUnsure;
}

/// Whether a token may start at `at`: where a quoted scalar may, or after "-" (taking too
/// many positions for token starts only leaves more text as it is).
bool token_start(std::string_view line, std::size_t at) {
  return opens_scalar(line, at) || line[at - 1] == '-';
}

/// Whether `line` from `at` (just after a "|" or ">") holds only block-scalar header
/// indicators (chomping "+"/"-", an indentation digit), then blanks or a comment.
bool block_header_rest(std::string_view line, std::size_t at) {
  while (at < line.size() && (line[at] == '+' || line[at] == '-' || (line[at] >= '1' && line[at] <= '9'))) ++at;
  while (at < line.size() && blank(line[at])) ++at;
  return at == line.size() || line[at] == '#';
}

enum class Quote { kNone, kSingle, kDouble };

/// Whether `text` is well-formed UTF-8 without NUL and without the characters YAML 1.1 takes
/// for line breaks besides "\n" (NEL U+0085, U+2028, U+2029). yaml-cpp decodes a malformed
/// sequence by swallowing the bytes after it, which can hide a "#" or a line break from it.
bool plain_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == 0) return false;
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t n = 0;
    std::uint32_t code = 0;
    if (c >= 0xC2 && c <= 0xDF) {
      n = 1;
      code = c & 0x1Fu;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 2;
      code = c & 0x0Fu;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 3;
      code = c & 0x07u;
    } else {
      return false;
    }
    if (i + n >= text.size()) return false;  // cut short by the end
    for (std::size_t k = 1; k <= n; ++k) {
      const auto b = static_cast<unsigned char>(text[i + k]);
      if ((b & 0xC0u) != 0x80u) return false;
      code = (code << 6) | (b & 0x3Fu);
    }
    const std::uint32_t least[4] = {0, 0x80, 0x800, 0x10000};
    if (code < least[n] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return false;
    if (code == 0x85 || code == 0x2028 || code == 0x2029) return false;
    i += n + 1;
  }
  return true;
}

/// One line as far as comments go.
struct LineScan {
  std::size_t first = 0;                        ///< first character that is not a blank
  bool tab_indent = false;                      ///< a tab before it
  std::size_t comment = std::string_view::npos;  ///< where a comment starts
  bool unsure = false;       ///< a block scalar starts, or a quoted scalar runs past the line
  int flow_change = 0;       ///< [ and { opened minus ] and } closed, outside quotes and comment
  bool ends_closed = false;  ///< its content ends with ":", "[", "{" or ",": no plain scalar open
  bool block_entry = false;  ///< starts with a plain key and ":" or with "- " (block context)
};

/// Whether `line` from `at` is a plain key ([A-Za-z0-9_./-]+) then ":" and a blank or the end.
bool plain_key_at(std::string_view line, std::size_t at) {
  std::size_t i = at;
  while (i < line.size() && (std::isalnum(static_cast<unsigned char>(line[i])) != 0 || line[i] == '_' ||
                             line[i] == '.' || line[i] == '/' || line[i] == '-')) {
    ++i;
  }
  return i > at && i < line.size() && line[i] == ':' && (i + 1 == line.size() || blank(line[i + 1]));
}

LineScan scan_line(std::string_view line) {
  LineScan s;
  while (s.first < line.size() && blank(line[s.first])) {
    if (line[s.first] == '\t') s.tab_indent = true;
    ++s.first;
  }
  // "- " entries, then a plain key: the line is an entry of a block collection at `first`.
  std::size_t key = s.first;
  while (key + 1 < line.size() && line[key] == '-' && blank(line[key + 1])) key += 2;
  s.block_entry = key > s.first || plain_key_at(line, key);
  Quote quote = Quote::kNone;
  std::size_t closed = std::string_view::npos;  // where the last quoted scalar closed
  char last = 0;  // the content's last character that is not a blank
  for (std::size_t i = s.first; i < line.size() && s.comment == std::string_view::npos && !s.unsure; ++i) {
    const char c = line[i];
    if (quote == Quote::kSingle) {
      if (c == '\'') {
        if (i + 1 < line.size() && line[i + 1] == '\'') {
          ++i;  // '' is a quote inside the scalar
        } else {
          quote = Quote::kNone;
          closed = i;
        }
      }
    } else if (quote == Quote::kDouble) {
      if (c == '\\') {
        ++i;  // an escape: the next character is content
      } else if (c == '"') {
        quote = Quote::kNone;
        closed = i;
      }
    } else if (c == '#' && (i == 0 || blank(line[i - 1]))) {
      s.comment = i;
      break;
    } else if ((c == '\'' || c == '"') && i > 0 && closed == i - 1) {
      // yaml-cpp also starts a token right after a quoted scalar's closing quote.
      quote = c == '\'' ? Quote::kSingle : Quote::kDouble;
    } else if ((c == '\'' || c == '"') && quote_role(line, i) != QuoteRole::kContent) {
      if (quote_role(line, i) == QuoteRole::kUnsure) {
        s.unsure = true;
      } else {
        quote = c == '\'' ? Quote::kSingle : Quote::kDouble;
      }
    } else if ((c == '|' || c == '>') && (i == 0 || blank(line[i - 1])) && block_header_rest(line, i + 1)) {
      s.unsure = true;  // a block scalar: its lines are content whatever they hold
    } else if ((c == '!' || c == '&' || c == '*' || c == '%') &&
               (token_start(line, i) || (i > 0 && closed == i - 1))) {
      // A tag, anchor, alias or directive: yaml-cpp reads their ends leniently (a quote right
      // after a tag opens a scalar), which this scan does not follow. yaml-cpp starts one
      // right after a quoted scalar's closing quote too (`""!"` opens a scalar at its last
      // quote, which can run over the next lines and hold their "#").
      s.unsure = true;
    } else if (c == '[' || c == '{') {
      ++s.flow_change;
    } else if (c == ']' || c == '}') {
      --s.flow_change;
    }
    if (!blank(c)) last = c;
  }
  if (quote != Quote::kNone && s.comment == std::string_view::npos) s.unsure = true;
  s.ends_closed = quote == Quote::kNone && (last == ':' || last == '[' || last == '{' || last == ',');
  return s;
}

}  // namespace

std::string shorten_comments(std::string_view text) {
  // Anything but plain UTF-8 (UTF-16 or UTF-32, which yaml-cpp converts; malformed bytes) is
  // left alone.
  if (!plain_utf8(text)) return std::string(text);
  std::string out;
  out.reserve(text.size());
  // What the lines so far leave open. yaml-cpp continues a plain scalar onto the next line
  // (and takes a "#" line there for content) when that line is indented beyond the block
  // collection holding the scalar; in a flow collection, whatever its indentation.
  int flow = 0;              // [ and { not yet closed
  bool plain_open = false;   // the last content line may end inside a plain scalar
  int plain_indent = -1;     // ... whose collection is indented at least this much (-1: unknown)
  std::size_t begin = 0;
  while (begin < text.size()) {
    // yaml-cpp breaks lines at "\n" and "\r\n" only: a lone "\r" is an ordinary character.
    std::size_t next = text.find('\n', begin);
    next = next == std::string_view::npos ? text.size() : next + 1;
    std::size_t end = next;
    if (end > begin && text[end - 1] == '\n') --end;
    if (end > begin && text[end - 1] == '\r' && end < text.size()) --end;
    const std::string_view line = text.substr(begin, end - begin);
    const LineScan scan = scan_line(line);
    if (scan.unsure) {
      out.append(text.substr(begin));  // from here on, leave the text as it is
      return out;
    }
    std::size_t keep = line.size();
    if (next == end) {
      // The last line, without a line break: the end of the text, where yaml-cpp places an
      // empty value ("key:" at the end), is the end of its comment. It stays as it is.
    } else if (scan.comment == scan.first) {
      // A comment line, unless it continues a plain scalar (or sits in a flow collection).
      const bool not_continued = !scan.tab_indent && static_cast<int>(scan.first) <= plain_indent;
      const bool comment = flow == 0 && (!plain_open || not_continued);
      if (comment) {
        keep = scan.comment + 1;
        plain_open = false;
      }
    } else if (scan.first < line.size()) {
      const bool in_block = flow == 0;
      flow = std::max(0, flow + scan.flow_change);
      if (scan.comment != std::string_view::npos) {
        keep = scan.comment + 1;  // " #" ends a plain scalar, in a block or a flow
        plain_open = false;
      } else if (scan.ends_closed) {
        plain_open = false;
      } else {
        const int indent = in_block && scan.block_entry ? static_cast<int>(scan.first) : -1;
        plain_indent = plain_open ? std::min(plain_indent, indent) : indent;
        plain_open = true;
      }
    }
    out.append(line.substr(0, keep));
    out.append(text.substr(end, next - end));  // the line break as it was
    begin = next;
  }
  return out;
}

}  // namespace podsim::config
