#pragma once

// Claiming an output file before a command computes anything, and writing it.
//
// podsim writes results atomically (a temporary file renamed onto the output), so a file is
// never half-written. That alone does not stop `-o` from naming something it must not touch:
// the scenario being read, a device node, or the file another podsim is writing right now.
// An OutputClaim checks all of that up front and holds a lock (lock_file.hpp) for as long as
// the command runs. Nothing it creates can be redirected by a name planted beforehand: the
// lock and every temporary are created new (O_EXCL | O_NOFOLLOW) under names with a random
// part, in the output's directory held open from the start; a file it did not create is
// never truncated, and it deletes only names it created, or the temporary a killed podsim's
// lock recorded.

#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "output/lock_file.hpp"

namespace podsim::output {

/// The exclusive right of this process to write one output file.
class OutputClaim {
 public:
  /// Claims `path` for writing. Throws InputError, naming the path, when:
  /// - it is empty, too long, a symbolic link that loops or leads nowhere, a directory, or
  ///   anything but a regular file or a path that does not exist yet (a device such as
  ///   /dev/full, a pipe);
  /// - its directory does not exist or cannot be written;
  /// - after following symbolic links, it is the same file as one of `inputs` (the files the
  ///   command reads; hard links count);
  /// - another process holds the claim, or "<output>.lock" is not a podsim lock.
  /// Then removes the temporary a killed writer's lock recorded.
  OutputClaim(const std::filesystem::path& path, std::span<const std::filesystem::path> inputs);
  ~OutputClaim();
  OutputClaim(const OutputClaim&) = delete;
  OutputClaim& operator=(const OutputClaim&) = delete;

  /// Where the file goes: the claimed path with symbolic links resolved (writing through a
  /// link the user named replaces its target, not the link).
  const std::filesystem::path& path() const { return path_; }

  /// Replaces the output with `bytes`, whole or not at all: written to a new temporary beside
  /// it, then renamed onto it. May be called again (a sweep rewrites its file). Throws
  /// SimulationError naming the output when it cannot, or when the output became a symbolic
  /// link or something other than a regular file while the command ran; the temporary is
  /// removed in every case.
  void write(std::string_view bytes) const;

 private:
  std::filesystem::path path_;
  std::string name_;  ///< path_'s file name, in directory dir_
  std::string cannot_;  ///< "cannot write <path>: "
  FileDescriptor dir_;
  std::unique_ptr<LockFile> lock_;
};

}  // namespace podsim::output
