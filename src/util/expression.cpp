#include "util/expression.hpp"

#include <cctype>

#include "util/error.hpp"
#include "util/suggest.hpp"

namespace podsim {

namespace {

/// Recursive descent over the text; evaluates as it parses (or only checks syntax when
/// `vars` is null).
class Parser {
 public:
  Parser(const std::string& text, const std::map<std::string, std::int64_t>* vars, std::vector<std::string>* names)
      : text_(text), vars_(vars), names_(names) {}

  std::optional<std::int64_t> parse(std::string* why) {
    why_ = why;
    auto v = sum();
    skip_spaces();
    if (pos_ != text_.size()) fail("unexpected \"" + std::string(1, text_[pos_]) + "\"");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError("in \"" + text_ + "\" at character " + std::to_string(pos_ + 1) + ": " + what);
  }
  void skip_spaces() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])) != 0) ++pos_;
  }
  bool take(char c) {
    skip_spaces();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  /// a op b, or no value (and why) when it does not fit in 64 bits.
  std::optional<std::int64_t> checked(std::optional<std::int64_t> a, std::optional<std::int64_t> b, char op) {
    if (!a || !b) return std::nullopt;
    std::int64_t out = 0;
    const bool overflow = op == '+'   ? __builtin_add_overflow(*a, *b, &out)
                          : op == '-' ? __builtin_sub_overflow(*a, *b, &out)
                                      : __builtin_mul_overflow(*a, *b, &out);
    if (!overflow) return out;
    if (why_ != nullptr) *why_ = std::to_string(*a) + " " + op + " " + std::to_string(*b) + " is too large";
    return std::nullopt;
  }

  std::optional<std::int64_t> sum() {
    auto v = product();
    while (true) {
      if (take('+')) {
        v = checked(v, product(), '+');
      } else if (take('-')) {
        v = checked(v, product(), '-');
      } else {
        return v;
      }
    }
  }

  std::optional<std::int64_t> product() {
    auto v = factor();
    while (true) {
      if (take('*')) {
        v = checked(v, factor(), '*');
      } else if (take('/')) {
        const auto r = factor();
        if (!v || !r) {
          v = std::nullopt;
        } else if (*r == 0) {
          if (why_ != nullptr) *why_ = "division by zero";
          v = std::nullopt;
        } else if (*r == -1) {
          v = checked(0, v, '-');
        } else if (*v % *r != 0) {
          if (why_ != nullptr) *why_ = std::to_string(*v) + " / " + std::to_string(*r) + " is not a whole number";
          v = std::nullopt;
        } else {
          v = *v / *r;
        }
      } else {
        return v;
      }
    }
  }

  std::optional<std::int64_t> factor() {
    skip_spaces();
    // Parentheses and unary minus recurse: a bound keeps a hostile text from the stack's end.
    if (++depth_ > kMaxDepth) fail("nested more than " + std::to_string(kMaxDepth) + " deep");
    struct Leave {
      int& depth;
      ~Leave() { --depth; }
    } leave{depth_};
    if (take('(')) {
      auto v = sum();
      if (!take(')')) fail("expected \")\"");
      return v;
    }
    if (take('-')) return checked(0, factor(), '-');
    if (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_])) != 0) {
      std::int64_t v = 0;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_])) != 0) {
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, text_[pos_++] - '0', &v)) {
          fail("number too large");
        }
      }
      return v;
    }
    if (pos_ < text_.size() && (std::isalpha(static_cast<unsigned char>(text_[pos_])) != 0 || text_[pos_] == '_')) {
      const std::size_t start = pos_;
      while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) != 0 || text_[pos_] == '_')) {
        ++pos_;
      }
      const std::string name = text_.substr(start, pos_ - start);
      if (names_ != nullptr) names_->push_back(name);
      if (vars_ == nullptr) return 0;
      const auto it = vars_->find(name);
      if (it == vars_->end()) {
        std::vector<std::string> known;
        for (const auto& [k, value] : *vars_) known.push_back(k);
        pos_ = start;
        fail("unknown name \"" + name + "\"" + did_you_mean(name, known) + "; known names are " + join_choices(known));
      }
      return it->second;
    }
    fail("expected a number, a name or \"(\"");
  }

  const std::string& text_;
  const std::map<std::string, std::int64_t>* vars_;
  std::vector<std::string>* names_;
  static constexpr int kMaxDepth = 200;
  std::string* why_ = nullptr;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

Expression::Expression(std::string text) : text_(std::move(text)) {
  Parser(text_, nullptr, &names_).parse(nullptr);
}

std::optional<std::int64_t> Expression::evaluate(const std::map<std::string, std::int64_t>& vars, std::string* why) const {
  return Parser(text_, &vars, nullptr).parse(why);
}

}  // namespace podsim
