//===- Planner.cpp - a plan per function, as data -------------------------===//
//
// In:  the Model (Analysis: which functions depend on a layout and which
//      reach a safepoint) and the bodies.
// Out: per function a FunctionPlan: its form and why; for checked
//      functions, the decisions the walkers apply (versioned loops, bodies
//      and runs, polls, frames), each with its reason.
// Invariants: decisions depend only on the AST and the Model, never on
//      what was rewritten before; a region is versioned only if it can be
//      copied and no safepoint can run inside it but at transfer sites
//      (allocations whose slow path resumes the wide copy).
// Tests: test/switchable/plan-decisions.c, test/switchable/*.c.
//
//===----------------------------------------------------------------------===//
#include "Planner.h"
#include "clang/AST/Attr.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;

namespace compactptr {
namespace {

/// A case label of a switch around St (Duff's device): two copies of St
/// would repeat it.
bool hasForeignCase(const Stmt *St) {
  if (!St)
    return false;
  if (isa<SwitchCase>(St))
    return true;
  if (const auto *Sw = dyn_cast<SwitchStmt>(St))
    return hasForeignCase(Sw->getInit()) || hasForeignCase(Sw->getCond());
  for (const Stmt *C : St->children())
    if (hasForeignCase(C))
      return true;
  return false;
}

/// St makes an object that lives to the end of the block it stands in,
/// and that a jump past St would skip: a declaration (also under a case
/// or default label), or a compound literal whose storage may be reached
/// later (anything but a struct or scalar value copied by an assignment).
bool declares(const Stmt *St) {
  while (St) {
    if (const auto *SC = dyn_cast<SwitchCase>(St))
      St = SC->getSubStmt();
    else if (const auto *L = dyn_cast<LabelStmt>(St))
      St = L->getSubStmt();
    else if (const auto *A = dyn_cast<AttributedStmt>(St))
      St = A->getSubStmt();
    else
      break;
  }
  if (!St)
    return false;
  if (isa<DeclStmt>(St))
    return true;
  std::set<const Stmt *> Copied;
  anyNode(St, [&](const Stmt *X) {
    if (const auto *BO = dyn_cast<BinaryOperator>(X); BO && BO->getOpcode() == BO_Assign)
      if (const auto *CL = dyn_cast<CompoundLiteralExpr>(BO->getRHS()->IgnoreParenImpCasts());
          CL && !CL->getType()->isArrayType())
        Copied.insert(CL);
    return false;
  });
  return anyNode(St, [&](const Stmt *X) {
    return isa<CompoundLiteralExpr>(X) && !Copied.count(X);
  });
}

/// St declares a variable that one of Later refers to.
bool declUsedAfter(const Stmt *St, ArrayRef<const Stmt *> Later) {
  const auto *DS = dyn_cast<DeclStmt>(St);
  if (!DS)
    return false;
  std::set<const Decl *> Vars(DS->decl_begin(), DS->decl_end());
  for (const Stmt *L : Later)
    if (anyNode(L, [&](const Stmt *X) {
          const auto *DR = dyn_cast<DeclRefExpr>(X);
          return DR && Vars.count(DR->getDecl());
        }))
      return true;
  return false;
}

/// Moves End back until no declaration in [Begin, End) is used at or after
/// End (each cut can leave an earlier declaration's uses behind it).
void trimAtLiveDecl(ArrayRef<const Stmt *> Body, size_t Begin, size_t &End) {
  for (bool Cut = true; Cut;) {
    Cut = false;
    for (size_t K = Begin; K < End; ++K)
      if (declUsedAfter(Body[K], Body.drop_front(End))) {
        End = K;
        Cut = true;
        break;
      }
  }
}

const char *formName(FunctionForm F) {
  switch (F) {
  case FunctionForm::Compact:
    return "compact";
  case FunctionForm::Wide:
    return "wide";
  case FunctionForm::Dual:
    return "dual";
  case FunctionForm::Checked:
    return "checked";
  }
  return "?";
}

} // namespace

bool hasStaticLocal(const Stmt *St) {
  return anyNode(St, [](const Stmt *X) {
    if (const auto *DS = dyn_cast<DeclStmt>(X))
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D); VD && VD->isStaticLocal())
          return true;
    return false;
  });
}

