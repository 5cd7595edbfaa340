//===- Dual.cpp - the dual form: wide body behind a dispatch, compact clone ==//
//
// In:  a function the Planner gave the dual form (switchable mode; it
//      depends on a layout and reaches no safepoint).
// Out: the original symbol keeps the wide body (allocation rewritten)
//      behind `if (cp_is_compact()) { ++cp__compact_depth; r = f__cp(...);
//      --cp__compact_depth; return r; }`; the compact clone `f__cp`, printed
//      by the printer whose calls to dual functions go to their compact
//      bodies, follows the function right after its closing brace, behind
//      #line, so its lines are the user's and it sees the macros the
//      function saw (a clone at the end of the file would see later
//      #define/#undef and compute something else); a #line after it gives
//      the rest of the file its own lines back.  Its warnings are silenced
//      (the wide body reports them) and its comments blanked (the wide
//      body carries them, -verify directives too); `__func__` and its kin
//      name the user's function there too.  Compact bodies of dual
//      functions defined further down are declared in front of the clone
//      that calls them.
// Tests: test/switchable/dual-dispatch.c, test/switchable/defer-under-compact.c.
//
//===----------------------------------------------------------------------===//
#include "Walker.h"
#include "clang/AST/PrettyPrinter.h"
#include "llvm/Support/raw_ostream.h"
#include <set>

using namespace clang;

