#include "paddle_like/cli/lod_arg.h"

#include <cctype>
#include <sstream>

#include "platform/enforce.h"

namespace paddle_like {
namespace cli {

namespace {

bool IsOffsetList(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != ',' && c != ';') return false;
  }
  return std::isdigit(static_cast<unsigned char>(s[0])) != 0;
}

}  // namespace

std::pair<std::string, framework::LoD> SplitLoDSuffix(const std::string& verb,
                                                      const std::string& arg) {
  const size_t at = arg.rfind('@');
  if (at == std::string::npos || !IsOffsetList(arg.substr(at + 1))) return {arg, {}};
  framework::LoD lod;
  std::stringstream levels(arg.substr(at + 1));
  std::string level;
  while (std::getline(levels, level, ';')) {
    std::vector<size_t> offsets;
    std::stringstream items(level);
    std::string item;
    while (std::getline(items, item, ',')) {
      PL_ENFORCE(!item.empty(),
                 errors::InvalidArgument("%s: `%s`: empty offset in the LoD after '@' (expected "
                                         "offsets such as @0,4,9)",
                                         verb, arg));
      PL_ENFORCE(item.size() < 19, errors::InvalidArgument("%s: `%s`: offset %s is too large",
                                                           verb, arg, item));
      offsets.push_back(static_cast<size_t>(std::stoull(item)));
    }
    PL_ENFORCE(!offsets.empty(),
               errors::InvalidArgument("%s: `%s`: empty LoD level after '@' (expected offsets "
                                       "such as @0,4,9)",
                                       verb, arg));
    lod.push_back(std::move(offsets));
  }
  return {arg.substr(0, at), lod};
}

void AttachFeedLoD(const std::string& verb, const std::string& name, const std::string& file,
                   const framework::LoD& lod, framework::DenseTensor* t) {
  if (lod.empty()) return;
  const int64_t rows = t->dims().size() == 0 ? 1 : t->dims()[0];
  const std::string problem = framework::LoDProblem(lod, rows);
  PL_ENFORCE(problem.empty(),
             errors::InvalidArgument("%s: feed `%s` (from `%s`, shape %s): the LoD does not fit: "
                                     "%s",
                                     verb, name, file, t->dims().ToString(), problem));
  t->set_lod(lod);
}

std::string LoDSuffixText(const framework::LoD& lod) {
  return lod.empty() ? "" : " lod " + framework::LoDToString(lod);
}

}  // namespace cli
}  // namespace paddle_like
