//===- auroc.cpp - Area under the ROC curve ---------------------------------------------===//
#include "probe/auroc.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace saguaro::probe {

double auroc(const std::vector<double> &score, const std::vector<bool> &positive) {
  size_t n = score.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return score[a] < score[b]; });

  // Sum of the (1-based, tie-averaged) ranks of the positives.
  double positive_rank_sum = 0;
  size_t n_pos = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && score[order[j]] == score[order[i]])
      ++j;
    double average_rank = 0.5 * static_cast<double>(i + 1 + j); // mean of ranks i+1 .. j
    for (size_t k = i; k < j; ++k)
      if (positive[order[k]]) {
        positive_rank_sum += average_rank;
        ++n_pos;
      }
    i = j;
  }
  size_t n_neg = n - n_pos;
  if (n_pos == 0 || n_neg == 0)
    return std::nan("");
  double u = positive_rank_sum - 0.5 * static_cast<double>(n_pos) * static_cast<double>(n_pos + 1);
  return u / (static_cast<double>(n_pos) * static_cast<double>(n_neg));
}

} // namespace saguaro::probe
