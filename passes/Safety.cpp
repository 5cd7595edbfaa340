//===- Safety.cpp - the safety gate: refusals and hazards -----------------===//
//
// In:  the Model from Analysis and the AST.
// Out: diagnostics only.  An error for every construct the rewrite cannot
//      handle (one reason per check, each with its own message and test);
//      a warning for hazards it cannot rule out.  Errors stop the pipeline
//      before anything is rewritten.  The type-level refusals come first,
//      from TypeChecks.cpp; this file checks the uses in function bodies,
//      and Escapes.cpp has the hazards of switchable mode.
// Invariants: the checks do not depend on the build mode, so a program that
//      builds in one mode builds in all of them.
// Tests: test/diagnostics/*.c (one file per reason).
//
//===----------------------------------------------------------------------===//
#include "Engine.h"
#include "Printer.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"
#include <algorithm>

using namespace clang;

namespace compactptr {
namespace {

/// Expression-level refusals and hazards in function bodies.
class ExprChecks : public RecursiveASTVisitor<ExprChecks> {
public:
  explicit ExprChecks(Session &S) : S(S), M(S.M) {}

  /// The function whose body the walk is in (checkVoidLocalEscape reads
  /// the body for what a local was set from).
  bool TraverseFunctionDecl(FunctionDecl *FD) {
    const FunctionDecl *Outer = Current;
    Current = FD;
    bool R = RecursiveASTVisitor::TraverseFunctionDecl(FD);
    Current = Outer;
    return R;
  }

  bool VisitUnaryOperator(UnaryOperator *E) {
    if (E->getOpcode() != UO_AddrOf || S.isIgnoredLoc(E->getExprLoc()))
      return true;
    const Expr *Sub = E->getSubExpr()->IgnoreParens();
    // `&p->next` is a pointer to a handle slot: Slots.cpp follows it and
    // refuses it where it escapes.  The address of a whole handle array is
    // not a `T **`.
    if (isHandleLValue(M, Sub))
      return true;
    if (isHandleArray(M, Sub) && !clearedByMemset(E, Sub)) {
      S.report(Diag::AddressOfField, E->getExprLoc(),
              quoted(fieldName(Sub)) +
                  " is a handle array field; its address cannot be taken (the "
                  "address of one element, &p->" + fieldName(Sub) +
                  "[i], can)",
              {tokRange(E->getSourceRange())});
      return true;
    }
    if (M.elementOf(Sub->getType()) && !isCompactLocated(M, Sub))
      checkNonHeapAddress(E, Sub);
    checkPinnedLiteral(E, Sub);
    return true;
  }

  bool VisitImplicitCastExpr(ImplicitCastExpr *E) {
    if (S.isIgnoredLoc(E->getExprLoc()))
      return true;
    if (E->getCastKind() == CK_ArrayToPointerDecay) {
      const Expr *Sub = E->getSubExpr()->IgnoreParens();
      checkPinnedLiteral(E, Sub);
      // In an unevaluated operand (`n * sizeof *p->kids`) the text stays
      // as written and means the C type.
      if (isHandleArray(M, Sub) && !isSubscriptBase(E) &&
          !clearedByMemset(E, Sub) && !startsHandleRun(E) &&
          !inUnevaluatedOperand(S.Ctx, E)) {
        S.report(Diag::HandleArrayDecay, E->getExprLoc(),
                 quoted(fieldName(Sub)) +
                     " is a handle array field; it cannot be used as a "
                     "pointer, only subscripted (walk it by index, p->" +
                     fieldName(Sub) +
                     "[i], or pass p and index inside; a "
                     "function that wants a pointer can take a copy in a "
                     "local array; memcpy, memmove and memset of handles "
                     "take sizeof p->" +
                     fieldName(Sub) + " or n * sizeof p->" + fieldName(Sub) +
                     "[0] as their size)" + holderInferredBecause(Sub),
                 {tokRange(E->getSourceRange())});
      } else if (M.recordOf(E->getType()->getPointeeType()) &&
                 M.elementOf(Sub->getType()) && !isCompactLocated(M, Sub) &&
                 !isSubscriptBase(E)) {
        checkNonHeapAddress(E, Sub);
      }
      return true;
    }
    if (!checkCast(E) && !checkPoolConversion(S, E) &&
        !checkRootArrayConversion(S, E)) {
      checkForeignObject(S, E);
      checkVoidEscape(S, E);
      checkTaggedEscape(S, E);
    }
    return true;
  }

  /// E, a handle array decayed, alone or plus an index (`n->kids + 1`),
  /// is an end of a run of handles that Printer moves or clears
  /// (handleRunMoved): `memset(n->kids, 0, k * sizeof n->kids[0])`.
  bool startsHandleRun(const Expr *E) {
    const Expr *Cur = E;
    for (const Expr *P; (P = parentSkippingParens(S.Ctx, Cur, &Cur)); Cur = P) {
      if (const auto *CE = dyn_cast<CallExpr>(P))
        return CE->getNumArgs() == 3 &&
               (CE->getArg(0) == Cur || CE->getArg(1) == Cur) &&
               handleRunMoved(S.Ctx, M, CE).has_value();
      const auto *B = dyn_cast<BinaryOperator>(P);
      if (!isa<ImplicitCastExpr>(P) && !isa<CStyleCastExpr>(P) &&
          !(B && B->getOpcode() == BO_Add))
        return false;
    }
    return false;
  }

  /// E (Sub decayed, or its address) is the first argument of a clear
  /// of handle array Sub, `memset(Sub, 0, sizeof Sub)`.
  bool clearedByMemset(const Expr *E, const Expr *Sub) {
    const Expr *Cur = E;
    for (const Expr *P; (P = parentSkippingParens(S.Ctx, Cur, &Cur));) {
      if (const auto *CE = dyn_cast<CallExpr>(P))
        return handleArrayCleared(S.Ctx, M, CE) == Sub;
      if (!isa<ImplicitCastExpr>(P))
        return false;
      Cur = P;
    }
    return false;
  }

  /// The address of a compound literal of a pinned type (Pinned.cpp), or
  /// an array of them decayed: an object no root describes, so the switch
  /// would leave its compact pointers behind.  A literal copied by value
  /// into a named variable is fine: the variable is the root.
  void checkPinnedLiteral(const Expr *E, const Expr *Sub) {
    const auto *CL = dyn_cast<CompoundLiteralExpr>(Sub);
    CompactType *P =
        CL ? M.pinnedOf(stripArrays(CL->getType()).Element) : nullptr;
    if (!P)
      return;
    S.report(
        Diag::NonHeapAddress, E->getExprLoc(),
        "the address of a compound literal of " + quoted(P->WideSpelling) +
            " (pinned: it holds a '" + P->Sync +
            "' beside compact pointers): no root describes the literal, so "
            "the switch would not translate its compact pointers; declare it "
            "as a named variable (a local or global of the type is a root)",
        {tokRange(E->getSourceRange())});
  }

  /// Switchable: a layout's size kept past the moment it is taken.
  bool VisitUnaryExprOrTypeTraitExpr(UnaryExprOrTypeTraitExpr *E) {
    if (S.Opts.switchable() && layoutDependentTrait(M, E) == E)
      checkLayoutStored(S, E, M.recordOf(stripArrays(E->getTypeOfArgument()).Element));
    return true;
  }

  /// `offsetof(struct node, next)` of a compact-pointer field: in the
  /// compact layout the bytes at that offset are a 32-bit handle, so code
  /// that reads or writes a pointer there (a generic list sort doing
  /// `memcpy(&q, (char *)p + off, sizeof q)`) corrupts the heap.  The
  /// offset has no other use, so it is refused where it is taken.  Any
  /// other offsetof kept past the moment it is taken is a layout-stored
  /// hazard (switchable).
  bool VisitOffsetOfExpr(OffsetOfExpr *E) {
    if (!offsetofHandleField(E) && S.Opts.switchable() && layoutDependentTrait(M, E) == E)
      checkLayoutStored(S, E, M.recordOf(E->getTypeSourceInfo()->getType()));
    return true;
  }

  /// E, the offset of a flexible array member of compact pointers, starts
  /// the size of an allocation of one object (`malloc(offsetof(struct
  /// snode, forward) + n * sizeof(struct snode *))`), directly or through
  /// a local only allocations read: the allocation counts the room past
  /// it (cp_flex_count) and nothing reads a pointer there.
  bool roomOfFlexObject(const Expr *E) {
    const Expr *P = parentSkippingParens(S.Ctx, E);
    while (P && (isa<ImplicitCastExpr>(P) || isa<CStyleCastExpr>(P) ||
                 (isa<BinaryOperator>(P) &&
                  cast<BinaryOperator>(P)->getOpcode() == BO_Add))) {
      E = P;
      P = parentSkippingParens(S.Ctx, E);
    }
    if (const auto *CE = dyn_cast_or_null<CallExpr>(P))
      return allocSizeShape(CE).Flex;
    if (P)
      return false;
    for (const DynTypedNode &N : S.Ctx.getParents(*E))
      if (const auto *VD = N.get<VarDecl>())
        return VD->getInit() &&
               VD->getInit()->IgnoreParens() == E->IgnoreParens() &&
               onlyFlexAllocationSize(S.Ctx, VD);
    return false;
  }

