#pragma once

// A private directory for the config fuzz targets, laid out like the repository so that the
// relative includes of the shipped files resolve from where each input is written:
//
//   <tmp>/podsim-fuzz-XXXXXX/
//     configs/models, configs/hardware, configs/validation   -> the repository's folders
//     configs/examples/  every shipped example (symlinked) and the scenario input
//     configs/examples/include -> tests/config_errors/include
//     configs/sweeps/    the sweep input (its `base: ../examples/…` resolves)
//     topologies/        every shipped topology (symlinked), include/ and the topology input
//     tests/sweep, tests/config_errors                      -> the repository's folders
//
// So `model: ../models/x.yaml` and `topology: ../../topologies/y.yaml` (configs/examples), the
// config_errors cases' `../../configs/models/…` and a topology's `slice: tpu-v5e-16x16.yaml`
// all find their files. Inputs are written, never the repository: it is only read.
// The directory is under $TMPDIR (or /tmp), one per process, removed at a normal exit.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace podsim::fuzz {

class Workspace {
 public:
  /// The process's workspace, created on first use (aborts if it cannot be).
  static Workspace& get();

  /// Writes `size` bytes to `relative` (e.g. "configs/examples/fuzz.yaml") and returns its path.
  std::filesystem::path write(std::string_view relative, const std::uint8_t* data,
                              std::size_t size) const;

  const std::filesystem::path& root() const { return root_; }

  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  ~Workspace();

 private:
  Workspace();
  std::filesystem::path root_;
};

/// The repository the fuzz targets were built from (its configs and topologies).
std::filesystem::path source_dir();

/// With PODSIM_FUZZ_VERBOSE set, prints "<target>: <what>" on stderr: why an input stopped
/// (its InputError message), or how far it went. For triage and for checking seeds.
void note(const char* target, const std::string& what);

}  // namespace podsim::fuzz
