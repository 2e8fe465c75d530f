#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <utility>

#include "util/error.hpp"
#include "validation/row_case.hpp"
#include "validation/row_knobs.hpp"
#include "validation/stack.hpp"
#include "validation/validation_run.hpp"

namespace podsim::validation {
namespace {

namespace fs = std::filesystem;

class Csv : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("podsim_csv_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path write(const std::string& text) {
    const fs::path p = dir_ / "t.csv";
    std::ofstream(p) << text;
    return p;
  }
  fs::path dir_;
};

TEST_F(Csv, QuotedFieldsHoldCommasQuotesAndNewlines) {
  const auto rows = read_csv(write("a,b\n1,\"x, \"\"y\"\"\nz\"\n2,w\n"), {"a", "b"});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].at("b"), "x, \"y\"\nz");
  EXPECT_EQ(rows[1].line, 4);
  EXPECT_EQ(rows[1].at("missing"), "");
}

TEST_F(Csv, ASpreadsheetsByteOrderMarkAndLineEndsAreNotPartOfTheTable) {
  // "CSV UTF-8" from a spreadsheet: a byte order mark before the header and CRLF line ends.
  const auto rows = read_csv(write("\xEF\xBB\xBF" "a,b\r\n1,2\r\n"), {"a", "b"});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].at("a"), "1");
  EXPECT_EQ(rows[0].at("b"), "2");
}

TEST_F(Csv, ErrorsNameTheLine) {
  try {
    read_csv(write("a,b\n1,2\n3\n"), {"a", "b"});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("t.csv:3: 1 fields, but the header has 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_csv(write("a,b\n1,\"open\n"), {"a"}), InputError);
  try {
    read_csv(write("id,sourse\n"), {"id", "source"});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("missing column \"source\" (did you mean \"sourse\"?)"), std::string::npos);
  }
}

CsvRow row(std::map<std::string, std::string> cells) {
  CsvRow r;
  r.line = 2;
  r.cells = std::move(cells);
  return r;
}

const Catalog kCatalog{PODSIM_SOURCE_DIR};

/// An MPT-7B-shaped row on 8 GPUs of `hardware` (a small model: 8 layers of 1024), expressed as
/// a training run; `zero` left empty says nothing of sharding.
RowCase mpt_7b_on_8(const std::string& source, const std::string& hardware, const std::string& recompute,
                         const std::string& precision, const std::string& zero = "PyTorch FSDP FULL_SHARD") {
  std::map<std::string, std::string> cells{
      {"source", source}, {"hardware", hardware}, {"n_chips", "8"}, {"model", "MPT (ALiBi/flash attn)"},
      {"params", "7B"}, {"layers", "8"}, {"hidden", "1024"}, {"ffn_hidden", "4096"}, {"heads", "8"},
      {"seq_len", "2048"}, {"vocab", "50368"}, {"global_batch_seqs", "8"}, {"micro_batch", "1"}, {"tp", "1"},
      {"pp", "1"}, {"dp", "8"}, {"recompute", recompute}, {"precision", precision}};
  if (!zero.empty()) cells["zero_or_fsdp"] = zero;
  const RowCase c = express(row(std::move(cells)), kCatalog);
  EXPECT_TRUE(std::holds_alternative<TrainingCase>(c.what)) << c.skip_reason;
  return c;
}
/// The training the row of mpt_7b_on_8 runs.
const parallelism::TrainingSpec& training_of(const RowCase& c) {
  return std::get<TrainingCase>(c.what).scenario.training;
}

TEST(Express, ARowNeverSeenBeforeBecomesAScenario) {
  // An H100 LLaMA-3 8B run on 64 GPUs with FSDP: no such row ships with podsim. It states tp,
  // the ZeRO stage and the recompute; pp and the micro batch are left to the planner.
  const RowCase c = express(row({{"id", "new"}, {"hardware", "H100 SXM5 80GB, 8 per node"}, {"n_chips", "64"},
                                 {"model", "LLaMA-3 8B"}, {"layers", "32"}, {"hidden", "4096"}, {"ffn_hidden", "14336"},
                                 {"heads", "32"}, {"kv_heads", "8"}, {"seq_len", "8192"}, {"vocab", "128256"},
                                 {"global_batch_seqs", "512"}, {"tp", "2"}, {"zero_or_fsdp", "FSDP"},
                                 {"recompute", "selective"}, {"precision", "bf16"}, {"notes", "flash attention"}}),
                            kCatalog);
  ASSERT_TRUE(std::holds_alternative<TrainingCase>(c.what)) << c.skip_reason;
  const auto& k = std::get<TrainingCase>(c.what);
  const auto& s = k.scenario;
  EXPECT_EQ(c.family, "H100");
  EXPECT_EQ(k.search.fixed.tp, 2);
  EXPECT_FALSE(k.search.fixed.pp.has_value());
  EXPECT_EQ(k.search.fixed.zero, 3);
  EXPECT_EQ(k.search.fixed.recompute, parallelism::Recompute::kSelective);
  EXPECT_EQ(k.unstated, (std::vector<std::string>{"pp", "micro batch", "sequence parallelism"}));
  // A schedule nobody states is the frameworks' default, not the planner's fastest.
  ASSERT_TRUE(k.search.fixed.schedule.has_value());
  EXPECT_EQ(*k.search.fixed.schedule, (std::pair{parallelism::PipelineSchedule::kOneFOneB, 1}));
  EXPECT_EQ(k.max_tp, 8);  // tensor parallelism stays in a node
  EXPECT_FALSE(k.search.gpipe);
  EXPECT_EQ(s.model.kv_heads, 8);
  EXPECT_EQ(s.model.mlp, workload::MlpKind::kSwiglu);
  EXPECT_FALSE(s.model.dropout);
  EXPECT_TRUE(s.training.flash_attention);
  EXPECT_EQ(std::get<topology::SwitchSpec>(s.topology.layout).nodes, 8);
  EXPECT_FALSE(c.assumptions.empty());

  // Validated, the open knobs are chosen by the planner and said so; the layout fits.
  auto r = row({{"id", "new"}, {"source", "Someone et al. 2031"}, {"hardware", "H100 SXM5 80GB"}, {"n_chips", "16"},
                {"model", "LLaMA-style 1B"}, {"layers", "8"}, {"hidden", "2048"}, {"ffn_hidden", "5632"},
                {"heads", "16"}, {"seq_len", "2048"}, {"vocab", "32000"}, {"global_batch_seqs", "64"},
                {"recompute", "none"}, {"measured_metric", "tokens/s per GPU"}, {"measured_value", "1000"}});
  const auto report = validate({r}, kCatalog);
  ASSERT_EQ(report.rows.size(), 1u) << (report.skipped.empty() ? "" : report.skipped[0].reason);
  const auto& result = report.rows[0];
  EXPECT_TRUE(result.fits);
  EXPECT_TRUE(result.reports_run);
  EXPECT_EQ(result.source, "Someone et al.");
  bool said = false;
  for (const auto& a : result.assumptions) said = said || a.find("layout chosen by the planner") != std::string::npos;
  EXPECT_TRUE(said);
  EXPECT_NE(result.layout.find("recompute none"), std::string::npos) << result.layout;
}

