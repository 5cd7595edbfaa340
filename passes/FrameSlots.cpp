//===- FrameSlots.cpp - the checked form's roots: frames of slots ---------===//
//
// In:  a function in the checked form (Checked.cpp) and the Planner's
//      answer to "may this call reach a safepoint" (an allocation of a
//      compact object, cp_safepoint(), a function of the TU that reaches
//      one, code the engine cannot see).
// Out: the function's frame of slots.  Every scalar compact-pointer local
//      and parameter has a slot; it stays an ordinary variable (a register,
//      most of the time) and is saved into its slot before a call that may
//      reach a safepoint and read back after it, when it may be used after
//      the call.  Allocation sites and polls save only on their slow path
//      (a switch pending, or an arena that cannot serve the allocation), so
//      the common case costs a load and a branch.  The frame is pushed
//      before the first statement of the body that saves a root, so paths
//      that return before it pay nothing; slow paths in a function without
//      one register their roots out of line (cp__saved_slow).  Which calls go first
//      inside a full expression: SafepointCalls.cpp.
// Invariants: a variable is saved only where it is in scope and named by
//      itself (no inner declaration hides it); its slot is read back before
//      any later use.  Liveness is approximated from the source: a use
//      after the call, in the same full expression, or anywhere in a loop
//      around the call (every variable in scope, if the function has
//      labels, or variably modified types with bounds the CFG misses);
//      clang's LiveVariables on the function's CFG then drops the
//      variables whose every later use follows an assignment (not in
//      functions that call setjmp, nor where the CFG marks an edge
//      unreachable; a cleanup variable is live in all its scope).
// Tests: test/switchable/cfg-liveness.c, test/switchable/liveness-hidden-reads.c,
//        test/switchable/allocation-safepoint.c, test/switchable/slot-roots.c,
//        test/switchable/builders.test.
//
//===----------------------------------------------------------------------===//
#include "Walker.h"
#include "clang/AST/ParentMapContext.h"
#include <functional>

using namespace clang;

