#include "paddle_like/cli/args.h"

#include "platform/enforce.h"
#include "platform/errors.h"

namespace paddle_like {
namespace cli {

Args::Args(const std::vector<std::string>& argv, const std::set<std::string>& value_options,
           const std::set<std::string>& flags) {
  bool only_positional = false;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (only_positional || arg.size() < 2 || arg.compare(0, 2, "--") != 0) {
      positional_.push_back(arg);
      continue;
    }
    if (arg == "--") {
      only_positional = true;
      continue;
    }
    std::string name = arg.substr(2);
    std::string value;
    bool has_value = false;
    const size_t eq = name.find('=');
    if (eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    if (flags.count(name)) {
      PL_ENFORCE(!has_value, errors::InvalidArgument("option `--%s` takes no value", name));
      values_[name].push_back("true");
    } else if (value_options.count(name)) {
      if (!has_value) {
        PL_ENFORCE(i + 1 < argv.size(),
                   errors::InvalidArgument("option `--%s` needs a value", name));
        value = argv[++i];
      }
      values_[name].push_back(value);
    } else {
      throw errors::InvalidArgument("unknown option `--%s`", name);
    }
  }
}

std::string Args::Get(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second.back();
}

std::vector<std::string> Args::GetAll(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

int64_t Args::GetPositiveInt(const std::string& verb, const std::string& name,
                             int64_t fallback) const {
  if (!Has(name)) return fallback;
  const std::string value = Get(name);
  try {
    size_t used = 0;
    const long long v = std::stoll(value, &used);
    if (used == value.size() && v > 0) return v;
  } catch (const std::exception&) {
  }
  throw errors::InvalidArgument("%s: --%s expects a positive integer, received `%s`", verb, name,
                                value);
}

platform::Place Args::GetPlace(const std::string& verb) const {
  const std::string value = Get("place", "cpu");
  if (value == "cpu") return platform::CPUPlace();
  if (value == "gpu") return platform::CUDAPlace(0);
  if (value.rfind("gpu:", 0) == 0 && value.size() > 4 && value.size() < 8 &&
      value.find_first_not_of("0123456789", 4) == std::string::npos) {
    return platform::CUDAPlace(std::stoi(value.substr(4)));
  }
  throw errors::InvalidArgument("%s: --place expects cpu, gpu or gpu:N, received `%s`", verb,
                                value);
}

}  // namespace cli
}  // namespace paddle_like
