/*
 * emit.c - the JSON and CSV writers behind --json and --csv.
 *
 * A small streaming JSON writer: it tracks nesting and member counts so
 * commas and indentation are always right, escapes strings per RFC 8259
 * (quote, backslash, control characters as \uXXXX; UTF-8 passes through)
 * and writes non-finite numbers as null.  jansson would do, but the
 * reports are flat and streaming keeps the tool dependency-free.
 * Tests: test/membench/emit_test.c.
 */
#include "membench.h"

#include <math.h>
#include <string.h>

void mb_json_init(mb_json_t *j, FILE *f, int pretty) {
  memset(j, 0, sizeof *j);
  j->f = f;
  j->pretty = pretty;
}

static void indent(mb_json_t *j) {
  if (!j->pretty) return;
  fputc('\n', j->f);
  for (int i = 0; i < j->depth; i++) fputs("  ", j->f);
}

static void put_string(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    switch (*p) {
    case '"': fputs("\\\"", f); break;
    case '\\': fputs("\\\\", f); break;
    case '\n': fputs("\\n", f); break;
    case '\r': fputs("\\r", f); break;
    case '\t': fputs("\\t", f); break;
    case '\b': fputs("\\b", f); break;
    case '\f': fputs("\\f", f); break;
    default:
      if (*p < 0x20)
        fprintf(f, "\\u%04x", *p);
      else
        fputc(*p, f);
    }
  }
  fputc('"', f);
}

/** Separator, indentation and key before a new member or element. */
static void member(mb_json_t *j, const char *key) {
  if (j->count[j->depth]++ > 0) fputc(',', j->f);
  if (j->depth > 0) indent(j);
  if (key) {
    put_string(j->f, key);
    fputs(j->pretty ? ": " : ":", j->f);
  }
}

static void open_container(mb_json_t *j, const char *key, char c) {
  member(j, key);
  fputc(c, j->f);
  if (j->depth + 1 < MB_JSON_MAXDEPTH) j->depth++;
  j->count[j->depth] = 0;
}

static void close_container(mb_json_t *j, char c) {
  int had = j->count[j->depth] > 0;
  if (j->depth > 0) j->depth--;
  if (had) indent(j);
  fputc(c, j->f);
}

void mb_json_begin_object(mb_json_t *j, const char *key) { open_container(j, key, '{'); }
void mb_json_end_object(mb_json_t *j) { close_container(j, '}'); }
void mb_json_begin_array(mb_json_t *j, const char *key) { open_container(j, key, '['); }
void mb_json_end_array(mb_json_t *j) { close_container(j, ']'); }

void mb_json_string(mb_json_t *j, const char *key, const char *s) {
  member(j, key);
  if (s)
    put_string(j->f, s);
  else
    fputs("null", j->f);
}

void mb_json_number(mb_json_t *j, const char *key, double v) {
  member(j, key);
  if (isfinite(v))
    fprintf(j->f, "%.6g", v);
  else
    fputs("null", j->f);
}

void mb_json_int(mb_json_t *j, const char *key, long long v) {
  member(j, key);
  fprintf(j->f, "%lld", v);
}

void mb_json_bool(mb_json_t *j, const char *key, int v) {
  member(j, key);
  fputs(v ? "true" : "false", j->f);
}

void mb_json_null(mb_json_t *j, const char *key) {
  member(j, key);
  fputs("null", j->f);
}

void mb_json_finish(mb_json_t *j) {
  fputc('\n', j->f);
  fflush(j->f);
}

/* ---- CSV ---------------------------------------------------------------- */

void mb_csv_string(FILE *f, int first, const char *s) {
  if (!first) fputc(',', f);
  if (!s) return;
  if (!strpbrk(s, ",\"\r\n")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (const char *p = s; *p; p++) {
    if (*p == '"') fputc('"', f);
    fputc(*p, f);
  }
  fputc('"', f);
}

void mb_csv_number(FILE *f, int first, double v) {
  if (!first) fputc(',', f);
  if (isfinite(v)) fprintf(f, "%.6g", v);
}

void mb_csv_int(FILE *f, int first, long long v) {
  if (!first) fputc(',', f);
  fprintf(f, "%lld", v);
}

void mb_csv_end_row(FILE *f) { fputc('\n', f); }
