# Checks cmake/OpRegistryTable.cmake on made-up op sources: both markers are found, the op
# families come before the backend kernel families, sources are taken in path order and
# functions in file order, helper functions without a marker are ignored, and an unchanged
# table is not rewritten. Run as: cmake -DSOURCE_DIR=<repo> -DWORK_DIR=<dir> -P <this file>
cmake_minimum_required(VERSION 3.22)
include(${SOURCE_DIR}/cmake/OpRegistryTable.cmake)

set(dir ${WORK_DIR}/op_registry_table_test)
file(REMOVE_RECURSE ${dir})
file(WRITE ${dir}/ops/b_op.cc "PL_REGISTER_OPS(RegisterB1) {\n}\nPL_REGISTER_OPS(RegisterB2) {}\n")
file(WRITE ${dir}/ops/a_op.cc
     "void RegisterHelper() {}\n  PL_REGISTER_OPS(NotAtLineStart)\nPL_REGISTER_OPS(RegisterA) {}\n")
file(WRITE ${dir}/onednn/a_onednn.cc "PL_REGISTER_BACKEND_KERNELS(RegisterAOneDNN) {}\n")
set(out ${dir}/table.cc)
pl_generate_op_registry_table(OUTPUT ${out} BASE ${dir}
  SOURCES ${dir}/onednn/a_onednn.cc ${dir}/ops/b_op.cc ${dir}/ops/a_op.cc)
file(READ ${out} text)

function(expect_order first second)
  string(FIND "${text}" "${first}" i)
  string(FIND "${text}" "${second}" j)
  if(i EQUAL -1 OR j EQUAL -1 OR NOT i LESS j)
    message(FATAL_ERROR "expected `${first}` before `${second}` in:\n${text}")
  endif()
endfunction()

expect_order("void RegisterOpFamilies() {\n  RegisterA();\n  RegisterB1();\n  RegisterB2();\n}"
             "void RegisterBackendKernelFamilies() {\n  RegisterAOneDNN();\n}")
expect_order("// RegisterA: ops/a_op.cc" "// RegisterB1: ops/b_op.cc")
foreach(absent RegisterHelper NotAtLineStart)
  string(FIND "${text}" "${absent}" k)
  if(NOT k EQUAL -1)
    message(FATAL_ERROR "`${absent}` has no marker at the start of a line but is in the table")
  endif()
endforeach()

# Unchanged sources: the file keeps its timestamp (nothing recompiles).
file(TIMESTAMP ${out} before "%s")
execute_process(COMMAND ${CMAKE_COMMAND} -E sleep 1.1)
pl_generate_op_registry_table(OUTPUT ${out} BASE ${dir}
  SOURCES ${dir}/onednn/a_onednn.cc ${dir}/ops/b_op.cc ${dir}/ops/a_op.cc)
file(TIMESTAMP ${out} after "%s")
if(NOT before STREQUAL after)
  message(FATAL_ERROR "the unchanged table was rewritten")
endif()
message(STATUS "op registry table: ok")
