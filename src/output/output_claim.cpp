#include "output/output_claim.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/error.hpp"

namespace podsim::output {

namespace fs = std::filesystem;

namespace {

/// True when `a` and `b` are the same file (device and inode, after symbolic links).
bool same_file(const fs::path& a, const fs::path& b) {
  struct stat sa {};
  struct stat sb {};
  if (::stat(a.c_str(), &sa) != 0 || ::stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/// The process id written in a lock file, or "" when it cannot be read.
std::string lock_owner(int fd) {
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return "";
  std::string s(buf, static_cast<std::size_t>(n));
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s.find_first_not_of("0123456789") == std::string::npos ? s : "";
}

}  // namespace

OutputClaim::OutputClaim(const fs::path& path, std::span<const fs::path> inputs) {
  const std::string cannot = "cannot write " + path.string() + ": ";
  std::error_code ec;
  const fs::file_status link = fs::symlink_status(path, ec);
  const fs::file_status target = fs::status(path, ec);
  if (fs::is_symlink(link) && !fs::exists(target)) {
    throw InputError(cannot + "it is a symbolic link to a file that does not exist");
  }
  if (fs::is_directory(target)) throw InputError(cannot + "it is a directory");
  if (fs::exists(target) && !fs::is_regular_file(target)) {
    throw InputError(cannot + "it is not a regular file (a device, pipe or socket); podsim writes results only to "
                              "regular files");
  }
  ec.clear();
  path_ = fs::exists(target) ? fs::canonical(path, ec) : path;
  if (ec) throw InputError(cannot + ec.message());
  for (const fs::path& input : inputs) {
    if (same_file(path_, input)) {
      throw InputError(cannot + "it is the input file " + input.string() +
                       ", which this command reads; results go to a file of their own (e.g. -o out.h5)");
    }
  }
  const fs::path dir = path_.parent_path().empty() ? fs::path(".") : path_.parent_path();
  if (!fs::exists(dir, ec)) throw InputError(cannot + "directory " + dir.string() + " does not exist");
  if (!fs::is_directory(dir, ec)) throw InputError(cannot + dir.string() + " is not a directory");
  if (::access(dir.c_str(), W_OK) != 0) throw InputError(cannot + "directory " + dir.string() + " is not writable");

  lock_path_ = path_;
  lock_path_ += ".lock";
  // Open, lock, then check the lock file is still the one at lock_path_: a claim that ends
  // unlinks it, and a process that opened it just before must not lock the unlinked file.
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = ::open(lock_path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) throw InputError(cannot + "cannot create its lock file " + lock_path_.string() + ": " + std::strerror(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const std::string owner = lock_owner(fd);
      ::close(fd);
      throw InputError(cannot + "another podsim" + (owner.empty() ? std::string() : " (process " + owner + ")") +
                       " is writing it now (lock " + lock_path_.string() + "); wait for it, or choose another output");
    }
    struct stat held {};
    struct stat named {};
    if (::fstat(fd, &held) == 0 && ::stat(lock_path_.c_str(), &named) == 0 && held.st_ino == named.st_ino &&
        held.st_dev == named.st_dev) {
      const std::string pid = std::to_string(::getpid()) + "\n";
      if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
        // The lock holds without the pid; only the message of a refused writer is poorer.
      }
      lock_fd_ = fd;
      remove_other_temporaries();
      return;
    }
    ::close(fd);
  }
  throw InputError(cannot + "its lock file " + lock_path_.string() + " keeps changing; is another podsim starting?");
}

void OutputClaim::remove_other_temporaries() const {
  // Whoever wrote "<output>.tmp.<pid>" is gone or not writing: it would hold the lock. (A
  // writer killed a moment ago may still exist as a zombie, so asking whether its process
  // exists is not enough.)
  const fs::path dir = path_.parent_path().empty() ? fs::path(".") : path_.parent_path();
  const std::string prefix = path_.filename().string() + ".tmp.";
  const std::string own = prefix + std::to_string(::getpid());
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) == 0 && name != own) fs::remove(entry.path(), ec);
  }
}

OutputClaim::~OutputClaim() {
  if (lock_fd_ < 0) return;
  ::unlink(lock_path_.c_str());
  ::close(lock_fd_);
}

}  // namespace podsim::output
