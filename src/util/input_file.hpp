#pragma once

// Reading an input file a user named: only regular files, of a bounded size, holding text.
// Every refusal is an InputError that names the file and says what it is instead, so that
// `podsim run /dev/zero` or `podsim run out.h5` gets a sentence, not a hang or a parser's
// complaint about an escape character.

#include <cstdint>
#include <filesystem>
#include <string>

namespace podsim {

/// Largest input file podsim reads (16 MiB): the biggest shipped config is a few KiB, the
/// published-measurements CSV some tens of KiB.
inline constexpr std::uintmax_t kMaxInputFileBytes = std::uintmax_t{16} << 20;

/// The first bytes of every HDF5 file written without a user block (podsim's are).
inline constexpr char kHdf5Signature[] = "\x89HDF\r\n\x1a\n";

/// Checks that `file` can be read as an input before anything opens it: throws InputError
/// "<shown>: cannot open: …" when it is missing, a dangling or looping symbolic link, too
/// long a path, a directory, not a regular file (a device, pipe or socket: opening a FIFO
/// would block), or unreadable. Returns its size in bytes.
std::uintmax_t check_input_file(const std::filesystem::path& file, const std::string& shown);

/// The whole of `file` (shown as `shown` in messages). Throws InputError
/// "<shown>: cannot open: …" when it is missing, a directory, not a regular file (a device,
/// pipe or socket), unreadable, larger than `max_bytes`, an HDF5 file, or holds a NUL byte.
std::string read_input_file(const std::filesystem::path& file, const std::string& shown,
                            std::uintmax_t max_bytes = kMaxInputFileBytes);

/// True when `file` is a regular file that starts with the HDF5 signature (false if it
/// cannot be read; a FIFO or device is never opened).
bool is_hdf5_file(const std::filesystem::path& file);

}  // namespace podsim
