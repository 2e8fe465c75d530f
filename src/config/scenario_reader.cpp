#include "config/scenario_reader.hpp"

#include "config/network_reader.hpp"
#include "parallelism/overlap.hpp"
#include "util/units.hpp"
#include "workload/stack_profile.hpp"

namespace podsim::config {

namespace {

hardware::DType read_dtype(const Reader& r, const std::string& key) {
  return *hardware::dtype_from_name(r.choice(key, hardware::dtype_names()));
}

}  // namespace

parallelism::ParallelSpec read_parallelism(Reader& r, std::uint32_t chips) {
  r.allow_only({"dp", "tp", "pp", "schedule", "virtual_stages", "microbatch_group", "zero", "zero_group",
                "sequence_parallel", "mesh", "stage_layers", "first_stage_layers", "last_stage_layers",
                "account_for_embedding", "account_for_loss"});
  parallelism::ParallelSpec p;
  r.set_default("tp", "1");
  r.set_default("pp", "1");
  p.tp = static_cast<int>(r.integer("tp", 1, 1 << 20));
  p.pp = static_cast<int>(r.integer("pp", 1, 1 << 20));
  // `dp: auto` (or no dp): every chip the tensor and pipeline degrees leave.
  const bool auto_dp = !r.has("dp") || r.text("dp") == "auto";
  if (auto_dp) {
    // Each degree is at most 2^20, so tp × pp fits in 64 bits (not in an int: 65536 × 65536
    // once wrapped to 0 and divided by it).
    const std::int64_t tp_pp = std::int64_t{p.tp} * p.pp;
    if (chips % tp_pp != 0) {
      r.fail("tp", "tp × pp (" + std::to_string(tp_pp) + ") does not divide the " + std::to_string(chips) +
                       " chips; give dp, tp and pp");
    }
    if (r.has("dp")) {
      r.node("dp") = std::to_string(chips / tp_pp);  // the resolved scenario says what auto chose
    } else {
      r.set_default("dp", std::to_string(chips / tp_pp));
    }
  }
  p.dp = static_cast<int>(r.integer("dp", 1, 1 << 20));
  r.set_default("schedule", "1f1b");
  p.schedule = r.choice("schedule", parallelism::kSchedules, parallelism::schedule_name);
  r.set_default("virtual_stages", "1");
  p.virtual_stages = static_cast<int>(r.integer("virtual_stages", 1, 1024));
  // Not given: pp, whatever pp a sweep or the planner gives the scenario (as zero_group).
  if (r.has("microbatch_group")) {
    p.microbatch_group = static_cast<int>(r.integer("microbatch_group", 1, 1 << 20));
    if (p.microbatch_group == p.pp) p.microbatch_group = 0;
  }
  r.set_default("zero", "0");
  p.zero = static_cast<int>(r.integer("zero", 0, 3));
  // Hybrid sharding: ZeRO groups of zero_group replicas. Not given (or dp): one group of all
  // dp, whatever dp a sweep or the planner gives the scenario.
  if (r.has("zero_group")) {
    p.zero_group = static_cast<int>(r.integer("zero_group", 1, 1 << 20));
    if (p.zero_group == p.dp) p.zero_group = 0;
  }
  r.set_default("sequence_parallel", "false");
  p.sequence_parallel = r.boolean("sequence_parallel");
  if (r.has("stage_layers")) {
    for (const std::int64_t n : r.integer_list("stage_layers", 0, 100'000)) p.stage_layers.push_back(static_cast<int>(n));
  }
  if (r.has("first_stage_layers")) p.first_stage_layers = static_cast<int>(r.integer("first_stage_layers", 0, 100'000));
  if (r.has("last_stage_layers")) p.last_stage_layers = static_cast<int>(r.integer("last_stage_layers", 0, 100'000));
  r.set_default("account_for_embedding", "false");
  p.account_for_embedding = r.boolean("account_for_embedding");
  r.set_default("account_for_loss", "false");
  p.account_for_loss = r.boolean("account_for_loss");
  if (r.has("mesh")) {
    const Reader mesh = r.child("mesh");
    mesh.allow_only({"dp", "tp", "pp", "dp_replica"});
    for (const char* axis : {"dp", "tp", "pp", "dp_replica"}) {
      if (!mesh.has(axis)) continue;
      const YAML::Node list = mesh.node(axis);
      if (!list.IsSequence()) mesh.fail(axis, "expected a list of physical axes like [x, y]");
      for (const auto& item : list) {
        if (!item.IsScalar()) mesh.fail(axis, "expected a list of physical axes like [x, y]");
        p.mesh[axis].push_back(item.Scalar());
      }
    }
  }
  return p;
}

namespace {

/// `training.overlap:`, each key defaulting to what the chip's software stack does.
parallelism::OverlapSpec read_overlap(Reader& training, workload::Stack stack) {
  const parallelism::OverlapSpec d = parallelism::default_overlap(stack);
  if (!training.has("overlap")) training.set_default("overlap", "{}");
  Reader r = training.child("overlap");
  r.allow_only({"tp", "param_gather", "fsdp_prefetch", "fsdp_reduce_limit", "dp_reduce", "dp_serial", "gemm_sm_margin"});
  r.set_default("tp", parallelism::tp_overlap_name(d.tp));
  r.set_default("param_gather", d.param_gather ? "true" : "false");
  r.set_default("fsdp_prefetch", std::to_string(d.fsdp_prefetch));
  r.set_default("fsdp_reduce_limit", std::to_string(d.fsdp_reduce_limit));
  r.set_default("dp_reduce", d.dp_reduce ? "true" : "false");
  r.set_default("dp_serial", d.dp_serial ? "true" : "false");
  r.set_default("gemm_sm_margin", d.gemm_sm_margin ? "true" : "false");
  parallelism::OverlapSpec o;
  o.tp = r.choice("tp", parallelism::kTpOverlaps, parallelism::tp_overlap_name);
  o.param_gather = r.boolean("param_gather");
  o.fsdp_prefetch = static_cast<int>(r.integer("fsdp_prefetch", 0, 1 << 20));
  o.fsdp_reduce_limit = static_cast<int>(r.integer("fsdp_reduce_limit", 0, 1 << 20));
  o.dp_reduce = r.boolean("dp_reduce");
  o.dp_serial = r.boolean("dp_serial");
  o.gemm_sm_margin = r.boolean("gemm_sm_margin");
  return o;
}

/// `training.host`: the host's cost per dispatcher call and per kernel launch, the stack
/// profile's unless the scenario says (0 for both: CUDA graphs, a compiled program).
workload::HostCost read_host(Reader& parent, const workload::StackProfile& profile) {
  const workload::HostCost stack = profile.host;
  if (!parent.has("host")) parent.set_default("host", "{}");
  Reader r = parent.child("host");
  r.allow_only({"dispatch", "launch"});
  // Exactly as the reader reads it back: whole microseconds, else picoseconds.
  auto written = [](SimTime ps) {
    return ps % 1'000'000 == 0 ? std::to_string(ps / 1'000'000) + " us" : std::to_string(ps) + " ps";
  };
  r.set_default("dispatch", written(stack.dispatch_ps));
  r.set_default("launch", written(stack.launch_ps));
  auto cost = [&](const char* key) {
    const SimTime v = r.duration(key);
    if (v > kPsPerSecond / 1000) r.fail(key, "is above 1 ms per call; did you mean a smaller unit?");
    return v;
  };
  return workload::HostCost{cost("dispatch"), cost("launch")};
}

}  // namespace

namespace {

/// `training.tokens` and `training.failures` (runtime/time_to_train.hpp). Neither is given a
/// default: a scenario without them resolves as before.
void read_run_length(Reader& r, parallelism::TrainingSpec& t) {
  if (r.has("tokens")) t.tokens = r.real("tokens", 1, 1e18);
  if (!r.has("failures")) return;
  if (!r.has("tokens")) r.fail("failures", "needs training.tokens, the tokens the run trains on");
  Reader f = r.child("failures");
  f.allow_only({"chip_mtbf", "checkpoint", "restart", "checkpoint_interval"});
  parallelism::FailureSpec spec;
  spec.chip_mtbf_s = f.span("chip_mtbf");
  if (!(spec.chip_mtbf_s > 0)) f.fail("chip_mtbf", "must be above 0 (one chip's mean time between failures)");
  f.set_default("checkpoint", "0 s");
  spec.checkpoint_s = f.span("checkpoint");
  f.set_default("restart", "0 s");
  spec.restart_s = f.span("restart");
  if (f.has("checkpoint_interval")) {
    spec.interval_s = f.span("checkpoint_interval");
    if (!(spec.interval_s > 0)) f.fail("checkpoint_interval", "must be above 0 (leave it out for Young's optimum)");
  }
  t.failures = spec;
}

}  // namespace

parallelism::TrainingSpec read_training(Reader& r, const workload::ModelSpec& model, const hardware::ChipSpec& given_chip) {
  if (r.has("overlap_dp")) r.fail("overlap_dp", "is now training.overlap.dp_reduce (docs/configuration.md, Overlap)");
  r.allow_only({"stack", "global_batch", "micro_batch", "seq_len", "recompute", "precision", "flash_attention", "flash_kernel",
                "loss_kernel", "train_metrics", "dp_bucket", "zero3_collectives", "overlap", "input", "host", "tokens",
                "failures"});
  parallelism::TrainingSpec t;
  // The software that trains: its profile's defaults fill what the scenario leaves open, and
  // its family (megatron, xla) is the chip's from here on (scenario_config sets it).
  r.set_default("stack", workload::stack_name(workload::default_stack(given_chip.stack)));
  t.stack = r.choice("stack", workload::kStacks, workload::stack_name);
  const workload::StackProfile& profile = workload::stack_profile(t.stack);
  hardware::ChipSpec chip = given_chip;
  chip.stack = profile.family;
  t.global_batch = static_cast<int>(r.integer("global_batch", 1, 1LL << 30));
  r.set_default("micro_batch", "1");
  t.micro_batch = static_cast<int>(r.integer("micro_batch", 1, 1 << 20));
  r.set_default("seq_len", std::to_string(model.seq_len));
  t.seq_len = static_cast<int>(r.integer("seq_len", 1, 100'000'000));
  r.set_default("recompute", "none");
  t.recompute = r.choice("recompute", workload::kRematPolicies, workload::recompute_name);
  if (!r.has("precision")) r.set_default("precision", "{}");
  Reader prec = r.child("precision");
  prec.allow_only({"compute", "params", "grads", "optimizer", "comm", "reduce", "activations", "fp8_attention",
                   "loss"});
  prec.set_default("compute", "bf16");
  const hardware::DType compute = read_dtype(prec, "compute");
  prec.set_default("params", "fp32");
  prec.set_default(
      "grads",
      std::string(hardware::dtype_name(workload::default_grads_dtype(profile, compute, hardware::DType::kBf16))));
  prec.set_default("optimizer", "fp32");
  prec.set_default("comm", "bf16");
  t.precision = {compute,
                 read_dtype(prec, "params"),
                 read_dtype(prec, "grads"),
                 read_dtype(prec, "optimizer"),
                 read_dtype(prec, "comm"),
                 std::nullopt,
                 false,
                 std::nullopt};
  // Transformer Engine's split: with 8-bit GEMMs everything else stays in bf16.
  prec.set_default("activations", std::string(hardware::dtype_name(parallelism::activation_dtype(t.precision))));
  t.precision.activations = read_dtype(prec, "activations");
  if (hardware::dtype_bytes(*t.precision.activations) < 2) {
    prec.fail("activations", "activations are kept in 16 or 32 bits (fp8 applies to the GEMMs: set compute: fp8)");
  }
  prec.set_default(
      "reduce", std::string(hardware::dtype_name(workload::default_reduce_dtype(profile, compute, t.precision.comm))));
  t.precision.reduce = read_dtype(prec, "reduce");
  prec.set_default("fp8_attention", "false");
  t.precision.fp8_attention = prec.boolean("fp8_attention");
  prec.set_default("loss", "fp32");
  t.precision.loss = read_dtype(prec, "loss");
  if (hardware::dtype_bytes(t.precision.loss) < 2) prec.fail("loss", "the logits and the loss are kept in 16 or 32 bits");
  r.set_default("flash_attention", profile.flash_attention ? "true" : "false");
  t.flash_attention = r.boolean("flash_attention");
  r.set_default("flash_kernel", "native");
  t.flash_kernel = r.choice("flash_kernel", hardware::kFlashKernels, hardware::flash_kernel_name);
  if (t.flash_kernel != hardware::FlashKernel::kNative) {
    if (!t.flash_attention) r.fail("flash_kernel", "names a fused-attention kernel, but training.flash_attention is false");
    if (!hardware::has_flash_kernel(chip, t.flash_kernel)) {
      r.fail("flash_kernel", "hardware " + chip.name + " has no efficiency.triton_attention (no rate measured for "
                             "the Triton FlashAttention kernel on it; docs/calibration.md)");
    }
  }
  r.set_default("loss_kernel", workload::loss_kernel_name(profile.loss_kernel));
  t.loss_kernel = r.choice("loss_kernel", workload::kLossKernels, workload::loss_kernel_name);
  r.set_default("train_metrics", "0");
  t.train_metrics = static_cast<int>(r.integer("train_metrics", 0, 64));
  r.set_default("dp_bucket", "25 MiB");  // PyTorch DDP: bucket_cap_mb=25, times 1024 * 1024
  t.dp_bucket_bytes = static_cast<double>(r.bytes("dp_bucket"));
  if (t.dp_bucket_bytes < 1) r.fail("dp_bucket", "must be at least 1 B");
  r.set_default("zero3_collectives", "flat");
  t.zero3_collectives =
      r.choice("zero3_collectives", parallelism::kZero3Collectives, parallelism::zero3_collectives_name);
  t.overlap = read_overlap(r, t.stack);
  if (!r.has("input")) r.set_default("input", "{}");
  Reader input = r.child("input");
  input.allow_only({"samples_per_s", "prefetch"});
  input.set_default("samples_per_s", "0");
  input.set_default("prefetch", "2");
  t.input.samples_per_s = input.real("samples_per_s", 0, 1e15);
  t.input.prefetch = static_cast<int>(input.integer("prefetch", 1, 1 << 20));
  t.host = read_host(r, profile);
  read_run_length(r, t);
  return t;
}

network::NetworkSpec read_network_choice(Reader& parent) {
  // A word (`network: contention`) was expanded to {model: …} when the file was loaded.
  if (!parent.has("network")) parent.set_default("network", "{}");
  Reader r = parent.child("network");
  return read_network(r);
}

}  // namespace podsim::config
