/*
 * scan.c - parse translation units with libclang and record the facts.
 *
 * In:  one compiler command line per translation unit.
 * Out: additions to the model (advise.h): every struct and union defined
 *      outside system headers with its fields and wide layout, every
 *      malloc/calloc/realloc site with the struct type it allocates, and
 *      every construct that would stop a struct from becoming compact, each
 *      attributed to the type whose compactness it blocks.
 * Invariants: types are merged across translation units by USR and place
 *      of definition, sites by file:line:column, so a header seen by ten
 *      files counts once and two files' own `struct node` stay apart;
 *      locations are expansion locations (a macro use reports the line of
 *      the use, like the plugin's diagnostics).
 * The blocker rules mirror passes/Safety.cpp and the allocation rule of
 * passes/Rewrite.cpp; analyze.c lists what the plugin says for each kind.
 * Tests: test/advise/ (all files).
 */
#include "advise.h"

#include <clang-c/CXCompilationDatabase.h>
#include <clang-c/Index.h>
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef COMPACTPTR_CLANG_RESOURCE_DIR
#define COMPACTPTR_CLANG_RESOURCE_DIR ""
#endif

typedef struct frame {
  CXCursor c;
  struct frame *up;
} frame_t;

/* Canonical cursors, searched linearly (a few in a file). */
typedef struct {
  CXCursor *v;
  size_t n, cap;
} cursor_set_t;

typedef struct {
  ad_model_t *m;
  CXTranslationUnit tu;
  frame_t *top; /* parent chain of the cursor being visited */
  /* Boxable variables with static storage whose address the translation
   * unit takes as a struct pointer (`&v`, `&v.f`, `&a[i]`): besides
   * external linkage, what makes the plugin box one. */
  cursor_set_t taken;
  /* Variables whose address was reported as a non-heap-address blocker:
   * once each, as the plugin does (the fix is at the declaration). */
  cursor_set_t refused;
  /* Pools (the variable or field an argument names) and the struct whose
   * sizeof a call hands each with (-2: several), as the plugin reads a
   * pool of objects of one size (`pool_init(&pool, sizeof(struct node))`,
   * then `pool_alloc(&pool)`). */
  struct pool_size { CXCursor key; int rec; } *pools;
  size_t npools, cappools;
  /* Parameters of the file's functions that some call hands the address
   * of a pointer field (`remember(&n->next)`), with the field's pointee
   * struct and name: the plugin follows them, and so does this scan, one
   * call deep (slot_param_store). */
  struct slot_param { CXCursor param; int rec; const char *field; } *slots;
  size_t nslots, capslots;
} scan_t;

static int cursor_set_has(const cursor_set_t *s, CXCursor c) {
  c = clang_getCanonicalCursor(c);
  for (size_t i = 0; i < s->n; i++)
    if (clang_equalCursors(s->v[i], c))
      return 1;
  return 0;
}

static void cursor_set_add(cursor_set_t *s, CXCursor c) {
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 16;
    s->v = realloc(s->v, s->cap * sizeof *s->v);
    if (!s->v) {
      fprintf(stderr, "compactptr-advise: out of memory\n");
      exit(1);
    }
  }
  s->v[s->n++] = clang_getCanonicalCursor(c);
}

/* ---- small helpers ------------------------------------------------------ */

static const char *cxstr(CXString s) {
  const char *p = ad_intern(clang_getCString(s) ? clang_getCString(s) : "");
  clang_disposeString(s);
  return p;
}

static ad_loc_t loc_of(CXSourceLocation l) {
  ad_loc_t r = {"", 0, 0};
  CXFile f;
  clang_getExpansionLocation(l, &f, &r.line, &r.col, NULL);
  if (f) {
    const char *p = cxstr(clang_File_tryGetRealPathName(f));
    if (!*p) {
      const char *n = cxstr(clang_getFileName(f));
      char buf[PATH_MAX];
      p = realpath(n, buf) ? ad_intern(buf) : n;
    }
    r.file = p;
  }
  return r;
}

static ad_loc_t cursor_loc(CXCursor c) { return loc_of(clang_getCursorLocation(c)); }

static int in_system_header(CXCursor c) {
  CXSourceLocation l = clang_getCursorLocation(c);
  return clang_Location_isInSystemHeader(l);
}

/* Record lookup by interned key: an open-addressing table of indices
 * (keys are interned, so pointer equality is string equality). */
static int *rec_slots;
static size_t rec_cap;

static size_t ptr_hash(const void *p) {
  return ((size_t)p >> 4) * 0x9E3779B97F4A7C15ull;
}

int ad_record_index(ad_model_t *m, const char *usr) {
  usr = ad_intern(usr);
  if (2 * (m->nrecords + 1) > rec_cap) {
    size_t nc = rec_cap ? 2 * rec_cap : 256;
    int *ns = ad_xrealloc(NULL, nc * sizeof *ns);
    for (size_t i = 0; i < nc; i++)
      ns[i] = -1;
    for (size_t i = 0; i < m->nrecords; i++) {
      size_t j = ptr_hash(m->records[i].usr) & (nc - 1);
      while (ns[j] >= 0)
        j = (j + 1) & (nc - 1);
      ns[j] = (int)i;
    }
    free(rec_slots);
    rec_slots = ns;
    rec_cap = nc;
  }
  size_t j = ptr_hash(usr) & (rec_cap - 1);
  for (; rec_slots[j] >= 0; j = (j + 1) & (rec_cap - 1))
    if (m->records[rec_slots[j]].usr == usr)
      return rec_slots[j];
  ad_record_t r;
  memset(&r, 0, sizeof r);
  r.usr = usr;
  r.name = "";
  AD_PUSH(m->records, m->nrecords, m->caprecords, r);
  rec_slots[j] = (int)m->nrecords - 1;
  return rec_slots[j];
}

/** The key of a record: its USR plus the place of its definition, so two
 *  different `struct node` definitions in two translation units stay two
 *  types while a header's struct seen by many files is one. */
static const char *record_key(CXCursor d) {
  const char *usr = cxstr(clang_getCursorUSR(d));
  if (!*usr)
    return usr;
  CXCursor def = clang_getCursorDefinition(d);
  if (clang_Cursor_isNull(def))
    return usr;
  ad_loc_t l = cursor_loc(def);
  return ad_printf("%s@%s:%u:%u", usr, l.file, l.line, l.col);
}

/** Record index of a struct or union type (canonical), or -1. */
static int record_of(scan_t *s, CXType t) {
  t = clang_getCanonicalType(t);
  if (t.kind != CXType_Record)
    return -1;
  CXCursor d = clang_getTypeDeclaration(t);
  if (clang_Cursor_isNull(d) || in_system_header(d))
    return -1;
  const char *usr = record_key(d);
  if (!*usr)
    return -1;
  int i = ad_record_index(s->m, usr);
  ad_record_t *r = &s->m->records[i];
  int is_union = clang_getCursorKind(d) == CXCursor_UnionDecl;
  if (is_union)
    r->is_union = 1;
  if (!*r->name) {
    /* a name for messages until (unless) the definition is seen */
    const char *sp = cxstr(clang_getCursorSpelling(d));
    r->name = *sp && !strchr(sp, ' ')
                  ? ad_printf("%s %s", is_union ? "union" : "struct", sp)
                  : cxstr(clang_getTypeSpelling(t));
  }
  return i;
}

/** Struct (not union) index of a type, or -1. */
static int struct_of(scan_t *s, CXType t) {
  int i = record_of(s, t);
  return i >= 0 && !s->m->records[i].is_union ? i : -1;
}

/** Struct index of the pointee of a pointer type, or -1. */
static int pointee_struct(scan_t *s, CXType t) {
  t = clang_getCanonicalType(t);
  if (t.kind != CXType_Pointer)
    return -1;
  return struct_of(s, clang_getPointeeType(t));
}

static CXType strip_arrays(CXType t, long long *count, int *flexible) {
  *count = 1;
  *flexible = 0;
  t = clang_getCanonicalType(t);
  for (;;) {
    if (t.kind == CXType_ConstantArray) {
      *count *= clang_getArraySize(t);
      t = clang_getCanonicalType(clang_getArrayElementType(t));
    } else if (t.kind == CXType_IncompleteArray || t.kind == CXType_VariableArray) {
      *flexible = 1;
      t = clang_getCanonicalType(clang_getArrayElementType(t));
    } else {
      return t;
    }
  }
}

static int is_expr_kind(enum CXCursorKind k) { return clang_isExpression(k); }

typedef struct {
  CXCursor v[8];
  int n;
} kids_t;

static enum CXChildVisitResult kid_cb(CXCursor c, CXCursor p, CXClientData d) {
  (void)p;
  kids_t *k = d;
  if (k->n < 8)
    k->v[k->n++] = c;
  return CXChildVisit_Continue;
}

static kids_t kids(CXCursor c) {
  kids_t k;
  k.n = 0;
  clang_visitChildren(c, kid_cb, &k);
  return k;
}

/** Skip parentheses and implicit casts (UnexposedExpr) downwards. */
static CXCursor strip(CXCursor c) {
  for (;;) {
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k != CXCursor_ParenExpr && k != CXCursor_UnexposedExpr)
      return c;
    kids_t ks = kids(c);
    if (ks.n != 1 || !is_expr_kind(clang_getCursorKind(ks.v[0])))
      return c;
    c = ks.v[0];
  }
}

/** Last expression child (a cast's operand follows its TypeRef). */
static CXCursor last_expr_kid(CXCursor c) {
  kids_t ks = kids(c);
  for (int i = ks.n - 1; i >= 0; i--)
    if (is_expr_kind(clang_getCursorKind(ks.v[i])))
      return ks.v[i];
  return clang_getNullCursor();
}

/** First token of a cursor's extent (interned), or "". */
static const char *first_token(scan_t *s, CXCursor c) {
  CXToken *toks = NULL;
  unsigned n = 0;
  clang_tokenize(s->tu, clang_getCursorExtent(c), &toks, &n);
  const char *r = n ? cxstr(clang_getTokenSpelling(s->tu, toks[0])) : "";
  clang_disposeTokens(s->tu, toks, n);
  return r;
}

/** True if the cursor comes from a macro expansion (body or argument):
 *  its tokens are then those of the macro use, not its own. */
static int in_macro(CXCursor c) {
  CXSourceLocation l = clang_getCursorLocation(c);
  CXFile ef, sf;
  unsigned el, ec, sl, sc;
  clang_getExpansionLocation(l, &ef, &el, &ec, NULL);
  clang_getSpellingLocation(l, &sf, &sl, &sc, NULL);
  return !ef || !sf || !clang_File_isEqual(ef, sf) || el != sl || ec != sc;
}

static int has_token(scan_t *s, CXCursor c, const char *what, const char *stop);

/** True for a sizeof expression.  libclang shows sizeof and _Alignof alike
 *  as UnaryExpr; outside macros the first token tells them apart, inside a
 *  macro every UnaryExpr with an operand counts as sizeof. */
static int is_sizeof(scan_t *s, CXCursor c) {
  if (clang_getCursorKind(c) != CXCursor_UnaryExpr)
    return 0;
  return in_macro(c) || strcmp(first_token(s, c), "sizeof") == 0;
}

/** For sizeof(type) whose TypeRef names struct `x`: true if the type is
 *  the struct itself, not `struct x *` or an array.  Outside macros from
 *  the written tokens; inside a macro by comparing the evaluated size. */
static int sizeof_names_struct(scan_t *s, CXCursor c, int x, CXType t) {
  (void)x;
  if (!in_macro(c))
    return !has_token(s, c, "*", NULL) && !has_token(s, c, "[", NULL);
  CXEvalResult r = clang_Cursor_Evaluate(c);
  if (!r)
    return 1;
  long long v = clang_EvalResult_getKind(r) == CXEval_Int
                    ? clang_EvalResult_getAsLongLong(r) : -1;
  clang_EvalResult_dispose(r);
  return v == clang_Type_getSizeOf(t);
}

/** True if a token with spelling `what` occurs in the cursor's extent. */
static int has_token(scan_t *s, CXCursor c, const char *what, const char *stop) {
  CXToken *toks = NULL;
  unsigned n = 0;
  int found = 0;
  clang_tokenize(s->tu, clang_getCursorExtent(c), &toks, &n);
  for (unsigned i = 0; i < n && !found; i++) {
    CXString sp = clang_getTokenSpelling(s->tu, toks[i]);
    const char *t = clang_getCString(sp);
    if (stop && strcmp(t, stop) == 0) {
      clang_disposeString(sp);
      break;
    }
    found = strcmp(t, what) == 0;
    clang_disposeString(sp);
  }
  clang_disposeTokens(s->tu, toks, n);
  return found;
}

static int site_seen(const ad_loc_t *v, size_t n, ad_loc_t l) {
  for (size_t i = 0; i < n; i++)
    if (v[i].file == l.file && v[i].line == l.line && v[i].col == l.col)
      return 1;
  return 0;
}

/** A blocker of record `rec`, lifted if record `unless` (>= 0) is compact
 *  too. */
static void block_unless(scan_t *s, int rec, int unless, ad_blocker_kind_t k,
                         ad_loc_t l, const char *msg) {
  ad_model_t *m = s->m;
  if (rec < 0)
    return;
  for (size_t i = 0; i < m->nblockers; i++) {
    ad_blocker_t *b = &m->blockers[i];
    if (b->record == rec && b->kind == k && b->loc.file == l.file &&
        b->loc.line == l.line && b->loc.col == l.col)
      return;
  }
  ad_blocker_t b = {k, rec, ad_intern(msg), l, unless};
  AD_PUSH(m->blockers, m->nblockers, m->capblockers, b);
}

static void block(scan_t *s, int rec, ad_blocker_kind_t k, ad_loc_t l,
                  const char *msg) {
  block_unless(s, rec, -1, k, l, msg);
}

static const char *rname(scan_t *s, int i) { return s->m->records[i].name; }

/* ---- struct and union definitions --------------------------------------- */

typedef struct {
  scan_t *s;
  int rec;
} fields_ctx_t;

static enum CXChildVisitResult aligned_attr_cb(CXCursor c, CXCursor parent,
                                               CXClientData d) {
  (void)parent;
  if (clang_getCursorKind(c) == CXCursor_AlignedAttr)
    *(int *)d = 1;
  return CXChildVisit_Continue;
}

