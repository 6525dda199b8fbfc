# PL_SANITIZE=address: AddressSanitizer (with LeakSanitizer) and UndefinedBehaviorSanitizer;
# PL_SANITIZE=thread: ThreadSanitizer; PL_SANITIZE=fuzzer: ASan + UBSan with libFuzzer's
# coverage instrumentation (clang only), for the fuzz targets of tests/fuzz. Every error stops
# the program (no recovery), so a test that triggers one fails. scripts/test.sh
# --sanitize=address|thread builds and runs this way; scripts/fuzz.sh builds the fuzzer one.
set(PL_SANITIZE "" CACHE STRING
    "Sanitizers to build with: address (ASan+UBSan), thread, fuzzer, or empty")
if(PL_SANITIZE STREQUAL "fuzzer")
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "PL_SANITIZE=fuzzer needs clang (libFuzzer): configure with "
                        "-DCMAKE_CXX_COMPILER=clang++")
  endif()
  set(PL_SANITIZE_FLAGS -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
                        -fno-omit-frame-pointer -g1)
elseif(PL_SANITIZE STREQUAL "address")
  set(PL_SANITIZE_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=all
                        -fno-omit-frame-pointer -g1)
elseif(PL_SANITIZE STREQUAL "thread")
  set(PL_SANITIZE_FLAGS -fsanitize=thread -fno-omit-frame-pointer -g1)
elseif(NOT PL_SANITIZE STREQUAL "")
  message(FATAL_ERROR "PL_SANITIZE must be address, thread, fuzzer or empty, not ${PL_SANITIZE}")
endif()
if(PL_SANITIZE_FLAGS)
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:${PL_SANITIZE_FLAGS}>")
  if(PL_SANITIZE STREQUAL "fuzzer")
    # The targets add -fsanitize=fuzzer and carry clang's static sanitizer runtimes, which
    # the shared libraries' sanitizer symbols resolve against when they load: the libraries
    # are linked without --no-undefined (PL_NO_UNDEFINED below).
    add_link_options(-fsanitize=address,undefined)
  else()
    add_link_options(${PL_SANITIZE_FLAGS})
  endif()
endif()

# Shared libraries normally refuse undefined symbols at link time (a missing source shows
# then, not when a program loads them); not in the fuzzer build, see above.
if(PL_SANITIZE STREQUAL "fuzzer")
  set(PL_NO_UNDEFINED "")
else()
  set(PL_NO_UNDEFINED -Wl,--no-undefined)
endif()
