//===- report.h - The human-readable table of `probe eval` ------------------------------===//
#ifndef SAGUARO_PROBE_REPORT_H
#define SAGUARO_PROBE_REPORT_H

#include <nlohmann/json.hpp>

#include <string>

namespace saguaro::probe {

/// Formats build_report()'s JSON as aligned tables: pooled and per-family AUROCs, the
/// within-cell analysis and the hand-off curve.
std::string format_report_table(const nlohmann::json &report);

} // namespace saguaro::probe

#endif // SAGUARO_PROBE_REPORT_H