TEST(Express, LayoutDegreesOutOfRangeSkipTheRowWithTheReason) {
  // Found by the csv fuzz target: pp 0 divided the chips by zero.
  auto cells = [](const char* tp, const char* pp, const char* dp) {
    return row({{"id", "x"}, {"hardware", "H100 SXM5 80GB"}, {"n_chips", "16"}, {"model", "LLaMA-style 1B"},
                {"layers", "8"}, {"hidden", "2048"}, {"ffn_hidden", "5632"}, {"heads", "16"}, {"seq_len", "2048"},
                {"vocab", "32000"}, {"global_batch_seqs", "64"}, {"tp", tp}, {"pp", pp}, {"dp", dp},
                {"measured_metric", "tokens/s per GPU"}, {"measured_value", "1000"}});
  };
  EXPECT_EQ(express(cells("2", "0", ""), kCatalog).skip_reason, "pp 0 is not 1 to 1048576");
  EXPECT_EQ(express(cells("-4", "1", ""), kCatalog).skip_reason, "tp -4 is not 1 to 1048576");
  EXPECT_EQ(express(cells("8", "4", ""), kCatalog).skip_reason, "tp × pp is more than the 16 chips");
  EXPECT_EQ(express(cells("1048576", "1048576", ""), kCatalog).skip_reason, "tp × pp is more than the 16 chips");
  auto no_heads = cells("1", "1", "");
  no_heads.cells["heads"] = "0";  // found by the csv fuzz target: hidden / heads
  EXPECT_EQ(express(no_heads, kCatalog).skip_reason, "heads 0 is not 1 to 2147483647");
}

TEST(Express, FlopsAreCountedAsTheRowsSourceCountedThem) {
  auto count = [](const std::string& text, const std::string& source) {
    return metric_of(row({{"measured_metric", text}, {"recompute", "full"}, {"source", source}}))->count;
  };
  EXPECT_EQ(count("TFLOP/s per GPU (hardware FLOPs, counts recompute: 8*N*tokens)", "BigScience"), FlopCount::kEightN);
  EXPECT_EQ(count("achieved TFLOP/s per GPU", "Narayanan et al. SC21"), FlopCount::kSc21Eq3);
  EXPECT_EQ(count("TFLOP/s per chip (MFU in notes)", "google/maxtext README.md"), FlopCount::kMaxText);
  EXPECT_EQ(count("TFLOP/s per GPU", "someone else"), FlopCount::kModel);
  // A launch fact's flop_count wins: MaxText halved its attention term on 2023-11-08.
  EXPECT_EQ(metric_of(row({{"measured_metric", "TFLOP/s per chip (MFU in notes)"},
                           {"source", "google/maxtext README.md"},
                           {"flop_count", "maxtext-causal"}}))
                ->count,
            FlopCount::kMaxTextCausal);

  // A GPT-3-like block, untied: every count from its definition.
  workload::ModelSpec m;
  m.layers = 4;
  m.hidden = 1024;
  m.heads = 8;
  m.kv_heads = 8;
  m.head_dim = 128;
  m.ffn_hidden = 4096;
  m.vocab = 32000;
  m.tied_embeddings = false;
  const int s = 2048;
  const auto p = workload::count_params(m);
  const double attention = 12.0 * m.layers * m.hidden * s;  // 12·L·s·heads·head_dim per token
  const double model = 6.0 * (m.layers * p.layer_matmul + m.vocab * double(m.hidden)) + attention;
  EXPECT_DOUBLE_EQ(flops_per_token(FlopCount::kModel, m, s), model);
  EXPECT_DOUBLE_EQ(flops_per_token(FlopCount::kSc21Eq3, m, s), model + (model - 6.0 * m.vocab * m.hidden) / 3);
  EXPECT_DOUBLE_EQ(flops_per_token(FlopCount::kEightN, m, s), 8.0 * p.total);
  // MaxText counts both embedding tables and the norms at 6 per parameter: more than podsim's
  // model FLOPs by 6 · (input table + norms).
  EXPECT_DOUBLE_EQ(flops_per_token(FlopCount::kMaxText, m, s), 6.0 * p.total + attention);
  EXPECT_GT(flops_per_token(FlopCount::kMaxText, m, s), model);
  EXPECT_DOUBLE_EQ(flops_per_token(FlopCount::kMaxTextCausal, m, s), 6.0 * p.total + attention / 2);
}

TEST(Express, MetricsAreReadInTheRowsOwnTerms) {
  auto metric = [](const std::string& text, const std::string& recompute = "") {
    return metric_of(row({{"measured_metric", text}, {"recompute", recompute}}))->kind;
  };
  EXPECT_EQ(metric("tokens/s per GPU"), MetricKind::kTokensPerSecondPerChip);
  EXPECT_EQ(metric("tokens/s"), MetricKind::kTokensPerSecond);
  // FLOP/s rows are one kind; how the source counted (the recompute pass or not) is the count.
  auto count = [](const std::string& text, const std::string& recompute = "") {
    return metric_of(row({{"measured_metric", text}, {"recompute", recompute}}))->count;
  };
  EXPECT_EQ(metric("TFLOP/s per GPU (hardware FLOPs, counts recompute: 8*N*tokens)"), MetricKind::kTflopsPerChip);
  EXPECT_EQ(count("TFLOP/s per GPU (hardware FLOPs, counts recompute: 8*N*tokens)"), FlopCount::kEightN);
  EXPECT_EQ(count("achieved TFLOP/s per GPU", "full (FLOPs counted with Eq.3 incl. recompute)"), FlopCount::kSc21Eq3);
  EXPECT_EQ(metric("TFLOP/s per chip (MFU in notes)"), MetricKind::kTflopsPerChip);
  EXPECT_EQ(count("TFLOP/s per chip (MFU in notes)"), FlopCount::kModel);
  // SC21 counts the recompute pass in every table (Eq. 3), whatever the row's recompute cell says.
  EXPECT_EQ(metric_of(row({{"measured_metric", "achieved TFLOP/s per GPU"}, {"recompute", "full"},
                           {"source", "Narayanan et al. SC21 (arXiv 2104.04473) Table 2"}}))->count,
            FlopCount::kSc21Eq3);
  EXPECT_EQ(metric("activation memory per GPU, first pipeline stage (GiB)"), MetricKind::kActivationGiB);
  EXPECT_EQ(metric("per-layer forward+backward time (ms)"), MetricKind::kLayerMilliseconds);
  EXPECT_EQ(metric("HFU (%)"), MetricKind::kHfuPercent);
  EXPECT_FALSE(metric_of(row({{"measured_metric", "joules per token"}})).has_value());
  EXPECT_TRUE(reports_training_run(Metric{MetricKind::kLayerMilliseconds}));
  EXPECT_FALSE(reports_training_run(Metric{MetricKind::kActivationGiB}));
  EXPECT_FALSE(reports_training_run(Metric{MetricKind::kBusbwGBps}));
}

TEST(Stack, TheColumnElseTheRowsText) {
  // The stack column wins; an empty one is read from the text; an unknown word is refused.
  using workload::Stack;
  EXPECT_EQ(stack_of(row({{"stack", "torchtitan"}, {"source", "google/maxtext"}})), Stack::kTorchtitan);
  EXPECT_EQ(stack_of(row({{"source", "google/maxtext README"}})), Stack::kMaxText);
  EXPECT_EQ(stack_of(row({{"source", "mosaicml/llm-foundry scripts/train/benchmarking"}})), Stack::kPytorchFsdp);
  EXPECT_EQ(stack_of(row({{"source", "NVIDIA/Megatron-LM README (Megatron-Core r0.8.0)"}})), Stack::kMegatronCore);
  EXPECT_EQ(stack_of(row({{"source", "Narayanan et al. SC21"}})), Stack::kMegatronLm);
  EXPECT_EQ(stack_of(row({{"source", "Smith et al."}, {"zero_or_fsdp", "DeepSpeed ZeRO-1"}})), Stack::kDeepSpeed);
  EXPECT_FALSE(stack_of(row({{"source", "A blog"}})).has_value());
  EXPECT_FALSE(stack_cell_valid("nemo-2"));
  EXPECT_TRUE(stack_cell_valid("Megatron-Core"));
  EXPECT_TRUE(stack_cell_valid(""));
  for (Stack s : {Stack::kMegatronLm, Stack::kMegatronCore, Stack::kDeepSpeed}) {
    EXPECT_EQ(system_of(row({{"stack", std::string(workload::stack_name(s))}})), System::kMegatron)
        << workload::stack_name(s);
  }
}

