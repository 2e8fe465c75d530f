#pragma once

// Claiming an output file before a command computes anything.
//
// podsim writes results atomically (a temporary file renamed onto the output), so a file is
// never half-written. That alone does not stop `-o` from naming something it must not touch:
// the scenario being read, a device node, or the file another podsim is writing right now.
// An OutputClaim checks all of that up front and holds an advisory lock for as long as the
// command runs.

#include <filesystem>
#include <span>
#include <string>

namespace podsim::output {

/// The exclusive right of this process to write one output file.
///
/// The lock is flock(2) on "<output>.lock" beside the output, holding the owner's process
/// id; the kernel releases it when the process ends, however it ends, so a killed writer
/// never blocks the next one. The lock file is removed when the claim ends normally.
class OutputClaim {
 public:
  /// Claims `path` for writing. Throws InputError, naming the path, when:
  /// - it is a directory, or anything but a regular file or a path that does not exist yet
  ///   (a device such as /dev/full, a pipe, a dangling symbolic link);
  /// - its directory does not exist or cannot be written;
  /// - after following symbolic links, it is the same file as one of `inputs` (the files the
  ///   command reads; hard links count);
  /// - another process holds the claim.
  /// Then removes "<output>.tmp.<pid>" files of other processes: with the lock held, their
  /// writers are gone.
  OutputClaim(const std::filesystem::path& path, std::span<const std::filesystem::path> inputs);
  ~OutputClaim();
  OutputClaim(const OutputClaim&) = delete;
  OutputClaim& operator=(const OutputClaim&) = delete;

  /// Where to write: the claimed path with symbolic links resolved (writing through a link
  /// replaces its target, not the link).
  const std::filesystem::path& path() const { return path_; }

 private:
  void remove_other_temporaries() const;

  std::filesystem::path path_;
  std::filesystem::path lock_path_;
  int lock_fd_ = -1;
};

}  // namespace podsim::output