  /// The refusal above; true if reported.
  bool offsetofHandleField(const OffsetOfExpr *E) {
    if (S.isIgnoredLoc(E->getExprLoc()) || E->getNumComponents() == 0)
      return false;
    // The field named last (`peers[1]` names an element of 'peers').
    unsigned I = E->getNumComponents();
    while (I > 0 && E->getComponent(I - 1).getKind() == OffsetOfNode::Array)
      --I;
    if (I == 0 || E->getComponent(I - 1).getKind() != OffsetOfNode::Field)
      return false;
    const FieldDecl *F = E->getComponent(I - 1).getField();
    if (!F || !M.recordOf(S.Ctx.getRecordType(F->getParent())) ||
        !(M.pointeeOf(F->getType()) || M.pointeeOf(stripArrays(F->getType()).Element)))
      return false;
    if (I == 1 && roomMember(F->getParent()) == F && roomOfFlexObject(E))
      return false;
    S.report(Diag::OffsetofHandleField, E->getExprLoc(),
             "offsetof names handle field " + quoted(F->getName()) +
                 "; in compact layout the bytes there are a 32-bit handle, "
                 "not a pointer, so nothing may be read or written at that "
                 "offset; access the field by name (p->" +
                 F->getName().str() + ")",
             {tokRange(E->getSourceRange())});
    return true;
  }

  /// A layout-dependent constant the rewrite cannot give its compact
  /// value: an enumerator's (it is the program's text, not an object's),
  /// or a static initializer's in switchable mode (the layout is known
  /// only at run time).  Kept wide, it would size a memset or a copy of a
  /// compact object wrongly.
  void checkLayoutConstant(const Expr *Init, const char *What) {
    const Expr *E = layoutDependentTrait(M, Init);
    if (!E || S.isIgnoredLoc(E->getExprLoc()))
      return;
    S.report(Diag::LayoutConstant, E->getExprLoc(),
             "this " + std::string(isa<OffsetOfExpr>(E) ? "offsetof" : "sizeof") +
                 " of a compact type in " + What + " keeps its value in the "
                 "wide layout, which is not the layout of the objects " +
                 (S.Opts.switchable() ? "until the switch (the layout is known only at "
                                        "run time)"
                                      : "in the compact heap") +
                 "; take it where it is used, in a function (sizeof *p)",
             {tokRange(E->getSourceRange())});
  }

  /// St's value may differ between the layouts: it reads a field or
  /// element of a compact object, steps a compact pointer (the stride is
  /// the layout's size), or takes the sizeof or offsetof of a compact
  /// struct.  A compact pointer's own value (a local, compared or tested)
  /// is the same in both.  Statement expressions are looked into.
  bool layoutDependentValue(const Stmt *St) {
    if (!St)
      return false;
    if (const auto *E = dyn_cast<Expr>(St)) {
      if (isCompactLocated(M, E) || isHandleLValue(M, E))
        return true;
      if (const auto *ME = dyn_cast<MemberExpr>(E);
          ME && ME->isArrow() && M.pointeeOf(ME->getBase()->getType()))
        return true;
      if (const auto *BO = dyn_cast<BinaryOperator>(E);
          BO && BO->isAdditiveOp() &&
          (M.pointeeOf(BO->getLHS()->getType()) || M.pointeeOf(BO->getRHS()->getType())))
        return true;
      if (const auto *UO = dyn_cast<UnaryOperator>(E);
          UO && UO->isIncrementDecrementOp() && M.pointeeOf(UO->getSubExpr()->getType()))
        return true;
      if (isa<UnaryExprOrTypeTraitExpr>(E) || isa<OffsetOfExpr>(E))
        return layoutDependentTrait(M, E) != nullptr;
      // sizeof(*dst) == sizeof(*src) of one compact type (Analysis.cpp):
      // sizes on both sides, and no trait left that depends.
      if (const auto *BO = dyn_cast<BinaryOperator>(E);
          BO && BO->isEqualityOp() &&
          isa<UnaryExprOrTypeTraitExpr>(BO->getLHS()->IgnoreParenImpCasts()) &&
          isa<UnaryExprOrTypeTraitExpr>(BO->getRHS()->IgnoreParenImpCasts()) &&
          !layoutDependentTrait(M, BO))
        return false;
    }
    for (const Stmt *C : St->children())
      if (layoutDependentValue(C))
        return true;
    return false;
  }

  /// An array bound whose value depends on the layout: the printers copy
  /// types as the user spelled them, so it would keep the wide value (a
  /// buffer sized for a wide object, then filled with a compact one).
  void checkArrayBound(const Expr *B) {
    if ((!S.Opts.switchable() && !S.Opts.compactOnly()) || !B ||
        S.isIgnoredLoc(B->getBeginLoc()) || !layoutDependentValue(B))
      return;
    // A constant bound (a sizeof, an offsetof) may be at file scope, where
    // a local bound is no way out.
    bool constant = !B->isValueDependent() && B->isIntegerConstantExpr(S.Ctx);
    S.report(Diag::ArrayBound, B->getBeginLoc(),
             std::string("this array bound depends on the compact layout (it "
                         "reads a compact object, steps a compact pointer, or "
                         "takes the size of a compact struct), and array "
                         "bounds are not rewritten: it would keep its wide "
                         "value; ") +
                 (constant ? "give the array the struct as its element type "
                             "(struct T v[4]) or allocate the buffer "
                             "(malloc(4 * sizeof(struct T)))"
                           : "compute it into a local first (size_t n = "
                             "p->len; char v[n];)"),
             {tokRange(B->getSourceRange())});
  }
  bool VisitVariableArrayTypeLoc(VariableArrayTypeLoc TL) {
    checkArrayBound(TL.getSizeExpr());
    return true;
  }
  bool VisitConstantArrayTypeLoc(ConstantArrayTypeLoc TL) {
    checkArrayBound(TL.getSizeExpr());
    return true;
  }

  bool VisitEnumConstantDecl(EnumConstantDecl *D) {
    if (!S.Opts.switchable() && !S.Opts.compactOnly())
      return true;
    checkLayoutConstant(D->getInitExpr(), "an enumerator");
    return true;
  }

  /// A variable of compact type whose initializer gives its flexible array
  /// member elements (`static struct node head = { -1, { NULL, NULL } };`,
  /// a GNU extension): neither the variable's descriptor nor a root covers
  /// room past its size, so the switch would leave compact pointers there,
  /// and a variable moved into the compact heap (§4d) has no room for them.
  void checkFlexInitializer(const VarDecl *VD) {
    CompactType *T = M.recordOf(VD->getType());
    const auto *IL = dyn_cast_or_null<InitListExpr>(
        VD->getInit() ? VD->getInit()->IgnoreParenImpCasts() : nullptr);
    if (!T || !IL || !T->RD->hasFlexibleArrayMember() ||
        S.isIgnoredLoc(VD->getLocation()))
      return;
    if (IL->isSyntacticForm() && IL->getSemanticForm())
      IL = IL->getSemanticForm();
    const FieldDecl *FAM = nullptr;
    unsigned Index = 0, I = 0;
    for (const FieldDecl *F : T->RD->fields())
      FAM = F, Index = I++;
    if (!FAM || IL->getNumInits() <= Index)
      return;
    const Expr *Init = IL->getInit(Index)->IgnoreParenImpCasts();
    const auto *Elems = dyn_cast<InitListExpr>(Init);
    if (isa<ImplicitValueInitExpr>(Init) ||
        (Elems && Elems->getNumInits() == 0))
      return;
    S.report(
        Diag::FlexibleArray, Init->getBeginLoc(),
        quoted(VD->getName()) + " of compact type " + quoted(T->WideSpelling) +
            " initializes its flexible array member " + quoted(FAM->getName()) +
            " (a GNU extension), which is not supported: the runtime "
            "knows the variable's fixed part only; allocate the object "
            "with malloc",
        {tokRange(Init->getSourceRange())});
  }

  /// A thread-local (`_Thread_local`, `__thread`) holding compact pointers
  /// at file scope is a root of every thread (Emit.cpp registers each
  /// thread's copy); a static local one cannot be described outside its
  /// function, so the switch would leave it pointing into the released
  /// arena (switchable mode only).
  bool VisitVarDecl(VarDecl *VD) {
    noteAddressHeld(VD, VD->getInit());
    // A cleanup function receives the variable's address where no `&` is
    // written: for a value of compact type, a compact pointer to a stack
    // object, which the printers would read in the compact layout.
    const auto *C = VD->getAttr<CleanupAttr>();
    if (const FunctionDecl *F = C ? C->getFunctionDecl() : nullptr;
        F && (S.Opts.switchable() || S.Opts.compactOnly()) && M.recordOf(VD->getType()) &&
        F->getNumParams() == 1 && M.pointeeOf(F->getParamDecl(0)->getType()) &&
        !S.isIgnoredLoc(VD->getLocation()))
      S.report(Diag::NonHeapAddress, VD->getLocation(),
               "the cleanup function " + quoted(F->getName()) +
                   " receives the address of " + quoted(VD->getName()) +
                   " as a compact pointer; compact pointers must point to heap "
                   "objects: give it a pointer variable that holds a heap object",
               {tokRange(VD->getSourceRange())});
    // The cleanup runs when the scope ends, where the function saves no
    // roots: one that may switch leaves the function's compact pointers
    // (and whatever it computed from addresses) behind.
    if (const FunctionDecl *F = C ? C->getFunctionDecl() : nullptr;
        F && S.Opts.switchable() && !S.isIgnoredLoc(VD->getLocation()))
      if (reachesSafepoint(M, F))
        S.report(Diag::CallbackSafepoint, VD->getLocation(),
                 reachesSafepointText(F) + ", and it runs as the cleanup of " +
                     quoted(VD->getName()) +
                     " when its scope ends, where no roots are saved: a "
                     "switch there leaves the function's compact pointers "
                     "pointing into the released arena; allocate before the "
                     "scope ends, or release only in the cleanup",
                 {tokRange(VD->getSourceRange())});
    if (S.Opts.switchable() && VD->hasGlobalStorage() && VD->getInit())
      checkLayoutConstant(VD->getInit(), "a static initializer");
    checkFlexInitializer(VD);
    if (!S.Opts.switchable() || VD->getTLSKind() == VarDecl::TLS_None ||
        !VD->isStaticLocal() || S.isIgnoredLoc(VD->getLocation()))
      return true;
    RootShape R = rootShape(M, VD->getType());
    if (!R.Kind)
      return true;
    S.report(Diag::ThreadLocalRoot, VD->getLocation(),
             "static local thread-local " + quoted(VD->getName()) +
                 " holds pointers to compact type " + quoted(R.T->WideSpelling) +
                 "; it is no root, so the switch would not translate it: "
                 "declare it at file scope (each thread's copy is then a root)",
             {tokRange(VD->getSourceRange())});
    return true;
  }

