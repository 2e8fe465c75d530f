#include "validation/launch_facts.hpp"

#include "util/error.hpp"

namespace podsim::validation {

namespace {

/// The knobs a launch fact may state: the published format's cells, and the one knob that
/// format has no column for. The file's columns are these between `id` and `corrects`.
const std::vector<std::string>& knob_columns() {
  static const std::vector<std::string> kKnobs{"tp", "pp", "micro_batch", "interleave_v", "dp_reduce", "recompute"};
  return kKnobs;
}

std::string describe(const std::string& knob, const std::string& value) {
  if (knob == "interleave_v") return value == "1" ? "plain 1F1B" : "interleaved 1F1B v" + value;
  if (knob == "micro_batch") return "micro batch " + value;
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

std::map<std::string, LaunchFact> read_launch_facts(const std::filesystem::path& file) {
  std::map<std::string, LaunchFact> facts;
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
      } else if (knob != "recompute") {
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
    if (!facts.emplace(id, std::move(fact)).second) throw InputError(where + "id \"" + id + "\" appears twice");
  }
  return facts;
}

std::string apply_launch_fact(CsvRow& row, const LaunchFact& fact) {
  std::string filled;
  for (const auto& [knob, value] : fact.cells) {
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

}  // namespace podsim::validation
