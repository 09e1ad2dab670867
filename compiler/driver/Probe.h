//===- Probe.h - `saguaro probe train|eval|calibrate` -----------------------------------===//
#ifndef SAGUARO_COMPILER_DRIVER_PROBE_H
#define SAGUARO_COMPILER_DRIVER_PROBE_H

namespace saguaro {

/// Runs `saguaro probe ...`; argv starts after the word `probe` (argv[0] is the subcommand).
///   train DATA -o PROBE [--seed S] [--h H] [--m1 M1] [--m2 M2] [--val-fraction F] [--lr LR]
///         [--weight-decay WD] [--dropout P] [--batch B] [--epochs E] [--patience K] [--pos-weight W] [--verbose]
///   eval PROBE DATA [--json] [--cloud-accuracy A] [--scores FILE]
///   calibrate PROBE DATA --handoff-rate R [--json]
/// Returns the process exit code; errors are one line on stderr. See docs/probe.md.
int probe_main(int argc, char **argv);

} // namespace saguaro

#endif // SAGUARO_COMPILER_DRIVER_PROBE_H
