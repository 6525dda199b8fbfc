# Installs the build (cmake --install) into a fresh prefix, builds examples/infer_npy against
# the installed package with find_package(paddle_like), and runs it on a PaddlePaddle-saved
# model: its output must match PaddlePaddle's. Run as:
#   cmake -DSOURCE_DIR=<repo> -DBINARY_DIR=<build> -DWORK_DIR=<dir> [-DCXX_COMPILER=<c++>]
#         -P <this file>
# The example is built with the build's compiler (a sanitized build's libraries need that
# compiler's sanitizer runtimes).
cmake_minimum_required(VERSION 3.22)

set(dir ${WORK_DIR}/install_package_test)
file(REMOVE_RECURSE ${dir})
set(prefix ${dir}/prefix)

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "${what} failed (${code}):\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

run("install" ${CMAKE_COMMAND} --install ${BINARY_DIR} --prefix ${prefix})
foreach(file include/paddle_like/inference_api.h lib/cmake/paddle_like/paddle_likeConfig.cmake
             lib/cmake/paddle_like/paddle_likeConfigVersion.cmake lib/libpl_inference.so
             bin/paddle_like)
  if(NOT EXISTS ${prefix}/${file})
    message(FATAL_ERROR "the install lacks ${file}")
  endif()
endforeach()

# The example sees only the installed tree (not the source or build tree).
set(compiler "")
if(CXX_COMPILER)
  set(compiler -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
endif()
run("configure the example" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/infer_npy -B ${dir}/build
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release ${compiler})
run("build the example" ${CMAKE_COMMAND} --build ${dir}/build)

set(model ${SOURCE_DIR}/tests/fixtures/models/ppocr_mobile_v2_cls)
run("infer_npy" ${dir}/build/infer_npy ${model} ${model}/x.npy ${model}/expected_0.npy)
if(NOT last_output MATCHES "matches")
  message(FATAL_ERROR "infer_npy did not reproduce PaddlePaddle's output:\n${last_output}")
endif()
message(STATUS "${last_output}")

# The installed tool runs from the prefix too.
run("installed paddle_like" ${prefix}/bin/paddle_like ops)
file(REMOVE_RECURSE ${dir})
