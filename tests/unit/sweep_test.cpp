// Sweeps: reading a sweep file, point order, derived keys, and that a point's row is exactly
// what `podsim run` would compute for the same scenario.
#include <gtest/gtest.h>

#include "fuzz.hpp"
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "config/scenario_config.hpp"
#include "config/sweep_config.hpp"
#include "runtime/step_simulation.hpp"
#include "sweep/sweep_point.hpp"
#include "sweep/sweep_run.hpp"
#include "partition/communicator.hpp"
#include "util/error.hpp"

namespace podsim {
namespace {

namespace fs = std::filesystem;

const fs::path kRoot = PODSIM_SOURCE_DIR;

class SweepFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("podsim_sweep_test." + std::to_string(::getpid()) + "." + test->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  /// A sweep over the Llama 2 13B / TPU v5e example with `body` after `base:`.
  fs::path write(const std::string& body) const {
    const fs::path file = dir_ / "sweep.yaml";
    std::ofstream(file) << "schema_version: 1\nbase: " << (kRoot / "configs/examples/dp-tp-llama2-13b-tpu-v5e.yaml").string()
                        << "\n" << body;
    return file;
  }

  fs::path dir_;
};

std::vector<std::string> values(const std::vector<config::Override>& overrides) {
  std::vector<std::string> out;
  for (const auto& o : overrides) out.push_back(o.path + "=" + o.value);
  return out;
}

TEST(Sweep, ShippedSweepHasTheProductOfItsAxesLastAxisFastest) {
  const auto sweep = config::load_sweep(kRoot / "configs/sweeps/gpt3-175b-tpu-v4-layouts.yaml");
  EXPECT_EQ(sweep.points(), 5U * 5U * 3U * 2U);
  EXPECT_EQ(sweep.keys(), (std::vector<std::string>{"parallelism.tp", "parallelism.pp", "training.micro_batch", "hardware"}));
  EXPECT_EQ(values(sweep.overrides_at(0)),
            (std::vector<std::string>{"parallelism.tp=1", "parallelism.pp=1", "training.micro_batch=1",
                                      "hardware=../hardware/tpu-v4.yaml"}));
  EXPECT_EQ(values(sweep.overrides_at(1))[3], "hardware=../hardware/tpu-v5p.yaml");
  EXPECT_EQ(values(sweep.overrides_at(2))[2], "training.micro_batch=2");
  EXPECT_EQ(values(sweep.overrides_at(149)),
            (std::vector<std::string>{"parallelism.tp=16", "parallelism.pp=16", "training.micro_batch=4",
                                      "hardware=../hardware/tpu-v5p.yaml"}));
  ASSERT_EQ(sweep.derived.size(), 1U);
  EXPECT_EQ(sweep.derived[0].key, "parallelism.dp");
}

TEST_F(SweepFiles, TheNetworkShorthandIsAValueAsInAScenario) {
  // `network: contention` is a scenario's shorthand for {model: contention}, and --set takes
  // it: so does a sweep's axis, checked on the base read once and applied value by value.
  const auto sweep = config::load_sweep(write("axes: { network: [analytical, contention] }\n"));
  EXPECT_EQ(sweep.points(), 2U);
  EXPECT_EQ(values(sweep.overrides_at(1)), (std::vector<std::string>{"network=contention"}));
}

TEST_F(SweepFiles, ZipGroupsVaryTogether) {
  const auto sweep = config::load_sweep(write(
      "axes: { parallelism.tp: [4, 8] }\n"
      "zip:\n  - { training.global_batch: [512, 1024, 2048], training.micro_batch: [1, 2, 4] }\n"));
  EXPECT_EQ(sweep.points(), 6U);
  EXPECT_EQ(values(sweep.overrides_at(4)),
            (std::vector<std::string>{"parallelism.tp=8", "training.global_batch=1024", "training.micro_batch=2"}));
}

TEST_F(SweepFiles, AFeasiblePointIsExactlyTheScenarioItDescribes) {
  const auto sweep = config::load_sweep(write(
      "axes: { parallelism.tp: [4, 8], training.recompute: [selective, full] }\n"
      "derive: { parallelism.dp: \"chips / tp\" }\n"));
  const sweep::PointResult p = sweep::evaluate_point(sweep, 3);  // tp 8, full recompute, dp 32
  ASSERT_TRUE(p.feasible) << p.reason;
  const auto loaded = config::load_scenario(
      kRoot / "configs/examples/dp-tp-llama2-13b-tpu-v5e.yaml",
      config::parse_overrides({"parallelism.tp=8", "training.recompute=full", "parallelism.dp=32"}));
  const auto report = runtime::simulate_step(loaded.scenario);
  EXPECT_EQ(p.reals[sweep::metric_index("step_time_s")], report.step_s);
  // The categories of the pacing stage sum to the step time.
  double sum = 0;
  for (std::size_t c = 0; c < runtime::kCategories; ++c) {
    sum += p.reals[sweep::metric_index(std::string(runtime::category_column(static_cast<runtime::TimeCategory>(c))))];
  }
  EXPECT_NEAR(sum, report.step_s, 1e-12);
}

/// Every point of `sweep` evaluated through shared work, in order through `forwards` and in
/// reverse through `backwards`, gives the bytes it gives alone (`fresh`).
void expect_shared_work_gives(const config::LoadedSweep& sweep, const std::vector<std::vector<char>>& fresh,
                              sweep::SharedWork& forwards, sweep::SharedWork& backwards) {
  for (std::uint64_t i = 0; i < sweep.points(); ++i) {
    EXPECT_EQ(sweep::evaluate_point(sweep, i, forwards).serialize(), fresh[i]) << "point " << i;
    const std::uint64_t j = sweep.points() - 1 - i;
    EXPECT_EQ(sweep::evaluate_point(sweep, j, backwards).serialize(), fresh[j]) << "point " << j;
  }
}

TEST_F(SweepFiles, SharedMeasurementsGiveEveryPointExactlyItsOwnResult) {
  // Points that share a mesh reuse each other's communication measurements (CommMemo), and
  // all share the files parsed once: in whatever order one process meets them, each point's
  // bytes are those measured and read afresh.
  const auto sweep = config::load_sweep(write(
      "axes: { parallelism.tp: [4, 8], training.recompute: [selective, full], parallelism.zero: [1, 3] }\n"
      "derive: { parallelism.dp: \"chips / tp\" }\n"));
  std::vector<std::vector<char>> fresh;
  for (std::uint64_t i = 0; i < sweep.points(); ++i) fresh.push_back(sweep::evaluate_point(sweep, i).serialize());
  sweep::SharedWork forwards;
  sweep::SharedWork backwards;
  expect_shared_work_gives(sweep, fresh, forwards, backwards);
}

TEST_F(SweepFiles, PointsThatBuildTheSameProgramsShareOneExecution) {
  // With flash attention, selective recompute recomputes nothing that none does not keep, so
  // those points build the same programs: a process executes them once (StepMemo). Each
  // point's bytes stay those it gives alone, in either order.
  const auto sweep = config::load_sweep(write(
      "axes: { parallelism.tp: [4], parallelism.zero: [3], training.recompute: [none, selective, full],\n"
      "        parallelism.sequence_parallel: [false, true] }\n"
      "derive: { parallelism.dp: \"chips / tp\" }\n"));
  std::vector<std::vector<char>> fresh;
  std::size_t feasible = 0;
  for (std::uint64_t i = 0; i < sweep.points(); ++i) {
    const sweep::PointResult p = sweep::evaluate_point(sweep, i);
    feasible += p.feasible ? 1 : 0;
    fresh.push_back(p.serialize());
  }
  ASSERT_EQ(feasible, sweep.points());
  sweep::SharedWork forwards;
  sweep::SharedWork backwards;
  expect_shared_work_gives(sweep, fresh, forwards, backwards);
  // Six points, four distinct programs: none and selective coincide with and without
  // sequence parallelism.
  EXPECT_EQ(forwards.steps.size(), 4U);
  EXPECT_EQ(backwards.steps.size(), 4U);
}

TEST_F(SweepFiles, DeriveKnowsTheSlicesForHybridSharding) {
  // On two pods, one ZeRO group per pod whatever tp: zero_group = chips / (tp · slices), read
  // from the point's own values (derived keys do not see each other).
  const auto two_pods = (kRoot / "topologies/tpu-v5e-2x16x16.yaml").string();
  const auto sweep = config::load_sweep(write("axes: { topology: [" + two_pods + "], parallelism.tp: [4, 8], parallelism.zero: [3] }\n"
                                              "derive: { parallelism.dp: \"chips / tp\", "
                                              "parallelism.zero_group: \"chips / (tp * slices)\" }\n"));
  const auto& ints = sweep::metric_schema().ints;
  const auto column = [&](const char* name) {
    return static_cast<std::size_t>(
        std::find_if(ints.begin(), ints.end(), [&](const auto& c) { return c.first == name; }) - ints.begin());
  };
  for (std::uint64_t i = 0; i < sweep.points(); ++i) {
    const sweep::PointResult p = sweep::evaluate_point(sweep, i);
    ASSERT_TRUE(p.feasible) << p.reason;
    const std::int64_t dp = p.ints[column("dp")];
    EXPECT_EQ(dp, i == 0 ? 128 : 64);
    EXPECT_EQ(p.ints[column("zero_group")], dp / 2) << "point " << i;
  }
  // A single grid has one slice (and a GPU-less machine one node): the group is all of dp.
  const auto one = config::derive_variables(
      config::load_scenario(kRoot / "configs/examples/dp-tp-llama2-13b-tpu-v5e.yaml", {}).scenario);
  EXPECT_EQ(one.at("slices"), 1);
  EXPECT_EQ(one.at("nodes"), 1);
}

TEST_F(SweepFiles, InfeasiblePointsSayWhyOrStopAStrictSweep) {
  const std::string axes = "axes: { parallelism.tp: [1, 3] }\n";
  const auto lenient = config::load_sweep(write(axes + "derive: { parallelism.dp: \"chips / tp\" }\n"));
  const sweep::PointResult oom = sweep::evaluate_point(lenient, 0);  // 13 B on one 16 GB chip
  EXPECT_FALSE(oom.feasible);
  EXPECT_NE(oom.reason.find("does not fit in memory: a chip of pipeline stage 0 needs"), std::string::npos) << oom.reason;
  const sweep::PointResult inexact = sweep::evaluate_point(lenient, 1);  // 256 / 3
  EXPECT_FALSE(inexact.feasible);
  EXPECT_NE(inexact.reason.find("parallelism.dp = chips / tp"), std::string::npos) << inexact.reason;
  EXPECT_TRUE(std::isnan(inexact.reals[sweep::metric_index("step_time_s")]));
  // Infeasible rows still carry their layout as numbers (the table's dp/tp columns, the
  // memory that did not fit), not zeros: only the simulated metrics are NaN.
  const auto int_at = [](const sweep::PointResult& r, const std::string& name) {
    const auto& ints = sweep::metric_schema().ints;
    for (std::size_t i = 0; i < ints.size(); ++i) {
      if (ints[i].first == name) return r.ints[i];
    }
    return std::int64_t{-1};
  };
  EXPECT_EQ(int_at(oom, "tp"), 1);
  EXPECT_EQ(int_at(oom, "dp"), 256);
  EXPECT_EQ(int_at(oom, "chips"), 256);
  EXPECT_GT(oom.reals[sweep::metric_index("memory_peak_bytes")], oom.reals[sweep::metric_index("hbm_capacity_bytes")]);
  EXPECT_EQ(int_at(inexact, "tp"), 3);
  EXPECT_EQ(oom.texts[0], "llama2-13b");  // model

  const auto strict = config::load_sweep(write(axes + "skip_infeasible: false\n"));
  EXPECT_THROW(sweep::evaluate_point(strict, 1), InputError);
}

TEST_F(SweepFiles, FuzzedSweepFilesLoadOrFailCleanly) {
  const std::string seed =
      "axes: { parallelism.tp: [4, 8], training.micro_batch: [1, 2] }\n"
      "zip:\n  - { training.global_batch: [512, 1024], training.recompute: [selective, full] }\n"
      "derive: { parallelism.dp: \"chips / tp\" }\nskip_infeasible: true\n";
  std::mt19937 rng(7);
  int loaded = 0;
  int rejected = 0;
  for (int i = 0; i < 400; ++i) {
    const fs::path file = write(testing::mutate(seed, rng));
    try {
      const auto sweep = config::load_sweep(file);
      ++loaded;
      if (sweep.points() > 0 && sweep.points() < 64) {
        try {
          (void)sweep::evaluate_point(sweep, sweep.points() - 1);
        } catch (const InputError&) {  // the base scenario with that value
        }
      }
    } catch (const InputError& e) {
      ++rejected;
      EXPECT_NE(std::string(e.what()).find("sweep.yaml"), std::string::npos) << e.what();
    }
  }
  EXPECT_GT(loaded, 0);
  EXPECT_GT(rejected, 0);
}

TEST_F(SweepFiles, ResumesItsOwnFileAndRefusesAnyOther) {
  const partition::Communicator alone(0, 1);
  const fs::path out = dir_ / "out.h5";
  const auto first = config::load_sweep(write("axes: { parallelism.tp: [4, 8] }\nderive: { parallelism.dp: \"chips / tp\" }\n"));
  const sweep::SweepOutput output{out, "test", "podsim sweep", false, 2, {}};
  const auto ran = sweep::run_sweep(first, output, alone);
  EXPECT_EQ(ran.points, 2U);
  EXPECT_EQ(ran.resumed, 0U);
  std::ifstream before_stream(out, std::ios::binary);
  const std::string before((std::istreambuf_iterator<char>(before_stream)), {});
  // The same sweep again: everything is resumed, nothing simulated, the same bytes.
  const auto again = sweep::run_sweep(first, output, alone);
  EXPECT_EQ(again.resumed, 2U);
  EXPECT_EQ(again.simulated, 0U);
  std::ifstream after_stream(out, std::ios::binary);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(after_stream)), {}), before);
  // Another sweep, or a file that is not HDF5, is refused and left alone.
  const auto other = config::load_sweep(write("axes: { parallelism.tp: [2, 4] }\nderive: { parallelism.dp: \"chips / tp\" }\n"));
  EXPECT_THROW(sweep::run_sweep(other, output, alone), InputError);
  std::ofstream(dir_ / "junk.h5") << "not hdf5";
  EXPECT_THROW(sweep::run_sweep(first, sweep::SweepOutput{dir_ / "junk.h5", "test", "podsim sweep", false, 2, {}}, alone),
               InputError);
  std::ifstream kept(out, std::ios::binary);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(kept)), {}), before);
}

