// Shared pieces of the libFuzzer targets (tests/fuzz/fuzz_*.cc, built with
// PL_SANITIZE=address with clang and run by scripts/fuzz.sh).
//
// A target passes its input to the runtime and lets only the runtime's typed errors
// (platform::Error) through: any other exception, a crash, a sanitizer report, a leak, a
// timeout or an allocation past libFuzzer's -malloc_limit_mb is a finding.
//
// Seeds: with PL_FUZZ_SEED_DIR set, a target's LLVMFuzzerInitialize writes its seed inputs
// (made from the fixtures under tests/fixtures and the models under ../shared/models) into
// that directory before libFuzzer reads it as the corpus.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "platform/errors.h"

namespace paddle_like {
namespace fuzz {

// Runs fn(); a typed runtime error is an expected outcome of bad input and is swallowed.
template <typename Fn>
void ExpectOnlyTypedErrors(Fn&& fn) {
  try {
    fn();
  } catch (const platform::Error&) {
    // Rejected with a typed error: what the runtime promises for bad input.
  }
}

// Files under the repository's tests/fixtures (recursively) and ../shared/models whose name
// ends with one of `suffixes` (".npy", "__model__", ...), sorted.
std::vector<std::string> FixtureFiles(const std::vector<std::string>& suffixes);

// The directory of the shared models (../shared/models beside the repository), or "" when it
// is absent.
std::string SharedModelsDir();

// The seed directory named by PL_FUZZ_SEED_DIR, or "" when unset.
std::string SeedDir();
// Writes `bytes` as seed file `name` into SeedDir() (nothing when unset).
void WriteSeed(const std::string& name, const std::string& bytes);

std::string ReadBytes(const std::string& path);

// The fuzzer's input as a string.
inline std::string AsString(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

}  // namespace fuzz
}  // namespace paddle_like