bool hasLabel(const Stmt *St) {
  return anyNode(St, [](const Stmt *X) {
    return isa<LabelStmt>(X) || isa<AddrLabelExpr>(X);
  });
}

unsigned Planner::classOf(const FunctionDecl *FD) const {
  if (!FD)
    return FC_None;
  auto It = M.Functions.find(FD->getCanonicalDecl());
  return It == M.Functions.end() ? FC_None : It->second;
}

unsigned Planner::line(SourceLocation L) const {
  PresumedLoc PL = SM.getPresumedLoc(SM.getExpansionLoc(L), false);
  return PL.isValid() ? PL.getLine() : 0;
}

/// Why a function reaches a safepoint.
std::string Planner::checkedReason(const FunctionDecl *FD) const {
  if (FD->isMain())
    return "main";
  if (isSafepointFunction(FD))
    return "declared a safepoint";
  if (const CallExpr *CE = firstMayReachCall(FD->getBody())) {
    if (CE == interfaceCall(S, FD))
      return "calls '" + CE->getDirectCallee()->getNameAsString() +
             "' of another file, whose prototype has compact pointers: it "
             "may allocate or wait for a thread that does (a safepoint)";
    if (allocatesObject(S, CE))
      return "allocates a compact object (an allocation is a safepoint)";
    if (const FunctionDecl *G = CE->getDirectCallee())
      return "calls '" + G->getNameAsString() + "', which may reach a safepoint";
    return "calls through a function pointer, which may reach a safepoint";
  }
  const Stmt *Spin = nullptr;
  anyNode(FD->getBody(), [&](const Stmt *X) {
    if ((isa<WhileStmt>(X) || isa<DoStmt>(X) || isa<ForStmt>(X)) && spins(X))
      Spin = X;
    return Spin != nullptr;
  });
  if (Spin)
    return "waits for other threads in a spin loop (line " +
           std::to_string(line(Spin->getBeginLoc())) +
           "), which polls for the switch";
  return "reaches a safepoint";
}

void Planner::planForms(const std::vector<const FunctionDecl *> &Fns) {
  for (const FunctionDecl *FD : Fns) {
    FunctionPlan &P = planOf(FD);
    unsigned Cls = classOf(FD);
    if (S.Opts.compactOnly()) {
      P.Form = FunctionForm::Compact;
      P.Why = "compact-only mode";
    } else if (!S.Opts.switchable()) {
      P.Form = FunctionForm::Wide;
      P.Why = "wide mode";
    } else if (Cls & FC_Safepoint) {
      P.Form = FunctionForm::Checked;
      P.Why = checkedReason(FD);
    } else if (Cls & FC_LayoutDependent) {
      std::string Blocker = dualBlocker(SM, FD);
      if (Blocker.empty()) {
        P.Form = FunctionForm::Dual;
        P.Why = Cls & FC_Opaque
                    ? "depends on a layout and reaches no safepoint it can see "
                      "(a safepoint in the code it cannot see defers)"
                    : "depends on a layout and reaches no safepoint";
        Duals.insert(FD->getCanonicalDecl());
        if (!(Cls & (FC_Opaque | FC_Allocates))) {
          Closed.insert(FD->getCanonicalDecl());
          P.Why += "; closed: nothing it calls can switch";
        }
      } else {
        P.Form = FunctionForm::Checked;
        P.Why = "cannot be dual: " + Blocker;
      }
    } else if ((Cls & FC_Opaque) && (Cls & FC_HoldsCompact)) {
      P.Form = FunctionForm::Checked;
      P.Why = "holds compact pointers and calls code it cannot see, which may "
              "reach a safepoint";
    } else {
      P.Form = FunctionForm::Wide;
      P.Why = "depends on no layout";
    }
  }
}