static enum CXVisitorResult field_cb(CXCursor c, CXClientData d) {
  fields_ctx_t *fc = d;
  scan_t *s = fc->s;
  ad_record_t *r;
  ad_field_t f;
  memset(&f, 0, sizeof f);
  f.name = cxstr(clang_getCursorSpelling(c));
  f.loc = cursor_loc(c);
  f.target = -1;
  f.bitfield = clang_Cursor_isBitField(c) != 0;
  if (f.bitfield) {
    f.bit_offset = clang_Cursor_getOffsetOfField(c);
    f.bit_width = clang_getFieldDeclBitWidth(c);
    clang_visitChildren(c, aligned_attr_cb, &f.aligned);
  }
  CXType ft = clang_getCursorType(c);
  CXType e = strip_arrays(ft, &f.count, &f.flexible);
  CXType cft = clang_getCanonicalType(ft);
  /* The struct hack's kinds only, as the plugin takes them (roomMember):
   * pointers to structs, structs. */
  CXType sae = clang_getCanonicalType(clang_getArrayElementType(cft));
  CXType sap = sae.kind == CXType_Pointer
                   ? clang_getCanonicalType(clang_getPointeeType(sae))
                   : sae;
  f.small_array = cft.kind == CXType_ConstantArray &&
                  clang_getArraySize(cft) <= 1 &&
                  (sae.kind == CXType_Record || sap.kind == CXType_Record);
  f.size = clang_Type_getSizeOf(ft);
  if (f.size < 0)
    f.size = 0;
  f.align = clang_Type_getAlignOf(ft);
  if (f.align < 1)
    f.align = clang_Type_getAlignOf(e) > 0 ? clang_Type_getAlignOf(e) : 1;
  if (e.kind == CXType_Pointer && (f.target = pointee_struct(s, e)) >= 0) {
    f.kind = AD_FIELD_POINTER;
  } else if ((f.target = record_of(s, e)) >= 0) {
    if (s->m->records[f.target].is_union)
      f.target = -1, f.kind = AD_FIELD_BYTES;
    else
      f.kind = AD_FIELD_STRUCT;
  } else {
    f.target = -1;
    f.kind = AD_FIELD_BYTES;
  }
  if (fc->rec >= 0) {
    r = &s->m->records[fc->rec];
    const char *who = r->name;
    if (!r->is_union) {
      /* A run of bit-fields keeps its bits' places relative to a boundary
       * aligned for it; an alignment of a bit-field's own would move it. */
      if (f.bitfield && f.aligned)
        block(s, fc->rec, AD_B_BitField, f.loc,
              ad_printf("bit-field '%s' in '%s' has an alignment of its own",
                        f.name, who));
      else if (f.bitfield)
        ; /* laid out as a run (passes/Layout.cpp) */
      else if (f.kind == AD_FIELD_STRUCT && f.target >= 0 &&
               s->m->records[f.target].nfields &&
               s->m->records[f.target]
                   .fields[s->m->records[f.target].nfields - 1]
                   .flexible)
        block(s, fc->rec, AD_B_FlexibleArray, f.loc,
              ad_printf("member '%s' of '%s' is a struct with a flexible "
                        "array member",
                        f.name, who));
      else if (!*f.name) /* a member of unnamed type is fine, if named */
        block(s, fc->rec, AD_B_UnnamedFieldType, f.loc,
              ad_printf("anonymous struct or union member in '%s'", who));
      /* A volatile or _Atomic pointer to a struct, or an _Atomic struct:
       * once that struct is compact (and with it this one, which points
       * to or holds it), the plugin refuses the field. */
      CXType v = e;
      const int atomic = v.kind == CXType_Atomic;
      if (atomic)
        v = clang_getCanonicalType(clang_Type_getValueType(v));
      int pt = pointee_struct(s, v), held = atomic ? struct_of(s, v) : -1;
      if (pt >= 0 && (atomic || clang_isVolatileQualifiedType(v)))
        block(s, pt, AD_B_UnsupportedType, f.loc,
              ad_printf("%s pointer '%s' in '%s' points to '%s' (a handle "
                        "is not loaded or stored as the pointer would be)",
                        atomic ? "_Atomic" : "volatile", f.name, who,
                        rname(s, pt)));
      else if (held >= 0)
        block(s, held, AD_B_UnsupportedType, f.loc,
              ad_printf("_Atomic field '%s' in '%s' holds '%s'", f.name, who,
                        rname(s, held)));
      long long off = clang_Cursor_getOffsetOfField(c);
      if (!f.bitfield && off >= 0 && f.align > 0 && (off / 8) % f.align != 0 &&
          !r->packed) {
        r->packed = 1;
        block(s, fc->rec, AD_B_Packed, r->loc,
              ad_printf("'%s' is packed (field '%s' is misaligned)", who,
                        f.name));
      }
    } else if (f.target >= 0) {
      /* A union member holding a struct pointer or a struct: the pointee
       * (or member) type cannot become compact. */
      block(s, f.target, AD_B_Union, f.loc,
            ad_printf(f.kind == AD_FIELD_POINTER
                          ? "union member '%s' holds a pointer to '%s'"
                          : "union member '%s' holds '%s'",
                      f.name, rname(s, f.target)));
    }
    r = &s->m->records[fc->rec];
    AD_PUSH(r->fields, r->nfields, r->capfields, f);
  }
  return CXVisit_Continue;
}

static enum CXChildVisitResult packed_cb(CXCursor c, CXCursor p, CXClientData d) {
  (void)p;
  if (clang_getCursorKind(c) == CXCursor_PackedAttr) {
    *(int *)d = 1;
    return CXChildVisit_Break;
  }
  return CXChildVisit_Continue;
}

/** True if the definition's head (tokens before `{`) names CP_COMPACT or
 *  the compact attribute. */
static int is_annotated(scan_t *s, CXCursor c) {
  return has_token(s, c, "CP_COMPACT", "{") || has_token(s, c, "compact", "{");
}

static void record_def(scan_t *s, CXCursor c) {
  const char *usr = record_key(c);
  if (!*usr)
    return;
  int i = ad_record_index(s->m, usr);
  ad_record_t *r = &s->m->records[i];
  if (r->defined)
    return; /* seen in an earlier translation unit */
  r->defined = 1;
  r->is_union = clang_getCursorKind(c) == CXCursor_UnionDecl;
  const char *sp = cxstr(clang_getCursorSpelling(c));
  /* An untagged struct named by a typedef spells as the typedef name; it
   * is untagged if the token at its location is not its name. */
  r->anonymous = clang_Cursor_isAnonymous(c) != 0;
  CXToken *tok = clang_getToken(s->tu, clang_getCursorLocation(c));
  if (tok) {
    const char *t = cxstr(clang_getTokenSpelling(s->tu, *tok));
    if (strcmp(t, sp) != 0)
      r->anonymous = 1;
    clang_disposeTokens(s->tu, tok, 1);
  }
  if (r->anonymous && *sp && !strchr(sp, ' ') && !strchr(sp, '('))
    r->name = sp; /* the typedef name */
  if (!r->anonymous && *sp && !strchr(sp, ' '))
    r->name = ad_printf("%s %s", r->is_union ? "union" : "struct", sp);
  else if (!*r->name) {
    r->anonymous = 1;
    ad_loc_t l = cursor_loc(c);
    r->name = ad_printf("%s (unnamed at %s:%u)", r->is_union ? "union" : "struct",
                        ad_display_path(l.file), l.line);
  }
  r->loc = cursor_loc(c);
  r->keyword = loc_of(clang_getRangeStart(clang_getCursorExtent(c)));
  CXType t = clang_getCursorType(c);
  r->wide_size = clang_Type_getSizeOf(t);
  r->wide_align = clang_Type_getAlignOf(t);
  if (!r->is_union) {
    r->annotated = is_annotated(s, c);
    int packed = 0;
    clang_visitChildren(c, packed_cb, &packed);
    if (packed) {
      r->packed = 1;
      block(s, i, AD_B_Packed, r->loc, ad_printf("'%s' is packed", r->name));
    }
    CXCursor sem = clang_getCursorSemanticParent(c);
    enum CXCursorKind pk = clang_getCursorKind(sem);
    CXCursor lex = clang_getCursorLexicalParent(c);
    enum CXCursorKind lk = clang_getCursorKind(lex);
    if (pk == CXCursor_FunctionDecl || lk == CXCursor_FunctionDecl ||
        lk == CXCursor_CompoundStmt || lk == CXCursor_DeclStmt) {
      r->local = 1;
      block(s, i, AD_B_LocalType, r->loc,
            ad_printf("'%s' is defined inside a function", r->name));
    }
    /* A named struct defined inside another has file scope in C: the
     * plugin places its declarations after the outermost one. */
  }
  fields_ctx_t fc = {s, i};
  clang_Type_visitFields(t, field_cb, &fc);
}

static void typedef_decl(scan_t *s, CXCursor c) {
  CXType u = clang_getCanonicalType(clang_getTypedefDeclUnderlyingType(c));
  if (u.kind != CXType_Record)
    return;
  CXCursor d = clang_getTypeDeclaration(u);
  if (!clang_Cursor_isAnonymous(d) || in_system_header(d))
    return;
  int i = record_of(s, u);
  if (i < 0)
    return;
  ad_record_t *r = &s->m->records[i];
  if (!r->name || !*r->name || strchr(r->name, '('))
    r->name = cxstr(clang_getCursorSpelling(c));
}

/** True if the cursor's own token comes from a macro body (not from a
 *  macro argument): the plugin cannot rewrite it in place. */
static int in_macro_body(CXCursor c) {
  /* libclang's file location is the expansion point for a macro body token
   * and the spelling point for a macro argument token. */
  CXSourceLocation l = clang_getCursorLocation(c);
  CXFile sf, ff;
  unsigned sl, sc, fl, fc;
  clang_getSpellingLocation(l, &sf, &sl, &sc, NULL);
  clang_getFileLocation(l, &ff, &fl, &fc, NULL);
  if (!sf || !ff)
    return 0;
  return !clang_File_isEqual(sf, ff) || sl != fl || sc != fc;
}

/** True if the function around the cursor being visited has its body
 *  produced by a macro (a macro that defines the whole function); *body
 *  is that body. */
static int function_from_macro(scan_t *s, CXCursor *body) {
  *body = clang_getNullCursor();
  for (frame_t *f = s->top; f; f = f->up) {
    enum CXCursorKind k = clang_getCursorKind(f->c);
    if (k == CXCursor_CompoundStmt)
      *body = f->c;
    else if (k == CXCursor_FunctionDecl)
      return !clang_Cursor_isNull(*body) && in_macro_body(*body);
  }
  return 0;
}

/** True if the #define that spells the body holds `_Pragma` or
 *  `__COUNTER__` from the body's brace to the end of its continued lines.
 *  The plugin spells a function a macro defines out in place, except when
 *  a _Pragma reaches the parser from it (spelled again, it would be lost)
 *  or it counts (every later __COUNTER__ would shift). */
static int macro_body_has_pragma(scan_t *s, CXCursor body) {
  CXFile f;
  unsigned off;
  clang_getSpellingLocation(clang_getCursorLocation(body), &f, NULL, NULL, &off);
  size_t size = 0;
  const char *text = f ? clang_getFileContents(s->tu, f, &size) : NULL;
  if (!text || off >= size)
    return 0;
  size_t end = off;
  while (end < size) {
    const char *nl = memchr(text + end, '\n', size - end);
    size_t line_end = nl ? (size_t)(nl - text) : size;
    size_t last = line_end;
    while (last > end && (text[last - 1] == '\r' || text[last - 1] == ' ' ||
                          text[last - 1] == '\t'))
      last--;
    end = line_end;
    if (!nl || last == 0 || text[last - 1] != '\\')
      break; /* the #define ends on this line */
    end++;
  }
  static const char *const kws[] = {"_Pragma", "__COUNTER__"};
  for (size_t k = 0; k < sizeof kws / sizeof kws[0]; k++)
    for (size_t i = off, n = strlen(kws[k]); i + n <= end; i++)
      if (!memcmp(text + i, kws[k], n))
        return 1;
  return 0;
}

/** A use in a function a macro defines, which the plugin cannot spell out
 *  in place (a _Pragma in it): no statement of the function is a whole
 *  expansion, and the function has no text of its own. */
static void macro_body(scan_t *s, CXCursor c, int x, const char *what) {
  CXCursor body;
  if (x < 0 || !in_macro_body(c) || !function_from_macro(s, &body) ||
      !macro_body_has_pragma(s, body))
    return;
  block(s, x, AD_B_MacroBody, cursor_loc(c),
        ad_printf("%s of '%s' is in a function a macro defines with a "
                  "_Pragma or __COUNTER__ in it; the plugin cannot rewrite it "
                  "(write the function outside the macro)",
                  what, s->m->records[x].name));
}

/* ---- allocation sites ---------------------------------------------------- */

static const char *non_heap_root(scan_t *s, CXCursor e, const char **what);

/** Struct index if `c` is sizeof(struct T), sizeof(T typedef) or sizeof *p
 *  for p a struct pointer; -1 otherwise (also for sizeof(struct T *)). */
static int sizeof_struct(scan_t *s, CXCursor c) {
  c = strip(c);
  if (!is_sizeof(s, c))
    return -1;
  kids_t ks = kids(c);
  if (ks.n == 0) /* sizeof(int) etc.: no TypeRef child */
    return -1;
  CXCursor k = ks.v[0];
  enum CXCursorKind kk = clang_getCursorKind(k);
  if (kk == CXCursor_TypeRef) {
    /* sizeof(type): the TypeRef names the struct even for `struct T *`. */
    int x = ks.n == 1 ? struct_of(s, clang_getCursorType(k)) : -1;
    return x >= 0 && sizeof_names_struct(s, c, x, clang_getCursorType(k)) ? x : -1;
  }
  if (is_expr_kind(kk))
    return struct_of(s, clang_getCursorType(k));
  return -1;
}

/** Struct index if `c` is sizeof(struct T *) or sizeof p for a struct
 *  pointer p (the element of a root array); -1 otherwise. */
static int sizeof_struct_pointer(scan_t *s, CXCursor c) {
  c = strip(c);
  if (!is_sizeof(s, c))
    return -1;
  kids_t ks = kids(c);
  if (ks.n == 0)
    return -1;
  enum CXCursorKind kk = clang_getCursorKind(ks.v[0]);
  /* A typedef of the pointer type (libxml2's `sizeof(xmlNodePtr)`). */
  if (kk == CXCursor_TypeRef && ks.n == 1 && !in_macro(c) &&
      !has_token(s, c, "*", NULL)) {
    CXType ty = clang_getCanonicalType(clang_getCursorType(ks.v[0]));
    if (ty.kind == CXType_Pointer && pointee_struct(s, ty) >= 0)
      return pointee_struct(s, ty);
  }
  if (kk == CXCursor_TypeRef) {
    int x = ks.n == 1 ? struct_of(s, clang_getCursorType(ks.v[0])) : -1;
    if (x < 0)
      return -1;
    if (in_macro(c)) {
      CXEvalResult r = clang_Cursor_Evaluate(c);
      long long v = r && clang_EvalResult_getKind(r) == CXEval_Int
                        ? clang_EvalResult_getAsLongLong(r) : -1;
      if (r)
        clang_EvalResult_dispose(r);
      return v == (long long)sizeof(void *) ? x : -1;
    }
    return has_token(s, c, "*", NULL) ? x : -1;
  }
  if (is_expr_kind(kk))
    return pointee_struct(s, clang_getCursorType(ks.v[0]));
  return -1;
}

/* A size helper of the program's own (git's st_mult): a function with a
 * body whose every return is `a * b` of two of its parameters (through
 * parentheses and casts); the plugin reads it so (it also reads a product
 * kept in a local by __builtin_mul_overflow). */
typedef struct product {
  CXCursor fn;
  int a, b; /* parameter indices; a < 0: not (yet) one */
  int returns;
  enum CXBinaryOperatorKind op; /* Mul: st_mult; Add: st_add */
} product_t;

static int param_index(CXCursor fn, CXCursor e) {
  e = strip(e);
  while (clang_getCursorKind(e) == CXCursor_CStyleCastExpr)
    e = strip(last_expr_kid(e));
  if (clang_getCursorKind(e) != CXCursor_DeclRefExpr)
    return -1;
  CXCursor d = clang_getCursorReferenced(e);
  int n = clang_Cursor_getNumArguments(fn);
  for (int i = 0; i < n; i++)
    if (clang_equalCursors(clang_Cursor_getArgument(fn, i), d))
      return i;
  return -1;
}

/* Finds __builtin_mul_overflow(a, b, &v) for the local v in a body. */
typedef struct mul_into {
  CXCursor fn, v;
  int a, b;
} mul_into_t;