  /// libc memory that will hold compact objects or pointers but is not
  /// allocated in a form the rewrite makes a compact allocation or a root
  /// array.  Objects from libc's aligned allocators (`aligned_alloc`,
  /// `posix_memalign` ...) lie outside the arena in every mode: freeing
  /// them is fatal, and the switch cannot move them.  Pointer arrays in
  /// other forms (`struct node *(*b)[2] = calloc(n, sizeof *b)`,
  /// `aligned_alloc` into a `struct node **`) are no roots, which matters
  /// in switchable mode only (without a switch they hold native addresses
  /// that stay valid).
  void checkLibcAllocation(const CallExpr *E, const FunctionDecl *FD) {
    bool IsAligned = isAlignedAllocator(FD);
    AllocFn K = allocFunction(E);
    bool Plain = K == AllocFn::Malloc || K == AllocFn::Calloc || K == AllocFn::Realloc;
    if (FD->hasBody() || !(IsAligned || Plain) || allocTarget(S, E) != AllocTarget::None)
      return;
    // The pointer type the memory is used as: through casts of the result,
    // or the variable whose address posix_memalign is handed.
    QualType T;
    if (FD->getName() == "posix_memalign") {
      if (E->getNumArgs() < 1)
        return;
      const auto *UO = dyn_cast<UnaryOperator>(E->getArg(0)->IgnoreParenCasts());
      if (!UO || UO->getOpcode() != UO_AddrOf)
        return;
      T = UO->getSubExpr()->getType();
    } else {
      T = pointerUse(S.Ctx, E);
    }
    if (!T->isPointerType())
      return;
    QualType Pointee = stripArrays(T->getPointeeType()).Element;
    if (CompactType *CT = M.recordOf(Pointee); CT && IsAligned) {
      S.report(Diag::ForeignAllocation, E->getExprLoc(),
               "this " + quoted(FD->getName()) + " allocates " +
                   quoted(CT->WideSpelling) + " outside the compact heap: the "
                   "runtime can neither free such an object nor move it at the "
                   "switch; allocate it with malloc or calloc (a compact object "
                   "is aligned to its type, not more)",
               {tokRange(E->getSourceRange())});
      return;
    }
    if (CompactType *PT = M.pinnedOf(Pointee); PT && IsAligned) {
      S.report(Diag::ForeignAllocation, E->getExprLoc(),
               "this " + quoted(FD->getName()) + " allocates " +
                   quoted(PT->WideSpelling) + " (pinned: it holds a '" +
                   PT->Sync +
                   "' and compact pointers) where the runtime does not see "
                   "it: the switch would not translate its compact pointers; "
                   "allocate it with malloc or calloc (aligned to its type)",
               {tokRange(E->getSourceRange())});
      return;
    }
    CompactType *CT = M.pointeeOf(Pointee);
    if (!CT || !S.Opts.switchable())
      return;
    S.report(Diag::RootArrayForm, E->getExprLoc(),
             "this " + quoted(FD->getName()) + " allocates memory that holds "
                 "pointers to compact type " + quoted(CT->WideSpelling) +
                 ", in a form that is not a root array: the switch would not "
                 "translate them; allocate it as malloc/calloc/realloc of n * "
                 "sizeof(" + CT->WideSpelling + " *) into a '" + CT->WideSpelling +
                 " **'",
             {tokRange(E->getSourceRange())});
  }

  /// A block literal's body (`-fblocks`) hangs off its BlockDecl, not off
  /// the expression, so the walkers that rewrite function bodies never
  /// reach it: a field read there would use the wide layout on a compact
  /// object, and an allocation there would come from libc.  Refused in
  /// every mode, at the first use of a compact type inside it.
  bool VisitBlockExpr(BlockExpr *E) {
    const BlockDecl *BD = E->getBlockDecl();
    if (S.isIgnoredLoc(E->getExprLoc()) || !BD->getBody())
      return true;
    const Expr *Use = firstCompactUse(BD->getBody());
    if (!Use)
      return true;
    S.report(Diag::Unrewritable, Use->getExprLoc(),
             "compact types are not rewritten inside a block literal (this "
             "expression is of, or reads through, compact type " +
                 quoted(compactTypeOf(Use)->WideSpelling) +
                 "); the block may call a function that uses them, but not "
                 "name a compact type, pointer or value itself (not even to "
                 "pass it on)",
             {tokRange(Use->getSourceRange())});
    return true;
  }
  /// The compact type an expression has, points to or reads through.
  CompactType *compactTypeOf(const Expr *E) const {
    if (CompactType *T = M.pointeeOf(E->getType()))
      return T;
    if (CompactType *T = M.elementOf(E->getType()))
      return T;
    if (const auto *ME = dyn_cast<MemberExpr>(E))
      return ME->isArrow() ? M.pointeeOf(ME->getBase()->getType())
                           : M.elementOf(ME->getBase()->getType());
    if (const auto *U = dyn_cast<UnaryExprOrTypeTraitExpr>(E))
      return M.elementOf(U->getTypeOfArgument());
    if (const auto *OE = dyn_cast<OffsetOfExpr>(E))
      return M.recordOf(OE->getTypeSourceInfo()->getType());
    return nullptr;
  }
  /// The first expression in St that has a compact type, points to one,
  /// reads a field of one or takes its size.  (A nested block's body is
  /// not a child: the visitor reaches that block on its own.)
  const Expr *firstCompactUse(const Stmt *St) {
    if (!St)
      return nullptr;
    if (const auto *E = dyn_cast<Expr>(St)) {
      // A null constant passed or compared is the same in both layouts.
      if (E->isNullPointerConstant(S.Ctx, Expr::NPC_ValueDependentIsNotNull))
        return nullptr;
      if (compactTypeOf(E))
        return E;
    }
    for (const Stmt *C : St->children())
      if (const Expr *U = firstCompactUse(C))
        return U;
    return nullptr;
  }

  /// Switchable mode: coroutines on stacks of their own (makecontext,
  /// swapcontext) interleave their shadow-stack frames on the one chain of
  /// their thread, and pop them out of order, so a switch would walk
  /// frames of a context that has moved on, and miss the roots of a
  /// suspended one.  (getcontext and setcontext on the same stack are
  /// setjmp and longjmp: supported.)
  void checkContextSwitch(const CallExpr *E, const FunctionDecl *FD) {
    if (!S.Opts.switchable() || !switchesStacks(FD))
      return;
    S.report(Diag::Unrewritable, E->getExprLoc(),
             quoted(FD->getName()) + " runs code on a stack of its own; in switchable "
                 "mode compact-pointer roots are kept in one chain of frames "
                 "per thread, which contexts that switch between stacks "
                 "would interleave, so the switch would miss or misread "
                 "their roots; build this program compact-only or wide",
             {tokRange(E->getSourceRange())});
  }

  /// A byte copy, comparison or fill (`memcpy(c, p, sizeof(struct snode)
  /// + lvl * sizeof(struct snode *))`) of an object whose flexible array
  /// member holds compact pointers: the program counts the elements' room
  /// in pointers of 8 bytes, which are 4-byte handles in the compact
  /// layout, so such a size reaches past them (and past a small object).
  /// Only the fixed part, `sizeof(T)` or `sizeof *p`, is the same bytes.
  void checkFlexHandleBytes(const CallExpr *E, StringRef N, CompactType *T) {
    const FieldDecl *Last = roomMember(T->RD);
    if (!Last || !M.pointeeOf(stripArrays(Last->getType()).Element))
      return;
    const Expr *Size = E->getArg(E->getNumArgs() - 1)->IgnoreParenImpCasts();
    if (const auto *U = dyn_cast<UnaryExprOrTypeTraitExpr>(Size);
        U && U->getKind() == UETT_SizeOf &&
        M.recordOf(U->getTypeOfArgument()) == T)
      return;
    std::string F = Last->getName().str();
    S.report(Diag::FlexibleArray, E->getExprLoc(),
             quoted(N) + " of " + quoted(T->WideSpelling) +
                 " with a size other than sizeof(" + T->WideSpelling +
                 "): its flexible array member " + quoted(F) +
                 " holds compact pointers, 4-byte handles in the compact "
                 "layout, whose room the program counts in 8-byte "
                 "pointers; copy the fixed part by assignment (*q = *p) "
                 "and the elements by index (q->" +
                 F + "[i] = p->" + F + "[i]) or with memmove(&q->" + F +
                 "[0], &p->" + F + "[0], n * sizeof p->" + F + "[0])",
             {tokRange(E->getSourceRange())});
  }

