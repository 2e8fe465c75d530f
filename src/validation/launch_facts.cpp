#include "validation/launch_facts.hpp"

#include <algorithm>
#include <sstream>

#include "util/error.hpp"
#include "validation/metric.hpp"

namespace podsim::validation {

namespace {

/// The knobs a launch fact may state: the published format's cells, and three the format has no
/// column for (dp_reduce, architecture, flop_count: how the figure's code counted FLOPs). The
/// file's columns are these between `id` and `corrects`. `params` is the row's free-text cell
/// (a model's size, a collective's "message 1K"): a fact restates it as the run had it.
const std::vector<std::string>& knob_columns() {
  static const std::vector<std::string> kKnobs{"tp",        "pp",        "dp",
                                               "micro_batch", "interleave_v", "dp_reduce",
                                               "recompute", "global_batch_seqs", "architecture", "flop_count",
                                               "params"};
  return kKnobs;
}

/// The keys of an architecture that are the published format's cells.
const std::vector<std::string>& architecture_cells() {
  static const std::vector<std::string> kCells{"layers", "hidden", "ffn_hidden", "heads", "kv_heads", "vocab"};
  return kCells;
}

bool is_architecture_cell(const std::string& key) {
  const auto& c = architecture_cells();
  return std::find(c.begin(), c.end(), key) != c.end();
}

/// "k=v k=v" as pairs in order; throws InputError (prefixed by `where`) for a malformed pair,
/// an unknown key or value, or a key given twice. `cells_only`: only the row's cells allowed.
std::vector<std::pair<std::string, std::string>> parse_pairs(const std::string& text, const std::string& where,
                                                             bool cells_only) {
  std::vector<std::pair<std::string, std::string>> pairs;
  std::istringstream in(text);
  std::string word;
  while (in >> word) {
    const auto eq = word.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == word.size()) {
      throw InputError(where + "\"" + word + "\" is not key=value");
    }
    std::string key = word.substr(0, eq);
    std::string value = word.substr(eq + 1);
    const bool cell = is_architecture_cell(key);
    if (cells_only && !cell) throw InputError(where + "\"" + key + "\" is not one of the row's model cells");
    if (key == "mlp") {
      if (value != "relu" && value != "gelu" && value != "swiglu") {
        throw InputError(where + "mlp \"" + value + "\" is not relu, gelu or swiglu");
      }
    } else if (key == "tied") {
      if (value != "yes" && value != "no") throw InputError(where + "tied \"" + value + "\" is not yes or no");
    } else if (cell || key == "head_dim") {
      const auto n = integer(value);
      if (!n || *n < 1 || *n > 1 << 24) throw InputError(where + key + " \"" + value + "\" is not a whole number from 1");
    } else {
      throw InputError(where + "\"" + key + "\" is not an architecture key (" + "layers, hidden, ffn_hidden, heads, "
                       "kv_heads, vocab, head_dim, mlp, tied)");
    }
    for (const auto& [k, v] : pairs) {
      if (k == key) throw InputError(where + key + " is given twice");
    }
    pairs.emplace_back(std::move(key), std::move(value));
  }
  if (pairs.empty()) throw InputError(where + "no key=value pair");
  return pairs;
}

/// An architecture fact applied: the row's cells it names checked against `corrects` (or
/// empty, for a fact that fills), then replaced; the other keys set as cells of their names.
/// Returns the row's stated architecture, as `corrects` writes it ("" when it filled).
std::string apply_architecture(CsvRow& row, const std::string& value, const std::string& corrects) {
  const std::string where = "launch fact for " + row.at("id") + ": ";
  const auto pairs = parse_pairs(value, where + "architecture ", false);
  const bool already = std::all_of(pairs.begin(), pairs.end(), [&](const auto& p) {
    return !is_architecture_cell(p.first) || row.at(p.first) == p.second;
  });  // the row states this architecture's cells already: nothing to correct
  std::map<std::string, std::string> stated;  // the row's cells this architecture replaces
  std::string stated_text;
  for (const auto& [key, v] : pairs) {
    if (already || !is_architecture_cell(key) || row.at(key).empty()) continue;
    stated[key] = row.at(key);
    stated_text += (stated_text.empty() ? "" : " ") + key + "=" + row.at(key);
  }
  if (!stated.empty()) {
    if (corrects.empty()) {
      throw InputError(where + "its architecture replaces cells the row states (" + stated_text +
                       "); a fact that replaces them names them in corrects");
    }
    std::map<std::string, std::string> named;
    for (const auto& [key, v] : parse_pairs(corrects, where + "corrects ", true)) named[key] = v;
    if (named != stated) {
      throw InputError(where + "it corrects architecture \"" + corrects + "\", but the row states \"" + stated_text +
                       "\"");
    }
  }
  for (const auto& [key, v] : pairs) row.cells[key] = v;
  return stated_text;
}

std::string describe(const std::string& knob, const std::string& value) {
  if (knob == "interleave_v") return value == "1" ? "plain 1F1B" : "interleaved 1F1B v" + value;
  if (knob == "micro_batch") return "micro batch " + value;
  if (knob == "global_batch_seqs") return "global batch " + value;
  if (knob == "flop_count") return "FLOPs counted as " + value;
  if (knob == "params") return "\"" + value + "\"";
  if (knob == "dp_reduce") {
    return value == "after-backward" ? "gradients all-reduced after the backward" : "gradient all-reduce overlapped";
  }
  return knob + " " + value;
}

}  // namespace

