// The scatter of the max-pooling-with-index backwards (and unpool's forward): values put or
// added at the positions an index tensor gives, plane by plane.
#pragma once

#include <cstdint>
#include <string>

#include "platform/enforce.h"

namespace paddle_like {
namespace operators {

// to[plane, index[k]] += from[plane, k] (or =, without `add`) for every k of each plane:
// `in_plane` elements per plane of `from`, `out_plane` of `to`. With `add`, a negative index
// (a window wholly in the padding) is passed over; any other index outside the plane is an
// InvalidArgumentError naming `op` and the index tensor's `slot`.
template <typename T, typename I>
void ScatterByIndex(const std::string& op, const char* slot, const T* from, const I* index,
                    int64_t planes, int64_t in_plane, int64_t out_plane, bool add, T* to) {
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t k = 0; k < in_plane; ++k) {
      const int64_t at = static_cast<int64_t>(index[p * in_plane + k]);
      if (at < 0 && add) continue;  // A window wholly in the padding.
      PL_ENFORCE(
          at >= 0 && at < out_plane,
          errors::InvalidArgument("op `%s` input `%s`: index %lld at position %lld of plane "
                                  "%lld is outside the %lld elements of an output plane",
                                  op, slot, static_cast<long long>(at), static_cast<long long>(k),
                                  static_cast<long long>(p), static_cast<long long>(out_plane)));
      T& dst = to[p * out_plane + at];
      dst = add ? dst + from[p * in_plane + k] : from[p * in_plane + k];
    }
  }
}

}  // namespace operators
}  // namespace paddle_like
