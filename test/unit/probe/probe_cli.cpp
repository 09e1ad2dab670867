//===- probe_cli.cpp - `saguaro probe` without the rest of the driver (for tests) -------===//
#include "compiler/driver/Probe.h"

int main(int argc, char **argv) { return saguaro::probe_main(argc - 1, argv + 1); }
