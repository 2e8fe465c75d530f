#include "fuzz_workspace.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <system_error>

namespace podsim::fuzz {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "fuzz workspace: %s\n", what.c_str());
  std::abort();
}

void link(const fs::path& target, const fs::path& at) {
  std::error_code ec;
  fs::create_symlink(target, at, ec);
  if (ec) die("cannot link " + at.string() + " -> " + target.string() + ": " + ec.message());
}

/// A real directory holding a link to every file of `from` (so inputs written into it sit
/// beside the shipped files without touching the repository).
void mirror(const fs::path& from, const fs::path& at) {
  fs::create_directories(at);
  for (const auto& entry : fs::directory_iterator(from)) {
    if (entry.is_regular_file()) link(entry.path(), at / entry.path().filename());
  }
}

}  // namespace

fs::path source_dir() { return fs::path(PODSIM_SOURCE_DIR); }

void note(const char* target, const std::string& what) {
  static const bool verbose = std::getenv("PODSIM_FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "%s: %s\n", target, what.c_str());
}

Workspace& Workspace::get() {
  static Workspace w;
  return w;
}

Workspace::Workspace() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/podsim-fuzz-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) die("cannot create a directory like " + pattern);
  root_ = pattern;
  const fs::path src = source_dir();
  try {
    fs::create_directories(root_ / "configs");
    fs::create_directories(root_ / "tests");
    for (const char* dir : {"models", "hardware", "validation"})
      link(src / "configs" / dir, root_ / "configs" / dir);
    mirror(src / "configs" / "examples", root_ / "configs" / "examples");
    link(src / "tests" / "config_errors" / "include", root_ / "configs" / "examples" / "include");
    mirror(src / "tests" / "sweep", root_ / "configs" / "sweeps");
    mirror(src / "topologies", root_ / "topologies");
    link(src / "tests" / "config_errors" / "include", root_ / "topologies" / "include");
    link(src / "tests" / "sweep", root_ / "tests" / "sweep");
    link(src / "tests" / "config_errors", root_ / "tests" / "config_errors");
  } catch (const fs::filesystem_error& e) {
    die(e.what());
  }
}

Workspace::~Workspace() {
  std::error_code ec;
  fs::remove_all(root_, ec);  // links only: remove_all does not follow them
}

fs::path Workspace::write(std::string_view relative, const std::uint8_t* data,
                          std::size_t size) const {
  const fs::path file = root_ / relative;
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) die("cannot write " + file.string());
  return file;
}

}  // namespace podsim::fuzz