std::vector<std::string> launch_columns() {
  std::vector<std::string> columns{"id"};
  columns.insert(columns.end(), knob_columns().begin(), knob_columns().end());
  columns.push_back("corrects");
  columns.push_back("source");
  return columns;
}

std::map<std::string, std::vector<LaunchFact>> read_launch_facts(const std::filesystem::path& file) {
  std::map<std::string, std::vector<LaunchFact>> facts;
  for (const CsvRow& row : read_csv(file, launch_columns())) {
    const std::string where = file.string() + ":" + std::to_string(row.line) + ": ";
    const std::string id = row.at("id");
    if (id.empty()) throw InputError(where + "id is empty");
    if (row.at("source").empty()) throw InputError(where + "source is empty: every fact names its artifact");
    LaunchFact fact;
    fact.source = row.at("source");
    for (const std::string& knob : knob_columns()) {
      const std::string value = row.at(knob);
      if (value.empty()) continue;
      if (knob == "dp_reduce") {
        if (value != "overlapped" && value != "after-backward") {
          throw InputError(where + "dp_reduce \"" + value + "\" is not overlapped or after-backward");
        }
      } else if (knob == "flop_count") {
        if (!flop_count_named(value)) {
          throw InputError(where + "flop_count \"" + value + "\" is not " + flop_count_names());
        }
      } else if (knob == "architecture") {
        (void)parse_pairs(value, where + "architecture ", false);
      } else if (knob != "recompute" && knob != "params") {
        const auto n = integer(value);
        if (!n || *n < 1 || *n > 1 << 20) throw InputError(where + knob + " \"" + value + "\" is not a whole number from 1");
      }
      fact.cells[knob] = value;
    }
    if (fact.cells.empty()) throw InputError(where + "states no knob");
    fact.corrects = row.at("corrects");
    if (!fact.corrects.empty() && fact.cells.size() != 1) {
      throw InputError(where + "corrects \"" + fact.corrects + "\" but states " + std::to_string(fact.cells.size()) +
                       " knobs: a correction states the one knob it corrects");
    }
    if (fact.cells.count("architecture") && !fact.corrects.empty()) {
      (void)parse_pairs(fact.corrects, where + "corrects ", true);
    }
    auto& of_row = facts[id];
    for (const LaunchFact& earlier : of_row) {
      for (const auto& [knob, value] : fact.cells) {
        if (earlier.cells.count(knob)) throw InputError(where + "id \"" + id + "\" states " + knob + " twice");
      }
    }
    of_row.push_back(std::move(fact));
  }
  return facts;
}

std::string apply_launch_fact(CsvRow& row, const LaunchFact& fact) {
  std::string filled;
  for (const auto& [knob, value] : fact.cells) {
    if (knob == "architecture") {
      const std::string stated = apply_architecture(row, value, fact.corrects);
      filled += (filled.empty() ? "" : ", ") + ("architecture " + value) +
                (stated.empty() ? "" : " in place of the row's " + stated);
      continue;
    }
    const std::string stated = row.at(knob);
    if (!stated.empty() && (fact.corrects.empty() || stated == value)) continue;  // the row's own cell wins
    if (!stated.empty() && stated != fact.corrects) {
      throw InputError("launch fact for " + row.at("id") + ": it corrects " + knob + " \"" + fact.corrects +
                       "\", but the row states \"" + stated + "\"");
    }
    row.cells[knob] = value;
    filled += (filled.empty() ? "" : ", ") + describe(knob, value) +
              (stated.empty() ? "" : " in place of the row's " + stated);
  }
  return filled.empty() ? "" : filled + " (" + fact.source + ")";
}

std::string apply_launch_facts(CsvRow& row, const std::vector<LaunchFact>& facts) {
  std::string said;
  for (const LaunchFact& fact : facts) {
    const std::string one = apply_launch_fact(row, fact);
    if (!one.empty()) said += (said.empty() ? "" : "; ") + one;
  }
  return said;
}

}  // namespace podsim::validation
