//===- AllocatorEffects.cpp - what a routed allocator's body stops doing --===//
//
// In:  the program's CP_ALLOCATOR and CP_DEALLOCATOR functions, where the
//      rewrite routes at least one of their calls to the runtime (a call
//      that allocates or frees a compact object).
// Out: the allocator-effects warning at each update their bodies make --
//      themselves, or through functions of the file they call -- to a
//      variable of static storage or to a field, where code of the program
//      other than the allocator's own functions reads it: a count of live
//      bytes (Lua's GC debt), a statistics record, a pool's count of
//      objects handed out that a report prints.  A routed call runs none
//      of the body, so that code reads a value that misses every compact
//      object, and the program's output changed with nothing said (a
//      trial's malloc wrapper printed 0 live bytes where its native build
//      printed 16000).  Updates of the allocator's own state -- a pool's
//      free list and chunk, read only by the pool's functions -- and of
//      the memory it hands out are not reported.
// Tests: test/diagnostics/allocator-effects.c (warned, and quiet for a
//        pool's own state), test/switchable/pool-of-one-size.c (quiet).
//
//===----------------------------------------------------------------------===//
#include "Printer.h"
#include "Vocabulary.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <set>

using namespace clang;

namespace compactptr {

namespace {

/// What an update writes: a variable of static storage or a field
/// (`live`, `g.total`, `p->used`, `L->g->debt`); null for a local, a
/// parameter, or memory through a pointer (`*(void **)x = head`: the
/// block itself, not the program's state).
const ValueDecl *updated(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    // A field of state the function is handed or that lives in a global
    // (`p->used`, `g.total`, `L->g->debt`), not of a block a local names
    // (`hdr->size`, `((struct obj *)mem)->id`: the memory handed out).
    const Expr *Base = ME->getBase()->IgnoreParenImpCasts();
    while (const auto *In = dyn_cast<MemberExpr>(Base))
      Base = In->getBase()->IgnoreParenImpCasts();
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(Base))
      Base = AS->getBase()->IgnoreParenImpCasts();
    const auto *DR = dyn_cast<DeclRefExpr>(Base);
    const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
    if (!VD || (!isa<ParmVarDecl>(VD) && !VD->hasGlobalStorage()))
      return nullptr;
    return dyn_cast<FieldDecl>(ME->getMemberDecl());
  }
  if (const auto *DR = dyn_cast<DeclRefExpr>(E))
    if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl());
        VD && VD->hasGlobalStorage())
      return VD;
  return nullptr;
}

/// The lvalue St writes (`x = v`, `x += v`, `x++`), or null.
const Expr *writtenBy(const Stmt *St) {
  if (const auto *BO = dyn_cast<BinaryOperator>(St); BO && BO->isAssignmentOp())
    return BO->getLHS();
  if (const auto *UO = dyn_cast<UnaryOperator>(St);
      UO && UO->isIncrementDecrementOp())
    return UO->getSubExpr();
  return nullptr;
}

struct Update {
  const ValueDecl *Target;
  const Expr *At;
  const FunctionDecl *In; // where the update is written
};

/// The updates FD's body makes, and those of the functions of the file it
/// calls, up to two calls deep (never the allocation functions, which the
/// rewrite handles, nor the runtime's).
void collectUpdates(const FunctionDecl *FD, unsigned Depth,
                    std::set<const FunctionDecl *> &Seen,
                    std::vector<Update> &Out) {
  const FunctionDecl *Def = FD->getDefinition();
  if (!Def || !Def->getBody() || !Seen.insert(Def).second)
    return;
  anyNode(Def->getBody(), [&](const Stmt *St) {
    if (const Expr *L = writtenBy(St))
      if (const ValueDecl *T = updated(L))
        Out.push_back({T, cast<Expr>(St), Def});
    if (const auto *CE = dyn_cast<CallExpr>(St);
        CE && Depth < 2 && CE->getDirectCallee() &&
        allocFunction(CE) == AllocFn::None &&
        !isRuntimeFunction(CE->getDirectCallee()))
      collectUpdates(CE->getDirectCallee(), Depth + 1, Seen, Out);
    return false;
  });
}

/// E's value is used: it is no statement of its own (`n++;`), no
/// left operand of a comma, no operand of a cast to void.
bool valueUsed(ASTContext &Ctx, const Expr *E) {
  const Expr *Cur = E;
  const Expr *Up = parentSkippingParens(Ctx, Cur, &Cur);
  if (!Up)
    return false;
  if (const auto *BO = dyn_cast<BinaryOperator>(Up);
      BO && BO->getOpcode() == BO_Comma && BO->getLHS()->IgnoreParens() == Cur)
    return false;
  if (const auto *CE = dyn_cast<CStyleCastExpr>(Up);
      CE && CE->getType()->isVoidType())
    return false;
  return true;
}

