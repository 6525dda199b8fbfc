// Registration entry points of the op families.
//
// Every op file defines its registration function with one of these markers:
//
//   PL_REGISTER_OPS(RegisterGeluOp) {               // ops and their plain kernels
//     framework::RegisterOp<GeluOp, GeluOpMaker>("gelu") ...;
//   }
//   PL_REGISTER_BACKEND_KERNELS(RegisterEltwiseOneDNNKernels) {  // library kernels
//     framework::RegisterKernel("relu", ..., LibraryType::kOneDNN, ...);
//   }
//
// At configure time cmake/OpRegistryTable.cmake collects the markers of every op source of
// the build into one generated table of explicit calls (no static initialisers):
// RegisterAllOps (registry.h) runs all PL_REGISTER_OPS functions, then all
// PL_REGISTER_BACKEND_KERNELS functions (a backend kernel or declaration may refer to an op
// registered by any family). Within a phase, families run in the order of their file paths,
// and in the order they appear in a file. Adding an op is adding a file: no central table.
#pragma once

#define PL_REGISTER_OPS(name) void name()
#define PL_REGISTER_BACKEND_KERNELS(name) void name()

namespace paddle_like {
namespace operators {

// Defined in the generated table (op_registry_table.cc in the build tree).
void RegisterOpFamilies();
void RegisterBackendKernelFamilies();

}  // namespace operators
}  // namespace paddle_like
