#include "validation/cross_validation.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

#include "config/component_config.hpp"
#include "util/error.hpp"

namespace podsim::validation {

namespace {

double mean_abs(const std::vector<double>& errors) {
  if (errors.empty()) return std::nan("");
  double sum = 0;
  for (double e : errors) sum += std::fabs(e);
  return sum / static_cast<double>(errors.size());
}

double mean(const std::vector<double>& values) {
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

double round_to(double x, double step) { return std::round(x / step) * step; }

/// A constant MFU c's prediction of a training row: podsim's, scaled by c over podsim's MFU
/// (a time the other way).
double baseline_prediction(const RowResult& r, double c) {
  const double scale = c / r.mfu;
  return has(r.metric, "time") ? r.predicted / scale : r.predicted * scale;
}

bool training_step(const RowResult& r) { return r.mfu > 0 && !has(r.metric, "memory"); }

class CrossValidation {
 public:
  CrossValidation(const std::vector<CsvRow>& rows, const Catalog& catalog, const CrossProgress& progress)
      : catalog_(catalog), progress_(progress) {
    for (const CsvRow& row : rows) by_id_[row.at("id")] = row;
  }

  /// validate() of the rows `ids` with `overrides`. A row simulated before with the same
  /// overrides is not simulated again: the fits of one family without each source try mostly
  /// the same constants on mostly the same rows.
  ValidationReport run(const std::vector<std::string>& ids, const Overrides& overrides, const std::string& what) {
    if (progress_) progress_(what);
    std::vector<RowOutcome> outcomes;
    for (const auto& id : ids) {
      const OutcomeKey key{id, overrides.matmul, overrides.training};
      auto it = outcomes_.find(key);
      if (it == outcomes_.end()) {
        it = outcomes_.emplace(key, validate_row(by_id_.at(id), catalog_, overrides, &memo_)).first;
      }
      outcomes.push_back(it->second);
    }
    return summarise(std::move(outcomes));
  }

  /// The `constant` of `hardware` minimising the MAPE over `ids` (tools/calibrate's search).
  double fit(const std::string& family, const std::string& constant, const std::string& hardware,
             const std::vector<std::string>& ids, const std::string& without) {
    const auto key = std::make_pair(family, ids);
    if (const auto it = fits_.find(key); it != fits_.end()) return it->second;
    std::map<double, double> cache;
    auto mape = [&](double x) {
      x = std::round(x * 1e4) / 1e4;
      if (const auto it = cache.find(x); it != cache.end()) return it->second;
      Overrides o;
      o.set(constant, hardware, x);
      return cache[x] = run(ids, o, "fit " + family + " without " + without).mape;
    };
    double lo = 0.40, hi = 1.00;
    const double g = (std::sqrt(5.0) - 1) / 2;
    double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
    while (hi - lo > 0.002) {
      if (mape(a) < mape(b)) {
        hi = b;
        b = a;
        a = hi - g * (hi - lo);
      } else {
        lo = a;
        a = b;
        b = lo + g * (hi - lo);
      }
    }
    return fits_[key] = round_to((lo + hi) / 2, 0.005);
  }

 private:
  const Catalog& catalog_;
  const CrossProgress& progress_;
  std::map<std::string, CsvRow> by_id_;
  /// A row's outcome by (row id, Overrides::matmul, Overrides::training).
  using OutcomeKey = std::tuple<std::string, std::map<std::string, double>, std::map<std::string, double>>;
  std::map<OutcomeKey, RowOutcome> outcomes_;
  std::map<std::pair<std::string, std::vector<std::string>>, double> fits_;
  /// Communication measurements, shared by every validation: a refit changes compute
  /// constants only, so each row's collectives are measured once, not once per constant tried.
  runtime::CommMemo memo_;
};

std::string hardware_name(const FittedConstant& f) { return std::filesystem::path(f.file).stem().string(); }

bool refitted(const FittedConstant& f) { return f.constant == "matmul" || f.constant == "training"; }

}  // namespace

std::vector<FittedConstant> read_fitted(const std::filesystem::path& root) {
  const std::filesystem::path file = root / "configs" / "validation" / "fitted.csv";
  std::vector<FittedConstant> out;
  for (const CsvRow& row : read_csv(file, {"constant", "family", "file", "fitted_on", "source"})) {
    FittedConstant f{row.at("constant"), row.at("family"), row.at("file"), row.at("fitted_on"), row.at("source")};
    if (refitted(f)) {
      const hardware::Efficiency e = config::load_hardware(root / f.file).efficiency;
      f.value = f.constant == "training" ? e.training : e.matmul;
      f.other = f.constant == "training" ? e.matmul : e.training;
    } else if (f.constant != "nccl.launch") {
      throw InputError(file.string() + ":" + std::to_string(row.line) + ": constant \"" + f.constant +
                       "\" is not one podsim refits (training, matmul) or marks (nccl.launch)");
    }
    out.push_back(std::move(f));
  }
  return out;
}

CrossReport cross_validate(const std::vector<CsvRow>& rows, const Catalog& catalog, const std::string& data,
                           const std::vector<FittedConstant>& fitted, const CrossProgress& progress) {
  CrossValidation cv(rows, catalog, progress);
  CrossReport report;
  report.data = data;
  std::vector<std::string> all;
  for (const CsvRow& row : rows) all.push_back(row.at("id"));
  report.in_sample = cv.run(all, {}, "in sample");
  const std::vector<RowResult>& results = report.in_sample.rows;

  std::vector<const FittedConstant*> refit, elsewhere;
  for (const FittedConstant& f : fitted) {
    if (!refitted(f)) {
      if (f.fitted_on == data && !f.source.empty()) report.not_cross_validated.insert(f.source);
    } else if (f.fitted_on == data && f.source.empty()) {
      refit.push_back(&f);
    } else {
      elsewhere.push_back(&f);
    }
  }
  std::set<std::string> sources;
  for (const RowResult& r : results) sources.insert(r.source);
  for (const std::string& source : sources) {
    std::map<std::string, double>& chosen = report.constants_without[source];
    for (const FittedConstant* f : refit) {
      std::vector<std::string> ids;
      for (const RowResult& r : results) {
        if (r.family == f->family && !r.collective && r.source != source) ids.push_back(r.id);
      }
      if (!ids.empty()) chosen[f->family] = cv.fit(f->family, f->constant, hardware_name(*f), ids, source);
    }
    std::vector<double> rates, trainings;  // the other families' matmul × training, and training
    const auto know = [&](const FittedConstant& g, double value) {
      rates.push_back(value * g.other);
      if (g.constant == "training") trainings.push_back(value);
    };
    for (const FittedConstant* g : refit) {
      if (chosen.count(g->family) != 0) know(*g, chosen[g->family]);
    }
    for (const FittedConstant* g : elsewhere) know(*g, g->value);
    for (const FittedConstant* f : refit) {
      if (chosen.count(f->family) != 0 || rates.empty()) continue;
      if (f->constant == "training" && !trainings.empty()) {
        chosen[f->family] = round_to(mean(trainings), 0.005);
      } else {
        chosen[f->family] = round_to(mean(rates) / f->other, 0.005);
      }
    }
    Overrides o;
    for (const FittedConstant* f : refit) {
      if (chosen.count(f->family) != 0) o.set(f->constant, hardware_name(*f), chosen[f->family]);
    }
    std::vector<std::string> ids;
    for (const RowResult& r : results) {
      if (r.source == source) ids.push_back(r.id);
    }
    for (const RowResult& r : cv.run(ids, o, "predict " + source).rows) report.loso_error[r.id] = r.error;
  }

  std::set<std::string> families;
  for (const RowResult& r : results) families.insert(r.family);
  for (const std::string& family : families) {
    std::vector<const RowResult*> training;
    for (const RowResult& r : results) {
      if (r.family == family && training_step(r)) training.push_back(&r);
    }
    if (training.empty()) continue;
    auto errors = [&](double c) {
      std::vector<double> e;
      for (const RowResult* r : training) e.push_back(baseline_prediction(*r, c) / r->measured - 1);
      return e;
    };
    double best = 0.05, best_mape = mean_abs(errors(best));
    for (int k = 51; k < 1000; ++k) {  // 0.1 % steps
      const double m = mean_abs(errors(k / 1000.0));
      if (m < best_mape) {
        best = k / 1000.0;
        best_mape = m;
      }
    }
    report.baseline_mfu[family] = best;
    const auto e = errors(best);
    for (std::size_t i = 0; i < training.size(); ++i) report.baseline_error[training[i]->id] = e[i];
  }

  auto summarise = [&](auto&& member) {
    CrossSummary s;
    std::vector<double> in, loso, podsim, base;
    std::map<std::string, std::vector<double>> by_source;
    for (const RowResult& r : results) {
      if (!member(r)) continue;
      ++s.rows;
      in.push_back(r.error);
      if (const auto l = report.loso_error.find(r.id); l != report.loso_error.end()) {
        loso.push_back(l->second);
        if (r.mfu > 0) by_source[r.source].push_back(l->second);
      }
      if (const auto b = report.baseline_error.find(r.id); b != report.baseline_error.end()) {
        base.push_back(b->second);
        podsim.push_back(r.error);
      }
    }
    std::vector<double> deviations;
    for (const auto& [source, errors] : by_source) {
      if (errors.size() < 3) continue;
      const double m = std::accumulate(errors.begin(), errors.end(), 0.0) / double(errors.size());
      for (double e : errors) deviations.push_back(e - m);
    }
    s.in_sample = mean_abs(in);
    s.loso = mean_abs(loso);
    s.spread = mean_abs(deviations);
    s.spread_rows = static_cast<int>(deviations.size());
    s.baseline_rows = static_cast<int>(base.size());
    s.podsim_on_baseline_rows = mean_abs(podsim);
    s.baseline = mean_abs(base);
    return s;
  };
  for (const std::string& source : sources) {
    report.by_source[source] = summarise([&](const RowResult& r) { return r.source == source; });
  }
  for (const std::string& family : families) {
    report.by_family[family] = summarise([&](const RowResult& r) { return r.family == family; });
  }
  report.overall = summarise([](const RowResult&) { return true; });
  return report;
}

}  // namespace podsim::validation
