# PL_SANITIZE=address: AddressSanitizer (with LeakSanitizer) and UndefinedBehaviorSanitizer.
#   With clang the same tree also carries libFuzzer's coverage instrumentation and builds the
#   fuzz targets of tests/fuzz, so one build serves the sanitized test suite
#   (scripts/test.sh --sanitize=address) and the fuzzers (scripts/fuzz.sh); both configure
#   it alike (scripts/sanitize_env.sh).
# PL_SANITIZE=thread: ThreadSanitizer (scripts/tsan_threads.sh).
# Every error stops the program (no recovery), so a test that triggers one fails.
set(PL_SANITIZE "" CACHE STRING "Sanitizers to build with: address (ASan+UBSan), thread, or empty")
set(PL_FUZZ_TARGETS OFF)
if(PL_SANITIZE STREQUAL "address")
  set(PL_SANITIZE_LIST address,undefined)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    set(PL_FUZZ_TARGETS ON)
    set(PL_SANITIZE_LIST fuzzer-no-link,address,undefined)
  endif()
  set(PL_SANITIZE_FLAGS -fsanitize=${PL_SANITIZE_LIST} -fno-sanitize-recover=all
                        -fno-omit-frame-pointer -g1)
elseif(PL_SANITIZE STREQUAL "thread")
  set(PL_SANITIZE_FLAGS -fsanitize=thread -fno-omit-frame-pointer -g1)
elseif(NOT PL_SANITIZE STREQUAL "")
  message(FATAL_ERROR "PL_SANITIZE must be address, thread or empty, not ${PL_SANITIZE}")
endif()
if(PL_SANITIZE_FLAGS)
  # Line tables (-g1) name the source tree relative to its root, so that ccache (with
  # CCACHE_BASEDIR, as the scripts set it) shares objects between checkouts in different
  # directories instead of hashing each build directory.
  list(APPEND PL_SANITIZE_FLAGS -fdebug-prefix-map=${PROJECT_SOURCE_DIR}=.)
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:${PL_SANITIZE_FLAGS}>")
  if(PL_FUZZ_TARGETS)
    # Programs carry clang's static sanitizer runtimes (the fuzz targets add -fsanitize=fuzzer),
    # which the shared libraries' sanitizer and coverage symbols resolve against when they
    # load: the libraries are linked without --no-undefined (PL_NO_UNDEFINED below).
    add_link_options(-fsanitize=address,undefined)
  else()
    add_link_options(${PL_SANITIZE_FLAGS})
  endif()
endif()

# Shared libraries normally refuse undefined symbols at link time (a missing source shows
# then, not when a program loads them); not in the clang sanitizer build, see above.
if(PL_FUZZ_TARGETS)
  set(PL_NO_UNDEFINED "")
else()
  set(PL_NO_UNDEFINED -Wl,--no-undefined)
endif()