  /// memcpy/memmove between a heap object (compact layout) and a value
  /// (wide layout) of a compact type copies the wrong bytes.
  bool VisitCallExpr(CallExpr *E) {
    const FunctionDecl *FD = E->getDirectCallee();
    if (!FD || !FD->getIdentifier() || S.isIgnoredLoc(E->getExprLoc()))
      return true;
    checkLibcAllocation(E, FD);
    checkContextSwitch(E, FD);
    checkCallbackSafepoint(S, E);
    checkCallbackElsewhere(S, E);
    checkPointerBytes(S, E);
    checkPointerBytesAsInteger(E, FD);
    checkVoidLocalEscape(S, E, Current);
    // The __sync builtins are calls (of a sized variant); __atomic_* and
    // __c11_atomic_* are AtomicExprs, below.
    if (isAtomicBuiltin(FD) && E->getNumArgs() > 0)
      checkAtomicOnHandle(E, E->getArg(0), E->getCallee()->getExprLoc());
    if (E->getNumArgs() < 2)
      return true;
    bool Compares = false;
    StringRef N = byteCopyFunction(FD, &Compares);
    if (N.empty())
      return true;
    CompactType *H = nullptr, *V = nullptr;
    for (unsigned I = 0; I < 2; ++I) {
      const Expr *A = E->getArg(I)->IgnoreParenImpCasts();
      if (CompactType *T = M.pointeeOf(A->getType())) {
        const auto *UO = dyn_cast<UnaryOperator>(A);
        if (UO && UO->getOpcode() == UO_AddrOf &&
            !isCompactLocated(M, UO->getSubExpr()))
          V = T;
        else
          H = T;
      } else if (CompactType *T = M.elementOf(A->getType())) {
        // An array: of heap objects where it is compact-located (a
        // global or local in the compact heap), of values otherwise.
        (isCompactLocated(M, A) ? H : V) = T;
      }
    }
    if (CompactType *T = H ? H : V)
      checkFlexHandleBytes(E, N, T);
    // A comparison has no assignment to use instead; a copy into a value
    // (`w = *p`, converted field by field) would not carry the padding.
    if (H && V)
      S.report(Diag::MemcpyValue, E->getExprLoc(),
              quoted(N) + " between a heap object of compact type " +
                  quoted(H->WideSpelling) +
                  " (compact layout) and a value (wide layout); " +
                  (Compares ? std::string("compare field by field (the "
                                          "bytes differ between the layouts, "
                                          "padding included)")
                            : std::string("use assignment (*p = v or v = *p) "
                                          "instead")),
              {tokRange(E->getSourceRange())});
    return true;
  }

  /// `(char *)p + 16`, `((char *)p)[16]`: a byte offset into a compact
  /// object written as a number is an offset in the wide layout.  The
  /// compact layout puts the fields elsewhere, so the access reads or
  /// writes other bytes, silently.  An offset built with offsetof or
  /// sizeof names what it measures and the rewrite gives it in each
  /// layout (container_of); an offset computed at run time is the
  /// program's own (Pools.cpp traces the container_of kind).
  bool VisitBinaryOperator(BinaryOperator *E) {
    if (E->getOpcode() == BO_Assign)
      noteAddressHeld(declOf(E->getLHS()), E->getRHS());
    if (!S.isIgnoredLoc(E->getExprLoc())) {
      checkAddressDifference(E);
      checkConstantStore(E);
    }
    if (!E->isAdditiveOp() || !E->getType()->isPointerType())
      return true;
    bool PtrLeft = E->getLHS()->getType()->isPointerType();
    checkLayoutOffset(E, PtrLeft ? E->getLHS() : E->getRHS(),
                      PtrLeft ? E->getRHS() : E->getLHS(), E->getOpcode() == BO_Sub);
    return true;
  }
  bool VisitArraySubscriptExpr(ArraySubscriptExpr *E) {
    checkLayoutOffset(E, E->getBase(), E->getIdx(), false);
    return true;
  }

  bool VisitAtomicExpr(AtomicExpr *E) {
    // The object, and the operands passed by address (the expected value
    // of a compare-exchange, `atomic_compare_exchange_weak(&top, &n->next,
    // n)`; the value and result of the generic forms).
    Expr **Ops = E->getSubExprs();
    for (unsigned I = 0; I < E->getNumSubExprs(); ++I)
      checkAtomicOnHandle(E, Ops[I], E->getBuiltinLoc(), Ops[I] == E->getPtr());
    return true;
  }

  bool VisitCStyleCastExpr(CStyleCastExpr *E) {
    noteBytesRead(E);
    if (!S.isIgnoredLoc(E->getExprLoc()) && !checkCast(E) &&
        !checkPoolConversion(S, E) && !checkRootArrayConversion(S, E)) {
      checkForeignObject(S, E);
      checkVoidEscape(S, E);
      checkTaggedEscape(S, E);
    }
    return true;
  }

  /// A struct of compact type whose bytes the file reads both from a
  /// value (a local, a parameter: the wide layout) and from the compact
  /// heap (the compact layout) -- uthash's struct key, hashed and compared
  /// as `(const unsigned char *)&k` at a find and `&e->key` at an add: the
  /// two never match, in every mode (a trial's edge table found no
  /// duplicate, silently).  Warned at each read of a value's bytes.
  void reportLayoutBytes() {
    for (const auto &[T, Reads] : BytesRead) {
      if (llvm::none_of(Reads, [](const auto &R) { return R.second; }))
        continue;
      for (const auto &[Cast, Heap] : Reads)
        if (!Heap)
          S.report(Diag::LayoutBytes, Cast->getExprLoc(),
                   "the bytes of a " + quoted(T->WideSpelling) +
                       " value (its wide layout) are read here, and "
                       "elsewhere in this file those of one in the compact "
                       "heap (its compact layout): hashed or compared "
                       "against each other (a hash table's struct key) they "
                       "never match; key by members that hold no compact "
                       "pointer (ids), or compare field by field",
                   {tokRange(Cast->getSourceRange())});
    }
  }

private:
  Session &S;
  const Model &M;
  const FunctionDecl *Current = nullptr;
  /// Casts of `&x` of a compact struct to a byte pointer, by type: whether
  /// x is in the compact heap (reportLayoutBytes).
  std::map<const CompactType *,
           std::vector<std::pair<const CStyleCastExpr *, bool>>>
      BytesRead;
  void noteBytesRead(const CStyleCastExpr *E) {
    const auto *PT = E->getType()->getAs<PointerType>();
    const auto *A =
        dyn_cast<UnaryOperator>(E->getSubExpr()->IgnoreParenImpCasts());
    if (!PT || !PT->getPointeeType()->isCharType() || !A ||
        A->getOpcode() != UO_AddrOf)
      return;
    if (const CompactType *T = M.recordOf(A->getSubExpr()->getType()))
      BytesRead[T].push_back({E, isCompactLocated(M, A->getSubExpr())});
    if (const ValueDecl *D = declOf(A->getSubExpr());
        D && D->getType()->isPointerType())
      AddressBytesRead.push_back({E, D});
  }
  static const ValueDecl *declOf(const Expr *E) {
    E = E->IgnoreParens();
    if (const auto *DR = dyn_cast<DeclRefExpr>(E))
      return DR->getDecl();
    if (const auto *ME = dyn_cast<MemberExpr>(E))
      return ME->getMemberDecl();
    return nullptr;
  }

  /// Pointer variables and fields of other types given a compact object's
  /// address (`e->key = n` into a `void *`), with the object's type and
  /// the first such assignment.
  llvm::DenseMap<const ValueDecl *, std::pair<CompactType *, SourceLocation>>
      AddressHolders;
  /// Casts of `&x` to a byte pointer where x is a pointer variable or
  /// field (reportAddressBytes).
  std::vector<std::pair<const CStyleCastExpr *, const ValueDecl *>>
      AddressBytesRead;
  void noteAddressHeld(const ValueDecl *D, const Expr *Value) {
    if (!D || !Value || !D->getType()->isPointerType() ||
        M.pointeeOf(D->getType()) || AddressHolders.count(D))
      return;
    if (CompactType *T = M.pointeeOf(Value->IgnoreParenCasts()->getType()))
      AddressHolders[D] = {T, Value->getExprLoc()};
  }

public:
  /// The bytes of a pointer that holds a compact object's address, read
  /// as bytes (uthash's HASH_ADD_PTR and HASH_FIND_PTR hash `&e->key` and
  /// `&k`): a hash of the address of the moment, like `(uintptr_t)p`, and
  /// the switch moves every object (switchable mode).  The runtime names
  /// these sites after a switch, with the integer casts.
  void reportAddressBytes() {
    if (!S.Opts.switchable())
      return;
    for (const auto &[Cast, D] : AddressBytesRead) {
      CompactType *T = M.pointeeOf(D->getType());
      std::string Held;
      if (!T) {
        auto It = AddressHolders.find(D);
        if (It == AddressHolders.end())
          continue;
        T = It->second.first;
        PresumedLoc P = S.SM.getPresumedLoc(
            S.SM.getExpansionLoc(It->second.second));
        Held = P.isValid() ? " (given one at line " +
                                 std::to_string(P.getLine()) + ")"
                           : "";
      }
      recordIntegerCast(T, Cast->getExprLoc());
      S.report(Diag::IntegerCast, Cast->getExprLoc(),
               "the bytes of " + quoted(D->getName()) +
                   ", which holds the address of a compact " +
                   quoted(T->WideSpelling) + Held +
                   ", are read here: hashed or compared, they are the "
                   "address of the moment, and " +
                   addressesMove(),
               {tokRange(Cast->getSourceRange())});
    }
  }

private:
  /// Variables whose address was refused as a compact pointer already.
  llvm::DenseSet<const ValueDecl *> NonHeapReported;

  /// `e->next = LIST_POISON1` with the kernel's poison value
  /// (0xdead000000000100): a constant beyond every handle's reach, which
  /// cp_encode would refuse at the store, stopping the program with a
  /// message about foreign allocators and no line.  The compiler sees the
  /// value, so the store is refused here.  (The reach is 4 GiB with the
  /// default 1-byte granule, more with larger ones: the smallest is
  /// taken.  A constant below it round-trips exactly.)
  void checkConstantStore(const BinaryOperator *E) {
    if (!S.Opts.compactBodies() || E->getOpcode() != BO_Assign ||
        !isHandleLValue(M, E->getLHS()))
      return;
    std::optional<uint64_t> V = constantAddress(E->getRHS(), S.Ctx);
    if (!V || *V < ((uint64_t)1 << 32))
      return;
    const Expr *L = E->getLHS()->IgnoreParenImpCasts();
    const auto *ME = dyn_cast<MemberExpr>(L);
    std::string Where = ME ? "field " + quoted(ME->getMemberDecl()->getName())
                           : std::string("a compact pointer field");
    char Hex[32];
    snprintf(Hex, sizeof Hex, "0x%llx", (unsigned long long)*V);
    S.report(Diag::NonHeapAddress, E->getRHS()->getExprLoc(),
             "the constant address " + std::string(Hex) + " stored into " +
                 Where +
                 " is beyond what a handle holds (addresses below 4 GiB): "
                 "the store would stop the program; use a sentinel below "
                 "it, such as the kernel's list poison values without "
                 "POISON_POINTER_DELTA ((void *)0x100)",
             {tokRange(E->getRHS()->getSourceRange())});
  }

