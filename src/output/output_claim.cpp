#include "output/output_claim.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

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

/// Why a path could not be looked at, in words (errno `error`).
std::string why_not(int error) {
  switch (error) {
    case ELOOP: return "it is a symbolic link that loops (too many levels of symbolic links)";
    case ENAMETOOLONG: return "the path is too long for the file system";
    case ENOTDIR: return "a part of its path is not a directory";
    case EACCES: return "permission denied on a folder of its path";
    default: return std::strerror(error);
  }
}

}  // namespace

OutputClaim::OutputClaim(const fs::path& path, std::span<const fs::path> inputs)
    : cannot_("cannot write " + path.string() + ": ") {
  if (path.empty()) throw InputError("cannot write an output with an empty file name: give a path, e.g. out.h5");
  struct stat link {};
  if (::lstat(path.c_str(), &link) == 0) {
    struct stat target {};
    if (::stat(path.c_str(), &target) != 0) {
      if (errno == ENOENT) throw InputError(cannot_ + "it is a symbolic link to a file that does not exist");
      throw InputError(cannot_ + why_not(errno));
    }
    if (S_ISDIR(target.st_mode)) throw InputError(cannot_ + "it is a directory");
    if (!S_ISREG(target.st_mode)) {
      throw InputError(cannot_ + "it is not a regular file (a device, pipe or socket); podsim writes results only to "
                                 "regular files");
    }
    std::error_code ec;
    path_ = fs::canonical(path, ec);
    if (ec) throw InputError(cannot_ + ec.message());
  } else if (errno == ENOENT) {
    path_ = path;
  } else {
    throw InputError(cannot_ + why_not(errno));
  }
  for (const fs::path& input : inputs) {
    if (same_file(path_, input)) {
      throw InputError(cannot_ + "it is the input file " + input.string() +
                       ", which this command reads; results go to a file of their own (e.g. -o out.h5)");
    }
  }
  const fs::path dir = path_.parent_path().empty() ? fs::path(".") : path_.parent_path();
  name_ = path_.filename().string();
  if (name_.empty() || name_ == "." || name_ == "..") throw InputError(cannot_ + "it names a directory, not a file");
  dir_ = FileDescriptor(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!dir_.valid()) {
    if (errno == ENOENT) throw InputError(cannot_ + "directory " + dir.string() + " does not exist");
    if (errno == ENOTDIR) throw InputError(cannot_ + dir.string() + " is not a directory");
    throw InputError(cannot_ + "directory " + dir.string() + ": " + why_not(errno));
  }
  if (::access(dir.c_str(), W_OK) != 0) throw InputError(cannot_ + "directory " + dir.string() + " is not writable");

  fs::path lock_path = path_;
  lock_path += ".lock";
  std::optional<std::string> stale;
  lock_ = std::make_unique<LockFile>(dir_.get(), name_ + ".lock", lock_path.string(), cannot_, stale);
  // A killed writer's temporary, if its lock recorded one of the names podsim gives them.
  struct stat st {};
  if (stale && stale->rfind(name_ + ".tmp.", 0) == 0 &&
      ::fstatat(dir_.get(), stale->c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode)) {
    ::unlinkat(dir_.get(), stale->c_str(), 0);
  }
}

OutputClaim::~OutputClaim() = default;

void OutputClaim::write(std::string_view bytes) const {
  const std::string pid = std::to_string(::getpid());
  std::string temp;
  FileDescriptor fd;
  for (int attempt = 0; attempt < 100 && !fd.valid(); ++attempt) {
    temp = name_ + ".tmp." + pid + "." + random_name_suffix();
    lock_->record(temp);  // recorded first: a kill from here on leaves a temporary the next claim removes
    fd = FileDescriptor(::openat(dir_.get(), temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666));
    if (!fd.valid() && errno != EEXIST) {
      throw SimulationError(cannot_ + "cannot create a temporary file beside it: " + why_not(errno));
    }
  }
  if (!fd.valid()) throw SimulationError(cannot_ + "no free name for a temporary file beside it");
  const auto fail = [&](const std::string& why) {
    if (names_file(dir_.get(), temp, fd.get())) ::unlinkat(dir_.get(), temp.c_str(), 0);
    lock_->record("");
    throw SimulationError(cannot_ + why);
  };
  for (std::size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(fd.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(std::strerror(n < 0 ? errno : EIO));
    done += static_cast<std::size_t>(n);
  }
  // The output as it is now: whatever planted a link or a device here since the claim does
  // not get it replaced.
  struct stat now {};
  if (::fstatat(dir_.get(), name_.c_str(), &now, AT_SYMLINK_NOFOLLOW) == 0) {
    if (S_ISLNK(now.st_mode)) fail("it became a symbolic link while podsim ran; podsim does not replace it");
    if (!S_ISREG(now.st_mode)) fail("it became something other than a regular file while podsim ran");
  }
  if (!names_file(dir_.get(), temp, fd.get())) fail("its temporary file " + temp + " was replaced while podsim wrote it");
  if (::renameat(dir_.get(), temp.c_str(), dir_.get(), name_.c_str()) != 0) fail(why_not(errno));
  lock_->record("");
}

}  // namespace podsim::output
