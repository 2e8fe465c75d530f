#include "util/printable.hpp"

#include <cstdint>
#include <cstdio>

namespace podsim {

namespace {

void append_byte(std::string& out, unsigned char byte) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", byte);
  out += buf;
}

void append_code_point(std::string& out, std::uint32_t cp) {
  char buf[12];
  std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
  out += buf;
}

/// Length of the valid UTF-8 sequence starting at `text[at]` and its code point; 0 when the
/// bytes there are not one (RFC 3629: shortest form, no surrogates, at most U+10FFFF).
std::size_t decode(std::string_view text, std::size_t at, std::uint32_t& cp) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[at + i]); };
  const unsigned char lead = byte(0);
  std::size_t length = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    cp = lead & 0x1Fu;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    cp = lead & 0x0Fu;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    cp = lead & 0x07u;
  } else {
    return 0;
  }
  if (at + length > text.size()) return 0;
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i) & 0x3Fu);
  }
  const bool overlong = (length == 3 && cp < 0x800) || (length == 4 && cp < 0x10000);
  const bool surrogate = cp >= 0xD800 && cp <= 0xDFFF;
  if (overlong || surrogate || cp > 0x10FFFF) return 0;
  return length;
}

bool hidden_control(std::uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

}  // namespace

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t at = 0; at < text.size();) {
    const auto c = static_cast<unsigned char>(text[at]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F) {
        append_byte(out, c);
      } else {
        out += static_cast<char>(c);
      }
      ++at;
      continue;
    }
    std::uint32_t cp = 0;
    const std::size_t length = decode(text, at, cp);
    if (length == 0) {
      append_byte(out, c);
      ++at;
    } else {
      if (hidden_control(cp)) {
        append_code_point(out, cp);
      } else {
        out.append(text.substr(at, length));
      }
      at += length;
    }
  }
  return out;
}

}  // namespace podsim