namespace compactptr {

// ---- frame slots --------------------------------------------------------

bool CheckedWalker::isSlotRoot(const VarDecl *VD) const {
  // A variable whose address is taken may be written through it while a
  // call runs: it is registered by address instead.
  if (!VD->hasLocalStorage() || !VD->getIdentifier() || AddrTaken.count(VD))
    return false;
  QualType T = VD->getType();
  return slotType(VD) && !T.isConstQualified() && !T.isVolatileQualified();
}

CompactType *CheckedWalker::slotType(const VarDecl *VD) const {
  QualType T = VD->getType();
  if (!T->isPointerType())
    return nullptr;
  if (CompactType *C = M.pointeeOf(T))
    return C;
  // glibc's pthread_cleanup_push keeps its argument in `void
  // *__cancel_arg` until the handler runs (at pthread_cleanup_pop, or when
  // the thread is cancelled, from the jump back to the macro's setjmp): a
  // compact pointer there is a root of its initializer's type, or the
  // handler got the address the switch had left behind (exit 70).
  if (!isCleanupArgument(VD) || !VD->getInit())
    return nullptr;
  CompactType *C = M.pointeeOf(VD->getInit()->IgnoreParenImpCasts()->getType());
  // Under a nested pthread_cleanup_push the inner `__cancel_arg` hides it,
  // and the saves there could not name it: no root then (Escapes.cpp warns).
  return C && !cleanupArgHidden(S.Ctx, VD) ? C : nullptr;
}

bool isCleanupArgument(const VarDecl *VD) {
  return VD->getIdentifier() && VD->getName() == "__cancel_arg" &&
         VD->getType()->isVoidPointerType() && VD->getLocation().isMacroID();
}

bool cleanupArgHidden(ASTContext &Ctx, const VarDecl *VD) {
  auto Ps = Ctx.getParents(*VD);
  const auto *DS = Ps.empty() ? nullptr : Ps[0].get<DeclStmt>();
  auto Up = DS ? Ctx.getParents(*DS) : DynTypedNodeList(DynTypedNode());
  const Stmt *Scope = DS && !Up.empty() ? Up[0].get<Stmt>() : nullptr;
  std::function<bool(const Stmt *)> Inner = [&](const Stmt *St) {
    if (!St)
      return false;
    if (const auto *D = dyn_cast<DeclStmt>(St))
      for (const Decl *X : D->decls())
        if (const auto *V = dyn_cast<VarDecl>(X);
            V && V != VD && isCleanupArgument(V))
          return true;
    return llvm::any_of(St->children(), Inner);
  };
  return Scope && Inner(Scope);
}

unsigned CheckedWalker::offsetOf(SourceLocation L) const {
  // A macro argument's tokens where the user wrote them (a loop in
  // `STMT(while (c) p = p->next;)` has a poll in front of it, and p is
  // used after it); a macro body's at the start of its expansion.
  SourceLocation E = SM.getFileLoc(L);
  return SM.getFileID(E) == BodyFID ? SM.getFileOffset(E) : ~0u;
}

unsigned CheckedWalker::endOffsetOf(SourceLocation L) const {
  // As offsetOf, but a macro body's token is at the END of its expansion,
  // so that a range ending in a macro body covers the arguments written
  // before that end: `STMT(nn = alloc(c);)` is a statement from `STMT`
  // to its `)`, and the call in its argument lies inside it.
  while (L.isMacroID())
    L = SM.isMacroArgExpansion(L) ? SM.getImmediateSpellingLoc(L)
                                  : SM.getImmediateExpansionRange(L).getEnd();
  return SM.getFileID(L) == BodyFID ? SM.getFileOffset(L) : ~0u;
}

/// `void *r; pthread_join(t, &r); merge(r, ...)`: a thread's result
/// joined into a `void *` local is the translated copy the runtime kept
/// (cp_thread_join), but a poll of main's loops or a call that may reach a
/// safepoint between the join and the use would leave it behind.  Such a
/// local is a frame root of no type (the switch translates what in it is a
/// compact address) when every use is the join's result argument, a
/// conversion to a compact pointer type or a test, and every store a
/// null or a compact pointer: then it never holds an integer that the
/// switch could mistake for an address.
void CheckedWalker::joinResults(const CompoundStmt *Body) {
  std::map<const VarDecl *, bool> Cand; // false: a use rules it out
  std::function<void(const Stmt *)> Walk = [&](const Stmt *St) {
    if (!St)
      return;
    for (const Stmt *C : St->children())
      Walk(C);
    const auto *DR = dyn_cast<DeclRefExpr>(St);
    const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
    if (!VD || !VD->hasLocalStorage() || isa<ParmVarDecl>(VD) ||
        !VD->getType()->isVoidPointerType() ||
        VD->getType().isVolatileQualified())
      return;
    const Expr *Cur = DR;
    const Expr *P = parentSkippingParens(S.Ctx, DR, &Cur);
    bool Ok = false;
    if (const auto *UO = dyn_cast_or_null<UnaryOperator>(P);
        UO && UO->getOpcode() == UO_AddrOf) {
      // &r as pthread_join's result argument (through casts to void **).
      const Expr *A = UO;
      const Expr *Up = parentSkippingParens(S.Ctx, UO, &A);
      while (const auto *C = dyn_cast_or_null<CastExpr>(Up))
        Up = parentSkippingParens(S.Ctx, C, &A);
      const auto *CE = dyn_cast_or_null<CallExpr>(Up);
      const FunctionDecl *F = CE ? CE->getDirectCallee() : nullptr;
      if (F && F->getIdentifier() && CE->getNumArgs() >= 2 &&
          CE->getArg(1)->IgnoreParenCasts() == UO &&
          (F->getName() == "pthread_join" ||
           F->getName() == "pthread_tryjoin_np" ||
           F->getName() == "pthread_timedjoin_np")) {
        Cand.emplace(VD, true);
        return;
      }
    } else if (const auto *IC = dyn_cast_or_null<ImplicitCastExpr>(P);
               IC && IC->getCastKind() == CK_LValueToRValue) {
      const Expr *V = IC;
      const Expr *Use = parentSkippingParens(S.Ctx, IC, &V);
      const auto *C = dyn_cast_or_null<CastExpr>(Use);
      Ok =
          C && ((C->getCastKind() == CK_BitCast && M.pointeeOf(C->getType())) ||
                C->getCastKind() == CK_PointerToBoolean);
      if (const auto *BO = dyn_cast_or_null<BinaryOperator>(Use);
          BO && BO->isEqualityOp())
        Ok = BO->getRHS()->IgnoreParenImpCasts()->isNullPointerConstant(
                 S.Ctx, Expr::NPC_ValueDependentIsNotNull) ||
             BO->getLHS()->IgnoreParenImpCasts()->isNullPointerConstant(
                 S.Ctx, Expr::NPC_ValueDependentIsNotNull);
      if (const auto *UO = dyn_cast_or_null<UnaryOperator>(Use);
          UO && UO->getOpcode() == UO_LNot)
        Ok = true;
    } else if (const auto *BO = dyn_cast_or_null<BinaryOperator>(P);
               BO && BO->getOpcode() == BO_Assign &&
               BO->getLHS()->IgnoreParens() == DR) {
      const Expr *R = BO->getRHS()->IgnoreParenImpCasts();
      Ok = R->isNullPointerConstant(S.Ctx, Expr::NPC_ValueDependentIsNotNull) ||
           M.pointeeOf(R->getType());
    }
    if (!Ok)
      Cand[VD] = false;
  };
  Walk(Body);
  for (const auto &[VD, Ok] : Cand)
    if (Ok && !VD->hasInit())
      JoinResults.insert(VD);
}

/// The statement a declaration in DS is scoped to: the block, or the for,
/// if, while or switch statement that declares it.
static const Stmt *scopeOf(ASTContext &Ctx, const DeclStmt *DS, const Stmt *Body) {
  auto Ps = Ctx.getParents(*DS);
  const Stmt *P = Ps.empty() ? nullptr : Ps[0].get<Stmt>();
  return P ? P : Body;
}

void CheckedWalker::collectSlots(const CompoundStmt *Body) {
  BodyFID = SM.getFileID(SM.getExpansionLoc(Body->getBeginLoc()));
  std::function<void(const Stmt *)> Addr = [&](const Stmt *St) {
    if (!St)
      return;
    if (const auto *UO = dyn_cast<UnaryOperator>(St); UO && UO->getOpcode() == UO_AddrOf)
      if (const auto *DR = dyn_cast<DeclRefExpr>(UO->getSubExpr()->IgnoreParens()))
        if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl()))
          AddrTaken.insert(VD);
    for (const Stmt *C : St->children())
      Addr(C);
  };
  Addr(Body);
  joinResults(Body);
  unsigned BB = offsetOf(Body->getBeginLoc()), BE = endOffsetOf(Body->getEndLoc());
  llvm::DenseMap<const VarDecl *, size_t> Index;
  auto add = [&](const VarDecl *VD, unsigned DeclEnd, unsigned SB, unsigned SE,
                 const Stmt *Scope) {
    Locals.push_back({VD, DeclEnd, SB, SE});
    if (!isSlotRoot(VD))
      return;
    Index[VD] = Slots.size();
    Slots.push_back({VD, (unsigned)Slots.size(), DeclEnd, SB, SE, {}, Scope});
  };
  for (const ParmVarDecl *P : FD->parameters())
    if (P->getIdentifier())
      add(P, 0, BB, BE, nullptr);
  std::function<void(const Stmt *)> Walk = [&](const Stmt *St) {
    if (!St)
      return;
    if (const auto *DS = dyn_cast<DeclStmt>(St)) {
      const Stmt *Scope = scopeOf(S.Ctx, DS, Body);
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D); VD && VD->getIdentifier() &&
                                                   VD->isLocalVarDecl())
          // pthread_cleanup_push's `__cancel_arg` sits at the start of the
          // macro's expansion, as the __sigsetjmp after it does: in scope
          // there, so the landing of a cancellation reads it back.
          add(VD, offsetOf(VD->getEndLoc()) + (isCleanupArgument(VD) ? 0 : 1),
              offsetOf(Scope->getBeginLoc()), endOffsetOf(Scope->getEndLoc()),
              Scope == Body ? nullptr : Scope);
    } else if (const auto *DR = dyn_cast<DeclRefExpr>(St)) {
      if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl()))
        if (auto It = Index.find(VD); It != Index.end())
          Slots[It->second].Refs.push_back(offsetOf(DR->getLocation()));
    } else if (isa<WhileStmt>(St) || isa<ForStmt>(St) ||
               (isa<DoStmt>(St) && !Pl.runsOnce(St))) {
      // A statement macro's `do { } while (0)` runs once and is never
      // polled: no save at its start (the frame would open inside a run
      // versioned by mode that holds the macro).
      Loops.push_back({offsetOf(St->getBeginLoc()), endOffsetOf(St->getEndLoc())});
      // (One inside a native region is not polled: saving for it as
      // well costs a slot at most.)
      if (const Stmt *LoopBody = loopBodyOf(St); Pl.spins(St) && LoopBody)
        SpinPolls[Loops.back().first] = offsetOf(LoopBody->getBeginLoc());
    } else if (isa<LabelStmt>(St) || isa<AddrLabelExpr>(St) ||
               isa<IndirectGotoStmt>(St)) {
      AllLive = true; // a goto may jump back: every variable in scope is live
    }
    for (const Stmt *C : St->children())
      Walk(C);
  };
  Walk(Body);
}

