#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace podsim {

/// Appends plain values to a byte vector (to send results between processes).
class ByteWriter {
 public:
  void u64(std::uint64_t v) { raw(&v, sizeof v); }
  void f64(double v) { raw(&v, sizeof v); }
  void text(const std::string& s) {
    u64(s.size());
    raw(s.data(), s.size());
  }
  void append(const std::vector<char>& more) { bytes_.insert(bytes_.end(), more.begin(), more.end()); }
  /// `more` after its length: read back whole by ByteReader::block().
  void block(const std::vector<char>& more) {
    u64(more.size());
    append(more);
  }
  std::vector<char> take() { return std::move(bytes_); }

 private:
  void raw(const void* p, std::size_t n) {
    const auto* c = static_cast<const char*>(p);
    bytes_.insert(bytes_.end(), c, c + n);
  }
  std::vector<char> bytes_;
};

/// Reads back what a ByteWriter wrote, in the same order.
class ByteReader {
 public:
  explicit ByteReader(const std::vector<char>& bytes) : bytes_(bytes) {}
  std::uint64_t u64() { return value<std::uint64_t>(); }
  double f64() { return value<double>(); }
  /// Everything not read yet.
  std::vector<char> rest() {
    std::vector<char> out(bytes_.size() - at_);
    if (!out.empty()) std::memcpy(out.data(), bytes_.data() + at_, out.size());
    at_ = bytes_.size();
    return out;
  }
  /// What ByteWriter::block() wrote.
  std::vector<char> block() {
    const std::uint64_t n = u64();
    need(n);
    std::vector<char> out(bytes_.begin() + static_cast<std::ptrdiff_t>(at_),
                          bytes_.begin() + static_cast<std::ptrdiff_t>(at_ + n));
    at_ += n;
    return out;
  }
  std::string text() {
    const std::uint64_t n = u64();
    need(n);
    std::string s(bytes_.data() + at_, n);
    at_ += n;
    return s;
  }

 private:
  template <typename T>
  T value() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, bytes_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return v;
  }
  void need(std::uint64_t n) const {
    if (at_ + n > bytes_.size()) throw SimulationError("truncated message between processes");
  }
  const std::vector<char>& bytes_;
  std::size_t at_ = 0;
};

}  // namespace podsim
