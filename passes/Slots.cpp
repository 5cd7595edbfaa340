//===- Slots.cpp - pointers to handle slots -------------------------------===//
//
// In:  the Model (compact types, function classes) and every function body.
// Out: Model::SlotVars and Model::SlotReturns: the `T **` locals (and
//      local arrays of them), parameters and function results (T a
//      compact type) that may hold
//      the address of a handle slot -- a compact-pointer field of a heap
//      object, `&(*pp)->left`, `&p->kids[i]` -- rather than of a native
//      slot (a local, a global, a root array).  Functions that dereference
//      such a pointer become layout-dependent.  Errors where such an
//      address goes where the analysis cannot follow it.
//
// Why: in compact layout a handle slot holds 4 bytes, a native slot 8.  A
//      load or store through a `T **` that may point at either picks the
//      width by the address (inside the compact arena: a handle), which
//      costs a compare and a branch; every other `T **` keeps its plain
//      8-byte access.  So the set must hold every `T **` that can see a
//      handle slot's address, and nothing else (docs/plugin.md, section 4b).
//
// The analysis is flow-insensitive and runs to a fixed point over the
// translation unit.  An expression may point at a handle slot if it is
// `&h` of a handle lvalue h, a variable of SlotVars (or an element of an
// array of SlotVars), a call of a function of SlotReturns, or a
// conditional, comma, assignment or same-type cast of one.  Such a value makes
// a slot pointer of the local or parameter it is assigned to, of the parameter
// of a function defined in this TU it is passed to, and of the result of the
// function that returns it.
//
// Fields (Model::SlotFields): a `T **` field of a compact struct that
// such a value is stored into, one a system header's queue macros declare,
// and the same field of a struct that opens alike (Model::SlotTwins) may
// hold one too; a load of it is such a value.  How this unit reads each
// such field goes in its descriptor (CP_SLOT_USE_*), for the runtime to
// check against the other units.
//
// Refused (one error each, at the user's text): such a value stored
// anywhere else (a global, a static local, a field of a plain struct, an
// element of an array other than a named local one, through another
// pointer), passed to a function not defined in this TU or through a
// function pointer or as a variadic argument, returned from a function
// other translation units can call (they would not know), cast to another
// type, moved by pointer arithmetic or subscripted (the stride differs: 4
// bytes between handles), or its variable's address taken; a local array
// of them used other than by subscript.
//
// Tests: test/rewrite/slot-pointer.c, test/diagnostics/slot-pointer-escape.c,
//        test/switchable/slot-pointer-array.c, test/switchable/foreign-slot.c.
//
//===----------------------------------------------------------------------===//
#include "Engine.h"
#include "Vocabulary.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;

