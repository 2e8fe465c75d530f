#include "config/model_reader.hpp"

#include "util/error.hpp"
#include "util/units.hpp"

namespace podsim::config {

namespace {
constexpr std::int64_t kBig = 1'000'000'000;

// Plausible ranges of a chip's numbers, wide enough for any accelerator from a laptop GPU to
// one of 2030, narrow enough to catch a forgotten prefix ("275 FLOP/s", "1200 B/s", "32").
constexpr units::PlausibleRange kPeakRange{1e9, 1e18, 3e14, "FLOP/s", "accelerator"};
constexpr units::PlausibleRange kHbmBandwidthRange{1e9, 1e15, 2e12, "B/s", "accelerator memory"};
constexpr units::PlausibleRange kHostBandwidthRange{1e8, 1e13, 3e10, "B/s", "host link (PCIe, C2C)"};
constexpr units::PlausibleRange kHbmCapacityRange{1048576.0, 1125899906842624.0, 68719476736.0, "B",
                                                  "accelerator memory", true};


int whole(const Reader& r, const char* key, std::int64_t min, std::int64_t max) {
  return static_cast<int>(r.integer(key, min, max));
}
}  // namespace

workload::ModelSpec read_model(Reader& r) {
  r.allow_only({"schema_version", "name", "layers", "hidden", "ffn_hidden", "heads", "kv_heads", "head_dim", "vocab",
                "seq_len", "mlp", "parallel_block", "tied_embeddings", "position_embedding", "norm", "dropout",
                "linear_biases"});
  read_document_header(r);
  workload::ModelSpec m;
  m.name = r.text("name");
  m.layers = whole(r, "layers", 1, 100'000);
  m.hidden = whole(r, "hidden", 1, 10'000'000);
  m.ffn_hidden = whole(r, "ffn_hidden", 1, kBig);
  m.heads = whole(r, "heads", 1, 1'000'000);
  r.set_default("kv_heads", std::to_string(m.heads));
  m.kv_heads = whole(r, "kv_heads", 1, m.heads);
  if (m.heads % m.kv_heads != 0) {
    r.fail("kv_heads", "must divide heads (" + std::to_string(m.heads) + "): each key/value head serves a group of query heads");
  }
  if (!r.has("head_dim")) {
    if (m.hidden % m.heads != 0) r.fail("head_dim", "hidden is not a multiple of heads: give head_dim");
    r.set_default("head_dim", std::to_string(m.hidden / m.heads));
  }
  m.head_dim = whole(r, "head_dim", 1, 100'000);
  m.vocab = whole(r, "vocab", 1, kBig);
  m.seq_len = whole(r, "seq_len", 1, 100'000'000);
  r.set_default("mlp", "gelu");
  m.mlp = r.choice("mlp", {"gelu", "swiglu"}) == "swiglu" ? workload::MlpKind::kSwiglu : workload::MlpKind::kGelu;
  r.set_default("parallel_block", "false");
  m.parallel_block = r.boolean("parallel_block");
  r.set_default("tied_embeddings", "true");
  m.tied_embeddings = r.boolean("tied_embeddings");
  r.set_default("position_embedding", "learned");
  m.position = r.choice("position_embedding", {"learned", "rotary"}) == "rotary" ? workload::PositionEmbedding::kRotary
                                                                                 : workload::PositionEmbedding::kLearned;
  r.set_default("norm", "layernorm");
  m.norm = r.choice("norm", {"layernorm", "rmsnorm"}) == "rmsnorm" ? workload::NormKind::kRmsNorm
                                                                   : workload::NormKind::kLayerNorm;
  r.set_default("dropout", "false");
  m.dropout = r.boolean("dropout");
  r.set_default("linear_biases", "false");
  m.linear_biases = r.boolean("linear_biases");
  return m;
}

hardware::ChipSpec read_hardware(Reader& r) {
  r.allow_only({"schema_version", "name", "peak", "hbm", "host_bandwidth", "matmul_tile", "sms", "matmul_grid",
               "stack", "efficiency"});
  read_document_header(r);
  hardware::ChipSpec c;
  c.name = r.text("name");
  const Reader peak = r.child("peak");
  peak.allow_only({"fp32", "bf16", "fp16", "fp8", "int8"});
  const std::vector<std::string> names = hardware::dtype_names();
  bool any = false;
  for (const std::string& name : names) {
    if (!peak.has(name)) continue;
    any = true;
    try {
      c.peak_flops[*hardware::dtype_from_name(name)] = units::parse_flop_rate(peak.text(name));
    } catch (const InputError& e) {
      peak.fail(name, e.what());
    }
    peak.check_plausible(name, c.peak_flops[*hardware::dtype_from_name(name)], kPeakRange);
  }
  if (!any) r.fail("peak", "give the dense peak of at least one dtype, e.g. bf16: 275 TFLOP/s");
  const Reader hbm = r.child("hbm");
  hbm.allow_only({"capacity", "bandwidth", "reserved"});
  c.hbm_capacity_bytes = static_cast<double>(hbm.bytes("capacity"));
  hbm.check_plausible("capacity", c.hbm_capacity_bytes, kHbmCapacityRange);
  if (hbm.has("reserved")) {
    c.hbm_reserved_bytes = static_cast<double>(hbm.bytes("reserved"));
    if (!(c.hbm_reserved_bytes < c.hbm_capacity_bytes)) hbm.fail("reserved", "must be less than the capacity");
  }
  c.hbm_bandwidth_Bps = hbm.bandwidth("bandwidth");
  hbm.check_plausible("bandwidth", c.hbm_bandwidth_Bps, kHbmBandwidthRange);
  if (r.has("host_bandwidth")) {
    c.host_bandwidth_Bps = r.bandwidth("host_bandwidth");
    r.check_plausible("host_bandwidth", c.host_bandwidth_Bps, kHostBandwidthRange);
  }
  c.matmul_tile = static_cast<int>(r.integer("matmul_tile", 1, 4096));
  if (r.has("sms")) c.sms = static_cast<int>(r.integer("sms", 1, 100000));
  r.set_default("matmul_grid", "waves");
  c.persistent_matmuls = r.choice("matmul_grid", {"waves", "persistent"}) == "persistent";
  r.set_default("stack", "megatron");
  c.stack = r.choice("stack", {"megatron", "xla"}) == "xla" ? hardware::SoftwareStack::kXla
                                                            : hardware::SoftwareStack::kMegatron;
  const Reader e = r.child("efficiency");
  e.allow_only({"matmul", "training", "memory", "op_overhead", "ici", "dcn", "flash_attention", "triton_attention"});
  c.efficiency.matmul = e.real("matmul", 0.01, 1.0);
  if (e.has("training")) c.efficiency.training = e.real("training", 0.01, 1.0);
  c.efficiency.memory = e.real("memory", 0.01, 1.0);
  c.efficiency.op_overhead_ps = e.duration("op_overhead");
  if (c.efficiency.op_overhead_ps > kPsPerSecond / 1000) e.fail("op_overhead", "is above 1 ms per op; did you mean a smaller unit?");
  c.efficiency.ici = e.real("ici", 0.01, 1.0);
  c.efficiency.dcn = e.real("dcn", 0.01, 1.0);
  if (e.has("flash_attention")) c.efficiency.flash_attention = e.real("flash_attention", 0.01, 1.0);
  if (e.has("triton_attention")) c.efficiency.triton_attention = e.real("triton_attention", 0.01, 1.0);
  return c;
}

}  // namespace podsim::config
