#include "output/lock_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "util/error.hpp"

namespace podsim::output {

namespace {

/// Up to 4 KiB of `fd` from its start ("" when it cannot be read).
std::string read_head(int fd) {
  char buf[4096];
  const ssize_t n = ::pread(fd, buf, sizeof buf, 0);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
}

/// Replaces the whole contents of `fd` with `text`; false if the file could not take it.
bool rewrite(int fd, const std::string& text) {
  if (::ftruncate(fd, 0) != 0) return false;
  return ::pwrite(fd, text.data(), text.size(), 0) == static_cast<ssize_t>(text.size());
}

}  // namespace

std::string render_lock(const LockContents& c) {
  std::string s = std::string(kLockHeader) + "\npid " + c.pid + "\n";
  if (!c.temporary.empty()) s += "temporary " + c.temporary + "\n";
  return s;
}

std::optional<LockContents> parse_lock(const std::string& text) {
  LockContents c;
  std::size_t at = 0;
  bool header = false;
  while (at < text.size()) {
    const std::size_t end = text.find('\n', at);
    if (end == std::string::npos) return std::nullopt;  // podsim ends every line
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    if (!header) {
      if (line != kLockHeader) return std::nullopt;
      header = true;
    } else if (line.rfind("pid ", 0) == 0 && c.pid.empty()) {
      c.pid = line.substr(4);
      if (c.pid.empty() || c.pid.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    } else if (line.rfind("temporary ", 0) == 0 && c.temporary.empty()) {
      c.temporary = line.substr(10);
      if (c.temporary.empty() || c.temporary.find('/') != std::string::npos) return std::nullopt;
    } else {
      return std::nullopt;
    }
  }
  if (!header || c.pid.empty()) return std::nullopt;
  return c;
}

bool names_file(int dir, const std::string& name, int fd) {
  struct stat named {};
  struct stat held {};
  return ::fstatat(dir, name.c_str(), &named, AT_SYMLINK_NOFOLLOW) == 0 && ::fstat(fd, &held) == 0 &&
         named.st_dev == held.st_dev && named.st_ino == held.st_ino;
}

std::string random_name_suffix() {
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::random_device device;
  std::uniform_int_distribution<int> pick(0, sizeof kChars - 2);
  std::string s(8, 'x');
  for (char& ch : s) ch = kChars[pick(device)];
  return s;
}

FileDescriptor::~FileDescriptor() {
  if (fd_ >= 0) ::close(fd_);
}

FileDescriptor& FileDescriptor::operator=(FileDescriptor&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

LockFile::LockFile(int dir, const std::string& name, const std::string& shown, const std::string& cannot,
                   std::optional<std::string>& stale_temporary)
    : dir_(dir), name_(name) {
  const std::string pid = std::to_string(::getpid());
  const std::string contents = render_lock({pid, ""});
  for (int attempt = 0; attempt < 100; ++attempt) {
    // A new lock, complete and locked before anyone can see it under the lock name.
    const std::string fresh = name + "." + pid + "." + random_name_suffix();
    FileDescriptor fd(::openat(dir, fresh.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (!fd.valid()) {
      if (errno == EEXIST) continue;
      throw InputError(cannot + "cannot create its lock file " + shown + ": " + std::strerror(errno));
    }
    if (!rewrite(fd.get(), contents) || ::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      ::unlinkat(dir, fresh.c_str(), 0);
      throw InputError(cannot + "cannot write its lock file " + shown + ": " + std::strerror(error));
    }
    const int linked = ::linkat(dir, fresh.c_str(), dir, name.c_str(), 0);
    const int link_error = errno;
    // Only the lock name stays: a kill now leaves no second name behind.
    ::unlinkat(dir, fresh.c_str(), 0);
    if (linked == 0) {
      fd_ = std::move(fd);
      return;
    }
    if (link_error != EEXIST) {
      throw InputError(cannot + "cannot create its lock file " + shown + ": " + std::strerror(link_error));
    }

    // Something is at the lock name already: another podsim's lock, a killed one's, or not
    // a lock at all. Look before opening, and open without following links or blocking.
    struct stat st {};
    if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno == ENOENT) continue;  // its holder just finished
      throw InputError(cannot + "cannot inspect its lock file " + shown + ": " + std::strerror(errno));
    }
    if (S_ISLNK(st.st_mode)) {
      throw InputError(cannot + "its lock file " + shown +
                       " is a symbolic link; podsim never writes through one: remove it, or choose another output");
    }
    if (!S_ISREG(st.st_mode)) {
      throw InputError(cannot + "its lock file " + shown + " exists and is not a regular file; remove it, or choose "
                                                           "another output");
    }
    FileDescriptor existing(::openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (!existing.valid()) {
      if (errno == ENOENT) continue;
      throw InputError(cannot + "cannot open its lock file " + shown + ": " + std::strerror(errno));
    }
    const std::optional<LockContents> found = parse_lock(read_head(existing.get()));
    if (::flock(existing.get(), LOCK_EX | LOCK_NB) != 0) {
      if (found && found->pid == pid) {
        throw InputError(cannot + "this command writes it already, as another of its outputs (-o, --trace, --html "
                                  "each need a file of their own)");
      }
      const std::string owner = found ? " (process " + found->pid + ")" : std::string();
      throw InputError(cannot + "another podsim" + owner + " is writing it now (lock " + shown +
                       "); wait for it, or choose another output");
    }
    if (!names_file(dir, name, existing.get())) continue;  // replaced while we looked
    if (!found) {
      throw InputError(cannot + shown + " exists and is not a podsim lock file (those start with \"" + kLockHeader +
                       "\"); podsim will not overwrite it: move it away, or choose another output");
    }
    // A killed podsim's lock (nobody holds it): replace it by a new one of ours, while holding
    // it, so that nobody else takes it over at the same time.
    FileDescriptor ours(
        ::openat(dir, fresh.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (!ours.valid()) continue;
    if (!rewrite(ours.get(), contents) || ::flock(ours.get(), LOCK_EX | LOCK_NB) != 0 ||
        ::renameat(dir, fresh.c_str(), dir, name.c_str()) != 0) {
      const int error = errno;
      ::unlinkat(dir, fresh.c_str(), 0);
      throw InputError(cannot + "cannot replace the lock file " + shown + " a stopped podsim left: " +
                       std::strerror(error));
    }
    if (!found->temporary.empty()) stale_temporary = found->temporary;
    fd_ = std::move(ours);
    return;
  }
  throw InputError(cannot + "its lock file " + shown + " keeps changing; is another podsim starting?");
}

void LockFile::record(const std::string& temporary) {
  // The lock holds without the record; only the clean-up after a kill would miss a file.
  (void)rewrite(fd_.get(), render_lock({std::to_string(::getpid()), temporary}));
}

LockFile::~LockFile() {
  if (names_file(dir_, name_, fd_.get())) ::unlinkat(dir_, name_.c_str(), 0);
}

}  // namespace podsim::output
