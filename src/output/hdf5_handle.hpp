#pragma once

#include <hdf5.h>

#include <string>
#include <utility>

// Internal to `output` (and its tests): HDF5 appears in no other module's headers.

namespace podsim::output {

/// Owns an HDF5 identifier (file, dataset, type, space, attribute, property list) and
/// closes it with the matching H5?close. Move-only; an invalid id (< 0) owns nothing.
class Hdf5Handle {
 public:
  using Closer = herr_t (*)(hid_t);

  Hdf5Handle() = default;
  Hdf5Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  Hdf5Handle(const Hdf5Handle&) = delete;
  Hdf5Handle& operator=(const Hdf5Handle&) = delete;
  Hdf5Handle(Hdf5Handle&& other) noexcept
      : id_(std::exchange(other.id_, H5I_INVALID_HID)), closer_(other.closer_) {}
  Hdf5Handle& operator=(Hdf5Handle&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = std::exchange(other.id_, H5I_INVALID_HID);
      closer_ = other.closer_;
    }
    return *this;
  }
  ~Hdf5Handle() { reset(); }

  /// The identifier, for HDF5 calls.
  hid_t get() const { return id_; }

  /// Closes now and reports whether closing succeeded (a file's data is flushed on close).
  bool close() {
    const bool ok = id_ < 0 || closer_(id_) >= 0;
    id_ = H5I_INVALID_HID;
    return ok;
  }

 private:
  void reset() {
    if (id_ >= 0) closer_(id_);
    id_ = H5I_INVALID_HID;
  }

  hid_t id_ = H5I_INVALID_HID;
  Closer closer_ = nullptr;
};

/// Turns HDF5's automatic error printing off for the lifetime of the guard and restores the
/// previous handler afterwards, so that HDF5 errors reach the user only as our exceptions.
class Hdf5Silence {
 public:
  Hdf5Silence() {
    H5Eget_auto2(H5E_DEFAULT, &old_func_, &old_data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  Hdf5Silence(const Hdf5Silence&) = delete;
  Hdf5Silence& operator=(const Hdf5Silence&) = delete;
  ~Hdf5Silence() { H5Eset_auto2(H5E_DEFAULT, old_func_, old_data_); }

 private:
  H5E_auto2_t old_func_ = nullptr;
  void* old_data_ = nullptr;
};

/// The innermost message on HDF5's error stack (the most specific one), then clears the
/// stack; "" if it is empty.
std::string hdf5_error_message();

/// Variable-length UTF-8 C string: what podsim writes text as, and h5py reads back as
/// `str`. Throws SimulationError if HDF5 refuses.
Hdf5Handle make_string_type();

}  // namespace podsim::output
