// libFuzzer target: text podsim takes from files anyone could have written and shows or acts
// on — printable() (util/printable.hpp), which every line a person reads goes through, and
// parse_lock() (output/lock_file.hpp), which reads a lock file found beside an output.
//
// Checked for every input:
// - printable's output has no control character but newline and tab, no DEL, is valid UTF-8
//   without C1 controls or bidirectional overrides, and printable(printable(x)) ==
//   printable(x); text that needs no escaping comes back unchanged;
// - a lock file parse_lock accepts names a pid of digits and a temporary without '/', and
//   renders back to the same text.
// No exception is acceptable from either (neither throws on any input).

#include <cstddef>
#include <cstdint>
#include <string>

#include "output/lock_file.hpp"
#include "util/printable.hpp"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

/// True when `s` is valid UTF-8 (RFC 3629) with no C0 control but newline and tab, no DEL,
/// no C1 control and no bidirectional override or isolate.
bool shows_safely(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F) return false;
      ++i;
      continue;
    }
    std::size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
    if (n == 0 || c > 0xF4 || i + n > s.size()) return false;
    std::uint32_t cp = c & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
    for (std::size_t k = 1; k < n; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if ((b & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (b & 0x3F);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    if (cp <= 0x9F || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069)) return false;
    i += n;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string shown = podsim::printable(text);
  check(shows_safely(shown));
  check(podsim::printable(shown) == shown);
  if (shows_safely(text)) check(shown == text);

  if (const auto lock = podsim::output::parse_lock(text)) {
    check(!lock->pid.empty() && lock->pid.find_first_not_of("0123456789") == std::string::npos);
    check(lock->temporary.find('/') == std::string::npos);
    check(podsim::output::render_lock(*lock) == text || podsim::output::parse_lock(podsim::output::render_lock(*lock)));
  }
  return 0;
}
