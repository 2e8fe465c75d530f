#include "config/reader.hpp"

#include <charconv>
#include <cstdio>
#include <set>

#include "util/error.hpp"
#include "util/suggest.hpp"
#include "util/units.hpp"

namespace podsim::config {

namespace {

std::string describe(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Null:
      return "nothing";
    case YAML::NodeType::Scalar:
      return "\"" + n.Scalar() + "\"";
    default:
      return "nothing";
  }
}

std::optional<std::int64_t> to_integer(const std::string& s) {
  std::int64_t v = 0;
  const char* first = s.data();
  const char* last = s.data() + s.size();
  if (first != last && *first == '+') ++first;
  const auto [ptr, ec] = std::from_chars(first, last, v);
  if (ec != std::errc() || ptr != last || first == last) return std::nullopt;
  return v;
}

}  // namespace

Reader::Reader(YAML::Node node, std::string path, SourceMap& sources)
    : node_(std::move(node)), path_(std::move(path)), sources_(&sources) {
  if (!node_.IsMap()) {
    throw InputError(sources_->locate(path_, node_.Mark()) + ": " +
                     (path_.empty() ? std::string("document") : path_) +
                     ": expected a mapping of keys, got " + describe(node_));
  }
}

void Reader::fail(const std::string& key, const std::string& message) const {
  const std::string key_path = key.empty() ? path_ : join_path(path_, key);
  const YAML::Node& self = node_;
  YAML::Mark mark = node_.Mark();
  // A defaulted value has no position of its own: point at the mapping that lacks it.
  if (!key.empty() && self[key].IsDefined() && !sources_->is_default(key_path)) mark = self[key].Mark();
  throw InputError(sources_->locate(key_path, mark) + ": " +
                   (key_path.empty() ? std::string("document") : key_path) + ": " + message);
}

void Reader::allow_only(std::initializer_list<const char*> allowed) const {
  const std::vector<std::string> names(allowed.begin(), allowed.end());
  std::set<std::string> seen;
  for (const auto& entry : node_) {
    if (!entry.first.IsScalar()) {
      throw InputError(sources_->locate(path_, entry.first.Mark()) + ": " + path_ +
                       ": keys must be plain words");
    }
    const std::string key = entry.first.Scalar();
    const std::string key_path = join_path(path_, key);
    if (!seen.insert(key).second) {
      throw InputError(sources_->locate(key_path, entry.first.Mark()) + ": " + key_path +
                       ": key given twice");
    }
    bool known = false;
    for (const auto& n : names) known = known || n == key;
    if (!known) {
      throw InputError(sources_->locate(key_path, entry.first.Mark()) + ": " + key_path +
                       ": unknown key" + did_you_mean(key, names) + "; valid keys are " +
                       join_choices(names));
    }
    // `micro_batch:` with nothing after it once read as "not given" and took the default
    // silently; an empty value is a mistake (as an empty --set value is).
    if (entry.second.IsNull()) {
      throw InputError(sources_->locate(key_path, entry.first.Mark()) + ": " + key_path +
                       ": has no value; give one, or leave the key out for its default");
    }
  }
}

bool Reader::has(const std::string& key) const {
  // yaml-cpp finds a key by comparing it with each of the mapping's in turn: looked up once
  // (a sweep fills the defaults at every point).
  const YAML::Node& self = node_;
  const YAML::Node there = self[key];
  return there.IsDefined() && !there.IsNull();
}

void Reader::set_default(const std::string& key, const std::string& yaml_value) {
  // Not appended with force_insert, which would skip the insert's own lookup: a key asked for
  // before (`root["network"]`) is in the mapping already, its value undefined.
  if (has(key)) return;
  // A word is stored as the plain scalar a file would hold, without parsing it (a one-word
  // document costs yaml-cpp as much as a line of a file); a flow mapping or sequence ("{}",
  // "[true, false]") is parsed.
  const bool flow = !yaml_value.empty() && (yaml_value.front() == '{' || yaml_value.front() == '[');
  node_[key] = flow ? YAML::Load(yaml_value) : YAML::Node(yaml_value);
  sources_->add_default(join_path(path_, key));
}

YAML::Node Reader::required(const std::string& key) const {
  const YAML::Node& self = node_;
  YAML::Node n = self[key];
  if (!n.IsDefined() || n.IsNull()) fail("", "missing required key \"" + key + "\"");
  return n;
}

YAML::Node Reader::node(const std::string& key) const { return required(key); }

std::string Reader::scalar(const std::string& key) const {
  const YAML::Node n = required(key);
  if (!n.IsScalar()) fail(key, "expected a single value, got " + describe(n));
  return n.Scalar();
}

std::string Reader::text(const std::string& key) const { return scalar(key); }

