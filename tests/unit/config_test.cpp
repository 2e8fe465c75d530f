#include <gtest/gtest.h>

#include "fuzz.hpp"

#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>

#include "config/collective_config.hpp"
#include "config/component_config.hpp"
#include "config/scenario_config.hpp"
#include "config/section_cache.hpp"
#include "util/sha256.hpp"
#include "config/topology_config.hpp"
#include "util/error.hpp"

namespace podsim::config {
namespace {

namespace fs = std::filesystem;

/// A scratch folder with files written by the test; paths shown relative to it.
class ConfigFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("podsim_config_" + std::to_string(::getpid()) + "_" +
                                             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    previous_ = fs::current_path();
    fs::current_path(dir_);
  }
  void TearDown() override {
    fs::current_path(previous_);
    fs::remove_all(dir_);
  }
  static void write(const std::string& name, const std::string& text) { std::ofstream(name) << text; }
  /// The InputError message loading `name` gives ("" if it loads).
  static std::string error_of(const std::string& name, const std::vector<std::string>& sets = {}) {
    try {
      load_topology(name, parse_overrides(sets));
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }

  fs::path dir_;
  fs::path previous_;
};

constexpr const char* kTorus = R"(schema_version: 1
name: t4
kind: torus
dims: [4, 4, 4]
link: { bandwidth: 45 GB/s, latency: 1 us }
)";

TEST_F(ConfigFiles, ReadsATorusAndFillsDefaultsIntoTheResolvedDocument) {
  write("t.yaml", kTorus);
  const LoadedTopology t = load_topology("t.yaml");
  const auto& grid = std::get<topology::GridSpec>(t.spec.layout);
  EXPECT_EQ(t.spec.name, "t4");
  EXPECT_EQ(grid.dims, (std::vector<int>{4, 4, 4}));
  EXPECT_EQ(grid.wraparound, (std::vector<bool>{true, true, true}));
  EXPECT_DOUBLE_EQ(grid.link.bandwidth_Bps, 45e9);
  EXPECT_EQ(grid.link.latency_ps, 1'000'000);
  EXPECT_NE(t.resolved_yaml.find("wraparound: [true, true, true]"), std::string::npos) << t.resolved_yaml;
  EXPECT_NE(t.resolved_yaml.find("twisted: false"), std::string::npos);
}

TEST_F(ConfigFiles, ErrorsNameFileLineColumnAndKeyPath) {
  write("bad.yaml", R"(schema_version: 1
name: x
kind: torus
dims: [4, 4]
link:
  bandwidth: fast
  latency: 1 us
)");
  EXPECT_EQ(error_of("bad.yaml"), "bad.yaml:6:14: link.bandwidth: expected a bandwidth like \"45 GB/s\", got \"fast\"");
}

TEST_F(ConfigFiles, UnknownKeysSuggestTheClosestOne) {
  write("typo.yaml", R"(schema_version: 1
name: x
kind: torus
dims: [4, 4]
link: { bandwith: 45 GB/s, latency: 1 us }
)");
  const std::string e = error_of("typo.yaml");
  EXPECT_NE(e.find("typo.yaml:5:9: link.bandwith: unknown key (did you mean \"bandwidth\"?)"), std::string::npos) << e;
}

TEST_F(ConfigFiles, CrossFieldChecks) {
  write("w.yaml", R"(schema_version: 1
name: x
kind: torus
dims: [4, 4, 4]
wraparound: [true, true]
link: { bandwidth: 45 GB/s, latency: 1 us }
)");
  EXPECT_EQ(error_of("w.yaml"), "w.yaml:5:13: wraparound: has 2 entries but dims has 3; give one per axis");
  write("m.yaml", R"(schema_version: 1
name: x
kind: mesh
dims: [4, 4]
wraparound: [true, false]
link: { bandwidth: 45 GB/s, latency: 1 us }
)");
  EXPECT_NE(error_of("m.yaml").find("a mesh has no wraparound"), std::string::npos);
  write("tw.yaml", R"(schema_version: 1
name: x
kind: torus
dims: [4, 4, 6]
twisted: true
link: { bandwidth: 45 GB/s, latency: 1 us }
)");
  EXPECT_NE(error_of("tw.yaml").find("tw.yaml:5:10: twisted:"), std::string::npos) << error_of("tw.yaml");
}

TEST_F(ConfigFiles, OverridesApplyAndTheirErrorsNameTheFlag) {
  write("t.yaml", kTorus);
  const auto t = load_topology("t.yaml", parse_overrides({"link.bandwidth=90 GB/s", "dims=[8, 8]"}));
  EXPECT_DOUBLE_EQ(std::get<topology::GridSpec>(t.spec.layout).link.bandwidth_Bps, 90e9);
  EXPECT_EQ(std::get<topology::GridSpec>(t.spec.layout).dims, (std::vector<int>{8, 8}));
  EXPECT_EQ(error_of("t.yaml", {"link.bandwidth=fast"}),
            "--set link.bandwidth=fast: link.bandwidth: expected a bandwidth like \"45 GB/s\", got \"fast\"");
  EXPECT_NE(error_of("t.yaml", {"link.colour=red"}).find("--set link.colour=red: link.colour: unknown key"), std::string::npos);
  EXPECT_THROW(parse_overrides({"novalue"}), InputError);
}

// A name that spells the topology's size follows the size --set gives it: the report would
// otherwise print "a100-dgx-8x8 (32 chips)".
TEST_F(ConfigFiles, AResizedTopologysNameSpellsItsNewSize) {
  const auto name = [&](const std::string& text, const std::vector<std::string>& sets) {
    write("r.yaml", text);
    return load_topology("r.yaml", parse_overrides(sets)).spec.name;
  };
  const std::string cluster = "schema_version: 1\nname: NAME\nkind: switch\nnodes: 8\nchips_per_node: 8\n"
                              "intra: { bandwidth: 300 GB/s, latency: 1 us }\n"
                              "scale_out: { bandwidth: 200 Gbps, latency: 5 us }\n";
  const auto with_name = [](std::string text, const std::string& n) { return text.replace(text.find("NAME"), 4, n); };
  EXPECT_EQ(name(with_name(cluster, "dgx-8x8"), {"nodes=4"}), "dgx-4x8");
  EXPECT_EQ(name(with_name(cluster, "pod-64"), {"nodes=4"}), "pod-32");                // the chip count
  EXPECT_EQ(name(with_name(cluster, "dgx-8x8-ib"), {"chips_per_node=4"}), "dgx-8x4-ib");
  EXPECT_EQ(name(with_name(cluster, "cluster"), {"nodes=4"}), "cluster");              // no size in the name
  EXPECT_EQ(name(with_name(cluster, "dgx-8x8"), {"scale_out.bandwidth=400 Gbps"}), "dgx-8x8");
  std::string torus = kTorus;
  torus.replace(torus.find("name: "), torus.find('\n', torus.find("name: ")) - torus.find("name: "), "name: v4-4x4x4-t");
  write("t.yaml", torus);
  EXPECT_EQ(load_topology("t.yaml", parse_overrides({"dims=[8, 8]"})).spec.name, "v4-8x8-t");
  fs::create_directories("topo");
  write("topo/slice.yaml", kTorus);
  write("topo/ms.yaml", "schema_version: 1\nname: v5e-2x4x4x4\nkind: multislice\nslices: 2\nslice: slice.yaml\n"
                        "dcn: { bandwidth: 50 Gbps, latency: 10 us }\n");
  EXPECT_EQ(load_topology("topo/ms.yaml", parse_overrides({"slices=4"})).spec.name, "v5e-4x4x4x4");
}

TEST_F(ConfigFiles, MultisliceIncludesItsSliceFileRelativeToItself) {
  fs::create_directories("topo");
  write("topo/slice.yaml", kTorus);
  write("topo/ms.yaml", R"(schema_version: 1
name: ms
kind: multislice
slices: 3
slice: slice.yaml
dcn: { bandwidth: 50 Gbps, latency: 10 us }
)");
  const auto t = load_topology("topo/ms.yaml", parse_overrides({"slice.link.bandwidth=50 GB/s"}));
  const auto& ms = std::get<topology::MultisliceSpec>(t.spec.layout);
  EXPECT_EQ(ms.slices, 3);
  EXPECT_DOUBLE_EQ(ms.slice.link.bandwidth_Bps, 50e9);
  EXPECT_DOUBLE_EQ(ms.dcn.bandwidth_Bps, 6.25e9);
  write("topo/bad_slice.yaml", "schema_version: 1\nname: s\nkind: torus\ndims: [4]\nlink: {bandwidth: 1 GB/s, latency: -1 us}\n");
  write("topo/ms2.yaml", "schema_version: 1\nname: ms\nkind: multislice\nslices: 2\nslice: bad_slice.yaml\ndcn: { bandwidth: 50 Gbps, latency: 10 us }\n");
  // The error is in the included file, and says so.
  EXPECT_NE(error_of("topo/ms2.yaml").find("topo/bad_slice.yaml:5:36: slice.link.latency: duration must not be negative"),
            std::string::npos) << error_of("topo/ms2.yaml");
  write("topo/ms3.yaml", "schema_version: 1\nname: ms\nkind: multislice\nslices: 2\nslice: nope.yaml\ndcn: { bandwidth: 50 Gbps, latency: 10 us }\n");
  EXPECT_NE(error_of("topo/ms3.yaml").find("topo/ms3.yaml:5:8: slice: cannot include \"nope.yaml\""), std::string::npos)
      << error_of("topo/ms3.yaml");
}

TEST_F(ConfigFiles, CollectiveRequestValidatesEveryFlag) {
  write("t.yaml", kTorus);
  CollectiveArgs args;
  args.topology_file = "t.yaml";
  args.axes = "x,y";
  args.sizes = "1KiB..8KiB,1GiB";
  args.network = "contention";
  const CollectiveRequest r = load_collective_request(args);
  EXPECT_EQ(r.axes, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(r.sizes, (std::vector<std::uint64_t>{1024, 2048, 4096, 8192, 1ull << 30}));
  EXPECT_EQ(r.network.fidelity, network::Fidelity::kContention);
  EXPECT_NE(r.resolved_yaml.find("op: all-reduce"), std::string::npos);

  auto error = [&](CollectiveArgs a) {
    try {
      load_collective_request(a);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CollectiveArgs bad = args;
  bad.op = "allreduce";
  EXPECT_EQ(error(bad), "--op allreduce: collective.op: unknown value \"allreduce\" (did you mean \"all-reduce\"?); "
                        "expected all-reduce, reduce-scatter, all-gather, all-to-all, broadcast or send-recv");
  bad = args;
  bad.axes = "x,w";
  EXPECT_NE(error(bad).find("--axes x,w: collective.axes: unknown axis \"w\""), std::string::npos) << error(bad);
  bad = args;
  bad.sizes = "1 KiB,lots";
  EXPECT_NE(error(bad).find("--sizes 1 KiB,lots: collective.sizes: expected a size"), std::string::npos) << error(bad);
  bad = args;
  bad.sets = {"network.max_chunks=0"};
  EXPECT_NE(error(bad).find("--set network.max_chunks=0: network.max_chunks: must be between 1"), std::string::npos);
  bad = args;
  bad.sets = {"topology.dims=[4, 4, 4, 4]"};
  EXPECT_NE(error(bad).find("topology.dims: a grid has 1 to 3 axes"), std::string::npos) << error(bad);
}

/// Mutates valid documents at random: every result must load or fail with InputError —
/// never crash, hang or throw anything else.
TEST_F(ConfigFiles, FuzzedDocumentsLoadOrFailCleanly) {
  const std::vector<std::string> seeds{
      kTorus,
      "schema_version: 1\nname: g\nkind: switch\nnodes: 4\nchips_per_node: 8\nintra: {bandwidth: 300 GB/s, latency: 1.7 us}\nscale_out: {bandwidth: 200 Gbps, latency: 4.8 us}\n",
      "schema_version: 1\nname: m\nkind: multislice\nslices: 2\nslice: {kind: torus, dims: [4, 8, 8], twisted: true, link: {bandwidth: 45 GB/s, latency: 1 us}}\ndcn: {bandwidth: 6.25 GB/s, latency: 10 us}\n"};
  std::mt19937 rng(12345);
  int loaded = 0;
  int rejected = 0;
  for (int i = 0; i < 3000; ++i) {
    const std::string doc = testing::mutate(seeds[static_cast<std::size_t>(i) % seeds.size()], rng);
    write("fuzz.yaml", doc);
    try {
      load_topology("fuzz.yaml");
      ++loaded;
    } catch (const InputError& e) {
      ++rejected;
      EXPECT_EQ(std::string(e.what()).rfind("fuzz.yaml", 0), 0u) << e.what() << "\n--- document:\n" << doc;
    }
  }
  EXPECT_GT(loaded, 0);
  EXPECT_GT(rejected, 0);
}

TEST_F(ConfigFiles, ASecondDocumentIsRefusedWhereItStarts) {
  write("two.yaml", std::string(kTorus) + "---\nname: other\n");
  EXPECT_EQ(error_of("two.yaml"),
            "two.yaml:6:1: a second YAML document starts here (after \"---\"); podsim reads one document per file");
  // A document that only starts with --- is one document.
  write("one.yaml", "---\n" + std::string(kTorus));
  EXPECT_EQ(error_of("one.yaml"), "");
  EXPECT_EQ(error_of("one.yaml", {"link.latency=2 us\n---\n3"}), "--set link.latency=2 us\n---\n3: the value must be one YAML value");
}

TEST_F(ConfigFiles, EmptySetValuesAreRefused) {
  EXPECT_THROW(parse_overrides({"parallelism.tp="}), InputError);
  EXPECT_THROW(parse_overrides({"parallelism.tp=  "}), InputError);
  EXPECT_EQ(parse_overrides({"name=''"}).front().value, "''");
}

TEST_F(ConfigFiles, EveryFileReadIsRecordedWithItsDigestEvenWhenRefused) {
  const fs::path root(PODSIM_SOURCE_DIR);
  const std::string model = (root / "configs/models/gpt-1.7b.yaml").string();
  const std::string hardware = (root / "configs/hardware/a100-80gb.yaml").string();
  const std::string topology = (root / "topologies/a100-dgx-8x8.yaml").string();
  const std::string scenario = "schema_version: 1\nmodel: " + model + "\nhardware: " + hardware + "\ntopology: " +
                               topology + "\nparallelism: { dp: 64 }\ntraining: { global_batch: 64 }\n";
  write("s.yaml", scenario);
  const LoadedScenario loaded = load_scenario("s.yaml");
  ASSERT_EQ(loaded.inputs.size(), 4u);
  EXPECT_EQ(loaded.inputs[0].path, fs::path("s.yaml"));
  EXPECT_EQ(loaded.inputs[0].sha256, "");  // digests only for who asks (a sweep)
  EXPECT_EQ(loaded.inputs[1].path, fs::path(model));
  EXPECT_EQ(loaded.inputs[3].path, fs::path(topology));
  EXPECT_EQ(loaded.where("training.global_batch"), "s.yaml:6:27");
  // A refused layout still reports what it read (a sweep records the files of every value).
  std::vector<InputRecord> read;
  EXPECT_THROW(load_scenario("s.yaml", parse_overrides({"parallelism.dp=3"}), true, read), InfeasibleLayout);
  ASSERT_EQ(read.size(), 4u);
  EXPECT_EQ(read[0].sha256, sha256_hex(scenario));
}

TEST_F(ConfigFiles, TheNetworksShorthandIsAcceptedInAFileAndInASet) {
  // `network: contention` names the model; --set network=contention must mean the same, as must
  // --set network.model=contention on a file that uses the shorthand.
  const fs::path root(PODSIM_SOURCE_DIR);
  const std::string base = "schema_version: 1\nmodel: " + (root / "configs/models/gpt-1.7b.yaml").string() +
                           "\nhardware: " + (root / "configs/hardware/a100-80gb.yaml").string() + "\ntopology: " +
                           (root / "topologies/a100-dgx-8x8.yaml").string() +
                           "\nparallelism: { dp: 64 }\ntraining: { global_batch: 64 }\n";
  write("plain.yaml", base + "network: analytical\n");
  const auto fidelity = [](const LoadedScenario& l) { return l.scenario.network.fidelity; };
  EXPECT_EQ(fidelity(load_scenario("plain.yaml")), network::Fidelity::kAnalytical);
  EXPECT_EQ(fidelity(load_scenario("plain.yaml", parse_overrides({"network=contention"}))),
            network::Fidelity::kContention);
  EXPECT_EQ(fidelity(load_scenario("plain.yaml", parse_overrides({"network.model=contention"}))),
            network::Fidelity::kContention);
  EXPECT_EQ(fidelity(load_scenario("plain.yaml", parse_overrides({"network={model: contention}"}))),
            network::Fidelity::kContention);
  write("none.yaml", base);
  EXPECT_EQ(fidelity(load_scenario("none.yaml", parse_overrides({"network=contention"}))),
            network::Fidelity::kContention);
  EXPECT_THROW(load_scenario("none.yaml", parse_overrides({"network=bogus"})), InputError);
}

TEST_F(ConfigFiles, FlashAttentionEfficiencyIsReadWhereAFileGivesIt) {
  const fs::path root(PODSIM_SOURCE_DIR);
  EXPECT_DOUBLE_EQ(load_hardware(root / "configs/hardware/h100.yaml").efficiency.flash_attention, 0.35);
  EXPECT_DOUBLE_EQ(load_hardware(root / "configs/hardware/a100-80gb.yaml").efficiency.flash_attention, 0.0);  // as matmul
  // The Triton FlashAttention's rate (docs/calibration.md) is derived, not fitted: FlashAttention-2's
  // rate over its measured speed-up against the Triton kernel, "1.3-2.5x" (arXiv 2307.08691 §4.1),
  // taken at its midpoint. On A100 FA2's rate is the paper's "50-73%" (midpoint); on Hopper, the
  // file's FA2 rate. A refit of anything else leaves both alone.
  const auto a100 = load_hardware(root / "configs/hardware/a100-80gb.yaml").efficiency;
  const auto h100 = load_hardware(root / "configs/hardware/h100.yaml").efficiency;
  constexpr double kFa2OverTriton = (1.3 + 2.5) / 2;
  EXPECT_NEAR(a100.triton_attention, (0.50 + 0.73) / 2 / kFa2OverTriton, 0.0005);
  EXPECT_NEAR(h100.triton_attention, h100.flash_attention / kFa2OverTriton, 0.0005);
  EXPECT_DOUBLE_EQ(load_hardware(root / "configs/hardware/a100-40gb.yaml").efficiency.triton_attention, a100.triton_attention);
  EXPECT_DOUBLE_EQ(load_hardware(root / "configs/hardware/h200.yaml").efficiency.triton_attention, h100.triton_attention);
  EXPECT_DOUBLE_EQ(load_hardware(root / "configs/hardware/tpu-v5e.yaml").efficiency.triton_attention, 0.0);  // none
}

TEST_F(ConfigFiles, OverlapDefaultsFollowTheChipsStackAndYieldToTheScenario) {
  const fs::path root(PODSIM_SOURCE_DIR);
  auto scenario = [&](const std::string& hardware, const std::string& topology, const std::string& training) {
    return "schema_version: 1\nmodel: " + (root / "configs/models/gpt-1.7b.yaml").string() + "\nhardware: " +
           (root / "configs/hardware" / hardware).string() + "\ntopology: " + (root / "topologies" / topology).string() +
           "\nparallelism: { tp: 4 }\ntraining: { global_batch: 64" + training + " }\n";
  };
  write("tpu.yaml", scenario("tpu-v4.yaml", "tpu-v4-4x4x4.yaml", ""));
  EXPECT_EQ(load_scenario("tpu.yaml").scenario.training.overlap.tp, parallelism::TpOverlap::kCollectiveMatmul);
  write("gpu.yaml", scenario("a100-80gb.yaml", "a100-dgx-8x8.yaml", ""));
  const auto gpu = load_scenario("gpu.yaml").scenario.training.overlap;
  EXPECT_EQ(gpu.tp, parallelism::TpOverlap::kNone);
  EXPECT_FALSE(gpu.param_gather);
  EXPECT_EQ(gpu.fsdp_prefetch, 1);
  EXPECT_TRUE(gpu.dp_reduce);
  EXPECT_TRUE(gpu.dp_serial);  // NCCL: one communicator
  EXPECT_TRUE(gpu.gemm_sm_margin);
  EXPECT_FALSE(load_scenario("tpu.yaml").scenario.training.overlap.dp_serial);
  write("set.yaml", scenario("tpu-v4.yaml", "tpu-v4-4x4x4.yaml",
                             ", overlap: { tp: none, param_gather: true, fsdp_prefetch: 3, dp_reduce: false, "
                             "dp_serial: true, gemm_sm_margin: false }"));
  const auto set = load_scenario("set.yaml").scenario.training.overlap;
  EXPECT_EQ(set.tp, parallelism::TpOverlap::kNone);
  EXPECT_TRUE(set.param_gather);
  EXPECT_EQ(set.fsdp_prefetch, 3);
  EXPECT_FALSE(set.dp_reduce);
  EXPECT_TRUE(set.dp_serial);
  EXPECT_FALSE(set.gemm_sm_margin);
}

TEST_F(ConfigFiles, TheStackProfileFillsWhatTheScenarioLeavesOpen) {
  const fs::path root(PODSIM_SOURCE_DIR);
  auto scenario = [&](const std::string& training) {
    return "schema_version: 1\nmodel: " + (root / "configs/models/gpt-1.7b.yaml").string() + "\nhardware: " +
           (root / "configs/hardware/h100.yaml").string() + "\ntopology: " +
           (root / "topologies/h100-superpod-1024.yaml").string() + "\nparallelism: { tp: 4 }\ntraining: { global_batch: 1024" +
           training + " }\n";
  };
  // The hardware's default: megatron-lm (no flash, Megatron's loss, eager host, no collective matmul).
  write("plain.yaml", scenario(""));
  const runtime::Scenario plain = load_scenario("plain.yaml").scenario;
  EXPECT_EQ(plain.training.stack, workload::Stack::kMegatronLm);
  EXPECT_FALSE(plain.training.flash_attention);
  EXPECT_EQ(plain.training.loss_kernel, workload::LossKernel::kMegatron);
  EXPECT_EQ(plain.training.host.launch_ps, workload::kEagerPytorch.launch_ps);
  // megatron-core: Transformer Engine's fused attention; torchtitan: SDPA and F.cross_entropy.
  write("core.yaml", scenario(", stack: megatron-core"));
  const runtime::Scenario core = load_scenario("core.yaml").scenario;
  EXPECT_TRUE(core.training.flash_attention);
  // Megatron accumulates and all-reduces bf16 training's gradients in fp32; fp16's as written.
  EXPECT_EQ(core.training.precision.grads, hardware::DType::kFp32);
  EXPECT_EQ(parallelism::reduce_dtype(core.training.precision), hardware::DType::kFp32);
  EXPECT_EQ(plain.training.precision.grads, hardware::DType::kBf16);
  write("core-fp16.yaml", scenario(", stack: megatron-core, precision: { compute: fp16, comm: fp16 }"));
  const runtime::Scenario core16 = load_scenario("core-fp16.yaml").scenario;
  EXPECT_EQ(core16.training.precision.grads, hardware::DType::kBf16);
  EXPECT_EQ(parallelism::reduce_dtype(core16.training.precision), hardware::DType::kFp16);
  write("titan.yaml", scenario(", stack: torchtitan"));
  const runtime::Scenario titan = load_scenario("titan.yaml").scenario;
  EXPECT_TRUE(titan.training.flash_attention);
  EXPECT_EQ(titan.training.loss_kernel, workload::LossKernel::kPyTorch);
  // ... and reductions in fp32 (mixed_precision_reduce), where the others move precision.comm.
  EXPECT_EQ(parallelism::reduce_dtype(titan.training.precision), hardware::DType::kFp32);
  EXPECT_EQ(parallelism::reduce_dtype(plain.training.precision), hardware::DType::kBf16);
  write("titan-bf16.yaml", scenario(", stack: torchtitan, precision: { reduce: bf16 }"));
  EXPECT_EQ(parallelism::reduce_dtype(load_scenario("titan-bf16.yaml").scenario.training.precision),
            hardware::DType::kBf16);
  // maxtext on a GPU: XLA's defaults follow (compiled: no host cost; collective matmul).
  write("xla.yaml", scenario(", stack: maxtext"));
  const runtime::Scenario xla = load_scenario("xla.yaml").scenario;
  EXPECT_FALSE(xla.training.host.any());
  EXPECT_EQ(xla.chip.stack, hardware::SoftwareStack::kXla);
  EXPECT_EQ(xla.training.overlap.tp, parallelism::TpOverlap::kCollectiveMatmul);
  EXPECT_EQ(xla.training.loss_kernel, workload::LossKernel::kFused);
  // The scenario's own keys win over the profile.
  write("mine.yaml", scenario(", stack: megatron-core, flash_attention: false, host: { dispatch: 0 us, launch: 0 us }"));
  const runtime::Scenario mine = load_scenario("mine.yaml").scenario;
  EXPECT_FALSE(mine.training.flash_attention);
  EXPECT_FALSE(mine.training.host.any());
  // A word outside the profiles is refused with the accepted ones.
  write("bad.yaml", scenario(", stack: nemo"));
  try {
    load_scenario("bad.yaml");
    FAIL() << "stack: nemo was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("training.stack"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("megatron-core"), std::string::npos) << e.what();
  }
}

TEST_F(ConfigFiles, HopperGemmsRunPersistentGridsOtherChipsWaves) {
  const fs::path root(PODSIM_SOURCE_DIR);
  EXPECT_TRUE(load_hardware(root / "configs/hardware/h100.yaml").persistent_matmuls);
  EXPECT_TRUE(load_hardware(root / "configs/hardware/h200.yaml").persistent_matmuls);
  EXPECT_FALSE(load_hardware(root / "configs/hardware/a100-80gb.yaml").persistent_matmuls);
  EXPECT_FALSE(load_hardware(root / "configs/hardware/tpu-v5e.yaml").persistent_matmuls);
}

TEST_F(ConfigFiles, DpAutoIsWhatTensorAndPipelineDegreesLeave) {
  const fs::path root(PODSIM_SOURCE_DIR);
  const std::string head = "schema_version: 1\nmodel: " + (root / "configs/models/gpt-1.7b.yaml").string() +
                           "\nhardware: " + (root / "configs/hardware/a100-80gb.yaml").string() + "\ntopology: " +
                           (root / "topologies/a100-dgx-8x8.yaml").string() + "\ntraining: { global_batch: 64 }\n";
  write("auto.yaml", head + "parallelism: { dp: auto, tp: 4, pp: 2 }\n");
  const LoadedScenario loaded = load_scenario("auto.yaml");
  EXPECT_EQ(loaded.scenario.parallel.dp, 8);  // 64 chips / (4 × 2)
  EXPECT_NE(loaded.resolved_yaml().find("dp: 8"), std::string::npos);  // the file says what auto chose
  write("omitted.yaml", head + "parallelism: { tp: 4, pp: 2 }\n");
  EXPECT_EQ(load_scenario("omitted.yaml").scenario.parallel.dp, 8);
  write("odd.yaml", head + "parallelism: { dp: auto, tp: 3 }\n");
  EXPECT_THROW(load_scenario("odd.yaml"), InputError);  // 3 does not divide 64
}

/// A --set flag as the command line gives it.
Override set(const std::string& path, const std::string& value) {
  return Override{path, value, "--set " + path + "=" + value, fs::current_path()};
}

/// Why `s`'s layout cannot run ("" when it can).
std::string refusal(const LoadedScenario& s) {
  try {
    s.check_layout(s.scenario);
  } catch (const InfeasibleLayout& e) {
    return std::string(e.what());
  }
  return std::string();
}

TEST_F(ConfigFiles, ReadingAgainWithMoreOverridesIsLoadingWithThemAll) {
  // A sweep's derived keys: the point is read, then read again with the derived values. Its
  // defaults must follow the new values (dp is what tp and pp leave), not the first reading's.
  const fs::path root(PODSIM_SOURCE_DIR);
  write("again.yaml", "schema_version: 1\nmodel: " + (root / "configs/models/gpt-1.7b.yaml").string() +
                          "\nhardware: " + (root / "configs/hardware/a100-80gb.yaml").string() + "\ntopology: " +
                          (root / "topologies/a100-dgx-8x8.yaml").string() +
                          "\ntraining: { global_batch: 64 }\nparallelism: { tp: 2 }\n");
  LoadedScenario first = load_scenario("again.yaml", {set("training.micro_batch", "2")}, false);
  EXPECT_EQ(first.scenario.parallel.dp, 32);
  const LoadedScenario again = first.again({set("parallelism.tp", "4"), set("parallelism.pp", "2")}, false);
  const LoadedScenario direct = load_scenario(
      "again.yaml", {set("training.micro_batch", "2"), set("parallelism.tp", "4"), set("parallelism.pp", "2")}, false);
  EXPECT_EQ(again.scenario.parallel.dp, 8);
  EXPECT_EQ(again.resolved_yaml(), direct.resolved_yaml());
  for (const char* key : {"parallelism.tp", "parallelism.dp", "training.micro_batch", "training.global_batch"}) {
    EXPECT_EQ(again.where(key), direct.where(key)) << key;
  }
  // Overrides only under parallelism re-read that section alone; any other key, the whole
  // document. Both give what loading with them all gives, read again in turn.
  const LoadedScenario mixed = again.again({set("parallelism.tp", "8"), set("training.micro_batch", "1")}, false);
  const LoadedScenario mixed_direct =
      load_scenario("again.yaml",
                    {set("training.micro_batch", "2"), set("parallelism.tp", "4"), set("parallelism.pp", "2"),
                     set("parallelism.tp", "8"), set("training.micro_batch", "1")},
                    false);
  EXPECT_EQ(mixed.scenario.parallel.dp, 4);
  EXPECT_EQ(mixed.scenario.training.micro_batch, 1);
  EXPECT_EQ(mixed.resolved_yaml(), mixed_direct.resolved_yaml());
  const LoadedScenario back = mixed.again({set("parallelism.pp", "1")}, false);
  EXPECT_EQ(back.scenario.parallel.dp, 8);
  EXPECT_EQ(back.scenario.training.micro_batch, 1);
  EXPECT_EQ(back.resolved_yaml(),
            load_scenario("again.yaml",
                          {set("training.micro_batch", "2"), set("parallelism.tp", "4"), set("parallelism.pp", "2"),
                           set("parallelism.tp", "8"), set("training.micro_batch", "1"), set("parallelism.pp", "1")},
                          false)
                .resolved_yaml());
  // A bad value under parallelism is refused where it was set, as loading refuses it.
  const auto error = [](const std::function<void()>& read) {
    try {
      read();
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string fresh = error([] { load_scenario("again.yaml", {set("parallelism.pp", "0")}, false); });
  EXPECT_NE(fresh, "");
  EXPECT_EQ(error([&] { (void)again.again({set("parallelism.pp", "0")}, false); }), fresh);
  // The same refusal, at the same place, when the new values cannot run.
  LoadedScenario odd_first = load_scenario("again.yaml", {}, false);
  const LoadedScenario odd = odd_first.again({set("parallelism.dp", "3")}, false);
  const std::string expected = refusal(load_scenario("again.yaml", {set("parallelism.dp", "3")}, false));
  EXPECT_NE(expected, "");
  EXPECT_EQ(refusal(odd), expected);
  // A file is not replaced without reading it.
  LoadedScenario files = load_scenario("again.yaml", {}, false);
  EXPECT_THROW(files.again({set("model", "other.yaml")}, false), InputError);
}

/// A scenario on one DGX A100 node (GPT 1.7B, tp 2), the shipped files included by absolute
/// path; `training` is its training mapping as written.
std::string dgx_scenario(const std::string& training = "{ global_batch: 64 }") {
  const fs::path root(PODSIM_SOURCE_DIR);
  return "model: " + (root / "configs/models/gpt-1.7b.yaml").string() +
         "\nhardware: " + (root / "configs/hardware/a100-80gb.yaml").string() +
         "\ntopology: " + (root / "topologies/a100-dgx-8x8.yaml").string() +
         "\nschema_version: 1\ntraining: " + training + "\nparallelism:\n  tp: 2\n  pp: 1\n";
}

TEST_F(ConfigFiles, FilesParsedOnceGiveWhatReadingThemGivesMarksIncluded) {
  // A sweep reads its files through ParsedFiles: each is parsed once, and every later load
  // gets a copy. The copies must carry the marks (every message names line and column), and
  // a load must not see what an earlier one changed in its copy (overrides, defaults).
  const fs::path root(PODSIM_SOURCE_DIR);
  write("m.yaml", dgx_scenario());
  ParsedFiles files;
  const std::vector<std::vector<Override>> cases = {
      {set("parallelism.dp", "3")},          // refused at the file's own line for pp
      {set("training.micro_batch", "2")},    // fits; fills defaults into its copy
      {},                                    // must not see micro_batch 2
      {set("parallelism.dp", "16"), set("parallelism.tp", "8")},  // 128 chips of 64: refused
      {set("model", (root / "configs/models/gpt-1.7b.yaml").string())},
  };
  for (int round = 0; round < 2; ++round) {
    for (const auto& overrides : cases) {
      const LoadedScenario direct = load_scenario("m.yaml", overrides, false);
      const LoadedScenario cached = load_scenario("m.yaml", overrides, false, files);
      EXPECT_EQ(cached.resolved_yaml(), direct.resolved_yaml());
      EXPECT_TRUE(cached.scenario == direct.scenario);
      EXPECT_EQ(cached.name, direct.name);
      EXPECT_EQ(refusal(cached), refusal(direct));
      for (const char* key : {"parallelism.tp", "parallelism.pp", "training.global_batch", "model.layers",
                              "hardware.hbm_capacity", "topology.kind"}) {
        EXPECT_EQ(cached.where(key), direct.where(key)) << key;
        const std::string where = cached.where(key);
        EXPECT_TRUE(where.find(".yaml:") != std::string::npos || where.rfind("--set", 0) == 0) << where;
      }
    }
  }
  EXPECT_NE(refusal(load_scenario("m.yaml", cases[0], false, files)), "");
  // The second round was put together from the sections the first one read.
  EXPECT_GE(files.sections().hits(), cases.size());
  // A value the file gets wrong is named at its line and column either way.
  write("bad.yaml", "schema_version: 1\nmodel: nonexistent.yaml\n");
  std::string direct_error;
  std::string cached_error;
  try {
    load_scenario("bad.yaml", {}, false);
  } catch (const InputError& e) {
    direct_error = e.what();
  }
  try {
    load_scenario("bad.yaml", {}, false, files);
  } catch (const InputError& e) {
    cached_error = e.what();
  }
  EXPECT_NE(direct_error.find("bad.yaml:2:"), std::string::npos) << direct_error;
  EXPECT_EQ(cached_error, direct_error);
}

TEST_F(ConfigFiles, SectionsReadBeforeArePutTogetherAsReadingThemGives) {
  // A sweep's points read through ParsedFiles: a point whose every section (model, hardware,
  // topology, network, parallelism, training) was read before, for the same overrides of it,
  // is put together from them. It must be the point read afresh, its layout refusals named at
  // the same keys, and read again with more overrides as load_scenario with all of them.
  const fs::path root(PODSIM_SOURCE_DIR);
  write("s.yaml", dgx_scenario());
  ParsedFiles files;
  std::vector<std::vector<Override>> points;
  for (const char* tp : {"1", "2", "8"}) {
    for (const char* mb : {"1", "2"}) {
      for (const char* recompute : {"none", "full"}) {
        for (const char* model : {"gpt-1.7b", "gpt-3.6b"}) {
          for (const char* network : {"analytical", "contention"}) {
            points.push_back({set("parallelism.tp", tp), set("training.micro_batch", mb),
                              set("training.recompute", recompute),
                              set("model", (root / "configs/models" / (std::string(model) + ".yaml")).string()),
                              set("network", network)});
          }
        }
      }
    }
  }
  for (int round = 0; round < 2; ++round) {
    for (const auto& overrides : points) {
      const LoadedScenario direct = load_scenario("s.yaml", overrides, false);
      const LoadedScenario cached = load_scenario("s.yaml", overrides, false, files);
      EXPECT_TRUE(cached.scenario == direct.scenario);
      EXPECT_EQ(cached.name, direct.name);
      EXPECT_EQ(cached.inputs.size(), direct.inputs.size());
      EXPECT_EQ(refusal(cached), refusal(direct));
      EXPECT_EQ(cached.where("training.micro_batch"), direct.where("training.micro_batch"));
      // A sweep's derived dp: read again with it.
      const int dp = 64 / std::stoi(overrides[0].value);
      const std::vector<Override> more = {set("parallelism.dp", std::to_string(dp))};
      std::vector<Override> all = overrides;
      all.insert(all.end(), more.begin(), more.end());
      const LoadedScenario again = cached.again(more, false);
      const LoadedScenario whole = load_scenario("s.yaml", all, false);
      EXPECT_TRUE(again.scenario == whole.scenario);
      EXPECT_EQ(refusal(again), refusal(whole));
      EXPECT_THROW(cached.again({set("model", "other.yaml")}, false), InputError);
    }
  }
  // Every point of the second round, and most of the first (its sections repeat; parallelism
  // and network, missing, read alone), were put together: 48 points, each read again with its dp.
  EXPECT_GE(files.sections().hits(), 96u);
  // A document with an anchor is read whole every time: an alias could tie two sections.
  write("a.yaml", dgx_scenario("&t { global_batch: 64 }"));
  ParsedFiles anchored;
  for (int round = 0; round < 2; ++round) {
    const LoadedScenario cached = load_scenario("a.yaml", points[0], false, anchored);
    EXPECT_TRUE(cached.scenario == load_scenario("a.yaml", points[0], false).scenario);
  }
  EXPECT_TRUE(anchored.saw_anchor());
  EXPECT_EQ(anchored.sections().hits(), 0u);
}

}  // namespace
}  // namespace podsim::config
