// The inference passes of this build, registered by name (framework/ir/pass.h).
#pragma once

namespace paddle_like {
namespace inference {

// Registers every pass below once; later calls do nothing.
void RegisterInferencePasses();

}  // namespace inference
}  // namespace paddle_like