TEST(Express, KnobsAreReadAsTheirSystemWritesThem) {
  auto training = [](std::map<std::string, std::string> extra) {
    std::map<std::string, std::string> cells{{"hardware", "TPU v5p"}, {"n_chips", "64"}, {"model", "x"},
                                             {"layers", "8"}, {"hidden", "1024"}, {"ffn_hidden", "3584"},
                                             {"heads", "8"}, {"seq_len", "2048"}, {"vocab", "32000"},
                                             {"global_batch_seqs", "64"}, {"tp", "4"}, {"pp", "1"}};
    for (auto& [k, v] : extra) cells[k] = v;
    const RowCase c = express(row(cells), kCatalog);
    EXPECT_TRUE(std::holds_alternative<TrainingCase>(c.what)) << c.skip_reason;
    return std::get<TrainingCase>(c.what);
  };
  using parallelism::Recompute;
  // MaxText's `full` is JAX's nothing_saveable; its activations are sharded over the tensor axis.
  const auto maxtext = training({{"recompute", "remat_policy=full"}, {"cp_or_sp", "none"},
                                 {"notes", "per_device_batch_size=1"}});
  EXPECT_EQ(maxtext.search.fixed.recompute, Recompute::kNothingSaveable);
  EXPECT_EQ(maxtext.search.fixed.sequence_parallel, true);
  EXPECT_EQ(maxtext.search.fixed.micro_batch, 4);  // no accumulation: the replica's 64 / 16 sequences
  EXPECT_EQ(training({{"recompute", "remat_policy=qkv_proj_offloaded"}}).search.fixed.recompute,
            Recompute::kQkvProjOffloaded);
  // LLaMA's "saved expensive activations, e.g. linear outputs": the dots are checkpointed.
  EXPECT_EQ(training({{"recompute", "selective (saved expensive activations, e.g. linear outputs)"}}).search.fixed.recompute,
            Recompute::kMinimal);
  EXPECT_EQ(training({{"zero_or_fsdp", "PyTorch FSDP SHARD_GRAD_OP (ZeRO-2-like)"}}).search.fixed.zero, 2);
  EXPECT_EQ(training({{"zero_or_fsdp", "ZeRO-1 equivalent (DeepSpeed BF16_Optimizer)"}}).search.fixed.zero, 1);
  EXPECT_FALSE(training({{"zero_or_fsdp", "DeepSpeed data parallel (ZeRO stage not re-verified here)"}})
                   .search.fixed.zero.has_value());
  // DeepSpeed's ZeRO-3 in a paper dated (arXiv) before November 2021 ran per tensor (before
  // DeepSpeed 0.5.5); a later paper's, or FSDP, gathers flat buffers.
  const auto z3 = [&](const std::string& source, const std::string& zero) {
    return training({{"source", source}, {"zero_or_fsdp", zero}}).scenario.training.zero3_collectives;
  };
  using parallelism::Zero3Collectives;
  EXPECT_EQ(z3("Narayanan et al. SC21 (arXiv 2104.04473)", "ZeRO-3 (DeepSpeed)"), Zero3Collectives::kPerTensor);
  EXPECT_EQ(z3("A later paper (arXiv 2305.01234)", "ZeRO-3 (DeepSpeed)"), Zero3Collectives::kFlat);
  EXPECT_EQ(z3("Narayanan et al. SC21 (arXiv 2104.04473)", "PyTorch FSDP FULL_SHARD"), Zero3Collectives::kFlat);
  EXPECT_EQ(z3("No date", "ZeRO-3 (DeepSpeed)"), Zero3Collectives::kFlat);
  // An fp8 cell runs Transformer Engine's fp8 GEMMs (never bf16 without a word); a format podsim
  // has no kernels for, or a cell naming no format, skips the row with the words it accepts.
  EXPECT_EQ(training({{"precision", "fp8 (Transformer Engine, hybrid)"}}).scenario.training.precision.compute,
            hardware::DType::kFp8);
  EXPECT_EQ(training({{"precision", "FP8"}}).scenario.training.precision.compute, hardware::DType::kFp8);
  EXPECT_EQ(training({{"precision", "bf16"}}).scenario.training.precision.compute, hardware::DType::kBf16);
  for (const char* cell : {"nvfp4", "MXFP8 block scaled", "int8 (AQT)", "mixed"}) {
    std::map<std::string, std::string> cells{{"hardware", "TPU v5p"}, {"n_chips", "64"}, {"model", "x"},
                                             {"layers", "8"}, {"hidden", "1024"}, {"ffn_hidden", "3584"},
                                             {"heads", "8"}, {"seq_len", "2048"}, {"vocab", "32000"},
                                             {"global_batch_seqs", "64"}, {"tp", "4"}, {"pp", "1"},
                                             {"precision", cell}};
    const RowCase c = express(row(cells), kCatalog);
    EXPECT_NE(c.skip_reason.find("names no number format podsim models (fp8, fp16"), std::string::npos)
        << cell << ": " << c.skip_reason;
  }
  // Composer's amp_bf16 under FSDP (mixed_precision DEFAULT) reduces gradients in fp32; PURE in bf16.
  EXPECT_EQ(training({{"precision", "amp_bf16"}}).scenario.training.precision.reduce, hardware::DType::kFp32);
  EXPECT_FALSE(training({{"precision", "bf16 (PURE)"}}).scenario.training.precision.reduce.has_value());
  // Composer's bf16 precision is autocast too (FSDP PURE only keeps the weights in bf16): the loss
  // computes in fp32 either way.
  EXPECT_EQ(training({{"precision", "bf16 (PURE)"}}).scenario.training.precision.loss, hardware::DType::kFp32);
  EXPECT_EQ(training({{"precision", "amp_bf16"}}).scenario.training.precision.loss, hardware::DType::kFp32);
  // MaxText's synthetic models keep base.yml's head_dim of 128 (16B: 64 heads of 128 on a 4096
  // embedding); a row's own head_dim wins, and other models split the embedding over the heads.
  const auto scaled = training({{"recompute", "remat_policy=full"}, {"heads", "16"},
                                {"model", "MaxText synthetic 16B (global_parameter_scale=16)"}});
  EXPECT_EQ(scaled.scenario.model.head_dim, 128);
  EXPECT_EQ(training({{"recompute", "remat_policy=full"}, {"heads", "16"}, {"notes", "head_dim 256"},
                      {"model", "MaxText synthetic 16B (global_parameter_scale=16)"}})
                .scenario.model.head_dim,
            256);
  EXPECT_EQ(training({{"recompute", "remat_policy=full"}, {"heads", "16"}, {"model", "MaxText llama2-7b"}})
                .scenario.model.head_dim,
            64);
  // Megatron-LM all-reduces gradients after the backward (--DDP-impl local, its default); a
  // launch fact's dp_reduce wins; other systems overlap the buckets (PyTorch DDP, FSDP, XLA).
  EXPECT_FALSE(training({{"source", "Narayanan et al. SC21"}}).scenario.training.overlap.dp_reduce);
  EXPECT_TRUE(training({{"source", "Narayanan et al. SC21"}, {"dp_reduce", "overlapped"}}).scenario.training.overlap.dp_reduce);
  EXPECT_TRUE(training({{"source", "mosaicml/llm-foundry"}}).scenario.training.overlap.dp_reduce);
  // Megatron's overlap flags run where a Megatron row's notes quote them, and only there: other
  // systems keep their own conventions whatever their notes say.
  const auto flags = training({{"source", "NVIDIA/Megatron-LM README.md"}, {"hardware", "A100-SXM4-80GB"},
                               {"notes", "overlap (--overlap-grad-reduce --overlap-param-gather) and --tp-comm-overlap"}});
  EXPECT_TRUE(flags.scenario.training.overlap.dp_reduce);
  EXPECT_TRUE(flags.scenario.training.overlap.param_gather);
  EXPECT_EQ(flags.scenario.training.overlap.tp, parallelism::TpOverlap::kCollectiveMatmul);
  const auto megatron =
      training({{"source", "NVIDIA/Megatron-LM README.md"}, {"hardware", "A100-SXM4-80GB"}}).scenario.training.overlap;
  EXPECT_FALSE(megatron.dp_reduce);
  EXPECT_FALSE(megatron.param_gather);
  EXPECT_EQ(megatron.tp, parallelism::TpOverlap::kNone);
  const auto other = training({{"source", "mosaicml/llm-foundry"}, {"hardware", "A100-SXM4-80GB"},
                               {"notes", "--overlap-param-gather --tp-comm-overlap"}});
  EXPECT_FALSE(other.scenario.training.overlap.param_gather);
  EXPECT_EQ(other.scenario.training.overlap.tp, parallelism::TpOverlap::kNone);
  // A GPT row is tied unless its notes say untied (Megatron's --untie-embeddings-and-output-weights).
  const auto gpt = [&](const std::string& notes) {
    return training({{"ffn_hidden", "4096"}, {"source", "NVIDIA/Megatron-LM"}, {"notes", notes}}).scenario.model;
  };
  EXPECT_TRUE(gpt("").tied_embeddings);
  EXPECT_FALSE(gpt("untied input and output embeddings").tied_embeddings);
  // Interleaving tries every chunk count that divides a stage's layers (Megatron asserts it), up to
  // one layer per chunk: Megatron-Core's 119B run has 23 layers on each of its 4 stages.
  const auto chunks = [&](const std::string& layers, const std::string& pp) {
    return training({{"layers", layers}, {"pp", pp}, {"tp", "1"}}).search.virtual_stages;
  };
  EXPECT_EQ(chunks("92", "4"), (std::vector<int>{23}));
  EXPECT_EQ(chunks("96", "8"), (std::vector<int>{2, 3, 4, 6, 12}));
  EXPECT_TRUE(chunks("8", "8").empty());  // one layer per stage: nothing to interleave
  // The vocabulary the model computes with: Megatron pads it.
  EXPECT_EQ(training({{"notes", "vocab: 250680 (padded to 250880)"}}).scenario.model.vocab, 250880);
  EXPECT_EQ(training({{"vocab", ""}, {"notes", "vocab = GPT-2 BPE"}}).scenario.model.vocab, 50688);  // 128 × tp 4
  // A recompute podsim does not know is a reason to skip, not a guess.
  EXPECT_NE(express(row({{"hardware", "TPU v5p"}, {"n_chips", "64"}, {"layers", "8"}, {"hidden", "1024"},
                         {"ffn_hidden", "3584"}, {"heads", "8"}, {"seq_len", "2048"}, {"vocab", "32000"},
                         {"global_batch_seqs", "64"}, {"recompute", "remat_policy=everything"}}),
                    kCatalog)
                .skip_reason.find("names no policy"),
            std::string::npos);
  // The scenario's own words are read as they are, and listed when a cell names none of them.
  EXPECT_EQ(recompute_of("minimal_flash"), Recompute::kMinimalFlash);
  EXPECT_EQ(recompute_of("early_stop"), Recompute::kEarlyStop);
  EXPECT_NE(express(row({{"hardware", "TPU v5p"}, {"n_chips", "64"}, {"layers", "8"}, {"hidden", "1024"},
                         {"ffn_hidden", "3584"}, {"heads", "8"}, {"seq_len", "2048"}, {"vocab", "32000"},
                         {"global_batch_seqs", "64"}, {"recompute", "checkpoint everything twice"}}),
                    kCatalog)
                .skip_reason.find("save_qkv_proj"),
            std::string::npos);
  // The ZeRO cell likewise: the scenario's parallelism.zero, the frameworks' names, or open on purpose.
  EXPECT_EQ(zero_of("2"), 2);
  EXPECT_EQ(zero_of("ZeRO-1"), 1);
  EXPECT_EQ(zero_of("zero 3"), 3);
  EXPECT_EQ(zero_of("PyTorch FSDP SHARD_GRAD_OP (ZeRO-2-like)"), 2);
  EXPECT_EQ(zero_of("none"), 0);
  EXPECT_FALSE(zero_of("4").has_value());
  EXPECT_TRUE(zero_left_open(""));
  EXPECT_TRUE(zero_left_open("DeepSpeed data parallel (ZeRO stage not re-verified here)"));
  EXPECT_FALSE(zero_left_open("sharded somehow"));
  const RowCase unread = express(row({{"hardware", "TPU v5p"}, {"n_chips", "64"}, {"layers", "8"}, {"hidden", "1024"},
                                      {"ffn_hidden", "3584"}, {"heads", "8"}, {"seq_len", "2048"}, {"vocab", "32000"},
                                      {"global_batch_seqs", "64"}, {"zero_or_fsdp", "sharded somehow"}}),
                                 kCatalog);
  EXPECT_NE(unread.skip_reason.find("names no ZeRO stage"), std::string::npos) << unread.skip_reason;
  EXPECT_NE(unread.skip_reason.find("SHARD_GRAD_OP"), std::string::npos);
}

