// Checked rational arithmetic (rational.h): intermediates in 128 bits, reduced, then required to fit in 64.
#include "rational.h"

#include <cstdio>

namespace saguaro {
namespace {

using I128 = __int128;

I128 gcd128(I128 a, I128 b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b != 0) {
    const I128 t = a % b;
    a = b;
    b = t;
  }
  return a;
}

constexpr I128 kMax = INT64_MAX;

// num/den reduced into *out; den != 0. INT64_MIN is refused too, so negation never overflows.
bool make(I128 num, I128 den, Rational* out, std::string* err) {
  if (den < 0) num = -num, den = -den;
  const I128 g = gcd128(num, den);
  if (g > 1) num /= g, den /= g;
  if (num > kMax || num < -kMax || den > kMax)
    return *err = "overflow: the exact result does not fit in 64-bit integers", false;
  out->num = static_cast<int64_t>(num);
  out->den = static_cast<int64_t>(den);
  return true;
}

}  // namespace

// With both operands within +-(2^63 - 1), every product below fits in 127 bits and every sum of two in 128.
bool rational_add(Rational a, Rational b, Rational* out, std::string* err) {
  return make(I128(a.num) * b.den + I128(b.num) * a.den, I128(a.den) * b.den, out, err);
}

bool rational_sub(Rational a, Rational b, Rational* out, std::string* err) {
  return make(I128(a.num) * b.den - I128(b.num) * a.den, I128(a.den) * b.den, out, err);
}

bool rational_mul(Rational a, Rational b, Rational* out, std::string* err) {
  return make(I128(a.num) * b.num, I128(a.den) * b.den, out, err);
}

bool rational_div(Rational a, Rational b, Rational* out, std::string* err) {
  if (b.num == 0) return *err = "division by zero", false;
  return make(I128(a.num) * b.den, I128(a.den) * b.num, out, err);
}

bool parse_rational_decimal(const std::string& s, size_t* pos, Rational* out, std::string* err) {
  I128 num = 0, den = 1;
  bool digits = false, point = false;
  size_t i = *pos;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '.' && !point) {
      point = true;
      continue;
    }
    if (c < '0' || c > '9') break;
    digits = true;
    num = num * 10 + (c - '0');
    if (point) den *= 10;
    if (num > kMax || den > kMax) return *err = "overflow: the number " + s.substr(*pos, i + 1 - *pos) + "... is too long", false;
  }
  if (!digits) return *err = "a number was expected at offset " + std::to_string(*pos), false;
  *pos = i;
  return make(num, den, out, err);
}

std::string format_rational(Rational r) {
  if (r.den == 1) return std::to_string(r.num);
  const bool negative = r.num < 0;
  const uint64_t num = negative ? uint64_t(-r.num) : uint64_t(r.num);
  uint64_t d = uint64_t(r.den);
  int twos = 0, fives = 0;
  while (d % 2 == 0) d /= 2, ++twos;
  while (d % 5 == 0) d /= 5, ++fives;
  const std::string sign = negative ? "-" : "";
  if (d == 1) {  // the denominator divides 10^places: long division ends after that many digits
    const int places = twos > fives ? twos : fives;
    const uint64_t den = uint64_t(r.den);
    std::string text = sign + std::to_string(num / den) + ".";
    I128 rem = num % den;
    for (int k = 0; k < places; ++k, rem %= den) {
      rem *= 10;
      text += char('0' + int(rem / den));
    }
    return text;
  }
  char approx[64];
  std::snprintf(approx, sizeof approx, "%.10g", double(r.num) / double(r.den));
  return sign + std::to_string(num) + "/" + std::to_string(r.den) + " (about " + approx + ")";
}

}  // namespace saguaro
