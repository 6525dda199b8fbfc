# PL_SANITIZE=address: AddressSanitizer (with LeakSanitizer) and UndefinedBehaviorSanitizer;
# PL_SANITIZE=thread: ThreadSanitizer. Every error stops the program (no recovery), so a test
# that triggers one fails. scripts/test.sh --sanitize=address|thread builds and runs this way.
set(PL_SANITIZE "" CACHE STRING "Sanitizers to build with: address (ASan+UBSan), thread, or empty")
if(PL_SANITIZE STREQUAL "address")
  set(PL_SANITIZE_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=all
                        -fno-omit-frame-pointer -g1)
elseif(PL_SANITIZE STREQUAL "thread")
  set(PL_SANITIZE_FLAGS -fsanitize=thread -fno-omit-frame-pointer -g1)
elseif(NOT PL_SANITIZE STREQUAL "")
  message(FATAL_ERROR "PL_SANITIZE must be address, thread or empty, not ${PL_SANITIZE}")
endif()
if(PL_SANITIZE_FLAGS)
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:${PL_SANITIZE_FLAGS}>")
  add_link_options(${PL_SANITIZE_FLAGS})
endif()