namespace compactptr {

/// `T **` with T a compact type (qualifiers at either level allowed).
static bool isSlotPointerType(const Model &M, QualType T) {
  const auto *PT = T.getCanonicalType()->getAs<PointerType>();
  return PT && M.pointeeOf(PT->getPointeeType());
}

/// The handle lvalue whose address E takes (`&p->next`), or null.
static const Expr *handleAddressOf(const Model &M, const Expr *E) {
  const auto *UO = dyn_cast<UnaryOperator>(E->IgnoreParens());
  if (!UO || UO->getOpcode() != UO_AddrOf)
    return nullptr;
  const Expr *Sub = UO->getSubExpr()->IgnoreParens();
  return isHandleLValue(M, Sub) ? Sub : nullptr;
}

bool isSlotFieldType(const Model &M, const FieldDecl *FD) {
  const RecordDecl *RD = FD->getParent();
  QualType Rec(RD->getTypeForDecl(), 0);
  return !FD->isBitField() && (M.recordOf(Rec) || M.pinnedOf(Rec)) &&
         isSlotPointerType(M, stripArrays(FD->getType()).Element);
}

bool isAddressFieldType(const Model &M, const FieldDecl *FD) {
  const RecordDecl *RD = FD->getParent();
  QualType Rec(RD->getTypeForDecl(), 0);
  QualType E = stripArrays(FD->getType()).Element.getCanonicalType();
  const auto *PT = E->getAs<PointerType>();
  return !FD->isBitField() && PT && !PT->getPointeeType()->isFunctionType() &&
         (M.recordOf(Rec) || M.pinnedOf(Rec)) && !M.pointeeOf(E) &&
         !isSlotPointerType(M, E);
}

/// A field that may keep a handle slot's address: one of them, not an
/// array of them.
static bool keepsSlot(const Model &M, const FieldDecl *F) {
  return isSlotFieldType(M, F) && !F->getType()->isArrayType();
}

/// Adds F and the fields at its place in structs that open alike.
static bool addSlotField(Model &M, const FieldDecl *F) {
  if (!M.SlotFields.insert(F).second)
    return false;
  for (const FieldDecl *T : M.SlotTwins.lookup(F))
    addSlotField(M, T);
  return true;
}

/// A named automatic array of slot pointers of one dimension and a
/// constant count (`struct node **path[64]`, an iterative insertion's
/// path back to the root) that E names: a frame registers its elements by
/// address, as it does a scalar one's.  Else null.
static bool isSlotArrayType(const Model &M, QualType T) {
  const auto *AT = dyn_cast<ConstantArrayType>(T.getCanonicalType());
  return AT && isSlotPointerType(M, AT->getElementType());
}
static const VarDecl *slotArray(const Model &M, const Expr *E) {
  const VarDecl *VD = localVariable(E->IgnoreParenImpCasts());
  return VD && !isa<ParmVarDecl>(VD) && isSlotArrayType(M, VD->getType())
             ? VD
             : nullptr;
}

bool isSlotPointer(const Model &M, const Expr *E) {
  if (!E || !isSlotPointerType(M, E->getType()))
    return false;
  E = E->IgnoreParens();
  if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
    const VarDecl *VD = slotArray(M, AS->getBase());
    return VD && M.SlotVars.count(VD);
  }
  if (isa<MemberExpr>(E))
    if (const FieldDecl *F = memberField(E))
      return M.SlotFields.count(F);
  if (const auto *C = dyn_cast<CastExpr>(E)) {
    switch (C->getCastKind()) {
    case CK_NoOp:
    case CK_LValueToRValue:
    case CK_BitCast:
      return isSlotPointerType(M, C->getSubExpr()->getType()) &&
             isSlotPointer(M, C->getSubExpr());
    default:
      return false;
    }
  }
  if (handleAddressOf(M, E))
    return true;
  if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
    // &*pp is pp.
    if (UO->getOpcode() == UO_AddrOf)
      if (const auto *D = dyn_cast<UnaryOperator>(UO->getSubExpr()->IgnoreParens());
          D && D->getOpcode() == UO_Deref)
        return isSlotPointer(M, D->getSubExpr());
    return false;
  }
  if (const VarDecl *VD = localVariable(E))
    return M.SlotVars.count(VD);
  if (const auto *CE = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *FD = CE->getDirectCallee();
    return FD && M.SlotReturns.count(FD->getCanonicalDecl());
  }
  if (const auto *CO = dyn_cast<AbstractConditionalOperator>(E))
    return isSlotPointer(M, CO->getTrueExpr()) || isSlotPointer(M, CO->getFalseExpr());
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    if (BO->getOpcode() == BO_Comma)
      return isSlotPointer(M, BO->getRHS());
    if (BO->getOpcode() == BO_Assign)
      return isSlotPointer(M, BO->getRHS());
  }
  return false;
}

bool isSlotDeref(const Model &M, const Expr *E) {
  const auto *UO = dyn_cast<UnaryOperator>(E->IgnoreParens());
  return UO && UO->getOpcode() == UO_Deref && isSlotPointer(M, UO->getSubExpr());
}

namespace {

/// One pass over a body: adds what flows (Grow), or reports what escapes
/// (Check).
class Flow : public RecursiveASTVisitor<Flow> {
public:
  Flow(Session &S, const FunctionDecl *FD, bool Check)
      : S(S), M(S.M), FD(FD), Check(Check) {}
  bool Changed = false;
  bool Derefs = false; ///< the body dereferences a slot pointer