TEST(Express, LlmFoundryRowsRunTheAttentionKernelItsScriptsRan) {
  auto kernel = [](const std::string& source, const std::string& hardware, const std::string& chips,
                   const std::string& params, const std::string& notes) {
    const RowCase c = express(row({{"source", source}, {"hardware", hardware}, {"n_chips", chips},
                                   {"model", "MPT (ALiBi/flash attn)"}, {"params", params}, {"layers", "8"},
                                   {"hidden", "1024"}, {"ffn_hidden", "4096"}, {"heads", "8"}, {"seq_len", "2048"},
                                   {"vocab", "50368"}, {"global_batch_seqs", chips}, {"micro_batch", "1"},
                                   {"tp", "1"}, {"pp", "1"}, {"dp", chips}, {"zero_or_fsdp", "PyTorch FSDP FULL_SHARD"},
                                   {"recompute", "none"}, {"precision", "amp_bf16"}, {"notes", notes}}),
                              kCatalog);
    EXPECT_TRUE(std::holds_alternative<TrainingCase>(c.what)) << c.skip_reason;
    const auto& t = std::get<TrainingCase>(c.what).scenario.training;
    EXPECT_TRUE(t.flash_attention);
    return t.flash_kernel;
  };
  using hardware::FlashKernel;
  const std::string foundry = "mosaicml/llm-foundry scripts/train/benchmarking/README.md";
  // The 2023 tables ran submit_benchmarks.py's default, Triton.
  EXPECT_EQ(kernel(foundry, "H100-SXM-80GB", "8", "13B", ""), FlashKernel::kTriton);
  EXPECT_EQ(kernel(foundry, "A100-SXM4-40GB, 1600 Gbps node-node RoCE", "128", "70B", ""), FlashKernel::kTriton);
  // The large-scale H100 table (sweep.py): Triton for 13B and 30B, FlashAttention-2 for the others.
  EXPECT_EQ(kernel(foundry, "H100-SXM-80GB", "512", "30B", ""), FlashKernel::kTriton);
  EXPECT_EQ(kernel(foundry, "H100-SXM-80GB", "512", "7B", ""), FlashKernel::kNative);
  // Notes that name the kernel win.
  EXPECT_EQ(kernel(foundry, "H100-SXM-80GB", "8", "13B", "attn_impl flash"), FlashKernel::kNative);
  EXPECT_EQ(kernel(foundry, "H100-SXM-80GB", "512", "7B", "attn_impl triton"), FlashKernel::kTriton);
  // Other systems run the chip's own kernel.
  EXPECT_EQ(kernel("Some Megatron-LM paper", "H100-SXM-80GB", "8", "13B", ""), FlashKernel::kNative);
}

