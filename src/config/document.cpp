#include "config/document.hpp"

#include <yaml-cpp/eventhandler.h>

#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include "config/section_cache.hpp"
#include "config/yaml_comments.hpp"
#include "util/error.hpp"
#include "util/input_file.hpp"
#include "util/sha256.hpp"

namespace podsim::config {

std::string display_name(const std::filesystem::path& file) {
  std::error_code ec;
  const auto absolute = std::filesystem::absolute(file, ec);
  if (!ec) {
    const auto relative = absolute.lexically_normal().lexically_relative(std::filesystem::current_path(ec));
    if (!ec && !relative.empty() && relative.native().rfind("..", 0) != 0) return relative.string();
  }
  return file.lexically_normal().string();
}

namespace {

/// "file:line:col" of `mark`, or the file alone when the mark has no position.
std::string at(const std::string& shown, const YAML::Mark& mark) {
  if (mark.is_null()) return shown;
  return shown + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

/// Ignores a document's events, remembering where the document starts: enough to tell
/// whether a file holds a second document, and where.
class DocumentStart final : public YAML::EventHandler {
 public:
  YAML::Mark mark;
  void OnDocumentStart(const YAML::Mark& m) override { mark = m; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

/// Where a second document of `text` starts, if it has one. yaml-cpp's LoadAll can loop
/// forever on some malformed input (a document that consumes nothing); asking the parser for
/// exactly two documents cannot.
std::optional<YAML::Mark> second_document(const std::string& text) {
  // Only a document marker ("---" or "..." at the start of a line) can start a second
  // document; most files have none, and parsing twice would double the cost of every sweep
  // point.
  bool marker = false;
  for (std::size_t at = 0; at < text.size() && !marker; at = text.find('\n', at) + 1) {
    marker = text.compare(at, 3, "---") == 0 || text.compare(at, 3, "...") == 0;
    if (text.find('\n', at) == std::string::npos) break;
  }
  if (!marker) return std::nullopt;
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentStart first;
  if (!parser.HandleNextDocument(first)) return std::nullopt;
  DocumentStart second;
  if (!parser.HandleNextDocument(second)) return std::nullopt;
  return second.mark;
}

}  // namespace

namespace {

/// The document `text` of `shown`, parsed: one document, not empty.
YAML::Node parse_document(const std::string& text, const std::string& shown) {
  YAML::Node root;
  std::optional<YAML::Mark> second;
  try {
    const std::string parsed = shorten_comments(text);
    root = YAML::Load(parsed);
    second = second_document(parsed);
  } catch (const YAML::Exception& e) {
    throw InputError(at(shown, e.mark) + ": malformed YAML: " + e.msg);
  }
  if (second) {
    // Silently reading the first of several documents would drop what the others say.
    throw InputError(at(shown, *second) + ": a second YAML document starts here (after \"---\"); podsim reads one "
                                          "document per file");
  }
  if (!root.IsDefined() || root.IsNull()) throw InputError(shown + ":1:1: the file is empty");
  return root;
}

struct MarkAccess;

}  // namespace
}  // namespace podsim::config

/// yaml-cpp befriends every specialization of its `as_if`, and this one is the only way to
/// give a node a mark: YAML::Clone copies a document without them, and every message about a
/// value names its line and column.
template <>
struct YAML::as_if<podsim::config::MarkAccess, void> {
  static const void* identity(const YAML::Node& n) { return n.m_pNode; }
  static void set_mark(YAML::Node& n, const YAML::Mark& mark) { n.m_pNode->set_mark(mark); }
};

namespace podsim::config {

struct ParsedFiles::Documents {
  struct Document {
    YAML::Node root;
    InputRecord record;  // with its digest
  };
  std::map<std::pair<std::string, std::string>, Document> by_file;  // (path, shown)
};

ParsedFiles::ParsedFiles() : documents_(std::make_unique<Documents>()), sections_(std::make_unique<Sections>()) {}
ParsedFiles::~ParsedFiles() = default;

namespace {

using Marks = YAML::as_if<MarkAccess, void>;

/// Gives each node of `copy` the mark of its original in `from` (`copy` is YAML::Clone of
/// `from`: the same shape, keys in the same order). An alias's node is visited once.
void copy_marks(const YAML::Node& from, YAML::Node copy, std::set<const void*>& seen) {
  if (!from.IsDefined() || !seen.insert(Marks::identity(from)).second) return;
  Marks::set_mark(copy, from.Mark());
  if (from.IsMap()) {
    auto c = copy.begin();
    for (auto f = from.begin(); f != from.end(); ++f, ++c) {
      copy_marks(f->first, c->first, seen);
      copy_marks(f->second, c->second, seen);
    }
  } else if (from.IsSequence()) {
    auto c = copy.begin();
    for (auto f = from.begin(); f != from.end(); ++f, ++c) copy_marks(*f, *c, seen);
  }
}

YAML::Node copy_with_marks(const YAML::Node& root) {
  YAML::Node copy = YAML::Clone(root);
  std::set<const void*> seen;
  copy_marks(root, copy, seen);
  return copy;
}

}  // namespace

YAML::Node load_yaml_file(const std::filesystem::path& file, const std::string& shown, SourceMap& sources) {
  ParsedFiles* files = sources.parsed_files();
  if (files == nullptr) {
    const std::string text = read_input_file(file, shown);
    sources.add_input(InputRecord{file, shown, sources.digests() ? sha256_hex(text) : std::string()});
    return parse_document(text, shown);
  }
  auto& by_file = files->documents().by_file;
  const auto key = std::make_pair(file.string(), shown);
  // The file counts as read (with its digest where asked) before it parses, as without `files`.
  const auto record_input = [&](const InputRecord& r) {
    sources.add_input(sources.digests() ? r : InputRecord{file, shown, std::string()});
  };
  auto found = by_file.find(key);
  if (found == by_file.end()) {
    const std::string text = read_input_file(file, shown);
    if (text.find('&') != std::string::npos) files->note_anchor();
    InputRecord record{file, shown, sha256_hex(text)};
    record_input(record);
    YAML::Node root = parse_document(text, shown);  // a file that fails is not kept
    found = by_file.emplace(key, ParsedFiles::Documents::Document{root, std::move(record)}).first;
  } else {
    record_input(found->second.record);
  }
  return copy_with_marks(found->second.root);
}

YAML::Node load_yaml_key(const std::filesystem::path& file, const std::string& shown, const std::string& key,
                         SourceMap& sources) {
  ParsedFiles* files = sources.parsed_files();
  if (files == nullptr) throw std::logic_error("load_yaml_key reads through ParsedFiles");
  auto& by_file = files->documents().by_file;
  auto found = by_file.find(std::make_pair(file.string(), shown));
  if (found == by_file.end()) {
    load_yaml_file(file, shown, sources);  // parses and keeps it, or throws
    found = by_file.find(std::make_pair(file.string(), shown));
  }
  const YAML::Node& root = found->second.root;
  const YAML::Node section = root.IsMap() ? root[key] : YAML::Node();
  return section.IsDefined() ? copy_with_marks(section) : YAML::Node(YAML::NodeType::Null);
}

void apply_overrides(YAML::Node root, const std::vector<Override>& overrides, SourceMap& sources) {
  for (const Override& o : overrides) {
    YAML::Node value;
    try {
      value = YAML::Load(o.value);
      if (second_document(o.value)) throw InputError(o.text + ": the value must be one YAML value");
    } catch (const YAML::Exception& e) {
      throw InputError(o.text + ": malformed YAML value: " + e.msg);
    }
    YAML::Node at = root;
    std::string walked;
    std::size_t begin = 0;
    while (true) {
      const std::size_t dot = o.path.find('.', begin);
      const std::string key = o.path.substr(begin, dot == std::string::npos ? std::string::npos : dot - begin);
      if (!at.IsMap() && !at.IsNull() && at.IsDefined()) {
        throw InputError(o.text + ": " + (walked.empty() ? std::string("the document") : walked) +
                         " is a single value, not a mapping of keys");
      }
      if (dot == std::string::npos) {
        at[key] = value;
        break;
      }
      YAML::Node next = at[key];
      if (!next.IsDefined() || next.IsNull()) {
        at[key] = YAML::Node(YAML::NodeType::Map);
        next = at[key];
      }
      at.reset(next);
      walked = join_path(walked, key);
      begin = dot + 1;
    }
    sources.add_flag(o.path, o.text);
  }
}

std::string dump(const YAML::Node& root) {
  YAML::Emitter out;
  out << root;
  return std::string(out.c_str()) + "\n";
}

std::filesystem::path include_file(YAML::Node parent, const std::string& parent_path, const std::string& key,
                                   const std::filesystem::path& dir, SourceMap& sources) {
  const YAML::Node& self = parent;
  const YAML::Node value = self[key];
  if (!value.IsDefined() || !value.IsScalar()) return dir;
  const std::string path = join_path(parent_path, key);
  const std::filesystem::path file = dir / value.Scalar();
  const std::string shown = display_name(file);
  YAML::Node loaded;
  try {
    loaded = load_yaml_file(file, shown, sources);
  } catch (const InputError& e) {
    throw InputError(sources.locate(path, value.Mark()) + ": " + path + ": cannot include \"" + value.Scalar() +
                     "\": " + e.what());
  }
  parent[key] = loaded;
  sources.add_file(path, shown);
  return file.parent_path();
}

}  // namespace podsim::config
