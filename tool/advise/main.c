/*
 * main.c - compactptr-advise: which structs are worth compressing, and
 * what stops them.
 *
 * Options and input handling (compile database or files plus flags), the
 * small utilities shared by the other files, exit codes.  The pipeline is
 * scan.c (libclang) -> analyze.c -> report.c; see advise.h.
 * User documentation: docs/advise.md.  Tests: test/advise/.
 */
#include "advise.h"

#include <clang-c/CXCompilationDatabase.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { EXIT_OK = 0, EXIT_INPUT = 1, EXIT_USAGE = 2, EXIT_BLOCKED = 3 };

static const char usage[] =
    "usage: compactptr-advise [options] -p BUILD_DIR [FILE...]\n"
    "       compactptr-advise [options] FILE... [-- COMPILER_FLAGS...]\n"
    "\n"
    "Finds the structs of a C program that are worth marking CP_COMPACT\n"
    "(compactptr: pointers between them stored as 32-bit handles) and the\n"
    "constructs that would stop the compactptr plugin from compiling them.\n"
    "No file is changed.\n"
    "\n"
    "Input:\n"
    "  -p DIR, --build-path=DIR  read DIR/compile_commands.json and analyse\n"
    "                            every C translation unit in it (or only the\n"
    "                            FILEs given; C++ entries are skipped)\n"
    "  FILE... -- FLAGS          analyse FILEs compiled with FLAGS (-I, -D, "
    "-std)\n"
    "\n"
    "Output (stdout):\n"
    "  (default)     ranked text report: a table, then per struct its\n"
    "                verdict, sizes, allocation sites and blockers\n"
    "  --json        the same report as one JSON object {\"structs\": [...]}\n"
    "  --candidates  report only candidates and annotated structs\n"
    "  --annotate    a unified diff (apply with patch -p0 from the current\n"
    "                directory) adding CP_COMPACT to every clean candidate "
    "and\n"
    "                #include <compactptr.h> where it is missing\n"
    "  -h, --help    this text\n"
    "  --version     the version\n"
    "\n"
    "Verdicts:\n"
    "  clean            candidate with no blockers: mark it CP_COMPACT\n"
    "  blocked          candidate, but a blocker would stop the plugin\n"
    "  no gain          candidate whose compact layout saves nothing and that\n"
    "                   no other compact struct points to or holds: leave it\n"
    "  annotated        already marked CP_COMPACT\n"
    "  not a candidate  not allocated with malloc/calloc/realloc(sizeof it),\n"
    "                   or neither self-referential nor pointed to from\n"
    "                   another heap struct\n"
    "Ranking: clean, then blocked, then annotated, then the rest; within a\n"
    "group by score = bytes saved per object x allocation sites.\n"
    "Sizes assume every candidate is marked; compact size = pointers to\n"
    "compact types as 4-byte handles, fields placed first fit in order.\n"
    "\n"
    "Blocker kinds (what the plugin reports for the same code):\n"
    "  address-of-field (error)   &p->kids of a whole array of struct "
    "pointers\n"
    "  slot-escape (error)        &p->next stored outside locals and fields "
    "of\n"
    "                             compact structs, passed to a function of\n"
    "                             another file, cast, or returned from a\n"
    "                             function other files can call\n"
    "  handle-array-decay (error) p->kids (an array of T *) used as a T **\n"
    "  union (error)              a union member holds the struct or a pointer "
    "to it\n"
    "  bit-field, packed, flexible-array, local-type, unnamed-field-type "
    "(error)\n"
    "  alloc-size (error)         malloc size not sizeof(T) / n * sizeof(T)\n"
    "  non-heap-address (error)   &param, &array[i], a static local's or a\n"
    "                             thread-local's address used as a T *\n"
    "  memcpy-value (error)       memcpy between a heap T and a T value\n"
    "  incompatible-cast (error)  T * cast to a pointer to another struct "
    "that\n"
    "                             shares no first field with it\n"
    "  macro-body (error)         a member access or allocation of T in a\n"
    "                             function a macro defines\n"
    "  integer-cast (warning)     T * cast to an integer, or back\n"
    "  unrelated-cast (warning)   T * cast to a non-byte pointer (int *, ...)\n"
    "  foreign-object (warning)   the void * of a call other than "
    "malloc/calloc/\n"
    "                             realloc becomes a T * (an allocation "
    "wrapper)\n"
    "  layout-offset (error)      (char *)p + 8: a byte offset written as a\n"
    "                             number (offsetof and sizeof are fine)\n"
    "  cross-type-arithmetic (none)  arithmetic on a T * cast to another "
    "type,\n"
    "                             or by a byte offset computed at run time\n"
    "A blocker of a struct that points to or holds T also blocks T: marking T\n"
    "makes it compact too.\n"
    "\n"
    "Headers: <compactptr.h> is found without flags, as compactptr-cc finds\n"
    "it (<prefix>/include, or this build's include directories), after the\n"
    "directories the flags name.\n"
    "\n"
    "Environment: COMPACTPTR_ADVISE_RESOURCE_DIR overrides clang's resource\n"
    "directory (builtin headers such as stddef.h).\n"
    "\n"
    "Exit status: 0 report printed; 1 bad input (no compile database, a file\n"
    "that does not parse or compile: the report covers the rest); 2 usage\n"
    "error (unknown option, missing argument, no input); 3 a struct already\n"
    "marked CP_COMPACT has a blocker the plugin reports as an error (the\n"
    "build with the plugin would fail)\n";

