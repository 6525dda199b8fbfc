#include "operators/matmul/einsum_equation.h"

#include <algorithm>

#include "platform/enforce.h"

namespace paddle_like {
namespace operators {

namespace {

int LetterLabel(char c) {
  if (c >= 'a' && c <= 'z') return c - 'a';
  if (c >= 'A' && c <= 'Z') return 26 + (c - 'A');
  return -1;
}

// One term of the equation: its letters' labels, and where its ellipsis sits (-1: none).
struct Term {
  std::vector<int> letters;
  int ellipsis_at = -1;
};

Term ParseTerm(const std::string& op, const std::string& equation, const std::string& text) {
  Term t;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 3, "...") == 0) {
      PL_ENFORCE(t.ellipsis_at < 0,
                 errors::InvalidArgument("op `%s` attribute `equation` \"%s\": term \"%s\" has "
                                         "more than one ellipsis",
                                         op, equation, text));
      t.ellipsis_at = static_cast<int>(t.letters.size());
      i += 2;
      continue;
    }
    const int label = LetterLabel(text[i]);
    PL_ENFORCE(label >= 0, errors::InvalidArgument("op `%s` attribute `equation` \"%s\": expected "
                                                   "letters, ',', \"->\" and \"...\", found '%c'",
                                                   op, equation, text[i]));
    t.letters.push_back(label);
  }
  return t;
}

// The labels of a term with `ellipsis_dims` dims for its ellipsis, out of `max_ellipsis`.
std::vector<int> ExpandTerm(const Term& t, int ellipsis_dims, int max_ellipsis) {
  std::vector<int> labels(t.letters.begin(), t.letters.end());
  if (t.ellipsis_at >= 0) {
    std::vector<int> ell;
    for (int j = max_ellipsis - ellipsis_dims; j < max_ellipsis; ++j) {
      ell.push_back(kEllipsisLabel + j);
    }
    labels.insert(labels.begin() + t.ellipsis_at, ell.begin(), ell.end());
  }
  return labels;
}

}  // namespace

std::string EinsumLabelName(int label) {
  if (label < 26) return std::string(1, static_cast<char>('a' + label));
  if (label < kEllipsisLabel) return std::string(1, static_cast<char>('A' + label - 26));
  return "...[" + std::to_string(label - kEllipsisLabel) + "]";
}

EinsumEquation ParseEinsumEquation(const std::string& op, const std::string& equation,
                                   const std::vector<int>& ranks) {
  std::string eq;
  for (char c : equation) {
    if (c != ' ') eq.push_back(c);
  }
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  PL_ENFORCE(arrow == std::string::npos || eq.find("->", arrow + 2) == std::string::npos,
             errors::InvalidArgument("op `%s` attribute `equation` \"%s\": more than one \"->\"",
                                     op, equation));
  std::vector<Term> terms;
  size_t start = 0;
  while (true) {
    const size_t comma = lhs.find(',', start);
    terms.push_back(ParseTerm(op, equation, lhs.substr(start, comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  PL_ENFORCE(terms.size() == ranks.size(),
             errors::InvalidArgument("op `%s` input `Operands`: the equation \"%s\" has %zu "
                                     "input terms, received %zu operands",
                                     op, equation, terms.size(), ranks.size()));
  std::vector<int> ellipsis_dims(terms.size(), 0);
  int max_ellipsis = 0;
  for (size_t k = 0; k < terms.size(); ++k) {
    const int letters = static_cast<int>(terms[k].letters.size());
    const bool ok = terms[k].ellipsis_at >= 0 ? ranks[k] >= letters : ranks[k] == letters;
    PL_ENFORCE(
        ok, errors::InvalidArgument("op `%s` input `Operands`[%zu]: the equation \"%s\" "
                                    "gives it %s%d dims, received rank %d",
                                    op, k, equation, terms[k].ellipsis_at >= 0 ? "at least " : "",
                                    letters, ranks[k]));
    if (terms[k].ellipsis_at >= 0) ellipsis_dims[k] = ranks[k] - letters;
    max_ellipsis = std::max(max_ellipsis, ellipsis_dims[k]);
  }
  EinsumEquation result;
  result.num_labels = kEllipsisLabel + max_ellipsis;
  std::vector<int> count(kEllipsisLabel, 0);
  for (size_t k = 0; k < terms.size(); ++k) {
    result.operands.push_back(ExpandTerm(terms[k], ellipsis_dims[k], max_ellipsis));
    for (int l : terms[k].letters) ++count[l];
  }
  if (arrow == std::string::npos) {
    for (int j = 0; j < max_ellipsis; ++j) result.out.push_back(kEllipsisLabel + j);
    // ASCII order: the uppercase letters (ids 26-51) before the lowercase ones.
    for (int l = 26; l < kEllipsisLabel; ++l) {
      if (count[l] == 1) result.out.push_back(l);
    }
    for (int l = 0; l < 26; ++l) {
      if (count[l] == 1) result.out.push_back(l);
    }
    return result;
  }
  const Term out = ParseTerm(op, equation, eq.substr(arrow + 2));
  std::vector<bool> seen(kEllipsisLabel, false);
  for (int l : out.letters) {
    PL_ENFORCE(count[l] > 0, errors::InvalidArgument("op `%s` attribute `equation` \"%s\": output "
                                                     "label '%s' is in no input",
                                                     op, equation, EinsumLabelName(l)));
    PL_ENFORCE(!seen[l], errors::InvalidArgument("op `%s` attribute `equation` \"%s\": output "
                                                 "label '%s' appears twice",
                                                 op, equation, EinsumLabelName(l)));
    seen[l] = true;
  }
  result.out = ExpandTerm(out, max_ellipsis, max_ellipsis);
  return result;
}

std::vector<int64_t> EinsumLabelSizes(const std::string& op, const EinsumEquation& eq,
                                      const std::vector<framework::DDim>& dims) {
  std::vector<int64_t> sizes(eq.num_labels, -1);
  for (size_t k = 0; k < eq.operands.size(); ++k) {
    const std::vector<int>& labels = eq.operands[k];
    for (size_t p = 0; p < labels.size(); ++p) {
      const int64_t d = dims[k][static_cast<int>(p)];
      if (d < 0) continue;
      for (size_t q = 0; q < p; ++q) {
        const int64_t e = dims[k][static_cast<int>(q)];
        PL_ENFORCE(
            labels[q] != labels[p] || e < 0 || e == d,
            errors::InvalidArgument("op `%s` input `Operands`[%zu]: label '%s' repeats "
                                    "(a diagonal) over dims of %lld and %lld (shape %s)",
                                    op, k, EinsumLabelName(labels[p]), static_cast<long long>(e),
                                    static_cast<long long>(d), dims[k].ToString()));
      }
      int64_t& s = sizes[labels[p]];
      if (s < 0 || s == 1) {
        s = d;
      } else {
        PL_ENFORCE(
            d == 1 || d == s,
            errors::InvalidArgument("op `%s` input `Operands`[%zu]: label '%s' has size "
                                    "%lld elsewhere, received %lld (shape %s)",
                                    op, k, EinsumLabelName(labels[p]), static_cast<long long>(s),
                                    static_cast<long long>(d), dims[k].ToString()));
      }
    }
  }
  return sizes;
}

}  // namespace operators
}  // namespace paddle_like
