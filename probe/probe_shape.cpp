//===- probe_shape.cpp - Parameter layout of the probe networks -------------------------===//
#include "probe/probe_shape.h"

namespace saguaro::probe {

ProbeLayout probe_layout(const ProbeShape &s, PoolKind pool) {
  bool attention = pool == PoolKind::attention;
  size_t d = s.d, h = attention ? s.h : 0, m1 = s.m1, m2 = s.m2;
  ProbeLayout l{};
  l.pooled = attention ? s.h : s.d;
  size_t at = 0;
  auto take = [&](size_t &offset, size_t size) {
    offset = at;
    at += size;
  };
  take(l.gamma, d);
  take(l.beta, d);
  take(l.w0, h * d);
  take(l.b0, h);
  take(l.query, h);
  take(l.w1, m1 * size_t(l.pooled));
  take(l.b1, m1);
  take(l.w2, m2 * m1);
  take(l.b2, m2);
  take(l.w3, m2);
  take(l.b3, 1);
  l.total = at;
  return l;
}

} // namespace saguaro::probe
