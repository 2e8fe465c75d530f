#include "output/json_writer.hpp"

#include <charconv>
#include <cmath>
#include <cstddef>

#include "util/error.hpp"

namespace podsim::output {

namespace {

[[noreturn]] void misuse(const std::string& what) {
  throw SimulationError("invalid JSON construction: " + what);
}

template <typename T>
void append_number(std::string& out, T v) {
  char buf[32];
  const auto result = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, result.ptr);
}

/// Length of the valid UTF-8 sequence starting at s[i], or 0 if it is not valid
/// (overlong forms, surrogates and code points above U+10FFFF are invalid).
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b0 = byte(i);
  std::size_t n = 0;
  unsigned char lo = 0x80;
  unsigned char hi = 0xBF;  // allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size() || byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return n;
}

}  // namespace

std::string json_quote(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      const std::size_t n = utf8_length(text, i);
      if (n == 0) {
        out += "\\ufffd";
        ++i;
      } else {
        out.append(text.substr(i, n));
        i += n;
      }
      continue;
    }
    // The two-character escapes JSON has, then \u00XX for the other control characters.
    static constexpr std::string_view kShort = "\"\\\b\f\n\r\t";
    static constexpr std::string_view kShortLetter = "\"\\bfnrt";
    if (const auto k = kShort.find(static_cast<char>(c)); k != std::string_view::npos) {
      out += '\\';
      out += kShortLetter[k];
    } else if (c < 0x20) {
      out += "\\u00";
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    } else {
      out += static_cast<char>(c);
    }
    ++i;
  }
  out += '"';
  return out;
}

void JsonWriter::newline() {
  if (indent_ <= 0) return;
  out_ += '\n';
  out_.append(levels_.size() * static_cast<std::size_t>(indent_), ' ');
}

void JsonWriter::before_value() {
  if (done_) misuse("a second top-level value");
  if (levels_.empty()) return;
  Level& level = levels_.back();
  if (level.object) {
    if (!key_pending_) misuse("a value inside an object without a key");
    key_pending_ = false;
    return;
  }
  if (!level.empty) out_ += ',';
  level.empty = false;
  newline();
}

void JsonWriter::key(std::string_view name) {
  if (levels_.empty() || !levels_.back().object)
    misuse("key \"" + std::string(name) + "\" outside an object");
  if (key_pending_) misuse("key \"" + std::string(name) + "\" where a value is due");
  Level& level = levels_.back();
  if (!level.empty) out_ += ',';
  level.empty = false;
  newline();
  out_ += json_quote(name);
  out_ += indent_ > 0 ? ": " : ":";
  key_pending_ = true;
}

void JsonWriter::begin_object() {
  before_value();
  out_ += '{';
  levels_.push_back({.object = true});
}

void JsonWriter::begin_array() {
  before_value();
  out_ += '[';
  levels_.push_back({.object = false});
}

void JsonWriter::end_object() { end(true); }
void JsonWriter::end_array() { end(false); }

void JsonWriter::end(bool object) {
  const char* name = object ? "end_object" : "end_array";
  if (levels_.empty()) misuse(std::string(name) + " with nothing open");
  if (levels_.back().object != object) {
    misuse(std::string(name) + " inside an " + (object ? "array" : "object"));
  }
  if (key_pending_) misuse(std::string(name) + " after a key without a value");
  const bool empty = levels_.back().empty;
  levels_.pop_back();
  if (!empty) newline();
  out_ += object ? '}' : ']';
  done_ = levels_.empty();
}

void JsonWriter::value(double v) {
  if (!std::isfinite(v)) {
    null();
    return;
  }
  before_value();
  const std::size_t start = out_.size();
  append_number(out_, v);
  // "2" would read back as an integer in typed readers; keep doubles recognisable.
  if (out_.find_first_of(".e", start) == std::string::npos) out_ += ".0";
  done_ = levels_.empty();
}

void JsonWriter::write_int(std::int64_t v) {
  before_value();
  append_number(out_, v);
  done_ = levels_.empty();
}

void JsonWriter::write_uint(std::uint64_t v) {
  before_value();
  append_number(out_, v);
  done_ = levels_.empty();
}

void JsonWriter::value(bool v) {
  before_value();
  out_ += v ? "true" : "false";
  done_ = levels_.empty();
}

void JsonWriter::value(std::string_view v) {
  before_value();
  out_ += json_quote(v);
  done_ = levels_.empty();
}

void JsonWriter::null() {
  before_value();
  out_ += "null";
  done_ = levels_.empty();
}

const std::string& JsonWriter::str() const {
  if (!done_) {
    misuse(levels_.empty() ? "str() before any value"
                           : "str() with " + std::to_string(levels_.size()) + " level(s) open");
  }
  return out_;
}

}  // namespace podsim::output