/// Does G's body read T's value -- other than to update T itself where
/// the update's value goes nowhere (`x = 0;`, `x += n;`, `x--;`: more
/// bookkeeping)?  Returns the first read.
const Expr *readIn(const FunctionDecl *G, const ValueDecl *T) {
  const Expr *Found = nullptr;
  ASTContext &Ctx = G->getASTContext();
  anyNode(G->getBody(), [&](const Stmt *St) {
    const auto *E = dyn_cast<Expr>(St);
    const ValueDecl *D = nullptr;
    if (const auto *ME = dyn_cast_or_null<MemberExpr>(E))
      D = ME->getMemberDecl();
    else if (const auto *DR = dyn_cast_or_null<DeclRefExpr>(E))
      D = DR->getDecl();
    if (!D || D->getCanonicalDecl() != T->getCanonicalDecl())
      return false;
    const Expr *Cur = E;
    const Expr *Up = parentSkippingParens(Ctx, Cur, &Cur);
    const Expr *Update = nullptr;
    if (const auto *BO = dyn_cast_or_null<BinaryOperator>(Up);
        BO && BO->isAssignmentOp() && BO->getLHS()->IgnoreParens() == Cur)
      Update = BO;
    if (const auto *UO = dyn_cast_or_null<UnaryOperator>(Up);
        UO && UO->isIncrementDecrementOp())
      Update = UO;
    if (Update && !valueUsed(Ctx, Update))
      return false;
    Found = E;
    return true;
  });
  return Found;
}

/// G gives memory back itself (a pool's destroy walking its chunks reads
/// the pool's fields to free them: pool-release speaks for that).
bool freesMemory(const FunctionDecl *G) {
  return anyNode(G->getBody(), [](const Stmt *St) {
    const auto *CE = dyn_cast<CallExpr>(St);
    const FunctionDecl *F = CE ? CE->getDirectCallee() : nullptr;
    return F && F->getIdentifier() &&
           llvm::is_contained({"free", "munmap"}, F->getName());
  });
}

} // namespace

void checkAllocatorEffects(Session &S) {
  // The program's allocators and deallocators with a call the rewrite
  // routes to the runtime.
  std::vector<const FunctionDecl *> Routed;
  llvm::SmallPtrSet<const FunctionDecl *, 8> Known;
  anyNodeInUnit(S.Ctx, [&](const Stmt *St) {
    const auto *CE = dyn_cast<CallExpr>(St);
    const FunctionDecl *FD = CE ? CE->getDirectCallee() : nullptr;
    if (!FD || S.isIgnoredLoc(CE->getExprLoc()))
      return false;
    AllocFn F = allocFunction(CE);
    bool Routes = F == AllocFn::Allocator
                      ? allocatesObject(S, CE)
                      : F == AllocFn::Deallocator &&
                            allocTarget(S, CE) == AllocTarget::Object;
    if (Routes && FD->getDefinition() && FD->getDefinition()->getBody() &&
        Known.insert(FD->getCanonicalDecl()).second)
      Routed.push_back(FD);
    return false;
  });
  if (Routed.empty())
    return;
  llvm::SmallPtrSet<const FunctionDecl *, 8> Own = allocatorOwnFunctions(S.Ctx);
  std::vector<const FunctionDecl *> Readers;
  for (const Decl *D : S.Ctx.getTranslationUnitDecl()->decls())
    if (const auto *G = dyn_cast<FunctionDecl>(D);
        G && G->doesThisDeclarationHaveABody() &&
        !Own.count(G->getCanonicalDecl()) &&
        !S.isIgnoredLoc(G->getLocation()) && !freesMemory(G))
      Readers.push_back(G);
  std::set<std::pair<const FunctionDecl *, const ValueDecl *>> Said;
  for (const FunctionDecl *FD : Routed) {
    std::set<const FunctionDecl *> Seen;
    std::vector<Update> Updates;
    collectUpdates(FD, 0, Seen, Updates);
    for (const Update &U : Updates) {
      if (!Said.insert({FD->getCanonicalDecl(), U.Target}).second)
        continue;
      const FunctionDecl *Reader = nullptr;
      for (const FunctionDecl *G : Readers)
        if (G != U.In && readIn(G, U.Target)) {
          Reader = G;
          break;
        }
      if (!Reader)
        continue;
      bool Alloc = hasAttribute(FD, "allocator");
      std::string Fn = quoted(FD->getNameAsString());
      std::string Via = U.In->getCanonicalDecl() == FD->getCanonicalDecl()
                            ? ""
                            : " by " + quoted(U.In->getNameAsString()) +
                                  ", which " + Fn + " calls,";
      S.report(Diag::AllocatorEffects, U.At->getExprLoc(),
               quoted(U.Target->getNameAsString()) + " is updated here" + Via +
                   " for each call of " + Fn +
                   (Alloc ? " (CP_ALLOCATOR), but the calls that allocate "
                            "compact objects"
                          : " (CP_DEALLOCATOR), but the calls that free "
                            "compact objects") +
                   " go to the runtime and run none of " + Fn + "'s code, so " +
                   quoted(Reader->getNameAsString()) +
                   ", which reads it, sees a value that misses them: keep "
                   "such bookkeeping at the calls, or let it count other "
                   "memory only",
               {CharSourceRange::getTokenRange(U.At->getSourceRange())});
    }
  }
}

} // namespace compactptr
