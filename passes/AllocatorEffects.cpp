//===- AllocatorEffects.cpp - what a routed allocator's body stops doing --===//
//
// In:  the program's CP_ALLOCATOR and CP_DEALLOCATOR functions, where the
//      rewrite routes at least one of their calls to the runtime (a call
//      that allocates or frees a compact object).
// Out: the allocator-effects warning at each accumulating update their
//      bodies make -- themselves, or through functions of the file they
//      call -- to a variable of static storage or to a field, where code of
//      the program other than the allocator's own functions reads it (or,
//      for a global other files see, may): a count of live
//      bytes (Lua's GC debt), a statistics record, a pool's count of
//      objects handed out that a report prints.  A routed call runs none
//      of the body, so that code reads a value that misses every compact
//      object, and the program's output changed with nothing said (a
//      trial's malloc wrapper printed 0 live bytes where its native build
//      printed 16000).  Updates of the allocator's own state -- a pool's
//      free list and chunk, read only by the pool's functions -- and of
//      the memory it hands out are not reported.
// Tests: test/diagnostics/allocator-effects.c (warned, also through
//        pointers the callers hand in, and quiet for a
//        pool's own state), test/switchable/pool-of-one-size.c (quiet).
//
//===----------------------------------------------------------------------===//
#include "Printer.h"
#include "Vocabulary.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <map>
#include <set>

using namespace clang;

namespace compactptr {

namespace {

/// A local pointer that names the program's state rather than memory
/// the function hands out: initialized other than by an allocation
/// (`struct stats *s = &g_stats;`, Lua's `global_State *g = G(L);`), and
/// never assigned one.
bool namesState(const VarDecl *VD) {
  auto Allocated = [](const Expr *E) {
    const auto *CE = dyn_cast<CallExpr>(E->IgnoreParenCasts());
    return CE && allocFunction(CE) != AllocFn::None;
  };
  if (!VD->getInit() || Allocated(VD->getInit()))
    return false;
  const auto *FD =
      dyn_cast_or_null<FunctionDecl>(VD->getParentFunctionOrMethod());
  return !FD || !FD->getBody() || !anyNode(FD->getBody(), [&](const Stmt *St) {
    const auto *BO = dyn_cast<BinaryOperator>(St);
    const auto *L = BO && BO->getOpcode() == BO_Assign
                        ? dyn_cast<DeclRefExpr>(BO->getLHS()->IgnoreParens())
                        : nullptr;
    return L && L->getDecl() == VD && Allocated(BO->getRHS());
  });
}

/// What an update writes: a variable of static storage, an element of
/// one (`hist[k]`), or a field (`live`, `g.total`, `p->used`, `L->g->debt`,
/// `s->allocs` with `s = &stats`); null for a local, a parameter, or
/// memory through a pointer (`*(void **)x = head`: the block itself, not
/// the program's state).
const ValueDecl *updated(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  auto StateVar = [](const Expr *B) -> const VarDecl * {
    B = B->IgnoreParenImpCasts();
    while (true) {
      if (const auto *In = dyn_cast<MemberExpr>(B))
        B = In->getBase()->IgnoreParenImpCasts();
      else if (const auto *AS = dyn_cast<ArraySubscriptExpr>(B))
        B = AS->getBase()->IgnoreParenImpCasts();
      else
        break;
    }
    const auto *DR = dyn_cast<DeclRefExpr>(B);
    const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
    if (!VD)
      return nullptr;
    return isa<ParmVarDecl>(VD) || VD->hasGlobalStorage() || namesState(VD)
               ? VD
               : nullptr;
  };
  if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    // A field of state the function is handed, that lives in a global or
    // that a local names, not of a block a local allocates (`hdr->size`,
    // `((struct obj *)mem)->id`: the memory handed out).
    if (!StateVar(ME->getBase()))
      return nullptr;
    return dyn_cast<FieldDecl>(ME->getMemberDecl());
  }
  if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
    // A global array, or a global pointer to counts (`static long *hist`).
    const VarDecl *VD = StateVar(AS->getBase());
    return VD && VD->hasGlobalStorage() &&
                   (VD->getType()->isArrayType() ||
                    VD->getType()->isPointerType())
               ? VD
               : nullptr;
  }
  // `(*count)++` through a global pointer: the global names the state.
  if (const auto *UO = dyn_cast<UnaryOperator>(E);
      UO && UO->getOpcode() == UO_Deref)
    if (const auto *DR =
            dyn_cast<DeclRefExpr>(UO->getSubExpr()->IgnoreParenImpCasts()))
      if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl());
          VD && VD->hasGlobalStorage())
        return VD;
  if (const auto *DR = dyn_cast<DeclRefExpr>(E))
    if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl());
        VD && VD->hasGlobalStorage())
      return VD;
  return nullptr;
}