  /// `(void *)((char *)p + 1)`: a tag in the low bits of the object's
  /// address (a crit-bit tree's leaf mark), kept as `void *`, not a byte
  /// of it to read.  Objects are aligned to 4 bytes in both layouts, and
  /// the switch moves such an address with its tag (CP_FIELD_ADDRESS).
  bool isTag(const Expr *Whole, int64_t Bytes) {
    if (Bytes < 1 || Bytes > 3)
      return false;
    const Expr *Cur = Whole;
    const Expr *P = parentSkippingParens(S.Ctx, Whole, &Cur);
    const auto *CE = dyn_cast_or_null<CastExpr>(P);
    return CE && CE->getType()->isVoidPointerType();
  }

  void checkLayoutOffset(const Expr *Whole, const Expr *Ptr, const Expr *Off, bool Back) {
    if (S.isIgnoredLoc(Whole->getExprLoc()))
      return;
    const auto *C = dyn_cast<ExplicitCastExpr>(Ptr->IgnoreParens());
    if (!C || !isBytePointer(C->getType()))
      return;
    // `(char *)(void *)p`: through every cast to a byte pointer.
    while (const auto *In = dyn_cast<ExplicitCastExpr>(C->getSubExpr()->IgnoreParens()))
      if (isBytePointer(In->getType()))
        C = In;
      else
        break;
    if (Off->isValueDependent())
      return;
    std::optional<llvm::APSInt> V = Off->getIntegerConstantExpr(S.Ctx);
    if (!V || V->isZero() || namesLayout(Off))
      return;
    int64_t Bytes = Back ? -V->getExtValue() : V->getExtValue();
    const CompactType *T = objectAround(C->getSubExpr()->IgnoreParenImpCasts(), Bytes);
    if (!T || isTag(Whole, Bytes))
      return;
    S.report(Diag::LayoutOffset, Off->getExprLoc(),
             "byte offset " + std::to_string(Bytes) + " in a " +
                 quoted(T->WideSpelling) +
                 " is written as a number, an offset in the wide layout; in "
                 "the compact layout the fields are at other offsets, so this "
                 "reaches other bytes; name the field (&p->field) or use "
                 "offsetof(" + T->WideSpelling + ", field)",
             {tokRange(Whole->getSourceRange())});
  }

  /// An atomic builtin (`__atomic_compare_exchange_n(&b->head, ...)`,
  /// `__sync_bool_compare_and_swap(&b->head, ...)`) on a handle field: in
  /// the compact layout the field is a 32-bit handle, and the builtin
  /// would load, compare or store 8 bytes of pointer there (it stopped at
  /// the encode check, or corrupted the next field).  Named at the
  /// builtin as the user spelled it (clang calls a sized variant).
  void checkAtomicOnHandle(const Expr *Whole, const Expr *Ptr, SourceLocation Builtin,
                           bool Object = true) {
    if (!Builtin.isValid() || S.isIgnoredLoc(Whole->getExprLoc()))
      return;
    const auto *UO = dyn_cast<UnaryOperator>(Ptr->IgnoreParenImpCasts());
    if (!UO || UO->getOpcode() != UO_AddrOf)
      return;
    const Expr *Slot = UO->getSubExpr()->IgnoreParens();
    if (!isHandleLValue(M, Slot))
      return;
    SourceManager &SM = S.Ctx.getSourceManager();
    std::string Name =
        Lexer::getSourceText(CharSourceRange::getTokenRange(SM.getSpellingLoc(Builtin)), SM,
                             S.Ctx.getLangOpts())
            .str();
    if (!Object) {
      // Single-threaded it zeroed the next object's first field: the
      // builtin wrote a whole pointer of `expected` back into the handle.
      S.report(Diag::Unrewritable, Builtin,
               quoted(Name) + " given the address of handle field " +
                   quoted(fieldName(Slot)) +
                   ": in compact layout the field is a 32-bit handle, not a "
                   "pointer, so the builtin cannot read or write a pointer "
                   "there; pass the address of a local pointer and store it "
                   "into the field after the call",
               {tokRange(Ptr->getSourceRange())});
      return;
    }
    // Say why a struct the user never annotated has handle fields.
    std::string Inferred;
    if (const auto *ME = dyn_cast<MemberExpr>(Slot))
      if (const auto *FD = dyn_cast<FieldDecl>(ME->getMemberDecl()))
        if (const CompactType *Holder =
                M.recordOf(QualType(FD->getParent()->getTypeForDecl(), 0));
            Holder && !Holder->Annotated)
          Inferred = " of " + quoted(Holder->WideSpelling) +
                     " (compact by inference: it holds a pointer to a "
                     "compact type)";
    S.report(Diag::Unrewritable, Builtin,
             quoted(Name) + " on handle field " + quoted(fieldName(Slot)) +
                 Inferred +
                 ": in compact layout the field is a 32-bit handle, not a "
                 "pointer, so the builtin cannot load, compare or store it; "
                 "guard the field with a lock, or keep the lock-free head in "
                 "a root (a global or a local, whose pointers stay native)",
             {tokRange(Whole->getSourceRange())});
  }

  /// The compact type of the object that a byte offset Off from E leaves
  /// layout-dependent: E points to it, or E is the address of a field of
  /// it (`&p->v`) and Off steps out of the field (within a plain field the
  /// bytes are the field's own, the same in both layouts).
  const CompactType *objectAround(const Expr *E, int64_t Off) {
    if (const CompactType *T = M.pointeeOf(E->getType()))
      return T;
    const auto *UO = dyn_cast<UnaryOperator>(E);
    if (!UO || UO->getOpcode() != UO_AddrOf)
      return nullptr;
    // `&p->name[2] + 1`: bytes of an array field, whose elements are where
    // the index says in both layouts (how far is not known here).
    const auto *ME = dyn_cast<MemberExpr>(UO->getSubExpr()->IgnoreParens());
    if (!ME)
      return nullptr;
    const Expr *Base = ME->getBase();
    const CompactType *T = ME->isArrow()             ? M.pointeeOf(Base->getType())
                           : isCompactLocated(M, Base) ? M.recordOf(Base->getType())
                                                       : nullptr;
    if (!T || UO->getSubExpr()->getType()->isIncompleteType())
      return nullptr;
    int64_t Size = S.Ctx.getTypeSizeInChars(UO->getSubExpr()->getType()).getQuantity();
    bool Inside = Off >= 0 && Off <= Size; // one past the end too
    return Inside ? nullptr : T;
  }

  /// St holds an offsetof, or a sizeof or _Alignof of a compact type (or
  /// of an object of one): the offset says what it measures, and the
  /// rewrite gives it in each layout.  `sizeof(void *)` says nothing of
  /// where the fields are.
  bool namesLayout(const Stmt *St) {
    if (isa<OffsetOfExpr>(St) ||
        (isa<UnaryExprOrTypeTraitExpr>(St) && layoutDependentTrait(M, St)))
      return true;
    for (const Stmt *C : St->children())
      if (C && namesLayout(C))
        return true;
    return false;
  }

  static std::string fieldName(const Expr *E) {
    E = E->IgnoreParens();
    while (const auto *AS = dyn_cast<ArraySubscriptExpr>(E))
      E = AS->getBase()->IgnoreParenImpCasts();
    if (const FieldDecl *FD = memberField(E))
      return FD->getName().str();
    return "";
  }

  const Expr *parentExpr(const Expr *E) { return parentSkippingParens(S.Ctx, E); }


  bool isSubscriptBase(const Expr *Decay) {
    const Expr *P = parentExpr(Decay);
    const auto *AS = P ? dyn_cast<ArraySubscriptExpr>(P) : nullptr;
    return AS && AS->getBase()->IgnoreParens() == Decay;
  }

  /// `&v` / `arr` of a value of compact type (a local, a global or part of
  /// one): legal while it stays a byte address (void *, char *), an error
  /// as soon as it flows into a compact pointer.
  void checkNonHeapAddress(const Expr *Addr, const Expr *Sub) {
    const Expr *P = parentExpr(Addr);
    if (const auto *CE = P ? dyn_cast<CastExpr>(P) : nullptr) {
      QualType To = CE->getType();
      if (To->isPointerType() && !M.pointeeOf(To))
        return; // a byte address: memcpy, memset, printf("%p")
    }
    // The fix is at the declaration: one error for each variable, not
    // one for each use (seven for a parser's state passed around).
    const auto *DR =
        dyn_cast<DeclRefExpr>(enclosingObject(Sub, /*ThroughArrow=*/true));
    if (DR && !NonHeapReported.insert(DR->getDecl()).second)
      return;
    std::string What = describe(Sub);
    std::string Why =
        whyNotBoxed(Sub) + inferredBecause(M.elementOf(Sub->getType()));
    if (const auto *BO = P ? dyn_cast<BinaryOperator>(P) : nullptr)
      if (BO->getOpcode() == BO_Assign && isHandleLValue(M, BO->getLHS())) {
        S.report(Diag::NonHeapAddress, Addr->getExprLoc(),
                "storing the address of " + What + " into compact field " +
                    quoted(fieldName(BO->getLHS())) +
                    "; compact fields can only point to heap objects" + Why,
                {tokRange(Addr->getSourceRange())});
        return;
      }
    S.report(Diag::NonHeapAddress, Addr->getExprLoc(),
            "the address of " + What +
                " cannot be used as a compact pointer; compact pointers must "
                "point to heap objects" + Why,
            {tokRange(Addr->getSourceRange())});
  }