static enum CXChildVisitResult mul_into_cb(CXCursor c, CXCursor p,
                                           CXClientData d) {
  (void)p;
  mul_into_t *m = d;
  if (clang_getCursorKind(c) != CXCursor_CallExpr ||
      clang_Cursor_getNumArguments(c) != 3)
    return CXChildVisit_Recurse;
  CXString n = clang_getCursorSpelling(c);
  int builtin = strcmp(clang_getCString(n), "__builtin_mul_overflow") == 0;
  clang_disposeString(n);
  CXCursor r = strip(clang_Cursor_getArgument(c, 2));
  kids_t ks = kids(r);
  if (!builtin || clang_getCursorKind(r) != CXCursor_UnaryOperator ||
      clang_getCursorUnaryOperatorKind(r) != CXUnaryOperator_AddrOf ||
      ks.n != 1 ||
      clang_getCursorKind(strip(ks.v[0])) != CXCursor_DeclRefExpr ||
      !clang_equalCursors(clang_getCursorReferenced(strip(ks.v[0])), m->v))
    return CXChildVisit_Recurse;
  m->a = param_index(m->fn, clang_Cursor_getArgument(c, 0));
  m->b = param_index(m->fn, clang_Cursor_getArgument(c, 1));
  return CXChildVisit_Break;
}

static enum CXChildVisitResult product_cb(CXCursor c, CXCursor p,
                                          CXClientData d) {
  (void)p;
  product_t *r = d;
  if (r->a == -2)
    return CXChildVisit_Break;
  if (clang_getCursorKind(c) != CXCursor_ReturnStmt)
    return CXChildVisit_Recurse;
  kids_t ks = kids(c);
  CXCursor e = ks.n == 1 ? strip(ks.v[0]) : c;
  while (clang_getCursorKind(e) == CXCursor_CStyleCastExpr)
    e = strip(last_expr_kid(e));
  kids_t ops = kids(e);
  int a = -1, b = -1;
  if (clang_getCursorKind(e) == CXCursor_BinaryOperator &&
      clang_getCursorBinaryOperatorKind(e) == r->op && ops.n == 2) {
    a = param_index(r->fn, ops.v[0]);
    b = param_index(r->fn, ops.v[1]);
  } else if (r->op == CXBinaryOperator_Mul &&
             clang_getCursorKind(e) == CXCursor_DeclRefExpr &&
             clang_getCursorKind(clang_getCursorReferenced(e)) ==
                 CXCursor_VarDecl) {
    mul_into_t m = {r->fn, clang_getCursorReferenced(e), -1, -1};
    clang_visitChildren(r->fn, mul_into_cb, &m);
    a = m.a;
    b = m.b;
  }
  if (a < 0 || b < 0 || a == b ||
      (r->returns && !((a == r->a && b == r->b) || (a == r->b && b == r->a)))) {
    r->a = -2;
    return CXChildVisit_Break;
  }
  r->a = a;
  r->b = b;
  r->returns++;
  return CXChildVisit_Continue;
}

/* Finds a change of a parameter or local `v` in a body: an assignment
 * to it, `++`, `--` or `&v`. */
typedef struct param_change {
  CXCursor v;
  int changed;
} param_change_t;

static int refers_to(CXCursor e, CXCursor v) {
  e = strip(e);
  return clang_getCursorKind(e) == CXCursor_DeclRefExpr &&
         clang_equalCursors(clang_getCursorReferenced(e), v);
}

static int changes(enum CXUnaryOperatorKind k) {
  return k == CXUnaryOperator_PostInc || k == CXUnaryOperator_PostDec ||
         k == CXUnaryOperator_PreInc || k == CXUnaryOperator_PreDec ||
         k == CXUnaryOperator_AddrOf;
}

static enum CXChildVisitResult param_change_cb(CXCursor c, CXCursor p,
                                               CXClientData d) {
  (void)p;
  param_change_t *m = d;
  enum CXCursorKind k = clang_getCursorKind(c);
  kids_t ks = kids(c);
  if (ks.n >= 1 &&
      ((k == CXCursor_CompoundAssignOperator) ||
       (k == CXCursor_BinaryOperator &&
        clang_getCursorBinaryOperatorKind(c) == CXBinaryOperator_Assign) ||
       (k == CXCursor_UnaryOperator &&
        changes(clang_getCursorUnaryOperatorKind(c)))) &&
      refers_to(ks.v[0], m->v)) {
    m->changed = 1;
    return CXChildVisit_Break;
  }
  return CXChildVisit_Recurse;
}

static int param_changed(CXCursor fn, int i) {
  param_change_t m = {clang_Cursor_getArgument(fn, (unsigned)i), 0};
  clang_visitChildren(fn, param_change_cb, &m);
  return m.changed;
}

/* A local variable changed after its initializer, in its function. */
static int local_changed(CXCursor v) {
  param_change_t m = {v, 0};
  clang_visitChildren(clang_getCursorSemanticParent(v), param_change_cb, &m);
  return m.changed;
}

/** The helper a call calls that returns the product (op Mul) or sum (op
 *  Add) of two of its arguments, with their indices; a < 0 if none. */
static product_t binary_helper(CXCursor call, enum CXBinaryOperatorKind op) {
  product_t r = {clang_getNullCursor(), -1, -1, 0, op};
  if (clang_getCursorKind(call) != CXCursor_CallExpr)
    return r;
  CXCursor fn = clang_getCursorDefinition(clang_getCursorReferenced(call));
  if (clang_getCursorKind(fn) != CXCursor_FunctionDecl ||
      clang_Cursor_getNumArguments(fn) < 2)
    return r;
  r.fn = fn;
  clang_visitChildren(fn, product_cb, &r);
  if (r.a < 0 || !r.returns || param_changed(fn, r.a) ||
      param_changed(fn, r.b) || r.a >= clang_Cursor_getNumArguments(call) ||
      r.b >= clang_Cursor_getNumArguments(call))
    r.a = -1;
  return r;
}

static product_t product_helper(CXCursor call) {
  return binary_helper(call, CXBinaryOperator_Mul);
}

/** Like size_shape, for root arrays: sizeof(T *), or a product with it as
 *  one factor. */
static int root_size_shape(scan_t *s, CXCursor c) {
  c = strip(c);
  int t = sizeof_struct_pointer(s, c);
  if (t >= 0)
    return t;
  product_t h = product_helper(c);
  if (h.a >= 0) {
    int a = root_size_shape(s, clang_Cursor_getArgument(c, (unsigned)h.a));
    return a >= 0
               ? a
               : root_size_shape(s, clang_Cursor_getArgument(c, (unsigned)h.b));
  }
  if (clang_getCursorKind(c) == CXCursor_BinaryOperator &&
      clang_getCursorBinaryOperatorKind(c) == CXBinaryOperator_Mul) {
    kids_t ks = kids(c);
    if (ks.n == 2) {
      int a = root_size_shape(s, ks.v[0]);
      return a >= 0 ? a : root_size_shape(s, ks.v[1]);
    }
  }
  return -2;
}

/** Struct index of a struct with a flexible array member if `c` is a sum with a term sizeof(T) or offsetof(T, ...) of
 *  it (`sizeof *e + n + 1`: one object and its member's room); -1
 *  otherwise. */
static int flex_local(scan_t *s, CXCursor c);

/* r's last member holds the room an object is allocated with: a flexible
 * array member, or the struct hack's array of one element or none, which
 * the plugin takes for one (roomMember in passes/Analysis.cpp). */
static int has_room(const ad_record_t *r) {
  if (!r->nfields)
    return 0;
  const ad_field_t *f = &r->fields[r->nfields - 1];
  return f->flexible || f->small_array;
}

static int flex_base_at(scan_t *s, CXCursor c, int follow) {
  c = strip(c);
  /* Through casts to integer types, as the plugin reads sizes:
   * `(int)sizeof(struct entry) + n`. */
  while (clang_getCursorKind(c) == CXCursor_CStyleCastExpr) {
    enum CXTypeKind k = clang_getCanonicalType(clang_getCursorType(c)).kind;
    if (k < CXType_Bool || k > CXType_Int128)
      break;
    CXCursor in = last_expr_kid(c);
    if (clang_Cursor_isNull(in))
      break;
    c = strip(in);
  }
  int t = -1;
  if (follow && (t = flex_local(s, c)) >= 0)
    return t;
  kids_t ok = kids(c);
  if (ok.n == 2 && clang_getCursorKind(ok.v[0]) == CXCursor_TypeRef &&
      clang_getCursorKind(ok.v[1]) == CXCursor_MemberRef) {
    /* offsetof(T, member): libclang shows it as an unexposed expression
     * of the type and the member. */
    t = struct_of(s, clang_getCursorType(ok.v[0]));
  } else if (clang_getCursorKind(c) == CXCursor_BinaryOperator &&
             clang_getCursorBinaryOperatorKind(c) == CXBinaryOperator_Add) {
    kids_t ks = kids(c);
    if (ks.n == 2 && (t = flex_base_at(s, ks.v[0], follow)) < 0)
      t = flex_base_at(s, ks.v[1], follow);
    return t;
  } else if (clang_getCursorKind(c) == CXCursor_CallExpr) {
    /* git's st_add(sizeof *x, len): a size helper that adds. */
    product_t h = binary_helper(c, CXBinaryOperator_Add);
    if (h.a < 0)
      return -1;
    if ((t = flex_base_at(s, clang_Cursor_getArgument(c, (unsigned)h.a),
                          follow)) < 0)
      t = flex_base_at(s, clang_Cursor_getArgument(c, (unsigned)h.b), follow);
    return t;
  } else {
    t = sizeof_struct(s, c);
  }
  if (t < 0)
    return -1;
  return has_room(&s->m->records[t]) ? t : -1;
}

static int flex_base(scan_t *s, CXCursor c) { return flex_base_at(s, c, 1); }

/* One object with a flexible array member, its size held in a local
 * first (`size_t n = sizeof *e + len; e = malloc(n);`), as the plugin
 * takes it: a local variable (not static, not volatile) that only its
 * initializer writes, which is such a size itself (not through another
 * local).  Its struct, or -1. */
static int flex_local(scan_t *s, CXCursor c) {
  if (clang_getCursorKind(c) != CXCursor_DeclRefExpr)
    return -1;
  CXCursor v = clang_getCursorReferenced(c);
  if (clang_getCursorKind(v) != CXCursor_VarDecl ||
      clang_Cursor_getStorageClass(v) == CX_SC_Static ||
      clang_Cursor_getStorageClass(v) == CX_SC_Extern ||
      clang_getCursorKind(clang_getCursorSemanticParent(v)) !=
          CXCursor_FunctionDecl ||
      clang_isVolatileQualifiedType(clang_getCursorType(v)) || local_changed(v))
    return -1;
  CXCursor init = last_expr_kid(v);
  return clang_Cursor_isNull(init) ? -1 : flex_base_at(s, init, 0);
}

/** Struct index if `c` has the shape sizeof(T) or a product with it as
 *  one factor (n * sizeof(T), sizeof(T) * rows * cols), as the plugin
 *  takes them, or one object of a struct with a flexible array member and
 *  its room (flex_base); -2 otherwise. */
static int size_shape(scan_t *s, CXCursor c) {
  c = strip(c);
  int t = sizeof_struct(s, c);
  if (t >= 0)
    return t;
  if (clang_getCursorKind(c) == CXCursor_DeclRefExpr)
    return (t = flex_local(s, c)) >= 0 ? t : -2;
  if ((clang_getCursorKind(c) == CXCursor_BinaryOperator &&
       clang_getCursorBinaryOperatorKind(c) == CXBinaryOperator_Add) ||
      (clang_getCursorKind(c) == CXCursor_CallExpr &&
       binary_helper(c, CXBinaryOperator_Add).a >= 0))
    return (t = flex_base(s, c)) >= 0 ? t : -2;
  product_t h = product_helper(c);
  if (h.a >= 0) {
    int a = size_shape(s, clang_Cursor_getArgument(c, (unsigned)h.a));
    return a >= 0 ? a
                  : size_shape(s, clang_Cursor_getArgument(c, (unsigned)h.b));
  }
  if (clang_getCursorKind(c) == CXCursor_BinaryOperator &&
      clang_getCursorBinaryOperatorKind(c) == CXBinaryOperator_Mul) {
    kids_t ks = kids(c);
    if (ks.n == 2 && flex_base(s, ks.v[0]) < 0 && flex_base(s, ks.v[1]) < 0) {
      int a = size_shape(s, ks.v[0]);
      return a >= 0 ? a : size_shape(s, ks.v[1]);
    }
  }
  return -2;
}

/** The value of an integer literal argument, or -1. */
static long long literal_value(CXCursor c) {
  c = strip(c);
  if (clang_getCursorKind(c) != CXCursor_IntegerLiteral)
    return -1;
  CXEvalResult r = clang_Cursor_Evaluate(c);
  long long v = r && clang_EvalResult_getKind(r) == CXEval_Int
                    ? clang_EvalResult_getAsLongLong(r)
                    : -1;
  if (r)
    clang_EvalResult_dispose(r);
  return v;
}

/** The non-void pointee of the pointer type a call's result is converted
 *  to (walking up through casts and parentheses); CXType_Invalid if none. */
static CXType destination_pointee(scan_t *s) {
  for (frame_t *f = s->top; f; f = f->up) {
    enum CXCursorKind k = clang_getCursorKind(f->c);
    if (k != CXCursor_UnexposedExpr && k != CXCursor_ParenExpr &&
        k != CXCursor_CStyleCastExpr)
      break;
    CXType t = clang_getCanonicalType(clang_getCursorType(f->c));
    if (t.kind == CXType_Pointer) {
      CXType p = clang_getCanonicalType(clang_getPointeeType(t));
      if (p.kind != CXType_Void)
        return p;
    }
  }
  CXType none = {CXType_Invalid, {0, 0}};
  return none;
}

/** The struct a call's result is converted to a pointer to, or -1. */
static int destination_struct(scan_t *s) {
  CXType p = destination_pointee(s);
  return p.kind == CXType_Invalid ? -1 : struct_of(s, p);
}

/** The struct T if a call's result is converted to `T **` (a root array),
 *  or -1. */
static int destination_root(scan_t *s) {
  CXType p = destination_pointee(s);
  return p.kind == CXType_Invalid ? -1 : pointee_struct(s, p);
}

static void memcpy_call(scan_t *s, CXCursor c, const char *fn) {
  int heap = -1, value = -1;
  for (int i = 0; i < 2; i++) {
    CXCursor a = strip(clang_Cursor_getArgument(c, i));
    int x = pointee_struct(s, clang_getCursorType(a));
    if (x < 0)
      continue;
    const char *what;
    if (clang_getCursorKind(a) == CXCursor_UnaryOperator &&
        clang_getCursorUnaryOperatorKind(a) == CXUnaryOperator_AddrOf &&
        kids(a).n == 1 && non_heap_root(s, kids(a).v[0], &what))
      value = x;
    else
      heap = x;
  }
  if (heap >= 0 && value >= 0)
    block(s, heap, AD_B_MemcpyValue, cursor_loc(c),
          ad_printf("'%s' between a heap '%s' and a value; the heap object "
                    "is in compact layout (use assignment)",
                    fn, rname(s, heap)));
}

static void foreign_object(scan_t *s, CXCursor c, const char *fn);

/** A function the program declares CP_ALLOCATOR (on the declaration the
 *  call refers to, or on the definition): the plugin allocates compact
 *  objects through the runtime at its calls. */
