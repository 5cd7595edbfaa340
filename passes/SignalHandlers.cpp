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
#include "clang/AST/ParentMapContext.h"
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

/// DR is handed to the kernel as a signal handler: an argument of
/// signal() (sigset, bsd_signal), or stored in a sigaction's sa_handler or
/// sa_sigaction (by assignment or in an initializer).
bool installedAsHandler(ASTContext &Ctx, const Expr *DR) {
  const Expr *E = DR;
  for (;;) {
    auto Parents = Ctx.getParents(*E);
    if (Parents.empty())
      return false;
    if (const auto *P = Parents[0].get<Expr>();
        P && (isa<ImplicitCastExpr>(P) || isa<ParenExpr>(P) ||
              isa<CStyleCastExpr>(P) ||
              (isa<UnaryOperator>(P) &&
               cast<UnaryOperator>(P)->getOpcode() == UO_AddrOf))) {
      E = P;
      continue;
    }
    if (const auto *CE = Parents[0].get<CallExpr>()) {
      const FunctionDecl *G = CE->getDirectCallee();
      StringRef N = G && G->getIdentifier() ? G->getName() : "";
      return N == "signal" || N == "sigset" || N == "bsd_signal" ||
             N == "sysv_signal";
    }
    if (const auto *BO = Parents[0].get<BinaryOperator>()) {
      const auto *ME =
          dyn_cast<MemberExpr>(BO->getLHS()->IgnoreParenImpCasts());
      StringRef N = ME && ME->getMemberDecl()->getIdentifier()
                        ? ME->getMemberDecl()->getName()
                        : "";
      return BO->getOpcode() == BO_Assign &&
             (N == "sa_handler" || N == "sa_sigaction");
    }
    if (const auto *DI = Parents[0].get<DesignatedInitExpr>()) {
      for (const DesignatedInitExpr::Designator &D : DI->designators())
        if (D.isFieldDesignator() && D.getFieldName() &&
            (D.getFieldName()->getName() == "sa_handler" ||
             D.getFieldName()->getName() == "sa_sigaction"))
          return true;
      return false;
    }
    if (const auto *IL = Parents[0].get<InitListExpr>()) {
      // glibc's handler is a member of a union inside struct sigaction.
      const RecordDecl *RD = IL->getType()->getAsRecordDecl();
      for (; RD; RD = dyn_cast<RecordDecl>(RD->getDeclContext()))
        if (RD->getIdentifier() && RD->getName() == "sigaction")
          return true;
      return false;
    }
    return false;
  }
}

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
  // What the ones installed as handlers call, through functions of the TU
  // (a helper that waits for an acknowledgement in a spin loop): matched
  // by type alone, a `void (int)` callback of a table would take the
  // polls away from everything it calls.
  std::vector<const FunctionDecl *> Work;
  for (const DeclRefExpr *DR : A.Refs)
    if (const auto *FD = dyn_cast<FunctionDecl>(DR->getDecl());
        !A.Callees.count(DR) && S.M.Handlers.count(FD->getCanonicalDecl()) &&
        installedAsHandler(S.Ctx, DR))
      Work.push_back(FD->getCanonicalDecl());
  S.M.HandlerReach.insert(S.M.Handlers.begin(), S.M.Handlers.end());
  for (const FunctionDecl *H : Work)
    S.M.HandlerReach.erase(H); // walked below
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
