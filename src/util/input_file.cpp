#include "util/input_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "util/error.hpp"
#include "util/units.hpp"

namespace podsim {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kSignatureBytes = sizeof kHdf5Signature - 1;

bool starts_with_hdf5(const std::string& bytes) {
  return bytes.size() >= kSignatureBytes && std::memcmp(bytes.data(), kHdf5Signature, kSignatureBytes) == 0;
}

}  // namespace

std::uintmax_t check_input_file(const fs::path& file, const std::string& shown) {
  const std::string cannot = shown + ": cannot open: ";
  if (file.empty()) throw InputError("cannot open a file with an empty name: give a path");
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) {  // follows symbolic links
    switch (errno) {
      case ENOENT: {
        struct stat link {};
        throw InputError(cannot + (::lstat(file.c_str(), &link) == 0 ? "it is a symbolic link to a file that does not exist"
                                                                     : "no such file"));
      }
      case ELOOP: throw InputError(cannot + "it is a symbolic link that loops (too many levels of symbolic links)");
      case ENAMETOOLONG: throw InputError(cannot + "the path is too long for the file system");
      case ENOTDIR: throw InputError(cannot + "a part of its path is not a directory");
      case EACCES: throw InputError(cannot + "permission denied on a folder of its path");
      default: throw InputError(cannot + std::strerror(errno));
    }
  }
  if (S_ISDIR(st.st_mode)) throw InputError(cannot + "it is a directory");
  if (!S_ISREG(st.st_mode)) {
    // /dev/zero would be read until memory runs out; a FIFO would block forever.
    throw InputError(cannot + "it is not a regular file (a device, pipe or socket); podsim reads only files");
  }
  if (::access(file.c_str(), R_OK) != 0) throw InputError(cannot + "permission denied");
  return static_cast<std::uintmax_t>(st.st_size);
}

bool is_hdf5_file(const fs::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;  // never opens a FIFO or device
  std::ifstream in(file, std::ios::binary);
  std::string head(kSignatureBytes, '\0');
  if (!in.read(head.data(), static_cast<std::streamsize>(head.size()))) return false;
  return starts_with_hdf5(head);
}

std::string read_input_file(const fs::path& file, const std::string& shown, std::uintmax_t max_bytes) {
  const std::string cannot = shown + ": cannot open: ";
  const std::uintmax_t size = check_input_file(file, shown);
  if (size > max_bytes) {
    throw InputError(cannot + "it is " + units::format_bytes(static_cast<double>(size)) + "; podsim reads input files of up to " +
                     units::format_bytes(static_cast<double>(max_bytes)));
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(cannot + "permission denied or unreadable");
  std::string bytes;
  bytes.reserve(static_cast<std::size_t>(size));
  // Read at most one byte past the limit: a file that grows while it is read is still bounded.
  std::istreambuf_iterator<char> it(in);
  for (; it != std::istreambuf_iterator<char>() && bytes.size() <= max_bytes; ++it) bytes.push_back(*it);
  if (bytes.size() > max_bytes) {
    throw InputError(cannot + "it grew beyond " + units::format_bytes(static_cast<double>(max_bytes)) + " while being read");
  }
  if (starts_with_hdf5(bytes)) {
    throw InputError(shown + ": this is an HDF5 file (a podsim result?), not a text input; `podsim report " + shown +
                     " --scenario` prints the scenario a podsim result was made from");
  }
  if (const auto nul = bytes.find('\0'); nul != std::string::npos) {
    throw InputError(shown + ": not a text file (a NUL byte at offset " + std::to_string(nul) + ")");
  }
  return bytes;
}

}  // namespace podsim