static int names_allocator(scan_t *s, CXCursor d) {
  if (clang_Cursor_isNull(d))
    return 0;
  if (has_token(s, d, "CP_ALLOCATOR", "("))
    return 1;
  /* A mark that expands to nothing before the first specifier
   * (`CP_ALLOCATOR static void *f(...)`) is outside the extent: look from
   * the start of the line before. */
  CXSourceLocation at = clang_getRangeStart(clang_getCursorExtent(d));
  CXFile f;
  unsigned line, col;
  clang_getSpellingLocation(at, &f, &line, &col, NULL);
  if (!f)
    return 0;
  CXSourceRange r = clang_getRange(
      clang_getLocation(s->tu, f, line > 1 ? line - 1 : 1, 1), at);
  CXToken *toks = NULL;
  unsigned n = 0;
  int found = 0;
  clang_tokenize(s->tu, r, &toks, &n);
  for (unsigned i = 0; i < n; i++) {
    /* Only after the declaration before it ended. */
    CXString sp = clang_getTokenSpelling(s->tu, toks[i]);
    const char *t = clang_getCString(sp);
    if (strcmp(t, "CP_ALLOCATOR") == 0)
      found = 1;
    else if (strcmp(t, ";") == 0 || strcmp(t, "}") == 0 || strcmp(t, "{") == 0 ||
             strcmp(t, "#") == 0)
      found = 0;
    clang_disposeString(sp);
  }
  clang_disposeTokens(s->tu, toks, n);
  return found;
}

static int declared_allocator(scan_t *s, CXCursor callee) {
  if (clang_Cursor_isNull(callee) ||
      clang_getCursorKind(callee) != CXCursor_FunctionDecl)
    return 0;
  return names_allocator(s, callee) ||
         names_allocator(s, clang_getCursorDefinition(callee));
}

static CXCursor pool_key(CXCursor a);

/** A call of a CP_ALLOCATOR function that takes no size (no integer
 *  parameter) is one object of `rec` where this file hands a pool it is
 *  given the sizeof of `rec` and of no other struct (pool_size_call). */
static int pool_of_one_size(scan_t *s, CXCursor c, int rec) {
  CXCursor fn = clang_getCursorReferenced(c);
  for (int i = 0, n = clang_Cursor_getNumArguments(fn); i < n; i++)
    if (clang_getCanonicalType(
            clang_getCursorType(clang_Cursor_getArgument(fn, i))).kind !=
        CXType_Pointer)
      return 0;
  for (int i = 0, n = clang_Cursor_getNumArguments(c); i < n; i++) {
    CXCursor key = pool_key(clang_Cursor_getArgument(c, i));
    for (size_t j = 0; !clang_Cursor_isNull(key) && j < s->npools; j++)
      if (clang_equalCursors(s->pools[j].key, key))
        return s->pools[j].rec == rec;
    /* A helper's parameter: the plugin types it by the helper's calls,
     * which this scan does not follow. */
    if (clang_getCursorKind(key) == CXCursor_ParmDecl)
      return 1;
  }
  return 0;
}

/** A call of a CP_ALLOCATOR function whose result becomes a struct
 *  pointer, with sizeof of a struct among its arguments (or a pool of
 *  objects of one size): an allocation site, as the plugin routes it. */
static void allocator_call(scan_t *s, CXCursor c, const char *fn) {
  int shape = -1;
  for (int i = 0, n = clang_Cursor_getNumArguments(c); i < n && shape < 0; i++)
    shape = size_shape(s, clang_Cursor_getArgument(c, i));
  int dest = destination_struct(s);
  int t = dest >= 0 ? dest : shape;
  if (t < 0)
    return;
  if (shape < 0 && dest >= 0 && !pool_of_one_size(s, c, dest))
    block(s, dest, AD_B_AllocSize, cursor_loc(c),
          ad_printf("'%s' is a CP_ALLOCATOR pool that takes no size, and "
                    "this file hands the pool it is given no sizeof(%s) "
                    "alone (`pool_init(&pool, sizeof(%s), 64)`), so the "
                    "plugin cannot tell what one call makes",
                    fn, rname(s, dest), rname(s, dest)));
  macro_body(s, c, t, "an allocation");
  ad_record_t *r = &s->m->records[t];
  ad_loc_t l = cursor_loc(c);
  if (!site_seen(r->allocs, r->nallocs, l))
    AD_PUSH(r->allocs, r->nallocs, r->capallocs, l);
  (void)fn;
}

static int begins_with(scan_t *s, int a, int b);

static void call_expr(scan_t *s, CXCursor c) {
  const char *fn = cxstr(clang_getCursorSpelling(c));
  int nargs = clang_Cursor_getNumArguments(c);
  if (nargs >= 2 &&
      (strcmp(fn, "memcpy") == 0 || strcmp(fn, "memmove") == 0 ||
       strcmp(fn, "memcmp") == 0 || strcmp(fn, "bcopy") == 0 ||
       strcmp(fn, "__builtin_memcpy") == 0 || strcmp(fn, "__builtin_memmove") == 0)) {
    memcpy_call(s, c, fn);
    return;
  }
  int is_malloc = strcmp(fn, "malloc") == 0 && nargs == 1;
  int is_calloc = strcmp(fn, "calloc") == 0 && nargs == 2;
  int is_realloc = strcmp(fn, "realloc") == 0 && nargs == 2;
  if (!is_malloc && !is_calloc && !is_realloc) {
    if (declared_allocator(s, clang_getCursorReferenced(c)))
      allocator_call(s, c, fn);
    else
      foreign_object(s, c, fn);
    return;
  }
  CXCursor size = clang_Cursor_getArgument(c, is_realloc ? 1 : 0);
  int shape = size_shape(s, size);
  if (is_calloc) {
    CXCursor n0 = clang_Cursor_getArgument(c, 0),
             n1 = clang_Cursor_getArgument(c, 1);
    int a = size_shape(s, n0);
    int b = size_shape(s, n1);
    /* One object with a flexible array member: a count of 1 beside it. */
    if (a >= 0 && flex_base(s, n0) >= 0 && literal_value(n1) != 1)
      a = -2;
    if (b >= 0 && flex_base(s, n1) >= 0 && literal_value(n0) != 1)
      b = -2;
    shape = b >= 0 ? b : a >= 0 ? a : -2;
    if (b < 0 && a < 0)
      size = clang_Cursor_getArgument(c, 1);
  }
  int dest = destination_struct(s);
  ad_loc_t l = cursor_loc(c);
  int t = dest >= 0 ? dest : shape;
  if (t < 0) {
    int root = destination_root(s);
    if (root >= 0 && root_size_shape(s, size) != root)
      block(s, root, AD_B_AllocSize, cursor_loc(size),
            ad_printf("%s for an array of '%s *' does not give its size as "
                      "n * sizeof(%s *)",
                      fn, rname(s, root), rname(s, root)));
    return;
  }
  macro_body(s, c, t, "an allocation");
  ad_record_t *r = &s->m->records[t];
  if (!site_seen(r->allocs, r->nallocs, l))
    AD_PUSH(r->allocs, r->nallocs, r->capallocs, l);
  /* `(struct obj *)malloc(sizeof(struct num))`, num beginning with an
   * obj: the plugin allocates the num (not for a realloc, which would
   * change the object's type). */
  if (dest >= 0 && shape != dest &&
      !(shape >= 0 && !is_realloc && begins_with(s, shape, dest)))
    block(s, dest, AD_B_AllocSize, cursor_loc(size),
          shape >= 0
              ? ad_printf("%s of '%s' is converted to '%s *'", fn,
                          rname(s, shape), rname(s, dest))
              : ad_printf("%s for '%s' does not give its size as "
                          "sizeof(%s) or n * sizeof(%s)",
                          fn, rname(s, dest), rname(s, dest), rname(s, dest)));
}

/* ---- expressions that block ---------------------------------------------- */

static CXCursor parent_skipping_parens(scan_t *s, frame_t **at) {
  frame_t *f = s->top;
  while (f && clang_getCursorKind(f->c) == CXCursor_ParenExpr)
    f = f->up;
  if (at)
    *at = f;
  return f ? f->c : clang_getNullCursor();
}

/* The expression being visited (s->top is its parent) is converted to
 * `void *` at once (an implicit conversion, a cast, through parentheses). */
static int converted_to_void_pointer(scan_t *s) {
  frame_t *f = s->top;
  while (f && clang_getCursorKind(f->c) == CXCursor_ParenExpr)
    f = f->up;
  if (!f || (clang_getCursorKind(f->c) != CXCursor_UnexposedExpr &&
             clang_getCursorKind(f->c) != CXCursor_CStyleCastExpr))
    return 0;
  CXType t = clang_getCanonicalType(clang_getCursorType(f->c));
  return t.kind == CXType_Pointer &&
         clang_getCanonicalType(clang_getPointeeType(t)).kind == CXType_Void;
}

/* Does call c allocate objects of struct t, as the plugin routes it to the
 * runtime whatever its destination?  malloc, calloc, realloc or a
 * CP_ALLOCATOR function handed sizeof(t) (n * sizeof(t)), or a
 * CP_ALLOCATOR pool of one size handed a pool of t's (`return
 * pool_alloc(p);` in a helper). */
static int allocates(scan_t *s, CXCursor c, int t) {
  const char *fn = cxstr(clang_getCursorSpelling(c));
  int nargs = clang_Cursor_getNumArguments(c);
  int libc =
      (strcmp(fn, "malloc") == 0 && nargs == 1) ||
      ((strcmp(fn, "calloc") == 0 || strcmp(fn, "realloc") == 0) && nargs == 2);
  int declared = !libc && declared_allocator(s, clang_getCursorReferenced(c));
  if (!libc && !declared)
    return 0;
  int shape = -1;
  for (int i = 0; i < nargs && shape < 0; i++)
    shape = size_shape(s, clang_Cursor_getArgument(c, i));
  if (shape >= 0)
    return shape == t;
  return declared && pool_of_one_size(s, c, t);
}

/* Does a function's body return nothing but pointers to struct t (or
 * null constants, or allocations of t's)?  Such a function hands out
 * arena objects as `void *` (a fork-join task called directly, a
 * callback, a pool's wrapper): no allocation of its own. */
typedef struct returns {
  scan_t *s;
  int t, any, other;
} returns_t;

static enum CXChildVisitResult return_cb(CXCursor c, CXCursor p,
                                         CXClientData d) {
  (void)p;
  returns_t *r = d;
  if (clang_getCursorKind(c) != CXCursor_ReturnStmt)
    return CXChildVisit_Recurse;
  CXCursor v = last_expr_kid(c);
  if (clang_Cursor_isNull(v))
    return CXChildVisit_Continue;
  for (;;) { /* null: 0, NULL, (void *)0 */
    v = strip(v);
    if (clang_getCursorKind(v) != CXCursor_CStyleCastExpr)
      break;
    v = last_expr_kid(v);
  }
  if (clang_getCursorKind(v) == CXCursor_IntegerLiteral)
    return CXChildVisit_Continue;
  r->any = 1;
  if (clang_getCursorKind(v) == CXCursor_CallExpr && allocates(r->s, v, r->t))
    return CXChildVisit_Continue;
  if (pointee_struct(r->s, clang_getCursorType(v)) != r->t)
    r->other = 1;
  /* A local made from a `void *` (`struct node *n = p;`) may hold any
   * memory, as the plugin reads it. */
  if (clang_getCursorKind(v) == CXCursor_DeclRefExpr) {
    CXCursor d = clang_getCursorReferenced(v);
    CXCursor init = clang_getCursorKind(d) == CXCursor_VarDecl
                        ? last_expr_kid(d)
                        : clang_getNullCursor();
    if (!clang_Cursor_isNull(init)) {
      CXType from = clang_getCanonicalType(clang_getCursorType(strip(init)));
      enum CXTypeKind pk =
          from.kind == CXType_Pointer
              ? clang_getCanonicalType(clang_getPointeeType(from)).kind
              : CXType_Invalid;
      if (pk == CXType_Void || pk == CXType_Char_S || pk == CXType_Char_U ||
          pk == CXType_SChar || pk == CXType_UChar)
        r->other = 1;
    }
  }
  return CXChildVisit_Continue;
}

static int returns_only(scan_t *s, CXCursor def, int t) {
  returns_t r = {s, t, 0, 0};
  clang_visitChildren(def, return_cb, &r);
  return r.any && !r.other;
}

/* Does a function's body allocate: call malloc, calloc, realloc or a
 * function of the libc family that returns fresh memory?  (A list sort
 * that hands back the `void *` it was given allocates nothing: asking
 * for CP_ALLOCATOR on it would route its calls to the runtime.) */
typedef struct allocates {
  int found, depth;
} allocates_t;
static int body_allocates_at(CXCursor def, int depth);
static enum CXChildVisitResult allocates_cb(CXCursor c, CXCursor p,
                                            CXClientData d) {
  (void)p;
  allocates_t *a = d;
  if (clang_getCursorKind(c) == CXCursor_CallExpr) {
    CXString sp = clang_getCursorSpelling(c);
    const char *n = clang_getCString(sp);
    /* libc's allocators as the plugin knows them (Vocabulary.def; its
     * free is none), and the libc calls that return fresh memory besides. */
    static const struct {
      const char *kind, *name;
    } fns[] = {
#define CP_ALLOC_FN(Kind, Name, Args) {#Kind, Name},
#define CP_ALLOC_ALIAS(Kind, Name, Args) {#Kind, Name},
#define CP_ALIGNED_ALLOC_FN(Name) {"Aligned", Name},
#include "Vocabulary.def"
        {"Copy", "strdup"}, {"Copy", "strndup"}, {"Map", "mmap"}};
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
      if (n && strcmp(fns[i].kind, "Free") != 0 && strcmp(n, fns[i].name) == 0)
        a->found = 1;
    clang_disposeString(sp);
    /* Through a function of the file that does (a wrapper of a wrapper). */
    CXCursor def = clang_getCursorDefinition(clang_getCursorReferenced(c));
    if (!a->found && a->depth < 3 && !clang_Cursor_isNull(def) &&
        clang_getCursorKind(def) == CXCursor_FunctionDecl)
      a->found = body_allocates_at(def, a->depth + 1);
  }
  return a->found ? CXChildVisit_Break : CXChildVisit_Recurse;
}
static int body_allocates_at(CXCursor def, int depth) {
  allocates_t a = {0, depth};
  clang_visitChildren(def, allocates_cb, &a);
  return a.found;
}
static int body_allocates(CXCursor def) { return body_allocates_at(def, 0); }

/** `struct node *p = mk();` with mk returning void *: an object a wrapper
 *  allocated is in libc's heap, not the arena (the plugin warns on the
 *  implicit conversion; a written cast says the object is the arena's,
 *  unless the call is handed the type's size: then it allocates one). */
