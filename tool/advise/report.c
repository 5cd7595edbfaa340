/*
 * report.c - the ranked report (text, JSON) and the --annotate diff.
 *
 * In:  the analysed model (analyze.c), records in ranked order.
 * Out: stdout only.  Paths are shown relative to the current directory
 *      when they lie under it, else absolute.
 * The diff adds ` CP_COMPACT` after the `struct` keyword of every clean
 * candidate and `#include <compactptr.h>` to each changed file that does
 * not include it yet (before its first #include, else at the top); it
 * applies with `patch -p0` from the current directory.
 */
#include "advise.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *why(const ad_model_t *m, const ad_record_t *r) {
  if (r->link_of >= 0)
    return ad_printf("self-referential and held in '%s' (an intrusive link: "
                     "its pointers point into '%s' objects, so it is marked "
                     "with it)",
                     m->records[r->link_of].name, m->records[r->link_of].name);
  if (!r->heap)
    return "never allocated with malloc, calloc or realloc";
  if (r->no_gain && !r->nblockers)
    return "heap-allocated and self-referential or pointed to, but its "
           "compact layout is no smaller and no other compact struct points "
           "to it or holds it: marking it gains nothing";
  if (r->linked_by >= 0)
    return ad_printf("heap-allocated and linked through the '%s' it holds "
                     "(self-referential: an intrusive link, reached back "
                     "with container_of)%s",
                     m->records[r->linked_by].name,
                     r->pointed_from_heap
                         ? ", and pointed to from another heap struct"
                         : "");
  if (!r->self_ref && !r->pointed_from_heap)
    return "heap-allocated, but neither self-referential nor pointed to "
           "from another heap struct";
  if (r->self_ref && r->pointed_from_heap)
    return "heap-allocated, self-referential and pointed to from another "
           "heap struct";
  return r->self_ref ? "heap-allocated and self-referential"
                     : "heap-allocated and pointed to from another heap struct";
}

static void loc_text(FILE *o, ad_loc_t l) {
  fprintf(o, "%s:%u", ad_display_path(l.file), l.line);
}

void ad_report_text(const ad_model_t *m) {
  size_t cand = 0, clean = 0, none = 0, ann = 0;
  for (size_t i = 0; i < m->norder; i++) {
    const ad_record_t *r = &m->records[m->order[i]];
    if (r->annotated)
      ann++;
    else if (r->candidate) {
      cand++;
      none += r->no_gain && r->nblockers == 0;
      clean += !r->no_gain && r->nblockers == 0;
    }
  }
  printf("compactptr-advise: %zu struct%s, %zu candidate%s (%zu clean, %zu "
         "blocked, %zu no gain), %zu already annotated\n",
         m->norder, m->norder == 1 ? "" : "s", cand, cand == 1 ? "" : "s",
         clean, cand - clean - none, none, ann);
  if (!m->norder)
    return;
  printf("\n%4s  %-15s %5s %7s %5s %5s %6s  %s\n", "rank", "verdict", "wide",
         "compact", "saved", "sites", "score", "struct");
  for (size_t i = 0; i < m->norder; i++) {
    const ad_record_t *r = &m->records[m->order[i]];
    printf("%4zu  %-15s %5lld %7lld %5lld %5zu %6lld  %s", i + 1,
           ad_verdict(r), r->wide_size, r->compact_size, r->saved, r->nallocs,
           r->score, r->name);
    /* Two files may each define their own struct of one name. */
    for (size_t k = 0; k < m->norder; k++)
      if (k != i && strcmp(m->records[m->order[k]].name, r->name) == 0) {
        printf(" (");
        loc_text(stdout, r->loc);
        printf(")");
        break;
      }
    printf("\n");
  }
  for (size_t i = 0; i < m->norder; i++) {
    const ad_record_t *r = &m->records[m->order[i]];
    printf("\n%s: %s\n", r->name, ad_verdict(r));
    printf("  defined at ");
    loc_text(stdout, r->loc);
    printf("\n  %s\n", why(m, r));
    if (r->compact)
      printf("  size: %lld bytes wide, %lld bytes compact, %lld saved per "
             "object\n",
             r->wide_size, r->compact_size, r->saved);
    else
      printf("  size: %lld bytes (stays wide)\n", r->wide_size);
    if (r->nallocs) {
      printf("  allocation sites (%zu):\n", r->nallocs);
      for (size_t k = 0; k < r->nallocs; k++) {
        printf("    ");
        loc_text(stdout, r->allocs[k]);
        printf("\n");
      }
    }
    if (r->nblockers) {
      printf("  blockers (%zu):\n", r->nblockers);
      for (size_t k = 0; k < r->nblockers; k++) {
        const ad_blocker_t *b = &m->blockers[r->blockers[k]];
        printf("    ");
        loc_text(stdout, b->loc);
        printf(": %s [%s, plugin: %s]", b->message, ad_blocker_kind_name(b->kind),
               ad_blocker_plugin(b->kind));
        if (b->record != m->order[i])
          printf(" (via %s)", m->records[b->record].name);
        printf("\n");
      }
    } else if (r->candidate || r->annotated) {
      printf("  blockers: none\n");
    }
  }
}

