#pragma once

// While a command prints text for a person, everything it writes to std::cout or std::cerr
// passes through printable() (util/printable.hpp), line by line: a scenario name, a table
// cell or a CSV row id that holds terminal escape codes or invalid UTF-8 cannot act on the
// terminal, whichever code path printed it. Machine-readable output (--json, --csv,
// --scenario) is left alone: it is escaped in its own format, or is the file's own data.

#include <ostream>
#include <streambuf>
#include <string>

namespace podsim::cli {

/// Routes `stream` through printable() for the guard's lifetime, then restores it.
class PrintableStream {
 public:
  explicit PrintableStream(std::ostream& stream);
  ~PrintableStream();
  PrintableStream(const PrintableStream&) = delete;
  PrintableStream& operator=(const PrintableStream&) = delete;

 private:
  /// Collects bytes and hands complete lines (a UTF-8 sequence never spans a newline) to
  /// the original buffer, made printable; the rest on flush.
  class Filter : public std::streambuf {
   public:
    explicit Filter(std::streambuf* target) : target_(target) {}
    void flush_all();

   protected:
    int_type overflow(int_type ch) override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;
    int sync() override;

   private:
    void emit_lines();
    std::streambuf* target_;
    std::string pending_;
  };

  std::ostream& stream_;
  Filter filter_;
  std::streambuf* original_;
};

}  // namespace podsim::cli