static void foreign_object(scan_t *s, CXCursor c, const char *fn) {
  CXType rt = clang_getCanonicalType(clang_getCursorType(c));
  if (rt.kind != CXType_Pointer ||
      clang_getCanonicalType(clang_getPointeeType(rt)).kind != CXType_Void ||
      strncmp(fn, "cp_", 3) == 0)
    return;
  /* What libc kept (the plugin's CP_RETURNS_KEPT_FN), or a pointer into
   * an argument (CP_RESULT_IN_ARG_FN: bsearch over an array of t's finds
   * one of them): no allocation. */
  static const char *const kept[] = {
#define CP_RETURNS_KEPT_FN(Name) Name,
#include "Vocabulary.def"
  };
  static const struct { const char *name; int arg; } in_arg[] = {
#define CP_RESULT_IN_ARG_FN(Name, Arg) {Name, Arg},
#include "Vocabulary.def"
  };
  for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++)
    if (strcmp(fn, kept[i]) == 0)
      return;
  for (size_t i = 0; i < sizeof in_arg / sizeof in_arg[0]; i++)
    if (strcmp(fn, in_arg[i].name) == 0 &&
        in_arg[i].arg < clang_Cursor_getNumArguments(c) &&
        pointee_struct(s, clang_getCursorType(strip(
                              clang_Cursor_getArgument(c, in_arg[i].arg)))) >= 0)
      return;
  CXCursor p = parent_skipping_parens(s, NULL);
  enum CXCursorKind pk = clang_getCursorKind(p);
  if (pk != CXCursor_UnexposedExpr && pk != CXCursor_CStyleCastExpr)
    return;
  int t = pointee_struct(s, clang_getCursorType(p));
  if (t < 0)
    return;
  if (pk == CXCursor_CStyleCastExpr) {
    /* memset and memcpy return the memory they are handed. */
    if (!strcmp(fn, "memset") || !strcmp(fn, "memcpy") || !strcmp(fn, "memmove") ||
        !strncmp(fn, "__builtin_mem", 13))
      return;
    int sized = 0;
    for (int i = 0; i < clang_Cursor_getNumArguments(c) && !sized; i++)
      sized = size_shape(s, clang_Cursor_getArgument(c, i)) == t;
    if (!sized)
      return;
  }
  /* An allocation hook -- a call through a struct's function pointer field
   * handed one object's size, cJSON's `hooks->allocate(sizeof(cJSON))` --
   * allocates in the compact heap while the hook is malloc (the plugin
   * routes it through cp_hook_is_malloc, and its warning says what another
   * hook would do): an allocation site, not a blocker. */
  if (clang_getCursorKind(clang_getCursorReferenced(c)) == CXCursor_FieldDecl &&
      clang_Cursor_getNumArguments(c) == 1 &&
      sizeof_struct(s, strip(clang_Cursor_getArgument(c, 0))) == t) {
    ad_record_t *r = &s->m->records[t];
    ad_loc_t l = cursor_loc(c);
    if (!site_seen(r->allocs, r->nallocs, l))
      AD_PUSH(r->allocs, r->nallocs, r->capallocs, l);
    return;
  }
  /* A function of the program itself (its body is in this translation
   * unit) that hands out the memory: the plugin follows it into its body
   * and asks for CP_ALLOCATOR, an error; with the mark, its calls are
   * allocations (declared_allocator).  Sized by the struct, the call is
   * where the program allocates it. */
  CXCursor def = clang_getCursorDefinition(clang_getCursorReferenced(c));
  if (!clang_Cursor_isNull(def) && returns_only(s, def, t))
    return;
  if (!clang_Cursor_isNull(def) && !in_system_header(def) && *fn &&
      body_allocates(def)) {
    int sized = 0;
    for (int i = 0; i < clang_Cursor_getNumArguments(c) && !sized; i++)
      sized = size_shape(s, clang_Cursor_getArgument(c, i)) == t;
    if (sized) {
      ad_record_t *r = &s->m->records[t];
      ad_loc_t l = cursor_loc(c);
      if (!site_seen(r->allocs, r->nallocs, l))
        AD_PUSH(r->allocs, r->nallocs, r->capallocs, l);
    }
    block(s, t, AD_B_UnannotatedAllocator, cursor_loc(c),
          ad_printf("the 'void *' returned by '%s' becomes a '%s *', and it "
                    "is not a compact allocation; declare '%s' CP_ALLOCATOR",
                    fn, rname(s, t), fn));
    return;
  }
  block(s, t, AD_B_ForeignObject, cursor_loc(c),
        ad_printf("the 'void *' returned by %s%s%s becomes a '%s *'; an object "
                  "allocated inside it is not in the compact arena",
                  *fn ? "'" : "", *fn ? fn : "a call", *fn ? "'" : "", rname(s, t)));
}

/** True if `c` is a cast (implicit or written) to a pointer that is not a
 *  struct pointer: the address stays a byte address (memset, printf). */
static int is_byte_address_use(scan_t *s, CXCursor c) {
  enum CXCursorKind k = clang_getCursorKind(c);
  if (k != CXCursor_UnexposedExpr && k != CXCursor_CStyleCastExpr)
    return 0;
  CXType t = clang_getCanonicalType(clang_getCursorType(c));
  return t.kind == CXType_Pointer && pointee_struct(s, t) < 0;
}

/** For an lvalue of struct type: the variable it lives in if it is not
 *  reached through a pointer (a local, a global), else NULL. */
static const char *non_heap_root(scan_t *s, CXCursor e, const char **what) {
  (void)s;
  for (;;) {
    e = strip(e);
    enum CXCursorKind k = clang_getCursorKind(e);
    if (k == CXCursor_MemberRefExpr) {
      kids_t ks = kids(e);
      if (ks.n < 1)
        return NULL;
      CXType bt = clang_getCanonicalType(clang_getCursorType(ks.v[0]));
      if (bt.kind == CXType_Pointer)
        return NULL; /* p->f: on the heap as far as we can tell */
      e = ks.v[0];
    } else if (k == CXCursor_ArraySubscriptExpr) {
      kids_t ks = kids(e);
      if (ks.n < 1)
        return NULL;
      CXCursor b = strip(ks.v[0]);
      CXType bt = clang_getCanonicalType(clang_getCursorType(b));
      if (bt.kind == CXType_Pointer)
        return NULL;
      e = b;
    } else if (k == CXCursor_DeclRefExpr) {
      CXCursor d = clang_getCursorReferenced(e);
      if (clang_getCursorKind(d) != CXCursor_VarDecl &&
          clang_getCursorKind(d) != CXCursor_ParmDecl)
        return NULL;
      enum CX_StorageClass sc = clang_Cursor_getStorageClass(d);
      CXCursor sem = clang_getCursorSemanticParent(d);
      int local = clang_getCursorKind(sem) == CXCursor_FunctionDecl;
      *what = local && sc == CX_SC_Static ? "static local"
              : local                     ? "local"
                                          : "global";
      return cxstr(clang_getCursorSpelling(d));
    } else {
      return NULL;
    }
  }
}

/** The variable under an lvalue chain `v`, `v.a.b`, `v.arr[i]`, or a null
 *  cursor. */
static CXCursor value_root_decl(CXCursor e) {
  for (;;) {
    e = strip(e);
    enum CXCursorKind k = clang_getCursorKind(e);
    kids_t ks = kids(e);
    if ((k == CXCursor_MemberRefExpr || k == CXCursor_ArraySubscriptExpr) &&
        ks.n >= 1) {
      e = ks.v[0];
      continue;
    }
    if (k == CXCursor_DeclRefExpr)
      return clang_getCursorReferenced(e);
    return clang_getNullCursor();
  }
}

/** The plugin places this variable in the compact heap when its address is
 *  used as a compact pointer (passes/Boxing.cpp): a local or global of
 *  struct type or an array of them with constant dimensions (the outermost
 *  one may be unknown in an extern declaration), not a parameter, a
 *  variable-length array, a static local or thread-local. */
static int boxable_var(CXCursor d) {
  if (clang_getCursorKind(d) != CXCursor_VarDecl)
    return 0;
  CXType t = clang_getCanonicalType(clang_getCursorType(d));
  if (t.kind == CXType_IncompleteArray)
    t = clang_getCanonicalType(clang_getArrayElementType(t));
  while (t.kind == CXType_ConstantArray)
    t = clang_getCanonicalType(clang_getArrayElementType(t));
  int local = clang_getCursorKind(clang_getCursorSemanticParent(d)) ==
              CXCursor_FunctionDecl;
  return t.kind == CXType_Record &&
         clang_getCursorTLSKind(d) == CXTLS_None &&
         !(local && clang_Cursor_getStorageClass(d) == CX_SC_Static);
}

/* `&v`, `&v.f`, `&a[i]` used as a struct pointer: not through `->` (an
 * object elsewhere), not as a byte address (`(void *)&v`), which the
 * plugin does not box for. */
static int size_shape(scan_t *s, CXCursor c);

/** The pool an argument names: the variable or field whose address it is
 *  (`&pool`, `&g->nodes`) or that holds it (`mp`); else a null cursor. */
static CXCursor pool_key(CXCursor a) {
  a = strip(a);
  if (clang_getCursorKind(a) == CXCursor_UnaryOperator &&
      clang_getCursorUnaryOperatorKind(a) == CXUnaryOperator_AddrOf) {
    kids_t ks = kids(a);
    if (ks.n != 1)
      return clang_getNullCursor();
    a = strip(ks.v[0]);
  } else if (clang_getCanonicalType(clang_getCursorType(a)).kind !=
             CXType_Pointer) {
    return clang_getNullCursor();
  }
  enum CXCursorKind k = clang_getCursorKind(a);
  if (k != CXCursor_DeclRefExpr && k != CXCursor_MemberRefExpr)
    return clang_getNullCursor();
  CXCursor d = clang_getCanonicalCursor(clang_getCursorReferenced(a));
  k = clang_getCursorKind(d);
  return k == CXCursor_VarDecl || k == CXCursor_ParmDecl ||
                 k == CXCursor_FieldDecl
             ? d
             : clang_getNullCursor();
}

static void pool_size_add(scan_t *s, CXCursor key, int rec) {
  for (size_t j = 0; j < s->npools; j++)
    if (clang_equalCursors(s->pools[j].key, key)) {
      if (s->pools[j].rec != rec)
        s->pools[j].rec = -2;
      return;
    }
  struct pool_size ps = {key, rec};
  AD_PUSH(s->pools, s->npools, s->cappools, ps);
}

/** A pool handed to a set-up of the file's that hands its parameter a
 *  size (`node_pool_setup(&nodes)`): the parameter's size. */
static enum CXChildVisitResult pool_setup_cb(CXCursor c, CXCursor parent,
                                             CXClientData d) {
  (void)parent;
  scan_t *s = d;
  if (clang_getCursorKind(c) != CXCursor_CallExpr)
    return CXChildVisit_Recurse;
  CXCursor def = clang_getCursorDefinition(clang_getCursorReferenced(c));
  if (clang_Cursor_isNull(def))
    return CXChildVisit_Recurse;
  for (int i = 0, n = clang_Cursor_getNumArguments(c);
       i < n && i < clang_Cursor_getNumArguments(def); i++) {
    CXCursor param = clang_getCanonicalCursor(clang_Cursor_getArgument(def, i));
    CXCursor key = pool_key(clang_Cursor_getArgument(c, i));
    for (size_t j = 0; !clang_Cursor_isNull(key) && j < s->npools; j++)
      if (clang_equalCursors(s->pools[j].key, param)) {
        pool_size_add(s, key, s->pools[j].rec);
        break;
      }
  }
  return CXChildVisit_Recurse;
}

/** A call that hands a pool the sizeof of one struct: recorded. */
static void pool_size_call(scan_t *s, CXCursor c) {
  int n = clang_Cursor_getNumArguments(c), rec = -1;
  for (int i = 0; i < n && rec < 0; i++)
    rec = size_shape(s, clang_Cursor_getArgument(c, i));
  if (rec < 0)
    return;
  for (int i = 0; i < n; i++) {
    CXCursor key = pool_key(clang_Cursor_getArgument(c, i));
    if (clang_Cursor_isNull(key) ||
        struct_of(s, clang_getCursorType(key)) == rec) /* memset(&pool...) */
      continue;
    pool_size_add(s, key, rec);
  }
}

/** A call that hands the address of a pointer field to a function of the
 *  file: its parameter recorded. */
static void slot_param_call(scan_t *s, CXCursor c) {
  CXCursor def = clang_getCursorDefinition(clang_getCursorReferenced(c));
  if (clang_Cursor_isNull(def))
    return;
  for (int i = 0, n = clang_Cursor_getNumArguments(c);
       i < n && i < clang_Cursor_getNumArguments(def); i++) {
    CXCursor a = strip(clang_Cursor_getArgument(c, i));
    if (clang_getCursorKind(a) != CXCursor_UnaryOperator ||
        clang_getCursorUnaryOperatorKind(a) != CXUnaryOperator_AddrOf)
      continue;
    kids_t ks = kids(a);
    CXCursor m = ks.n ? strip(ks.v[0]) : clang_getNullCursor();
    if (clang_getCursorKind(m) != CXCursor_MemberRefExpr)
      continue;
    CXCursor fd = clang_getCursorReferenced(m);
    CXType ft = clang_getCanonicalType(clang_getCursorType(fd));
    int x = ft.kind == CXType_Pointer ? pointee_struct(s, ft) : -1;
    if (x < 0)
      continue;
    struct slot_param sp = {
        clang_getCanonicalCursor(clang_Cursor_getArgument(def, i)), x,
        ad_intern(cxstr(clang_getCursorSpelling(fd)))};
    AD_PUSH(s->slots, s->nslots, s->capslots, sp);
  }
}

static enum CXChildVisitResult taken_cb(CXCursor c, CXCursor parent,
                                        CXClientData d) {
  scan_t *s = d;
  const char *what;
  if (clang_getCursorKind(c) == CXCursor_CallExpr) {
    pool_size_call(s, c);
    slot_param_call(s, c);
  }
  if (clang_getCursorKind(c) == CXCursor_UnaryOperator &&
      clang_getCursorUnaryOperatorKind(c) == CXUnaryOperator_AddrOf &&
      !is_byte_address_use(s, parent)) {
    kids_t ks = kids(c);
    CXCursor v = ks.n && non_heap_root(s, ks.v[0], &what)
                     ? value_root_decl(ks.v[0])
                     : clang_getNullCursor();
    /* Only globals that could be boxed: the list is searched linearly. */
    if (clang_getCursorKind(v) == CXCursor_VarDecl &&
        clang_Cursor_hasVarDeclGlobalStorage(v) && boxable_var(v) &&
        !cursor_set_has(&s->taken, v))
      cursor_set_add(&s->taken, v);
  }
  return CXChildVisit_Recurse;
}

/** Boxable variable d (with static storage) is boxed too once x is
 *  compact: its element type is x or an annotated struct, and it has
 *  external linkage or its address is used as a struct pointer. */
static int owner_is_boxed(scan_t *s, CXCursor d, int x) {
  CXType t = clang_getCanonicalType(clang_getCursorType(d));
  while (t.kind == CXType_ConstantArray || t.kind == CXType_IncompleteArray)
    t = clang_getCanonicalType(clang_getArrayElementType(t));
  int i = struct_of(s, t);
  if (i < 0 || (i != x && !s->m->records[i].annotated))
    return 0;
  return clang_getCursorLinkage(d) == CXLinkage_External ||
         cursor_set_has(&s->taken, d);
}

/** The plugin places a boxable variable in the compact heap at run time,
 *  so the static initializer of another variable cannot take its address
 *  (the plugin's boxed-address error); its own initializer can, and so can
 *  the initializer of a variable the plugin boxes too (a global of struct
 *  type with external linkage or whose address is taken: it is stored at
 *  run time as well, so a state machine's states may name each other). */