FunctionPlan &Planner::planOf(const FunctionDecl *FD) {
  auto [It, New] = Index.insert({FD, Plans.size()});
  if (New) {
    Plans.emplace_back();
    Plans.back().FD = FD;
  }
  return Plans[It->second];
}

void Planner::note(const FunctionDecl *FD, SourceLocation L, std::string What,
                   std::string Why) {
  planOf(FD).Decisions.push_back({line(L), std::move(What), std::move(Why)});
}

bool Planner::pollsLoops(const FunctionDecl *FD) const {
  return S.Opts.AutoSafepoints && FD && FD->isMain();
}

bool Planner::mayReach(const CallExpr *CE) const {
  if (isOpaqueCall(S, CE) || allocatesObject(S, CE))
    return true;
  const FunctionDecl *FD = CE->getDirectCallee();
  // setjmp's second return comes after a switch inside a later call: its
  // caller reads its roots back there (FrameSlots.cpp, computeLiveness).
  if (isSafepointFunction(FD) || isNativeCall(CE) || returnsTwice(FD))
    return true;
  unsigned Cls = classOf(FD);
  return (Cls & FC_Safepoint) ||
         ((Cls & FC_Opaque) && !Duals.count(FD->getCanonicalDecl()));
}

bool Planner::isNativeCall(const CallExpr *CE) const {
  return compactptr::isNativeCall(S, CE);
}

const CallExpr *Planner::firstMayReachCall(
    const Stmt *St, llvm::function_ref<bool(const CallExpr *)> Keep) const {
  if (!St || isa<UnaryExprOrTypeTraitExpr>(St)) // unevaluated
    return nullptr;
  if (const auto *CE = dyn_cast<CallExpr>(St))
    if (mayReach(CE) && (!Keep || Keep(CE)))
      return CE;
  for (const Stmt *C : St->children())
    if (const CallExpr *R = firstMayReachCall(C, Keep))
      return R;
  return nullptr;
}

bool Planner::copyable(const Stmt *St) const {
  return !firstMayReachCall(St) && !hasLabel(St) && !hasStaticLocal(St) &&
         !hasForeignCase(St) && !hasSpinLoop(St) && !hasSafepointCleanup(St);
}

bool Planner::hasSafepointCleanup(const Stmt *St) const {
  return anyNode(St, [&](const Stmt *X) {
    const auto *DS = dyn_cast<DeclStmt>(X);
    if (!DS)
      return false;
    for (const Decl *D : DS->decls())
      if (const auto *VD = dyn_cast<VarDecl>(D))
        if (const auto *C = VD->getAttr<CleanupAttr>())
          if (const FunctionDecl *F = C->getFunctionDecl()) {
            unsigned Cls = classOf(F);
            if (opaqueCleanup(S, F) || (Cls & FC_Safepoint) ||
                ((Cls & FC_Opaque) && !Duals.count(F->getCanonicalDecl())))
              return true;
          }
    return false;
  });
}

bool Planner::spins(const Stmt *Loop) const { return M.SpinLoops.count(Loop); }

bool Planner::hasSpinLoop(const Stmt *St) const {
  return anyNode(St, [&](const Stmt *X) {
    return (isa<WhileStmt>(X) || isa<DoStmt>(X) || isa<ForStmt>(X)) && spins(X);
  });
}

bool Planner::hasLoop(const Stmt *St) {
  return anyNode(St, [](const Stmt *X) {
    return isa<WhileStmt>(X) || (isa<DoStmt>(X) && !runsOnce(X)) || isa<ForStmt>(X);
  });
}

bool Planner::runsOnce(const Stmt *Loop) {
  const auto *D = dyn_cast<DoStmt>(Loop);
  if (!D)
    return false;
  const auto *L = dyn_cast<IntegerLiteral>(D->getCond()->IgnoreParenImpCasts());
  return L && L->getValue() == 0;
}