TEST(Express, LlmFoundryCheckpointingStopsEarlyOnPyTorch21) {
  using parallelism::Recompute;
  auto policy = [](const std::string& source, const std::string& precision) {
    return training_of(mpt_7b_on_8(source, "A100-SXM4-80GB", "full activation checkpointing", precision)).recompute;
  };
  const std::string foundry = "mosaicml/llm-foundry scripts/train/benchmarking/README.md";
  // amp_bf16 tables: the pytorch:2.1.0 image; bf16 PURE tables: the 1.13.1 image re-ran everything.
  EXPECT_EQ(policy(foundry, "amp_bf16"), Recompute::kEarlyStop);
  EXPECT_EQ(policy(foundry, "bf16 (PURE)"), Recompute::kFull);
  // Megatron's full recompute re-runs the whole layer whatever its precision.
  EXPECT_EQ(policy("Some Megatron-LM paper", "amp_bf16"), Recompute::kFull);
}

TEST(Express, LlmFoundryGemmsRunOnAllSmsBesideFsdpsCollectives) {
  auto margin = [](const std::string& source, const std::string& hardware) {
    const RowCase c = mpt_7b_on_8(source, hardware, "none", "amp_bf16");
    const bool said = std::any_of(c.assumptions.begin(), c.assumptions.end(),
                                  [](const std::string& a) { return a.find("two waves") != std::string::npos; });
    return std::pair{training_of(c).overlap.gemm_sm_margin, said};
  };
  const std::string foundry = "mosaicml/llm-foundry scripts/train/benchmarking/README.md";
  // PyTorch FSDP launches cuBLAS on all SMs; on Hopper the report says what that costs.
  EXPECT_EQ(margin(foundry, "H100-SXM-80GB"), std::pair(false, true));
  EXPECT_EQ(margin(foundry, "A100-SXM4-80GB"), std::pair(false, false));  // no persistent grids to lose a wave
  // Megatron-LM keeps its default (Transformer Engine's SM-count target).
  EXPECT_EQ(margin("Some Megatron-LM paper", "H100-SXM-80GB"), std::pair(true, false));
}

TEST(Express, TheLossRunsAsTheRowsSystemRunsIt) {
  auto loss = [](const std::string& source, const std::string& hardware) {
    const RowCase c = mpt_7b_on_8(source, hardware, "none", "amp_bf16", "");
    const auto& t = training_of(c);
    return std::pair{t.loss_kernel, t.train_metrics};
  };
  using workload::LossKernel;
  // llm-foundry: flash-attention's fused xentropy, and Composer's two train metrics of MPT.
  EXPECT_EQ(loss("mosaicml/llm-foundry scripts/train/benchmarking/README.md", "A100-SXM4-80GB"),
            (std::pair{LossKernel::kFused, 2}));
  EXPECT_EQ(loss("Narayanan et al. SC21 Megatron-LM", "A100-SXM4-80GB"), (std::pair{LossKernel::kMegatron, 0}));
  EXPECT_EQ(loss("google/maxtext README.md", "TPU v5p (1x v5p-8 slice)"), (std::pair{LossKernel::kFused, 0}));
  // Another system runs what its chip's stack does.
  EXPECT_EQ(loss("Touvron et al. LLaMA", "A100-SXM4-80GB"), (std::pair{LossKernel::kMegatron, 0}));
}

TEST(Express, AGpuRowThatStatesItsNicsRunsOnThem) {
  // BLOOM's Jean Zay: 4 OmniPath NICs of 100 Gb/s per 8-GPU node = 50 Gb/s per GPU, not the
  // reference cluster's 200; a row silent about its NICs keeps the reference's.
  auto scale_out = [](const std::string& hardware) {
    const RowCase c = express(row({{"hardware", hardware}, {"n_chips", "16"}, {"model", "x"}, {"layers", "4"},
                                   {"hidden", "1024"}, {"ffn_hidden", "4096"}, {"heads", "8"}, {"seq_len", "2048"},
                                   {"vocab", "32000"}, {"global_batch_seqs", "16"}, {"tp", "1"}, {"pp", "1"}}),
                              kCatalog);
    EXPECT_TRUE(std::holds_alternative<TrainingCase>(c.what)) << c.skip_reason;
    return std::get<topology::SwitchSpec>(std::get<TrainingCase>(c.what).scenario.topology.layout).scale_out.bandwidth_Bps;
  };
  EXPECT_DOUBLE_EQ(scale_out("A100-SXM4-80GB (Jean Zay; 8 GPUs/node NVLink, 4x OmniPath 100Gbps per node)"), 50e9 / 8);
  EXPECT_DOUBLE_EQ(scale_out("A100-SXM4-80GB (Selene)"), 200e9 / 8);
}

TEST(Validate, SourcesAreNamedByRepositoryOrAuthors) {
  EXPECT_EQ(source_key("google/maxtext README.md 'Runtime Performance Results'"), "google/maxtext");
  EXPECT_EQ(source_key("Narayanan et al. 'Efficient Large-Scale ...' (SC21)"), "Narayanan et al.");
  EXPECT_EQ(source_key("BigScience 'BLOOM'"), "BigScience");
}

TEST(Express, TpuSlicesAndMultisliceShapes) {
  const RowCase c = express(row({{"hardware", "TPU v5p (4x v5p-512 slices over DCN)"}, {"n_chips", "1024"},
                                 {"model", "x"}, {"layers", "8"}, {"hidden", "1024"}, {"ffn_hidden", "4096"},
                                 {"heads", "8"}, {"seq_len", "2048"}, {"vocab", "32000"}, {"global_batch_seqs", "1024"}}),
                            kCatalog);
  ASSERT_TRUE(std::holds_alternative<TrainingCase>(c.what)) << c.skip_reason;
  const auto& ms = std::get<topology::MultisliceSpec>(std::get<TrainingCase>(c.what).scenario.topology.layout);
  EXPECT_EQ(ms.slices, 4);
  EXPECT_EQ(ms.slice.dims, (std::vector<int>{4, 8, 8}));
  EXPECT_EQ(ms.slice.wraparound, (std::vector<bool>{true, true, true}));
}

TEST(Express, RowsItCannotExpressSayWhy) {
  EXPECT_NE(express(row({{"hardware", "Cerebras CS-2"}, {"n_chips", "1"}}), kCatalog).skip_reason.find("no configs/hardware"),
            std::string::npos);
  EXPECT_NE(express(row({{"hardware", "A100 80GB"}, {"n_chips", "12"}, {"layers", "2"}, {"hidden", "64"},
                         {"ffn_hidden", "256"}, {"heads", "2"}, {"seq_len", "64"}, {"vocab", "64"},
                         {"global_batch_seqs", "12"}}),
                    kCatalog)
                .skip_reason.find("of 8-GPU nodes"),
            std::string::npos);
}

TEST(Express, CollectiveRowsParseSizeAndAxis) {
  const RowCase c = express(row({{"hardware", "8x A100-SXM4-80GB (single node)"}, {"n_chips", "8"},
                                 {"model", "collective: NCCL all-reduce"}, {"params", "message 67M"},
                                 {"notes", "binary sizes"}}),
                            kCatalog);
  ASSERT_TRUE(std::holds_alternative<CollectiveCase>(c.what)) << c.skip_reason;
  EXPECT_EQ(std::get<CollectiveCase>(c.what).bytes, 1ull << 26);
  const RowCase g = express(row({{"hardware", "TPU v5e, mesh {X:8, Y:4}, gather over Y"}, {"n_chips", "32"},
                                 {"model", "collective: AllGather_Y bf16[2048,8192]"}}),
                            kCatalog);
  ASSERT_TRUE(std::holds_alternative<CollectiveCase>(g.what)) << g.skip_reason;
  EXPECT_EQ(std::get<CollectiveCase>(g.what).bytes, 2048u * 8192 * 2);
  EXPECT_EQ(std::get<CollectiveCase>(g.what).axes, (std::vector<std::string>{"y"}));
}

