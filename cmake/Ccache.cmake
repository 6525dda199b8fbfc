# Use ccache for C++ and CUDA compilation when it is installed.
find_program(PL_CCACHE ccache)
if(PL_CCACHE)
  set(CMAKE_CXX_COMPILER_LAUNCHER ${PL_CCACHE})
  set(CMAKE_CUDA_COMPILER_LAUNCHER ${PL_CCACHE})
  message(STATUS "ccache: ${PL_CCACHE}")
endif()