/// A switch becomes pending only at an allocation, and only allocation
/// can exhaust the arena: a loop of main that cannot allocate needs one
/// poll before it, not one per iteration, and then keeps one mode.
bool Planner::mayAllocate(const Stmt *St) const {
  return anyNode(St, [&](const Stmt *X) {
    const auto *CE = dyn_cast<CallExpr>(X);
    if (!CE)
      return false;
    if (isOpaqueCall(S, CE) || allocatesObject(S, CE))
      return true;
    return (classOf(CE->getDirectCallee()) & FC_Allocates) != 0;
  });
}

/// main's polls are for switches that became pending where no safepoint
/// was legal: an allocation under a compact body (a dual function that
/// calls code the engine cannot see), or code the engine cannot see (a
/// function built elsewhere may be dual there).  An allocation of checked
/// code is a safepoint itself, and so is a call to a checked function.
bool Planner::needsPolls(const Stmt *Loop) const {
  return anyNode(Loop, [&](const Stmt *X) {
    const auto *CE = dyn_cast<CallExpr>(X);
    if (!CE)
      return false;
    if (isOpaqueCall(S, CE))
      return true;
    const FunctionDecl *G = CE->getDirectCallee();
    return G && Duals.count(G->getCanonicalDecl()) && (classOf(G) & FC_Allocates);
  });
}

bool Planner::versionLoop(const FunctionDecl *FD, const Stmt *Loop) {
  return !(pollsLoops(FD) && mayAllocate(Loop)) && versionable(Loop);
}

bool Planner::versionBody(const FunctionDecl *FD, const Stmt *Body, bool Spin) {
  return (Spin || pollsLoops(FD)) && !hasLoop(Body) && versionable(Body);
}

Run Planner::run(const FunctionDecl *FD, ArrayRef<const Stmt *> Body, size_t I) {
  size_t J = I;
  std::vector<const Stmt *> Sites; // of the part, collected once it is known
  while (J < Body.size() && !(pollsLoops(FD) && hasLoop(Body[J])) &&
         (copyable(Body[J]) || transferable(Body[J], Sites)))
    ++J;
  Sites.clear();
  // Trim the run at the first declaration still needed after it, until
  // none is: a trim moves statements out of the run, and a declaration
  // before the cut may be used by them.
  trimAtLiveDecl(Body, I, J);
  // The versioned part: from the first to the last layout-dependent
  // statement, and again short of a declaration used after it.  A site
  // alone does not count: a copy that starts or ends with one tests the
  // mode as often as the site outside it does, with twice its code.
  auto dependent = [&](const Stmt *X) { return Compact.affected(X) && !transferSite(X); };
  size_t VB = I, VE = I;
  for (size_t K = I; K < J; ++K)
    if (dependent(Body[K])) {
      if (VE == VB)
        VB = K;
      VE = K + 1;
    }
  trimAtLiveDecl(Body, VB, VE);
  // A transfer site's label in the wide copy must not follow a
  // declaration of the copy: the part ends before the first statement
  // holding a site after a declaration (a trim may move the end further).
  for (bool Cut = true; Cut;) {
    Cut = false;
    bool Decl = false;
    for (size_t K = VB; K < VE && !Cut; ++K) {
      std::vector<const Stmt *> Here;
      if (Decl && transferable(Body[K], Here)) {
        VE = K;
        trimAtLiveDecl(Body, VB, VE);
        Cut = true;
      }
      Decl |= declares(Body[K]);
    }
  }
  for (size_t K = VB; K < VE; ++K)
    transferable(Body[K], Sites);
  unsigned NAffected = 0;
  for (size_t K = VB; K < VE; ++K)
    NAffected += dependent(Body[K]);
  Run R{I, J, VB, VE, NAffected >= 2, {}};
  if (R.Versioned)
    R.Sites = std::move(Sites);
  return R;
}

