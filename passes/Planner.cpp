//===- Planner.cpp - a plan per function, as data -------------------------===//
//
// In:  the Model (Analysis: which functions depend on a layout and which
//      reach a safepoint) and the bodies.
// Out: per function a FunctionPlan: its form and why; for checked
//      functions, the decisions the walkers apply (versioned loops, bodies
//      and runs, polls, frames), each with its reason.
// Invariants: decisions depend only on the AST and the Model, never on
//      what was rewritten before; a region is versioned only if no
//      safepoint can run inside it and it can be copied.
// Tests: test/switchable/plan-decisions.c, test/switchable/*.c.
//
//===----------------------------------------------------------------------===//
#include "Planner.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;

namespace compactptr {
namespace {

/// St or a statement inside it satisfies P.
template <typename Pred> bool anyNode(const Stmt *St, Pred P) {
  if (!St)
    return false;
  if (P(St))
    return true;
  for (const Stmt *C : St->children())
    if (anyNode(C, P))
      return true;
  return false;
}

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

/// A call through a function pointer, or a call handed a function
/// (qsort's comparator): the plugin cannot see whether it reaches a
/// safepoint, so the code keeps the per-expression test.
bool hasIndirectCall(const Stmt *St) {
  return anyNode(St, [](const Stmt *X) {
    const auto *CE = dyn_cast<CallExpr>(X);
    if (!CE)
      return false;
    if (!CE->getDirectCallee())
      return true;
    for (const Expr *A : CE->arguments())
      if (A->getType()->isFunctionPointerType())
        return true;
    return false;
  });
}

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

unsigned Planner::classOf(const FunctionDecl *FD) const {
  auto It = M.Functions.find(FD->getCanonicalDecl());
  return It == M.Functions.end() ? FC_None : It->second;
}

unsigned Planner::line(SourceLocation L) const {
  PresumedLoc PL = SM.getPresumedLoc(SM.getExpansionLoc(L), false);
  return PL.isValid() ? PL.getLine() : 0;
}

/// Why FD cannot get the dual form (then it gets the checked form), or "".
std::string Planner::dualBlocker(const FunctionDecl *FD) const {
  if (FD->isMain())
    return "main";
  if (FD->isVariadic())
    return "variadic";
  if (FD->getStorageClass() == SC_Extern)
    return "extern definition";
  for (const ParmVarDecl *P : FD->parameters())
    if (!P->getIdentifier())
      return "unnamed parameter";
  const auto *CS = dyn_cast_or_null<CompoundStmt>(FD->getBody());
  if (!CS)
    return "no body";
  SourceLocation Locs[] = {FD->getBeginLoc(), FD->getLocation(),
                           CS->getLBracLoc(), CS->getRBracLoc()};
  for (SourceLocation L : Locs)
    if (!L.isFileID() || SM.getFileID(L) != SM.getFileID(FD->getLocation()))
      return "macro";
  if (hasStaticLocal(CS))
    return "static local";
  return "";
}

/// Why a function reaches a safepoint.
std::string Planner::checkedReason(const FunctionDecl *FD) const {
  if (FD->isMain())
    return "main";
  if (isSafepointFunction(FD))
    return "declared a safepoint";
  if (const CallExpr *CE = firstSafepointCall(FD->getBody()))
    if (const FunctionDecl *G = CE->getDirectCallee())
      return "calls '" + G->getNameAsString() + "', which may reach a safepoint";
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
    } else if (Cls == FC_None) {
      P.Form = FunctionForm::Wide;
      P.Why = "depends on no layout";
    } else if (Cls == FC_LayoutDependent && dualBlocker(FD).empty()) {
      P.Form = FunctionForm::Dual;
      P.Why = "depends on a layout and reaches no safepoint";
      Duals.insert(FD->getCanonicalDecl());
    } else {
      P.Form = FunctionForm::Checked;
      P.Why = Cls & FC_Safepoint ? checkedReason(FD)
                                 : "cannot be dual: " + dualBlocker(FD);
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

bool Planner::isSafepointCallee(const FunctionDecl *FD) const {
  if (!FD)
    return false;
  auto It = M.Functions.find(FD->getCanonicalDecl());
  if (It != M.Functions.end() && (It->second & FC_Safepoint))
    return true;
  return isSafepointFunction(FD);
}

const CallExpr *Planner::firstSafepointCall(const Stmt *St) const {
  if (!St)
    return nullptr;
  if (const auto *CE = dyn_cast<CallExpr>(St))
    if (isSafepointCallee(CE->getDirectCallee()))
      return CE;
  for (const Stmt *C : St->children())
    if (const CallExpr *R = firstSafepointCall(C))
      return R;
  return nullptr;
}

bool Planner::copyable(const Stmt *St) const {
  return !firstSafepointCall(St) && !hasLabel(St) && !hasStaticLocal(St) &&
         !hasForeignCase(St) && !hasIndirectCall(St);
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
bool Planner::mayAllocate(const Stmt *St) {
  return anyNode(St, [](const Stmt *X) {
    const auto *CE = dyn_cast<CallExpr>(X);
    if (!CE)
      return false;
    AllocFn F = allocFunction(CE);
    if (F != AllocFn::None)
      return F != AllocFn::Free && F != AllocFn::Deallocator;
    const FunctionDecl *FD = CE->getDirectCallee();
    if (!FD)
      return true;
    if (FD->getBuiltinID())
      return false;
    const SourceManager &SMgr = FD->getASTContext().getSourceManager();
    return !SMgr.isInSystemHeader(FD->getLocation());
  });
}

bool Planner::versionLoop(const FunctionDecl *FD, const Stmt *Loop) {
  return !(pollsLoops(FD) && mayAllocate(Loop)) && versionable(Loop);
}

bool Planner::versionBody(const FunctionDecl *FD, const Stmt *Body) {
  return pollsLoops(FD) && !hasLoop(Body) && versionable(Body);
}

Run Planner::run(const FunctionDecl *FD, ArrayRef<const Stmt *> Body, size_t I) {
  size_t J = I;
  while (J < Body.size() && copyable(Body[J]) &&
         !(pollsLoops(FD) && hasLoop(Body[J])))
    ++J;
  // Trim the run at the first declaration still needed after it.
  for (size_t K = I; K < J; ++K)
    if (declUsedAfter(Body[K], Body.drop_front(J))) {
      J = K;
      break;
    }
  unsigned NAffected = 0;
  for (size_t K = I; K < J; ++K)
    NAffected += Compact.affected(Body[K]);
  return {I, J, NAffected >= 2};
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
