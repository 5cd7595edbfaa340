//===- NativeRegions.cpp - roots kept in their slots across a native region -===//
//
// In:  a function in the checked form with `cp_native_enter();` and
//      `cp_native_leave();` as statements of one block (what CP_NATIVE(stmt)
//      expands to).
// Out: the pairs, and for each the variables the region assigns.  Both
//      calls are safepoints, but the switch runs *between* them, while the
//      thread blocks: so the roots are saved at the entry and not read
//      back there, and read back at the exit without being saved again;
//      calls inside the region neither save nor read back.  Saved and read
//      back at each call as other safepoints are, a root would be read
//      back at the entry, held in a register during the region, and saved
//      from that register at the exit: over the value the switch had
//      translated in its slot.  A root the region assigns (or declares)
//      has only its register value at the exit, which the switch did not
//      translate: refused (FrameSlots.cpp).
// Tests: test/threads/native-region-roots.c,
//        test/diagnostics/safepoint-in-statement-expression.c.
//
//===----------------------------------------------------------------------===//
#include "Walker.h"

using namespace clang;

namespace compactptr {

/// CE if St is the statement `Name();` (perhaps cast to void).
static const CallExpr *statementCall(const Stmt *St, StringRef Name) {
  const auto *E = dyn_cast_or_null<Expr>(St);
  if (!E)
    return nullptr;
  const auto *CE = dyn_cast<CallExpr>(E->IgnoreParenCasts());
  const FunctionDecl *G = CE ? CE->getDirectCallee() : nullptr;
  return G && G->getName() == Name && CE->getNumArgs() == 0 ? CE : nullptr;
}

/// The variables St may assign: targets of assignments and of ++/--,
/// variables whose address it takes, and those it declares.  Every node
/// of St goes into Nodes.
static void assigned(const Stmt *St, std::set<const VarDecl *> &Out,
                     llvm::DenseSet<const Stmt *> &Nodes) {
  if (!St)
    return;
  Nodes.insert(St);
  if (const auto *DS = dyn_cast<DeclStmt>(St))
    for (const Decl *D : DS->decls())
      if (const auto *VD = dyn_cast<VarDecl>(D))
        Out.insert(VD);
  if (const VarDecl *VD = assignedVariable(St, /*AddressToo=*/true))
    Out.insert(VD);
  for (const Stmt *C : St->children())
    assigned(C, Out, Nodes);
}

void CheckedWalker::collectNativeRegions(const Stmt *St) {
  if (!St)
    return;
  if (const auto *CS = dyn_cast<CompoundStmt>(St)) {
    const CallExpr *Open = nullptr;
    std::set<const VarDecl *> Written;
    llvm::DenseSet<const Stmt *> Nodes;
    for (const Stmt *X : CS->body()) {
      if (const CallExpr *E = statementCall(X, "cp_native_enter")) {
        Open = E;
        Written.clear();
        Nodes.clear();
      } else if (const CallExpr *L = statementCall(X, "cp_native_leave"); L && Open) {
        Regions.push_back({Open, L, Written});
        InRegion.insert(Nodes.begin(), Nodes.end());
        Open = nullptr;
      } else if (Open) {
        assigned(X, Written, Nodes);
      }
    }
  }
  for (const Stmt *C : St->children())
    collectNativeRegions(C);
}

CheckedWalker::NativeRegion *CheckedWalker::regionOf(const CallExpr *CE) {
  for (NativeRegion &R : Regions)
    if (R.Enter == CE || R.Leave == CE)
      return &R;
  return nullptr;
}

bool CheckedWalker::isNativeTransition(const CallExpr *CE) {
  const FunctionDecl *G = CE->getDirectCallee();
  return G && CE->getNumArgs() == 0 &&
         (G->getName() == "cp_native_enter" || G->getName() == "cp_native_leave");
}

} // namespace compactptr
