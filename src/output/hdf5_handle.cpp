#include "output/hdf5_handle.hpp"

#include "util/error.hpp"

namespace podsim::output {

std::string hdf5_error_message() {
  std::string message;
  // Walking upward starts at the innermost error, which says what actually went wrong
  // ("No such file or directory"); the outer ones only name the API call.
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned n, const H5E_error2_t* err, void* out) -> herr_t {
        if (n == 0 && err->desc != nullptr) *static_cast<std::string*>(out) = err->desc;
        return 0;
      },
      &message);
  H5Eclear2(H5E_DEFAULT);
  return message;
}

Hdf5Handle make_string_type() {
  Hdf5Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  if (type.get() < 0 || H5Tset_size(type.get(), H5T_VARIABLE) < 0 || H5Tset_cset(type.get(), H5T_CSET_UTF8) < 0) {
    throw SimulationError("making the HDF5 string type: " + hdf5_error_message());
  }
  return type;
}

}  // namespace podsim::output
