/*
 * emit_test.c - the JSON and CSV writers (emit.c): exact output for nested
 * containers, string escaping, non-finite numbers as null (JSON) or empty
 * (CSV), and RFC 4180 quoting.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "membench.h"

typedef struct mem { char *buf; size_t len; FILE *f; } mem_t;
static void mem_open(mem_t *m) { m->f = open_memstream(&m->buf, &m->len); }
static const char *mem_close(mem_t *m) {
  fclose(m->f);
  return m->buf;
}

static void test_json_compact(void **state) {
  (void)state;
  mem_t m;
  mem_open(&m);
  mb_json_t j;
  mb_json_init(&j, m.f, 0);
  mb_json_begin_object(&j, NULL);
  mb_json_string(&j, "s", "a\"b\\c\n\t\x01/é");
  mb_json_int(&j, "i", -42);
  mb_json_number(&j, "x", 1.5);
  mb_json_number(&j, "nan", NAN);
  mb_json_number(&j, "inf", INFINITY);
  mb_json_bool(&j, "t", 1);
  mb_json_bool(&j, "f", 0);
  mb_json_null(&j, "n");
  mb_json_string(&j, "ns", NULL);
  mb_json_begin_array(&j, "a");
  mb_json_int(&j, NULL, 1);
  mb_json_begin_object(&j, NULL);
  mb_json_end_object(&j);
  mb_json_begin_array(&j, NULL);
  mb_json_end_array(&j);
  mb_json_end_array(&j);
  mb_json_end_object(&j);
  mb_json_finish(&j);
  const char *out = mem_close(&m);
  assert_string_equal(out,
                      "{\"s\":\"a\\\"b\\\\c\\n\\t\\u0001/é\",\"i\":-42,\"x\":1.5,"
                      "\"nan\":null,\"inf\":null,\"t\":true,\"f\":false,\"n\":null,"
                      "\"ns\":null,\"a\":[1,{},[]]}\n");
  free(m.buf);
}

static void test_json_pretty(void **state) {
  (void)state;
  mem_t m;
  mem_open(&m);
  mb_json_t j;
  mb_json_init(&j, m.f, 1);
  mb_json_begin_object(&j, NULL);
  mb_json_begin_array(&j, "results");
  mb_json_begin_object(&j, NULL);
  mb_json_int(&j, "bytes", 4096);
  mb_json_string(&j, "page", "4K");
  mb_json_end_object(&j);
  mb_json_end_array(&j);
  mb_json_begin_array(&j, "empty");
  mb_json_end_array(&j);
  mb_json_end_object(&j);
  mb_json_finish(&j);
  const char *out = mem_close(&m);
  assert_string_equal(out,
                      "{\n"
                      "  \"results\": [\n"
                      "    {\n"
                      "      \"bytes\": 4096,\n"
                      "      \"page\": \"4K\"\n"
                      "    }\n"
                      "  ],\n"
                      "  \"empty\": []\n"
                      "}\n");
  free(m.buf);
}

static void test_json_numbers(void **state) {
  (void)state;
  mem_t m;
  mem_open(&m);
  mb_json_t j;
  mb_json_init(&j, m.f, 0);
  mb_json_begin_array(&j, NULL);
  mb_json_number(&j, NULL, 0.0001234567);
  mb_json_number(&j, NULL, 1e21);
  mb_json_number(&j, NULL, -0.5);
  mb_json_end_array(&j);
  mb_json_finish(&j);
  /* %.6g: always valid JSON number syntax. */
  assert_string_equal(mem_close(&m), "[0.000123457,1e+21,-0.5]\n");
  free(m.buf);
}

static void test_csv(void **state) {
  (void)state;
  mem_t m;
  mem_open(&m);
  mb_csv_string(m.f, 1, "plain");
  mb_csv_string(m.f, 0, "a,b");
  mb_csv_string(m.f, 0, "say \"hi\"");
  mb_csv_string(m.f, 0, "two\nlines");
  mb_csv_string(m.f, 0, NULL);
  mb_csv_number(m.f, 0, NAN);
  mb_csv_number(m.f, 0, 2.25);
  mb_csv_int(m.f, 0, 7);
  mb_csv_end_row(m.f);
  mb_csv_int(m.f, 1, 1);
  mb_csv_end_row(m.f);
  assert_string_equal(mem_close(&m),
                      "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",,,2.25,7\n1\n");
  free(m.buf);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_json_compact), cmocka_unit_test(test_json_pretty),
      cmocka_unit_test(test_json_numbers), cmocka_unit_test(test_csv),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
