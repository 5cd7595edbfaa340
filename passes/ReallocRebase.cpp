//===- ReallocRebase.cpp - differences with the address realloc was handed ==//
//
// In:  every function body (switchable mode).
// Out: the realloc-rebase warning at each pointer difference one of whose
//      operands is a local that holds the address a realloc of compact
//      objects was handed, read after that call: mcf's rebasing of the
//      links into an array that realloc moved, `a[i].link = a + (a[i].link
//      - old)`.  A switch between the realloc and the difference (at a
//      poll, at an allocation) moves every object but translates neither
//      `old` nor the links, which name memory realloc freed; their
//      difference then counts compact-layout bytes in wide elements (a
//      trial's sum came out as garbage, exit 0).  The integer form of the
//      idiom is integer-cast's.
// Which locals: the one handed to realloc, unless the call's result is
//      stored back into it, and every copy of it made before the call
//      (`old = arr; arr = realloc(arr, ...)`); an assignment after the
//      call makes a local fresh again.  Statements are followed in the
//      order of their text, so a loop's back edge is not followed: a
//      warning, not a proof.
// Tests: test/diagnostics/realloc-rebase.c.
//
//===----------------------------------------------------------------------===//
#include "Printer.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;

namespace compactptr {

namespace {

/// The local E names, through its conversions (`(char *)old`).
const VarDecl *localOf(const Expr *E) {
  return E ? localVariable(E->IgnoreParenCasts()) : nullptr;
}

class Rebase {
public:
  explicit Rebase(Session &S) : S(S) {}

  void walk(const Stmt *St) {
    if (!St || isa<UnaryExprOrTypeTraitExpr>(St))
      return;
    // The operands first: `arr = realloc(arr, n)` frees before it stores.
    for (const Stmt *C : St->children())
      walk(C);
    if (const auto *DS = dyn_cast<DeclStmt>(St)) {
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D))
          assigned(VD, VD->getInit());
    } else if (const auto *BO = dyn_cast<BinaryOperator>(St)) {
      if (BO->getOpcode() == BO_Assign) {
        if (const VarDecl *V = localOf(BO->getLHS()))
          assigned(V, BO->getRHS());
      } else if (BO->getOpcode() == BO_Sub &&
                 BO->getLHS()->getType()->isPointerType() &&
                 BO->getRHS()->getType()->isPointerType()) {
        difference(BO);
      }
    } else if (const auto *CE = dyn_cast<CallExpr>(St)) {
      resized(CE);
    }
  }

private:
  Session &S;
  /// The locals that hold the same address as each local (copies made).
  llvm::DenseMap<const VarDecl *, llvm::SmallPtrSet<const VarDecl *, 2>> Copies;
  /// Locals that hold an address realloc was handed, with the call.
  llvm::DenseMap<const VarDecl *, const CallExpr *> Stale;
  /// Differences warned already (both operands may be such locals).
  llvm::SmallPtrSet<const Expr *, 2> Reported;

  void assigned(const VarDecl *V, const Expr *Value) {
    Stale.erase(V);
    Copies.erase(V); // its copies hold its old value
    for (auto &[From, To] : Copies)
      To.erase(V);
    if (const VarDecl *From = localOf(Value); From && From != V)
      Copies[From].insert(V);
  }

  void resized(const CallExpr *CE) {
    if (CE->getNumArgs() == 0 || !resizesBlock(CE) ||
        allocTarget(S, CE) != AllocTarget::Object)
      return;
    const VarDecl *A = localOf(CE->getArg(0));
    if (!A)
      return;
    for (const VarDecl *V : Copies[A])
      Stale[V] = CE;
    // `arr = realloc(arr, ...)` makes arr fresh at once (assigned() runs
    // after this); `b = realloc(arr, ...)` leaves arr the old address.
    Stale[A] = CE;
  }

  void difference(const BinaryOperator *BO) {
    for (const Expr *Op : {BO->getLHS(), BO->getRHS()}) {
      const VarDecl *V = localOf(Op);
      auto It = V ? Stale.find(V) : Stale.end();
      if (It == Stale.end() || S.isIgnoredLoc(BO->getOperatorLoc()) ||
          !Reported.insert(BO).second)
        continue;
      PresumedLoc P =
          S.SM.getPresumedLoc(S.SM.getExpansionLoc(It->second->getBeginLoc()));
      const FunctionDecl *R = It->second->getDirectCallee();
      S.report(
          Diag::ReallocRebase, BO->getOperatorLoc(),
          "difference with " + quoted(V->getName()) +
              ", which holds the address handed to " +
              quoted(R ? R->getName() : "realloc") +
              (P.isValid() ? " on line " + std::to_string(P.getLine()) : "") +
              ": rebasing links into the array it moved goes wrong when the "
              "switch to wide mode comes between the two (at a poll or an "
              "allocation): the switch translates neither " +
              quoted(V->getName()) +
              " nor links into the memory it freed, and their difference "
              "then counts compact-layout bytes in wide elements; keep "
              "indices (`i = p - arr`) before the call and rebuild the "
              "links from them, or build the program compact-only, which "
              "never switches",
          {tokRange(BO->getSourceRange())});
    }
  }
};

} // namespace

void checkReallocRebase(Session &S) {
  if (!S.Opts.switchable())
    return;
  for (const Decl *D : S.Ctx.getTranslationUnitDecl()->decls()) {
    const auto *FD = dyn_cast<FunctionDecl>(D);
    if (!FD || !FD->doesThisDeclarationHaveABody() ||
        S.isIgnoredLoc(FD->getLocation()))
      continue;
    Rebase R(S);
    R.walk(FD->getBody());
  }
}

} // namespace compactptr
