#include "topology/grid_geometry.hpp"

#include <algorithm>
#include <cstdlib>

#include "util/error.hpp"

namespace podsim::topology {

namespace {
int floor_div(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
int positive_mod(int a, int b) { return ((a % b) + b) % b; }
}  // namespace

GridGeometry::GridGeometry(const GridSpec& spec)
    : dims_(spec.dims), wrap_(spec.wraparound), twisted_(spec.twisted) {
  if (dims_.empty() || dims_.size() > 3) {
    throw InputError("a grid has 1 to 3 axes, got " + std::to_string(dims_.size()));
  }
  if (wrap_.size() != dims_.size()) {
    throw InputError("wraparound has " + std::to_string(wrap_.size()) +
                     " entries but dims has " + std::to_string(dims_.size()));
  }
  for (std::size_t a = 0; a < dims_.size(); ++a) {
    if (dims_[a] < 1) throw InputError("every entry of dims must be at least 1");
    // On 1 or 2 chips a wrap link would duplicate the link that is already there.
    if (wrap_[a] && dims_[a] < 3) {
      throw InputError("wraparound needs at least 3 chips along an axis, axis " +
                       std::to_string(a) + " has " + std::to_string(dims_[a]));
    }
    size_ *= static_cast<std::size_t>(dims_[a]);
  }
  if (twisted_) {
    const int k = *std::min_element(dims_.begin(), dims_.end());
    long_axis_.assign(dims_.size(), false);
    bool has_long = false;
    for (std::size_t a = 0; a < dims_.size(); ++a) {
      if (dims_[a] == 2 * k) {
        long_axis_[a] = true;
        has_long = true;
      } else if (dims_[a] != k) {
        has_long = false;
        break;
      }
    }
    if (!has_long || dims_.size() != 3 || k < 3) {
      throw InputError(
          "a twisted torus needs three axes of extents k and 2k (k×k×2k or k×2k×2k)");
    }
    short_extent_ = k;
    wrap_.assign(dims_.size(), true);
  }
}

Coord GridGeometry::coord(std::size_t index) const {
  Coord c{0, 0, 0, 0};
  for (std::size_t a = 0; a < dims_.size(); ++a) {
    const auto d = static_cast<std::size_t>(dims_[a]);
    c[a] = static_cast<int>(index % d);
    index /= d;
  }
  return c;
}

std::size_t GridGeometry::index(const Coord& c) const {
  std::size_t i = 0;
  for (std::size_t a = dims_.size(); a-- > 0;) {
    i = i * static_cast<std::size_t>(dims_[a]) + static_cast<std::size_t>(c[a]);
  }
  return i;
}

Coord GridGeometry::normalize(Coord c) const {
  if (twisted_) {
    const int k = short_extent_;
    for (std::size_t a = 0; a < dims_.size(); ++a) {
      if (long_axis_[a]) continue;
      // (x + k) on a short axis is the same chip as x with every long axis moved by +k.
      const int q = floor_div(c[a], k);
      c[a] -= q * k;
      for (std::size_t b = 0; b < dims_.size(); ++b) {
        if (long_axis_[b]) c[b] += q * k;
      }
    }
  }
  for (std::size_t a = 0; a < dims_.size(); ++a) c[a] = positive_mod(c[a], dims_[a]);
  return c;
}

std::optional<std::size_t> GridGeometry::neighbor(std::size_t index, int axis, int dir) const {
  return neighbor(coord(index), axis, dir);
}

std::optional<std::size_t> GridGeometry::neighbor(const Coord& at, int axis, int dir) const {
  Coord c = at;
  const auto a = static_cast<std::size_t>(axis);
  const int next = c[a] + dir;
  if (dims_[a] == 1) return std::nullopt;
  if (!wrap_[a] && (next < 0 || next >= dims_[a])) return std::nullopt;
  c[a] = next;
  if (twisted_) return this->index(normalize(c));
  // One step off a plain grid wraps within its own axis.
  if (next < 0) c[a] += dims_[a];
  if (next >= dims_[a]) c[a] -= dims_[a];
  return this->index(c);
}

int GridGeometry::distance(std::size_t a, std::size_t b) const {
  const Coord ca = coord(a);
  const Coord cb = coord(b);
  if (twisted_) {
    Coord diff{0, 0, 0, 0};
    for (std::size_t i = 0; i < dims_.size(); ++i) diff[i] = cb[i] - ca[i];
    return origin_distance_[index(normalize(diff))];
  }
  int hops = 0;
  for (std::size_t i = 0; i < dims_.size(); ++i) {
    const int d = std::abs(cb[i] - ca[i]);
    hops += wrap_[i] ? std::min(d, dims_[i] - d) : d;
  }
  return hops;
}

void GridGeometry::set_distances_from_origin(std::vector<int> distances) {
  origin_distance_ = std::move(distances);
  // From chip 0 to chip d: the first step to a chip one hop closer (from `at` to `dst` it is
  // the same as from 0 to dst − at).
  first_step_.assign(size_, -1);
  for (std::size_t d = 1; d < size_; ++d) {
    const Coord c = coord(d);
    for (std::size_t axis = 0; axis < dims_.size() && first_step_[d] < 0; ++axis) {
      for (int dir : {+1, -1}) {
        Coord rest = c;  // dst − (0 + dir along axis)
        rest[axis] -= dir;
        if (origin_distance_[index(normalize(rest))] == origin_distance_[d] - 1) {
          first_step_[d] = static_cast<std::int8_t>(axis * 2 + (dir < 0 ? 1 : 0));
          break;
        }
      }
    }
  }
}

int GridGeometry::first_step(std::size_t a, std::size_t b) const {
  const Coord ca = coord(a);
  Coord diff = coord(b);
  for (std::size_t i = 0; i < dims_.size(); ++i) diff[i] -= ca[i];
  return first_step_[index(normalize(diff))];
}

}  // namespace podsim::topology