  bool VisitVarDecl(VarDecl *VD) {
    const Expr *Init = VD->getInit();
    if (const auto *IL = dyn_cast_or_null<InitListExpr>(Init);
        IL && VD->hasLocalStorage() && !isa<ParmVarDecl>(VD) &&
        isSlotArrayType(M, VD->getType())) {
      // `struct node **path[2] = {&a->l, &b->r}`: the elements are the
      // array's, which a frame registers.
      ArrayInits.insert(IL);
      if (const InitListExpr *Syn = IL->getSyntacticForm())
        ArrayInits.insert(Syn);
      if (llvm::any_of(IL->inits(),
                       [&](const Expr *E) { return isSlotPointer(M, E); }))
        add(VD);
      return true;
    }
    if (!Init || !isSlotPointer(M, Init))
      return true;
    if (VD->hasLocalStorage() && isSlotPointerType(M, VD->getType()))
      add(VD);
    else
      escape(Init, "stored into " + what(VD));
    return true;
  }

  bool VisitBinaryOperator(BinaryOperator *BO) {
    const Expr *L = BO->getLHS(), *R = BO->getRHS();
    if (BO->getOpcode() == BO_Assign && isSlotPointer(M, R)) {
      if (const VarDecl *VD = localVariable(L); VD && isSlotPointerType(M, VD->getType()))
        add(VD);
      else if (const auto *AS = dyn_cast<ArraySubscriptExpr>(L->IgnoreParens());
               AS && slotArray(M, AS->getBase()))
        add(slotArray(M, AS->getBase()));
      else if (const FieldDecl *F = keepingField(L))
        addField(F);
      else
        escape(R, "stored into " + lvalueText(L), fieldStoredInto(L));
      return true;
    }
    if (!Check)
      return true;
    if (BO->isCompoundAssignmentOp())
      noteRead(L, /*Moved=*/true);
    if ((BO->isAdditiveOp() || BO->getOpcode() == BO_AddAssign ||
         BO->getOpcode() == BO_SubAssign) &&
        (isSlotPointer(M, L) || isSlotPointer(M, R)))
      refuse(BO, "moved by pointer arithmetic");
    return true;
  }

  bool VisitUnaryOperator(UnaryOperator *UO) {
    const Expr *Sub = UO->getSubExpr();
    if (UO->getOpcode() == UO_Deref && isSlotPointer(M, Sub))
      Derefs = true;
    if (!Check)
      return true;
    if (UO->isIncrementDecrementOp() && isSlotPointer(M, Sub))
      refuse(UO, "moved by pointer arithmetic");
    if (UO->isIncrementDecrementOp() || UO->getOpcode() == UO_AddrOf)
      noteRead(Sub, /*Moved=*/true);
    // Read through its address (`**tailp`, memcpy, an atomic load), the
    // field would be taken for a native slot.
    if (UO->getOpcode() == UO_AddrOf && isa<MemberExpr>(Sub->IgnoreParens()))
      if (const FieldDecl *F = memberField(Sub->IgnoreParens());
          F && M.SlotFields.count(F))
        S.report(Diag::SlotEscape, UO->getExprLoc(),
                 "the address of field '" + F->getName().str() +
                     "', which may hold the address of a handle field, is "
                     "taken; what is read through it (`**pp`, memcpy, an "
                     "atomic load) would take a 32-bit handle slot for an "
                     "8-byte pointer: read and write the field itself",
                 {CharSourceRange::getTokenRange(UO->getSourceRange())});
    if (UO->getOpcode() == UO_AddrOf) {
      if (const VarDecl *VD = localVariable(Sub); VD && M.SlotVars.count(VD))
        refuse(UO, "kept in '" + VD->getName().str() +
                       "', whose address is taken here");
      else if (const auto *AS =
                   dyn_cast<ArraySubscriptExpr>(Sub->IgnoreParens());
               AS && isSlotPointer(M, AS))
        refuse(UO, "kept in an element of '" +
                       slotArray(M, AS->getBase())->getName().str() +
                       "', whose address is taken here");
    }
    return true;
  }