const CallExpr *Planner::transferSite(const Stmt *St, const VarDecl **Var) const {
  const auto *E = dyn_cast_or_null<Expr>(St);
  if (!E)
    return nullptr;
  const auto *BO = dyn_cast<BinaryOperator>(E->IgnoreParens());
  if (!BO || BO->getOpcode() != BO_Assign)
    return nullptr;
  const auto *DR = dyn_cast<DeclRefExpr>(BO->getLHS()->IgnoreParens());
  const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
  if (!VD || !VD->hasLocalStorage() || !VD->getType()->isPointerType() ||
      VD->getType().isVolatileQualified() || M.Boxed.count(VD->getCanonicalDecl()))
    return nullptr;
  const auto *CE = dyn_cast<CallExpr>(BO->getRHS()->IgnoreParenCasts());
  if (!CE || !allocatesObject(S, CE) || resizesBlock(CE))
    return nullptr;
  for (const Expr *A : CE->arguments())
    if (firstMayReachCall(A))
      return nullptr;
  // The copies are printed from the file's text around the site.
  if (anyNode(St, [](const Stmt *X) {
        return X->getBeginLoc().isMacroID() || X->getEndLoc().isMacroID();
      }))
    return nullptr;
  if (Var)
    *Var = VD;
  return CE;
}

/// transferable's walk: InBlock, St is a statement of a block (a label
/// can follow it); DeclInScope, a declaration of the copied code is in
/// scope at St (declares).
bool Planner::sitesIn(const Stmt *St, bool InBlock, bool DeclInScope,
                      std::vector<const Stmt *> &Sites) const {
  if (!St)
    return true;
  if (InBlock && transferSite(St)) {
    if (DeclInScope)
      return false;
    Sites.push_back(St);
    return true;
  }
  if (isa<Expr>(St) || isa<DeclStmt>(St))
    return !firstMayReachCall(St);
  if (const auto *CS = dyn_cast<CompoundStmt>(St)) {
    for (const Stmt *X : CS->body()) {
      if (!sitesIn(X, true, DeclInScope, Sites))
        return false;
      DeclInScope |= declares(X);
    }
    return true;
  }
  if (const auto *F = dyn_cast<ForStmt>(St))
    return sitesIn(F->getInit(), false, DeclInScope, Sites) &&
           !firstMayReachCall(F->getCond()) && !firstMayReachCall(F->getInc()) &&
           sitesIn(F->getBody(), false, DeclInScope || declares(F->getInit()), Sites);
  for (const Stmt *X : St->children())
    if (!sitesIn(X, false, DeclInScope, Sites))
      return false;
  return true;
}

bool Planner::transferable(const Stmt *St, std::vector<const Stmt *> &Sites,
                           bool InBlock) const {
  if (hasLabel(St) || hasStaticLocal(St) || hasForeignCase(St) ||
      hasSpinLoop(St))
    return false;
  std::vector<const Stmt *> Mine;
  if (!sitesIn(St, InBlock, false, Mine) || Mine.empty())
    return false;
  Sites.insert(Sites.end(), Mine.begin(), Mine.end());
  return true;
}

bool Planner::versionLoopWithSites(const FunctionDecl *FD, const Stmt *Loop,
                                   std::vector<const Stmt *> &Sites) const {
  // (The loop is not itself a site: its sites are statements of its
  // body's blocks.)
  return !(pollsLoops(FD) && needsPolls(Loop)) && Compact.affected(Loop) &&
         transferable(Loop, Sites, /*InBlock=*/false);
}

std::string Planner::dump() const {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  for (const FunctionPlan &P : Plans) {
    // Headers' functions with nothing to show (the runtime's inline
    // helpers among them) are left out.
    if (P.Decisions.empty() && !SM.isInMainFile(P.FD->getLocation()))
      continue;
    OS << "plan: " << P.FD->getName() << " (line " << line(P.FD->getLocation())
       << "): " << formName(P.Form) << ": " << P.Why << "\n";
    for (const Decision &D : P.Decisions)
      OS << "plan:   line " << D.Line << ": " << D.What << ": " << D.Why << "\n";
  }
  return OS.str();
}

} // namespace compactptr
