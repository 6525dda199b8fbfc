#include "framework/variable.h"

namespace paddle_like {
namespace framework {

const char* VarTypeName(int var_type) {
  switch (var_type) {
    case 7: return "DenseTensor";
    case 8: return "SelectedRows";
    case 9: return "FeedList";
    case 10: return "FetchList";
    case 13: return "DenseTensorArray";
    default: return "unknown variable type";
  }
}

const char* HeldTypeName(const Variable& var) {
  return var.IsInitialized() ? VarTypeName(var.Type()) : "nothing";
}

}  // namespace framework
}  // namespace paddle_like
