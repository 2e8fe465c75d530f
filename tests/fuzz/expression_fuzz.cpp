// libFuzzer target: the sweep expression language (util/expression.hpp), as a sweep's
// `derive: { parallelism.dp: "chips / (tp * pp)" }` uses it. The input is the expression's
// text up to the first NUL byte; the bytes after it, 8 at a time, give the variables' values
// (the derive names of config/sweep_config.hpp, then any other name the text uses), so
// libFuzzer can reach the edges of 64-bit arithmetic. Every parsed expression is also
// evaluated with every variable 0, -1, 1, INT64_MIN and INT64_MAX.
//
// Checked (a failed check traps): parsing throws only InputError; with every name it uses
// known, evaluation does not throw; with none known it throws InputError (unless it uses
// none); no value comes with the reason why there is none.
// Anything else — another exception, a sanitizer report (signed overflow, INT64_MIN / -1),
// a timeout, running out of stack — is a finding.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <string>

#include "util/error.hpp"
#include "util/expression.hpp"

namespace {

using Vars = std::map<std::string, std::int64_t>;

void check(bool ok) {
  if (!ok) __builtin_trap();
}

const char* const kDeriveNames[] = {"chips",          "dp",       "tp",           "pp",
                                    "virtual_stages", "zero",     "global_batch", "micro_batch",
                                    "seq_len",        "layers",   "hidden",       "ffn_hidden",
                                    "heads",          "kv_heads", "vocab"};

void evaluate_known(const podsim::Expression& e, const Vars& vars) {
  std::string why;
  std::optional<std::int64_t> v;
  try {
    v = e.evaluate(vars, &why);
  } catch (const podsim::InputError&) {
    check(false);  // every name is known: the text parsed, so it evaluates
  }
  check(v.has_value() || !why.empty());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto* text_end = static_cast<const std::uint8_t*>(std::memchr(data, 0, size));
  const std::size_t text_size =
      text_end != nullptr ? static_cast<std::size_t>(text_end - data) : size;
  const std::string text(reinterpret_cast<const char*>(data), text_size);
  std::size_t at = text_end != nullptr ? text_size + 1 : size;

  std::optional<podsim::Expression> parsed;
  try {
    parsed.emplace(text);
  } catch (const podsim::InputError&) {
    return 0;
  }
  const podsim::Expression& e = *parsed;

  // Values from the input, then a plausible scenario's for what the input does not give.
  Vars vars;
  auto next = [&](std::int64_t fallback) {
    if (at + sizeof(std::int64_t) > size) return fallback;
    std::int64_t v = 0;
    std::memcpy(&v, data + at, sizeof v);
    at += sizeof v;
    return v;
  };
  for (const char* name : kDeriveNames) vars[name] = next(8);
  for (const auto& name : e.names()) {
    if (vars.count(name) == 0) vars[name] = next(3);
  }
  evaluate_known(e, vars);

  for (const std::int64_t fill :
       {std::int64_t{0}, std::int64_t{-1}, std::int64_t{1},
        std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()}) {
    Vars same;
    for (const auto& [name, value] : vars) same[name] = fill;
    evaluate_known(e, same);
  }

  bool threw = false;
  try {
    std::string why;
    (void)e.evaluate({}, &why);
  } catch (const podsim::InputError&) {
    threw = true;
  }
  check(threw == !e.names().empty());
  return 0;
}