static void json_str(const char *s) {
  putchar('"');
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      printf("\\%c", c);
    else if (c == '\n')
      printf("\\n");
    else if (c == '\t')
      printf("\\t");
    else if (c < 0x20)
      printf("\\u%04x", c);
    else
      putchar(c);
  }
  putchar('"');
}

static void json_loc(ad_loc_t l) {
  printf("\"file\": ");
  json_str(ad_display_path(l.file));
  printf(", \"line\": %u, \"column\": %u", l.line, l.col);
}

void ad_report_json(const ad_model_t *m) {
  printf("{\n  \"structs\": [");
  for (size_t i = 0; i < m->norder; i++) {
    const ad_record_t *r = &m->records[m->order[i]];
    printf("%s\n    {\"rank\": %zu, \"name\": ", i ? "," : "", i + 1);
    json_str(r->name);
    printf(", \"verdict\": ");
    json_str(ad_verdict(r));
    printf(", ");
    json_loc(r->loc);
    printf(",\n     \"candidate\": %s, \"annotated\": %s, \"heap\": %s, "
           "\"self_referential\": %s, \"pointed_from_heap\": %s,\n",
           r->candidate ? "true" : "false", r->annotated ? "true" : "false",
           r->heap ? "true" : "false", r->self_ref ? "true" : "false",
           r->pointed_from_heap ? "true" : "false");
    printf("     \"link_of\": ");
    if (r->link_of >= 0)
      json_str(m->records[r->link_of].name);
    else
      printf("null");
    printf(", \"linked_by\": ");
    if (r->linked_by >= 0)
      json_str(m->records[r->linked_by].name);
    else
      printf("null");
    printf(", \"wide_size\": %lld, \"compact_size\": %lld, \"saved_per_object\": "
           "%lld, \"score\": %lld,\n",
           r->wide_size, r->compact_size, r->saved, r->score);
    printf("     \"allocation_sites\": [");
    for (size_t k = 0; k < r->nallocs; k++) {
      printf("%s{", k ? ", " : "");
      json_loc(r->allocs[k]);
      printf("}");
    }
    printf("],\n     \"blockers\": [");
    for (size_t k = 0; k < r->nblockers; k++) {
      const ad_blocker_t *b = &m->blockers[r->blockers[k]];
      printf("%s\n       {\"kind\": \"%s\", \"plugin\": \"%s\", \"type\": ",
             k ? "," : "", ad_blocker_kind_name(b->kind), ad_blocker_plugin(b->kind));
      json_str(m->records[b->record].name);
      printf(", ");
      json_loc(b->loc);
      printf(", \"message\": ");
      json_str(b->message);
      printf("}");
    }
    printf("%s]}", r->nblockers ? "\n     " : "");
  }
  printf("%s]\n}\n", m->norder ? "\n  " : "");
}

/* ---- --annotate ---------------------------------------------------------- */

typedef struct {
  char **v;
  size_t n, cap;
} lines_t;

static int read_lines(const char *path, lines_t *L) {
  FILE *f = fopen(path, "r");
  if (!f)
    return -1;
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  while ((len = getline(&line, &cap, f)) >= 0) {
    char *copy = ad_xrealloc(NULL, (size_t)len + 1);
    memcpy(copy, line, (size_t)len + 1);
    AD_PUSH(L->v, L->n, L->cap, copy);
  }
  free(line);
  fclose(f);
  return 0;
}

static void emit_line(char sign, const char *s) {
  size_t n = strlen(s);
  printf("%c%s", sign, s);
  if (n == 0 || s[n - 1] != '\n')
    printf("\n\\ No newline at end of file\n");
}

/** Print the unified diff of one file: `repl[i]` replaces line i (NULL:
 *  unchanged); `ins_before` (1-based, 0: none) gets `ins` inserted. */
