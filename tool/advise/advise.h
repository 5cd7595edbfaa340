/*
 * advise.h - shared model of compactptr-advise.
 *
 * The tool runs in three stages, one file each:
 *   scan.c    parses every translation unit with libclang and records what
 *             it sees: struct and union definitions with their fields,
 *             allocation sites and suspicious expressions (blockers), each
 *             keyed by the struct type it concerns.  Types are merged
 *             across translation units by USR, sites by file:line:column.
 *   analyze.c decides which structs are candidates, computes wide and
 *             compact sizes and attaches to each candidate the blockers of
 *             every type that marking it would make compact (the plugin's
 *             inference: a struct with a field pointing to, or holding, a
 *             compact type is compact too), then ranks the records.
 *   report.c  prints the ranked report as text or JSON, or a unified diff
 *             that adds CP_COMPACT to the clean candidates (--annotate).
 * main.c holds option parsing, the compile database and exit codes.
 */
#ifndef COMPACTPTR_ADVISE_H
#define COMPACTPTR_ADVISE_H

#include <stddef.h>

/** Grow a (ptr, n, cap) array by one element; abort on out of memory. */
#define AD_PUSH(arr, n, cap, val)                                            \
  do {                                                                       \
    if ((n) == (cap)) {                                                      \
      (cap) = (cap) ? 2 * (cap) : 8;                                         \
      (arr) = ad_xrealloc((arr), (cap) * sizeof *(arr));                     \
    }                                                                        \
    (arr)[(n)++] = (val);                                                    \
  } while (0)

typedef struct {
  const char *file; /* absolute path, interned */
  unsigned line, col;
} ad_loc_t;

typedef enum {
  AD_FIELD_BYTES,   /* anything else: kept as is */
  AD_FIELD_POINTER, /* pointer (or array of pointers) to a struct: target */
  AD_FIELD_STRUCT   /* struct held by value (or array of them): target */
} ad_field_kind_t;

typedef struct {
  const char *name;
  ad_field_kind_t kind;
  int target;           /* record index for POINTER / STRUCT, else -1 */
  long long size, align; /* wide layout, bytes */
  long long count;      /* elements for arrays, 1 otherwise */
  int bitfield, flexible;
  int small_array; /* an array of one element or none (the struct hack, when
                      last) */
  long long bit_offset, bit_width; /* bit-fields: in the wide layout, bits */
  int aligned;                     /* has an aligned attribute of its own */
  ad_loc_t loc;
} ad_field_t;

/* Blocker kinds: the plugin's diagnostics by name (passes/Diagnostics.def,
 * the table the plugin reports from), so the two cannot drift; rows whose
 * Advise column is 0 are diagnostics advise never reports.  CP_HAZARD rows
 * are blockers only advise reports (plugin: "none"). */
typedef enum {
#define CP_DIAG(Id, Name, Level, Advise) AD_B_##Id,
#define CP_HAZARD(Id, Name) AD_B_##Id,
#include "Diagnostics.def"
  AD_B__COUNT
} ad_blocker_kind_t;

typedef struct {
  ad_blocker_kind_t kind;
  int record;        /* the type whose compactness this blocks */
  const char *message;
  ad_loc_t loc;
  int unless;        /* -1, or a record that, compact too, lifts the
                        blocker (a cast between two structs that share their
                        first fields is fine once both are compact) */
} ad_blocker_t;

typedef struct {
  const char *usr;
  const char *name;  /* "struct node", or the typedef name if untagged */
  int defined, is_union, annotated, packed, local, anonymous;
  ad_loc_t loc;      /* the struct's name (or keyword if untagged) */
  ad_loc_t keyword;  /* the `struct` keyword of the definition */
  long long wide_size, wide_align;
  ad_field_t *fields;
  size_t nfields, capfields;
  ad_loc_t *allocs;
  size_t nallocs, capallocs;
  /* analyze.c */
  int heap, self_ref, pointed_from_heap, candidate, compact;
  int link_of; /* an intrusive link: the candidate it is embedded in, or -1 */
  int linked_by; /* the intrusive link (a self-referential struct held by
                    value, also inside a member struct) that links a struct
                    with no pointer of its own to its kind, or -1 */
  int no_gain; /* a candidate that saves nothing itself and that no other
                  compact struct points to or holds */
  long long compact_size, compact_align, saved, score;
  int *blockers; /* indices into ad_model_t.blockers, own and inherited */
  size_t nblockers, capblockers;
  int in_layout; /* recursion guard */
} ad_record_t;

typedef struct {
  ad_record_t *records;
  size_t nrecords, caprecords;
  ad_blocker_t *blockers;
  size_t nblockers, capblockers;
  int *order; /* ranked record indices (defined structs only) */
  size_t norder;
} ad_model_t;

/* util (main.c) */
void *ad_xrealloc(void *p, size_t n);
const char *ad_intern(const char *s);
char *ad_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *ad_display_path(const char *abs);

/* scan.c */
/** Parse one translation unit and add what it holds to `m`.  `argv` is the
 *  full compiler command line (argv[0] is ignored) and `dir` the directory
 *  it runs in (NULL: the current one).  Returns 0, or -1 after printing why
 *  the file could not be parsed. */
int ad_scan_tu(ad_model_t *m, const char *dir, int argc, const char *const *argv);
int ad_record_index(ad_model_t *m, const char *usr);

/* analyze.c */
void ad_analyze(ad_model_t *m);
const char *ad_blocker_kind_name(ad_blocker_kind_t k);
const char *ad_blocker_plugin(ad_blocker_kind_t k);
/** "clean", "blocked", "no gain", "annotated" or "not a candidate". */
const char *ad_verdict(const ad_record_t *r);

/* report.c */
void ad_report_text(const ad_model_t *m);
void ad_report_json(const ad_model_t *m);
int ad_report_annotate(const ad_model_t *m);

#endif
