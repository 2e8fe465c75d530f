#pragma once

// The lock file "<output>.lock" that tells other podsim processes an output is being
// written, made so that nobody can turn it against a file podsim did not create.
//
// The lock is flock(2) on the file, so the kernel releases it when the holder ends, however
// it ends. The file itself is only ever:
// - created whole and new: written and locked under a fresh random name (O_CREAT | O_EXCL |
//   O_NOFOLLOW, which never follows or reuses a planted name), then hard-linked to the lock
//   name, which fails rather than replace anything already there;
// - taken over when a killed podsim left it: only a regular file whose contents are a podsim
//   lock (kLockHeader first) and that nobody holds;
// - rewritten (the temporary it records) and finally unlinked by its holder, and unlinked only
//   while the lock name still names the holder's own file.
// A symbolic link, anything but a regular file, or a file of the user's at the lock name is
// refused with a sentence, never opened for writing.

#include <optional>
#include <string>

namespace podsim::output {

/// The first line of every podsim lock file. The lines after it: "pid <process id>" and,
/// while a file is being written, "temporary <name in the same directory>".
inline constexpr char kLockHeader[] = "podsim output lock";

/// What a podsim lock file says: its holder's process id and the temporary it is writing.
struct LockContents {
  std::string pid;        ///< decimal digits
  std::string temporary;  ///< a file name in the lock's directory (no '/'), or ""
};

/// The contents of a podsim lock file (every line ended by a newline: kLockHeader, "pid N",
/// optionally "temporary NAME"), or nullopt when `text` is anything else. A lock file is data
/// anyone could have planted: nothing but these two values is taken from it.
std::optional<LockContents> parse_lock(const std::string& text);

/// The text of a lock file holding `contents` (parse_lock reads it back).
std::string render_lock(const LockContents& contents);

/// An open file descriptor, closed on destruction.
class FileDescriptor {
 public:
  FileDescriptor() = default;
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor();
  FileDescriptor(FileDescriptor&& other) noexcept : fd_(other.release()) {}
  FileDescriptor& operator=(FileDescriptor&& other) noexcept;
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

/// True when `name` in the directory open as `dir` is, right now, the file open as `fd`
/// (and not a symbolic link to it).
bool names_file(int dir, const std::string& name, int fd);

/// Eight random characters of [a-z0-9], for names nobody can guess ahead.
std::string random_name_suffix();

/// A held lock file in a directory (see the file comment).
class LockFile {
 public:
  /// Takes the lock `name` in the directory open as `dir` (shown as `shown` in messages,
  /// which start with `cannot`). Throws InputError naming `shown` when another process holds
  /// it (with its process id), or when `name` is a symbolic link, not a regular file, or a
  /// file that is not a podsim lock. `stale_temporary` receives the temporary a killed holder
  /// recorded, if any, for the caller to remove.
  LockFile(int dir, const std::string& name, const std::string& shown, const std::string& cannot,
           std::optional<std::string>& stale_temporary);
  ~LockFile();
  LockFile(const LockFile&) = delete;
  LockFile& operator=(const LockFile&) = delete;

  /// Records `temporary` (a file name in the lock's directory, "" for none) in the lock file,
  /// so that whoever takes the lock after a kill removes it.
  void record(const std::string& temporary);

 private:
  int dir_;
  std::string name_;
  FileDescriptor fd_;
};

}  // namespace podsim::output