/// The lvalue St accumulates into (`x++`, `x += n`, `x -= n`, `x = x -
/// osize + nsize`), or null.  A plain store (`oom = 1`, a lock's `owner =
/// self`) is a state the routed call's absence leaves as it was, not a
/// count that misses it.
const Expr *writtenBy(const Stmt *St) {
  if (const auto *UO = dyn_cast<UnaryOperator>(St);
      UO && UO->isIncrementDecrementOp())
    return UO->getSubExpr();
  const auto *BO = dyn_cast<BinaryOperator>(St);
  if (!BO || !BO->isAssignmentOp())
    return nullptr;
  if (BO->isCompoundAssignmentOp())
    return BO->getOpcode() == BO_AddAssign || BO->getOpcode() == BO_SubAssign ||
                   BO->getOpcode() == BO_MulAssign
               ? BO->getLHS()
               : nullptr;
  // `x = x + n`: the target read on the right.
  const Expr *L = BO->getLHS()->IgnoreParenImpCasts();
  auto Same = [&](const Expr *E) {
    E = E->IgnoreParenImpCasts();
    if (const auto *A = dyn_cast<DeclRefExpr>(L))
      if (const auto *B = dyn_cast<DeclRefExpr>(E))
        return A->getDecl() == B->getDecl();
    if (const auto *A = dyn_cast<MemberExpr>(L))
      if (const auto *B = dyn_cast<MemberExpr>(E))
        return A->getMemberDecl() == B->getMemberDecl();
    return false;
  };
  return anyNode(BO->getRHS(),
                 [&](const Stmt *X) {
                   const auto *E = dyn_cast<Expr>(X);
                   return E && Same(E);
                 })
             ? BO->getLHS()
             : nullptr;
}

struct Update {
  const ValueDecl *Target;
  const Expr *At;
  const FunctionDecl *In; // where the update is written
  // An update through a pointer parameter (`(*count)++`): the parameter,
  // and the `&total` that hands the target's address in.
  const ParmVarDecl *Through = nullptr;
  const Expr *HandedAddr = nullptr;
};

/// The pointer parameter E writes through (`*count`, `count[k]`), or null.
const ParmVarDecl *throughParam(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  const Expr *Base = nullptr;
  if (const auto *UO = dyn_cast<UnaryOperator>(E);
      UO && UO->getOpcode() == UO_Deref)
    Base = UO->getSubExpr();
  else if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E))
    Base = AS->getBase();
  const auto *DR =
      Base ? dyn_cast<DeclRefExpr>(Base->IgnoreParenImpCasts()) : nullptr;
  return DR ? dyn_cast<ParmVarDecl>(DR->getDecl()) : nullptr;
}

/// The calls from the routed allocator down to the function being read
/// (Chain[i] is in the i-th function and calls the next), and the
/// program's calls of the allocator itself.
struct CallPath {
  const std::vector<const CallExpr *> &AllocatorCalls;
  std::vector<const CallExpr *> Chain;
};

using HandedFn = llvm::function_ref<void(const ValueDecl *, const Expr *)>;
void handedTargets(const Expr *Arg, size_t Level, const CallPath &Path,
                   HandedFn Handed);