void CheckedWalker::computeLiveness() {
  // A function that calls setjmp (vfork, getcontext) resumes at that call
  // after a later one (longjmp from inside it) where the CFG has no edge,
  // with the registers of the first return: every variable in scope is
  // live at every call, the setjmp call saves and reads back like a call
  // that may switch (Planner::mayReach), and slots are not cleared after
  // reading back, so the second return reads each variable from a slot the
  // switch translated, as it was at the last call (a local changed after
  // that is indeterminate after longjmp in C anyway; a volatile one is no
  // slot root but a root in place, registered at its declaration).
  // So do functions with variably modified types beyond a plain VLA
  // declaration: the CFG misses the reads in a bound under a pointer, a
  // cast or typeof, which the code still evaluates -- and so does the
  // source approximation (it walks statements, not types): every variable
  // in scope is live there.
  auto vm = [](QualType T) { return !T.isNull() && T->isVariablyModifiedType(); };
  std::function<void(const Stmt *)> Scan = [&](const Stmt *St) {
    if (!St)
      return;
    if (const auto *CE = dyn_cast<CallExpr>(St))
      if (!ReturnsTwice && returnsTwice(CE->getDirectCallee())) {
        ReturnsTwice = true;
        ReturnsTwiceName = CE->getDirectCallee()->getName().str();
      }
    if (const auto *DS = dyn_cast<DeclStmt>(St))
      for (const Decl *D : DS->decls()) {
        if (const auto *TD = dyn_cast<TypedefNameDecl>(D))
          BoundsInTypes |= vm(TD->getUnderlyingType());
        else if (const auto *VD = dyn_cast<ValueDecl>(D)) {
          QualType T = VD->getType();
          const auto *VA = dyn_cast<VariableArrayType>(T.getTypePtr());
          BoundsInTypes |= vm(T) && !(VA && !vm(VA->getElementType()));
        }
      }
    if (const auto *CE = dyn_cast<ExplicitCastExpr>(St))
      BoundsInTypes |= vm(CE->getTypeAsWritten());
    if (const auto *UE = dyn_cast<UnaryExprOrTypeTraitExpr>(St))
      BoundsInTypes |= UE->isArgumentType() && vm(UE->getArgumentType());
    if (const auto *CL = dyn_cast<CompoundLiteralExpr>(St))
      BoundsInTypes |= vm(CL->getType());
    if (const auto *VA = dyn_cast<VAArgExpr>(St))
      BoundsInTypes |= vm(VA->getType());
    for (const Stmt *C : St->children())
      Scan(C);
  };
  Scan(FD->getBody());
  AllLive |= BoundsInTypes || ReturnsTwice;
  if (Slots.empty() || !cfg() || CfgPruned)
    return;
  Liveness = CfgCtx->getAnalysis<LiveVariables>();
}

