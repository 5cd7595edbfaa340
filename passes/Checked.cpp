//===- Checked.cpp - the checked form: layouts picked by mode -------------===//
//
// In:  a function the Planner gave the checked form (switchable mode; it
//      reaches a safepoint, or cannot be dual).
// Out: one body.  Each full expression that depends on a layout becomes
//      `(cp_is_compact() ? <compact> : <wide>)`, printed by the two
//      printers (one branch runs, so every lvalue is still evaluated once);
//      a store whose value may reach a safepoint evaluates it first.
//      Parameters and locals holding compact pointers are pushed in
//      shadow-stack frames, popped by a cleanup attribute.  main's loops
//      get cp_safepoint() polls (LoopPolls.cpp).  The regions the Planner versions (loops
//      in which no safepoint can run, main's innermost polled bodies after
//      their poll, runs of statements between safepoints) are printed by
//      both printers: `if (cp_is_compact()) { <compact> } else { <wide> }`.
//      A region may hold transfer sites (`v = malloc(...)`): the compact
//      copy's allocation slow path, switched, jumps to a label after the
//      same statement in the wide copy.
// Invariants: a versioned region is rendered from its own edit sets by
//      the edit layer, the wide copy behind #line at the user's lines.
// Loops and their polls: LoopPolls.cpp.
// Tests: test/switchable/*.c.
//
//===----------------------------------------------------------------------===//
#include "Walker.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/Builtins.h"
#include "llvm/Support/SaveAndRestore.h"

using namespace clang;