/* ---- utilities ---------------------------------------------------------- */

void *ad_xrealloc(void *p, size_t n) {
  p = realloc(p, n ? n : 1);
  if (!p) {
    fprintf(stderr, "compactptr-advise: out of memory\n");
    exit(EXIT_INPUT);
  }
  return p;
}

static char **strtab;
static size_t strcap, strn;

static size_t hash(const char *s) {
  size_t h = 1469598103934665603ull;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

const char *ad_intern(const char *s) {
  if (strn * 2 >= strcap) {
    size_t nc = strcap ? 2 * strcap : 1024;
    char **nt = calloc(nc, sizeof *nt);
    if (!nt)
      ad_xrealloc(NULL, (size_t)-1);
    for (size_t i = 0; i < strcap; i++)
      if (strtab[i]) {
        size_t j = hash(strtab[i]) & (nc - 1);
        while (nt[j])
          j = (j + 1) & (nc - 1);
        nt[j] = strtab[i];
      }
    free(strtab);
    strtab = nt;
    strcap = nc;
  }
  size_t j = hash(s) & (strcap - 1);
  while (strtab[j]) {
    if (strcmp(strtab[j], s) == 0)
      return strtab[j];
    j = (j + 1) & (strcap - 1);
  }
  size_t n = strlen(s) + 1;
  strtab[j] = ad_xrealloc(NULL, n);
  memcpy(strtab[j], s, n);
  strn++;
  return strtab[j];
}

char *ad_printf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *p = ad_xrealloc(NULL, (size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(p, (size_t)n + 1, fmt, ap);
  va_end(ap);
  const char *r = ad_intern(p);
  free(p);
  return (char *)r;
}

static char cwd[PATH_MAX];

const char *ad_display_path(const char *abs) {
  size_t n = strlen(cwd);
  if (n && strncmp(abs, cwd, n) == 0 && abs[n] == '/')
    return abs + n + 1;
  return abs;
}

/* ---- driver --------------------------------------------------------------- */

static int usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, "compactptr-advise: error: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\nTry 'compactptr-advise --help'.\n");
  return EXIT_USAGE;
}

static int same_file(const char *dir, const char *file, const char *want) {
  char a[PATH_MAX], b[PATH_MAX], path[2 * PATH_MAX + 2];
  if (file[0] != '/' && dir)
    snprintf(path, sizeof path, "%s/%s", dir, file);
  else
    snprintf(path, sizeof path, "%s", file);
  return realpath(path, a) && realpath(want, b) && strcmp(a, b) == 0;
}