/// The function's CFG, built at the first question; null where it cannot
/// be trusted: setjmp, bounds in types (computeLiveness).
const CFG *CheckedWalker::cfg() {
  if (ReturnsTwice || BoundsInTypes)
    return nullptr;
  if (CfgCtx)
    return CfgCtx->getCFG();
  CfgCtx = std::make_unique<AnalysisDeclContext>(nullptr, FD);
  // Every expression an element of its block, as Sema's own analyses ask:
  // a call's position, and the uses after it, are then in the CFG.  No
  // edge pruned as "cannot be taken": `v < 5 || v > 3` on a volatile can
  // be false.
  CfgCtx->getCFGBuildOptions().setAllAlwaysAdd();
  CfgCtx->getCFGBuildOptions().PruneTriviallyFalseEdges = false;
  const CFG *G = CfgCtx->getCFG();
  if (!G)
    return nullptr;
  // Edges the CFG still marks unreachable -- a switch over an enum that
  // names every enumerator and has no default, which an out-of-range value
  // (flags, a cast) leaves through -- are paths LiveVariables does not
  // follow: no liveness for such a function (reaches() follows them).
  for (const CFGBlock *B : *G)
    for (const CFGBlock::AdjacentBlock &A : B->succs())
      CfgPruned |= !A.isReachable() && A.getPossiblyUnreachableBlock();
  for (const CFGBlock *B : *G)
    for (unsigned I = 0; I < B->size(); ++I)
      if (auto E = (*B)[I].getAs<CFGStmt>())
        CfgPos.try_emplace(E->getStmt(), B, I);
  return G;
}

/// Whether a path of the function's CFG leads from From to To; nothing
/// where the CFG cannot tell (none, setjmp, either not an element of it).
std::optional<bool> CheckedWalker::reaches(const Stmt *From, const Stmt *To) {
  const CFG *G = cfg();
  if (!G)
    return std::nullopt;
  auto F = CfgPos.find(From), T = CfgPos.find(To);
  if (F == CfgPos.end() || T == CfgPos.end())
    return std::nullopt;
  auto [FB, FI] = F->second;
  auto [TB, TI] = T->second;
  if (FB == TB && FI < TI)
    return true;
  // Through the successors (a block reaches itself only around a loop),
  // edges marked unreachable included: a switch over an enum that names
  // every enumerator is left by an out-of-range value.
  llvm::BitVector Seen(G->getNumBlockIDs());
  llvm::SmallVector<const CFGBlock *, 16> Work;
  auto push = [&](const CFGBlock *B) {
    for (const CFGBlock::AdjacentBlock &A : B->succs())
      if (const CFGBlock *Next = A.isReachable()
                                     ? A.getReachableBlock()
                                     : A.getPossiblyUnreachableBlock();
          Next && !Seen.test(Next->getBlockID())) {
        Seen.set(Next->getBlockID());
        Work.push_back(Next);
      }
  };
  push(FB);
  while (!Work.empty()) {
    const CFGBlock *B = Work.pop_back_val();
    if (B == TB)
      return true;
    push(B);
  }
  return false;
}

