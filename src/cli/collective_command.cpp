#include "cli/collective_command.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>
#include <type_traits>

#include "util/error.hpp"

#include "cli/collective_json.hpp"
#include "cli/named_file.hpp"
#include "collectives/collective_timing.hpp"
#include "collectives/transfer_estimate.hpp"
#include "collectives/group.hpp"
#include "collectives/lowering.hpp"
#include "output/hdf5_writer.hpp"
#include "output/json_writer.hpp"
#include "output/text_table.hpp"
#include "partition/mpi_executor.hpp"
#include "runtime/step_work.hpp"
#include "util/suggest.hpp"
#include "util/units.hpp"

namespace podsim::cli {

namespace {

output::Table make_table(const config::CollectiveRequest& request,
                         const std::vector<collectives::CollectiveTiming>& timings) {
  output::Table t;
  t.name = "collectives";
  t.description = "podsim collective: one row per size (docs/output-schema.md)";
  t.add_text("op");
  t.add_text("algorithm");
  t.add_text("network");
  t.add_int("group_size", "1");
  t.add_int("groups", "1");
  t.add_int("bytes", "B");
  t.add_real("time_s", "s");
  t.add_real("algbw_Bps", "B/s");
  t.add_real("busbw_Bps", "B/s");
  t.add_real("max_link_utilization", "1");
  t.add_text("protocol");
  t.add_real("nccl_predicted_s", "s");
  t.add_int("pieces", "1");
  for (const auto& r : timings) {
    t.texts("op").emplace_back(collectives::op_name(request.op));
    t.texts("algorithm").emplace_back(collectives::algorithm_name(r.algorithm));
    t.texts("network").push_back(network::fidelity_name(request.network.fidelity));
    t.ints("group_size").push_back(r.group_size);
    t.ints("groups").push_back(r.groups);
    t.ints("bytes").push_back(static_cast<std::int64_t>(r.bytes));
    t.reals("time_s").push_back(r.time_s);
    t.reals("algbw_Bps").push_back(r.algbw_Bps);
    t.reals("busbw_Bps").push_back(r.busbw_Bps);
    t.reals("max_link_utilization").push_back(r.max_link_utilization);
    t.texts("protocol").emplace_back(protocol_text(r));
    t.reals("nccl_predicted_s").push_back(r.nccl_predicted_s < 0 ? std::nan("") : r.nccl_predicted_s);
    t.ints("pieces").push_back(r.pieces);
  }
  return t;
}

void print_json(const config::CollectiveRequest& request,
                const std::vector<collectives::CollectiveTiming>& timings) {
  output::JsonWriter j(2);
  j.begin_object();
  j.member("op", collectives::op_name(request.op));
  j.member("algorithm", collectives::algorithm_name(timings.front().algorithm));
  j.member("network", network::fidelity_name(request.network.fidelity));
  // The chip whose link efficiencies scaled the links (--hardware), null when they ran at
  // their nominal bandwidth.
  j.key("hardware");
  if (request.chip) {
    j.value(request.chip->name);
  } else {
    j.null();
  }
  j.member("link_efficiency_fast", request.chip ? request.chip->efficiency.ici : 1.0);
  j.member("link_efficiency_slow", request.chip ? request.chip->efficiency.dcn : 1.0);
  j.member("group_size", timings.front().group_size);
  j.member("groups", timings.front().groups);
  j.key("results");
  j.begin_array();
  for (const auto& r : timings) {
    j.begin_object();
    write_timing_members(j, r);
    j.end_object();
  }
  j.end_array();
  j.end_object();
  std::cout << j.str() << "\n";
}

/// Refuses, before simulating, a size whose collective could not finish within the clock's
/// horizon even if every chip sent on all its links at the fastest link's bandwidth: each
/// member sends bus_bandwidth_factor × S bytes.
void check_sizes(const config::CollectiveRequest& request, const topology::Topology& topo, std::uint32_t group_size,
                 const std::string& sizes_flag) {
  double fastest = 0;
  std::size_t degree = 1;
  for (const auto& link : topo.links()) fastest = std::max(fastest, link.bandwidth_Bps);
  for (std::uint32_t v = 0; v < topo.vertices(); ++v) degree = std::max(degree, topo.out_links(v).size());
  const double factor = std::max(1.0, collectives::bus_bandwidth_factor(request.op, group_size));
  for (std::uint64_t bytes : request.sizes) {
    const double lower_s = factor * static_cast<double>(bytes) / (fastest * static_cast<double>(degree));
    if (!(lower_s < to_seconds(kMaxStepPs))) {
      throw InputError("--sizes " + sizes_flag + ": collective.sizes: a " +
                       units::format_bytes(static_cast<double>(bytes)) + " " + std::string(collectives::op_name(request.op)) +
                       " would take at least " + units::format_seconds(lower_s) +
                       ", more than 2^60 ps (13 simulated days), podsim's horizon");
    }
  }
}

/// Refuses (unless forced) sizes whose schedules would be beyond the work budget
/// (runtime/step_work.hpp): one collective of more than kScheduleBudget transfers, or more
/// than kCommSecondsBudget of simulation over all sizes. Nothing is lowered to know it:
/// `costs` are each size's transfers (collectives::estimate_cost).
void check_work(const config::CollectiveRequest& request, const topology::Topology& topo,
                const std::vector<collectives::Group>& groups, const std::vector<double>& costs,
                const std::string& sizes_flag) {
  double total = 0;
  double seconds = 0;
  double largest = 0;
  std::uint64_t largest_bytes = 0;
  for (std::size_t i = 0; i < costs.size(); ++i) {
    const std::uint64_t bytes = request.sizes[i];
    const double transfers = costs[i];
    total += transfers;
    seconds += transfers * runtime::seconds_per_transfer(request.network, topo.chips(),
                                                         static_cast<double>(bytes) / groups.front().size());
    if (transfers > largest) {
      largest = transfers;
      largest_bytes = bytes;
    }
  }
  const bool analytical = request.network.fidelity == network::Fidelity::kAnalytical;
  if (largest <= runtime::kScheduleBudget && seconds <= runtime::kCommSecondsBudget) return;
  char line[400];
  std::snprintf(line, sizeof line,
                "these sizes would take about %.0f s to simulate on one core: %.3g transfers over %zu group(s) of %u chips, "
                "the largest (%s) %.3g (about %s of memory); podsim's budget is %.3g transfers in one collective and %.0f s",
                seconds, total, groups.size(), groups.front().size(),
                units::format_bytes(static_cast<double>(largest_bytes)).c_str(), largest,
                units::format_bytes(largest * runtime::kBytesPerTransfer).c_str(), runtime::kScheduleBudget,
                runtime::kCommSecondsBudget);
  throw InputError("--sizes " + sizes_flag + ": collective.sizes: " + line +
                   ": use fewer or smaller groups (--axes), fewer sizes, " +
                   (analytical ? "" : "the analytical network, ") + "or pass --force");
}

/// What the links ran at: a chip's efficiencies (as `run` and `validate` use them) or nominal.
std::string link_line(const config::CollectiveRequest& request) {
  if (!request.chip) {
    return "links at their nominal bandwidth (--hardware NAME applies a chip's link efficiency, as run and "
           "validate do)";
  }
  const auto& e = request.chip->efficiency;
  const auto percent = [](double f) { return units::format_fixed(100.0 * f, 0) + " %"; };
  return "links at " + request.chip->name + "'s efficiency: " + percent(e.ici) + " of nominal on the fast tier, " +
         percent(e.dcn) + " on the slow tier (efficiency.ici, efficiency.dcn)";
}

void print_text(const config::CollectiveRequest& request, const topology::Topology& topo,
                const std::vector<collectives::CollectiveTiming>& timings) {
  const auto& first = timings.front();
  std::string axes;
  for (const auto& a : request.axes) append_joined(axes, ",", a);
  std::ostringstream out;
  bool one_algorithm = true;
  for (const auto& r : timings) one_algorithm = one_algorithm && r.algorithm == first.algorithm && r.protocol == first.protocol;
  const bool nccl = first.protocol != collectives::Protocol::kAuto;
  out << collectives::op_name(request.op) << " · "
      << (one_algorithm ? std::string(collectives::algorithm_name(first.algorithm)) : std::string("algorithm per size"))
      << (nccl ? " · NCCL" : "") << " · " << network::fidelity_name(request.network.fidelity) << " network · " << topo.name() << " ("
      << topo.chips() << " chips) · axes " << axes << ": " << first.groups
      << (first.groups == 1 ? " group of " : " groups of ") << first.group_size << " chips at once\n"
      << link_line(request) << "\n\n";
  std::vector<std::string> headers{"size", "algorithm"};
  if (nccl) headers.insert(headers.end(), {"protocol", "NCCL model"});
  headers.insert(headers.end(), {"time", "algbw", "busbw", "busiest link"});
  output::TextTable table(headers);
  for (const auto& r : timings) {
    std::vector<std::string> row{units::format_bytes(static_cast<double>(r.bytes)),
                                 std::string(collectives::algorithm_name(r.algorithm)) +
                                     (r.pieces > 1 ? " in " + std::to_string(r.pieces) : "")};
    if (nccl) {
      row.push_back(protocol_text(r));
      row.push_back(r.nccl_predicted_s < 0 ? "" : units::format_seconds(r.nccl_predicted_s));
    }
    row.insert(row.end(), {units::format_seconds(r.time_s), units::format_bandwidth(r.algbw_Bps),
                           units::format_bandwidth(r.busbw_Bps), units::format_fixed(100.0 * r.max_link_utilization, 1) + " %"});
    table.add_row(row);
  }
  out << table.render();
  std::cout << out.str();
}

}  // namespace

void run_collective(const CollectiveOptions& options, const Invocation& invocation) {
  // Everything is validated before the first simulation starts.
  config::CollectiveArgs args = options.args;
  if (!options.hardware.empty()) {
    args.hardware_file = resolve_named_file("--hardware", options.hardware, repository_root("") / "configs" / "hardware");
  }
  const config::CollectiveRequest request = config::load_collective_request(args);
  require_same_inputs(request.inputs, invocation);
  const topology::Topology topo(request.topology);
  std::vector<int> axes;
  for (const auto& name : request.axes) axes.push_back(*topo.axis_index(name));
  const auto groups = collectives::make_groups(topo, axes);
  collectives::resolve_algorithm(topo, {request.op, request.algorithm, 1, request.protocol}, groups.front());
  check_sizes(request, topo, static_cast<std::uint32_t>(groups.front().chips.size()), options.args.sizes);
  std::vector<double> costs;  // transfers of each size: the budget, and how sizes are shared out
  for (std::uint64_t bytes : request.sizes) {
    costs.push_back(collectives::estimate_cost(topo, {request.op, request.algorithm, bytes, request.protocol},
                                               groups.front(), groups.size()));
  }
  if (!options.force) check_work(request, topo, groups, costs, options.args.sizes);
  const auto claim = claim_output(options.output_file, request.inputs, invocation);

  // Under mpirun the sizes are shared out over the processes, each simulated whole; with one
  // size, a contention-aware run as chunks is split over them chip by chip
  // (partition::MpiExecutor).
  partition::MpiExecutor executor(*invocation.world);
  static_assert(std::is_trivially_copyable_v<collectives::CollectiveTiming>);
  const auto shared = executor.share(costs, [&](std::size_t i) {
    const collectives::CollectiveTiming t = collectives::time_collective(
        topo, request.network, {request.op, request.algorithm, request.sizes[i], request.protocol}, groups, executor);
    const auto* p = reinterpret_cast<const char*>(&t);
    return std::vector<char>(p, p + sizeof t);
  });
  std::vector<collectives::CollectiveTiming> timings(shared.size());
  for (std::size_t i = 0; i < shared.size(); ++i) std::memcpy(&timings[i], shared[i].data(), sizeof timings[i]);
  if (options.stats) report_parallel_stats(executor.stats(), invocation);
  if (!invocation.prints()) return;
  if (claim) {
    claim->write(output::hdf5_bytes(
        output::FileInfo{invocation.version, invocation.command_line, request.resolved_yaml, 1},
        {make_table(request, timings)}));
  }
  if (options.json) {
    print_json(request, timings);
  } else {
    print_text(request, topo, timings);
  }
}

}  // namespace podsim::cli