  /// A local array of slot pointers is read and written by element only:
  /// as a pointer (`***top = path`, passed to a function, copied by
  /// memcpy) its elements would be reached where the analysis cannot
  /// follow them.
  bool checkArrayDecay(ImplicitCastExpr *IC) {
    if (!Check || IC->getCastKind() != CK_ArrayToPointerDecay ||
        inUnevaluatedOperand(S.Ctx, IC)) // `sizeof path / sizeof *path`
      return true;
    const VarDecl *VD = slotArray(M, IC->getSubExpr());
    if (!VD || !M.SlotVars.count(VD))
      return true;
    const Expr *Top = IC;
    const auto *AS = dyn_cast_or_null<ArraySubscriptExpr>(
        parentSkippingParens(S.Ctx, IC, &Top));
    if (AS && AS->getBase()->IgnoreParens() == Top->IgnoreParens())
      return true;
    S.report(Diag::SlotEscape, IC->getExprLoc(),
             "'" + VD->getName().str() +
                 "', an array of pointers that may point at handle fields, "
                 "is used as a pointer; its elements can only be read and "
                 "written by subscript ('" +
                 VD->getName().str() + "[i]'), where the analysis follows them",
             {CharSourceRange::getTokenRange(IC->getSourceRange())});
    return true;
  }

  /// A compact struct's slot-pointer field read as a pointer (or its
  /// address taken): the descriptor says how this unit reads it.
  bool VisitImplicitCastExpr(ImplicitCastExpr *IC) {
    if (IC->getCastKind() == CK_LValueToRValue)
      noteRead(IC->getSubExpr());
    return checkArrayDecay(IC);
  }

  /// `struct q x = { .tail = &p->next }`, a compound literal: the element
  /// stored into a field, as an assignment is.  The visitor walks the
  /// lists as written (brace elision, designators); their semantic form
  /// has an element per field, nested lists included: read from the
  /// outermost list down.
  bool VisitInitListExpr(InitListExpr *IL) {
    if (isa_and_nonnull<InitListExpr>(parentSkippingParens(S.Ctx, IL)))
      return true;
    if (InitListExpr *Sem = IL->getSemanticForm())
      IL = Sem;
    initListStores(IL);
    return true;
  }

  void initListStores(const InitListExpr *IL) {
    if (ArrayInits.count(IL))
      return;
    const RecordDecl *RD = IL->getType()->getAsRecordDecl();
    for (unsigned I = 0; I < IL->getNumInits(); ++I) {
      const Expr *E = IL->getInit(I);
      if (const auto *Inner =
              dyn_cast_or_null<InitListExpr>(E ? E->IgnoreParens() : nullptr)) {
        initListStores(Inner);
        continue;
      }
      if (!E || !isSlotPointer(M, E))
        continue;
      const FieldDecl *F = nullptr;
      if (RD && !RD->isUnion()) {
        unsigned K = 0;
        for (const FieldDecl *G : RD->fields())
          if (!G->isUnnamedBitField() && K++ == I) {
            F = G;
            break;
          }
      } else if (RD) {
        F = IL->getInitializedFieldInUnion();
      }
      if (F && keepsSlot(M, F))
        addField(F);
      else
        escape(E,
               F ? "stored into field '" + F->getName().str() + "'"
                 : std::string("stored into an array element"),
               F);
    }
  }

  bool VisitArraySubscriptExpr(ArraySubscriptExpr *AS) {
    if (Check && isSlotPointer(M, AS->getBase()))
      refuse(AS, "subscripted (write *p for the slot itself)");
    return true;
  }

  bool VisitCastExpr(CastExpr *C) {
    if (!Check)
      return true;
    switch (C->getCastKind()) {
    case CK_NoOp:
    case CK_LValueToRValue:
      return true;
    case CK_BitCast:
      if (isSlotPointerType(M, C->getType()))
        return true;
      break;
    default:
      break;
    }
    if (isSlotPointer(M, C->getSubExpr()) && !movesHandleRun(C) &&
        !readsLinkAsHead(C))
      refuse(C, "converted to '" + S.typeText(C->getType()) + "'" +
                    byteCopyAdvice(C) + headCastAdvice(C));
    return true;
  }