/// True when the CFG says no path from right after call At reads VD before
/// assigning it.  False where it does not know: no CFG, At not a plain
/// call in it, or a call of a native region (whose roots stay in their
/// slots from the entry to the exit: NativeRegions.cpp).
bool CheckedWalker::deadAfter(const Stmt *At, const VarDecl *VD) {
  const auto *CE = dyn_cast<CallExpr>(At);
  if (!Liveness || !CE || isNativeTransition(CE) || Pl.isNativeCall(CE) ||
      InRegion.count(CE))
    return false;
  auto It = CfgPos.find(CE);
  if (It == CfgPos.end())
    return false;
  auto [B, I] = It->second;
  for (unsigned J = I + 1; J < B->size(); ++J)
    if (auto E = (*B)[J].getAs<CFGStmt>())
      return !Liveness->isLive(E->getStmt(), VD); // live at its start
  return !Liveness->isLive(B, VD);                // live at the block's end
}

/// A site whose roots are saved only on its slow path: an allocation of
/// compact objects (malloc, calloc) or cp_safepoint().
bool CheckedWalker::slowPathSite(const CallExpr *CE) const {
  if (allocatesObject(S, CE))
    return !resizesBlock(CE);
  const FunctionDecl *G = CE->getDirectCallee();
  return G && G->getName() == "cp_safepoint" && CE->getNumArgs() == 0;
}

/// St lies inside Scope in the AST (true without either).
bool CheckedWalker::within(const Stmt *St, const Stmt *Scope) const {
  if (!St || !Scope)
    return true;
  // Up through statements and the declarations whose initializers they
  // are, to the function.
  for (DynTypedNode N = DynTypedNode::create(*St);;) {
    if (N.get<Stmt>() == Scope)
      return true;
    DynTypedNodeList Ps = S.Ctx.getParents(N);
    if (Ps.empty() || Ps[0].get<FunctionDecl>() ||
        !(Ps[0].get<Stmt>() || Ps[0].get<VarDecl>()))
      return false;
    N = Ps[0];
  }
}

/// The slot roots live across a call at [CB, CE] of full expression
/// [EB, EE] (a poll: CB == CE, EB > EE): in scope there, and used after it,
/// in the same full expression, or in a loop around it.  Ok is false after
/// an error (a variable hidden by an inner one of the same name).
std::vector<const CheckedWalker::SlotRoot *>
CheckedWalker::liveAt(unsigned CB, unsigned CE, unsigned EB, unsigned EE,
                      const Stmt *At, bool &Ok, bool Report) {
  std::vector<const SlotRoot *> Out;
  Ok = true;
  auto inScope = [&](unsigned DeclEnd, unsigned SB, unsigned SE) {
    return DeclEnd <= CB && SB <= CB && CE <= SE;
  };
  for (const SlotRoot &R : Slots) {
    if (!inScope(R.DeclEnd, R.ScopeB, R.ScopeE))
      continue;
    // Inside one macro expansion offsets cannot tell (Scope): a call there
    // outside the variable's block does not see it.
    if (At && isa<CallExpr>(At) && At->getBeginLoc().isMacroID() &&
        !within(At, R.Scope))
      continue;
    // A cleanup function reads the variable when its scope ends, which
    // neither the source nor the CFG shows as a use.
    bool Live = AllLive || R.VD->hasAttr<CleanupAttr>(), InExpr = Live && !AllLive;
    for (unsigned X : R.Refs) {
      // (A use in the macro expansion the call is in counts at the
      // expansion's start, inside [EB, EE] of the full expression.)
      if (X >= EB && X <= EE) {
        InExpr = Live = true;
        break;
      }
      if (Live)
        continue;
      // At CE itself: the first token after a poll placed at CB == CE.
      if (X >= CE) {
        Live = true;
        continue;
      }
      for (auto [LB, LE] : Loops)
        if (LB <= CB && CE <= LE && R.ScopeB <= LB && X >= LB && X <= LE) {
          Live = true;
          break;
        }
    }
    // The source says "used later"; the CFG may know that every later use
    // follows an assignment (a cursor reset before its next loop).  Uses
    // in the same full expression stay live whatever the CFG's order: C
    // leaves the order of operands open, and the printed text may read
    // them after the call.
    if (!Live || (!InExpr && deadAfter(At, R.VD)))
      continue;
    // An inner declaration of the same name hides it here.  (Not an error
    // while the frame is placed: every use there counts as one in the same
    // full expression, the call's own CFG liveness is not asked.)
    for (const LocalVar &L : Locals)
      if (Report && L.VD != R.VD && L.VD->getName() == R.VD->getName() &&
          inScope(L.DeclEnd, L.ScopeB, L.ScopeE) && L.ScopeB >= R.ScopeB &&
          L.DeclEnd > R.DeclEnd) {
        S.report(Diag::Unrewritable, At->getBeginLoc(),
                 "'" + R.VD->getName().str() +
                     "' holds a compact pointer across this call, which may "
                     "reach a safepoint, but an inner declaration of the same "
                     "name hides it here; rename one of them",
                 {CharSourceRange::getTokenRange(At->getSourceRange())});
        Ok = false;
        return {};
      }
    Out.push_back(&R);
  }
  return Out;
}

