// The oneDNN kernel table: every oneDNN kernel of this build is registered here.
#include "operators/registry_table.h"

namespace paddle_like {
namespace operators {

void RegisterOneDNNKernels() {}

}  // namespace operators
}  // namespace paddle_like