  /// The object whose member or element E names: E with every `.field`
  /// and `[i]` taken off (and `->field` too when ThroughArrow).
  static const Expr *enclosingObject(const Expr *E, bool ThroughArrow) {
    E = E->IgnoreParens();
    for (;;) {
      if (const auto *ME = dyn_cast<MemberExpr>(E);
          ME && (ThroughArrow || !ME->isArrow())) {
        E = ME->getBase()->IgnoreParens();
        continue;
      }
      if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
        E = AS->getBase()->IgnoreParenImpCasts();
        continue;
      }
      return E;
    }
  }

  /// Why the variable under E was not placed in the compact heap (as a
  /// variable of compact type whose address is used is, Boxing.cpp), and
  /// the way out.
  static std::string whyNotBoxed(const Expr *E) {
    E = enclosingObject(E, /*ThroughArrow=*/false);
    const auto *DR = dyn_cast<DeclRefExpr>(E);
    const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
    std::string Wide = VD ? whyStaysWide(VD) : std::string();
    return " (" +
           (Wide.empty() ? std::string("allocate it with malloc") : Wide) + ")";
  }

  /// For a type nobody annotated, why it is compact anyway: a user who
  /// marked only the nodes is told about a pointer to their parser (the
  /// first field that makes it one).
  std::string inferredBecause(const CompactType *T) const {
    if (!T || T->Annotated)
      return "";
    std::string Field;
    for (const FieldDecl *F : T->RD->fields())
      if (M.pointeeOf(F->getType()) || M.elementOf(F->getType())) {
        Field = F->getName().str();
        break;
      }
    return "; " + quoted(T->WideSpelling) +
           " is compact by inference: it holds a pointer to a compact type" +
           (Field.empty() ? std::string() : " (" + quoted(Field) + ")");
  }

  /// inferredBecause for the struct whose member handle array A is (an
  /// iterator's `stack[64]` made handles because its struct holds node
  /// pointers, which nobody asked for).
  std::string holderInferredBecause(const Expr *A) const {
    const auto *ME = dyn_cast<MemberExpr>(A->IgnoreParens());
    const auto *FD = ME ? dyn_cast<FieldDecl>(ME->getMemberDecl()) : nullptr;
    return FD ? inferredBecause(
                    M.recordOf(S.Ctx.getRecordType(FD->getParent())))
              : "";
  }

