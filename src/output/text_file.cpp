#include "output/text_file.hpp"

#include <unistd.h>

#include <fstream>
#include <string>
#include <system_error>

#include "util/error.hpp"

namespace podsim::output {

void write_text_file(const std::filesystem::path& path, std::string_view text) {
  std::filesystem::path temp = path;
  temp += ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.flush();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(temp, ignored);
      throw SimulationError("cannot write " + path.string());
    }
  }
  std::error_code ec;
  std::filesystem::rename(temp, path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
    throw SimulationError("cannot write " + path.string() + ": " + ec.message());
  }
}

}  // namespace podsim::output
