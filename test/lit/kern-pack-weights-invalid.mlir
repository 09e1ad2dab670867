// RUN: saguaro-opt %s --kern-pack-weights=target=riscv --verify-diagnostics

// expected-error @+1 {{kern-pack-weights: unknown target 'riscv'}}
module {
}
