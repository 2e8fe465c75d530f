#include "validation/row_case.hpp"

#include <cstdint>
#include <algorithm>
#include <utility>
#include <cctype>
#include <charconv>
#include <climits>
#include <cmath>
#include <regex>
#include <sstream>

#include "config/component_config.hpp"
#include "config/topology_config.hpp"
#include "parallelism/overlap.hpp"
#include "util/error.hpp"
#include "util/units.hpp"
#include "validation/metric.hpp"
#include "validation/row_knobs.hpp"
#include "validation/stack.hpp"

namespace podsim::validation {

namespace {


// Numbers cut out of free text by a regex are text: they may not parse ("." matches
// [0-9.]+) or not fit. These say so with nullopt, and the row is skipped with a reason,
// where std::stod/stoi would throw std::invalid_argument or std::out_of_range.

/// A whole number in [min, max] written in digits, or nullopt.
std::optional<long long> whole(const std::string& digits, long long min, long long max) {
  long long v = 0;
  const char* end = digits.data() + digits.size();
  const auto [ptr, ec] = std::from_chars(digits.data(), end, v);
  if (ec != std::errc() || ptr != end || v < min || v > max) return std::nullopt;
  return v;
}

/// A finite decimal number like "34" or "8.4" (spaces around it allowed), or nullopt.
std::optional<double> decimal(std::string text) {
  text.erase(0, text.find_first_not_of(' '));
  text.erase(text.find_last_not_of(' ') + 1);
  double v = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(v)) return std::nullopt;
  return v;
}

/// A byte count as a whole number, or nullopt when `bytes` is negative or 2^64 or more.
std::optional<std::uint64_t> byte_count(double bytes) {
  if (!(bytes >= 0 && bytes < 18446744073709551616.0)) return std::nullopt;
  return static_cast<std::uint64_t>(bytes);
}

/// Largest slice axis or slice count a row may give: a million, as topology files allow.
constexpr long long kMaxAxis = 1 << 20;
/// MaxText's `head_dim` in MaxText/configs/base.yml.
constexpr int kMaxTextHeadDim = 128;

enum class Shape { kGpu, kTpu2d, kTpu3d };

/// A hardware family podsim ships files for.
struct Family {
  const char* match;  // lower-case substring of the hardware column
  const char* also;   // a second substring that must be present ("" for none)
  const char* label;
  const char* hardware_file;
  Shape shape;
  const char* topology_file;  // link figures
  const char* dcn_file;       // "" when no multislice file exists
};

constexpr Family kFamilies[] = {
    {"h200", "", "H200", "h200", Shape::kGpu, "h100-superpod-1024", ""},
    {"h100", "", "H100", "h100", Shape::kGpu, "h100-superpod-1024", ""},
    {"a100", "80", "A100", "a100-80gb", Shape::kGpu, "a100-dgx-8x8", ""},
    {"a100", "", "A100", "a100-40gb", Shape::kGpu, "a100-dgx-8x8", ""},
    {"v100", "", "V100", "v100", Shape::kGpu, "v100-dgx2-16x32", ""},
    {"v5p", "", "TPU v5p", "tpu-v5p", Shape::kTpu3d, "tpu-v5p-4x4x4", "tpu-v5p-2x8x8x8"},
    {"v5e", "", "TPU v5e", "tpu-v5e", Shape::kTpu2d, "tpu-v5e-16x16", "tpu-v5e-2x16x16"},
    {"v6e", "", "TPU v6e", "tpu-v6e", Shape::kTpu2d, "tpu-v6e-16x16", ""},
    {"v4", "", "TPU v4", "tpu-v4", Shape::kTpu3d, "tpu-v4-4x4x4", ""},
    {"v3", "", "TPU v3", "tpu-v3", Shape::kTpu2d, "tpu-v3-32x32", ""},
};

const Family* find_family(const std::string& hardware) {
  const std::string h = lower(hardware);
  for (const Family& f : kFamilies) {
    if (h.find(f.match) != std::string::npos && (f.also[0] == '\0' || h.find(f.also) != std::string::npos)) return &f;
  }
  return nullptr;
}

/// Balanced power-of-two dims whose product is `chips` (3 axes, or 2 of at most the pod's
/// side: 16 on v5e/v6e, 32 on v3).
std::optional<std::vector<int>> slice_dims(long long chips, Shape shape, int pod_side) {
  if (chips < 1 || (chips & (chips - 1)) != 0) return std::nullopt;
  std::vector<int> dims(shape == Shape::kTpu3d ? 3 : 2, 1);
  long long product = 1;
  while (product < chips) {
    auto smallest = std::min_element(dims.begin(), dims.end());
    *smallest *= 2;
    product *= 2;
  }
  std::sort(dims.begin(), dims.end());
  if (shape == Shape::kTpu2d && dims.back() > pod_side) return std::nullopt;
  return dims;
}

std::vector<bool> wraps(const std::vector<int>& dims, Shape shape, int pod_side) {
  std::vector<bool> w;
  // v5e/v6e (v3): a wrap only on an axis of the pod's full side, 16 (32); v4/v5p: on every
  // axis of slices made of whole 4x4x4 cubes (docs/reference/hardware.md §2.2).
  const bool whole_cubes = std::all_of(dims.begin(), dims.end(), [](int d) { return d % 4 == 0; });
  for (int d : dims) w.push_back(shape == Shape::kTpu2d ? d == pod_side : whole_cubes && d >= 4);
  return w;
}

topology::TopologySpec reference(const Catalog& c, const char* stem) {
  return config::load_topology(c.root / "topologies" / (std::string(stem) + ".yaml")).spec;
}

struct Built {
  std::optional<topology::TopologySpec> topology;
  std::string reason;
};

/// The machine of a row: a GPU cluster of 8-GPU nodes, or TPU slices (joined by DCN).
Built build_topology(const CsvRow& row, const Family& f, long long chips, const Catalog& c,
                     std::vector<std::string>& assumptions) {
  const std::string text = row.at("hardware");
  topology::TopologySpec ref = reference(c, f.topology_file);
  if (f.shape == Shape::kGpu) {
    auto sw = std::get<topology::SwitchSpec>(ref.layout);
    const long long node = sw.chips_per_node;
    if (chips > node && chips % node != 0) {
      return {std::nullopt, "not a whole number of " + std::to_string(node) + "-GPU nodes"};
    }
    sw.nodes = static_cast<int>(chips <= node ? 1 : chips / node);
    sw.chips_per_node = static_cast<int>(std::min<long long>(chips, node));
    assumptions.push_back(std::string("network: ") + f.topology_file + " links, " + std::to_string(sw.nodes) +
                          " node(s) of " + std::to_string(sw.chips_per_node));
    // A row that states its nodes' NICs ("4x OmniPath 100Gbps per node") runs on them: the
    // node's scale-out bandwidth shared by its GPUs, in place of the reference cluster's.
    static const std::regex kNics(R"((\d+)\s*x\s*(?:[A-Za-z-]+\s+)?(\d+)\s*Gb(?:ps|/s) per node)", std::regex::icase);
    std::smatch nic;
    if (std::regex_search(text, nic, kNics)) {
      const auto count = whole(nic[1], 1, 64);
      const auto gbps = whole(nic[2], 1, 100000);
      if (!count || !gbps) return {std::nullopt, "NICs per node \"" + nic.str(0) + "\" out of range"};
      sw.scale_out.bandwidth_Bps = double(*count) * double(*gbps) * 1e9 / 8 / double(node);
      assumptions.push_back("scale-out: " + nic.str(0) + " as the row states = " +
                            units::format_bandwidth(sw.scale_out.bandwidth_Bps) + " per GPU");
    }
    // The cluster's collectives run as its file says (NCCL on the GPU clusters).
    return {topology::TopologySpec{"row-" + row.at("id"), sw, ref.collectives}, ""};
  }
  const auto grid_ref = std::get<topology::GridSpec>(ref.layout);
  const int pod_side = *std::max_element(grid_ref.dims.begin(), grid_ref.dims.end());
  std::smatch m;
  std::vector<int> dims;
  long long slices = 1;
  static const std::regex kExplicit(R"((\d+)x(\d+)(?:x(\d+))? slice)");
  static const std::regex kMesh(R"(mesh \{X:(\d+), Y:(\d+)\})");
  static const std::regex kSlices(R"((\d+)x v\d)");
  if (std::regex_search(text, m, kExplicit) || std::regex_search(text, m, kMesh)) {
    for (std::size_t i = 1; i < m.size() && m[i].matched; ++i) {
      const auto d = whole(m[i], 1, kMaxAxis);
      if (!d) return {std::nullopt, "slice shape \"" + m.str(0) + "\" needs axes of 1 to " + std::to_string(kMaxAxis)};
      dims.push_back(static_cast<int>(*d));
    }
  } else {
    if (std::regex_search(text, m, kSlices)) {
      const auto n = whole(m[1], 1, kMaxAxis);
      if (!n) return {std::nullopt, "\"" + m.str(0) + "\": slices must be 1 to " + std::to_string(kMaxAxis)};
      slices = *n;
    }
    if (chips % slices != 0) return {std::nullopt, "chips do not divide into the slices"};
    const auto d = slice_dims(chips / slices, f.shape, pod_side);
    if (!d) return {std::nullopt, "no standard slice shape for " + std::to_string(chips / slices) + " chips"};
    dims = *d;
    assumptions.push_back("slice shape chosen as the balanced one for the chip count");
  }
  topology::GridSpec grid{dims, wraps(dims, f.shape, pod_side), false, grid_ref.link};
  if (slices == 1) return {topology::TopologySpec{"row-" + row.at("id"), grid}, ""};
  if (f.dcn_file[0] == '\0') return {std::nullopt, "no DCN figures shipped for this hardware"};
  const auto dcn = std::get<topology::MultisliceSpec>(reference(c, f.dcn_file).layout).dcn;
  assumptions.push_back(std::string("DCN per chip from ") + f.dcn_file);
  return {topology::TopologySpec{"row-" + row.at("id"), topology::MultisliceSpec{static_cast<int>(slices), grid, dcn}},
          ""};
}

/// Message bytes of a collective row: from a tensor shape like bf16[2048,8192], or from
/// "message 1M" (sizes printed by nccl-tests are powers of two when the notes say so).
std::optional<std::uint64_t> message_bytes(const CsvRow& row) {
  std::smatch m;
  const std::string model = row.at("model");
  static const std::regex kShape(R"((bf16|fp16|f16|fp32|f32)\[([0-9, ]+)\])");
  if (std::regex_search(model, m, kShape)) {
    double bytes = (m[1] == "fp32" || m[1] == "f32") ? 4 : 2;
    std::string list = m[2];
    std::stringstream ss(list);
    std::string item;
    while (std::getline(ss, item, ',')) {
      const auto dim = decimal(item);
      if (!dim) return std::nullopt;
      bytes *= *dim;
    }
    if (!list.empty() && list.back() == ',') return std::nullopt;  // getline drops a last empty item
    return byte_count(bytes);
  }
  static const std::regex kMessage(R"(message[^0-9]*([0-9.]+)\s*([kKMGT]?)(i?)B?)");
  const std::string params = row.at("params");
  if (!std::regex_search(params, m, kMessage)) return std::nullopt;
  const auto number = decimal(m[1]);
  if (!number) return std::nullopt;
  double v = *number;
  const std::string prefix = m[2];
  const double step = m[3] == "i" ? 1024.0 : 1000.0;
  const char p = prefix.empty() ? '\0' : static_cast<char>(std::toupper(static_cast<unsigned char>(prefix[0])));
  const int power = p == 'K' ? 1 : p == 'M' ? 2 : p == 'G' ? 3 : p == 'T' ? 4 : 0;
  v *= std::pow(step, power);
  if (has(row.at("notes"), "binary sizes")) v = std::exp2(std::round(std::log2(v)));
  return byte_count(v);
}

RowCase collective_case(const CsvRow& row, const Family& f, long long chips, const Catalog& c, RowCase out) {
  const std::string text = lower(row.at("model"));
  CollectiveCase k;
  if (text.find("all-reduce") != std::string::npos || text.find("allreduce") != std::string::npos) {
    k.op = collectives::Op::kAllReduce;
  } else if (text.find("allgather") != std::string::npos || text.find("all-gather") != std::string::npos) {
    k.op = collectives::Op::kAllGather;
  } else if (text.find("reduce-scatter") != std::string::npos || text.find("reducescatter") != std::string::npos) {
    k.op = collectives::Op::kReduceScatter;
  } else if (text.find("all-to-all") != std::string::npos || text.find("alltoall") != std::string::npos) {
    k.op = collectives::Op::kAllToAll;
  } else {
    out.skip_reason = "collective operation not recognised";
    return out;
  }
  const auto bytes = message_bytes(row);
  if (!bytes || *bytes == 0) {
    out.skip_reason = "message size not recognised";
    return out;
  }
  k.bytes = *bytes;
  Built b = build_topology(row, f, chips, c, out.assumptions);
  if (!b.topology) {
    out.skip_reason = b.reason;
    return out;
  }
  k.topology = *b.topology;
  if (k.topology.collectives.nccl && has(row.at("model"), "nvls")) {
    // The benchmark forced NCCL's algorithm (NCCL_ALGO=NVLS): NCCL runs NVLS at every size.
    k.topology.collectives.algorithm = collectives::Algorithm::kNvls;
    out.assumptions.push_back("NCCL algorithm NVLS at every size, as the row's benchmark forced (NCCL_ALGO=NVLS)");
  }
  k.chip = config::load_hardware(c.root / "configs" / "hardware" / (std::string(f.hardware_file) + ".yaml"));
  const auto names = topology::axis_names(k.topology);
  // Which axis the group spans: "along the 16-axis", "over Y", "_Y"; all axes otherwise.
  std::smatch m;
  const std::string hw = row.at("hardware") + " " + row.at("model");
  static const std::regex kSized(R"(along the (\d+)-axis)");
  static const std::regex kLetter(R"((?:over |_|along )([XYZ])\b)");
  const auto* grid = std::get_if<topology::GridSpec>(&k.topology.layout);
  if (grid != nullptr && std::regex_search(hw, m, kSized)) {
    const auto size = whole(m[1], 1, INT_MAX);  // none that parses: no axis named, all of them
    for (std::size_t a = 0; a < grid->dims.size(); ++a) {
      if (size && grid->dims[a] == *size) k.axes = {names[a]};
    }
  } else if (std::regex_search(hw, m, kLetter)) {
    k.axes = {std::string(1, static_cast<char>(std::tolower(m.str(1)[0])))};
  }
  if (k.axes.empty()) k.axes = names;
  out.what = k;
  return out;
}

}  // namespace