static void boxed_in_static_init(scan_t *s, CXCursor addr, CXCursor var_decl,
                                 const char *var, int x) {
  for (frame_t *f = s->top; f; f = f->up) {
    enum CXCursorKind k = clang_getCursorKind(f->c);
    if (k == CXCursor_FunctionDecl)
      return;
    if (k != CXCursor_VarDecl)
      continue;
    if (!clang_Cursor_hasVarDeclGlobalStorage(f->c) ||
        clang_equalCursors(clang_getCanonicalCursor(f->c),
                           clang_getCanonicalCursor(var_decl)))
      return;
    if (boxable_var(f->c) && owner_is_boxed(s, f->c, x))
      return;
    /* A file-scope pointer to a struct, not const itself, set to the
     * variable's address: the plugin moves its initializer into a
     * constructor. */
    CXType vt = clang_getCursorType(f->c);
    if (clang_getCursorKind(clang_getCursorSemanticParent(f->c)) ==
            CXCursor_TranslationUnit &&
        pointee_struct(s, vt) == x && !clang_isConstQualifiedType(vt) &&
        clang_getCursorTLSKind(f->c) == CXTLS_None)
      return;
    block(s, x, AD_B_BoxedAddress, cursor_loc(addr),
          ad_printf("'%s' lives in the compact heap once '%s' is compact "
                    "(its address is used as a '%s *'), so the static "
                    "initializer of '%s' cannot refer to it; assign it at "
                    "run time",
                    var, rname(s, x), rname(s, x),
                    cxstr(clang_getCursorSpelling(f->c))));
    return;
  }
}

static void non_heap_address(scan_t *s, CXCursor addr, CXCursor obj, int x) {
  frame_t *pf;
  CXCursor p = parent_skipping_parens(s, &pf);
  if (is_byte_address_use(s, p))
    return;
  const char *what = "";
  const char *var = non_heap_root(s, obj, &what);
  if (!var)
    return;
  CXCursor root = value_root_decl(obj);
  if (boxable_var(root)) {
    boxed_in_static_init(s, addr, root, var, x);
    return;
  }
  if (cursor_set_has(&s->refused, root))
    return;
  cursor_set_add(&s->refused, root);
  /* Stored into a struct pointer field? */
  const char *field = NULL;
  for (frame_t *f = pf; f; f = f->up) {
    enum CXCursorKind k = clang_getCursorKind(f->c);
    if (k == CXCursor_UnexposedExpr || k == CXCursor_ParenExpr)
      continue;
    if (k == CXCursor_BinaryOperator &&
        clang_getCursorBinaryOperatorKind(f->c) == CXBinaryOperator_Assign) {
      kids_t ks = kids(f->c);
      CXCursor lhs = ks.n ? strip(ks.v[0]) : clang_getNullCursor();
      if (clang_getCursorKind(lhs) == CXCursor_MemberRefExpr)
        field = cxstr(clang_getCursorSpelling(lhs));
    }
    break;
  }
  block(s, x, AD_B_NonHeapAddress, cursor_loc(addr),
        field ? ad_printf("the address of %s '%s' is stored into pointer "
                          "field '%s'; '%s' objects must be on the heap",
                          what, var, field, rname(s, x))
              : ad_printf("the address of %s '%s' is used as a '%s *'; "
                          "'%s' objects must be on the heap",
                          what, var, rname(s, x), rname(s, x)));
}

/** A local variable or parameter (not static): where the plugin follows
 *  a pointer to a handle field. */
static int is_local_var(CXCursor d) {
  enum CXCursorKind k = clang_getCursorKind(d);
  if (k == CXCursor_ParmDecl)
    return 1;
  return k == CXCursor_VarDecl &&
         clang_getCursorKind(clang_getCursorSemanticParent(d)) ==
             CXCursor_FunctionDecl &&
         clang_Cursor_getStorageClass(d) != CX_SC_Static;
}

static enum CXVisitorResult struct_pointer_cb(CXCursor c, CXClientData d) {
  CXType t = clang_getCanonicalType(clang_getCursorType(c));
  if (t.kind == CXType_Pointer &&
      clang_getCanonicalType(clang_getPointeeType(t)).kind == CXType_Record) {
    *(int *)d = 1;
    return CXVisit_Break;
  }
  return CXVisit_Continue;
}

/** `q->tail`: a pointer field (not an array) of a struct that holds a
 *  struct pointer itself, so the plugin lays it out and the switch moves
 *  the address kept in it (docs/plugin.md, section 4b). */
static int field_keeps_slot(CXCursor lhs) {
  if (clang_getCursorKind(lhs) != CXCursor_MemberRefExpr)
    return 0;
  CXCursor fd = clang_getCursorReferenced(lhs);
  if (clang_getCursorKind(fd) != CXCursor_FieldDecl ||
      clang_getCanonicalType(clang_getCursorType(fd)).kind != CXType_Pointer)
    return 0;
  int holds = 0;
  clang_Type_visitFields(clang_getCursorType(clang_getCursorSemanticParent(fd)),
                         struct_pointer_cb, &holds);
  return holds;
}

/** `path[i]` of a named local array of pointers with a constant count
 *  (an iterative insertion's path back to the root), whose elements a
 *  frame registers like a local's (docs/plugin.md, section 4b). */
static int local_array_element(CXCursor lhs) {
  if (clang_getCursorKind(lhs) != CXCursor_ArraySubscriptExpr)
    return 0;
  kids_t ks = kids(lhs);
  if (ks.n != 2)
    return 0;
  CXCursor base = strip(ks.v[0]);
  if (clang_getCursorKind(base) != CXCursor_DeclRefExpr)
    return 0;
  CXCursor d = clang_getCursorReferenced(base);
  CXType t = clang_getCanonicalType(clang_getCursorType(d));
  return clang_getCursorKind(d) == CXCursor_VarDecl && is_local_var(d) &&
         t.kind == CXType_ConstantArray &&
         clang_getCanonicalType(clang_getArrayElementType(t)).kind ==
             CXType_Pointer;
}

/** The address of a pointer field (`&p->next`) where it goes at once: how
 *  it escapes what the plugin follows (docs/plugin.md, section 4b), or
 *  NULL.  The plugin also follows it through locals and parameters; this
 *  scan reports the escapes it can see at the address, and those of a
 *  parameter it is handed to (slot_param_store). */
static const char *slot_escape(scan_t *s, CXCursor addr) {
  frame_t *f = s->top;
  CXCursor child = addr;
  for (; f; child = f->c, f = f->up) {
    enum CXCursorKind k = clang_getCursorKind(f->c);
    if (k == CXCursor_ParenExpr || k == CXCursor_UnexposedExpr)
      continue;
    if (k == CXCursor_ConditionalOperator) {
      kids_t ks = kids(f->c);
      if (ks.n == 3 && clang_equalCursors(ks.v[0], child))
        return NULL; /* the condition */
      continue;
    }
    break;
  }
  if (!f)
    return NULL;
  CXCursor p = f->c;
  switch (clang_getCursorKind(p)) {
  case CXCursor_ReturnStmt: {
    frame_t *g = f;
    while (g && clang_getCursorKind(g->c) != CXCursor_FunctionDecl)
      g = g->up;
    if (g && clang_getCursorLinkage(g->c) == CXLinkage_External)
      return ad_printf("returned from '%s', which other translation units "
                       "can call",
                       cxstr(clang_getCursorSpelling(g->c)));
    return NULL;
  }
  case CXCursor_VarDecl:
    return is_local_var(p) ? NULL
                           : ad_printf("stored into '%s'",
                                       cxstr(clang_getCursorSpelling(p)));
  case CXCursor_BinaryOperator: {
    if (clang_getCursorBinaryOperatorKind(p) != CXBinaryOperator_Assign)
      return NULL;
    kids_t ks = kids(p);
    if (ks.n != 2 || clang_equalCursors(ks.v[0], child))
      return NULL;
    CXCursor lhs = strip(ks.v[0]);
    if ((clang_getCursorKind(lhs) == CXCursor_DeclRefExpr &&
         is_local_var(clang_getCursorReferenced(lhs))) ||
        field_keeps_slot(lhs) || local_array_element(lhs))
      return NULL;
    return "stored into memory other than a local variable (or an element "
           "of a local array) or a field of a struct that holds struct "
           "pointers";
  }
  case CXCursor_CallExpr: {
    CXCursor fn = clang_getCursorReferenced(p);
    if (clang_getCursorKind(fn) != CXCursor_FunctionDecl)
      return "passed through a function pointer";
    CXCursor def = clang_getCursorDefinition(fn);
    if (clang_Cursor_isNull(def))
      return ad_printf("passed to '%s', which is not defined in this "
                       "translation unit",
                       cxstr(clang_getCursorSpelling(fn)));
    int nparams = clang_Cursor_getNumArguments(def), i = 0;
    for (int a = 0; a < clang_Cursor_getNumArguments(p); a++)
      if (clang_equalCursors(clang_Cursor_getArgument(p, a), child))
        i = a;
    if (i >= nparams)
      return ad_printf("passed to '%s' as a variadic argument",
                       cxstr(clang_getCursorSpelling(fn)));
    return NULL;
  }
  case CXCursor_CStyleCastExpr: {
    CXType t = clang_getCanonicalType(clang_getCursorType(p));
    if (t.kind == CXType_Pointer &&
        pointee_struct(s, clang_getPointeeType(t)) >= 0)
      return NULL;
    return ad_printf("cast to '%s'", cxstr(clang_getTypeSpelling(t)));
  }
  default:
    return NULL;
  }
}

/** The tokens of a cursor's extent, run together (interned). */
static const char *extent_text(scan_t *s, CXCursor c) {
  CXToken *toks = NULL;
  unsigned n = 0;
  char buf[512];
  size_t len = 0;
  buf[0] = 0;
  clang_tokenize(s->tu, clang_getCursorExtent(c), &toks, &n);
  for (unsigned i = 0; i < n; i++) {
    CXString sp = clang_getTokenSpelling(s->tu, toks[i]);
    const char *t = clang_getCString(sp);
    size_t k = strlen(t);
    if (len + k >= sizeof buf) { /* too long to be a field access: no match */
      clang_disposeString(sp);
      len = 0;
      strcpy(buf, "\x01");
      break;
    }
    memcpy(buf + len, t, k + 1);
    len += k;
    clang_disposeString(sp);
  }
  clang_disposeTokens(s->tu, toks, n);
  return ad_printf("%s", buf);
}

/** Text without its parentheses (interned). */
static const char *unparenthesized(const char *t) {
  char *r = ad_printf("%s", t), *w = r;
  for (const char *c = r; *c; c++)
    if (*c != '(' && *c != ')')
      *w++ = *c;
  *w = 0;
  return r;
}

/** The first frame from f up that is no parenthesis or implicit
 *  conversion, or NULL. */
static frame_t *past_parens(frame_t *f) {
  while (f && (clang_getCursorKind(f->c) == CXCursor_ParenExpr ||
               clang_getCursorKind(f->c) == CXCursor_UnexposedExpr))
    f = f->up;
  return f;
}

/** The call of three arguments the frames from f up hold (through
 *  parentheses), if its callee, its `__builtin_` prefix aside, is one of
 *  the NULL-terminated names; else NULL. */
static frame_t *byte_call(frame_t *f, const char *const *names) {
  f = past_parens(f);
  if (!f || clang_getCursorKind(f->c) != CXCursor_CallExpr ||
      clang_Cursor_getNumArguments(f->c) != 3)
    return NULL;
  const char *fn = cxstr(clang_getCursorSpelling(f->c));
  const char *base = strncmp(fn, "__builtin_", 10) == 0 ? fn + 10 : fn;
  for (; *names; names++)
    if (strcmp(base, *names) == 0)
      return f;
  return NULL;
}

/** 1 if c is an integer constant expression of value 0. */
static int is_zero(CXCursor c) {
  CXEvalResult r = clang_Cursor_Evaluate(c);
  int zero = r && clang_EvalResult_getKind(r) == CXEval_Int &&
             clang_EvalResult_getAsLongLong(r) == 0;
  if (r)
    clang_EvalResult_dispose(r);
  return zero;
}

/** The frame above `from` that holds the call the array field `m` (or its
 *  address, f = the `&`) is the first argument of, if it is the clear the
 *  plugin rewrites: memset(X, 0, sizeof X) with X written the same way. */
static int is_handle_array_clear(scan_t *s, frame_t *f, CXCursor m) {
  static const char *const clear[] = {"memset", NULL};
  if (!(f = byte_call(f, clear)))
    return 0;
  /* Its result (the array's address) thrown away or tested, as the plugin
   * requires: a statement of its own or a condition. */
  frame_t *u = past_parens(f->up);
  enum CXCursorKind uk = u ? clang_getCursorKind(u->c) : CXCursor_InvalidFile;
  if (uk != CXCursor_CompoundStmt && uk != CXCursor_IfStmt && uk != CXCursor_WhileStmt &&
      uk != CXCursor_DoStmt && uk != CXCursor_ForStmt && uk != CXCursor_LabelStmt &&
      uk != CXCursor_CaseStmt && uk != CXCursor_DefaultStmt)
    return 0;
  CXCursor size = strip(clang_Cursor_getArgument(f->c, 2));
  if (!is_zero(strip(clang_Cursor_getArgument(f->c, 1))) ||
      !is_sizeof(s, size) || in_macro(size))
    return 0;
  /* The same X both times, parentheses aside (sizeof((p->kids))). */
  return strcmp(unparenthesized(extent_text(s, size)),
                ad_printf("sizeof%s", unparenthesized(extent_text(s, m)))) == 0;
}

/** 1 if size (stripped) is a count of pointer slots: `sizeof X` or
 *  `sizeof(T *)` with X a pointer or an array of them (`sizeof o->kids`,
 *  a whole handle array), or N times one of those. */
static int slot_count(scan_t *s, CXCursor size) {
  if (clang_getCursorKind(size) == CXCursor_BinaryOperator &&
      clang_getCursorBinaryOperatorKind(size) == CXBinaryOperator_Mul) {
    kids_t ks = kids(size);
    return ks.n == 2 && (slot_count(s, strip(ks.v[0])) || slot_count(s, strip(ks.v[1])));
  }
  /* All but some: `sizeof p->kids - sizeof p->kids[0]`. */
  if (clang_getCursorKind(size) == CXCursor_BinaryOperator &&
      clang_getCursorBinaryOperatorKind(size) == CXBinaryOperator_Sub) {
    kids_t ks = kids(size);
    return ks.n == 2 && slot_count(s, strip(ks.v[0])) &&
           slot_count(s, strip(ks.v[1]));
  }
  if (!is_sizeof(s, size) || in_macro(size))
    return 0;
  kids_t ks = kids(size);
  if (ks.n == 1 && clang_getCursorKind(ks.v[0]) != CXCursor_TypeRef) {
    CXType t = clang_getCanonicalType(clang_getCursorType(ks.v[0]));
    if (t.kind == CXType_ConstantArray)
      t = clang_getCanonicalType(clang_getArrayElementType(t));
    return t.kind == CXType_Pointer;
  }
  return has_token(s, size, "*", NULL);
}

/** True if the address of a handle slot (`&p->kids[i]`; f = the frames
 *  above the `&`) starts a run the plugin rewrites: memmove or memcpy
 *  (or memset with 0) of a count of slots, its result unused. */
static int is_handle_run(scan_t *s, frame_t *f) {
  static const char *const runs[] = {"memmove", "memcpy", "memset", NULL};
  if (!(f = byte_call(f, runs)))
    return 0;
  frame_t *u = past_parens(f->up);
  if (!u || clang_getCursorKind(u->c) != CXCursor_CompoundStmt)
    return 0;
  /* A clear fills with 0 (a null handle), as the plugin requires. */
  if (strstr(cxstr(clang_getCursorSpelling(f->c)), "memset") &&
      !is_zero(strip(clang_Cursor_getArgument(f->c, 1))))
    return 0;
  return slot_count(s, strip(clang_Cursor_getArgument(f->c, 2)));
}