/// `Slot = V` and `V = Slot` for a compact-pointer variable: plain
/// assignments (void * converts both ways), or byte copies where the
/// pointee is qualified (no cast may drop a qualifier).  A slot of the
/// function's frame is cleared once read back (Clear): it stays registered
/// while the variable is dead or changes, and a stale value there would be
/// a root into freed memory at a later safepoint (the switch would follow
/// it, COMPACTPTR_VERIFY stop on it).
/// DoSave or DoRestore false: one half only (a native region, whose entry
/// saves and whose exit reads back).
static void saveRestore(const VarDecl *V, const std::string &Slot, bool Clear,
                        std::string &Save, std::string &Restore, bool DoSave = true,
                        bool DoRestore = true) {
  std::string N = V->getName().str();
  QualType P = V->getType()->getPointeeType();
  bool Bytes = P.isConstQualified() || P.isVolatileQualified();
  if (DoSave)
    Save += (Save.empty() ? "" : ", ") +
            (Bytes ? "__builtin_memcpy(&" + Slot + ", &" + N + ", sizeof " + N + ")"
                   : Slot + " = " + N);
  if (!DoRestore)
    return;
  Restore += Bytes ? "__builtin_memcpy(&" + N + ", &" + Slot + ", sizeof " + N + "); "
                   : N + " = " + Slot + "; ";
  if (Clear)
    Restore += Slot + " = 0; ";
}

/// The most roots cp__saved_slow registers (CP__SAVED_MAX, Emit.cpp).
static constexpr size_t SavedMax = 16;

