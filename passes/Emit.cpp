//===- Emit.cpp - place generated code and apply the edits ----------------===//
//
// In:  the Model, the compact layouts and the edits collected by Rewrite.
// Out: one RewrittenFile per file that changes: the main file always (it
//      receives the descriptors), every header with an edit.
//
// Placement keeps every user line at its line number:
//   - a preamble at the top of each rewritten file (runtime header, the
//     two rewrite helpers) ends with `#line 1 "<file>"`;
//   - `struct cp__c_T {...}`, the forward declaration of the descriptor and
//     the converters are appended to the line that ends the struct's
//     declaration, without a newline;
//   - descriptors, their section registration and CP_DEFINE_MODULE() go at
//     the end of the main file.
// Edits to a header included more than once are merged (identical edits
// collapse; conflicting ones are an error) and applied by the edit layer
// (Edits.h).
// Tests: test/rewrite/line-numbers.c, test/rewrite/header-types.c,
//      test/plugin/debug-lines.c.
//
//===----------------------------------------------------------------------===//
#include "Engine.h"
#include "clang/Basic/FileEntry.h"
#include "clang/Lex/Lexer.h"
#include <set>

using namespace clang;

namespace compactptr {
namespace {

/// Offset just after the `;` that ends the declaration whose struct body
/// closes at RBraceOff, or ~0u.
unsigned endOfDeclaration(StringRef Buf, unsigned RBraceOff) {
  int Depth = 0;
  for (size_t I = RBraceOff + 1; I < Buf.size(); ++I) {
    char C = Buf[I];
    if (C == '/' && I + 1 < Buf.size() && Buf[I + 1] == '*') {
      size_t E = Buf.find("*/", I + 2);
      if (E == StringRef::npos)
        return ~0u;
      I = E + 1;
      continue;
    }
    if (C == '/' && I + 1 < Buf.size() && Buf[I + 1] == '/') {
      size_t E = Buf.find('\n', I);
      if (E == StringRef::npos)
        return ~0u;
      I = E;
      continue;
    }
    if (C == '"' || C == '\'') {
      for (++I; I < Buf.size() && Buf[I] != C; ++I)
        if (Buf[I] == '\\')
          ++I;
      continue;
    }
    if (C == '(' || C == '[' || C == '{')
      ++Depth;
    else if (C == ')' || C == ']' || C == '}')
      --Depth;
    else if (C == ';' && Depth == 0)
      return I + 1;
  }
  return ~0u;
}

const char *Preamble =
    "#ifndef COMPACTPTR_RUNTIME\n"
    "#define COMPACTPTR_RUNTIME 1\n"
    "#endif\n"
    "#define CP__PREAMBLE 1\n"
    "#include <compactptr.h>\n"
    "#undef CP__PREAMBLE\n"
    "#ifndef CP__REWRITE_HELPERS\n"
    "#define CP__REWRITE_HELPERS 1\n"
    "/* Generated code keeps its warnings to itself (the plugin's compile,\n"
    "   CP__WARNINGS_IGNORED, reports none of its own at all). */\n"
    "#ifdef CP__WARNINGS_IGNORED\n"
    "#define CP__QUIET_BEGIN\n"
    "#define CP__QUIET_END\n"
    "#else\n"
    "#define CP__QUIET_BEGIN _Pragma(\"clang diagnostic push\") _Pragma(\"clang diagnostic ignored \\\"-Weverything\\\"\")\n"
    "#define CP__QUIET_END _Pragma(\"clang diagnostic pop\")\n"
    "#endif\n"
    "/* Store a compact pointer into a handle slot; yields the pointer. */\n"
    "static __inline__ __attribute__((unused)) void *cp__sth(cp_handle_t *cp__s, const void *cp__v) {\n"
    "  void *cp__r;\n"
    "  *cp__s = cp_encode(cp__v);\n"
    "  __builtin_memcpy(&cp__r, &cp__v, sizeof cp__r); /* no cast drops const */\n"
    "  return cp__r;\n"
    "}\n"
    "/* The same for a value the plugin knows is null, a compact allocation\n"
    "   or a handle just decoded (passes/Provenance.cpp): in the arena and\n"
    "   granule-aligned, so no range check. */\n"
    "static __inline__ __attribute__((unused)) void *cp__sth_known(cp_handle_t *cp__s, const void *cp__v) {\n"
    "  void *cp__r;\n"
    "#ifdef COMPACTPTR_CHECKED_DECODE\n"
    "  if (__builtin_expect(cp__debug, 0))\n"
    "    *cp__s = cp_encode_checked(cp__v);\n"
    "  else\n"
    "#endif\n"
    "    *cp__s = (cp_handle_t)((__UINTPTR_TYPE__)cp__v >> CP_GRANULE_SHIFT);\n"
    "  __builtin_memcpy(&cp__r, &cp__v, sizeof cp__r);\n"
    "  return cp__r;\n"
    "}\n"
    "/* Move the pointer in *slot by `bytes`; yields the old (post) or new "
    "value. */\n"
    "static __inline__ __attribute__((unused)) void *cp__padd(void *cp__slot, long cp__bytes, int cp__post) {\n"
    "  char *cp__o, *cp__n;\n"
    "  __builtin_memcpy(&cp__o, cp__slot, sizeof cp__o);\n"
    "  cp__n = cp__o + cp__bytes;\n"
    "  __builtin_memcpy(cp__slot, &cp__n, sizeof cp__n);\n"
    "  return cp__post ? cp__o : cp__n;\n"
    "}\n"
    "/* The same for a handle slot: decode, move, encode. */\n"
    "static __inline__ __attribute__((unused)) void *cp__hadd(cp_handle_t *cp__s, long cp__bytes, int cp__post) {\n"
    "  char *cp__o = (char *)cp_decode(*cp__s), *cp__n = cp__o + cp__bytes;\n"
    "  *cp__s = cp_encode(cp__n);\n"
    "  return cp__post ? cp__o : cp__n;\n"
    "}\n"
    "/* A slot that holds a compact pointer is a handle field of a heap object\n"
    "   (inside the compact arena: 4 bytes) or a native slot (8 bytes). */\n"
    "static __inline__ __attribute__((unused)) int cp__in_arena(const void *cp__s) {\n"
    "  return (__UINTPTR_TYPE__)cp__s - cp__debug_arena_start <\n"
    "         cp__debug_arena_end - cp__debug_arena_start;\n"
    "}\n"
    "/* The address of a handle field, which lies in the arena unless the\n"
    "   object is foreign (a hook's, another file's wrapper's): tested as\n"
    "   cp_encode tests a pointer, against the reach, a constant, so no\n"
    "   load joins a walk through `pp = &(*pp)->next`. */\n"
    "static __inline__ __attribute__((unused)) void *cp__handle_slot(void *cp__s, const cp_type_desc_t *cp__d) {\n"
    "  if (__builtin_expect((__UINTPTR_TYPE__)cp__s >= CP_ARENA_REACH, 0))\n"
    "    cp__foreign_slot(cp__s, cp__d);\n"
    "  return cp__s;\n"
    "}\n"
    "/* An offset kept at run time that code steps by, measured to a member\n"
    "   in the layout of its moment: compact before the switch, either after\n"
    "   it.  The member's offset in the layout of this moment, once the kept\n"
    "   one is found to be the member's (cp__wide_at is -1 in compact-only\n"
    "   code, which has one layout). */\n"
    "static __inline__ __attribute__((unused)) long cp__measured_offset(long cp__kept, long cp__compact, long cp__wide_at, const cp_type_desc_t *cp__d, const char *cp__m) {\n"
    "  int cp__now_wide = cp__wide_at >= 0 && cp__wide;\n"
    "  if (__builtin_expect(cp__kept != cp__compact && (!cp__now_wide || cp__kept != cp__wide_at), 0))\n"
    "    cp__offset_mismatch(cp__kept, cp__compact, cp__wide_at, cp__d, cp__m);\n"
    "  return cp__now_wide ? cp__wide_at : cp__compact;\n"
    "}\n"
    "/* The offset of the moment of the member, among n (cp__at: compact and\n"
    "   wide offsets in pairs), whose offset the kept one is: -1 if none, -2\n"
    "   if two of them would read it differently. */\n"
    "static __inline__ __attribute__((unused)) long cp__kept_member(long cp__kept, int cp__n, const long *cp__at) {\n"
    "  long cp__now = -1;\n"
    "  for (int cp__i = 0; cp__i < cp__n; cp__i++) {\n"
    "    long cp__c = cp__at[2 * cp__i], cp__w = cp__at[2 * cp__i + 1];\n"
    "    int cp__now_wide = cp__w >= 0 && cp__wide;\n"
    "    if (cp__kept != cp__c && (!cp__now_wide || cp__kept != cp__w))\n"
    "      continue;\n"
    "    if (cp__now >= 0 && cp__now != (cp__now_wide ? cp__w : cp__c))\n"
    "      return -2;\n"
    "    cp__now = cp__now_wide ? cp__w : cp__c;\n"
    "  }\n"
    "  return cp__now;\n"
    "}\n"
    "/* A step by an offset measured to one of n members (a table per type):\n"
    "   cp__ds their types, cp__ms their names, cp__p where the step starts\n"
    "   (or NULL); none, or two that read it differently, go to the runtime. */\n"
    "static __inline__ __attribute__((unused)) long cp__measured_offset_of(long cp__kept, const void *cp__p, int cp__n, const long *cp__at, cp_type_desc_t *const *cp__ds, const char *cp__ms) {\n"
    "  long cp__now = cp__kept_member(cp__kept, cp__n, cp__at);\n"
    "  if (__builtin_expect(cp__now < 0, 0))\n"
    "    return cp__measured_offset_slow(cp__kept, cp__p, cp__n, cp__at, cp__ds, cp__ms);\n"
    "  return cp__now;\n"
    "}\n"
    "/* A read of such an offset that is no step: the member's offset of the\n"
    "   moment where the value is one member's, else the value itself. */\n"
    "static __inline__ __attribute__((unused)) long cp__kept_offset_now(long cp__kept, int cp__n, const long *cp__at) {\n"
    "  long cp__now = cp__kept_member(cp__kept, cp__n, cp__at);\n"
    "  return cp__now < 0 ? cp__kept : cp__now;\n"
    "}\n"
    "/* Load and store through a pointer that may point at a handle slot. */\n"
    "static __inline__ __attribute__((unused)) void *cp__slot_load(const void *cp__s) {\n"
    "  void *cp__v;\n"
    "  if (cp__in_arena(cp__s))\n"
    "    return cp_decode(*(const cp_handle_t *)cp__s);\n"
    "  __builtin_memcpy(&cp__v, cp__s, sizeof cp__v);\n"
    "  return cp__v;\n"
    "}\n"
    "static __inline__ __attribute__((unused)) void *cp__slot_store(void *cp__s, const void *cp__v) {\n"
    "  if (cp__in_arena(cp__s))\n"
    "    *(cp_handle_t *)cp__s = cp_encode(cp__v);\n"
    "  else\n"
    "    __builtin_memcpy(cp__s, &cp__v, sizeof cp__v);\n"
    "  return (void *)cp__v;\n"
    "}\n"
    "/* Frees a local that lives in the compact heap when its block ends. */\n"
    "static __inline__ __attribute__((unused)) void cp__box_free(void *cp__p) {\n"
    "  void *cp__o;\n"
    "  __builtin_memcpy(&cp__o, cp__p, sizeof cp__o);\n"
    "  cp_free(cp__o);\n"
    "}\n"
    "/* Fill root descriptor d of a shadow-stack frame; yields 0 (an\n"
    "   initializer, so frames are declarations: C89 allows no statement\n"
    "   before a declaration, nor non-constant aggregate initializers). */\n"
    "static __inline__ __attribute__((unused)) int cp__root(cp_root_desc_t *cp__d, void *cp__a, __UINT32_TYPE__ cp__k,\n"
    "                     __UINT32_TYPE__ cp__n, cp_type_desc_t *cp__t, const char *cp__nm) {\n"
    "  cp__d->addr = cp__a;\n"
    "  cp__d->kind = cp__k;\n"
    "  cp__d->count = cp__n;\n"
    "  cp__d->type = cp__t;\n"
    "  cp__d->name = cp__nm;\n"
    "  return 0;\n"
    "}\n"
    "/* Push frame f over its n roots; yields 0. */\n"
    "static __inline__ __attribute__((unused)) int cp__frame(cp_frame_t *cp__f, __UINT32_TYPE__ cp__n, const cp_root_desc_t *cp__r) {\n"
    "  cp__f->count = cp__n;\n"
    "  cp__f->roots = cp__r;\n"
    "  cp_frame_push(cp__f);\n"
    "  return 0;\n"
    "}\n"
    "/* Pop a frame of slots (the cleanup of the struct that begins with it). */\n"
    "static __inline__ __attribute__((unused)) void cp__frame_pop_slots(void *cp__f) {\n"
    "  cp_frame_pop((cp_frame_t *)cp__f);\n"
    "}\n"
    "/* The slow path of an allocation (w 0: of one object of type d, 1: of an\n"
    "   array of n) or of a poll (w 2) in checked code without a frame of\n"
    "   slots: the live compact-pointer locals, copied into s[0..k), are roots\n"
    "   (pointee types t, names nm) while the runtime may switch.  Out of\n"
    "   line and cold, so the fast path stays small enough to inline. */\n"
    "#define CP__SAVED_MAX 16\n"
    "static __attribute__((noinline, cold, unused)) void *cp__saved_slow(int cp__w, cp_type_desc_t *cp__d, unsigned long cp__n, void **cp__s,\n"
    "                     __UINT32_TYPE__ cp__k, cp_type_desc_t *const *cp__t, const char *const *cp__nm) {\n"
    "  cp_root_desc_t cp__r[CP__SAVED_MAX];\n"
    "  cp_frame_t cp__f;\n"
    "  void *cp__p = 0;\n"
    "  __UINT32_TYPE__ cp__i;\n"
    "  for (cp__i = 0; cp__i < cp__k; cp__i++)\n"
    "    cp__root(&cp__r[cp__i], (void *)&cp__s[cp__i], CP_ROOT_POINTER, 1, cp__t[cp__i], cp__nm[cp__i]);\n"
    "  cp__frame(&cp__f, cp__k, cp__r);\n"
    "  if (cp__w == 0)\n"
    "    cp__p = cp__alloc_slow(cp__d);\n"
    "  else if (cp__w == 1)\n"
    "    cp__p = cp__alloc_array_slow(cp__d, cp__n);\n"
    "  else\n"
    "    cp_safepoint_slow();\n"
    "  cp_frame_pop(&cp__f);\n"
    "  return cp__p;\n"
    "}\n"
    "#endif\n";

/// Root descriptors for this TU's global and file-static variables, and
/// (switchable) the table of its thread-local ones: a function per
/// variable returns the calling thread's copy, and a constructor registers
/// the table, so every thread registers its copies when the runtime first
/// knows it (the switch translates them like any registered root).
std::string rootsText(Session &S) {
  std::string Out, Tls, Getters;
  unsigned NTls = 0;
  std::set<const VarDecl *> Seen;
  for (const Decl *D : S.Ctx.getTranslationUnitDecl()->decls()) {
    const auto *VD = dyn_cast<VarDecl>(D);
    if (!VD || S.isIgnoredLoc(VD->getLocation()) ||
        VD->isThisDeclarationADefinition() == VarDecl::DeclarationOnly)
      continue;
    if (!Seen.insert(VD->getCanonicalDecl()).second)
      continue;
    Out += rootDescText(S, VD, "\n");
    RootShape R = rootShape(S.M, VD->getType());
    if (!S.Opts.switchable() || VD->getTLSKind() == VarDecl::TLS_None || !R.Kind ||
        !VD->getIdentifier())
      continue;
    std::string N = VD->getName().str();
    Getters += "static void *cp__tls_" + N + "(void) { return (void *)&" + N + "; }\n";
    Tls += "{cp__tls_" + N + ", " + R.Kind + ", " + std::to_string(R.Count) + ", &" +
           R.T->DescName + ", \"" + N + "\"}, ";
    ++NTls;
  }
  if (NTls)
    Out += Getters + "static const cp_tls_root_t cp__tls_roots[] = {" + Tls +
           "};\n__attribute__((constructor)) static void cp__tls_roots_init(void) { "
           "cp_tls_roots_register(cp__tls_roots, " + std::to_string(NTls) + "); }\n";
  return Out;
}

} // namespace

std::string rootDescText(const Session &S, const clang::VarDecl *VD,
                         llvm::StringRef Sep) {
  if (!VD->hasGlobalStorage() || !VD->getIdentifier() ||
      VD->getTLSKind() != VarDecl::TLS_None)
    return "";
  std::string N = VD->getName().str();
  if (auto B = S.M.Boxed.find(VD->getCanonicalDecl()); B != S.M.Boxed.end()) {
    // In the compact heap: its pointer is the root.
    const std::string &P = B->second.Ptr;
    return "static const cp_root_desc_t cp__root_" + N + " = {(void *)&" + P +
           ", CP_ROOT_POINTER, 1, &" + B->second.T->DescName + ", \"" + N +
           "\"};" + Sep.str() + "CP_REGISTER_ROOT(cp__root_" + N + ");" + Sep.str();
  }
  RootShape R = rootShape(S.M, VD->getType());
  if (!R.Kind)
    return "";
  return "static const cp_root_desc_t cp__root_" + N + " = {(void *)&" + N +
         ", " + R.Kind + ", " + std::to_string(R.Count) + ", &" + R.T->DescName +
         ", \"" + N + "\"};" + Sep.str() + "CP_REGISTER_ROOT(cp__root_" + N +
         ");" + Sep.str();
}

void runEmit(Session &S, std::vector<RewrittenFile> &Out) {
  SourceManager &SM = S.SM;
  // Generated declarations after each compact struct, in the order the
  // structs are completed (their closing braces): a struct defined inside
  // another is complete first, and the enclosing struct's compact layout
  // and converters use its own, inserted at the same place.
  std::vector<const CompactType *> ByEnd;
  for (const auto &T : S.M.Types)
    ByEnd.push_back(T.get());
  for (const auto &T : S.M.Pinned)
    ByEnd.push_back(T.get());
  std::stable_sort(ByEnd.begin(), ByEnd.end(),
                   [&](const CompactType *A, const CompactType *B) {
                     return SM.isBeforeInTranslationUnit(
                         SM.getExpansionLoc(A->RD->getBraceRange().getEnd()),
                         SM.getExpansionLoc(B->RD->getBraceRange().getEnd()));
                   });
  for (const CompactType *T : ByEnd) {
    // A struct defined inside another (C gives it file scope): after the
    // outermost one, where C code may next declare things.
    const RecordDecl *Outer = T->RD;
    while (const auto *P = dyn_cast<RecordDecl>(Outer->getLexicalDeclContext()))
      Outer = P;
    // A struct a macro defines ends with the macro (Safety.cpp): scan from
    // the expansion's last token.
    SourceLocation RB = Outer->getBraceRange().getEnd();
    auto [FID, Off] = SM.getDecomposedLoc(SM.getExpansionRange(RB).getEnd());
    bool Semi = false;
    // A macro that ends with the declaration's `;`: right after the
    // expansion's last token.
    unsigned At = RB.isMacroID() && structEndsExpansion(SM, S.LO, RB, Semi) && Semi
                      ? SM.getFileOffset(Lexer::getLocForEndOfToken(
                            SM.getExpansionRange(RB).getEnd(), 0, SM, S.LO))
                      : endOfDeclaration(SM.getBufferData(FID), Off);
    if (At == ~0u) {
      S.report(Diag::MacroBody, T->RD->getLocation(), "cannot find the end of the declaration of "
                                    "compact type '" + T->WideSpelling + "'");
      return;
    }
    S.Edits.insert(FID, At,
                   T->Sync.empty()
                       ? " " + compactDeclText(S, *T)
                       : " static cp_type_desc_t " + T->DescName + ";");
  }

  // Group edits by file entry (a header included twice has two FileIDs):
  // the second inclusion's edits repeat the first one's.
  FileID Main = SM.getMainFileID();
  EditSet Merged;
  std::vector<FileID> Files;
  std::map<const FileEntry *, FileID> First;
  auto firstOf = [&](FileID FID) {
    OptionalFileEntryRef FE = SM.getFileEntryRefForID(FID);
    const FileEntry *Key = FE ? &FE->getFileEntry() : nullptr;
    auto [It, New] = First.insert({Key, FID});
    if (New)
      Files.push_back(FID);
    return It->second;
  };
  firstOf(Main);
  for (const auto &[FID, Edits] : S.Edits.files()) {
    FileID To = firstOf(FID);
    for (const Edit &E : Edits) {
      if (To == FID) // identical insertions in one inclusion all count
        Merged.replace(To, E.Offset, E.end(), E.Text);
      else
        Merged.addUnique(To, E);
    }
  }

  for (FileID FID : Files) {
    RewrittenFile R;
    R.FID = FID;
    R.FE = SM.getFileEntryRefForID(FID);
    R.IsMain = FID == Main;
    PresumedLoc PL = SM.getPresumedLoc(SM.getLocForStartOfFile(FID), false);
    R.Name = PL.isValid() ? PL.getFilename() : (R.FE ? R.FE->getName().str() : "");
    Rendered Body = Merged.render(SM, FID);
    if (!Body.Ok) {
      S.report(Diag::Internal, SM.getLocForStartOfFile(FID).getLocWithOffset(Body.ConflictOffset),
              "conflicting rewrites of the same code (a header included "
              "in different contexts?)");
      return;
    }
    std::string Text = Preamble + lineDirective(1, R.Name);
    R.PreambleSize = Text.size();
    R.Applied = std::move(Body.Applied);
    Text += Body.Text;
    if (R.IsMain) {
      if (!Text.empty() && Text.back() != '\n')
        Text += '\n';
      Text += "/* compactptr: type descriptors (mode " +
              std::string(Options::modeName(S.Opts.TheMode)) + ") */\n";
      for (const auto &T : S.M.Types)
        Text += descriptorText(S, *T);
      for (const auto &T : S.M.Pinned)
        Text += pinnedDescriptorText(S, *T);
      Text += rootsText(S);
      Text += "CP_DEFINE_MODULE();\n";
      if (S.Opts.switchable())
        Text += "CP_DEFINE_SWITCHABLE_CODE();\n";
    }
    R.Text = std::move(Text);
    Out.push_back(std::move(R));
  }
}

} // namespace compactptr