  /// <sys/queue.h>'s TAILQ_LAST and TAILQ_PREV: `(struct name
  /// *)(head)->tqh_last` reads the link a `T **` points at (an entry's
  /// `{ T *tqe_next; T **tqe_prev; }`, or the head's own first two
  /// fields) as a head `{ T *tqh_first; T **tqh_last; }`, and takes its
  /// second field.  Both open with the same two fields, so the compact
  /// layout places them alike too (Layout.cpp: first fit in order): the
  /// reading holds there as in the wide one.  Only as the system header
  /// writes it, or a copy of it in the program's tree (those macros).
  bool readsLinkAsHead(const CastExpr *C) {
    const SourceManager &SM = S.Ctx.getSourceManager();
    SourceLocation At = C->getBeginLoc();
    StringRef Macro = At.isMacroID() ? Lexer::getImmediateMacroName(At, SM, S.LO) : "";
    if (!SM.isInSystemHeader(SM.getSpellingLoc(At)) &&
        !llvm::is_contained({"TAILQ_LAST", "TAILQ_PREV", "TAILQ_FOREACH_REVERSE",
                             "TAILQ_FOREACH_REVERSE_SAFE",
                             "TAILQ_FOREACH_REVERSE_FROM",
                             "TAILQ_FOREACH_REVERSE_FROM_SAFE"},
                            Macro))
      return false;
    const RecordDecl *H = pointeeRecord(C->getType());
    if (!H || !M.recordOf(QualType(H->getTypeForDecl(), 0)))
      return false;
    auto F = H->field_begin();
    if (F == H->field_end())
      return false;
    const FieldDecl *First = *F++;
    if (F == H->field_end())
      return false;
    const FieldDecl *Second = *F;
    QualType Slot = C->getSubExpr()->getType();
    const auto *PT = Slot->getAs<PointerType>();
    return PT &&
           S.Ctx.hasSameUnqualifiedType(First->getType(),
                                        PT->getPointeeType()) &&
           S.Ctx.hasSameUnqualifiedType(Second->getType(), Slot) &&
           M.SlotFields.count(Second);
  }

  /// `TAILQ_LAST(head, name)` and `TAILQ_PREV` read the last link's
  /// address as a head struct whose `tqh_last` is the link after it: say
  /// that this is what the conversion is.
  std::string headCastAdvice(const CastExpr *C) {
    const auto *PT = C->getType()->getAs<PointerType>();
    if (!PT || !PT->getPointeeType()->getAsRecordDecl())
      return "";
    return " (a link's address read as a head: accepted only as "
           "<sys/queue.h>'s TAILQ_LAST, TAILQ_PREV and TAILQ_FOREACH_REVERSE "
           "write it, where the head and the entry open with the same two "
           "fields; use those macros, walk forward, or keep a pointer to the "
           "last node)";
  }

  /// The struct a pointer type points to, through typedefs, or null.
  static const RecordDecl *pointeeRecord(QualType T) {
    const auto *PT = T->getAs<PointerType>();
    return PT ? PT->getPointeeType()->getAsRecordDecl() : nullptr;
  }

  /// C hands the start of a run of handles to a memmove or memcpy that
  /// Printer rewrites (handleRunMoved).
  /// A `T **` that may point at handles is no array of native pointers:
  /// copied as one (`memcpy(pp, b->kids, ...)` with `pp = &a->kids[0]`) it
  /// would write pointers over handles.
  bool movesHandleRun(const CastExpr *C) {
    const Expr *Top = C;
    const auto *CE = dyn_cast_or_null<CallExpr>(parentSkippingParens(S.Ctx, C, &Top));
    if (!CE || CE->getNumArgs() != 3 ||
        (CE->getArg(0)->IgnoreParens() != Top &&
         CE->getArg(1)->IgnoreParens() != Top))
      return false;
    std::optional<HandleRun> R = handleRunMoved(S.Ctx, M, CE);
    return R && !(R->Native && isSlotPointer(M, R->Native));
  }