/** True if a handle array field decayed (f = the frames above the
 *  decay), alone or plus an index (`p->kids + i + 1`), starts such a run:
 *  `memset(n->kids, 0, k * sizeof n->kids[0])`. */
static int is_decayed_handle_run(scan_t *s, frame_t *f) {
  f = past_parens(f);
  while (f && clang_getCursorKind(f->c) == CXCursor_BinaryOperator &&
         clang_getCursorBinaryOperatorKind(f->c) == CXBinaryOperator_Add)
    f = past_parens(f->up);
  return is_handle_run(s, f);
}

static void unary_operator(scan_t *s, CXCursor c) {
  if (clang_getCursorUnaryOperatorKind(c) != CXUnaryOperator_AddrOf)
    return;
  kids_t ks = kids(c);
  if (ks.n != 1)
    return;
  CXCursor sub = ks.v[0];
  while (clang_getCursorKind(sub) == CXCursor_ParenExpr) {
    kids_t k2 = kids(sub);
    if (k2.n != 1)
      break;
    sub = k2.v[0];
  }
  /* &p->next, &p->kids[i] */
  CXCursor m = sub;
  if (clang_getCursorKind(m) == CXCursor_ArraySubscriptExpr) {
    kids_t k2 = kids(m);
    m = k2.n ? strip(k2.v[0]) : clang_getNullCursor();
  }
  if (clang_getCursorKind(m) == CXCursor_MemberRefExpr) {
    CXCursor fd = clang_getCursorReferenced(m);
    if (clang_getCursorKind(fd) == CXCursor_FieldDecl) {
      long long n;
      int flex;
      CXType ft = clang_getCanonicalType(clang_getCursorType(fd));
      CXType e = strip_arrays(ft, &n, &flex);
      int x = pointee_struct(s, e);
      const char *name = cxstr(clang_getCursorSpelling(fd));
      if (x >= 0 && clang_getCursorKind(sub) != CXCursor_ArraySubscriptExpr &&
          ft.kind == CXType_ConstantArray) {
        if (is_handle_array_clear(s, s->top, m))
          return;
        block(s, x, AD_B_AddressOfField, cursor_loc(c),
              ad_printf("the address of pointer array field '%s' (of '%s *') "
                        "is taken",
                        name, rname(s, x)));
        return;
      }
      if (x >= 0) {
        if (clang_getCursorKind(sub) == CXCursor_ArraySubscriptExpr &&
            is_handle_run(s, s->top))
          return;
        const char *where = slot_escape(s, c);
        if (where)
          block(s, x, AD_B_SlotEscape, cursor_loc(c),
                ad_printf("the address of pointer field '%s' (a '%s *') is %s",
                          name, rname(s, x), where));
        return;
      }
    }
  }
  int x = struct_of(s, clang_getCursorType(sub));
  if (x >= 0)
    non_heap_address(s, c, sub, x);
}

/** True if frame f lies in the operand of a sizeof, which is not
 *  evaluated: a decay there is only its type (`n * sizeof *p->kids`). */
static int in_sizeof(scan_t *s, frame_t *f) {
  for (; f; f = f->up) {
    if (is_sizeof(s, f->c))
      return 1;
    enum CXCursorKind k = clang_getCursorKind(f->c);
    if (clang_isStatement(k) || clang_isDeclaration(k))
      return 0;
  }
  return 0;
}

/** The offset in its file of the place a cursor's first token was
 *  expanded (a macro's invocation), or ~0u. */
static unsigned expansion_offset(CXCursor c) {
  CXFile f;
  unsigned off;
  clang_getExpansionLocation(clang_getRangeStart(clang_getCursorExtent(c)), &f,
                             NULL, NULL, &off);
  return f ? off : ~0u;
}

/** A member access of struct x from the body of a macro whose one
 *  invocation expands to several statements of a block, unwrapped
 *  (nginx's queue macros, `#define SET(p, x, y) (p)->a = x; (p)->b = y`):
 *  no statement is the whole expansion, which the plugin refuses in
 *  switchable code (its checked functions print none). */
static void multi_statement_macro(scan_t *s, CXCursor c, int x) {
  if (x < 0 || !in_macro_body(c))
    return;
  CXCursor stmt = c;
  frame_t *f = s->top;
  while (f && clang_getCursorKind(f->c) != CXCursor_CompoundStmt) {
    stmt = f->c;
    f = f->up;
  }
  if (!f)
    return;
  unsigned at = expansion_offset(stmt);
  /* A block of the macro's own (`do { ... } while (0)`) is fine. */
  if (at == ~0u || expansion_offset(f->c) == at)
    return;
  kids_t ks = kids(f->c);
  int same = 0;
  for (int i = 0; i < ks.n; i++)
    same += expansion_offset(ks.v[i]) == at;
  if (same < 2)
    return;
  block(s, x, AD_B_MacroBody, cursor_loc(stmt),
        ad_printf("a member access of '%s' is in a macro that expands to "
                  "several statements here, unwrapped; the plugin refuses it "
                  "in switchable code (wrap the macro's body in `do { ... } "
                  "while (0)`)",
                  s->m->records[x].name));
}

/** Member accesses: a handle array used as a pointer, and accesses to a
 *  heap struct produced inside a macro body. */
static void member_ref(scan_t *s, CXCursor c) {
  kids_t ks = kids(c);
  if (ks.n >= 1) {
    CXType bt = clang_getCanonicalType(clang_getCursorType(ks.v[0]));
    int x = bt.kind == CXType_Pointer ? pointee_struct(s, bt) : -1;
    const char *what;
    if (x < 0 && bt.kind == CXType_Record && !non_heap_root(s, ks.v[0], &what))
      x = struct_of(s, bt);
    macro_body(s, c, x, "a member access");
    multi_statement_macro(s, c, x);
  }
  CXType t = clang_getCanonicalType(clang_getCursorType(c));
  if (t.kind != CXType_ConstantArray || !s->top ||
      clang_getCursorKind(s->top->c) != CXCursor_UnexposedExpr)
    return;
  int x = pointee_struct(s, clang_getArrayElementType(t));
  CXType dt = clang_getCanonicalType(clang_getCursorType(s->top->c));
  if (x < 0 || dt.kind != CXType_Pointer)
    return;
  frame_t *save = s->top;
  s->top = save->up;
  CXCursor p = parent_skipping_parens(s, NULL);
  s->top = save;
  if (clang_getCursorKind(p) == CXCursor_ArraySubscriptExpr ||
      is_handle_array_clear(s, save, c) || is_decayed_handle_run(s, save->up) ||
      in_sizeof(s, save->up))
    return;
  block(s, x, AD_B_HandleArrayDecay, cursor_loc(c),
        ad_printf("the array of '%s *' in field '%s' is used as a pointer; "
                  "as handles it can only be subscripted",
                  rname(s, x), cxstr(clang_getCursorSpelling(c))));
}

/** An array of structs (a local or global) decaying to a struct pointer. */
static void decl_ref(scan_t *s, CXCursor c) {
  CXType t = clang_getCanonicalType(clang_getCursorType(c));
  if (t.kind != CXType_ConstantArray && t.kind != CXType_IncompleteArray)
    return;
  int x = struct_of(s, clang_getArrayElementType(t));
  if (x < 0 || !s->top || clang_getCursorKind(s->top->c) != CXCursor_UnexposedExpr)
    return;
  CXType dt = clang_getCanonicalType(clang_getCursorType(s->top->c));
  if (dt.kind != CXType_Pointer)
    return;
  /* Subscripting it (pool[i]) or taking it as bytes is fine. */
  frame_t *save = s->top;
  s->top = save->up;
  CXCursor p = parent_skipping_parens(s, NULL);
  int ok = is_byte_address_use(s, p) ||
           clang_getCursorKind(p) == CXCursor_ArraySubscriptExpr;
  if (!ok)
    non_heap_address(s, c, c, x);
  s->top = save;
}

static int is_integer_kind(enum CXTypeKind k) {
  return k >= CXType_Bool && k <= CXType_Int128; /* chars included */
}

static int is_byte_pointee(CXType p) {
  p = clang_getCanonicalType(p);
  return p.kind == CXType_Void || p.kind == CXType_Char_S ||
         p.kind == CXType_Char_U || p.kind == CXType_SChar ||
         p.kind == CXType_UChar;
}

static const char *type_text(CXType t) { return cxstr(clang_getTypeSpelling(t)); }

/** `arr + k`, `&arr[i]` or `arr` for an array variable that is not on the
 *  heap (a local, a global): its name, with *what set to which; else NULL. */
static const char *byte_array_root(scan_t *s, CXCursor e, const char **what) {
  e = strip(e);
  enum CXCursorKind k = clang_getCursorKind(e);
  if (k == CXCursor_BinaryOperator) {
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(e);
    kids_t ks = kids(e);
    if ((op != CXBinaryOperator_Add && op != CXBinaryOperator_Sub) || ks.n != 2)
      return NULL;
    const char *v = byte_array_root(s, ks.v[0], what);
    return v ? v : op == CXBinaryOperator_Add ? byte_array_root(s, ks.v[1], what) : NULL;
  }
  if (k == CXCursor_UnaryOperator &&
      clang_getCursorUnaryOperatorKind(e) == CXUnaryOperator_AddrOf) {
    kids_t ks = kids(e);
    if (ks.n != 1 || clang_getCursorKind(strip(ks.v[0])) != CXCursor_ArraySubscriptExpr)
      return NULL;
    kids_t ss = kids(strip(ks.v[0]));
    return ss.n ? byte_array_root(s, ss.v[0], what) : NULL;
  }
  if (k != CXCursor_DeclRefExpr)
    return NULL;
  CXCursor d = clang_getCursorReferenced(e);
  CXType t = clang_getCanonicalType(clang_getCursorType(d));
  if (clang_getCursorKind(d) != CXCursor_VarDecl ||
      (t.kind != CXType_ConstantArray && t.kind != CXType_IncompleteArray))
    return NULL;
  int local = clang_getCursorKind(clang_getCursorSemanticParent(d)) ==
              CXCursor_FunctionDecl;
  *what = local && clang_Cursor_getStorageClass(d) == CX_SC_Static ? "static local"
          : local                                                 ? "local"
                                                                  : "global";
  return cxstr(clang_getCursorSpelling(d));
}

/** Record a begins with a value of record b (its first field,
 *  recursively). */
static int begins_with(scan_t *s, int a, int b) {
  for (int depth = 0; a >= 0 && depth < 64; depth++) {
    const ad_record_t *r = &s->m->records[a];
    if (!r->nfields || r->fields[0].kind != AD_FIELD_STRUCT ||
        r->fields[0].count != 1)
      return 0;
    a = r->fields[0].target;
    if (a == b)
      return 1;
  }
  return 0;
}

/** A cast between pointers to records a and b is valid in compact layout
 *  as in C: they share a common initial sequence (the plugin places it at
 *  the same offsets in both), or one begins with the other. */
static int shares_prefix(scan_t *s, int a, int b) {
  if (begins_with(s, a, b) || begins_with(s, b, a))
    return 1;
  const ad_record_t *ra = &s->m->records[a], *rb = &s->m->records[b];
  if (!ra->nfields || !rb->nfields)
    return 0;
  const ad_field_t *fa = &ra->fields[0], *fb = &rb->fields[0];
  return fa->kind == fb->kind && fa->target == fb->target &&
         fa->size == fb->size && fa->align == fb->align &&
         fa->count == fb->count && !fa->bitfield && !fb->bitfield;
}

static void cast_expr(scan_t *s, CXCursor c) {
  CXCursor sub = last_expr_kid(c);
  if (clang_Cursor_isNull(sub))
    return;
  CXType to = clang_getCanonicalType(clang_getCursorType(c));
  CXType from = clang_getCanonicalType(clang_getCursorType(sub));
  int fx = pointee_struct(s, from), tx = pointee_struct(s, to);
  ad_loc_t l = cursor_loc(c);
  if (fx >= 0 && is_integer_kind(to.kind)) {
    block(s, fx, AD_B_IntegerCast, l,
          ad_printf("a '%s *' is cast to the integer type '%s'", rname(s, fx),
                    type_text(clang_getCursorType(c))));
    return;
  }
  if (tx >= 0 && is_integer_kind(from.kind)) {
    CXCursor z = strip(sub);
    if (clang_getCursorKind(z) == CXCursor_IntegerLiteral &&
        strcmp(first_token(s, z), "0") == 0)
      return;
    block(s, tx, AD_B_IntegerCast, l,
          ad_printf("an integer is cast to a '%s *'", rname(s, tx)));
    return;
  }
  if (from.kind != CXType_Pointer || to.kind != CXType_Pointer || fx == tx)
    return;
  CXType fp = clang_getCanonicalType(clang_getPointeeType(from));
  CXType tp = clang_getCanonicalType(clang_getPointeeType(to));
  const char *what = "";
  const char *arr = tx >= 0 ? byte_array_root(s, sub, &what) : NULL;
  if (arr) {
    block(s, tx, AD_B_NonHeapAddress, l,
          ad_printf("memory of %s array '%s' is used as a '%s' object; "
                    "compact objects must be allocated with malloc",
                    what, arr, rname(s, tx)));
    return;
  }
  if (fx >= 0 && tx >= 0 && shares_prefix(s, fx, tx)) {
    /* Fine once both are compact; while one is not, the object is in
     * compact layout for the other's code. */
    block_unless(s, fx, tx, AD_B_IncompatibleCast, l,
                 ad_printf("a '%s *' is cast to '%s', which shares its first "
                           "fields but is not compact",
                           rname(s, fx), type_text(clang_getCursorType(c))));
    block_unless(s, tx, fx, AD_B_IncompatibleCast, l,
                 ad_printf("a '%s' is cast to a '%s *', which shares its first "
                           "fields but is not compact",
                           type_text(clang_getCursorType(sub)), rname(s, tx)));
    return;
  }
  if (fx >= 0 && tp.kind == CXType_Record) {
    block(s, fx, AD_B_IncompatibleCast, l,
          ad_printf("a '%s *' is cast to '%s'", rname(s, fx),
                    type_text(clang_getCursorType(c))));
    if (tx >= 0)
      block(s, tx, AD_B_IncompatibleCast, l,
            ad_printf("a '%s' is cast to a '%s *'", type_text(clang_getCursorType(sub)),
                      rname(s, tx)));
  } else if (tx >= 0 && fp.kind == CXType_Record) {
    block(s, tx, AD_B_IncompatibleCast, l,
          ad_printf("a '%s' is cast to a '%s *'", type_text(clang_getCursorType(sub)),
                    rname(s, tx)));
  } else if (fx >= 0 && !is_byte_pointee(tp)) {
    block(s, fx, AD_B_UnrelatedCast, l,
          ad_printf("a '%s *' is cast to the unrelated pointer type '%s'",
                    rname(s, fx), type_text(clang_getCursorType(c))));
  } else if (tx >= 0 && !is_byte_pointee(fp) && fp.kind != CXType_Pointer) {
    block(s, tx, AD_B_UnrelatedCast, l,
          ad_printf("a pointer of unrelated type '%s' is cast to a '%s *'",
                    type_text(clang_getCursorType(sub)), rname(s, tx)));
  }
}

/* What an offset is made of: an offsetof (told by its MemberRef to the
 * field), a sizeof of a struct (sizeof_struct), a variable. */
typedef struct offset_parts {
  scan_t *s;
  int names_layout, variable;
} offset_parts_t;

static void offset_part(offset_parts_t *p, CXCursor c) {
  enum CXCursorKind k = clang_getCursorKind(c);
  if (k == CXCursor_MemberRef || (k == CXCursor_UnaryExpr && sizeof_struct(p->s, c) >= 0))
    p->names_layout = 1;
  else if (k == CXCursor_DeclRefExpr)
    p->variable = 1;
}

