// A small command-line parser for the verbs of `paddle_like`: options `--name VALUE`,
// `--name=VALUE` or boolean `--flag`, and positional arguments. An unknown option, a missing
// value or a value given to a flag is an InvalidArgumentError naming the option.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "platform/place.h"

namespace paddle_like {
namespace cli {

class Args {
 public:
  // `value_options`: names (without "--") that take a value, possibly repeated.
  // `flags`: names that take none.
  Args(const std::vector<std::string>& argv, const std::set<std::string>& value_options,
       const std::set<std::string>& flags);

  bool Has(const std::string& name) const { return values_.count(name) > 0; }
  // The last value given for `name`, or `fallback`.
  std::string Get(const std::string& name, const std::string& fallback = "") const;
  // The last value of `name` as an integer > 0, or `fallback` when absent;
  // InvalidArgumentError "<verb>: --<name> expects a positive integer ..." otherwise.
  int64_t GetPositiveInt(const std::string& verb, const std::string& name, int64_t fallback) const;
  // Every value given for `name`, in order.
  std::vector<std::string> GetAll(const std::string& name) const;
  const std::vector<std::string>& positional() const { return positional_; }
  // --place: `cpu` (the default), `gpu` (device 0) or `gpu:N`; InvalidArgumentError
  // "<verb>: --place ..." for anything else. A GPU the machine lacks is refused when used.
  platform::Place GetPlace(const std::string& verb) const;

 private:
  std::map<std::string, std::vector<std::string>> values_;
  std::vector<std::string> positional_;
};

}  // namespace cli
}  // namespace paddle_like