static void diff_file(const char *path, lines_t *L, char **repl,
                      size_t ins_before, const char *ins) {
  const size_t C = 3;
  size_t n = L->n;
  /* change points, 1-based, ascending */
  size_t *pts = ad_xrealloc(NULL, (n + 2) * sizeof *pts), np = 0;
  for (size_t i = 1; i <= n; i++)
    if (repl[i - 1] || i == ins_before)
      pts[np++] = i;
  if (!np) {
    free(pts);
    return;
  }
  printf("--- %s\n+++ %s\n", path, path);
  long shift = 0;
  for (size_t a = 0; a < np;) {
    size_t b = a;
    while (b + 1 < np && pts[b + 1] - pts[b] <= 2 * C + 1)
      b++;
    size_t lo = pts[a] > C ? pts[a] - C : 1;
    size_t hi = pts[b] + C <= n ? pts[b] + C : n;
    /* an insertion before a line is context-wise after the previous one */
    size_t oldlen = hi - lo + 1, newlen = oldlen;
    if (ins_before >= lo && ins_before <= hi)
      newlen++;
    printf("@@ -%zu,%zu +%ld,%zu @@\n", lo, oldlen, (long)lo + shift, newlen);
    for (size_t i = lo; i <= hi; i++) {
      if (i == ins_before)
        emit_line('+', ins);
      if (repl[i - 1]) {
        emit_line('-', L->v[i - 1]);
        emit_line('+', repl[i - 1]);
      } else {
        emit_line(' ', L->v[i - 1]);
      }
    }
    shift += (long)(newlen - oldlen);
    a = b + 1;
  }
  free(pts);
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Where `#include <compactptr.h>` goes in a file (1-based line to insert
 * before), or 0 if the file has it.  Before the first #include that every
 * build sees: not one inside #if/#ifdef (a configuration may skip it), the
 * include guard of a header excepted; with none, after the guard's
 * #define, or at the top. */
static size_t include_line(const lines_t *L) {
  int depth = 0, guard = 0;
  size_t first = 0, after_guard = 0, directives = 0;
  for (size_t i = 0; i < L->n; i++) {
    const char *p = L->v[i];
    while (*p == ' ' || *p == '\t')
      p++;
    if (*p != '#')
      continue;
    p++;
    while (*p == ' ' || *p == '\t')
      p++;
    directives++;
    if (strncmp(p, "include", 7) == 0) {
      if (strstr(p, "compactptr.h"))
        return 0;
      if (!first && depth - (guard == 1) == 0)
        first = i + 1;
    } else if (strncmp(p, "if", 2) == 0) {
      /* `#ifndef X` as the first directive, then `#define X`: a guard */
      if (directives == 1 && strncmp(p, "ifndef", 6) == 0)
        guard = -1;
      depth++;
    } else if (strncmp(p, "endif", 5) == 0) {
      depth--;
      if (guard == 1 && depth == 0)
        guard = 0;
    } else if (strncmp(p, "define", 6) == 0 && guard == -1 && directives == 2) {
      guard = 1;
      after_guard = i + 2;
    } else if (guard == -1) {
      guard = 0;
    }
  }
  if (first)
    return first;
  return after_guard ? after_guard : 1;
}

int ad_report_annotate(const ad_model_t *m) {
  const char **files = NULL;
  size_t nf = 0, capf = 0;
  for (size_t i = 0; i < m->norder; i++) {
    const ad_record_t *r = &m->records[m->order[i]];
    if (strcmp(ad_verdict(r), "clean") != 0 || !r->keyword.file[0])
      continue;
    size_t k;
    for (k = 0; k < nf && files[k] != r->keyword.file; k++)
      ;
    if (k == nf)
      AD_PUSH(files, nf, capf, r->keyword.file);
  }
  if (!nf) {
    fprintf(stderr, "compactptr-advise: no clean candidates to annotate\n");
    return 0;
  }
  qsort(files, nf, sizeof *files, cmp_str);
  int rc = 0;
  for (size_t f = 0; f < nf; f++) {
    lines_t L = {NULL, 0, 0};
    if (read_lines(files[f], &L) != 0) {
      fprintf(stderr, "compactptr-advise: error: cannot read '%s'\n", files[f]);
      rc = 1;
      continue;
    }
    char **repl = calloc(L.n + 1, sizeof *repl);
    for (size_t i = 0; i < m->norder; i++) {
      const ad_record_t *r = &m->records[m->order[i]];
      if (strcmp(ad_verdict(r), "clean") != 0 || r->keyword.file != files[f])
        continue;
      unsigned ln = r->keyword.line, col = r->keyword.col;
      const char *cur = ln >= 1 && ln <= L.n
                            ? (repl[ln - 1] ? repl[ln - 1] : L.v[ln - 1])
                            : NULL;
      /* column of the keyword in `cur`: earlier edits on this line only
       * happen for other structs, which come later in the line only if the
       * line holds two definitions; find the keyword from the column on. */
      const char *at = cur && strlen(cur) >= col ? cur + col - 1 : NULL;
      if (!at || strncmp(at, "struct", 6) != 0) {
        fprintf(stderr, "compactptr-advise: note: %s:%u: cannot annotate "
                        "%s: its definition does not start with the struct "
                        "keyword here (a macro?)\n",
                ad_display_path(files[f]), ln, r->name);
        continue;
      }
      repl[ln - 1] = ad_printf("%.*sstruct CP_COMPACT%s", (int)(at - cur), cur,
                               at + 6);
    }
    size_t ins_before = include_line(&L);
    diff_file(ad_display_path(files[f]), &L, repl, ins_before,
              "#include <compactptr.h>\n");
    for (size_t i = 0; i < L.n; i++)
      free(L.v[i]);
    free(L.v);
    free(repl);
  }
  free(files);
  return rc;
}