/// What the callers hand in for parameter P of the function at level Level
/// of Path: Handed gets the variable or field of each `&total` /
/// `&s->live`, with the `&` expression.
void handedThrough(const ParmVarDecl *P, size_t Level, const CallPath &Path,
                   HandedFn Handed) {
  unsigned Index = P->getFunctionScopeIndex();
  auto Follow = [&](const CallExpr *C, size_t L) {
    if (Index < C->getNumArgs())
      handedTargets(C->getArg(Index), L, Path, Handed);
  };
  if (Level == 0)
    for (const CallExpr *C : Path.AllocatorCalls)
      Follow(C, 0);
  else
    Follow(Path.Chain[Level - 1], Level - 1);
}

/// What argument Arg of a call made at level Level hands in: `&total`, an
/// array, or a pointer the caller was itself handed (`bump(count, n)` in
/// `xmalloc(n, count)`), followed up the calls.
void handedTargets(const Expr *Arg, size_t Level, const CallPath &Path,
                   HandedFn Handed) {
  Arg = Arg->IgnoreParenCasts();
  if (const auto *UO = dyn_cast<UnaryOperator>(Arg);
      UO && UO->getOpcode() == UO_AddrOf) {
    const Expr *Sub = UO->getSubExpr()->IgnoreParenImpCasts();
    if (const auto *DR = dyn_cast<DeclRefExpr>(Sub))
      if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl()))
        Handed(VD, UO);
    if (const auto *ME = dyn_cast<MemberExpr>(Sub))
      if (const auto *FD = dyn_cast<FieldDecl>(ME->getMemberDecl()))
        Handed(FD, UO);
    return;
  }
  const auto *DR = dyn_cast<DeclRefExpr>(Arg);
  if (const auto *P = DR ? dyn_cast<ParmVarDecl>(DR->getDecl()) : nullptr)
    handedThrough(P, Level, Path, Handed);
  else if (const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
           VD && VD->getType()->isArrayType())
    Handed(VD, DR); // an array of counts, `count_by_size(n, hist)`
}

/// The updates FD's body makes, and those of the functions of the file it
/// calls, up to three calls deep (never the allocation functions, which the
/// rewrite handles, nor the runtime's).  An update through a pointer
/// parameter is one of what the callers hand in.
void collectUpdates(const FunctionDecl *FD, CallPath &Path,
                    std::set<const FunctionDecl *> &Seen,
                    std::vector<Update> &Out) {
  const FunctionDecl *Def = FD->getDefinition();
  if (!Def || !Def->getBody() || !Seen.insert(Def).second)
    return;
  anyNode(Def->getBody(), [&](const Stmt *St) {
    if (const Expr *L = writtenBy(St)) {
      if (const ValueDecl *T = updated(L))
        Out.push_back({T, cast<Expr>(St), Def});
      else if (const ParmVarDecl *P = throughParam(L))
        handedThrough(P, Path.Chain.size(), Path,
                      [&](const ValueDecl *T, const Expr *Addr) {
                        Out.push_back({T, cast<Expr>(St), Def, P, Addr});
                      });
    }
    if (const auto *CE = dyn_cast<CallExpr>(St);
        CE && Path.Chain.size() < 3 && CE->getDirectCallee() &&
        allocFunction(CE) == AllocFn::None &&
        !isRuntimeFunction(CE->getDirectCallee())) {
      Path.Chain.push_back(CE);
      collectUpdates(CE->getDirectCallee(), Path, Seen, Out);
      Path.Chain.pop_back();
    }
    return false;
  });
}

/// E's value is used: it is no statement of its own (`n++;`), no left
/// operand of a comma, no operand of a cast to void.
bool valueUsed(ASTContext &Ctx, const Expr *E) {
  const Expr *Cur = E;
  const Expr *Up = parentSkippingParens(Ctx, Cur, &Cur);
  if (!Up)
    return !fullExpressionDiscarded(Ctx, Cur); // a condition or a return's
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
/// bookkeeping), or to hand its address to the updater (Handed: the
/// `&total` of each `xmalloc(n, &total)`)?  Returns the first read.
const Expr *readIn(const FunctionDecl *G, const ValueDecl *T,
                   const llvm::SmallPtrSetImpl<const Expr *> &Handed) {
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
    if (Handed.count(E) || (Up && Handed.count(Up)))
      return false;
    // Handed to free (a destroy walking its chunks): no value read.
    if (const auto *C = dyn_cast_or_null<CallExpr>(Up);
        C && C->getDirectCallee() && C->getDirectCallee()->getIdentifier() &&
        llvm::is_contained({"free", "munmap"}, C->getDirectCallee()->getName()))
      return false;
    Found = E;
    return true;
  });
  return Found;
}

} // namespace

