//===- report.cpp - The human-readable table of `probe eval` ----------------------------===//
#include "probe/report.h"

#include "probe/scores.h"

#include <cstdio>

namespace saguaro::probe {
namespace {

using nlohmann::json;

std::string cell(const json &v, const char *format = "%8.3f") {
  char buf[64];
  if (v.is_number())
    std::snprintf(buf, sizeof buf, format, v.get<double>());
  else
    std::snprintf(buf, sizeof buf, "%8s", "-");
  return buf;
}

std::string row(const std::string &label, const json &g) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%-28.28s %6d", label.c_str(), g["n"].get<int>());
  std::string out = buf + cell(g["accuracy"]);
  for (const std::string &m : method_names())
    out += cell(g[m + "_auroc"]);
  return out + "\n";
}

} // namespace

std::string format_report_table(const json &r) {
  std::string out;
  char buf[256];
  std::snprintf(buf, sizeof buf, "model %s, width %d, tap layer %d; samples: train %d, validation %d, held-out %d\n\n",
                r["model"].get<std::string>().c_str(), r["width"].get<int>(), r["tap_layer"].get<int>(),
                r["split"]["train"].get<int>(), r["split"]["validation"].get<int>(), r["split"]["heldout"].get<int>());
  out += buf;
  out += "AUROC for predicting a wrong answer (higher is better; 0.5 = chance)\n";
  std::snprintf(buf, sizeof buf, "%-28s %6s %8s %8s %8s %8s %8s %8s %8s\n", "group", "n", "acc", "probe", "meanpool",
                "logreg", "ent.mean", "ent.max", "ent.first");
  out += buf;
  const json &h = r["heldout"];
  out += row("held-out families, pooled", h);
  out += row("  guessable items", h["guessable"]);
  out += row("  not guessable", h["not_guessable"]);
  out += row("validation (train families)", r["validation"]);
  for (const auto &[name, f] : r["families"].items())
    out += row((f["evaluated_on"] == "heldout" ? "[held-out] " : "[val] ") + name, f);

  out += "\nWithin family x difficulty cells of 10-90 % accuracy (held-out; mean AUROC over " +
         std::to_string(h["n_cells_in_analysis"].get<int>()) + " cells):\n";
  out += "  probe" + cell(h["probe_within_cell_auroc"]) + "    best entropy" + cell(h["entropy_within_cell_auroc"]);
  if (h["entropy_within_cell_method"].is_string())
    out += " (" + h["entropy_within_cell_method"].get<std::string>() + ")";
  out += "\n  cell error-rate baseline, pooled" + cell(h["cell_baseline_auroc"]) + "\n";

  for (const json &note : r["notes"])
    out += "note: " + note.get<std::string>() + "\n";
  out += "\nHand-off curve (held-out; highest p(wrong) to the cloud):\n";
  bool with_cloud = r.contains("cloud_accuracy");
  std::snprintf(buf, sizeof buf, "%9s %8s %12s %12s%s\n", "fraction", "handed", "acc(cloud=1)", "random",
                with_cloud ? "   acc(cloud=A)" : "");
  out += buf;
  for (const json &p : r["handoff_curve"]) {
    std::snprintf(buf, sizeof buf, "%9.2f %8d %12.3f %12.3f", p["fraction"].get<double>(), p["handed_off"].get<int>(),
                  p["accuracy_cloud_right"].get<double>(), p["accuracy_random_cloud_right"].get<double>());
    out += buf;
    if (with_cloud) {
      std::snprintf(buf, sizeof buf, " %14.3f", p["accuracy_with_cloud"].get<double>());
      out += buf;
    }
    out += "\n";
  }
  return out;
}

} // namespace saguaro::probe