/// The text that saves the roots live across a call and reads them back:
/// into the function's frame of slots, or, where the function has none
/// (it saves roots only on slow paths), into slots that the slow path
/// registers out of line (cp__saved_slow: the fast path stays small
/// enough to inline), or into a frame of its own that lives as long as
/// the call.
Printer::Spill CheckedWalker::spillAt(unsigned CB, unsigned CE, unsigned EB,
                                      unsigned EE, const Stmt *At, bool SlowPath,
                                      NativeRegion *Region,
                                      const std::set<const VarDecl *> &Kept) {
  Printer::Spill Sp;
  if (InRegion.count(At))
    return Sp; // the roots are in their slots until the region's exit
  bool Ok;
  std::vector<const SlotRoot *> Live = liveAt(CB, CE, EB, EE, At, Ok, true);
  if (const auto *AC = dyn_cast<CallExpr>(At); AC && NotSavedAt.count(AC))
    llvm::erase_if(Live, [&](const SlotRoot *R) { return NotSavedAt[AC].count(R->VD); });
  if (!Ok || Live.empty())
    return Sp;
  for (const SlotRoot *R : Live)
    Sp.Saved.push_back(R->VD);
  // A returns-twice call must read its roots back from slots the switch
  // translates while later calls run: the function's frame of slots, not
  // a frame that lives as long as the call.  (Roots saved at other calls
  // without that frame are out of scope at every such call: the frame is
  // placed wherever one is live at one.)
  const auto *AtCall = dyn_cast<CallExpr>(At);
  if (ReturnsTwice && !SlotFrame && AtCall && returnsTwice(AtCall->getDirectCallee())) {
    S.report(Diag::Unrewritable, At->getBeginLoc(),
             "this function calls '" + ReturnsTwiceName + "' and holds compact "
                 "pointers across calls that may reach a safepoint, but its "
                 "frame of slots cannot be placed (the body begins or ends in "
                 "a macro)",
             {CharSourceRange::getTokenRange(At->getSourceRange())});
    return {};
  }
  if (SlotFrame) {
    // In a native region the roots stay in their slots from the entry to
    // the exit (NativeRegions.cpp).
    bool Entry = Region && Region->Enter == At, Exit = Region && Region->Leave == At;
    for (const SlotRoot *R : Live) {
      if (Exit && Region->Written.count(R->VD)) {
        S.report(Diag::SafepointInExpression, Region->Enter->getBeginLoc(),
                 "'" + R->VD->getName().str() + "' holds a compact pointer that "
                     "this native region assigns or declares: at its exit only "
                     "the value from before the switch is known; assign it "
                     "before or after the region",
                 {CharSourceRange::getTokenRange(Region->Enter->getSourceRange())});
        return {};
      }
      saveRestore(R->VD, "cp__slotframe.s[" + std::to_string(R->Index) + "]",
                  !ReturnsTwice && !Kept.count(R->VD),
                  Sp.Save, Sp.Restore, !Exit, !Entry);
    }
    return Sp;
  }
  if (Region) {
    S.report(Diag::Unrewritable, At->getBeginLoc(),
             "cannot keep the compact pointers live across this native region "
             "in roots: the function has no frame of slots",
             {CharSourceRange::getTokenRange(At->getSourceRange())});
    return {};
  }
  std::string K = std::to_string(Live.size());
  if (SlowPath && Live.size() <= SavedMax) {
    // Types and names are constants; the helper fills the descriptors.
    std::string Types, Names;
    for (size_t I = 0; I < Live.size(); ++I) {
      Types +=
          std::string(I ? ", " : "") + S.descRef(*slotType(Live[I]->VD), FD);
      Names += std::string(I ? ", " : "") + "\"" + Live[I]->VD->getName().str() + "\"";
      saveRestore(Live[I]->VD, "cp__ls[" + std::to_string(I) + "]", false, Sp.Save,
                  Sp.Restore);
    }
    Sp.Decls = "void *cp__ls[" + K + "]; static cp_type_desc_t *const cp__lt[" + K +
               "] = {" + Types + "}; static const char *const cp__ln[" + K + "] = {" +
               Names + "};";
    Sp.Helper = "cp__ls, " + K + ", cp__lt, cp__ln";
    return Sp;
  }
  Sp.Decls = "void *cp__ls[" + K + "]; cp_root_desc_t cp__lr[" + K +
             "]; cp_frame_t cp__lf; int cp__li __attribute__((unused)) = (";
  for (size_t I = 0; I < Live.size(); ++I) {
    std::string Slot = "cp__ls[" + std::to_string(I) + "]";
    Sp.Decls += "cp__root(&cp__lr[" + std::to_string(I) + "], (void *)&" +
                Slot + ", CP_ROOT_POINTER, 1, " +
                S.descRef(*slotType(Live[I]->VD), FD) + ", \"" +
                Live[I]->VD->getName().str() + "\"), ";
    saveRestore(Live[I]->VD, Slot, false, Sp.Save, Sp.Restore);
  }
  Sp.Decls += "cp__frame(&cp__lf, " + K + ", cp__lr));";
  Sp.Restore += "cp_frame_pop(&cp__lf);";
  return Sp;
}

/// A poll at offset Pos: `cp_safepoint();`, or with the live roots saved
/// on its slow path.
std::string CheckedWalker::pollText(unsigned Pos, const Stmt *At) {
  Printer::Spill Sp = spillAt(Pos, Pos, 1, 0, At, true);
  if (Sp.empty())
    return "cp_safepoint();";
  return "if (cp__safepoint_due()) { " + Sp.block() + " " +
         Sp.slow("2", "0", "0", "cp_safepoint_slow()") + "; " + Sp.Restore + "}";
}

