//===- SignalHandlers.cpp - signal handlers leave native regions ---------===//
//
// In:  every function of the translation unit (switchable mode).
// Out: at the start of each function that looks like a signal handler --
//      of type `void (int)` or `void (int, siginfo_t *, void *)`, whose
//      address the program takes (`signal(SIGALRM, on_tick)`,
//      `sa.sa_handler = on_tick`, an initializer) -- a declaration that
//      calls cp__signal_enter(), and cp__signal_leave() when the handler
//      returns (a cleanup).
//
// Why: a signal lands on any thread that does not hold it.  On a thread
//      blocked inside a native region (the plugin makes one of every
//      blocking libc call), the switch may be moving the heap while the
//      handler runs, and a handler that walks a list would see it half
//      moved.  cp__signal_enter takes the thread out of the region first
//      (waiting while a switch runs), so a switch waits for the handler;
//      threads that take part in the switch hold signals meanwhile
//      (runtime/safepoint.c).  Matching by type is wide on purpose: a
//      `void (int)` callback that is no handler pays two calls that do
//      nothing.
// Tests: test/threads/signal-in-native-region.c.
//
//===----------------------------------------------------------------------===//
#include "Engine.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

namespace compactptr {

namespace {

/// `void (int)` or `void (int, T *, U *)`.
bool handlerType(const FunctionDecl *FD) {
  if (!FD->getReturnType()->isVoidType() || FD->getNumParams() < 1 ||
      !FD->getParamDecl(0)->getType()->isIntegerType())
    return false;
  if (FD->getNumParams() == 1)
    return true;
  return FD->getNumParams() == 3 && FD->getParamDecl(1)->getType()->isPointerType() &&
         FD->getParamDecl(2)->getType()->isPointerType();
}

/// The functions whose address the program takes (a reference that is
/// not the callee of a call).
class AddressTaken : public RecursiveASTVisitor<AddressTaken> {
public:
  llvm::DenseSet<const DeclRefExpr *> Callees;
  std::vector<const DeclRefExpr *> Refs;
  bool VisitCallExpr(CallExpr *CE) {
    if (const auto *DR = dyn_cast<DeclRefExpr>(CE->getCallee()->IgnoreParenImpCasts()))
      Callees.insert(DR);
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *DR) {
    if (isa<FunctionDecl>(DR->getDecl()))
      Refs.push_back(DR);
    return true;
  }
};

/// The functions of the TU a body calls directly (canonical).
class CalleesOf : public RecursiveASTVisitor<CalleesOf> {
public:
  std::vector<const FunctionDecl *> Found;
  bool VisitCallExpr(CallExpr *CE) {
    if (const FunctionDecl *G = CE->getDirectCallee(); G && G->getDefinition())
      Found.push_back(G->getCanonicalDecl());
    return true;
  }
};

} // namespace

void findSignalHandlers(Session &S) {
  if (!S.Opts.switchable())
    return;
  AddressTaken A;
  A.TraverseDecl(S.Ctx.getTranslationUnitDecl());
  for (const DeclRefExpr *DR : A.Refs) {
    if (A.Callees.count(DR) || S.isIgnoredLoc(DR->getExprLoc()))
      continue;
    const FunctionDecl *FD = cast<FunctionDecl>(DR->getDecl())->getDefinition();
    if (FD && FD->doesThisDeclarationHaveABody() &&
        !S.isIgnoredLoc(FD->getLocation()) && handlerType(FD))
      S.M.Handlers.insert(FD->getCanonicalDecl());
  }
  // What they call, through functions of the TU (a handler's helper that
  // waits for an acknowledgement in a spin loop).
  std::vector<const FunctionDecl *> Work(S.M.Handlers.begin(),
                                         S.M.Handlers.end());
  while (!Work.empty()) {
    const FunctionDecl *F = Work.back();
    Work.pop_back();
    if (!S.M.HandlerReach.insert(F).second)
      continue;
    const FunctionDecl *Def = F->getDefinition();
    if (!Def || !Def->getBody())
      continue;
    CalleesOf C;
    C.TraverseStmt(Def->getBody());
    Work.insert(Work.end(), C.Found.begin(), C.Found.end());
  }
}

void runSignalHandlers(Session &S) {
  for (const FunctionDecl *Canon : S.M.Handlers) {
    const FunctionDecl *FD = Canon->getDefinition();
    const auto *Body = dyn_cast<CompoundStmt>(FD->getBody());
    SourceLocation LB = Body ? Body->getLBracLoc() : SourceLocation();
    if (!LB.isFileID()) {
      S.report(Diag::MacroStatement, FD->getLocation(),
               "cannot mark " + quoted(FD->getName()) +
                   " as a signal handler (its address is taken, and its type is "
                   "a handler's): its body starts in a macro",
               {tokRange(FD->getSourceRange())});
      continue;
    }
    auto [FID, Off] = S.SM.getDecomposedLoc(LB);
    S.Edits.insert(FID, Off + 1,
                   " int cp__sig __attribute__((cleanup(cp__signal_leave), unused)) = "
                   "cp__signal_enter();");
  }
}

} // namespace compactptr
