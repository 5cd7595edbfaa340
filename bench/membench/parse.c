/*
 * parse.c - command-line numbers: sizes with binary suffixes, bounded
 * integers, compact size formatting and the quarter-octave size ladder.
 *
 * Every malformed value is an error with a message that quotes it; nothing
 * is silently clamped.  Tests: test/membench/parse_test.c.
 */
#include "membench.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <strings.h>

static int fail(char *err, size_t len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (err && len) vsnprintf(err, len, fmt, ap);
  va_end(ap);
  return -1;
}

int mb_parse_size(const char *s, uint64_t *out, char *err, size_t errlen) {
  static const struct { const char *suffix; unsigned shift; } tab[] = {
      {"", 0},    {"B", 0},    {"K", 10},   {"KB", 10}, {"KiB", 10},
      {"M", 20},  {"MB", 20},  {"MiB", 20}, {"G", 30},  {"GB", 30},
      {"GiB", 30}, {"T", 40},  {"TB", 40},  {"TiB", 40}};
  if (!s || !*s) return fail(err, errlen, "empty size");
  if (!isdigit((unsigned char)s[0]))
    return fail(err, errlen,
                "invalid size '%s': expected a positive integer with an "
                "optional suffix K, M, G or T (powers of 1024)", s);
  uint64_t v = 0;
  const char *p = s;
  while (isdigit((unsigned char)*p)) {
    unsigned d = (unsigned)(*p - '0');
    if (v > (UINT64_MAX - d) / 10)
      return fail(err, errlen, "size '%s' is too large", s);
    v = v * 10 + d;
    p++;
  }
  for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
    if (strcasecmp(p, tab[i].suffix) != 0) continue;
    if (tab[i].shift && v > (UINT64_MAX >> tab[i].shift))
      return fail(err, errlen, "size '%s' is too large", s);
    v <<= tab[i].shift;
    if (v == 0) return fail(err, errlen, "size '%s' must be positive", s);
    *out = v;
    return 0;
  }
  return fail(err, errlen,
              "invalid size '%s': unknown suffix '%s' (use K, M, G or T, "
              "powers of 1024)", s, p);
}

int mb_parse_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *out,
                  char *err, size_t errlen) {
  if (!s || !*s) return fail(err, errlen, "empty number");
  uint64_t v = 0;
  for (const char *p = s; *p; p++) {
    if (!isdigit((unsigned char)*p))
      return fail(err, errlen, "invalid number '%s': expected a decimal integer", s);
    unsigned d = (unsigned)(*p - '0');
    if (v > (UINT64_MAX - d) / 10)
      return fail(err, errlen, "number '%s' is too large", s);
    v = v * 10 + d;
  }
  if (v < lo || v > hi)
    return fail(err, errlen, "number '%s' out of range [%llu, %llu]", s,
                (unsigned long long)lo, (unsigned long long)hi);
  *out = v;
  return 0;
}

const char *mb_fmt_size(uint64_t bytes, char *buf, size_t len) {
  static const char units[] = "BKMGT";
  unsigned u = 0;
  double v = (double)bytes;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    u++;
  }
  if (u == 0) {
    snprintf(buf, len, "%lluB", (unsigned long long)bytes);
    return buf;
  }
  /* Up to three significant digits, trailing zeros (and dot) dropped. */
  char num[32];
  snprintf(num, sizeof num, "%.*f", v < 10 ? 2 : v < 100 ? 1 : 0, v);
  if (strchr(num, '.')) {
    size_t n = strlen(num);
    while (n && num[n - 1] == '0') num[--n] = 0;
    if (n && num[n - 1] == '.') num[--n] = 0;
  }
  snprintf(buf, len, "%s%c", num, units[u]);
  return buf;
}

size_t mb_size_steps(uint64_t lo, uint64_t hi, unsigned steps_per_octave,
                     uint64_t align, uint64_t *out, size_t cap) {
  size_t n = 0;
  if (lo == 0 || hi < lo || steps_per_octave == 0) return 0;
  for (unsigned k = 0; n < cap; k++) {
    double x = (double)lo * exp2((double)k / steps_per_octave);
    if (x > (double)hi * (1 + 1e-9)) break;
    uint64_t v = (uint64_t)llround(x / (double)align) * align;
    if (v < align) v = align;
    if (n == 0 || v > out[n - 1]) out[n++] = v;
  }
  /* Always end on hi itself (rounded). */
  uint64_t top = (hi / align) * align;
  if (top < align) top = align;
  if (n < cap && (n == 0 || top > out[n - 1])) out[n++] = top;
  return n;
}