  /// Where the conversion hands a run of handles to memmove or memcpy
  /// (shifting a B-tree node's children): what to write instead.
  std::string byteCopyAdvice(const CastExpr *C) {
    const Expr *Top = C;
    const auto *CE =
        dyn_cast_or_null<CallExpr>(parentSkippingParens(S.Ctx, C, &Top));
    const FunctionDecl *FD = CE ? CE->getDirectCallee() : nullptr;
    StringRef Fn = FD ? byteCopyFunction(FD) : "";
    if (!Fn.contains("memmove") && !Fn.contains("memcpy") && Fn != "bcopy")
      return "";
    return " to be copied by " + Fn.str() +
           " (a copy is rewritten when both addresses are elements of arrays "
           "of the same pointer type, `&a[i]`, and the size is `n * sizeof "
           "a[0]`; otherwise copy the pointers one by one)";
  }

  bool VisitCallExpr(CallExpr *CE) {
    const FunctionDecl *Def = localDefinition(S, CE);
    for (unsigned I = 0; I < CE->getNumArgs(); ++I) {
      const Expr *A = CE->getArg(I);
      if (!isSlotPointer(M, A))
        continue;
      if (Def && I < Def->getNumParams()) {
        add(Def->getParamDecl(I));
        continue;
      }
      const FunctionDecl *Callee = CE->getDirectCallee();
      if (I == 0 && isAtomicBuiltin(Callee) && isa<UnaryOperator>(A->IgnoreParenImpCasts()))
        continue; // `&p->f` to an atomic builtin: Safety.cpp names it
      std::string Who = Callee ? "'" + Callee->getNameAsString() + "'" : "a function pointer";
      escape(A, !Callee    ? "passed through a function pointer"
                : Def      ? "passed to " + Who + " as a variadic argument"
                           : "passed to " + Who +
                                 ", which is not defined in this translation unit");
    }
    return true;
  }

  /// `__atomic_load_n(pp, ...)` is an AtomicExpr, not a call: through a
  /// slot pointer it would load or store a whole pointer where the slot
  /// holds a 32-bit handle.  (`&p->f` itself: Safety.cpp names it.)
  bool VisitAtomicExpr(AtomicExpr *AE) {
    // The object and the operands passed by address (a compare-exchange's
    // expected value).
    Expr **Ops = AE->getSubExprs();
    for (unsigned I = 0; Check && I < AE->getNumSubExprs(); ++I)
      if (isSlotPointer(M, Ops[I]) && !isa<UnaryOperator>(Ops[I]->IgnoreParenImpCasts()))
        escape(Ops[I], "handed to an atomic builtin, which would load, compare "
                       "or store a whole pointer where the slot holds a 32-bit "
                       "handle");
    return true;
  }

  bool VisitReturnStmt(ReturnStmt *RS) {
    const Expr *R = RS->getRetValue();
    if (!R || !isSlotPointer(M, R))
      return true;
    if (FD->isExternallyVisible()) {
      escape(R, "returned from '" + FD->getNameAsString() +
                    "', which other translation units can call; declare it static");
      return true;
    }
    if (M.SlotReturns.insert(FD->getCanonicalDecl()).second)
      Changed = true;
    return true;
  }

private:
  Session &S;
  Model &M;
  const FunctionDecl *FD;
  const bool Check;

  /// The initializers of local arrays of slot pointers (VisitVarDecl).
  llvm::SmallPtrSet<const InitListExpr *, 4> ArrayInits;

  void add(const VarDecl *VD) {
    if (M.SlotVars.insert(VD).second)
      Changed = true;
  }

  void addField(const FieldDecl *F) { Changed |= addSlotField(M, F); }

  /// The slot-pointer field of a compact struct that the assignment's
  /// left side L names (`q->tail`, `e->link.le_prev`), else null: only a
  /// field the switch can find (the struct is laid out by the plugin).
  const FieldDecl *keepingField(const Expr *L) {
    if (!isa<MemberExpr>(L->IgnoreParenImpCasts()))
      return nullptr;
    const FieldDecl *F = memberField(L->IgnoreParenImpCasts());
    return F && keepsSlot(M, F) ? F : nullptr;
  }