/** True for C++ sources, which the tool (like the plugin) does not handle. */
static int is_cxx_file(const char *f) {
  const char *dot = strrchr(f, '.');
  static const char *const ext[] = {".cpp", ".cc", ".cxx", ".c++", ".C", ".mm"};
  if (!dot)
    return 0;
  for (size_t i = 0; i < sizeof ext / sizeof *ext; i++)
    if (strcmp(dot, ext[i]) == 0)
      return 1;
  return 0;
}

static int run_database(ad_model_t *m, const char *dir, int nfiles,
                        char **files, int *failed, int *total) {
  struct stat st;
  char db[PATH_MAX + 32];
  snprintf(db, sizeof db, "%s/compile_commands.json", dir);
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
    fprintf(stderr, "compactptr-advise: error: '%s' is not a directory "
                    "(-p wants the build directory holding "
                    "compile_commands.json)\n", dir);
    return -1;
  }
  if (stat(db, &st) != 0) {
    fprintf(stderr, "compactptr-advise: error: no compile database: '%s' "
                    "does not exist (CMake writes it with "
                    "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON)\n", db);
    return -1;
  }
  CXCompilationDatabase_Error err;
  CXCompilationDatabase cdb = clang_CompilationDatabase_fromDirectory(dir, &err);
  if (err != CXCompilationDatabase_NoError || !cdb) {
    fprintf(stderr, "compactptr-advise: error: cannot load the compile "
                    "database '%s' (is it valid JSON?)\n", db);
    return -1;
  }
  CXCompileCommands cmds = clang_CompilationDatabase_getAllCompileCommands(cdb);
  unsigned n = cmds ? clang_CompileCommands_getSize(cmds) : 0;
  if (n == 0) {
    fprintf(stderr, "compactptr-advise: error: the compile database '%s' "
                    "holds no commands\n", db);
    if (cmds)
      clang_CompileCommands_dispose(cmds);
    clang_CompilationDatabase_dispose(cdb);
    return -1;
  }
  int *used = calloc((size_t)nfiles + 1, sizeof *used);
  unsigned skipped = 0;
  for (unsigned i = 0; i < n; i++) {
    CXCompileCommand c = clang_CompileCommands_getCommand(cmds, i);
    CXString d = clang_CompileCommand_getDirectory(c);
    CXString f = clang_CompileCommand_getFilename(c);
    const char *cdir = ad_intern(clang_getCString(d));
    const char *cfile = ad_intern(clang_getCString(f));
    clang_disposeString(d);
    clang_disposeString(f);
    if (nfiles) {
      int k, hit = 0;
      for (k = 0; k < nfiles; k++)
        if (same_file(cdir, cfile, files[k]))
          used[k] = hit = 1;
      if (!hit)
        continue;
    }
    if (is_cxx_file(cfile)) {
      skipped++;
      continue;
    }
    unsigned na = clang_CompileCommand_getNumArgs(c);
    const char **argv = ad_xrealloc(NULL, (na + 1) * sizeof *argv);
    for (unsigned a = 0; a < na; a++) {
      CXString s = clang_CompileCommand_getArg(c, a);
      argv[a] = ad_intern(clang_getCString(s));
      clang_disposeString(s);
    }
    ++*total;
    if (ad_scan_tu(m, cdir, (int)na, argv) != 0)
      ++*failed;
    free(argv);
  }
  if (skipped)
    fprintf(stderr, "compactptr-advise: note: skipped %u C++ translation "
                    "unit%s (compactptr handles C)\n",
            skipped, skipped == 1 ? "" : "s");
  for (int k = 0; k < nfiles; k++)
    if (!used[k]) {
      fprintf(stderr, "compactptr-advise: error: '%s' is not in the compile "
                      "database '%s'\n", files[k], db);
      ++*failed;
    }
  free(used);
  clang_CompileCommands_dispose(cmds);
  clang_CompilationDatabase_dispose(cdb);
  return 0;
}

/* A struct already marked CP_COMPACT with a blocker the plugin reports as
 * an error: the build with the plugin would fail, so a script must see it. */
