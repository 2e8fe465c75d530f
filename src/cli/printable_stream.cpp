#include "cli/printable_stream.hpp"

#include "util/printable.hpp"

namespace podsim::cli {

PrintableStream::PrintableStream(std::ostream& stream)
    : stream_(stream), filter_(stream.rdbuf()), original_(stream.rdbuf(&filter_)) {}

PrintableStream::~PrintableStream() {
  stream_.flush();
  filter_.flush_all();
  stream_.rdbuf(original_);
}

void PrintableStream::Filter::emit_lines() {
  const std::size_t end = pending_.rfind('\n');
  if (end == std::string::npos) return;
  const std::string text = printable(std::string_view(pending_).substr(0, end + 1));
  target_->sputn(text.data(), static_cast<std::streamsize>(text.size()));
  pending_.erase(0, end + 1);
}

void PrintableStream::Filter::flush_all() {
  emit_lines();
  if (!pending_.empty()) {
    const std::string text = printable(pending_);
    target_->sputn(text.data(), static_cast<std::streamsize>(text.size()));
    pending_.clear();
  }
  target_->pubsync();
}

PrintableStream::Filter::int_type PrintableStream::Filter::overflow(int_type ch) {
  if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
  pending_ += traits_type::to_char_type(ch);
  if (pending_.back() == '\n') emit_lines();
  return ch;
}

std::streamsize PrintableStream::Filter::xsputn(const char* s, std::streamsize n) {
  pending_.append(s, static_cast<std::size_t>(n));
  emit_lines();
  return n;
}

int PrintableStream::Filter::sync() {
  // A flush (std::flush, std::endl) shows what was written so far, as a terminal would.
  flush_all();
  return 0;
}

}  // namespace podsim::cli
