//===- Dual.cpp - the dual form: wide body behind a dispatch, compact clone ==//
//
// In:  a function the Planner gave the dual form (switchable mode; it
//      depends on a layout and reaches no safepoint).
// Out: the original symbol keeps the wide body (allocation rewritten)
//      behind `if (cp_is_compact()) { ++cp__compact_depth; r = f__cp(...);
//      --cp__compact_depth; return r; }`; the compact clone `f__cp`, printed
//      by the printer whose calls to dual functions go to their compact
//      bodies, goes to the end of the file behind #line, so its lines are
//      the user's; its warnings are silenced (the wide body reports them).
// Tests: test/switchable/dual-dispatch.c, test/switchable/defer-under-compact.c.
//
//===----------------------------------------------------------------------===//
#include "Walker.h"
#include "clang/AST/PrettyPrinter.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;

namespace compactptr {

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

  PrintingPolicy P(S.LO);
  P.SuppressTagKeyword = false;
  P.Bool = false;
  std::string Proto;
  {
    llvm::raw_string_ostream OS(Proto);
    FD->getType().print(OS, P, CName);
  }
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
          : " if (cp_is_compact()) { ++cp__compact_depth; __typeof__(" + Call +
                ") cp__r = " + Call + "; --cp__compact_depth; return cp__r; }";
  // Inserted before the walks: they precede body edits at the same offset.
  // The compact body is declared before f's first declaration, so checked
  // code that calls it directly (a closed f) may come before f's definition.
  unsigned DeclAt = FnBegin;
  SourceLocation First = SM.getExpansionLoc(FD->getFirstDecl()->getBeginLoc());
  if (First.isFileID() && SM.getFileID(First) == FID)
    DeclAt = SM.getFileOffset(First);
  S.Edits.insert(FID, DeclAt, "static __attribute__((unused)) " + Proto + "; ");
  S.Edits.insert(FID, LB + 1, Dispatch);

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
  Text += Body.Text;
  PresumedLoc PL = SM.getPresumedLoc(FD->getBeginLoc(), false);
  std::string Where = PL.isValid() ? lineDirective(PL.getLine(), PL.getFilename()) : "";
  S.Edits.insert(FID, Buf.size(),
                 "\n/* compactptr: compact body of " + Name +
                     " (its warnings are reported once, on the wide body) */\n"
                     "#pragma clang diagnostic push\n"
                     "#pragma clang diagnostic ignored \"-Weverything\"\n" +
                     Where + Text + "\n#pragma clang diagnostic pop\n");
}

} // namespace compactptr
