// The CPU allocator's cache of freed blocks (platform/allocator.cc), declared apart from
// allocator.h so that callers that only release it do not widen that header.
#pragma once

#include <cstddef>

namespace paddle_like {
namespace platform {

// Returns every freed CPU block the allocator keeps for reuse to the system; the bytes.
size_t ReleaseCachedCpuMemory();

}  // namespace platform
}  // namespace paddle_like