namespace compactptr {

void CheckedWalker::rewrite() {
  const auto *CS = dyn_cast_or_null<CompoundStmt>(FD->getBody());
  if (!CS)
    return;
  collectSlots(CS);
  computeLiveness();
  placeSlotFrame(CS);
  collectNativeRegions(CS);
  // Parameters that are not slots (by-value structs, pointers to handle
  // fields or inside compact objects) are registered by address.
  std::vector<const VarDecl *> Params;
  for (const ParmVarDecl *P : FD->parameters())
    if (P->getIdentifier() && !isSlotRoot(P) &&
        (rootShape(M, P->getType()).Kind || M.SlotVars.count(P) ||
         M.InteriorVars.count(P) || M.ObjectAddressVars.count(P)))
      Params.push_back(P);
  if (!Params.empty()) {
    SourceLocation LB = CS->getLBracLoc();
    if (!LB.isFileID()) {
      S.report(Diag::MacroStatement, FD->getLocation(), "cannot register the parameters of '" +
                                     FD->getName().str() +
                                     "' as roots: its body starts in a macro");
      return;
    }
    auto [FID, Off] = SM.getDecomposedLoc(LB);
    Out.insert(FID, Off + 1, " " + frameText(Params));
  }
  checkStackArrays(CS);
  checkVarArgs(CS);
  run(CS);
  warnUnpolledSpins(CS);
  hintInline();
}

/// A static checked function carries both layouts' code (and its slow
/// paths), about twice what its compact-only build has, so LLVM's inliner
/// stopped inlining small allocating helpers (`new_node`) that the
/// compact-only build inlines: 3-6% more instructions in tree builders.
/// `__inline__` gives it the inliner's threshold for hinted functions; it
/// changes nothing else for a function with internal linkage.
void CheckedWalker::hintInline() {
  if (FD->getStorageClass() != SC_Static || FD->isInlineSpecified() ||
      FD->hasAttr<NoInlineAttr>() || FD->isVariadic())
    return;
  SourceLocation B = FD->getOuterLocStart();
  if (!B.isFileID() || S.isIgnoredLoc(B))
    return;
  auto [FID, Off] = SM.getDecomposedLoc(B);
  Out.insert(FID, Off, "__inline__ ");
}

/// A local of a checked function that a frame registers by address
/// (arrays of compact pointers, by-value structs); scalar compact pointers
/// are slots (SafepointCalls.cpp).
bool CheckedWalker::isFrameRoot(const VarDecl *VD) const {
  return VD->hasLocalStorage() && !isa<ParmVarDecl>(VD) &&
         VD->getIdentifier() && !isSlotRoot(VD) &&
         (rootShape(M, VD->getType()).Kind || M.SlotVars.count(VD) ||
          M.InteriorVars.count(VD) || M.ObjectAddressVars.count(VD) ||
          M.ObjectAddressStructs.count(VD) || M.Boxed.count(VD) ||
          JoinResults.count(VD));
}
/// The frame of Vs as declarations: `cp__rtN` (descriptors), `cp__frN`, and
/// `cp__inN`, whose initializer fills the descriptors and pushes the frame.
std::string CheckedWalker::frameText(const std::vector<const VarDecl *> &Vs) {
  std::vector<FrameRoot> Rs;
  std::string Names;
  for (const VarDecl *VD : Vs) {
    std::string Nm = VD->getName().str();
    Names += (Names.empty() ? "" : ", ") + Nm;
    if (auto B = M.Boxed.find(VD); B != M.Boxed.end())
      // A local in the heap: its pointer is the root.
      Rs.push_back({Nm, B->second.Ptr, "CP_ROOT_POINTER", "1",
                    S.descRef(*B->second.T, FD)});
    else if (M.ObjectAddressStructs.count(VD)) {
      // A local struct with untyped members (a callback's context), or a
      // small array of them: each member, as a `void *` local.
      ArrayShape A = stripArrays(VD->getType());
      bool Array = VD->getType()->isArrayType();
      for (uint64_t I = 0; I < A.Count; ++I)
        for (const auto &[Path, Count] :
             untypedMembers(A.Element->getAs<RecordType>()->getDecl())) {
          std::string Member =
              Nm + (Array ? "[" + std::to_string(I) + "]" : "") + "." + Path;
          Rs.push_back(
              {Member, Member, "CP_ROOT_POINTER", std::to_string(Count), "0"});
        }
    } else if (M.SlotVars.count(VD) || M.InteriorVars.count(VD) ||
               M.ObjectAddressVars.count(VD) || JoinResults.count(VD))
      // A pointer to a handle slot or to plain data inside an object: the
      // switch moves it with the object it points into (the runtime maps
      // the field's compact offset to its wide one).  A thread's result
      // joined into a `void *` (joinResults): translated if a compact
      // address.
      // A local array of them (libuv's `QUEUE pq`): each element.
      Rs.push_back({Nm, Nm, "CP_ROOT_POINTER",
                    std::to_string(stripArrays(VD->getType()).Count), "0"});
    else
      Rs.push_back(frameRoot(Nm, VD->getType()));
  }
  Pl.note(FD, Vs.front()->getLocation(), "frame: " + Names,
          "compact pointers held across a safepoint are roots");
  return frameText(Rs);
}
std::string CheckedWalker::frameText(
    const std::vector<std::pair<std::string, QualType>> &Vs) {
  std::vector<FrameRoot> Rs;
  for (const auto &[Nm, T] : Vs)
    Rs.push_back(frameRoot(Nm, T));
  return frameText(Rs);
}
CheckedWalker::FrameRoot CheckedWalker::frameRoot(const std::string &Nm, QualType T) const {
  RootShape R = rootShape(M, T);
  return {Nm, Nm, R.Kind, std::to_string(R.Count), S.descRef(*R.T, FD)};
}
std::string CheckedWalker::frameText(const std::vector<FrameRoot> &Rs) {
  std::string N = std::to_string(++FrameCounter);
  // Declarations only (C89: no statement before a later declaration, no
  // non-constant aggregate initializer): the descriptors are filled and
  // the frame pushed by the initializer of cp__inN.
  std::string K = std::to_string(Rs.size());
  std::string Out = "cp_root_desc_t cp__rt" + N + "[" + K + "]; cp_frame_t cp__fr" + N +
                    " __attribute__((cleanup(cp_frame_pop))); int cp__in" + N +
                    " __attribute__((unused)) = (";
  for (size_t I = 0; I < Rs.size(); ++I)
    Out += "cp__root(&cp__rt" + N + "[" + std::to_string(I) + "], (void *)&" + Rs[I].Addr +
           ", " + Rs[I].Kind + ", " + Rs[I].Count + ", " + Rs[I].Desc + ", \"" + Rs[I].Name +
           "\"), ";
  Out += "cp__frame(&cp__fr" + N + ", " + K + ", cp__rt" + N + "));";
  return Out;
}
/// A root declared without initializer starts null (the switch must not
/// see stack garbage, nor a slot an indeterminate value): the text to
/// insert after its declarator.
static std::string zeroInit(const VarDecl *VD) {
  return VD->getType()->isPointerType() ? " = 0" : " = {0}";
}

/// The frame of DS's compact-pointer locals, after zeroing the ones
/// declared without initializer.
bool CheckedWalker::frameFor(const DeclStmt *DS, std::string &Text) {
  std::vector<const VarDecl *> Frame;
  const VarDecl *Held = nullptr; // a root initialized earlier in DS
  // A declaration a macro makes has no text of its own: no frame, zeroing
  // or save can be placed by offset there (every token of the expansion
  // sits at its use site).  Its variables need none where no safepoint
  // can run while they hold a value read later (no call in their scope
  // that may reach one has them live after it; no poll goes inside an
  // expansion); else they are refused.
  bool InMacro = P.fileRange(DS).isInvalid();
  // The first call after which VD may be read before it is written again
  // (every call, where the CFG cannot tell): a macro's `struct node *p;`
  // that a loop of the macro assigns before each use needs no root at a
  // calloc before that loop or a free after it.
  auto reachWhileLive = [&](const VarDecl *VD) -> const CallExpr * {
    // Only for a slot root: one whose address is taken may be read
    // through it, which LiveVariables does not see, and a cleanup reads
    // its variable at the scope's end.  A use in the call's own full
    // expression is live whatever the CFG's order (C leaves it open).
    auto Live = [&](const CallExpr *CE) {
      if (AllLive || !isSlotRoot(VD) || VD->hasAttr<CleanupAttr>())
        return true;
      const Expr *Full = CE;
      while (const Expr *P = parentSkippingParens(S.Ctx, Full, &Full))
        Full = P;
      // (But for `v = f(...)`: the call's result is written to v, which
      // holds nothing the call needs kept -- uthash's `nb_ = calloc(...)`
      // after a bare `struct bucket *nb_;` in a statement macro.)
      if (anyReferenceTo(Full, VD, [&](const DeclRefExpr *DR) {
            if (inUnevaluatedOperand(S.Ctx, DR)) // `sizeof *nb_`
              return false;
            const Expr *Cur = DR;
            const auto *BO = dyn_cast_or_null<BinaryOperator>(
                parentSkippingParens(S.Ctx, DR, &Cur));
            return !(BO && BO->getOpcode() == BO_Assign &&
                     BO->getLHS()->IgnoreParens() == Cur &&
                     BO->getRHS()->IgnoreParenCasts() == CE);
          }))
        return true;
      return !deadAfter(CE, VD);
    };
    // After the declaration (its own initializers run before its
    // variables hold anything): the rest of its block, or all of the
    // statement it is scoped to.
    auto Ps = S.Ctx.getParents(*DS);
    const Stmt *Scope = Ps.empty() ? nullptr : Ps[0].get<Stmt>();
    const CallExpr *Reach = nullptr;
    if (const auto *CS = dyn_cast_or_null<CompoundStmt>(Scope)) {
      bool After = false;
      for (const Stmt *X : CS->body()) {
        if (After && !Reach)
          Reach = Pl.firstMayReachCall(X, Live);
        After |= X == DS;
      }
    } else {
      Reach = Pl.firstMayReachCall(Scope ? Scope : DS, Live);
    }
    // A later declarator's initializer runs while an earlier one's
    // variable holds its value.
    for (auto I = DS->decl_begin(), E = DS->decl_end(); !Reach && I != E; ++I)
      if (const auto *V = dyn_cast<VarDecl>(*I); V && I != DS->decl_begin())
        Reach = Pl.firstMayReachCall(V->getInit(), Live);
    return Reach;
  };
  for (const Decl *D : DS->decls()) {
    const auto *VD = dyn_cast<VarDecl>(D);
    if (!VD)
      continue;
    // (pthread_cleanup_push's `__cancel_arg`, initialized where it is
    // declared, needs no text there: its saves go at the calls.)
    bool SavedAtCalls =
        isSlotRoot(VD) && VD->getInit() && isCleanupArgument(VD);
    if (InMacro && !SavedAtCalls && (isSlotRoot(VD) || isFrameRoot(VD))) {
      const CallExpr *Reach = reachWhileLive(VD);
      if (!Reach)
        continue;
      const FunctionDecl *G = Reach->getDirectCallee();
      fail(DS,
           "cannot register '" + VD->getName().str() + "' as a root: it is declared by macro '" +
               P.macroName(DS) + "' and holds a compact pointer where " +
               (G ? "'" + G->getNameAsString() + "'" : std::string("a call")) +
               ", which may reach a safepoint, runs; declare it outside the macro",
           Diag::MacroStatement);
      return false;
    }
    if (Held && VD->getInit() && Pl.firstMayReachCall(VD->getInit())) {
      S.report(Diag::SafepointInExpression, VD->getLocation(),
               "'" + VD->getName().str() + "' is initialized by a call that may "
               "reach a safepoint while '" + Held->getName().str() +
               "', declared before it in the same declaration, is not yet a "
               "root; declare '" + VD->getName().str() +
               "' in a declaration of its own",
               {CharSourceRange::getTokenRange(VD->getSourceRange())});
      return false;
    }
    bool Slot = isSlotRoot(VD);
    if (!Slot && !isFrameRoot(VD))
      continue;
    if (!Slot && VD->getInit())
      Held = VD;
    if (!checkVLA(VD))
      return false;
    if (!Slot)
      Frame.push_back(VD);
    if (VD->getInit() || M.Boxed.count(VD))
      continue;
    unsigned A = afterDeclarator(VD);
    if (A == ~0u) {
      fail(DS, "cannot register '" + VD->getName().str() +
                   "' as a root: its declaration comes from a macro",
           Diag::MacroStatement);
      return false;
    }
    Out.insert(SM.getFileID(SM.getExpansionLoc(VD->getLocation())), A, zeroInit(VD));
  }
  if (!Frame.empty()) {
    if (!checkJumpsPast(DS, Frame.front()))
      return false;
    Text += frameText(Frame);
  }
  return true;
}

/// A frame declared in a block is popped by a cleanup, and C lets no jump
/// from outside enter the block past such a declaration (clang: "jump
/// bypasses initialization of variable with cleanup"): a case label after
/// it in a switch body, or a label after it that a goto before it or
/// outside the block names.
bool CheckedWalker::checkJumpsPast(const DeclStmt *DS, const VarDecl *VD) {
  auto Ps = S.Ctx.getParents(*DS);
  const auto *CS = Ps.empty() ? nullptr : Ps[0].get<CompoundStmt>();
  if (!CS || !FD->getBody())
    return true;
  auto At = [&](SourceLocation L) { return SM.getExpansionLoc(L); };
  SourceLocation From = At(DS->getEndLoc()), To = At(CS->getRBracLoc());
  auto Inside = [&](const Stmt *St) {
    SourceLocation L = At(St->getBeginLoc());
    return SM.isBeforeInTranslationUnit(From, L) &&
           SM.isBeforeInTranslationUnit(L, To);
  };
  std::string Label;
  anyNode(FD->getBody(), [&](const Stmt *St) {
    if (const auto *SW = dyn_cast<SwitchStmt>(St); SW && !Inside(SW))
      for (const SwitchCase *C = SW->getSwitchCaseList(); C;
           C = C->getNextSwitchCase())
        if (Inside(C)) {
          Label = "a case label";
          return true;
        }
    if (const auto *G = dyn_cast<GotoStmt>(St); G && !Inside(G))
      if (const LabelStmt *L = G->getLabel()->getStmt(); L && Inside(L)) {
        Label = "label '" + G->getLabel()->getName().str() + "'";
        return true;
      }
    // GNU C's `goto *p`: to any label whose address the function takes.
    if (isa<IndirectGotoStmt>(St) && !Inside(St))
      return anyNode(FD->getBody(), [&](const Stmt *X) {
        const auto *A = dyn_cast<AddrLabelExpr>(X);
        const LabelStmt *L = A ? A->getLabel()->getStmt() : nullptr;
        if (!L || !Inside(L))
          return false;
        Label = "label '" + A->getLabel()->getName().str() + "'";
        return true;
      });
    return false;
  });
  if (Label.empty())
    return true;
  S.report(Diag::JumpedRoot, VD->getLocation(),
           "'" + VD->getName().str() +
               "' holds compact pointers in a function that reaches a "
               "safepoint, so it is registered in a frame that a cleanup "
               "pops at the end of its block, and " +
               Label +
               " after it in that block is jumped to from before it or "
               "outside the block, which C does not allow past such a "
               "declaration; declare it before the switch statement or the "
               "jump, or in a block of its own",
           {CharSourceRange::getTokenRange(VD->getSourceRange())});
  return false;
}

bool CheckedWalker::checkVLA(const VarDecl *VD) {
  if (!rootShape(M, VD->getType()).VLA)
    return true;
  S.report(Diag::VlaRoot, VD->getLocation(),
          "'" + VD->getName().str() +
              "' is a variable-length array holding compact pointers in a "
              "function that reaches a safepoint; it cannot be registered as "
              "a root (use a root array: malloc(n * sizeof(T *)))",
          {CharSourceRange::getTokenRange(VD->getSourceRange())});
  return false;
}
/// Stack memory holding compact pointers that no frame can register: an
/// array compound literal (`chain((struct node *[]){a, b, c}, 3)`) and
/// `alloca` memory.  The function reaches a safepoint, so a switch can
/// happen while they live, and would leave what they hold pointing into
/// the released arena; a named array or a root array is registered.
void CheckedWalker::checkStackArrays(const Stmt *Body) {
  struct Finder : RecursiveASTVisitor<Finder> {
    CheckedWalker &W;
    explicit Finder(CheckedWalker &W) : W(W) {}
    void refuse(const Expr *E, const CompactType *T, const std::string &What,
                const std::string &Instead) {
      W.S.report(Diag::RootArrayForm, E->getExprLoc(),
                 What + " holds pointers to compact type " + quoted(T->WideSpelling) +
                     " in a function that reaches a safepoint; no frame can "
                     "register it as a root, so the switch would not "
                     "translate them (" + Instead + ")",
                 {tokRange(E->getSourceRange())});
    }
    bool VisitCompoundLiteralExpr(CompoundLiteralExpr *E) {
      RootShape R = rootShape(W.M, E->getType());
      if (R.Kind && E->getType()->isArrayType() && !W.S.isIgnoredLoc(E->getExprLoc()))
        refuse(E, R.T, "this compound literal",
               "declare it as a named local array");
      return true;
    }
    bool VisitCallExpr(CallExpr *E) {
      if (!isAllocaCall(E) || W.S.isIgnoredLoc(E->getExprLoc()))
        return true;
      QualType T = pointerUse(W.S.Ctx, E);
      if (!T->isPointerType())
        return true;
      if (CompactType *CT = W.M.pointeeOf(stripArrays(T->getPointeeType()).Element))
        refuse(E, CT, "this alloca memory",
               "use a named local array, or a root array: malloc(n * sizeof(" +
                   CT->WideSpelling + " *))");
      return true;
    }
  };
  Finder(*this).TraverseStmt(const_cast<Stmt *>(Body));
}

/// `va_arg(ap, struct node *)` after a call that may switch: the variadic
/// arguments lie in the caller's argument area, which no frame registers,
/// so a switch in that call leaves them pointing into the released arena
/// (`make(key, 2, l, r)` that allocates its node first).  After: the call
/// starts before the va_arg in the text, or both are in one loop.
void CheckedWalker::checkVarArgs(const Stmt *Body) {
  // The reads: each va_arg of a compact pointer or `void *`, and each call
  // that hands this function's va_list to a function of the file reading
  // one from it (`t->l = vfirst(ap);`), with the type it reads.
  std::vector<std::pair<const Expr *, QualType>> Reads;
  auto reads = [&](QualType T) {
    return rootShape(M, T).Kind || T->isVoidPointerType();
  };
  std::function<void(const Stmt *)> Find = [&](const Stmt *St) {
    if (!St)
      return;
    if (const auto *VA = dyn_cast<VAArgExpr>(St);
        VA && reads(VA->getType()) && !S.isIgnoredLoc(VA->getExprLoc()))
      Reads.push_back({VA, VA->getType()});
    if (const auto *CE = dyn_cast<CallExpr>(St); CE && CE->getDirectCallee())
      if (const FunctionDecl *Def = CE->getDirectCallee()->getDefinition();
          Def && Def->hasBody() && !S.isIgnoredLoc(CE->getExprLoc()) &&
          llvm::any_of(CE->arguments(), [&](const Expr *A) {
            return S.Ctx.hasSameType(
                A->getType(),
                S.Ctx.getDecayedType(S.Ctx.getBuiltinVaListType()));
          })) {
        const VAArgExpr *Read = nullptr;
        anyNode(Def->getBody(), [&](const Stmt *X) {
          const auto *VA = dyn_cast<VAArgExpr>(X);
          if (VA && reads(VA->getType()))
            Read = VA;
          return Read != nullptr;
        });
        if (Read)
          Reads.push_back({CE, Read->getType()});
      }
    for (const Stmt *C : St->children())
      Find(C);
  };
  Find(Body);
  if (Reads.empty())
    return;
  // Also in a statement expression: an allocating `NEW_NODE()` macro.
  std::vector<const CallExpr *> Calls;
  mayReachCalls(Pl, Body, Calls, /*IntoStatementExpressions=*/true);
  // And the polls of spin loops, at their conditions (a loop that waits
  // for another thread is a safepoint without a call).
  std::vector<const Stmt *> Sites(Calls.begin(), Calls.end());
  std::function<void(const Stmt *)> Spins = [&](const Stmt *St) {
    if (!St)
      return;
    if (isa<WhileStmt, ForStmt, DoStmt>(St) && Pl.spins(St))
      Sites.push_back(St);
    for (const Stmt *C : St->children())
      Spins(C);
  };
  Spins(Body);
  auto conditionOf = [](const Stmt *St) -> const Stmt * {
    if (const auto *W = dyn_cast<WhileStmt>(St))
      return W->getCond();
    if (const auto *F = dyn_cast<ForStmt>(St))
      return F->getCond();
    if (const auto *D = dyn_cast<DoStmt>(St))
      return D->getCond();
    return St;
  };
  for (auto [VA, Type] : Reads) {
    unsigned At = offsetOf(VA->getBeginLoc());
    for (const Stmt *Site : Sites) {
      const auto *CE = dyn_cast<CallExpr>(Site);
      unsigned CB = offsetOf(Site->getBeginLoc());
      if (CB == ~0u)
        continue;
      // The CFG where it can tell (a goto back to before the read, a call
      // on a branch that returns first); the text's order where not.
      std::optional<bool> Path = reaches(CE ? Site : conditionOf(Site), VA);
      bool Before = CB < At;
      for (auto [LB, LE] : Loops)
        Before |= LB <= CB && CB <= LE && LB <= At && At <= LE;
      if (!(Path ? *Path : Before))
        continue;
      const FunctionDecl *G = CE ? CE->getDirectCallee() : nullptr;
      std::string Line =
          std::to_string(SM.getExpansionLineNumber(Site->getBeginLoc()));
      std::string Call =
          (CE ? "after the call to " +
                    (G ? quoted(G->getName())
                       : std::string("a function pointer")) +
                    " on line " + Line
              : "after the loop on line " + Line +
                    ", which waits for another thread (a poll there is a "
                    "safepoint)") +
          (CE ? ", which may reach a safepoint" : "") +
          "; the variadic arguments are no roots";
      // A `void *` argument may be a compact object's address (a generic
      // container's `push_all(l, n, ...)`) or anything else: warned, as a
      // void * kept where the switch cannot see it is.
      // A helper handed the va_list reads for it.
      std::string Who = "va_arg";
      if (const auto *Helper = dyn_cast<CallExpr>(VA))
        Who = quoted(Helper->getDirectCallee()->getName()) +
              ", handed the va_list here,";
      if (!rootShape(M, Type).Kind)
        S.report(Diag::VoidEscape, VA->getExprLoc(),
                 Who + " reads a 'void *' " + Call +
                     ", so if the caller passed a compact object's address "
                     "there, after a switch it points into the released "
                     "arena: read the arguments into locals before that call",
                 {tokRange(VA->getSourceRange())});
      else
        S.report(Diag::VarargRoot, VA->getExprLoc(),
                 Who + " reads a compact pointer " + Call +
                     ", so after a switch there it would point into the "
                     "released arena: read them into locals before that call",
                 {tokRange(VA->getSourceRange())});
      break;
    }
  }
}

/// A boxed local of a checked function: stored in the layout of the mode
/// it was allocated in.  The initializer runs after the allocation, so it
/// must not reach a safepoint (the mode could change between the two).
void CheckedWalker::boxLocal(const VarDecl *VD) {
  if (const Expr *Init = VD->getInit())
    if (const CallExpr *CE = Pl.firstMayReachCall(Init)) {
      if (boxLocalCallsFirst(VD))
        return;
      const FunctionDecl *G = CE->getDirectCallee();
      S.report(Diag::SafepointInExpression, CE->getExprLoc(),
               "'" + VD->getName().str() +
                   "' lives in the compact heap (its address is used as a "
                   "compact pointer), and its initializer calls '" +
                   (G ? G->getNameAsString() : std::string("a function")) +
                   "', which may reach a safepoint; initialize it in a "
                   "statement of its own",
               {CharSourceRange::getTokenRange(Init->getSourceRange())});
      return;
    }
  unsigned Before = S.Errors;
  std::string T = boxLocalText(S, VD, &C, &W);
  if (S.Errors == Before)
    rewriteBoxedLocal(S, Out, VD, T);
}

/// A boxed local whose initializer list calls a function that may reach a
/// safepoint (`struct list l = { mk(0), 1 };`): its elements that are not
/// constants or plain locals run first, in the fields' order, into
/// temporaries (compact ones are roots), then the object is allocated and
/// initialized with them by mode:
///   ({ struct node *cp__i1 = 0; <frame: cp__i1> cp__i1 = <mk(0), checked>;
///      T *cp__b = cp_alloc(...); if (cp_is_compact()) <store> else <store>;
///      cp__b; })
/// False (nothing done) if the list is not of that shape: the caller
/// refuses it.
bool CheckedWalker::boxLocalCallsFirst(const VarDecl *VD) {
  const auto *IL = dyn_cast<InitListExpr>(VD->getInit()->IgnoreParens());
  const BoxedVar &B = M.Boxed.find(VD->getCanonicalDecl())->second;
  // One that names itself would take its own address before there is one.
  if (!IL || !B.Dims.empty() || !VD->getType()->isStructureType() ||
      namesItself(VD))
    return false;
  if (const InitListExpr *Sem = IL->getSemanticForm())
    IL = Sem;
  // Every element that is not a constant or a plain local goes first,
  // in the order clang evaluates them (the fields' order), into a
  // temporary of a kind one holds: the allocation after them may switch,
  // so a compact pointer, or a value read through one, must be in a root
  // or read before it; a pointer into an object could not be kept.  The
  // roots live across each call are found by source position: an element
  // that reads a compact-pointer local may not come before a call of an
  // element evaluated ahead of it in the text (`{.tail = q, .head =
  // mk()}`).
  std::function<bool(const Stmt *)> readsRootLocal = [&](const Stmt *St) {
    if (!St)
      return false;
    if (const auto *DR = dyn_cast<DeclRefExpr>(St))
      if (const auto *V = dyn_cast<VarDecl>(DR->getDecl());
          V && V->hasLocalStorage() && rootShape(M, V->getType()).Kind)
        return true;
    return llvm::any_of(St->children(), readsRootLocal);
  };
  std::vector<const Expr *> First;
  unsigned CallsUpTo = 0;
  for (unsigned I = 0; I < IL->getNumInits(); ++I) {
    const Expr *X = IL->getInit(I);
    QualType T = X->getType();
    if (isa<ImplicitValueInitExpr>(X) ||
        (unchangedByCalls(X) && !rootShape(M, T).Kind && !C.affected(X)))
      continue;
    if (isa<InitListExpr>(X->IgnoreParens()) || !heldInTemporary(T))
      return false;
    unsigned At = offsetOf(X->getBeginLoc());
    if (At == ~0u || (readsRootLocal(X) && At < CallsUpTo))
      return false;
    if (Pl.firstMayReachCall(X))
      CallsUpTo = std::max(CallsUpTo, endOffsetOf(X->getEndLoc()));
    First.push_back(X);
  }
  std::string Decls, Body;
  std::vector<std::pair<std::string, QualType>> Roots;
  Printer::NameMap Names;
  for (size_t I = 0; I < First.size(); ++I) {
    const Expr *X = First[I];
    std::string Name = "cp__i" + std::to_string(++FrameCounter), T;
    unsigned Before = S.Errors;
    if (!checkedText(X, false, T)) {
      if (S.Errors != Before)
        return true; // reported
      Printer::NameMap None;
      Printer::Context SC(Direct, None);
      T = Direct.text(X);
    }
    QualType Ty = X->getType().getCanonicalType().getUnqualifiedType();
    bool Root = rootShape(M, Ty).Kind != 0;
    Decls += W.declText(Ty, Name) + (Root ? " = 0; " : "; ");
    if (Root)
      Roots.push_back({Name, Ty});
    Body += Name + " = " + T + "; ";
    Names[X] = Name;
  }
  std::string Text;
  {
    Printer::Context SC(C, Names), SW(W, Names);
    unsigned Before = S.Errors;
    Text = boxLocalText(S, VD, &C, &W,
                        Decls + (Roots.empty() ? "" : frameText(Roots) + " ") +
                            Body);
    if (S.Errors != Before)
      return true;
  }
  Pl.note(FD, VD->getLocation(), "initializer elements evaluated first",
          "the object is allocated after the calls in its initializer");
  rewriteBoxedLocal(S, Out, VD, Text);
  return true;
}

/// Offset just after the end of VD's declarator, or ~0u.
unsigned CheckedWalker::afterDeclarator(const VarDecl *VD) const {
  SourceLocation L = VD->getEndLoc();
  if (!L.isFileID())
    return ~0u;
  return SM.getFileOffset(Lexer::getLocForEndOfToken(L, 0, SM, S.LO));
}


/// A for statement of a checked function whose init declares frame
/// roots: `{ <decl> <frame> for (; cond; inc) body }`.
bool CheckedWalker::walkFor(const ForStmt *F) {
  const auto *DS = dyn_cast_or_null<DeclStmt>(F->getInit());
  if (!DS)
    return false;
  std::vector<const VarDecl *> Roots;
  for (const Decl *D : DS->decls())
    if (const auto *VD = dyn_cast<VarDecl>(D); VD && isFrameRoot(VD)) {
      if (!checkVLA(VD))
        return true;
      Roots.push_back(VD);
    }
  if (Roots.empty())
    return false;
  SourceLocation FB = F->getBeginLoc(), DB = DS->getBeginLoc(), DE = DS->getEndLoc();
  unsigned End = endAfter(F);
  if (!FB.isFileID() || !DB.isFileID() || !DE.isFileID() || End == ~0u) {
    fail(F,
         "cannot register the loop variables of this for statement as roots: "
         "it comes from a macro",
         Diag::MacroStatement);
    return true;
  }
  FileID FID = SM.getFileID(FB);
  unsigned DBo = SM.getFileOffset(DB), DEo = SM.getFileOffset(DE) + 1;
  // The declaration's own text, initializers rewritten, roots zeroed.
  EditSet Parts;
  for (const Decl *D : DS->decls()) {
    const auto *VD = dyn_cast<VarDecl>(D);
    if (!VD)
      continue;
    if (const Expr *Init = VD->getInit()) {
      unsigned Before = S.Errors;
      // An initializer list element by element, as written (a list is no
      // expression the two layouts' versions could be chosen between).
      std::function<bool(const Expr *)> Element = [&](const Expr *E) {
        E = E->IgnoreParens();
        if (const auto *D = dyn_cast<DesignatedInitExpr>(E))
          E = D->getInit()->IgnoreParens();
        if (const auto *IL = dyn_cast<InitListExpr>(E)) {
          if (const InitListExpr *Syn = IL->getSyntacticForm())
            IL = Syn;
          return llvm::all_of(IL->inits(), Element);
        }
        std::string T;
        if (!checkedText(E, false, T))
          return true;
        CharSourceRange R = W.fileRange(E);
        if (R.isInvalid() || SM.getFileID(R.getBegin()) != FID) {
          fail(E, W.macroMessage(E), Diag::MacroBody);
          return false;
        }
        Parts.replace(SM, R, T);
        return true;
      };
      if (!Element(Init) || S.Errors != Before)
        return true;
    } else if (isFrameRoot(VD)) {
      unsigned A = afterDeclarator(VD);
      if (A == ~0u) {
        fail(F, "cannot rewrite this for statement: it comes from a macro",
             Diag::MacroStatement);
        return true;
      }
      Parts.insert(FID, A, zeroInit(VD));
    }
  }
  Rendered Decl = Parts.render(FID, SM.getBufferData(FID), DBo, DEo);
  if (!Decl.Ok) {
    fail(F, "cannot rewrite this for statement: overlapping rewrites");
    return true;
  }
  Out.replace(SM, CharSourceRange::getCharRange(FB, SM.getLocForStartOfFile(FID).getLocWithOffset(DEo)),
                  "{ " + Decl.Text + " " + frameText(Roots) + " for (;");
  top(F->getCond(), true);
  top(F->getInc(), false);
  loopBody(F->getBody());
  Out.insert(FID, End, " }");
  return true;
}


/// A block of a checked function: each run of statements between
/// safepoint-reaching ones keeps one mode from its start to its end, so a
/// run with two or more layout-dependent statements is versioned by
/// mode as a whole (one test instead of one per expression).  A run ends
/// before a declaration whose variable is used after the run (the copies
/// are blocks of their own); in main it holds no loop (a loop's polls
/// would be lost in the copies).
bool CheckedWalker::walkBlock(const CompoundStmt *CS) {
  std::vector<const Stmt *> Body(CS->body_begin(), CS->body_end());
  size_t I = 0;
  while (I < Body.size()) {
    Run R = Pl.run(FD, Body, I);
    ArrayRef<const Stmt *> All(Body);
    if (R.Versioned) {
      for (const Stmt *St : All.slice(R.Begin, R.VBegin - R.Begin))
        walk(St);
      ArrayRef<const Stmt *> Sts = All.slice(R.VBegin, R.VEnd - R.VBegin);
      if (versionByMode(Sts, "{ ", " }", R.Sites))
        Pl.note(FD, Sts.front()->getBeginLoc(),
                "run of " + std::to_string(Sts.size()) + " statements versioned",
                R.Sites.empty()
                    ? "no safepoint can run between them"
                    : "no safepoint can run between them but at " +
                          std::to_string(R.Sites.size()) +
                          " allocation(s) whose slow path resumes the wide copy");
      else
        for (const Stmt *St : Sts)
          walk(St);
      for (const Stmt *St : All.slice(R.VEnd, R.End - R.VEnd))
        walk(St);
      I = R.End;
      continue;
    }
    for (const Stmt *St : All.slice(R.Begin, R.End - R.Begin))
      walk(St);
    if (R.End < Body.size())
      walk(Body[R.End]);
    I = R.End + 1;
  }
  return true;
}

/// Replace statement St by `Open if (cp_is_compact()) { <compact St> }
/// else { <wide St> } Close`.  The wide copy follows a #line back to St's
/// first line and is padded to its column, so both copies carry the
/// user's lines; the compact copy's warnings are silenced (the wide copy
/// reports them once).  False if St is left to the caller.
bool CheckedWalker::versionByMode(ArrayRef<const Stmt *> Sts, StringRef Open,
                                  StringRef Close, ArrayRef<const Stmt *> Sites) {
  SourceLocation BL = startOf(Sts.front());
  unsigned E = endAfter(Sts.back());
  if (BL.isInvalid() || E == ~0u)
    return false;
  // Inside a macro's argument (`STMT(while (c) p = p->next;)`) the wide
  // copy's #line would be a directive among the arguments.
  if (SM.isMacroArgExpansion(Sts.front()->getBeginLoc()))
    return false;
  auto [FID, B] = SM.getDecomposedLoc(BL);
  // A preprocessor directive in the region (`#ifdef` ... `#endif` around
  // a statement) would be copied into both versions, or cut in two by
  // the region's end: such code keeps the per-expression checked form.
  if (!directiveLines(SM.getBufferData(FID).slice(B, E)).empty())
    return false;
  unsigned Before = S.Errors;
  // Each transfer site: in the compact copy, its slow path jumps to a
  // label right after it in the wide copy (the switch ran there: the
  // rest of the region runs wide).
  // (Every site's place is checked before any is printed: a site printed
  // leaves Out, and a region given up on is walked again as usual.)
  std::vector<std::pair<unsigned, unsigned>> Places;
  for (const Stmt *X : Sites) {
    SourceLocation XL = startOf(X);
    unsigned XE = endAfter(X);
    if (XL.isInvalid() || XE == ~0u || SM.getFileID(XL) != FID)
      return false;
    Places.push_back({SM.getFileOffset(XL), XE});
  }
  std::vector<SiteText> SC, SW;
  for (size_t I = 0; I < Sites.size(); ++I) {
    auto [XB, XE] = Places[I];
    std::string Label = "cp__resume" + std::to_string(++ResumeCounter), TC, TW;
    if (!siteText(Sites[I], FID, XB, XE, Label, TC) ||
        !siteText(Sites[I], FID, XB, XE, "", TW))
      return true;
    SC.push_back({XB, XE, TC});
    SW.push_back({XB, XE, TW + " " + Label + ": ;"});
  }
  std::string TC = formText(Sts, Direct, FID, B, E, SC);
  std::string TW = formText(Sts, W, FID, B, E, SW);
  if (S.Errors != Before)
    return true;
  PresumedLoc PL = SM.getPresumedLoc(BL, false);
  if (PL.isInvalid())
    return false;
  std::string Pad(PL.getColumn() > 1 ? PL.getColumn() - 1 : 0, ' ');
  std::string T = Open.str() + "if (cp_is_compact()) { " + QuietBegin + " " +
                  withoutComments(S, FID, TC) + " " + QuietEnd + " } else {\n" +
                  lineDirective(PL.getLine(), PL.getFilename()) + Pad + TW +
                  " }" + Close.str();
  Out.replace(FID, B, E, T);
  return true;
}
/// The text of statements Sts ([B, E) of FID) rewritten in form F, with
/// the texts of their transfer sites.
std::string CheckedWalker::formText(ArrayRef<const Stmt *> Sts, Printer &F,
                                    FileID FID, unsigned B, unsigned E,
                                    ArrayRef<SiteText> Sites) {
  const Stmt *St = Sts.front();
  EditSet Mine;
  Walker Plain(S, F, Mine);
  for (const Stmt *X : Sts)
    Plain.run(X);
  for (const SiteText &T : Sites) {
    (void)Mine.take(FID, T.B, T.E); // the plain form of the site: replaced
    Mine.replace(FID, T.B, T.E, T.Text);
  }
  if (Mine.outside(FID, B, E)) {
    fail(St, "cannot version this code by mode: a rewrite falls outside it");
    return "";
  }
  Rendered R = Mine.render(FID, SM.getBufferData(FID), B, E);
  if (!R.Ok) {
    fail(St, "cannot version this code by mode: overlapping rewrites");
    return "";
  }
  return R.Text;
}

bool CheckedWalker::siteText(const Stmt *St, FileID FID, unsigned B, unsigned E,
                             const std::string &Label, std::string &Text) {
  const VarDecl *VD = nullptr;
  const CallExpr *CE = Pl.transferSite(St, &VD);
  unsigned Before = S.Errors;
  {
    llvm::SaveAndRestore At(Transfer.At, Label.empty() ? nullptr : CE);
    llvm::SaveAndRestore Var(Transfer.Var, VD->getName().str());
    llvm::SaveAndRestore Lab(Transfer.Label, Label);
    walk(St);
  }
  EditSet Mine = Out.take(FID, B, E);
  if (S.Errors != Before)
    return false;
  Rendered R = Mine.render(FID, SM.getBufferData(FID), B, E);
  if (!R.Ok) {
    fail(St, "cannot version this code by mode: overlapping rewrites");
    return false;
  }
  Text = R.Text;
  return true;
}

void CheckedWalker::top(const Expr *E, bool BoolCtx) {
  if (!E)
    return;
  if (const auto *IL = dyn_cast<InitListExpr>(E)) {
    if (const InitListExpr *Syn = IL->getSyntacticForm())
      IL = Syn;
    // The elements are evaluated in no fixed order: one that may reach a
    // safepoint next to one that holds a compact pointer cannot be
    // rewritten into a statement expression in place.
    for (const Expr *I : IL->inits()) {
      std::vector<const CallExpr *> Calls;
      mayReachCalls(Pl, I, Calls);
      std::vector<std::pair<const CallExpr *, const StmtExpr *>> Inner;
      callsInStmtExprs(Pl, I, nullptr, Inner);
      for (auto [In, SE] : Inner)
        Calls.push_back(In);
      if (Calls.empty())
        continue;
      for (const Expr *J : IL->inits())
        if (J != I && staleAcross(J, true)) {
          S.report(Diag::SafepointInExpression, Calls.front()->getExprLoc(),
                   "this initializer list holds a compact pointer across a "
                   "call that may reach a safepoint (the switch can happen in "
                   "the middle of it); store the call's result in a local first",
                   {CharSourceRange::getTokenRange(IL->getSourceRange())});
          return;
        }
    }
    for (const Expr *I : IL->inits()) {
      if (!I || I->getBeginLoc().isInvalid())
        continue;
      if (const auto *DI = dyn_cast<DesignatedInitExpr>(I))
        I = DI->getInit();
      top(I, false);
    }
    return;
  }
  std::string T;
  unsigned Before = S.Errors;
  if (!checkedText(E, BoolCtx, T) || S.Errors != Before)
    return;
  place(E, std::move(T));
}

} // namespace compactptr
