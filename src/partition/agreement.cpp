#include "partition/agreement.hpp"

#include <algorithm>

#include "util/byte_buffer.hpp"
#include "util/error.hpp"
#include "util/sha256.hpp"

namespace podsim::partition {

namespace {

std::vector<char> serialize(const std::vector<AgreedItem>& items) {
  ByteWriter out;
  out.u64(items.size());
  for (const auto& [name, value] : items) {
    out.text(name);
    out.text(value);
  }
  return out.take();
}

std::vector<AgreedItem> deserialize(const std::vector<char>& bytes) {
  ByteReader in(bytes);
  std::vector<AgreedItem> items(in.u64());
  for (auto& [name, value] : items) {
    name = in.text();
    value = in.text();
  }
  return items;
}

/// Every process's `bytes`, by process.
std::vector<std::vector<char>> all_gather(const Communicator& comm, const std::vector<char>& bytes) {
  return comm.exchange(std::vector<std::vector<char>>(static_cast<std::size_t>(comm.size()), bytes));
}

/// "0, 2, 5-9": a set of process numbers, short.
std::string ranks_text(const std::vector<int>& ranks) {
  std::string out;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!out.empty()) out.append(", ");
    out.append(std::to_string(ranks[i]));
    if (j > i) out.append("-").append(std::to_string(ranks[j]));
    i = j + 1;
  }
  return out;
}

/// A value as a message shows it: a digest (64 hex digits) by its first 12, anything else
/// quoted, at most 120 characters.
std::string shown(const std::string& value) {
  if (value.size() == 64 && value.find_first_not_of("0123456789abcdef") == std::string::npos) {
    return "SHA-256 " + value.substr(0, 12) + "…";
  }
  std::string out(1, '"');
  out.append(value.size() <= 120 ? value : value.substr(0, 117) + "...");
  return out.append(1, '"');
}

}  // namespace

void require_agreement(const Communicator& comm, const std::string& what, const std::vector<AgreedItem>& items) {
  if (comm.size() == 1) return;
  const std::vector<char> mine = serialize(items);
  const std::string digest = sha256_hex(std::string_view(mine.data(), mine.size()));
  const auto digests = all_gather(comm, std::vector<char>(digest.begin(), digest.end()));
  if (std::all_of(digests.begin(), digests.end(), [&](const auto& d) { return d == digests.front(); })) return;

  // They differ: every process gets every list and words the same message from them.
  const auto lists = all_gather(comm, mine);
  std::vector<int> like_first;
  std::vector<int> other;
  for (int r = 0; r < comm.size(); ++r) {
    (digests[static_cast<std::size_t>(r)] == digests.front() ? like_first : other).push_back(r);
  }
  const int r = other.front();
  const auto a = deserialize(lists.front());
  const auto b = deserialize(lists[static_cast<std::size_t>(r)]);
  std::string difference;
  for (std::size_t i = 0; i < std::max(a.size(), b.size()) && difference.empty(); ++i) {
    if (i >= a.size() || i >= b.size()) {
      const auto& extra = i < a.size() ? a[i] : b[i];
      difference = extra.first + " is read by process " + std::to_string(i < a.size() ? 0 : r) + " only";
    } else if (a[i].first != b[i].first) {
      difference = "process 0 reads " + a[i].first + " where process " + std::to_string(r) + " reads " + b[i].first;
    } else if (a[i].second != b[i].second) {
      difference = a[i].first + ": process 0 has " + shown(a[i].second) + ", process " + std::to_string(r) + " has " +
                   shown(b[i].second);
    }
  }
  const auto processes = [](const std::vector<int>& ranks) {
    return (ranks.size() == 1 ? "process " : "processes ") + ranks_text(ranks);
  };
  throw InputError("the processes disagree on " + what + " (" + difference + "); " + processes(like_first) +
                   " against " + processes(other) +
                   ". Every process must run the same command on the same files (mpiexec -wdir, a shared folder)");
}

}  // namespace podsim::partition
