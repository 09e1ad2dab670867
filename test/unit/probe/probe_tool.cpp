//===- probe_tool.cpp - Test bridge: synthetic data files and AUROC of a score file ----===//
//
//   probe_tool synth OUT [--seed S] [--noise] [--width D] [--per-family N] [--families F] [--family-shift S]\n                                 [--families F] [--family-shift S]
//       writes synthetic data (synthetic.h) with the library's writer
//   probe_tool auroc FILE
//       FILE has one "score label" pair per line (label 1 = wrong); prints the AUROC
//
//===------------------------------------------------------------------------------------===//
#include "probe/auroc.h"
#include "probe/probe_data.h"
#include "synthetic.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

using namespace saguaro::probe;

int main(int argc, char **argv) {
  std::string command = argc > 1 ? argv[1] : "";
  if (command == "synth" && argc >= 3) {
    testing::SyntheticOptions o;
    for (int i = 3; i < argc; ++i) {
      std::string a = argv[i];
      if (a == "--noise")
        o.signal = o.entropy_signal = 0;
      else if (a == "--seed" && i + 1 < argc)
        o.seed = std::strtoull(argv[++i], nullptr, 10);
      else if (a == "--width" && i + 1 < argc)
        o.width = std::atoi(argv[++i]);
      else if (a == "--per-family" && i + 1 < argc)
        o.per_family = std::atoi(argv[++i]);
      else if (a == "--families" && i + 1 < argc)
        o.families = std::atoi(argv[++i]);
      else if (a == "--family-shift" && i + 1 < argc)
        o.family_shift = std::atof(argv[++i]);
      else {
        std::fprintf(stderr, "probe_tool: unknown option %s\n", a.c_str());
        return 2;
      }
    }
    std::string error;
    if (!write_probe_data(argv[2], testing::make_synthetic(o), error)) {
      std::fprintf(stderr, "probe_tool: %s\n", error.c_str());
      return 1;
    }
    return 0;
  }
  if (command == "auroc" && argc == 3) {
    std::ifstream in(argv[2]);
    std::vector<double> score;
    std::vector<bool> label;
    double s;
    int y;
    while (in >> s >> y) {
      score.push_back(s);
      label.push_back(y != 0);
    }
    std::printf("%.17g\n", auroc(score, label));
    return 0;
  }
  std::fprintf(stderr, "usage: probe_tool synth OUT [--seed S] [--noise] [--width D] [--per-family N]\n"
                       "       probe_tool auroc FILE\n");
  return 2;
}
