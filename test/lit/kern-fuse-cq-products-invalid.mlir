// RUN: not saguaro-opt %s --kern-fuse-cq-products=target=x86-sse 2>&1 | FileCheck %s
// CHECK: kern-fuse-cq-products: unknown target 'x86-sse'
module {
}
