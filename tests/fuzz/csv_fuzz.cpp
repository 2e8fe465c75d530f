// libFuzzer target: the published-measurements CSV, as `podsim validate` reads it before
// simulating: validation::read_csv with the 26 columns of published_columns() (and once
// with no required column, so that inputs without the full header still reach the rows),
// then validation::express on each row (at most kMaxRows): the row's machine, model and
// layout as a scenario, built with the shipped hardware and topology files. The same bytes are
// also read as a launch-configurations file (validation::read_launch_facts), each fact filled
// into a shipped-like row and expressed.
//
// Acceptable: podsim::InputError. Anything else — another exception (it terminates at the
// throw, with its stack), a sanitizer report, a timeout — is a finding.

#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_workspace.hpp"
#include "util/error.hpp"
#include "validation/csv_table.hpp"
#include "validation/launch_facts.hpp"
#include "validation/row_case.hpp"

namespace {

/// express() reads a few shipped files per row: enough rows to mix, few enough to stay fast.
constexpr std::size_t kMaxRows = 64;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace podsim;
  const auto file = fuzz::Workspace::get().write("configs/fuzz-published.csv", data, size);
  try {
    (void)validation::read_csv(file, {});
  } catch (const InputError&) {
  }
  try {
    const auto rows = validation::read_csv(file, validation::published_columns());
    const validation::Catalog catalog{fuzz::source_dir()};
    for (std::size_t r = 0; r < rows.size() && r < kMaxRows; ++r)
      (void)validation::express(rows[r], catalog);
    fuzz::note("csv", std::to_string(rows.size()) + " rows");
  } catch (const InputError& e) {
    fuzz::note("csv", e.what());
  }
  try {
    const auto facts = validation::read_launch_facts(file);
    const validation::Catalog catalog{fuzz::source_dir()};
    std::size_t n = 0;
    for (const auto& [id, of_row] : facts) {
      if (++n > kMaxRows) break;
      validation::CsvRow row;
      row.cells = {{"id", id}, {"hardware", "A100-SXM4-80GB"}, {"n_chips", "64"}, {"model", "GPT"},
                   {"layers", "8"}, {"hidden", "1024"}, {"ffn_hidden", "4096"}, {"heads", "16"},
                   {"seq_len", "1024"}, {"vocab", "51200"}, {"global_batch_seqs", "64"}};
      (void)validation::apply_launch_facts(row, of_row);
      (void)validation::express(row, catalog);
    }
    fuzz::note("launch", std::to_string(facts.size()) + " facts");
  } catch (const InputError& e) {
    fuzz::note("launch", e.what());
  }
  return 0;
}