static int annotated_blocked(const ad_model_t *m) {
  for (size_t i = 0; i < m->norder; i++) {
    const ad_record_t *r = &m->records[m->order[i]];
    if (!r->annotated)
      continue;
    for (size_t k = 0; k < r->nblockers; k++)
      if (strcmp(ad_blocker_plugin(m->blockers[r->blockers[k]].kind), "error") == 0)
        return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  const char *dbdir = NULL;
  int json = 0, annotate = 0, only_candidates = 0, nfiles = 0, nflags = 0;
  char **files = calloc((size_t)argc + 1, sizeof *files);
  char **flags = NULL;
  if (!getcwd(cwd, sizeof cwd))
    cwd[0] = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--") == 0) {
      flags = argv + i + 1;
      nflags = argc - i - 1;
      break;
    } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(usage, stdout);
      return EXIT_OK;
    } else if (strcmp(a, "--version") == 0) {
      printf("compactptr-advise %s\n", COMPACTPTR_VERSION);
      return EXIT_OK;
    } else if (strcmp(a, "--json") == 0) {
      json = 1;
    } else if (strcmp(a, "--annotate") == 0) {
      annotate = 1;
    } else if (strcmp(a, "--candidates") == 0) {
      only_candidates = 1;
    } else if (strcmp(a, "-p") == 0 || strcmp(a, "--build-path") == 0) {
      if (i + 1 >= argc)
        return usage_error("option '%s' needs a directory", a);
      dbdir = argv[++i];
    } else if (strncmp(a, "--build-path=", 13) == 0) {
      dbdir = a + 13;
    } else if (strncmp(a, "-p", 2) == 0 && a[2] && a[2] != '-') {
      dbdir = a + 2;
    } else if (a[0] == '-' && a[1]) {
      return usage_error("unknown option '%s'", a);
    } else {
      files[nfiles++] = argv[i];
    }
  }
  if (json && annotate)
    return usage_error("%s", "--json and --annotate cannot be combined");
  if (!dbdir && !nfiles)
    return usage_error("%s", "no input: give -p BUILD_DIR or source files");
  if (dbdir && flags)
    return usage_error("%s", "'--' flags cannot be combined with -p (the "
                             "compile database has the flags)");

  ad_model_t m;
  memset(&m, 0, sizeof m);
  int failed = 0, total = 0;
  if (dbdir) {
    if (run_database(&m, dbdir, nfiles, files, &failed, &total) != 0)
      return EXIT_INPUT;
  } else {
    for (int k = 0; k < nfiles; k++) {
      const char **av = ad_xrealloc(NULL, (size_t)(nflags + 3) * sizeof *av);
      int n = 0;
      av[n++] = "clang";
      for (int j = 0; j < nflags; j++)
        av[n++] = flags[j];
      av[n++] = files[k];
      total++;
      if (access(files[k], R_OK) != 0) {
        fprintf(stderr, "compactptr-advise: error: cannot read '%s': %s\n",
                files[k], strerror(errno));
        failed++;
      } else if (ad_scan_tu(&m, NULL, n, av) != 0) {
        failed++;
      }
      free(av);
    }
  }
  if (failed == total && total) {
    fprintf(stderr, "compactptr-advise: error: no translation unit could be "
                    "analysed\n");
    return EXIT_INPUT;
  }
  ad_analyze(&m);
  if (only_candidates) {
    size_t k = 0;
    for (size_t i = 0; i < m.norder; i++) {
      const ad_record_t *r = &m.records[m.order[i]];
      if (r->candidate || r->annotated)
        m.order[k++] = m.order[i];
    }
    m.norder = k;
  }
  int rc = EXIT_OK;
  if (annotate)
    rc = ad_report_annotate(&m) ? EXIT_INPUT : EXIT_OK;
  else if (json)
    ad_report_json(&m);
  else
    ad_report_text(&m);
  if (rc == EXIT_OK && annotated_blocked(&m))
    rc = EXIT_BLOCKED;
  if (failed) {
    fprintf(stderr, "compactptr-advise: error: %d of %d translation unit%s "
                    "could not be analysed; the report covers the rest\n",
            failed, total, total == 1 ? "" : "s");
    rc = EXIT_INPUT;
  }
  return rc;
}