  static std::string describe(const Expr *E) {
    E = enclosingObject(E, /*ThroughArrow=*/true);
    if (const auto *DR = dyn_cast<DeclRefExpr>(E))
      if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl()))
        return variableKind(VD).str() + " " + quoted(VD->getName());
    return "a non-heap object";
  }

  /// The array variable (local or global) a byte pointer points into:
  /// `buf`, `buf + k`, `&buf[k]`, `(char *)buf`; else null.
  static const VarDecl *arrayVarBase(const Expr *E) {
    for (;;) {
      E = E->IgnoreParens();
      if (const auto *C = dyn_cast<CastExpr>(E)) {
        if (C->getCastKind() == CK_ArrayToPointerDecay) {
          const auto *DR = dyn_cast<DeclRefExpr>(C->getSubExpr()->IgnoreParens());
          return DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
        }
        E = C->getSubExpr();
        continue;
      }
      if (const auto *B = dyn_cast<BinaryOperator>(E)) {
        if (!B->isAdditiveOp())
          return nullptr;
        E = B->getLHS()->getType()->isPointerType() ? B->getLHS() : B->getRHS();
        continue;
      }
      if (const auto *U = dyn_cast<UnaryOperator>(E)) {
        if (U->getOpcode() != UO_AddrOf)
          return nullptr;
        const auto *AS = dyn_cast<ArraySubscriptExpr>(U->getSubExpr()->IgnoreParens());
        if (!AS)
          return nullptr;
        E = AS->getBase();
        continue;
      }
      return nullptr;
    }
  }

  /// "" if a cast between pointers to A and B is valid in compact layout,
  /// as C makes it valid for the wide one: they share a common initial
  /// sequence (Layout.cpp places it identically in both), or one begins
  /// with the other.  Otherwise why not, naming the fields that differ.
  std::string sharedPrefix(const CompactType *A, const CompactType *B) {
    if (beginsWith(M, A, B) || beginsWith(M, B, A))
      return "";
    const FieldDecl *FA = firstField(A), *FB = firstField(B);
    if (FA && FB && !FA->isBitField() && !FB->isBitField() &&
        S.Ctx.typesAreCompatible(FA->getType().getUnqualifiedType(),
                                 FB->getType().getUnqualifiedType()))
      return "";
    auto field = [&](const FieldDecl *F, const CompactType *T) {
      return F ? quoted(S.typeText(F->getType()) + " " + F->getName().str()) +
                     " in " + quoted(T->WideSpelling)
               : quoted(T->WideSpelling) + " has no fields";
    };
    return "their compact layouts differ: they share no common initial "
           "sequence (the first fields differ: " +
           field(FA, A) + ", " + field(FB, B) +
           ") and neither begins with the other";
  }

  /// Notes the site of a cast between a pointer to T and an integer for
  /// T's descriptor (whether or not the warning is shown): the runtime names
  /// these sites after a switch.
  void recordIntegerCast(CompactType *T, SourceLocation Loc) {
    const SourceManager &SM = S.Ctx.getSourceManager();
    PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(Loc));
    if (P.isInvalid())
      return;
    std::string Site = std::string(P.getFilename()) + ":" + std::to_string(P.getLine());
    if (std::find(T->IntegerCastSites.begin(), T->IntegerCastSites.end(), Site) ==
        T->IntegerCastSites.end())
      T->IntegerCastSites.push_back(Site);
  }

  /// True if a diagnostic was reported.
  /// The function of this file that byte address E (a compact pointer
  /// converted to `void *` or `char *`) is handed to when it turns that
  /// parameter into an integer (`ptr_hash((const void *)n)`, hashing
  /// `(uintptr_t)p`); else null.
  const FunctionDecl *addressTurnedIntegerBy(const CastExpr *E) {
    const Expr *Cur = E;
    const CallExpr *Call = callTakingPointer(S.Ctx, Cur);
    const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
    const FunctionDecl *Def = FD ? FD->getDefinition() : nullptr;
    if (!Def || !Def->hasBody())
      return nullptr;
    unsigned I = argumentIndex(Call, Cur);
    if (I >= Def->getNumParams())
      return nullptr;
    bool Yes = anyReferenceTo(Def->getBody(), Def->getParamDecl(I), [&](const DeclRefExpr *DR) {
      const Expr *Use = DR;
      for (const Expr *Up = parentExpr(Use); const auto *C = dyn_cast_or_null<CastExpr>(Up);
           Up = parentExpr(Use)) {
        if (C->getCastKind() == CK_PointerToIntegral)
          return true;
        Use = C;
      }
      return false;
    });
    return Yes ? Def : nullptr;
  }

  /// The integer address E became goes into arithmetic that mixes its
  /// bits or picks a bucket: `(uintptr_t)n >> 3`, `% buckets`, `* 2654435761u`,
  /// `^`, a mask wider than a tag's (`& (size - 1)`, `& 1023`).  Not a hash:
  /// an alignment test (`% 16 == 0`, `& 7`), a page number (`/ 4096`), a tag
  /// set in the low bits (`| 1`, `<< 1`).
  bool mixesBits(const Expr *E) {
    const Expr *Cur = E;
    const Expr *P = parentExpr(Cur);
    for (; const auto *C = dyn_cast_or_null<CastExpr>(P); P = parentExpr(Cur)) {
      if (!C->getType()->isIntegerType())
        return false;
      Cur = C;
    }
    const auto *BO = dyn_cast_or_null<BinaryOperator>(P);
    if (!BO)
      return false;
    const Expr *Other =
        BO->getLHS()->IgnoreParens() == Cur ? BO->getRHS() : BO->getLHS();
    std::optional<llvm::APSInt> K = Other->getIntegerConstantExpr(S.Ctx);
    switch (BO->getOpcode()) {
    case BO_Shr:
    case BO_Mul:
    case BO_ShrAssign:
    case BO_MulAssign:
      return true;
    case BO_Xor:
    case BO_XorAssign:
      return !K || K->getZExtValue() > 15; // `^ 1` flips a tag bit
    case BO_Rem:
    case BO_RemAssign: {
      // `% 16 == 0` tests alignment.
      const auto *Test = dyn_cast_or_null<BinaryOperator>(parentExpr(BO));
      return !(Test && Test->isEqualityOp());
    }
    case BO_And:
    case BO_AndAssign:
      return !K || K->getZExtValue() > 15;
    default:
      return false;
    }
  }

  /// Why a hash of addresses breaks at the switch, and what to write
  /// instead.
  static std::string addressesMove() {
    return "the switch to wide mode moves every object, so a table keyed on "
           "addresses taken before it finds nothing after it (key the table "
           "on a field of the object, or build the program compact-only, "
           "which never switches)";
  }

  /// Why an address kept as an integer in a struct (the parent pointer
  /// and the colour of a Linux rbtree node in one `unsigned long`) breaks
  /// at the switch, and what to write instead.
  static std::string keptAsInteger() {
    return "an address kept as an integer is not translated when the switch "
           "to wide mode moves the objects, so after it the field names "
           "nothing (the program stops at its first use); keep the address "
           "in a field of pointer type and the bits beside it in a field of "
           "their own, or build the program compact-only, which never switches";
  }

  /// The field an integer made from an address is stored into, through
  /// integer conversions and the bit operations that add a tag (`rb->pc =
  /// color | (unsigned long)p`); null if it is not stored so.
  const FieldDecl *storedIntoField(const Expr *E) {
    const Expr *Cur = E;
    for (const Expr *P = parentExpr(Cur); P; P = parentExpr(Cur)) {
      if (const auto *C = dyn_cast<CastExpr>(P);
          C && C->getType()->isIntegerType()) {
        Cur = C;
        continue;
      }
      const auto *BO = dyn_cast<BinaryOperator>(P);
      if (!BO)
        return nullptr;
      if (BO->getOpcode() == BO_Assign) {
        if (BO->getRHS()->IgnoreParens() != Cur->IgnoreParens())
          return nullptr;
        const auto *ME =
            dyn_cast<MemberExpr>(BO->getLHS()->IgnoreParenImpCasts());
        return ME && !ME->getType()->isPointerType() &&
                       insideCompactObject(M, ME)
                   ? dyn_cast<FieldDecl>(ME->getMemberDecl())
                   : nullptr;
      }
      if (BO->getOpcode() != BO_Or && BO->getOpcode() != BO_And &&
          BO->getOpcode() != BO_Add && BO->getOpcode() != BO_Xor)
        return nullptr;
      Cur = BO;
    }
    return nullptr;
  }

  /// The field of a compact object an integer operand reads, through
  /// integer conversions and bit operations (`(r)->pc & ~3`); null if none.
  const FieldDecl *readFromField(const Expr *E) {
    E = E->IgnoreParenCasts();
    // (A pointer field made an integer here is the address of the moment.)
    if (const auto *ME = dyn_cast<MemberExpr>(E))
      return insideCompactObject(M, ME) && ME->getType()->isIntegerType()
                 ? dyn_cast<FieldDecl>(ME->getMemberDecl())
                 : nullptr;
    if (const auto *BO = dyn_cast<BinaryOperator>(E);
        BO && (BO->getOpcode() == BO_And || BO->getOpcode() == BO_Or ||
               BO->getOpcode() == BO_Xor || BO->isAdditiveOp())) {
      if (const FieldDecl *F = readFromField(BO->getLHS()))
        return F;
      return readFromField(BO->getRHS());
    }
    return nullptr;
  }

  /// The integer-cast warning for an integer made from a compact pointer
  /// to T (How: "cast to an integer"), said by what the integer's values
  /// Uses go into (switchable): a field of a compact object, a hash,
  /// anything else.
  void reportIntegerMade(CompactType *T, SourceLocation Loc, CharSourceRange R,
                         const std::string &How, ArrayRef<const Expr *> Uses) {
    recordIntegerCast(T, Loc);
    const std::string What =
        "compact pointer to " + quoted(T->WideSpelling) + " " + How;
    const FieldDecl *F = nullptr;
    bool Hashed = false;
    for (const Expr *U : Uses)
      if (!F && !(F = S.Opts.switchable() ? storedIntoField(U) : nullptr))
        Hashed |= mixesBits(U);
    // Without a switch an address hashed stays the object's: only a tag
    // in its low bits can go wrong.
    if (Hashed && !S.Opts.switchable())
      return;
    if (F)
      S.report(Diag::IntegerCast, Loc,
               What + " and stored in field " + quoted(F->getName()) + "; " +
                   keptAsInteger(),
               {R});
    else if (Hashed)
      S.report(Diag::IntegerCast, Loc,
               What + " and hashed; " + addressesMove(),
               {R});
    else
      S.report(Diag::IntegerCast, Loc,
               What + "; " +
                   (S.Opts.switchable() ? "the value does not survive the "
                                          "switch to wide mode, and "
                                        : "") +
                   (S.Opts.compactBodies()
                        ? "compact objects are aligned to 4 bytes (8 with "
                          "8-byte granules), not to malloc's 16: no low bit "
                          "beyond those is free for a tag"
                        : "the runtime's objects are aligned to their "
                          "type's alignment, not to malloc's 16: no low bit "
                          "beyond those is free for a tag"),
               {R});
  }

  /// The bytes of a compact pointer variable copied into an integer
  /// (`memcpy(&v, &p, sizeof v)`, the hash of a pointer-keyed set) or into
  /// an array whose elements the function reads as numbers: an integer
  /// made from the address as a cast makes one, without a cast for
  /// checkCast to see (a set keyed on addresses found 1 of 1000 nodes
  /// after the switch, unwarned).  Into a pointer it is a pointer copy; a
  /// buffer only copied on is a pointer copy too (Escapes.cpp warns where
  /// it is kept).
  void checkPointerBytesAsInteger(const CallExpr *E, const FunctionDecl *FD) {
    bool Compares = false;
    if (byteCopyFunction(FD, &Compares).empty() || Compares ||
        E->getNumArgs() < 3)
      return;
    int Out = bytesOutArgument(FD);
    if (Out < 0)
      return;
    const Expr *Src = E->getArg(Out), *Dst = E->getArg(Out == 0 ? 1 : 0);
    const auto *UO = dyn_cast<UnaryOperator>(Src->IgnoreParenCasts());
    if (!UO || UO->getOpcode() != UO_AddrOf)
      return;
    const Expr *P = UO->getSubExpr()->IgnoreParens();
    CompactType *T = M.pointeeOf(P->getType());
    if (!T || isHandleLValue(M, P)) // `&n->next`: Slots.cpp's
      return;
    const Expr *D = Dst->IgnoreParenCasts();
    llvm::SmallVector<const Expr *, 4> Uses;
    std::string Into;
    if (const auto *DA = dyn_cast<UnaryOperator>(D);
        DA && DA->getOpcode() == UO_AddrOf &&
        DA->getSubExpr()->getType()->isIntegerType()) {
      // Into an integer: whatever it is used for, it is the address.
      Into = "an integer";
      if (const VarDecl *V = varNamed(DA->getSubExpr())) {
        Into = "integer " + quoted(V->getName());
        Uses = readsOf(V, /*Elements=*/false);
      }
    } else if (const VarDecl *V = varNamed(D);
               V && V->getType()->isArrayType() &&
               stripArrays(V->getType()).Element->isIntegerType()) {
      // Into an array: only where its elements are read as numbers (a
      // hash over the bytes); copied on, it carries a pointer.
      Uses = readsOf(V, /*Elements=*/true);
      if (Uses.empty())
        return;
      Into = "array " + quoted(V->getName());
    } else {
      return;
    }
    reportIntegerMade(T, Src->getExprLoc(), tokRange(Src->getSourceRange()),
                      "copied into " + Into + " by " + quoted(FD->getName()),
                      Uses);
  }

  /// `(char *)p - (char *)0`, `p - (struct node *)NULL`: a compact
  /// pointer made an integer by a difference with a constant address,
  /// the cast's number without a cast.  A difference between two
  /// pointers of the program is a distance, not an address.
  void checkAddressDifference(const BinaryOperator *E) {
    if (E->getOpcode() != BO_Sub || !E->getLHS()->getType()->isPointerType() ||
        !E->getRHS()->getType()->isPointerType())
      return;
    auto constant = [&](const Expr *X) {
      return X->IgnoreParenCasts()->isIntegerConstantExpr(S.Ctx);
    };
    const Expr *L = E->getLHS(), *Rt = E->getRHS();
    CompactType *T = nullptr;
    if (constant(Rt))
      T = M.pointeeOf(L->IgnoreParenCasts()->getType());
    else if (constant(L))
      T = M.pointeeOf(Rt->IgnoreParenCasts()->getType());
    if (!T)
      return;
    reportIntegerMade(T, E->getExprLoc(), tokRange(E->getSourceRange()),
                      "made an integer by subtracting a constant address", {E});
  }

  /// The variable E names (through parentheses and casts), or null.
  static const VarDecl *varNamed(const Expr *E) {
    const auto *DR = dyn_cast<DeclRefExpr>(E->IgnoreParenCasts());
    return DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
  }

  /// The reads of V's value in the current function's body, or with
  /// Elements of its elements (`b[i]`, `*b`).
  llvm::SmallVector<const Expr *, 4> readsOf(const VarDecl *V, bool Elements) {
    llvm::SmallVector<const Expr *, 4> Found;
    if (!Current || !Current->hasBody())
      return Found;
    anyReferenceTo(Current->getBody(), V, [&](const DeclRefExpr *DR) {
      const Expr *Cur = DR;
      if (Elements) {
        const Expr *P = parentExpr(Cur);
        const auto *Decay = dyn_cast_or_null<ImplicitCastExpr>(P);
        if (!Decay || Decay->getCastKind() != CK_ArrayToPointerDecay)
          return false;
        Cur = Decay;
        P = parentExpr(Cur);
        const auto *AS = dyn_cast_or_null<ArraySubscriptExpr>(P);
        const auto *Deref = dyn_cast_or_null<UnaryOperator>(P);
        if (!(AS && AS->getBase()->IgnoreParens() == Cur) &&
            !(Deref && Deref->getOpcode() == UO_Deref))
          return false;
        Cur = P;
      }
      const auto *Read = dyn_cast_or_null<ImplicitCastExpr>(parentExpr(Cur));
      if (Read && Read->getCastKind() == CK_LValueToRValue)
        Found.push_back(Read);
      return false;
    });
    return Found;
  }

  /// E, through parentheses and integer conversions, is an XOR of two
  /// values neither of which is a constant (`prev ^ n->link`; `p ^ 1`
  /// clears a tag bit of an address the switch translated), or a local
  /// that such an XOR initializes, is assigned or is XORed into
  /// (`x = a ^ b;`, `x ^= prev;`): the XOR.
  const Expr *xorOperand(const Expr *E) const {
    auto Mixed = [&](const Expr *X) -> const Expr * {
      const auto *BO = dyn_cast<BinaryOperator>(X->IgnoreParenCasts());
      if (!BO || (BO->getOpcode() != BO_Xor && BO->getOpcode() != BO_XorAssign))
        return nullptr;
      for (const Expr *Op : {BO->getLHS(), BO->getRHS()})
        if (Op->IgnoreParenCasts()->isIntegerConstantExpr(S.Ctx))
          return nullptr;
      return BO;
    };
    E = E->IgnoreParenCasts();
    if (const Expr *X = Mixed(E))
      return X;
    // A function of the file that returns such an XOR (`mix(prev,
    // n->link)`).
    if (const auto *CE = dyn_cast<CallExpr>(E)) {
      const FunctionDecl *G = CE->getDirectCallee();
      const FunctionDecl *Def = G ? G->getDefinition() : nullptr;
      const Expr *Found = nullptr;
      bool Other = false;
      if (Def && Def->getBody())
        anyNode(Def->getBody(), [&](const Stmt *St) {
          if (const auto *R = dyn_cast<ReturnStmt>(St); R && R->getRetValue()) {
            const Expr *X = Mixed(R->getRetValue());
            Found = Found ? Found : X;
            Other |= !X;
          }
          return false;
        });
      return Found && !Other ? E : nullptr;
    }
    const auto *DR = dyn_cast<DeclRefExpr>(E);
    const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
    if (!VD || !VD->isLocalVarDecl())
      return nullptr;
    if (VD->getInit())
      if (const Expr *X = Mixed(VD->getInit()))
        return X;
    const FunctionDecl *FD = enclosingFunction(S.Ctx, E);
    const Expr *Found = nullptr;
    if (FD && FD->getBody())
      anyNode(FD->getBody(), [&](const Stmt *St) {
        const auto *BO = dyn_cast<BinaryOperator>(St);
        if (!BO || !BO->isAssignmentOp())
          return false;
        const auto *L = dyn_cast<DeclRefExpr>(BO->getLHS()->IgnoreParenCasts());
        if (!L || L->getDecl() != VD)
          return false;
        Found = BO->getOpcode() == BO_Assign ? Mixed(BO->getRHS()) : Mixed(BO);
        return Found != nullptr;
      });
    return Found;
  }

  /// Switchable: an XOR of addresses (an XOR-linked list's `prev ^
  /// n->link`) cast to a compact pointer, or to `void *` that becomes one
  /// at once (a macro's untyped XOR), mixes an address of the moment with
  /// ones kept as integers from before the switch, which it never
  /// translates: the result names no object, and the program read
  /// whatever lay there (a trial's walk printed a wrong sum with exit 0,
  /// or crashed).  Refused (mixed-address).
  bool checkMixedAddress(const CastExpr *E) {
    if (!S.Opts.switchable() || E->getCastKind() != CK_IntegralToPointer)
      return false;
    CompactType *T = M.pointeeOf(E->getType());
    bool Untyped = false;
    if (!T && E->getType()->isVoidPointerType())
      if (const auto *Up = dyn_cast_or_null<ImplicitCastExpr>(
              parentSkippingParens(S.Ctx, E)))
        Untyped = (T = M.pointeeOf(Up->getType())) != nullptr;
    const Expr *X = T ? xorOperand(E->getSubExpr()) : nullptr;
    if (!X)
      return false;
    S.report(Diag::MixedAddress, E->getExprLoc(),
             std::string("an XOR of addresses cast to ") +
                 (Untyped ? "'void *' and made a compact pointer to "
                          : "a compact pointer to ") +
                 quoted(T->WideSpelling) +
                 ": the switch to wide mode moves every object, and the "
                 "addresses kept mixed in integers are not translated, so "
                 "after it the result names no object; keep each link in a "
                 "pointer field, or build the program compact-only, which "
                 "never switches",
             {tokRange(E->getSourceRange()), tokRange(X->getSourceRange())});
    return true;
  }

  bool checkCast(const CastExpr *E) {
    QualType To = E->getType(), From = E->getSubExpr()->getType();
    CompactType *FromT = M.pointeeOf(From), *ToT = M.pointeeOf(To);
    auto R = tokRange(E->getSourceRange());
    // Switchable: an address hashed or ordered as a number through a
    // function of the file does not hold after the switch moves the
    // object (a pointer-keyed hash set found 1 of 1000 nodes after it).
    if (FromT && !ToT && E->getCastKind() == CK_BitCast && To->isPointerType() &&
        S.Opts.switchable())
      if (const FunctionDecl *By = addressTurnedIntegerBy(E)) {
        recordIntegerCast(FromT, E->getExprLoc());
        S.report(Diag::IntegerCast, E->getExprLoc(),
                 "compact pointer to " + quoted(FromT->WideSpelling) +
                     " handed as " + quoted(To.getAsString()) + " to " +
                     quoted(By->getName()) +
                     ", which casts it to an integer; the switch to wide "
                     "mode moves every object, so a hash or an order of "
                     "addresses taken before it does not hold after it (key "
                     "on a field of the object instead)",
                 {R});
        return true;
      }
    if (ToT && !FromT && E->getCastKind() == CK_BitCast)
      if (const VarDecl *VD = arrayVarBase(E->getSubExpr());
          VD && VD->getType()->isArrayType()) {
        S.report(Diag::NonHeapAddress, E->getExprLoc(),
                "memory of " + std::string(VD->hasGlobalStorage() ? "global" : "local") +
                    " array " + quoted(VD->getName()) +
                    " used as a compact object of type " + quoted(ToT->WideSpelling) +
                    "; compact objects must be allocated with malloc",
                {R});
        return true;
      }
    if (checkMixedAddress(E))
      return true;
    switch (E->getCastKind()) {
    case CK_PointerToIntegral:
      if (FromT)
        reportIntegerMade(FromT, E->getExprLoc(), R, "cast to an integer", {E});
      return FromT != nullptr;
    case CK_IntegralToPointer:
      if (ToT && !E->getSubExpr()->isNullPointerConstant(
                     S.Ctx, Expr::NPC_ValueDependentIsNotNull)) {
        recordIntegerCast(ToT, E->getExprLoc());
        if (const FieldDecl *F =
                S.Opts.switchable() ? readFromField(E->getSubExpr()) : nullptr)
          S.report(Diag::IntegerCast, E->getExprLoc(),
                   "integer read from field " + quoted(F->getName()) +
                       " cast to a compact pointer to " +
                       quoted(ToT->WideSpelling) + "; " + keptAsInteger(),
                   {R});
        else
          S.report(Diag::IntegerCast, E->getExprLoc(),
                   "integer cast to a compact pointer to " +
                       quoted(ToT->WideSpelling) +
                       "; it must hold the address of a heap object",
                   {R});
        return true;
      }
      return false;
    case CK_BitCast:
      break;
    default:
      return false;
    }
    if (!From->isPointerType() || !To->isPointerType() || FromT == ToT)
      return false;
    QualType FP = From->getPointeeType().getCanonicalType();
    QualType TP = To->getPointeeType().getCanonicalType();
    if (FromT && ToT) {
      std::string Why = sharedPrefix(FromT, ToT);
      if (Why.empty())
        return false;
      S.report(Diag::IncompatibleCast, E->getExprLoc(),
                 "cast from " + quoted(S.typeText(From)) + " to " +
                     quoted(S.typeText(To)) +
                     " reinterprets one compact type as another; " + Why,
                 {R});
    } else if (FromT && TP->isRecordType()) {
      S.report(Diag::IncompatibleCast, E->getExprLoc(),
              "cast from compact pointer " + quoted(S.typeText(From)) + " to " +
                  quoted(S.typeText(To)) +
                  "; the object is in compact layout, not in the layout of " +
                  quoted(S.typeText(TP)),
              {R});
    } else if (ToT && FP->isRecordType()) {
      S.report(Diag::IncompatibleCast, E->getExprLoc(),
              "cast from " + quoted(S.typeText(From)) +
                  " to compact pointer " + quoted(S.typeText(To)) +
                  "; only void * or char * may be cast to a compact pointer",
              {R});
    } else if (FromT && !isBytePointer(To)) {
      S.report(Diag::UnrelatedCast, E->getExprLoc(),
                "compact pointer " + quoted(S.typeText(From)) +
                    " cast to unrelated pointer type " +
                    quoted(S.typeText(To)) +
                    "; the object is in compact layout",
                {R});
    } else if (ToT && !isBytePointer(From) && !FP->isPointerType()) {
      S.report(Diag::UnrelatedCast, E->getExprLoc(),
                "pointer of unrelated type " + quoted(S.typeText(From)) +
                    " cast to compact pointer " + quoted(S.typeText(To)),
                {R});
    } else {
      return false;
    }
    return true;
  }

};

} // namespace