TEST_F(SweepFiles, PointsOfDifferentBatchesAreRankedByThroughput) {
  const partition::Communicator alone(0, 1);
  const auto by_batch = config::load_sweep(write("axes: { training.global_batch: [128, 256, 512] }\n"));
  const auto ran = sweep::run_sweep(by_batch, sweep::SweepOutput{dir_ / "b.h5", "test", "podsim sweep", false, 2, {}}, alone);
  ASSERT_EQ(ran.fastest.size(), 3U);
  EXPECT_TRUE(ran.by_throughput);  // a larger batch takes longer but may train faster
  const std::size_t tokens = sweep::metric_index("tokens_per_s");
  EXPECT_GE(ran.fastest[0].reals[tokens], ran.fastest[1].reals[tokens]);
  EXPECT_GE(ran.fastest[1].reals[tokens], ran.fastest[2].reals[tokens]);
  const auto by_tp = config::load_sweep(write("axes: { parallelism.tp: [4, 8] }\nderive: { parallelism.dp: \"chips / tp\" }\n"));
  EXPECT_FALSE(sweep::run_sweep(by_tp, sweep::SweepOutput{dir_ / "t.h5", "test", "podsim sweep", false, 2, {}}, alone)
                   .by_throughput);
}

TEST(Sweep, PointResultsRoundTripThroughBytes) {
  const auto sweep = config::load_sweep(kRoot / "configs/sweeps/gpt3-175b-tpu-v4-layouts.yaml");
  for (std::uint64_t i : {0U, 77U}) {
    const sweep::PointResult p = sweep::evaluate_point(sweep, i);
    const sweep::PointResult q = sweep::PointResult::deserialize(i, p.serialize());
    EXPECT_EQ(q.feasible, p.feasible);
    EXPECT_EQ(q.reason, p.reason);
    EXPECT_EQ(q.texts, p.texts);
    EXPECT_EQ(q.ints, p.ints);
    ASSERT_EQ(q.reals.size(), p.reals.size());
    for (std::size_t k = 0; k < p.reals.size(); ++k) {
      EXPECT_TRUE(q.reals[k] == p.reals[k] || (std::isnan(q.reals[k]) && std::isnan(p.reals[k])));
    }
  }
}

}  // namespace
}  // namespace podsim
