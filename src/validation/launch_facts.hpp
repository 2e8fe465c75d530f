#pragma once

// Knobs a published row leaves open that the run's own published launch artifacts state:
// the authors' launch scripts (NVIDIA/Megatron-LM examples/sc21/run_table_1.sh for SC21
// Table 1), or a released checkpoint's model-parallel layout. They are facts about the run,
// not fitted values: configs/validation/launch-configs.csv names the artifact of each.
// A row's own cells win; a fact fills only a cell the row leaves empty, and the planner
// still chooses whatever neither states (layout_choice.hpp). The one exception is a
// correction: a fact whose `corrects` names the row's stated value, because its artifact
// shows that value is not what the measured run used (a later script's, say); it must name
// that value exactly, so a correction cannot outlive a change to the row. A row may have
// several facts (lines), each correcting its own knob.
//
// `architecture` is the one knob that is not a cell: the model the run trained, as
// key=value pairs (layers, hidden, ffn_hidden, heads, kv_heads, vocab: the row's cells;
// head_dim; mlp relu, gelu or swiglu; tied yes or no). Its `corrects` names the row's stated
// cells the same way ("layers=32 hidden=8192 …"); the keys that are not cells reach the row
// as cells of those names, which the row reader prefers to what it would assume.

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "validation/csv_table.hpp"

namespace podsim::validation {

/// The stated knobs of one run, as cells of the published format (empty: not stated),
/// and `dp_reduce` ("overlapped" or "after-backward", or empty).
struct LaunchFact {
  std::map<std::string, std::string> cells;
  std::string corrects;  ///< the row's stated value this fact's one knob replaces ("": fills only)
  std::string source;    ///< the artifact that states them
};

/// Columns of a launch-configurations file, in order.
std::vector<std::string> launch_columns();

/// Reads a launch-configurations file: row id → what its launch artifacts state, one fact per
/// line in file order. Throws InputError "file:line: …" for a malformed file, an unknown knob
/// value or an unknown architecture key.
/// InputError also when one id states a knob twice.
std::map<std::string, std::vector<LaunchFact>> read_launch_facts(const std::filesystem::path& file);

/// Fills the cells `row` leaves empty from `fact` (and replaces the value a correction names);
/// returns what was filled, as the assumption line the report prints ("" when the row already
/// stated everything). Throws InputError when a correction names another value than the row's.
std::string apply_launch_fact(CsvRow& row, const LaunchFact& fact);

/// Every fact of one row in turn; the assumption lines joined with "; ".
std::string apply_launch_facts(CsvRow& row, const std::vector<LaunchFact>& facts);

}  // namespace podsim::validation