/// A function defined in a system header (or by a macro invoked there)
/// that uses a compact type: the engine leaves system headers as they
/// are, so its body would read compact objects in the native layout.
static void checkSystemHeaderFunctions(Session &S) {
  for (const Decl *D : S.Ctx.getTranslationUnitDecl()->decls()) {
    const auto *FD = dyn_cast<FunctionDecl>(D);
    if (!FD || !FD->doesThisDeclarationHaveABody() || FD->getLocation().isInvalid() ||
        !S.isIgnoredLoc(FD->getLocation()) || !usesCompactType(S.M, FD))
      continue;
    S.report(Diag::Unrewritable, FD->getLocation(),
             "the function " + quoted(FD->getName()) +
                 " is defined in a system header and uses a compact type; "
                 "the plugin does not rewrite system headers, so it would read "
                 "compact objects in the wrong layout: define it in a file of "
                 "your own, or include its header with -I instead of -isystem");
  }
}

void runSafety(Session &S) {
  runTypeChecks(S);
  S.TypeErrors = S.Errors;
  if (S.M.Types.empty())
    return; // nothing compact: no expression can be wrong
  checkSystemHeaderFunctions(S);
  ExprChecks C(S);
  C.TraverseDecl(S.Ctx.getTranslationUnitDecl());
  C.reportLayoutBytes();
  C.reportAddressBytes();
  noteKeptOffsets(S);
  checkPoolReleases(S);
  checkAllocatorEffects(S);
  checkReallocRebase(S);
}

} // namespace compactptr