/// The function's frame of slots, when a call saves roots on every path
/// (a call to a function that may reach a safepoint, not an allocation or
/// a poll): before the first statement of the body that saves a root
/// there (at the top of the body if a label could jump past it), so a
/// path that returns before it (a recursion's base case, even one that
/// allocates) pays nothing for the frame.  Without one, slow paths
/// register their roots themselves.
void CheckedWalker::placeSlotFrame(const CompoundStmt *Body) {
  if (Slots.empty())
    return;
  std::vector<const CallExpr *> Calls;
  mayReachCalls(Pl, Body, Calls);
  // Allocations in statement expressions save roots too (checkedText).
  std::vector<std::pair<const CallExpr *, const StmtExpr *>> Inner;
  callsInStmtExprs(Pl, Body, nullptr, Inner);
  for (auto [In, SE] : Inner)
    if (slowPathSite(In))
      Calls.push_back(In);
  std::set<const VarDecl *> Needed;
  std::vector<unsigned> Saves; // offsets of the calls and polls that save
  bool Unconditional = false;
  for (const CallExpr *CE : Calls) {
    unsigned CB = offsetOf(CE->getBeginLoc()), CEnd = endOffsetOf(CE->getEndLoc());
    bool Ok;
    for (const SlotRoot *R : liveAt(CB, CEnd, 0, ~0u, CE, Ok, /*Report=*/false)) {
      Needed.insert(R->VD);
      Unconditional |= !slowPathSite(CE);
      Saves.push_back(CB);
    }
  }
  if (!Unconditional)
    return;
  // A polled loop's poll is in front of it (main's loops, as far as the
  // frame needs: one that polls in its body calls what saves the same
  // roots) or at the start of its body (a spin loop's), where a variable
  // its `for` declares is in scope too.
  auto pollAt = [&](unsigned At) {
    bool Ok;
    for (const SlotRoot *R : liveAt(At, At, 1, 0, Body, Ok, true)) {
      Needed.insert(R->VD);
      Saves.push_back(At);
    }
  };
  for (auto [LB, LE] : Loops) {
    if (polls())
      pollAt(LB);
    if (auto It = SpinPolls.find(LB); It != SpinPolls.end())
      pollAt(It->second);
  }
  auto savesRoot = [&](const Stmt *St) {
    unsigned SB = offsetOf(St->getBeginLoc()), SE = endOffsetOf(St->getEndLoc());
    if (SB == ~0u || SE == ~0u)
      return true;
    for (unsigned X : Saves)
      if (SB <= X && X <= SE)
        return true;
    return false;
  };
  // At the top of the body if a label could jump past it or nothing comes
  // before; else before the first statement that saves a root, or before
  // the region versioned by mode that holds it (a statement with a
  // transfer site can be one: walkBlock replaces the region whole).
  SourceLocation At;
  bool AtStart = AllLive || llvm::is_contained(Saves, ~0u);
  std::vector<const Stmt *> Sts(Body->body_begin(), Body->body_end());
  for (size_t K = 0; K < Sts.size() && !AtStart; ++K)
    if (savesRoot(Sts[K])) {
      for (size_t I = 0; I <= K;) {
        Run R = Pl.run(FD, Sts, I);
        if (R.Versioned && R.VBegin < K && K < R.VEnd) {
          K = R.VBegin;
          break;
        }
        I = R.Versioned ? R.End : R.End + 1;
      }
      At = SM.getExpansionLoc(Sts[K]->getBeginLoc());
      AtStart = K == 0;
      break;
    }
  if (AtStart)
    At = Body->getLBracLoc().getLocWithOffset(1);
  if (At.isInvalid() || !At.isFileID() || SM.getFileID(At) != BodyFID ||
      (!AtStart && !Body->getRBracLoc().isFileID()))
    return;
  SlotFrame = true;
  unsigned K = 0;
  for (SlotRoot &R : Slots)
    R.Index = Needed.count(R.VD) ? K++ : ~0u;
  // Slots of variables no call saves are left out (spillAt never names
  // them: liveAt finds the same variables here and at each call).
  llvm::erase_if(Slots, [](const SlotRoot &R) { return R.Index == ~0u; });
  // Declarations only (C89): a block of its own when it follows a
  // statement.  The frame and its slots are one struct, so the roots'
  // descriptors are static constants (each addr the slot's offset from
  // the frame, CP_FRAME_RELATIVE): the initializer zeroes the slots,
  // stores the count and the descriptors' address, and pushes the frame
  // (filling a descriptor per slot took five stores each).
  std::string N = std::to_string(K), Names, Descs;
  for (const SlotRoot &R : Slots) {
    std::string Nm = R.VD->getName().str(), I = std::to_string(R.Index);
    Descs += std::string(Descs.empty() ? "" : ", ") +
             "{(void *)__builtin_offsetof(struct cp__slotframe_s, s[" + I +
             "]), CP_ROOT_POINTER, 1, " + S.descRef(*slotType(R.VD), FD) +
             ", \"" + Nm + "\"}";
    Names += (Names.empty() ? "" : ", ") + Nm;
  }
  std::string T = std::string(AtStart ? "" : "{ ") +
                  "struct cp__slotframe_s { cp_frame_t f; void *s[" + N +
                  "]; } cp__slotframe __attribute__((cleanup(cp__frame_pop_slots))); "
                  "static const cp_root_desc_t cp__slotroots[" + N + "] = {" + Descs +
                  "}; int cp__slotin __attribute__((unused)) = (";
  for (const SlotRoot &R : Slots)
    T += "cp__slotframe.s[" + std::to_string(R.Index) + "] = 0, ";
  T += "cp__frame(&cp__slotframe.f, " + N + " | CP_FRAME_RELATIVE, cp__slotroots)); ";
  Out.insert(BodyFID, SM.getFileOffset(At), T);
  if (!AtStart)
    Out.insert(BodyFID, SM.getFileOffset(Body->getRBracLoc()), "} ");
  Pl.note(FD, At, "frame slots: " + Names,
          "compact pointers live across a call that may reach a safepoint are "
          "saved before it and read back after it");
}

} // namespace compactptr