std::int64_t Reader::integer(const std::string& key, std::int64_t min, std::int64_t max) const {
  const std::string s = scalar(key);
  const auto v = to_integer(s);
  if (!v) fail(key, "expected a whole number, got \"" + s + "\"");
  if (*v < min || *v > max) {
    fail(key, "must be between " + std::to_string(min) + " and " + std::to_string(max) +
                  ", got " + s);
  }
  return *v;
}

double Reader::real(const std::string& key, double min, double max) const {
  const std::string s = scalar(key);
  double v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || s.empty()) fail(key, "expected a number, got \"" + s + "\"");
  if (!(v >= min && v <= max)) {
    char range[96];
    std::snprintf(range, sizeof range, "must be between %g and %g", min, max);
    fail(key, std::string(range) + ", got " + s);
  }
  return v;
}

bool Reader::boolean(const std::string& key) const {
  const std::string s = scalar(key);
  if (s == "true") return true;
  if (s == "false") return false;
  fail(key, "expected true or false, got \"" + s + "\"");
}

std::vector<std::int64_t> Reader::integer_list(const std::string& key, std::int64_t min,
                                               std::int64_t max) const {
  const YAML::Node n = required(key);
  if (!n.IsSequence() || n.size() == 0) {
    fail(key, "expected a list of whole numbers like [4, 4, 4], got " + describe(n));
  }
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < n.size(); ++i) {
    const std::string item_path = key + "[" + std::to_string(i) + "]";
    const YAML::Node item = n[i];
    const auto v = item.IsScalar() ? to_integer(item.Scalar()) : std::nullopt;
    if (!v) fail(key, "entry " + std::to_string(i + 1) + ": expected a whole number, got " + describe(item));
    if (*v < min || *v > max) {
      fail(key, "entry " + std::to_string(i + 1) + " must be between " + std::to_string(min) +
                    " and " + std::to_string(max) + ", got " + item.Scalar());
    }
    out.push_back(*v);
  }
  return out;
}

std::vector<bool> Reader::boolean_list(const std::string& key) const {
  const YAML::Node n = required(key);
  if (!n.IsSequence() || n.size() == 0) {
    fail(key, "expected a list of true/false like [true, false], got " + describe(n));
  }
  std::vector<bool> out;
  for (std::size_t i = 0; i < n.size(); ++i) {
    const YAML::Node item = n[i];
    if (item.IsScalar() && item.Scalar() == "true") {
      out.push_back(true);
    } else if (item.IsScalar() && item.Scalar() == "false") {
      out.push_back(false);
    } else {
      fail(key, "entry " + std::to_string(i + 1) + ": expected true or false, got " + describe(item));
    }
  }
  return out;
}

namespace {
template <typename F>
auto parse_unit(const Reader& r, const std::string& key, const std::string& s, F&& parse) {
  try {
    return parse(s);
  } catch (const InputError& e) {
    r.fail(key, e.what());
  }
}
}  // namespace

double Reader::bandwidth(const std::string& key) const {
  return parse_unit(*this, key, scalar(key), units::parse_bandwidth);
}

SimTime Reader::duration(const std::string& key) const {
  return parse_unit(*this, key, scalar(key), units::parse_duration);
}

double Reader::span(const std::string& key) const {
  return parse_unit(*this, key, scalar(key), units::parse_span);
}

std::uint64_t Reader::bytes(const std::string& key) const {
  return parse_unit(*this, key, scalar(key), units::parse_bytes);
}

void Reader::check_plausible(const std::string& key, double value, const units::PlausibleRange& range) const {
  if (const auto why = units::implausible(scalar(key), value, range)) fail(key, *why);
}

std::string Reader::choice(const std::string& key, const std::vector<std::string>& choices) const {
  const std::string s = scalar(key);
  for (const auto& c : choices) {
    if (c == s) return s;
  }
  fail(key, "unknown value \"" + s + "\"" + did_you_mean(s, choices) + "; expected " +
                join_choices(choices));
}

Reader Reader::child(const std::string& key) const {
  const YAML::Node n = required(key);
  if (!n.IsMap()) {
    // A scalar where a section belongs (--set training.precision=bf16): say how to set one
    // key inside it.
    const std::string inside = n.IsScalar() ? "; a key inside it is set as " + join_path(path_, key) + ".KEY" : "";
    fail(key, "expected a mapping of keys, got " + describe(n) + inside);
  }
  return Reader(n, join_path(path_, key), *sources_);
}

void read_schema_version(const Reader& r) {
  const std::int64_t version = r.integer("schema_version", 0, 1'000'000);
  if (version != 1) r.fail("schema_version", "this podsim reads schema_version 1, got " + std::to_string(version));
}

void read_document_header(const Reader& r) {
  read_schema_version(r);
  if (r.text("name").empty()) r.fail("name", "must not be empty");
}

}  // namespace podsim::config