static enum CXChildVisitResult offset_part_cb(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  offset_part(d, c);
  return CXChildVisit_Recurse;
}

/** The parts of offset `c`: it says what it measures (an offsetof, or a
 *  sizeof of a struct, which the plugin gives in each layout), or reads a
 *  variable (its value is the program's own, a `const` one included: C
 *  does not fold it). */
static offset_parts_t offset_parts(scan_t *s, CXCursor c) {
  offset_parts_t p = {s, 0, 0};
  offset_part(&p, c);
  clang_visitChildren(c, offset_part_cb, &p);
  return p;
}

/** True if `c` is an integer constant; its value in *v. */
static int int_constant(CXCursor c, long long *v) {
  CXEvalResult r = clang_Cursor_Evaluate(c);
  if (!r)
    return 0;
  int yes = clang_EvalResult_getKind(r) == CXEval_Int;
  if (yes)
    *v = clang_EvalResult_getAsLongLong(r);
  clang_EvalResult_dispose(r);
  return yes;
}

/** `(char *)p + 16`, `((long *)p)[i]`: arithmetic on a struct pointer
 *  reinterpreted as another pointer type, `off` the other operand.  The
 *  plugin refuses a byte offset written as a number (layout-offset); an
 *  offset measured with offsetof or sizeof is rewritten for each layout,
 *  and one computed at run time is a hazard only advise reports. */
static void check_arith_operand(scan_t *s, CXCursor op, CXCursor off, ad_loc_t l) {
  CXCursor c = op;
  while (clang_getCursorKind(c) == CXCursor_ParenExpr) {
    kids_t k = kids(c);
    if (k.n != 1)
      return;
    c = k.v[0];
  }
  if (clang_getCursorKind(c) != CXCursor_CStyleCastExpr)
    return;
  CXCursor sub = last_expr_kid(c);
  if (clang_Cursor_isNull(sub))
    return;
  CXType to = clang_getCanonicalType(clang_getCursorType(c));
  /* `(char *)(void *)p`: through every cast to a byte pointer. */
  while (to.kind == CXType_Pointer && is_byte_pointee(clang_getPointeeType(to)) &&
         clang_getCursorKind(strip(sub)) == CXCursor_CStyleCastExpr &&
         is_byte_pointee(clang_getPointeeType(
             clang_getCanonicalType(clang_getCursorType(strip(sub)))))) {
    CXCursor inner = last_expr_kid(strip(sub));
    if (clang_Cursor_isNull(inner))
      break;
    sub = inner;
  }
  int fx = pointee_struct(s, clang_getCursorType(sub));
  if (fx < 0 || to.kind != CXType_Pointer || pointee_struct(s, to) == fx)
    return;
  if (is_byte_pointee(clang_getPointeeType(to))) {
    long long v = 0;
    offset_parts_t parts = offset_parts(s, off);
    if (parts.names_layout)
      return;
    if (!parts.variable && int_constant(off, &v)) {
      /* 1 to 3 converted straight to `void *` is a tag in the low bits,
       * as the plugin takes it (crit-bit's leaves). */
      if (v >= 1 && v <= 3 && converted_to_void_pointer(s))
        return;
      if (v != 0)
        block(s, fx, AD_B_LayoutOffset, l,
              ad_printf("a byte offset into a '%s' is written as a number, an "
                        "offset in the wide layout",
                        rname(s, fx)));
    } else {
      block(s, fx, AD_B_CrossTypeArithmetic, l,
            ad_printf("pointer arithmetic on a '%s *' cast to '%s' by an "
                      "offset computed at run time assumes its wide layout",
                      rname(s, fx), type_text(clang_getCursorType(c))));
    }
    return;
  }
  block(s, fx, AD_B_CrossTypeArithmetic, l,
        ad_printf("pointer arithmetic on a '%s *' cast to '%s' assumes its "
                  "wide layout",
                  rname(s, fx), type_text(clang_getCursorType(c))));
}

static CXCursor operand(CXCursor o) {
  if (clang_getCursorKind(o) == CXCursor_UnexposedExpr) {
    kids_t k2 = kids(o);
    if (k2.n == 1)
      return k2.v[0];
  }
  return o;
}


/** `p->slot = where`, where parameter `where` is handed the address of a
 *  pointer field (slot_param_call): stored where the plugin refuses it,
 *  as at the address itself (slot_escape). */
static void slot_param_store(scan_t *s, CXCursor c) {
  if (clang_getCursorKind(c) != CXCursor_BinaryOperator ||
      clang_getCursorBinaryOperatorKind(c) != CXBinaryOperator_Assign ||
      !s->nslots)
    return;
  kids_t ks = kids(c);
  if (ks.n != 2)
    return;
  CXCursor rhs = strip(ks.v[1]), lhs = strip(ks.v[0]);
  if (clang_getCursorKind(rhs) != CXCursor_DeclRefExpr)
    return;
  CXCursor d = clang_getCanonicalCursor(clang_getCursorReferenced(rhs));
  for (size_t i = 0; i < s->nslots; i++) {
    struct slot_param *sp = &s->slots[i];
    if (!clang_equalCursors(sp->param, d))
      continue;
    if ((clang_getCursorKind(lhs) == CXCursor_DeclRefExpr &&
         is_local_var(clang_getCursorReferenced(lhs))) ||
        field_keeps_slot(lhs) || local_array_element(lhs))
      return;
    block(s, sp->rec, AD_B_SlotEscape, cursor_loc(rhs),
          ad_printf("'%s', which is handed the address of pointer field "
                    "'%s' (a '%s *'), is stored into memory other than a "
                    "local variable (or an element of a local array) or a "
                    "field of a struct that holds struct pointers",
                    cxstr(clang_getCursorSpelling(d)), sp->field,
                    rname(s, sp->rec)));
    return;
  }
}

static void arith(scan_t *s, CXCursor c) {
  enum CXCursorKind k = clang_getCursorKind(c);
  slot_param_store(s, c);
  CXType t = clang_getCanonicalType(clang_getCursorType(c));
  if (k == CXCursor_BinaryOperator || k == CXCursor_CompoundAssignOperator) {
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(c);
    int additive = op == CXBinaryOperator_Add || op == CXBinaryOperator_Sub ||
                   op == CXBinaryOperator_AddAssign ||
                   op == CXBinaryOperator_SubAssign;
    if (!additive || t.kind != CXType_Pointer)
      return;
  } else if (k != CXCursor_ArraySubscriptExpr) {
    return;
  }
  kids_t ks = kids(c);
  if (ks.n != 2)
    return;
  for (int i = 0; i < 2; i++)
    check_arith_operand(s, operand(ks.v[i]), operand(ks.v[1 - i]), cursor_loc(c));
}

/** True if the source text where the cursor's expansion starts begins
 *  with `word` (the macro a macro-expanded expression was written as). */
static int source_starts_with(scan_t *s, CXCursor c, const char *word) {
  CXSourceRange r = clang_getCursorExtent(c);
  CXFile f;
  unsigned off;
  clang_getExpansionLocation(clang_getRangeStart(r), &f, NULL, NULL, &off);
  if (!f)
    return 0;
  size_t size = 0;
  const char *buf = clang_getFileContents(s->tu, f, &size);
  size_t n = strlen(word);
  return buf && off + n <= size && strncmp(buf + off, word, n) == 0 &&
         (off + n == size ||
          !(buf[off + n] == '_' || isalnum((unsigned char)buf[off + n])));
}

/** offsetof(struct T, f) inside another macro than offsetof. */
static void offsetof_expr(scan_t *s, CXCursor c) {
  kids_t ks = kids(c);
  if (ks.n < 2 || clang_getCursorKind(ks.v[0]) != CXCursor_TypeRef ||
      clang_getCursorKind(ks.v[1]) != CXCursor_MemberRef)
    return;
  int x = struct_of(s, clang_getCursorType(ks.v[0]));
  if (x < 0)
    return;
  /* offsetof(T, f) written directly is rebuilt by the plugin from the
   * AST, and so is one inside a macro the plugin prints expanded
   * (container_of): in pointer arithmetic it steps by the offset of the
   * layout the object is in.  Only a function a macro defines is
   * refused. */
  if (!source_starts_with(s, c, "offsetof") &&
      !source_starts_with(s, c, "__builtin_offsetof"))
    macro_body(s, c, x, "offsetof");
}

/* ---- the walk ------------------------------------------------------------ */

static enum CXChildVisitResult visit(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  scan_t *s = d;
  if (in_system_header(c))
    return CXChildVisit_Continue;
  enum CXCursorKind k = clang_getCursorKind(c);
  switch (k) {
  case CXCursor_StructDecl:
  case CXCursor_UnionDecl:
    if (clang_isCursorDefinition(c))
      record_def(s, c);
    if (clang_Cursor_isAnonymousRecordDecl(c)) {
      /* A C11 anonymous member: libclang does not visit its implicit
       * field, so the enclosing struct is blocked here. */
      CXCursor up = clang_getCursorSemanticParent(c);
      const char *key = clang_getCursorKind(up) == CXCursor_StructDecl ? record_key(up) : "";
      if (*key) {
        int i = ad_record_index(s->m, key);
        block(s, i, AD_B_UnnamedFieldType, cursor_loc(c),
              ad_printf("anonymous struct or union member in '%s'", s->m->records[i].name));
      }
    }
    break;
  case CXCursor_TypedefDecl:
    typedef_decl(s, c);
    break;
  case CXCursor_CallExpr:
    call_expr(s, c);
    break;
  case CXCursor_UnaryOperator:
    unary_operator(s, c);
    break;
  case CXCursor_DeclRefExpr:
    decl_ref(s, c);
    break;
  case CXCursor_MemberRefExpr:
    member_ref(s, c);
    break;
  case CXCursor_CStyleCastExpr:
    cast_expr(s, c);
    break;
  case CXCursor_BinaryOperator:
  case CXCursor_CompoundAssignOperator:
  case CXCursor_ArraySubscriptExpr:
    arith(s, c);
    break;
  case CXCursor_UnexposedExpr:
  case CXCursor_UnaryExpr:
    /* libclang shows offsetof(T, f) as an unexposed expression whose
     * children are a TypeRef to T and a MemberRef to f. */
    offsetof_expr(s, c);
    break;
  default:
    break;
  }
  frame_t f = {c, s->top};
  s->top = &f;
  clang_visitChildren(c, visit, s);
  s->top = f.up;
  return CXChildVisit_Continue;
}

static int has_arg(int argc, const char *const *argv, const char *a) {
  for (int i = 0; i < argc; i++)
    if (strncmp(argv[i], a, strlen(a)) == 0)
      return 1;
  return 0;
}

/* The directories of the project's own headers (<compactptr.h> and the
 * configuration it includes), as compactptr-cc adds them: <prefix>/include
 * next to an installed executable, else this build's source and binary
 * include directories.  Returns how many of the two it filled. */
static int own_include_dirs(const char *dirs[2]) {
  static char installed[PATH_MAX];
  static int known = -1;
  if (known < 0) {
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    known = 0;
    if (len > 0) {
      exe[len] = 0;
      char *slash = strrchr(exe, '/');
      if (slash) {
        *slash = 0;
        char probe[PATH_MAX];
        snprintf(installed, sizeof installed, "%s/../include", exe);
        snprintf(probe, sizeof probe, "%s/compactptr.h", installed);
        known = access(probe, R_OK) == 0;
      }
    }
  }
  if (known) {
    dirs[0] = installed;
    return 1;
  }
  dirs[0] = COMPACTPTR_SOURCE_INCLUDE_DIR;
  dirs[1] = COMPACTPTR_BINARY_INCLUDE_DIR;
  return 2;
}

int ad_scan_tu(ad_model_t *m, const char *dir, int argc, const char *const *argv) {
  static CXIndex index;
  char old[PATH_MAX];
  if (!index)
    index = clang_createIndex(/*excludeDeclsFromPCH=*/0, /*displayDiagnostics=*/0);
  if (!getcwd(old, sizeof old))
    old[0] = 0;
  if (dir && *dir && chdir(dir) != 0) {
    fprintf(stderr, "compactptr-advise: error: cannot enter directory '%s' "
                    "of a compile command\n", dir);
    return -1;
  }
  /* argv[0] becomes "clang"; add the resource dir so builtin headers
   * (stddef.h) are found from outside LLVM's bin/. */
  const char **args = ad_xrealloc(NULL, (size_t)(argc + 8) * sizeof *args);
  int n = 0;
  args[n++] = "clang";
  for (int i = 1; i < argc; i++)
    args[n++] = argv[i];
  const char *res = getenv("COMPACTPTR_ADVISE_RESOURCE_DIR");
  if (!res || !*res)
    res = COMPACTPTR_CLANG_RESOURCE_DIR;
  if (*res && !has_arg(argc, argv, "-resource-dir")) {
    args[n++] = "-resource-dir";
    args[n++] = res;
  }
  /* After the program's own -I, which are searched first (-idirafter
   * would come after the system directories, where an older installed
   * compactptr.h would win). */
  const char *own[2];
  for (int i = 0, k = own_include_dirs(own); i < k; i++) {
    args[n++] = "-I";
    args[n++] = own[i];
  }
  CXTranslationUnit tu = NULL;
  enum CXErrorCode ec = clang_parseTranslationUnit2FullArgv(
      index, NULL, args, n, NULL, 0,
      CXTranslationUnit_KeepGoing,
      &tu);
  int rc = 0;
  if (ec != CXError_Success || !tu) {
    fprintf(stderr, "compactptr-advise: error: libclang could not parse the "
                    "command:");
    for (int i = 0; i < n; i++)
      fprintf(stderr, " %s", args[i]);
    fprintf(stderr, " (error %d)\n", (int)ec);
    rc = -1;
  } else {
    unsigned nd = clang_getNumDiagnostics(tu), errors = 0;
    for (unsigned i = 0; i < nd; i++) {
      CXDiagnostic dg = clang_getDiagnostic(tu, i);
      enum CXDiagnosticSeverity sev = clang_getDiagnosticSeverity(dg);
      if (sev >= CXDiagnostic_Error) {
        CXString t = clang_formatDiagnostic(dg, clang_defaultDiagnosticDisplayOptions());
        fprintf(stderr, "%s\n", clang_getCString(t));
        clang_disposeString(t);
        errors++;
      }
      clang_disposeDiagnostic(dg);
    }
    if (errors) {
      CXString sp = clang_getTranslationUnitSpelling(tu);
      fprintf(stderr, "compactptr-advise: error: %s does not compile (%u "
                      "error%s); fix it or its flags first\n",
              clang_getCString(sp), errors, errors == 1 ? "" : "s");
      clang_disposeString(sp);
      rc = -1;
    } else {
      scan_t s = {m, tu, NULL, {NULL, 0, 0}, {NULL, 0, 0}, NULL, 0, 0,
                  NULL, 0, 0};
      clang_visitChildren(clang_getTranslationUnitCursor(tu), taken_cb, &s);
      clang_visitChildren(clang_getTranslationUnitCursor(tu), pool_setup_cb, &s);
      clang_visitChildren(clang_getTranslationUnitCursor(tu), visit, &s);
      free(s.taken.v);
      free(s.refused.v);
      free(s.pools);
      free(s.slots);
    }
    clang_disposeTranslationUnit(tu);
  }
  free(args);
  if (dir && *dir && old[0] && chdir(old) != 0)
    rc = -1;
  return rc;
}
