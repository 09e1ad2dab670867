//===- auroc.h - Area under the ROC curve -----------------------------------------------===//
#ifndef SAGUARO_PROBE_AUROC_H
#define SAGUARO_PROBE_AUROC_H

#include <vector>

namespace saguaro::probe {

/// AUROC of `score` for predicting `positive` (here: the answer is wrong), by the Mann–Whitney
/// statistic with average ranks for tied scores, so a tie counts one half. Returns NaN when
/// the labels hold only one class (the AUROC is undefined there) or when the inputs are empty.
double auroc(const std::vector<double> &score, const std::vector<bool> &positive);

} // namespace saguaro::probe

#endif // SAGUARO_PROBE_AUROC_H
