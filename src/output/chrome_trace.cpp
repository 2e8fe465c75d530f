#include "output/chrome_trace.hpp"

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "output/json_writer.hpp"
#include "runtime/time_category.hpp"

namespace podsim::output {

namespace {

constexpr int kPathThread = parallelism::kStreams;  // after the streams

double micros(SimTime ps) { return static_cast<double>(ps) / 1e6; }

void metadata(JsonWriter& j, const char* what, int pid, int tid, std::string_view name) {
  j.begin_object();
  j.member("name", what);
  j.member("ph", "M");
  j.member("pid", pid);
  j.member("tid", tid);
  j.key("args");
  j.begin_object();
  j.member("name", name);
  j.end_object();
  j.end_object();
}

void complete(JsonWriter& j, std::string_view name, std::string_view category, int pid, int tid, SimTime start,
              SimTime end) {
  j.begin_object();
  j.member("name", name);
  j.member("cat", category);
  j.member("ph", "X");
  j.member("pid", pid);
  j.member("tid", tid);
  j.member("ts", micros(start));
  j.member("dur", micros(end - start));
  j.end_object();
}

/// One end of a flow arrow (a pipeline message): "s" on the sender's send, "f" where the
/// receiver's compute stream takes it.
void flow(JsonWriter& j, const char* phase, std::uint64_t id, int pid, int tid, SimTime at) {
  j.begin_object();
  j.member("name", "pipeline message");
  j.member("cat", "comm.pp");
  j.member("ph", phase);
  j.member("id", id);
  j.member("pid", pid);
  j.member("tid", tid);
  j.member("ts", micros(at));
  if (phase[0] == 'f') j.member("bp", "e");
  j.end_object();
}

}  // namespace

std::string chrome_trace(const runtime::StepReport& report, const TraceOptions& options) {
  const auto& ex = report.execution;
  auto wanted = [&](std::uint32_t stage) {
    return options.stages.empty() ||
           std::find(options.stages.begin(), options.stages.end(), ex.stages[stage].stage) != options.stages.end();
  };
  std::vector<const runtime::Span*> spans;
  for (const auto& s : ex.timeline) {
    if (wanted(s.stage)) spans.push_back(&s);
  }
  // Kept in time order; beyond the cap the latest intervals go.
  std::stable_sort(spans.begin(), spans.end(), [](const auto* a, const auto* b) { return a->start_ps < b->start_ps; });
  SimTime cut_ps = -1;
  if (spans.size() > options.max_events) {
    cut_ps = spans[options.max_events]->start_ps;
    spans.resize(options.max_events);
  }

  JsonWriter j(0);
  j.begin_object();
  j.member("displayTimeUnit", "ms");
  j.key("otherData");
  j.begin_object();
  j.member("step_time_s", report.step_s);
  j.member("truncated", cut_ps >= 0);
  if (cut_ps >= 0) j.member("intervals_from_s_left_out", to_seconds(cut_ps));
  j.end_object();
  j.key("traceEvents");
  j.begin_array();
  for (std::uint32_t st = 0; st < ex.stages.size(); ++st) {
    if (!wanted(st)) continue;
    const auto& stage = ex.stages[st];
    const int pid = stage.stage;
    metadata(j, "process_name", pid, 0,
             "stage " + std::to_string(stage.stage) + " (one chip of " + std::to_string(stage.multiplicity) + ")");
    for (int t = 0; t < parallelism::kStreams; ++t) {
      metadata(j, "thread_name", pid, t, parallelism::stream_name(static_cast<parallelism::Stream>(t)));
    }
    metadata(j, "thread_name", pid, kPathThread, "critical path");
  }
  for (const auto* s : spans) {
    complete(j, s->operation, runtime::category_name(s->category), ex.stages[s->stage].stage, static_cast<int>(s->stream),
             s->start_ps, s->end_ps);
  }
  // Flow arrows: from the middle of each send to where the receiving stage takes the message.
  std::unordered_map<std::uint64_t, const runtime::Span*> sends;
  for (const auto* sp : spans) {
    if (sp->task != runtime::kNoTask) sends.emplace((std::uint64_t{sp->stage} << 32) | sp->task, sp);
  }
  std::uint64_t id = 0;
  for (const auto& f : ex.flows) {
    const auto send = sends.find((std::uint64_t{f.from_stage} << 32) | f.send_task);
    if (send == sends.end() || !wanted(f.to_stage) || (cut_ps >= 0 && f.taken_ps >= cut_ps)) continue;
    const runtime::Span& sp = *send->second;
    flow(j, "s", id, ex.stages[f.from_stage].stage, static_cast<int>(sp.stream), sp.start_ps + (sp.end_ps - sp.start_ps) / 2);
    flow(j, "f", id, ex.stages[f.to_stage].stage, 0, f.taken_ps);
    ++id;
  }
  // Counter tracks: the busiest link classes' load over the step, in their own process.
  const int links_pid = static_cast<int>(ex.stages.empty() ? 0 : ex.stages.back().stage + 1);
  if (!ex.busiest_links.empty()) metadata(j, "process_name", links_pid, 0, "busiest links (% busy)");
  for (const auto& l : ex.busiest_links) {
    for (const auto& [at, load] : l.samples) {
      if (cut_ps >= 0 && at >= cut_ps) break;
      j.begin_object();
      j.member("name", "link " + l.label);
      j.member("ph", "C");
      j.member("pid", links_pid);
      j.member("ts", micros(at));
      j.key("args");
      j.begin_object();
      j.member("busy %", 100 * load);
      j.end_object();
      j.end_object();
    }
  }
  for (const auto& seg : ex.critical_path) {
    if (!wanted(seg.stage) || (cut_ps >= 0 && seg.start_ps >= cut_ps)) continue;
    complete(j, seg.operation, runtime::category_name(seg.category), ex.stages[seg.stage].stage, kPathThread,
             seg.start_ps, seg.end_ps);
  }
  j.end_array();
  j.end_object();
  return j.str();
}

}  // namespace podsim::output