// Numbers that express() cuts out of free text with a regex may not be numbers, or may not
// fit: it skips the row and says why, instead of letting std::stod/stoi throw (podsim
// validate stopped with "internal error: stod") or converting an out-of-range double.
// The first row is the fuzz finding (tests/fuzz, csv target): "message .G".
TEST(Express, NumbersCutFromTextThatDoNotParseOrFitSkipTheRow) {
  const auto skipped = [](const std::map<std::string, std::string>& cells, const std::string& why) {
    RowCase c;
    EXPECT_NO_THROW(c = express(row(cells), kCatalog)) << cells.at("id");
    EXPECT_TRUE(std::holds_alternative<std::monostate>(c.what)) << cells.at("id");
    EXPECT_NE(c.skip_reason.find(why), std::string::npos) << cells.at("id") << ": " << c.skip_reason;
  };
  const std::map<std::string, std::string> a100 = {{"hardware", "8x A100-SXM4-80GB"}, {"n_chips", "8"},
                                                   {"model", "collective: NCCL all-reduce"}};
  auto with = [](std::map<std::string, std::string> cells, std::map<std::string, std::string> more) {
    for (auto& [k, v] : more) cells[k] = v;
    return cells;
  };
  skipped(with(a100, {{"id", "dot"}, {"params", "message .G"}}), "message size not recognised");
  skipped(with(a100, {{"id", "dots"}, {"params", "message 1.2.3 MB"}}), "message size not recognised");
  skipped(with(a100, {{"id", "huge"}, {"params", "message 99999999999999999999 GB"}}), "message size not recognised");
  skipped(with(a100, {{"id", "empty dim"}, {"model", "collective: all-reduce bf16[2048,,8192]"}}),
          "message size not recognised");
  skipped(with(a100, {{"id", "huge shape"}, {"model", "collective: all-reduce fp32[4294967296,4294967296]"}}),
          "message size not recognised");

  const std::map<std::string, std::string> v5e = {{"model", "x"}, {"layers", "8"}, {"hidden", "1024"},
                                                  {"ffn_hidden", "4096"}, {"heads", "8"}, {"seq_len", "2048"},
                                                  {"vocab", "32000"}, {"global_batch_seqs", "256"}, {"n_chips", "256"}};
  skipped(with(v5e, {{"id", "slice"}, {"hardware", "TPU v5e 99999999999x16 slice"}}), "slice shape");
  skipped(with(v5e, {{"id", "mesh"}, {"hardware", "TPU v5e mesh {X:99999999999, Y:16}"}}), "slice shape");
  skipped(with(v5e, {{"id", "zero axis"}, {"hardware", "TPU v5e 0x16 slice"}}), "slice shape");
  skipped(with(v5e, {{"id", "slices"}, {"hardware", "TPU v5e (99999999999999999999x v5e-256)"}}), "slices");
  skipped(with(v5e, {{"id", "no slices"}, {"hardware", "TPU v5e (0x v5e-256)"}}), "slices");  // was 256 % 0
  skipped(with(v5e, {{"id", "head_dim"}, {"hardware", "TPU v5e 16x16 slice"}, {"notes", "head_dim 99999999999"}}),
          "head_dim");

  // An axis size that does not parse names no axis: the group spans all of them.
  const RowCase c = express(row({{"id", "axis"}, {"hardware", "TPU v5e 16x16 slice"}, {"n_chips", "256"},
                                 {"model", "collective: all-gather along the 99999999999-axis"},
                                 {"params", "message 1 MB"}}),
                            kCatalog);
  ASSERT_TRUE(std::holds_alternative<CollectiveCase>(c.what)) << c.skip_reason;
  EXPECT_EQ(std::get<CollectiveCase>(c.what).axes, (std::vector<std::string>{"x", "y"}));
}

TEST(Validate, ComparesInTheRowsOwnMetric) {
  // A pure-DP GPT on 8 A100s, reported as iteration time and as TFLOP/s with Eq. 3: the two
  // predictions must be consistent (TFLOP/s = Eq. 3 FLOPs / (time × chips)).
  auto make = [](const std::string& metric, const std::string& recompute, const std::string& value) {
    return row({{"id", metric}, {"hardware", "A100-SXM4-80GB"}, {"n_chips", "8"}, {"model", "GPT"}, {"layers", "4"},
                {"hidden", "1024"}, {"ffn_hidden", "4096"}, {"heads", "16"}, {"seq_len", "1024"}, {"vocab", "51200"},
                {"global_batch_seqs", "64"}, {"recompute", recompute}, {"precision", "fp16 mixed"},
                {"measured_metric", metric}, {"measured_value", value}});
  };
  const auto report = validate({make("iteration time (s)", "full", "1"),
                                make("achieved TFLOP/s per GPU", "full (FLOPs counted with Eq.3 incl. recompute)", "100"),
                                make("something else", "", "1")},
                               kCatalog);
  ASSERT_EQ(report.rows.size(), 2u);
  ASSERT_EQ(report.skipped.size(), 1u);
  const double t = report.rows[0].predicted;
  const double B = 64, L = 4, s = 1024, h = 1024, V = 51200;
  const double eq3 = 96 * B * L * s * h * h * (1 + s / (6 * h) + V / (16 * h * L));
  EXPECT_NEAR(report.rows[1].predicted, eq3 / (t * 8) / 1e12, 1e-9 * report.rows[1].predicted);
}

TEST_F(Csv, LaunchFactsFillOnlyWhatTheRowLeavesOpenAndNameTheirArtifact) {
  const auto facts = read_launch_facts(write(
      "id,tp,pp,dp,micro_batch,interleave_v,dp_reduce,recompute,global_batch_seqs,architecture,flop_count,params,corrects,source\n"
      "r,,,,4,1,after-backward,,,,,,,run.sh: MBS=4\n"));
  ASSERT_EQ(facts.size(), 1u);
  CsvRow stated = row({{"id", "r"}, {"micro_batch", "2"}, {"interleave_v", ""}});
  const std::string said = apply_launch_fact(stated, facts.at("r").front());
  EXPECT_EQ(stated.at("micro_batch"), "2");  // the row's own cell wins
  EXPECT_EQ(stated.at("interleave_v"), "1");
  EXPECT_EQ(stated.at("dp_reduce"), "after-backward");
  EXPECT_EQ(said, "gradients all-reduced after the backward, plain 1F1B (run.sh: MBS=4)");
  CsvRow full = row({{"micro_batch", "2"}, {"interleave_v", "2"}, {"dp_reduce", "overlapped"}});
  EXPECT_EQ(apply_launch_fact(full, facts.at("r").front()), "");
}

