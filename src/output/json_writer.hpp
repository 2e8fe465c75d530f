#pragma once

#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace podsim::output {

/// Integer types JsonWriter::value writes as JSON integers (bool is written as true/false).
template <typename T>
concept JsonInteger = std::integral<T> && !std::same_as<T, bool>;

/// Builds one JSON document (RFC 8259) into a string, for the commands' --json output and
/// the Chrome trace. A streaming writer rather than nlohmann-json's document model: for a
/// 389,000-event trace (GPT-3 175B on 1024 v4 chips) building an nlohmann::json and dumping
/// it took 3.6–3.8 s and 402 MB against 0.79–0.80 s and 62 MB here (2026-12-02, -O2, one
/// core). nlohmann-json parses this writer's output in the tests (output_test) instead.
///
///
///   JsonWriter j;
///   j.begin_object();
///   j.key("results");
///   j.begin_array();
///   j.value(1.5);
///   j.end_array();
///   j.end_object();
///   std::string s = j.str();  // {"results":[1.5]}
///
/// Misuse (a key outside an object, a value where a key is due, an unbalanced or
/// mismatched end, a second top-level value, str() on an unfinished document) throws
/// SimulationError instead of producing invalid JSON.
class JsonWriter {
 public:
  /// `indent` > 0 pretty-prints with that many spaces per level; 0 is compact.
  explicit JsonWriter(int indent = 0) : indent_(indent) {}

  void begin_object();
  void end_object();
  void begin_array();
  void end_array();
  /// The name of the next member of the enclosing object.
  void key(std::string_view name);

  /// Shortest text that reads back as the same double ("0.1", "1e-300", "2.0");
  /// NaN and infinities become null (JSON has no such numbers).
  void value(double v);
  /// Integers exactly, as JSON integers.
  template <JsonInteger T>
  void value(T v) {
    if constexpr (std::is_signed_v<T>) {
      write_int(static_cast<std::int64_t>(v));
    } else {
      write_uint(static_cast<std::uint64_t>(v));
    }
  }
  void value(bool v);
  /// A string, escaped; UTF-8 passes through, invalid UTF-8 bytes become U+FFFD.
  void value(std::string_view v);
  void value(const char* v) { value(std::string_view(v)); }
  void value(const std::string& v) { value(std::string_view(v)); }
  /// JSON null.
  void null();

  /// key(name) then value(v).
  template <typename T>
  void member(std::string_view name, const T& v) {
    key(name);
    value(v);
  }

  /// The finished document. Throws SimulationError if it is incomplete.
  const std::string& str() const;

 private:
  struct Level {
    bool object = false;
    bool empty = true;
  };

  void before_value();  // checks a value may come here; writes the separator
  void end(bool object);
  void write_int(std::int64_t v);
  void write_uint(std::uint64_t v);
  void newline();

  int indent_ = 0;
  std::string out_;
  std::vector<Level> levels_;
  bool key_pending_ = false;  // key() written, its value not yet
  bool done_ = false;         // the top-level value is complete
};

/// `text` as a quoted JSON string: " \ and control characters escaped, UTF-8 kept,
/// invalid UTF-8 bytes replaced by \ufffd.
std::string json_quote(std::string_view text);

}  // namespace podsim::output