Catalog load_catalog(const std::filesystem::path& root) {
  Catalog c{root};
  const auto launch = root / "configs" / "validation" / "launch-configs.csv";
  if (std::filesystem::exists(launch)) c.launch = read_launch_facts(launch);
  return c;
}

RowCase express(const CsvRow& row, const Catalog& catalog) {
  RowCase out;
  if (!stack_cell_valid(row.at("stack"))) {
    out.skip_reason = "stack \"" + row.at("stack") + "\" is not one podsim knows (" + workload::stack_words() + ", or empty)";
    return out;
  }
  const Family* f = find_family(row.at("hardware"));
  if (f == nullptr) {
    out.skip_reason = "hardware \"" + row.at("hardware") + "\" has no configs/hardware file";
    return out;
  }
  out.family = f->label;
  const auto chips = integer(row.at("n_chips"));
  if (!chips || *chips < 1) {
    out.skip_reason = "n_chips is not a positive whole number";
    return out;
  }
  if (has(row.at("model"), "collective")) return collective_case(row, *f, *chips, catalog, std::move(out));

  const auto metric = metric_of(row);
  if (metric && metric->count == FlopCount::kEightN) {
    out.assumptions.push_back("FLOPs counted as the row states: 8 × every parameter per token");
  } else if (metric && (metric->count == FlopCount::kMaxText || metric->count == FlopCount::kMaxTextCausal)) {
    const bool causal = metric->count == FlopCount::kMaxTextCausal;
    out.assumptions.push_back(std::string("FLOPs counted as MaxText counted them") + (causal ? " from 2023-11-08" : "") +
                              ": 6 × every parameter (its embedding tables included) per token, plus " +
                              (causal ? "half the attention (causal)" : "attention"));
  }
  const bool layer_time = metric && metric->kind == MetricKind::kLayerMilliseconds;
  const bool memory_figure = metric && metric->kind == MetricKind::kActivationGiB;
  const auto layers = integer(row.at("layers"));
  const auto hidden = integer(row.at("hidden"));
  const auto ffn = integer(row.at("ffn_hidden"));
  const auto heads = integer(row.at("heads"));
  const auto seq = integer(row.at("seq_len"));
  if (!layers || !hidden || !ffn || !heads || !seq) {
    out.skip_reason = "model dimensions not published (layers, hidden, ffn_hidden, heads, seq_len)";
    return out;
  }
  const auto kv_heads = integer(row.at("kv_heads"));
  for (const auto& [name, value] : {std::pair{"layers", layers}, std::pair{"hidden", hidden}, std::pair{"ffn_hidden", ffn},
                                    std::pair{"heads", heads}, std::pair{"seq_len", seq}, std::pair{"kv_heads", kv_heads}}) {
    if (value && (*value < 1 || *value > INT_MAX)) {
      out.skip_reason = std::string(name) + " " + std::to_string(*value) + " is not 1 to " + std::to_string(INT_MAX);
      return out;
    }
  }
  const auto tp = integer(row.at("tp"));
  auto vocab = vocab_of(row, tp.value_or(1));
  if (!vocab && layer_time) vocab = 1;  // one layer alone: no embedding or head is timed
  if (!vocab) {
    out.skip_reason = "vocabulary size not published";
    return out;
  }
  if (vocab != integer(row.at("vocab")) && !layer_time) {
    out.assumptions.push_back("vocab " + std::to_string(*vocab) + " (as the notes give it)");
  }
  const System system = system_of(row);
  runtime::Scenario s;
  auto& m = s.model;
  m.name = row.at("model");
  m.layers = static_cast<int>(*layers);
  m.hidden = static_cast<int>(*hidden);
  m.ffn_hidden = static_cast<int>(*ffn);
  m.heads = static_cast<int>(*heads);
  m.kv_heads = static_cast<int>(kv_heads.value_or(*heads));
  m.vocab = static_cast<int>(*vocab);
  m.seq_len = static_cast<int>(*seq);
  std::smatch hd;
  static const std::regex kHeadDim(R"(head_dim (\d+))");
  const std::string notes = row.at("notes");
  if (const auto stated = integer(row.at("head_dim")); stated && *stated >= 1 && *stated <= INT_MAX) {
    m.head_dim = static_cast<int>(*stated);  // a launch fact's architecture (launch_facts.hpp)
  } else if (std::regex_search(notes, hd, kHeadDim)) {
    const auto head_dim = whole(hd[1], 1, INT_MAX);
    if (!head_dim) {
      out.skip_reason = "notes give \"" + hd.str(0) + "\"; head_dim must be 1 to " + std::to_string(INT_MAX);
      return out;
    }
    m.head_dim = static_cast<int>(*head_dim);
  } else if (system == System::kMaxText && row.at("model").find("global_parameter_scale") != std::string::npos) {
    // MaxText's synthetic models scale heads, MLP, embedding and layers from base.yml and keep
    // its head_dim (128) whatever the embedding: 16B has 64 heads of 128 on a 4096 embedding.
    m.head_dim = kMaxTextHeadDim;
    if (std::int64_t{m.head_dim} * m.heads != m.hidden) {  // in 64 bits: a row's widths may be huge
      out.assumptions.push_back("head_dim 128: MaxText base.yml's, which global_parameter_scale keeps");
    }
  } else {
    m.head_dim = m.hidden / m.heads;
  }
  // GPT (Megatron) models have a 4h GeLU MLP, learned positions and tied embeddings (ALiBi
  // models have no position parameters); the others are LLaMA-style (SwiGLU, rotary, untied,
  // RMSNorm). Megatron-LM's recipes train GPT with dropout 0.1 (its default); MaxText and
  // llm-foundry (MPT) without.
  const bool gpt = m.ffn_hidden == 4 * std::int64_t{m.hidden};  // 64 bits: a row's hidden may be huge
  const bool alibi = has(row.at("model") + " " + notes, "alibi");
  m.mlp = gpt ? workload::MlpKind::kGelu : workload::MlpKind::kSwiglu;
  m.position = gpt && !alibi ? workload::PositionEmbedding::kLearned : workload::PositionEmbedding::kRotary;
  m.tied_embeddings = gpt && !untied_embeddings_stated(row);
  m.norm = gpt ? workload::NormKind::kLayerNorm : workload::NormKind::kRmsNorm;
  m.dropout = gpt && system == System::kMegatron;
  m.linear_biases = gpt && system == System::kMegatron;  // Megatron-LM's --add-bias-linear default
  if (!row.at("mlp").empty() || !row.at("tied").empty()) {
    // A launch fact's architecture (launch_facts.hpp) states the MLP and the head: MaxText's
    // base.yml of 2023 (a ReLU MLP of two matrices, logits through the embedding table, T5's
    // relative position biases: no parameters to speak of, timed as rotary's element-wise work).
    if (!row.at("mlp").empty()) m.mlp = row.at("mlp") == "swiglu" ? workload::MlpKind::kSwiglu : workload::MlpKind::kGelu;
    if (!row.at("tied").empty()) m.tied_embeddings = row.at("tied") == "yes";
    out.assumptions.push_back(std::string("model: as its launch fact states (") +
                              (m.mlp == workload::MlpKind::kSwiglu ? "SwiGLU" : row.at("mlp") == "relu" ? "ReLU" : "GeLU") +
                              " MLP, " + (m.tied_embeddings ? "tied" : "untied") + " embeddings, " +
                              (gpt ? "LayerNorm" : "RMSNorm, positions timed as rotary") +
                              (m.dropout ? ", dropout 0.1)" : ", no dropout)"));
  } else {
    out.assumptions.push_back(gpt ? std::string("model: GPT block (GeLU, ") + (alibi ? "ALiBi" : "learned positions") +
                                        (m.tied_embeddings ? ", tied embeddings" : ", untied embeddings (as the notes say)") +
                                        (m.dropout ? ", linear biases and dropout 0.1 as Megatron-LM)" : ", no dropout)")
                                  : "model: LLaMA-style block (SwiGLU, rotary, untied, RMSNorm, no dropout)");
  }

  Built b = build_topology(row, *f, *chips, catalog, out.assumptions);
  if (!b.topology) {
    out.skip_reason = b.reason;
    return out;
  }
  s.topology = *b.topology;
  s.chip = config::load_hardware(catalog.root / "configs" / "hardware" / (std::string(f->hardware_file) + ".yaml"));

  TrainingCase c;
  c.metric = metric.value_or(Metric{});
  auto& fixed = c.search.fixed;
  auto& p = s.parallel;
  const auto pp = integer(row.at("pp"));
  auto dp = integer(row.at("dp"));
  // Degrees beyond any machine are a typo: refused here, before products of them are formed.
  constexpr long long kMaxDegree = 1 << 20;
  for (const auto& [name, degree] : {std::pair{"tp", tp}, std::pair{"pp", pp}, std::pair{"dp", dp}}) {
    if (degree && (*degree < 1 || *degree > kMaxDegree)) {
      out.skip_reason = std::string(name) + " " + std::to_string(*degree) + " is not 1 to " + std::to_string(kMaxDegree);
      return out;
    }
  }
  if (!dp && tp && pp) dp = *chips / (*tp * *pp);
  if ((dp && *dp < 1) || static_cast<long long>(tp.value_or(1)) * pp.value_or(1) > *chips) {
    out.skip_reason = "tp × pp is more than the " + std::to_string(*chips) + " chips";
    return out;
  }
  if (tp) fixed.tp = static_cast<int>(*tp);
  if (pp) fixed.pp = static_cast<int>(*pp);
  if (dp) fixed.dp = static_cast<int>(*dp);
  p.tp = static_cast<int>(tp.value_or(1));
  p.pp = static_cast<int>(pp.value_or(1));
  p.dp = static_cast<int>(std::min<long long>(dp.value_or(*chips / (static_cast<long long>(p.tp) * p.pp)), kMaxDegree));
  const std::string zero_cell = row.at("zero_or_fsdp");
  if (!zero_of(zero_cell) && !zero_left_open(zero_cell)) {
    out.skip_reason = "zero_or_fsdp \"" + zero_cell + "\" names no ZeRO stage podsim reads (" + kZeroWords + ")";
    return out;
  }
  if (const auto z = zero_of(zero_cell)) {
    fixed.zero = *z;
    p.zero = *z;
    // MaxText multislice: FSDP inside each slice (ici_fsdp), plain data parallelism across
    // slices (dcn_data_parallelism): hybrid sharding with one ZeRO group per slice.
    const auto* multi = std::get_if<topology::MultisliceSpec>(&s.topology.layout);
    if (*z >= 1 && multi && dp && *dp % multi->slices == 0 && has(lower(row.at("zero_or_fsdp")), "data parallel across")) {
      fixed.zero_group = static_cast<int>(*dp / multi->slices);
      p.zero_group = *fixed.zero_group;
      out.assumptions.push_back("ZeRO sharded inside each slice, replicas across slices (hybrid sharding)");
    }
  }
  // Hybrid sharding only where the row says so (above): the planner would otherwise also try
  // one ZeRO group per node or slice, which no other published run states.
  if (!fixed.zero_group) fixed.zero_group = 0;
  if (const auto how = zero3_collectives_of(row)) {
    s.training.zero3_collectives = *how;
    out.assumptions.push_back(
        "ZeRO-3 as DeepSpeed ran it before 0.5.5 (the paper predates it): one synchronous collective per "
        "parameter tensor, on lists of dp shards");
  }
  const std::string sp_cell = lower(row.at("cp_or_sp"));
  if (has(sp_cell, "sequence parallel") || (sp_cell.empty() && has(notes, "sequence parallel"))) {
    fixed.sequence_parallel = true;
  } else if (system == System::kMaxText) {
    // MaxText shards the activations' embed dimension over the tensor axis
    // (MaxText/configs/base.yml logical_axis_rules: ['activation_embed', 'tensor']): between
    // the matmuls they are split over tp as with Megatron's sequence parallelism, with the same
    // all-gather / reduce-scatter pairs.
    fixed.sequence_parallel = true;
    if (tp && *tp > 1) out.assumptions.push_back("MaxText: activations sharded over the tensor axis (sequence parallelism)");
  } else if (sp_cell == "none") {
    fixed.sequence_parallel = false;
  }
  p.sequence_parallel = fixed.sequence_parallel.value_or(false);
  const MegatronOverlapFlags megatron = megatron_overlap_flags(row);
  bool interleaved_only = false;  // the schedule is interleaved, its chunks per stage unstated
  const bool may_pipeline = !pp || *pp > 1;
  const auto v = integer(row.at("interleave_v"));
  if (v) {
    fixed.schedule = *v > 1 ? std::pair{parallelism::PipelineSchedule::kInterleaved, static_cast<int>(*v)}
                            : std::pair{parallelism::PipelineSchedule::kOneFOneB, 1};
    p.schedule = fixed.schedule->first;
    p.virtual_stages = fixed.schedule->second;
  } else if (may_pipeline && megatron.p2p_comm) {
    interleaved_only = true;
    out.assumptions.push_back(
        "pipeline schedule: interleaved 1F1B, as the notes' overlapped pipeline-parallel communication needs "
        "(Megatron-LM turns overlap_p2p_comm off without virtual stages); chunks per stage by the planner");
  } else if (may_pipeline) {
    // Interleaving is opt-in where it exists: Megatron-LM runs plain 1F1B unless given
    // --num-layers-per-virtual-pipeline-stage (SC21's own scripts pass it for some runs of a
    // table and not others, examples/sc21/run_table_1.sh), and DeepSpeed's pipeline engine has
    // only its 1F1B TrainSchedule (deepspeed/runtime/pipe/schedule.py). A row that does not
    // state a schedule ran the default, as with the gradient all-reduce below.
    fixed.schedule = std::pair{parallelism::PipelineSchedule::kOneFOneB, 1};
    p.schedule = parallelism::PipelineSchedule::kOneFOneB;
    p.virtual_stages = 1;
    out.assumptions.push_back(std::string(pp ? "" : "if pipelined, ") +
                              "pipeline schedule: plain 1F1B, the frameworks' default (not stated; Megatron-LM "
                              "interleaves only when given --num-layers-per-virtual-pipeline-stage, DeepSpeed's "
                              "pipeline engine never)");
  }

  auto& t = s.training;
  t.seq_len = m.seq_len;
  // The stack that ran the row (its hardware's default when nothing says): what its host pays
  // to issue kernels, and the defaults below.
  t.stack = stack_of(row).value_or(workload::default_stack(s.chip.stack));
  t.host = workload::stack_profile(t.stack).host;
  t.overlap = parallelism::default_overlap(t.stack);  // what the system that ran the row does by default
  // Megatron-LM all-reduces the gradients after the whole backward unless told otherwise: its
  // default --DDP-impl local (LocalDDP.allreduce_gradients() in train_step, 2021-22), later
  // Megatron-core's DDP without --overlap-grad-reduce; DeepSpeed's pipeline engine, under
  // Megatron-DeepSpeed, reduces once its schedule is done. A launch fact (launch_facts.hpp)
  // may say where a run's all-reduce ran (SC21's smaller runs: PyTorch DDP, overlapped).
  if (const std::string stated = row.at("dp_reduce"); !stated.empty()) {
    t.overlap.dp_reduce = stated == "overlapped";  // launch_facts.cpp admits only it and after-backward
  } else if (system == System::kMegatron) {
    t.overlap.dp_reduce = megatron.grad_reduce;
    if ((!dp || *dp > 1) && p.zero < 3 && !megatron.grad_reduce) {
      out.assumptions.push_back("Megatron-LM: gradients all-reduced after the backward (its default --DDP-impl local)");
    }
  }
  // The overlap flags a Megatron row's notes quote from its run (row_knobs.hpp).
  if (megatron.param_gather) t.overlap.param_gather = true;
  if (megatron.tp_comm) t.overlap.tp = parallelism::TpOverlap::kCollectiveMatmul;
  if (!megatron.quoted.empty()) {
    out.assumptions.push_back("Megatron-LM overlap as the notes quote its run: " + megatron.quoted);
  }
  // llm-foundry trains with PyTorch FSDP, whose matmuls are cuBLAS's defaults on all SMs
  // (PyTorch had no SM carveout before 2025; pytorch/pytorch #143988, #144974).
  if (system == System::kLlmFoundry) {
    t.overlap.gemm_sm_margin = false;
    if (s.chip.persistent_matmuls) {
      out.assumptions.push_back("GEMMs: PyTorch's cuBLAS matmuls on all SMs (no SM carveout), so beside NCCL a "
                                "Hopper GEMM's persistent grid runs in two waves (pytorch/pytorch #143988)");
    }
  }
  if (const auto micro = integer(row.at("micro_batch"))) {
    fixed.micro_batch = static_cast<int>(*micro);
    t.micro_batch = fixed.micro_batch.value();
  }
  const auto batch = integer(row.at("global_batch_seqs"));
  if (batch) {
    t.global_batch = static_cast<int>(*batch);
  } else if (layer_time) {
    t.global_batch = t.micro_batch * p.dp;  // one microbatch through the layer
  } else if (memory_figure && fixed.micro_batch && dp && pp) {
    // Activations of the first stage peak once the pipeline is full: 2·pp microbatches
    // reach that peak under 1F1B and interleaved 1F1B alike.
    t.global_batch = t.micro_batch * p.dp * 2 * p.pp;
    out.assumptions.push_back("global batch: " + std::to_string(t.global_batch) +
                              " (not given; 2 × pp microbatches fill the pipeline)");
  } else {
    out.skip_reason = "global batch not published";
    return out;
  }
  // MaxText's per_device_batch_size and llm-foundry's gradient accumulation of 1 state that
  // each replica runs its whole batch as one microbatch.
  static const std::regex kNoAccumulation(R"((per_device_batch_size|grad(ient)? accumulation 1\b))");
  if (!fixed.micro_batch && dp && std::regex_search(lower(notes), kNoAccumulation)) {
    fixed.micro_batch = static_cast<int>(std::max(1LL, *batch / *dp));
    t.micro_batch = *fixed.micro_batch;
  }
  const std::string recompute_cell = row.at("recompute");
  if (!recompute_cell.empty()) {
    const auto r = recompute_of(recompute_cell);
    if (!r) {
      std::string words;
      for (parallelism::Recompute policy : workload::kRematPolicies) {
        words += (words.empty() ? "" : ", ") + std::string(workload::recompute_name(policy));
      }
      out.skip_reason = "recompute \"" + recompute_cell + "\" names no policy podsim knows (a scenario's training.recompute: " +
                        words + "; or MaxText's remat_policy=NAME, or text saying full, selective or none)";
      return out;
    }
    fixed.recompute = *r;
    t.recompute = *r;
    if (has(recompute_cell, "remat_policy=full")) {
      out.assumptions.push_back("recompute: MaxText's remat_policy=full is JAX's nothing_saveable");
    }
    if (*r == parallelism::Recompute::kFull && llm_foundry_checkpoint_stops_early(row)) {
      fixed.recompute = t.recompute = parallelism::Recompute::kEarlyStop;
      out.assumptions.push_back("recompute: PyTorch 2.1's non-reentrant checkpoint stops at the last saved tensor "
                                "(early_stop; the amp_bf16 tables ran llm-foundry's pytorch:2.1.0 image)");
    }
  }
  const auto precision = precision_of(row.at("precision"), out.assumptions);
  if (!precision) {
    out.skip_reason = "precision \"" + row.at("precision") + "\" names no number format podsim models (" +
                      kPrecisionWords + ")";
    return out;
  }
  t.precision = *precision;
  {
    // The stack's own gradient dtype where the row does not state one (Megatron-Core with bf16).
    const workload::StackProfile& profile = workload::stack_profile(t.stack);
    const hardware::DType grads = workload::default_grads_dtype(profile, t.precision.compute, t.precision.grads);
    if (grads != t.precision.grads && !has(row.at("precision"), "grad")) {
      t.precision.grads = grads;
      t.precision.reduce = workload::default_reduce_dtype(profile, t.precision.compute, t.precision.comm);
      out.assumptions.push_back(std::string(workload::stack_name(t.stack)) +
                                ": bf16 training accumulates and all-reduces gradients in fp32 (Megatron forces "
                                "--accumulate-allreduce-grads-in-fp32 for bf16)");
    }
  }
  t.flash_attention = has(notes + " " + row.at("model"), "flash");
  if (!t.flash_attention && workload::stack_profile(t.stack).flash_attention) {
    t.flash_attention = true;
    out.assumptions.push_back("attention: " + std::string(workload::stack_name(t.stack)) +
                              "'s default fused attention (flash: no s×s scores in HBM)");
  }
  if (t.flash_attention && llm_foundry_flash_kernel(row) == hardware::FlashKernel::kTriton) {
    t.flash_kernel = hardware::FlashKernel::kTriton;
    out.assumptions.push_back("attention: MPT's Triton FlashAttention (llm-foundry's attn_impl triton, as its "
                              "benchmark scripts ran this table)");
  }
  const LossKnobs loss = loss_of(t.stack);
  t.loss_kernel = loss.kernel;
  t.train_metrics = loss.train_metrics;
  if (loss.train_metrics > 0) {
    out.assumptions.push_back("loss: llm-foundry's default loss_fn fused_crossentropy (flash-attention's xentropy), and "
                              "Composer's two train metrics of MPT on every microbatch (two eager cross entropies)");
  }
  s.network.fidelity = network::Fidelity::kAnalytical;

  // What the planner searches when the row is silent: the conventions of its system.
  c.search.gpipe = false;  // none of the systems in the data runs GPipe
  c.search.plain_1f1b = !interleaved_only;
  c.max_tp = f->shape == Shape::kGpu ? std::get<topology::SwitchSpec>(s.topology.layout).chips_per_node : 0;
  c.search.virtual_stages.clear();
  if (fixed.pp && *fixed.pp > 1 && m.layers % *fixed.pp == 0) {
    // Megatron requires the layers of a stage to divide over its model chunks: every divisor of
    // the stage's layers above 1, found in O(sqrt) so that no layer count can stall the search.
    const int per_stage = m.layers / static_cast<int>(*fixed.pp);
    for (int k = 1; static_cast<long long>(k) * k <= per_stage; ++k) {
      if (per_stage % k != 0) continue;
      if (k > 1) c.search.virtual_stages.push_back(k);
      if (per_stage / k != k) c.search.virtual_stages.push_back(per_stage / k);
    }
    std::sort(c.search.virtual_stages.begin(), c.search.virtual_stages.end());
  } else if (!fixed.pp) {
    c.search.virtual_stages = {2, 4};
  }
  c.allow_oversubscribed = memory_figure;
  // "model parallel" or sequence parallelism (which splits over the tensor-parallel group) in a
  // row that does not give tp: some tensor parallelism was used.
  if (!fixed.tp && (has(notes, "model parallel") || has(notes, "model+sequence") || fixed.sequence_parallel.value_or(false))) {
    c.min_tp = 2;
  }
  if (!fixed.tp) c.unstated.push_back("tp");
  if (!fixed.pp) c.unstated.push_back("pp");
  if (!fixed.micro_batch) c.unstated.push_back("micro batch");
  if (!fixed.zero) c.unstated.push_back("ZeRO stage");
  if (!fixed.sequence_parallel) c.unstated.push_back("sequence parallelism");
  if (!fixed.recompute) c.unstated.push_back("recompute");
  if (!fixed.schedule && (!fixed.pp || *fixed.pp > 1)) c.unstated.push_back("schedule");
  c.scenario = std::move(s);
  out.what = std::move(c);
  return out;
}

}  // namespace podsim::validation