TEST_F(Csv, ACorrectionReplacesExactlyTheValueItNames) {
  const auto facts = read_launch_facts(write(
      "id,tp,pp,dp,micro_batch,interleave_v,dp_reduce,recompute,global_batch_seqs,architecture,flop_count,params,corrects,source\n"
      "r,,,,,,,remat_policy=full,,,,,remat_policy=minimal,script at the table's commit\n"));
  CsvRow later = row({{"id", "r"}, {"recompute", "remat_policy=minimal"}});
  EXPECT_EQ(apply_launch_fact(later, facts.at("r").front()),
            "recompute remat_policy=full in place of the row's remat_policy=minimal (script at the table's commit)");
  EXPECT_EQ(later.at("recompute"), "remat_policy=full");
  CsvRow open = row({{"id", "r"}, {"recompute", ""}});
  EXPECT_EQ(apply_launch_fact(open, facts.at("r").front()), "recompute remat_policy=full (script at the table's commit)");
  CsvRow same = row({{"id", "r"}, {"recompute", "remat_policy=full"}});
  EXPECT_EQ(apply_launch_fact(same, facts.at("r").front()), "");
  // A row that changed since the correction was written: the correction no longer applies.
  CsvRow other = row({{"id", "r"}, {"recompute", "remat_policy=save_qkv_proj"}});
  try {
    apply_launch_fact(other, facts.at("r").front());
    ADD_FAILURE() << "a stale correction applied";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("it corrects recompute \"remat_policy=minimal\", but the row states "
                                         "\"remat_policy=save_qkv_proj\""),
              std::string::npos)
        << e.what();
  }
}

TEST_F(Csv, AnArchitectureCorrectionReplacesTheModelTheRowStatesAndReachesTheScenario) {
  // MaxText's v5e figures ran base.yml of 2023; the row states what base.yml of 2024 gives.
  const auto facts = read_launch_facts(write(
      "id,tp,pp,dp,micro_batch,interleave_v,dp_reduce,recompute,global_batch_seqs,architecture,flop_count,params,corrects,source\n"
      "r,,,,,,,,,layers=32 hidden=10240 ffn_hidden=32768 heads=32 kv_heads=32 vocab=32768 head_dim=256 mlp=relu "
      "tied=yes,,,vocab=32000 hidden=8192 ffn_hidden=28672 heads=64 kv_heads=64 layers=32,base.yml then\n"
      "r,,,,,,,,512,,,,384,script then\n"));
  ASSERT_EQ(facts.at("r").size(), 2u);
  std::map<std::string, std::string> cells{
      {"id", "r"},           {"hardware", "TPU v5e (1x v5e-256 pod)"}, {"n_chips", "256"},
      {"model", "MaxText synthetic 32B (global_parameter_scale=32)"}, {"layers", "32"}, {"hidden", "8192"},
      {"ffn_hidden", "28672"}, {"heads", "64"}, {"kv_heads", "64"}, {"seq_len", "2048"}, {"vocab", "32000"},
      {"global_batch_seqs", "384"}, {"tp", "1"}, {"pp", "1"}, {"recompute", "remat_policy=full"},
      {"source", "google/maxtext README.md"}, {"measured_metric", "TFLOP/s per chip (MFU in notes)"}};
  CsvRow stated = row(cells);
  const std::string said = apply_launch_facts(stated, facts.at("r"));
  EXPECT_EQ(said,
            "architecture layers=32 hidden=10240 ffn_hidden=32768 heads=32 kv_heads=32 vocab=32768 head_dim=256 mlp=relu "
            "tied=yes in place of the row's layers=32 hidden=8192 ffn_hidden=28672 heads=64 kv_heads=64 vocab=32000 (base.yml then); "
            "global batch 512 in place of the row's 384 (script then)");
  EXPECT_EQ(stated.at("hidden"), "10240");
  EXPECT_EQ(stated.at("global_batch_seqs"), "512");
  const RowCase c = express(stated, kCatalog);
  ASSERT_TRUE(std::holds_alternative<TrainingCase>(c.what)) << c.skip_reason;
  const auto& m = std::get<TrainingCase>(c.what).scenario.model;
  EXPECT_EQ(m.hidden, 10240);
  EXPECT_EQ(m.ffn_hidden, 32768);
  EXPECT_EQ(m.heads, 32);
  EXPECT_EQ(m.head_dim, 256);
  EXPECT_EQ(m.vocab, 32768);
  EXPECT_EQ(m.mlp, workload::MlpKind::kGelu);  // two matrices, as ReLU's
  EXPECT_TRUE(m.tied_embeddings);
  // The row as stated gets MaxText's defaults of 2024: SwiGLU, untied, head_dim 128.
  const RowCase as_stated = express(row(cells), kCatalog);
  ASSERT_TRUE(std::holds_alternative<TrainingCase>(as_stated.what)) << as_stated.skip_reason;
  const auto& m24 = std::get<TrainingCase>(as_stated.what).scenario.model;
  EXPECT_EQ(m24.mlp, workload::MlpKind::kSwiglu);
  EXPECT_FALSE(m24.tied_embeddings);
  EXPECT_EQ(m24.head_dim, 128);
  // A row that no longer states what the correction names: the correction refuses.
  cells["hidden"] = "4096";
  CsvRow changed = row(cells);
  try {
    apply_launch_facts(changed, facts.at("r"));
    ADD_FAILURE() << "a stale architecture correction applied";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("it corrects architecture \"vocab=32000 hidden=8192"), std::string::npos)
        << e.what();
  }
}

TEST_F(Csv, AParamsCorrectionRestatesACollectivesMessageAsTheBenchmarkRanIt) {
  // nccl-tests doubling from 8 B printed "1K" for 2^10 B; a row that does not say so reads 1000 B.
  const auto facts = read_launch_facts(write(
      "id,tp,pp,dp,micro_batch,interleave_v,dp_reduce,recompute,global_batch_seqs,architecture,flop_count,params,corrects,source\n"
      "r,,,,,,,,,,,message 1KiB,message 1K,all_reduce_perf -b 8 -f 2\n"));
  const std::map<std::string, std::string> cells{{"id", "r"},
                                                 {"hardware", "8x H200 141GB, NVLink4/NVSwitch gen3 (single node)"},
                                                 {"n_chips", "8"},
                                                 {"model", "collective: NCCL all-reduce"},
                                                 {"params", "message 1K"}};
  auto bytes = [](const CsvRow& r) {
    const RowCase c = express(r, kCatalog);
    EXPECT_TRUE(std::holds_alternative<CollectiveCase>(c.what)) << c.skip_reason;
    return std::holds_alternative<CollectiveCase>(c.what) ? std::get<CollectiveCase>(c.what).bytes : 0;
  };
  EXPECT_EQ(bytes(row(cells)), 1000u);
  CsvRow corrected = row(cells);
  EXPECT_EQ(apply_launch_fact(corrected, facts.at("r").front()),
            "\"message 1KiB\" in place of the row's message 1K (all_reduce_perf -b 8 -f 2)");
  EXPECT_EQ(bytes(corrected), 1024u);
  auto changed_cells = cells;
  changed_cells["params"] = "message 2K";
  CsvRow changed = row(changed_cells);
  EXPECT_THROW(apply_launch_fact(changed, facts.at("r").front()), InputError);
}