void checkAllocatorEffects(Session &S) {
  // The program's allocators and deallocators with a call the rewrite
  // routes to the runtime.
  std::vector<const FunctionDecl *> Routed;
  llvm::SmallPtrSet<const FunctionDecl *, 8> Known;
  std::map<const FunctionDecl *, std::vector<const CallExpr *>> Calls;
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
    if (!Routes || !FD->getDefinition() || !FD->getDefinition()->getBody())
      return false;
    Calls[FD->getCanonicalDecl()].push_back(CE);
    if (Known.insert(FD->getCanonicalDecl()).second)
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
        !Own.count(G->getCanonicalDecl()) && !S.isIgnoredLoc(G->getLocation()))
      Readers.push_back(G);
  std::set<std::pair<const FunctionDecl *, const ValueDecl *>> Said;
  for (const FunctionDecl *FD : Routed) {
    std::set<const FunctionDecl *> Seen;
    std::vector<Update> Updates;
    CallPath Path{Calls[FD->getCanonicalDecl()], {}};
    collectUpdates(FD, Path, Seen, Updates);
    for (const Update &U : Updates) {
      if (!Said.insert({FD->getCanonicalDecl(), U.Target}).second)
        continue;
      // Every call that hands the target in (`&total` at each call).
      llvm::SmallPtrSet<const Expr *, 4> Handed;
      for (const Update &V : Updates)
        if (V.Target == U.Target && V.HandedAddr)
          Handed.insert(V.HandedAddr);
      const FunctionDecl *Reader = nullptr;
      for (const FunctionDecl *G : Readers)
        if (G != U.In && readIn(G, U.Target, Handed)) {
          Reader = G;
          break;
        }
      // A global other files see may be read there.
      const auto *GV = dyn_cast<VarDecl>(U.Target);
      bool Elsewhere = !Reader && GV && GV->hasExternalFormalLinkage();
      if (!Reader && !Elsewhere)
        continue;
      bool Alloc = hasAttribute(FD, "allocator");
      // Counts a global pointer leads to (`(*count)++`, `hist[k]++` with
      // `static long *hist`) are named as what it points to.
      std::string Pointee = !U.Through && GV && GV->getType()->isPointerType()
                                ? "*"
                                : std::string();
      std::string Fn = quoted(FD->getNameAsString());
      std::string Via = U.In->getCanonicalDecl() == FD->getCanonicalDecl()
                            ? ""
                            : " by " + quoted(U.In->getNameAsString()) +
                                  ", which " + Fn + " calls,";
      S.report(
          Diag::AllocatorEffects, U.At->getExprLoc(),
          quoted(Pointee + U.Target->getNameAsString()) + " is updated here" +
              (U.Through ? " through " + quoted(U.Through->getNameAsString())
                         : "") +
              Via + " for each call of " + Fn +
              (Alloc ? " (CP_ALLOCATOR), but the calls that allocate "
                       "compact objects"
                     : " (CP_DEALLOCATOR), but the calls that free "
                       "compact objects") +
              " go to the runtime and run none of " + Fn + "'s code, so " +
              (Reader ? quoted(Reader->getNameAsString()) + ", which reads it,"
                      : std::string("code of other files, which it is "
                                    "visible to,")) +
              " sees a value that misses them: keep "
              "such bookkeeping at the calls, or let it count other "
              "memory only",
          {CharSourceRange::getTokenRange(U.At->getSourceRange())});
    }
  }
}

} // namespace compactptr
