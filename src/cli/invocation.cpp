#include "cli/invocation.hpp"

namespace podsim::cli {

namespace {
std::string shell_quote(const std::string& arg) {
  if (!arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789-_./=:,+@%") == std::string::npos) {
    return arg;
  }
  std::string out = "'";
  for (char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}
}  // namespace

Invocation make_invocation(int argc, char** argv, const partition::Communicator& world) {
  Invocation inv;
  inv.version = PODSIM_VERSION;
  inv.world = &world;
  for (int i = 0; i < argc; ++i) {
    if (i > 0) inv.command_line += ' ';
    inv.command_line += shell_quote(argv[i]);
  }
  return inv;
}

}  // namespace podsim::cli