TEST_F(Csv, LaunchFactsRefuseWhatTheyCannotMean) {
  const std::string header = "id,tp,pp,dp,micro_batch,interleave_v,dp_reduce,recompute,global_batch_seqs,architecture,flop_count,params,corrects,source\n";
  for (const auto& [body, says] : std::vector<std::pair<std::string, std::string>>{
           {"r,,,,0,,,,,,,,,s\n", "t.csv:2: micro_batch \"0\" is not a whole number from 1"},
           {"r,,,,,,sometimes,,,,,,,s\n", "t.csv:2: dp_reduce \"sometimes\" is not overlapped or after-backward"},
           {"r,,,,2,,,,,,,,,\n", "t.csv:2: source is empty"},
           {"r,,,,,,,,,,,,,s\n", "t.csv:2: states no knob"},
           {"r,8,,,,,,full,,,,,none,s\n", "t.csv:2: corrects \"none\" but states 2 knobs"},
           {"r,8,,,,,,,,,,,,s\nr,4,,,,,,,,,,,,s\n", "t.csv:3: id \"r\" states tp twice"},
           {"r,,,,,,,,,layers=2 width=3,,,,s\n", "t.csv:2: architecture \"width\" is not an architecture key"},
           {"r,,,,,,,,,mlp=tanh,,,,s\n", "t.csv:2: architecture mlp \"tanh\" is not relu, gelu or swiglu"},
           {"r,,,,,,,,,layers,,,,s\n", "t.csv:2: architecture \"layers\" is not key=value"},
           {"r,,,,,,,,,,halved,,,s\n", "t.csv:2: flop_count \"halved\" is not model, sc21-eq3, 8n, maxtext or maxtext-causal"},
           {"r,,,,,,,,,layers=2,,,head_dim=64,s\n", "t.csv:2: corrects \"head_dim\" is not one of the row's model cells"}}) {
    try {
      read_launch_facts(write(header + body));
      ADD_FAILURE() << body;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  }
}

TEST(Validate, LaunchFactsReachTheSimulatedRun) {
  // SC21's 39B run: run_table_1.sh gives MBS=4, no virtual stages and Megatron's local DDP.
  const Catalog catalog = load_catalog(PODSIM_SOURCE_DIR);
  ASSERT_TRUE(catalog.launch.count("mlm21-t1-05"));
  const auto rows = read_csv(fs::path(PODSIM_SOURCE_DIR) / "configs/validation/published.csv", published_columns());
  std::vector<CsvRow> one;
  for (const auto& r : rows) {
    if (r.at("id") == "mlm21-t1-05") one.push_back(r);
  }
  ASSERT_EQ(one.size(), 1u);
  const auto with = validate(one, catalog);
  ASSERT_EQ(with.rows.size(), 1u);
  const auto& s = *with.rows[0].scenario;
  EXPECT_EQ(s.training.micro_batch, 4);
  EXPECT_EQ(s.parallel.schedule, parallelism::PipelineSchedule::kOneFOneB);
  EXPECT_FALSE(s.training.overlap.dp_reduce);
  EXPECT_NE(with.rows[0].assumptions.front().find("run_table_1.sh"), std::string::npos);
  // Without the facts the planner chooses the micro batch, as for any row it has never seen,
  // and the schedule is the frameworks' default, plain 1F1B (no longer the planner's fastest,
  // which interleaved this run).
  const auto without = validate(one, Catalog{PODSIM_SOURCE_DIR});
  ASSERT_EQ(without.rows.size(), 1u);
  EXPECT_EQ(without.rows[0].scenario->parallel.schedule, parallelism::PipelineSchedule::kOneFOneB);
  EXPECT_NE(without.rows[0].scenario->training.micro_batch, 4);
  for (const auto& a : without.rows[0].assumptions) EXPECT_EQ(a.find("run_table_1.sh"), std::string::npos) << a;
}

TEST(Express, AnUnstatedScheduleIsTheDefaultUnlessTheRunOverlapsPipelineCommunication) {
  auto cells = [](const std::string& notes) {
    return std::map<std::string, std::string>{
        {"id", "pipe"},        {"source", "Someone et al. 2031"}, {"hardware", "A100 80GB"}, {"n_chips", "64"},
        {"model", "GPT 8B"},   {"layers", "32"},                  {"hidden", "4096"},       {"ffn_hidden", "16384"},
        {"heads", "32"},       {"seq_len", "2048"},               {"vocab", "51200"},       {"global_batch_seqs", "256"},
        {"tp", "8"},           {"pp", "4"},                       {"micro_batch", "1"},     {"recompute", "none"},
        {"precision", "bf16"}, {"measured_metric", "achieved TFLOP/s per GPU"}, {"measured_value", "150"},
        {"notes", notes}};
  };
  // Silent: Megatron-LM's and DeepSpeed's default, said so.
  const RowCase plain = express(row(cells("Megatron-LM")), kCatalog);
  ASSERT_TRUE(std::holds_alternative<TrainingCase>(plain.what)) << plain.skip_reason;
  const auto& p = std::get<TrainingCase>(plain.what);
  EXPECT_EQ(p.search.fixed.schedule, (std::pair{parallelism::PipelineSchedule::kOneFOneB, 1}));
  EXPECT_EQ(std::count(p.unstated.begin(), p.unstated.end(), "schedule"), 0);
  bool said = false;
  for (const auto& a : plain.assumptions) said = said || a.find("plain 1F1B, the frameworks' default") != std::string::npos;
  EXPECT_TRUE(said);
  // Overlapped pipeline-parallel communication exists only interleaved: the planner picks the
  // chunks (those dividing the stage's 8 layers), never plain 1F1B.
  const RowCase inter = express(row(cells("Megatron-LM with --overlap-p2p-communication")), kCatalog);
  ASSERT_TRUE(std::holds_alternative<TrainingCase>(inter.what)) << inter.skip_reason;
  const auto& i = std::get<TrainingCase>(inter.what);
  EXPECT_FALSE(i.search.fixed.schedule.has_value());
  EXPECT_FALSE(i.search.plain_1f1b);
  EXPECT_EQ(i.search.virtual_stages, (std::vector<int>{2, 4, 8}));
  const auto report = validate({row(cells("Megatron-LM: overlapping of pipeline-parallel communication"))}, kCatalog);
  ASSERT_EQ(report.rows.size(), 1u) << (report.skipped.empty() ? "" : report.skipped[0].reason);
  EXPECT_EQ(report.rows[0].scenario->parallel.schedule, parallelism::PipelineSchedule::kInterleaved);
}

TEST(Validate, RowsSharingMeasurementsPredictWhatEachRowAloneDoes) {
  // validate and validate --cross share one CommMemo across rows and across the constants a
  // refit tries: a communication's measurement depends on the machine, network and placement,
  // not on compute constants. Each prediction must be the bits the row alone gives.
  const Catalog catalog = load_catalog(PODSIM_SOURCE_DIR);
  const auto rows = read_csv(fs::path(PODSIM_SOURCE_DIR) / "configs/validation/published.csv", published_columns());
  std::vector<CsvRow> some;
  for (const auto& r : rows) {
    const std::string id = r.at("id");
    // Two layouts on one DGX A100 (tensor and data parallel), a planner's choice on 32 nodes,
    // and H100 FSDP on 16 and 64 nodes.
    if (id == "kor22-t4-22B-baseline-no-recompute" || id == "mpt-7b-8-a100" || id == "mlm21-t1-05" ||
        id == "mpt-70b-128-h100" || id == "mpt-3b-512-h100") {
      some.push_back(r);
    }
  }
  ASSERT_EQ(some.size(), 5u);
  runtime::CommMemo memo;
  for (const double training : {0.0, 0.8, 0.9}) {
    Overrides o;
    if (training > 0) {
      o.set("training", "a100-80gb", training);
      o.set("training", "a100-40gb", training);
      o.set("training", "h100", training);
    }
    for (const auto& row : some) {
      const RowOutcome alone = validate_row(row, catalog, o);
      const RowOutcome shared = validate_row(row, catalog, o, &memo);
      ASSERT_TRUE(alone.result && shared.result) << row.at("id");
      EXPECT_EQ(shared.result->predicted, alone.result->predicted) << row.at("id") << " at " << training;
      EXPECT_EQ(shared.result->layout, alone.result->layout) << row.at("id");
    }
  }
  // The refits change the prediction: the constants do reach the rows.
  Overrides slow;
  slow.set("training", "h100", 0.5);
  const auto h100 = std::find_if(some.begin(), some.end(), [](const CsvRow& r) { return r.at("id") == "mpt-3b-512-h100"; });
  EXPECT_NE(validate_row(*h100, catalog, slow, &memo).result->predicted,
            validate_row(*h100, catalog, {}, &memo).result->predicted);
}

}  // namespace
}  // namespace podsim::validation