namespace compactptr {

/// `f__cp`'s own declaration, as C spells FD's type.
static std::string clonePrototype(const Session &S, const FunctionDecl *FD) {
  std::string Proto;
  llvm::raw_string_ostream OS(Proto);
  FD->getType().print(OS, S.policy(), FD->getName().str() + "__cp");
  return OS.str();
}

/// Declarations of the compact bodies that FD's clone calls and that are
/// defined after FD (their own declarations come with their definitions).
static std::string laterCalleePrototypes(const Session &S, const FunctionDecl *FD,
                                         const Stmt *Body, const Printer &Clone) {
  std::set<const FunctionDecl *> Seen;
  std::string Out;
  auto visit = [&](auto &&Self, const Stmt *St) -> void {
    if (!St)
      return;
    if (const auto *CE = dyn_cast<CallExpr>(St); CE && Clone.dualCallee(CE)) {
      const FunctionDecl *G = CE->getDirectCallee()->getDefinition();
      if (G && G != FD && Seen.insert(G).second &&
          S.SM.isBeforeInTranslationUnit(FD->getLocation(), G->getLocation()))
        Out += "static __attribute__((unused)) " + clonePrototype(S, G) + ";\n";
    }
    for (const Stmt *C : St->children())
      Self(Self, C);
  };
  visit(visit, Body);
  return Out;
}

/// `__func__`, `__FUNCTION__` and `__PRETTY_FUNCTION__` in the clone name
/// the user's function, not `f__cp` (a message, an assert's report): each
/// is a macro of FD's own names around the clone (the two directive runs
/// that open and close it; push_macro keeps a program's own definition).
static std::pair<std::string, std::string> functionNames(const FunctionDecl *FD) {
  auto Literal = [](StringRef V) {
    std::string L = "\"";
    for (char C : V) {
      if (C == '"' || C == '\\')
        L += '\\';
      L += C;
    }
    return L + "\"";
  };
  std::string Name = FD->getName().str();
  std::pair<const char *, std::string> Names[] = {
      {"__func__", Literal(Name)},
      {"__FUNCTION__", Literal(Name)},
      {"__PRETTY_FUNCTION__",
       Literal(PredefinedExpr::ComputeName(PredefinedIdentKind::PrettyFunction, FD))}};
  std::string In, Out;
  for (const auto &[Id, Value] : Names) {
    In += "#pragma push_macro(\"" + std::string(Id) + "\")\n#undef " + Id +
          "\n#define " + Id + " " + Value + "\n";
    Out += "#undef " + std::string(Id) + "\n#pragma pop_macro(\"" + Id + "\")\n";
  }
  return {In, Out};
}

void rewriteDual(Session &S, const FunctionDecl *FD, Printer &Wide,
                 Printer &CompactClone, bool Closed) {
  const SourceManager &SM = S.SM;
  const auto *CS = cast<CompoundStmt>(FD->getBody());
  FileID FID = SM.getFileID(FD->getLocation());
  unsigned FnBegin = SM.getFileOffset(FD->getBeginLoc());
  unsigned NameOff = SM.getFileOffset(FD->getLocation());
  unsigned LB = SM.getFileOffset(CS->getLBracLoc());
  unsigned End = SM.getFileOffset(CS->getRBracLoc()) + 1;
  std::string Name = FD->getName().str(), CName = Name + "__cp";

  std::string Proto = clonePrototype(S, FD);
  std::string Args;
  for (const ParmVarDecl *Pm : FD->parameters())
    Args += (Args.empty() ? "" : ", ") + Pm->getName().str();
  std::string Call = CName + "(" + Args + ")";
  // A closed function reaches no safepoint, even through what it calls:
  // its compact body needs no depth count.
  std::string Dispatch =
      Closed ? (FD->getReturnType()->isVoidType()
                    ? " if (cp_is_compact()) { " + Call + "; return; }"
                    : " if (cp_is_compact()) return " + Call + ";")
      : FD->getReturnType()->isVoidType()
          ? " if (cp_is_compact()) { ++cp__compact_depth; " + Call +
                "; --cp__compact_depth; return; }"
          : " if (cp_is_compact()) { __typeof__(" + Call + ") cp__r; "
            "++cp__compact_depth; cp__r = " + Call +
                "; --cp__compact_depth; return cp__r; }";
  // Inserted before the walks: they precede body edits at the same offset.
  // The compact body is declared before f's first declaration, so checked
  // code that calls it directly (a closed f) may come before f's definition.
  unsigned DeclAt = FnBegin;
  const Decl *At = FD;
  SourceLocation First = SM.getExpansionLoc(FD->getFirstDecl()->getBeginLoc());
  // (Not a declaration in a block: `static` is no storage class there.)
  if (First.isFileID() && SM.getFileID(First) == FID &&
      FD->getFirstDecl()->getLexicalDeclContext()->isFileContext()) {
    DeclAt = SM.getFileOffset(First);
    At = FD->getFirstDecl();
  }
  S.Edits.insert(FID, beforeAttributes(SM, At, FID, DeclAt),
                 "static __attribute__((unused)) " + Proto + "; ");
  // C89 allows no statement before a declaration: a body that opens with
  // declarations becomes a block of its own after the dispatch.
  bool Wrap = !CS->body_empty() && isa<DeclStmt>(CS->body_front());
  S.Edits.insert(FID, LB + 1, Dispatch + (Wrap ? " {" : ""));
  if (Wrap)
    S.Edits.insert(FID, End - 1, "} ");

  // The wide body: the original code with allocation rewritten.
  Walker(S, Wide, S.Edits).run(CS);

  // The compact body, rewritten into its own edit set.
  unsigned Before = S.Errors;
  EditSet Mine;
  Walker(S, CompactClone, Mine).run(CS);
  if (S.Errors != Before)
    return;
  if (Mine.outside(FID, FnBegin, End)) {
    S.report(Diag::Internal, FD->getLocation(), "cannot build the compact body of '" + Name +
                                   "': an edit falls outside it");
    return;
  }
  Mine.replace(FID, NameOff, NameOff + FD->getName().size(), CName);
  StringRef Buf = SM.getBufferData(FID);
  Rendered Body = Mine.render(FID, Buf, FnBegin, End);
  if (!Body.Ok) {
    S.report(Diag::Internal, FD->getLocation(), "cannot build the compact body of '" + Name +
                                   "': overlapping rewrites");
    return;
  }
  std::string Text = "__attribute__((unused)) ";
  if (FD->getStorageClass() == SC_None)
    Text += "static ";
  Text += withoutComments(S, FID, Body.Text);
  PresumedLoc PL = SM.getPresumedLoc(FD->getBeginLoc(), false);
  PresumedLoc PE = SM.getPresumedLoc(CS->getRBracLoc(), false);
  if (PL.isInvalid() || PE.isInvalid()) {
    S.report(Diag::Internal, FD->getLocation(),
             "cannot place the compact body of '" + Name + "': no line for it");
    return;
  }
  auto [NamesIn, NamesOut] = functionNames(FD);
  S.Edits.insert(FID, End,
                 "\n/* compactptr: compact body of " + Name +
                     " (its warnings are reported once, on the wide body) */\n" +
                     QuietBegin + "\n" +
                     laterCalleePrototypes(S, FD, CS, CompactClone) + NamesIn +
                     lineDirective(PL.getLine(), PL.getFilename()) + Text +
                     "\n" + NamesOut + QuietEnd + "\n" +
                     lineDirective(PE.getLine(), PE.getFilename()));
}

} // namespace compactptr
