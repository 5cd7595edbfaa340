/*
 * options.c - the runtime's knobs, read once from the environment.
 *
 * Each option has one row in the table: its name (the environment variable
 * is COMPACTPTR_ followed by the name), its kind, its default and what it
 * does.  A malformed value stops the program at start-up; it is never
 * silently ignored.
 */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef enum {
  CP_KIND_SIZE,
  CP_KIND_PERCENT,
  CP_KIND_BOOL,
  CP_KIND_MS,
  CP_KIND_COUNT
} cp_option_kind_t;

typedef struct cp_option {
  const char *name;
  cp_option_kind_t kind;
  uint64_t value; /* the default until cp__options_init runs */
} cp_option_t;

static cp_option_t options[] = {
    /* Usable bytes of the compact arena; at most its reach. */
    [CP_OPT_ARENA_LIMIT] = {"ARENA_LIMIT", CP_KIND_SIZE, CP_ARENA_REACH},
    /* Percent of the limit in use that makes the switch pending. */
    [CP_OPT_HIGH_WATER] = {"HIGH_WATER", CP_KIND_PERCENT, 87},
    /* Print statistics to stderr at exit. */
    [CP_OPT_STATS] = {"STATS", CP_KIND_BOOL, 0},
    /* Walk, check and digest the whole heap before and after the switch. */
    [CP_OPT_VERIFY] = {"VERIFY", CP_KIND_BOOL, 0},
    /* Checked decodes in generated code; detailed free validation. */
    [CP_OPT_DEBUG] = {"DEBUG", CP_KIND_BOOL, 0},
    /* Address space reserved for wide-mode objects after the switch. */
    [CP_OPT_WIDE_RESERVE] = {"WIDE_RESERVE", CP_KIND_SIZE, (uint64_t)1 << 40},
    /* How long the switch waits for every other thread to stop at a
     * safepoint before it gives up, naming the thread, in milliseconds. */
    [CP_OPT_SAFEPOINT_TIMEOUT] = {"SAFEPOINT_TIMEOUT", CP_KIND_MS, 10000},
    /* Threads that copy the heap at the switch (the one running it
     * included); 0, the default, is one per processor, up to 8. */
    [CP_OPT_SWITCH_THREADS] = {"SWITCH_THREADS", CP_KIND_COUNT, 0},
};
_Static_assert(sizeof options / sizeof options[0] == CP_OPT_COUNT,
               "option table and cp_option_id_t disagree");

int cp__parse_size(const char *s, uint64_t *out) {
  if (!s || *s < '0' || *s > '9') /* strtoull would skip blanks and a sign */
    return -1;
  errno = 0;
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || end == s)
    return -1;
  unsigned shift = 0;
  switch (*end) {
  case 'k': case 'K': shift = 10; end++; break;
  case 'm': case 'M': shift = 20; end++; break;
  case 'g': case 'G': shift = 30; end++; break;
  case 't': case 'T': shift = 40; end++; break;
  default: break;
  }
  if (shift && (*end == 'i' || *end == 'I') && (end[1] == 'B' || end[1] == 'b'))
    end += 2;
  else if (shift && (*end == 'B' || *end == 'b'))
    end++;
  if (*end)
    return -1;
  if (shift && v > (UINT64_MAX >> shift))
    return -1;
  *out = (uint64_t)v << shift;
  return 0;
}