  /// A slot-pointer field E names is read here as a plain pointer, unless
  /// it is in the set: the descriptor's CP_SLOT_USE_NATIVE, which the
  /// runtime checks against units that store handle slots' addresses into
  /// it.  A comparison, `!`, and a copy into the same field of another
  /// object (`*dst = *src` field by field) read no slot through it; code
  /// no one runs (a header's static inline function this file does not
  /// call) reads nothing.  Moved: the field is moved or its address
  /// taken, not only read.
  void noteRead(const Expr *E, bool Moved = false) {
    E = E->IgnoreParens();
    if (!Check || !isa<MemberExpr>(E) ||
        (!FD->isExternallyVisible() && !FD->isUsed()))
      return;
    const FieldDecl *F = memberField(E);
    if (!F || !isSlotFieldType(M, F))
      return;
    if (!Moved) {
      const Expr *Top = E;
      const Expr *P = parentSkippingParens(S.Ctx, E, &Top);
      while (const auto *IC = dyn_cast_or_null<ImplicitCastExpr>(P))
        P = parentSkippingParens(S.Ctx, IC, &Top);
      if (const auto *BO = dyn_cast_or_null<BinaryOperator>(P)) {
        if (BO->isComparisonOp())
          return;
        if (BO->getOpcode() == BO_Assign &&
            BO->getRHS()->IgnoreParenImpCasts() == Top->IgnoreParenImpCasts() &&
            memberField(BO->getLHS()->IgnoreParenImpCasts()) == F)
          return;
      }
      if (const auto *UO = dyn_cast_or_null<UnaryOperator>(P);
          UO && UO->getOpcode() == UO_LNot)
        return;
    }
    M.SlotFieldsRead.insert(F);
  }

  /// The field an assignment's left side L stores into: `q->tail`, or an
  /// element of an array field `m->tails[0]`; else null.
  static const FieldDecl *fieldStoredInto(const Expr *L) {
    L = L->IgnoreParenImpCasts();
    while (const auto *AS = dyn_cast<ArraySubscriptExpr>(L))
      L = AS->getBase()->IgnoreParenImpCasts();
    return isa<MemberExpr>(L) ? memberField(L) : nullptr;
  }

  static std::string what(const VarDecl *VD) {
    return std::string(VD->isStaticLocal() ? "static local '" : "global '") +
           VD->getName().str() + "'";
  }

