#pragma once

#include <stdexcept>
#include <string>

namespace podsim {

/// Base of every error podsim throws on purpose. Only `cli` turns errors into exit codes.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The user's input is wrong (config file, command-line value, data file): exit code 2.
/// The message names where the problem is (file:line:col and key path when known).
class InputError : public Error {
 public:
  using Error::Error;
};

/// The input was valid but the simulation could not produce a result: exit code 1.
class SimulationError : public Error {
 public:
  using Error::Error;
};

}  // namespace podsim