static void parse_one(cp_option_t *o) {
  char var[64];
  snprintf(var, sizeof var, "COMPACTPTR_%s", o->name);
  const char *s = getenv(var);
  if (!s || !*s)
    return; /* unset and empty (VAR= in a script) both mean the default */
  uint64_t v;
  /* Numbers start with a digit: strtoul would take " 5", "\n5" and "+5"
   * (the size parser refuses them too). */
  bool digit = *s >= '0' && *s <= '9';
  switch (o->kind) {
  case CP_KIND_SIZE:
    if (cp__parse_size(s, &v) != 0 || v == 0)
      cp__fatal("%s='%s' is not a size (examples: 65536, 64K, 16M, 2G)", var,
                s);
    break;
  case CP_KIND_PERCENT: {
    char *end;
    errno = 0;
    long p = strtol(s, &end, 10);
    if (!digit || errno || end == s || *end || p < 1 || p > 100)
      cp__fatal("%s='%s' is not a whole percentage from 1 to 100", var, s);
    v = (uint64_t)p;
    break;
  }
  case CP_KIND_MS: {
    /* "250", "250ms" or "3s". */
    char *end;
    errno = 0;
    unsigned long long n = strtoull(s, &end, 10);
    unsigned long long scale = 1;
    if (!strcmp(end, "s"))
      scale = 1000;
    else if (*end && strcmp(end, "ms"))
      end = (char *)s;
    if (!digit || errno || end == s || n == 0 || n > UINT32_MAX)
      cp__fatal("%s='%s' is not a duration (examples: 500, 500ms, 10s)", var,
                s);
    v = (uint64_t)n * scale;
    break;
  }
  case CP_KIND_COUNT: {
    char *end;
    errno = 0;
    unsigned long n = strtoul(s, &end, 10);
    if (!digit || errno || end == s || *end || n < 1 || n > 64)
      cp__fatal("%s='%s' is not a thread count from 1 to 64", var, s);
    v = (uint64_t)n;
    break;
  }
  case CP_KIND_BOOL:
    if (!strcmp(s, "1") || !strcasecmp(s, "yes") || !strcasecmp(s, "on") ||
        !strcasecmp(s, "true"))
      v = 1;
    else if (!strcmp(s, "0") || !strcasecmp(s, "no") ||
             !strcasecmp(s, "off") || !strcasecmp(s, "false"))
      v = 0;
    else
      cp__fatal("%s='%s' is not a boolean (use 1/0, yes/no, on/off or "
                "true/false)", var, s);
    break;
  }
  o->value = v;
}

/* Edit distance of two short names (insertions, deletions, substitutions),
 * capped: enough to suggest the knob a misspelling meant. */