  std::string lvalueText(const Expr *L) {
    L = L->IgnoreParenImpCasts();
    if (const auto *DR = dyn_cast<DeclRefExpr>(L))
      if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl()))
        return VD->hasLocalStorage() ? "'" + VD->getName().str() + "'" : what(VD);
    if (const FieldDecl *F = memberField(L))
      return "field '" + F->getName().str() + "'";
    return "memory";
  }

  /// Where the value E points: "the address of handle field 'left'" or
  /// "'pp', which may point at a handle field".
  std::string origin(const Expr *E) {
    if (const Expr *H = handleAddressOf(M, E->IgnoreParenCasts())) {
      const Expr *X = H->IgnoreParens();
      while (const auto *AS = dyn_cast<ArraySubscriptExpr>(X))
        X = AS->getBase()->IgnoreParenImpCasts();
      if (const FieldDecl *F = memberField(X))
        return "the address of handle field '" + F->getName().str() + "'";
      return "the address of a handle field";
    }
    if (const VarDecl *VD = localVariable(E->IgnoreParenCasts()))
      return "'" + VD->getName().str() + "', which may point at a handle field,";
    if (const auto *ME = dyn_cast<MemberExpr>(E->IgnoreParenCasts()))
      return "field '" + ME->getMemberDecl()->getName().str() +
             "', which may point at a handle field,";
    return "a pointer that may point at a handle field";
  }

  /// IntoField: a field that cannot keep one (an array of them, a field
  /// of a struct the plugin does not lay out): say which it is.
  void escape(const Expr *E, const std::string &Where,
              const FieldDecl *IntoField = nullptr) {
    if (!Check)
      return;
    std::string Why;
    if (IntoField && IntoField->getType()->isArrayType())
      Why = "; an array of such pointers in a field cannot keep one (keep "
            "each in a field of its own)";
    else if (IntoField)
      Why = "; a field can keep one only in a struct that holds compact "
            "pointers itself, which the plugin lays out and the switch "
            "moves the address in ('" +
            S.typeText(QualType(IntoField->getParent()->getTypeForDecl(), 0)) +
            "' holds none: declare it CP_COMPACT, or keep such a pointer "
            "beside a compact pointer, as a queue keeps 'struct node **tail' "
            "beside its 'struct node *head')";
    S.report(Diag::SlotEscape, E->getExprLoc(),
             origin(E) + " is " + Where +
                 "; a pointer to a handle field can only be kept in local "
                 "variables, parameters and fields of compact structs, "
                 "passed to functions of this translation unit and "
                 "dereferenced" +
                 Why,
             {CharSourceRange::getTokenRange(E->getSourceRange())});
  }

  void refuse(const Expr *E, const std::string &How) {
    const Expr *Sub = E;
    if (const auto *UO = dyn_cast<UnaryOperator>(E))
      Sub = UO->getSubExpr();
    else if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E))
      Sub = AS->getBase();
    else if (const auto *C = dyn_cast<CastExpr>(E))
      Sub = C->getSubExpr();
    else if (const auto *BO = dyn_cast<BinaryOperator>(E))
      Sub = isSlotPointer(M, BO->getLHS()) ? BO->getLHS() : BO->getRHS();
    S.report(Diag::SlotEscape, E->getExprLoc(),
             origin(Sub) + " is " + How +
                 "; a pointer to a handle field points at a 32-bit handle in "
                 "compact layout, so it can only be dereferenced, assigned "
                 "and compared",
             {CharSourceRange::getTokenRange(E->getSourceRange())});
  }
};

} // namespace

/// Model::SlotTwins: fields at the same place of the common initial
/// sequence of two compact structs.
static void findSlotTwins(Model &M, ASTContext &Ctx) {
  for (const auto &A : M.Types)
    for (const auto &B : M.Types) {
      if (A == B)
        continue;
      auto FA = A->RD->field_begin(), FB = B->RD->field_begin();
      for (; FA != A->RD->field_end() && FB != B->RD->field_end(); ++FA, ++FB) {
        if (FA->isBitField() || FB->isBitField() ||
            !Ctx.hasSameUnqualifiedType(FA->getType(), FB->getType()))
          break;
        if (keepsSlot(M, *FA))
          M.SlotTwins[*FA].push_back(*FB);
      }
    }
}

void runSlots(Session &S) {
  findSlotTwins(S.M, S.Ctx);
  // A field a system header declares (<sys/queue.h>'s `tqe_prev`,
  // `le_prev`, `stqh_last`) exists to keep a link's address: every unit
  // reads it with the check, whether or not it stores one, so units that
  // only unlink agree with those that link.
  // So is one a copy of that header in the program's tree declares (tmux,
  // libevent and OpenSSH ship their own): a field a macro declares, named
  // as the header names them.
  const SourceManager &SM = S.Ctx.getSourceManager();
  auto QueueLink = [&](const FieldDecl *F) {
    SourceLocation L = F->getLocation();
    return SM.isInSystemHeader(SM.getSpellingLoc(L)) ||
           (L.isMacroID() &&
            llvm::is_contained({"le_prev", "tqe_prev", "tqh_last", "stqh_last",
                                "sqh_last", "sqe_prev"},
                               F->getName()));
  };
  for (const auto &T : S.M.Types)
    for (const FieldDecl *F : T->RD->fields())
      if (keepsSlot(S.M, F) && QueueLink(F))
        addSlotField(S.M, F);
  flowToFixedPoint<Flow>(S, [&](const FunctionDecl *FD, const Flow &F) {
    if (F.Derefs)
      S.M.Functions[FD->getCanonicalDecl()] |= FC_LayoutDependent;
  });
}

} // namespace compactptr