static unsigned distance(const char *a, size_t na, const char *b) {
  size_t nb = strlen(b);
  unsigned row[64];
  if (na >= 63 || nb >= 63)
    return 99;
  for (size_t j = 0; j <= nb; j++)
    row[j] = (unsigned)j;
  for (size_t i = 1; i <= na; i++) {
    unsigned diag = row[0];
    row[0] = (unsigned)i;
    for (size_t j = 1; j <= nb; j++) {
      unsigned up = row[j];
      unsigned best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best)
        best = up + 1;
      if (row[j - 1] + 1 < best)
        best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[nb];
}

/* A COMPACTPTR_ variable that is no knob is a typo more often than not
 * (COMPACTPTR_STAT=1 would otherwise do nothing, silently): one warning
 * line each, naming the closest knob.  COMPACTPTR_CC_* belong to the
 * compiler wrapper, not to the runtime. */
static void warn_unknown_knobs(void) {
  extern char **environ;
  for (char **e = environ; e && *e; e++) {
    if (strncmp(*e, "COMPACTPTR_", 11) != 0 || strncmp(*e, "COMPACTPTR_CC_", 14) == 0)
      continue;
    const char *name = *e + 11;
    size_t n = strcspn(name, "=");
    const char *best = NULL;
    unsigned best_d = 3; /* suggest only what is at most two edits away */
    bool known = false;
    for (int i = 0; i < CP_OPT_COUNT; i++) {
      if (strlen(options[i].name) == n && !strncmp(options[i].name, name, n)) {
        known = true;
        break;
      }
      unsigned d = distance(name, n, options[i].name);
      if (d < best_d) {
        best_d = d;
        best = options[i].name;
      }
    }
    if (known)
      continue;
    if (best)
      fprintf(stderr, "compactptr: warning: COMPACTPTR_%.*s is not a runtime "
              "knob and is ignored (did you mean COMPACTPTR_%s?)\n",
              (int)n, name, best);
    else
      fprintf(stderr, "compactptr: warning: COMPACTPTR_%.*s is not a runtime "
              "knob and is ignored (knobs: docs/runtime.md)\n", (int)n, name);
  }
}

static bool parsed;

void cp__options_init(void) {
  if (parsed)
    return;
  for (int i = 0; i < CP_OPT_COUNT; i++)
    parse_one(&options[i]);
  warn_unknown_knobs();
  uint64_t limit = options[CP_OPT_ARENA_LIMIT].value;
  if (limit > CP_ARENA_REACH)
    cp__fatal("COMPACTPTR_ARENA_LIMIT=%llu exceeds the arena's reach of %llu "
              "bytes (2^32 granules of %u byte%s)",
              (unsigned long long)limit, (unsigned long long)CP_ARENA_REACH,
              (unsigned)CP_GRANULE, CP_GRANULE > 1 ? "s" : "");
  /* Page 0 is never handed out, so the smallest slab (an aligned run of
   * 2^CP_SLAB_MIN_SHIFT bytes) needs twice that. */
  const size_t min = (size_t)2 << CP_SLAB_MIN_SHIFT;
  if (limit < min)
    cp__fatal("COMPACTPTR_ARENA_LIMIT=%llu is below the minimum of %zu bytes "
              "(two 64 KiB slab runs)", (unsigned long long)limit, min);
  /* The wide heap needs at least one 2 MiB commit chunk. */
  if (options[CP_OPT_WIDE_RESERVE].value < ((uint64_t)4 << 20))
    cp__fatal("COMPACTPTR_WIDE_RESERVE=%llu is below the minimum of %llu bytes",
              (unsigned long long)options[CP_OPT_WIDE_RESERVE].value,
              (unsigned long long)4 << 20);
  parsed = true;
}

uint64_t cp__option(cp_option_id_t id) {
  if (!parsed)
    cp__options_init();
  return options[id].value;
}

/* The mixed-build check (include/compactptr.h): a translation unit compiled
 * without the plugin calls this from a constructor when the module it is
 * in also has plugin-built code.  It sees compact types in their C layout
 * while the heap holds them in the compact layout, so the program stops
 * before main, naming the source file.  Here, and not in a file of its own,
 * because the reference is weak: a static link pulls in only members that
 * something else needs, and every program that allocates needs this one. */
CP_API void cp__plain_unit(const char *source) {
  cp__fatal("'%s' was compiled without the compactptr plugin, but this "
            "program also has plugin-built code, which keeps compact objects "
            "in the compact layout; compile '%s' with the plugin "
            "(compactptr-cc, or link compactptr::compactptr in CMake), or, if "
            "it only passes compact pointers around, define COMPACTPTR_OPAQUE "
            "before including <compactptr.h>", source, source);
}

/* The same check for a unit in a module with no plugin-built code (a
 * program built without the plugin that links a plugin-built shared
 * library): modules register when they are loaded, and a library's
 * constructors run before the program's, so a module with compact types
 * is known here when the unit's layout of them would be wrong. */
CP_API void cp__plain_unit_elsewhere(const char *source) {
  bool compact = false;
  cp__lock();
  for (const cp_module_t *m = cp__modules; m && !compact; m = m->next)
    for (cp_type_desc_t *const *d = m->types_begin; d && d < m->types_end; d++)
      if (*d && (*d)->build != CP_BUILD_WIDE) /* wide: the C layout */
        compact = true;
  cp__unlock();
  if (compact)
    cp__fatal("'%s' was compiled without the compactptr plugin, but this "
              "program loads plugin-built code (a shared library) that keeps "
              "compact objects in the compact layout; compile '%s' with the "
              "plugin (compactptr-cc), or, if it only passes compact pointers "
              "around, define COMPACTPTR_OPAQUE before including "
              "<compactptr.h>", source, source);
}

/* Keeps debugger.c (the gdb extension) in statically linked programs. */
extern const char cp__gdb_script_anchor;
__attribute__((used)) static const char *const keep_gdb_script = &cp__gdb_script_anchor;
