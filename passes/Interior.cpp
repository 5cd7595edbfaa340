//===- Interior.cpp - pointers into compact objects' plain data ----------===//
//
// In:  the Model and every function body (switchable mode only).
// Out: Model::InteriorVars and Model::InteriorReturns: the locals,
//      parameters and function results that may hold an address inside a
//      compact object's plain data -- `&e->val`, `n->name` (an array
//      member decayed), `&n->vals[i]`, and what is computed from them.
//      Model::ObjectAddressVars and ObjectAddressStructs: plain pointer
//      locals and parameters, and local structs with untyped members,
//      that may hold a compact object's address (a compact pointer
//      converted, an untyped field read, a `void *` from a call, a read
//      of memory, va_arg, or a caller the file does not see).
//      Warnings (interior-escape) where such an address is stored into
//      memory.
//
// Why: the switch moves every object, so a pointer into one must be
//      translated with it (the runtime maps the field's compact offset to
//      its wide one).  A checked function's frame registers the locals and
//      parameters of InteriorVars untyped for that (Checked.cpp); an
//      address the frame does not hold points into the released arena
//      after the switch.  Real C hands such addresses around: a map's
//      `long *get(k)` returns `&e->val` and its caller keeps the counter
//      across inserts; an interning table returns `u->name`; an
//      accumulator takes `&total->count` as an out-parameter and
//      allocates.  So a returned address makes the caller's local a root,
//      and a passed one the callee's parameter.
//
// The analysis is flow-insensitive and runs to a fixed point over the
// translation unit, as Slots.cpp's does for pointers to handle fields.  An
// expression may point inside a compact object if it is the address of
// plain data inside one, a variable of InteriorVars, a call of a function
// of InteriorReturns, or a conditional, comma, assignment, pointer cast or
// pointer arithmetic of one.  Such a value makes an interior root of the
// local or parameter it is assigned to, of the parameter of a function
// defined in this TU it is passed to, and of the result of the function
// that returns it.  A root that never points into the arena costs nothing
// but its frame entry: the switch leaves addresses outside the arena as
// they are.
//
// Not followed (docs/plugin.md, section 6): a function other translation
// units call, whose callers there keep its result in no frame; a pointer
// passed to a function of another translation unit that keeps it across
// a safepoint.
//
// Tests: test/diagnostics/interior-escape.c, test/switchable/interior-local.c,
//        test/switchable/interior-flow.c, test/switchable/address-fields.c,
//        test/switchable/opaque-untyped-roots.c.
//
//===----------------------------------------------------------------------===//
#include "Engine.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;

namespace compactptr {

/// A pointer type that is not a compact pointer (those are roots or
/// handles of their own) nor a pointer to a handle field (Slots.cpp).
static bool isPlainPointerType(const Model &M, QualType T) {
  const auto *PT = T.getCanonicalType()->getAs<PointerType>();
  return PT && !M.pointeeOf(T) && !M.pointeeOf(PT->getPointeeType());
}

/// The lvalue inside a compact object whose address E takes (`&n->value`,
/// or `n->name` decayed), or null.
static const Expr *interiorAddressOf(const Model &M, const Expr *E) {
  E = E->IgnoreParens();
  const Expr *Sub = nullptr;
  if (const auto *UO = dyn_cast<UnaryOperator>(E); UO && UO->getOpcode() == UO_AddrOf)
    Sub = UO->getSubExpr()->IgnoreParens();
  else if (const auto *IC = dyn_cast<ImplicitCastExpr>(E);
           IC && IC->getCastKind() == CK_ArrayToPointerDecay)
    Sub = IC->getSubExpr()->IgnoreParens();
  if (!Sub || M.elementOf(Sub->getType()) || isHandleLValue(M, Sub) || isHandleArray(M, Sub))
    return nullptr;
  return insideCompactObject(M, Sub) ? Sub : nullptr;
}

bool isInteriorPointer(const Model &M, const Expr *E) {
  if (!E || !isPlainPointerType(M, E->getType()))
    return false;
  E = E->IgnoreParens();
  if (interiorAddressOf(M, E))
    return true;
  if (const auto *C = dyn_cast<CastExpr>(E)) {
    switch (C->getCastKind()) {
    case CK_LValueToRValue:
      // Read from an element of a local array that holds such addresses.
      if (const VarDecl *A = localArrayOf(C->getSubExpr()))
        return M.InteriorVars.count(A);
      [[fallthrough]];
    case CK_NoOp:
    case CK_BitCast:
      return isInteriorPointer(M, C->getSubExpr());
    default:
      return false;
    }
  }
  if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
    if (UO->isIncrementDecrementOp())
      return isInteriorPointer(M, UO->getSubExpr());
    if (UO->getOpcode() != UO_AddrOf)
      return false;
    // `&p[i]` and `&*p` are p moved, or p.
    const Expr *Sub = UO->getSubExpr()->IgnoreParens();
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(Sub))
      return isInteriorPointer(M, AS->getBase());
    if (const auto *D = dyn_cast<UnaryOperator>(Sub); D && D->getOpcode() == UO_Deref)
      return isInteriorPointer(M, D->getSubExpr());
    return false;
  }
  if (const VarDecl *VD = localVariable(E))
    return M.InteriorVars.count(VD);
  if (const auto *CE = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *FD = CE->getDirectCallee();
    // strchr(n->name, ':') points into what it searches.
    if (const Expr *In = resultArgument(CE))
      return isInteriorPointer(M, In);
    return FD && M.InteriorReturns.count(FD->getCanonicalDecl());
  }
  // `q ?: r`: the condition's value, once.
  if (const auto *OV = dyn_cast<OpaqueValueExpr>(E))
    return isInteriorPointer(M, OV->getSourceExpr());
  if (const auto *CO = dyn_cast<AbstractConditionalOperator>(E))
    return isInteriorPointer(M, CO->getTrueExpr()) || isInteriorPointer(M, CO->getFalseExpr());
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    switch (BO->getOpcode()) {
    case BO_Comma:
    case BO_Assign:
      return isInteriorPointer(M, BO->getRHS());
    case BO_Add:
    case BO_Sub:
    case BO_AddAssign:
    case BO_SubAssign:
      return isInteriorPointer(M, BO->getLHS()) || isInteriorPointer(M, BO->getRHS());
    default:
      return false;
    }
  }
  return false;
}

/// E converts a pointer to an integer somewhere inside.
static bool holdsAddress(const Expr *E) {
  if (const auto *C = dyn_cast<CastExpr>(E); C && C->getCastKind() == CK_PointerToIntegral)
    return true;
  for (const Stmt *C : E->children())
    if (const auto *X = dyn_cast_or_null<Expr>(C); X && holdsAddress(X))
      return true;
  return false;
}

bool touchesCompact(const Model &M, const Expr *E) {
  if (!E || isa<UnaryExprOrTypeTraitExpr>(E))
    return false;
  QualType T = E->getType();
  if (M.pointeeOf(T) || isInteriorPointer(M, E))
    return true;
  // A value of compact type is heap memory only where it is compact-located
  // (a heap object, a boxed variable).  A global or local of that type in
  // wide layout (a queue struct holding the head pointer, its mutex and
  // condition variable) stays where it is: the switch translates its
  // pointers in place.  Its members may still read a compact pointer.
  if (M.elementOf(T) && isCompactLocated(M, E))
    return true;
  // The address of a variable is that variable's memory: a local or global
  // compact pointer (`read(fd, &m, sizeof m)`) or struct in wide layout
  // stays where it is.  Only a variable in the compact heap (a boxed
  // global) moves.
  // So is the address of an element of a named array (`&results[i]`, an
  // array of compact pointers that pthread_join writes a result into):
  // the index only says where in it.
  if (const auto *UO = dyn_cast<UnaryOperator>(E->IgnoreParens());
      UO && UO->getOpcode() == UO_AddrOf) {
    const Expr *X = UO->getSubExpr()->IgnoreParens();
    while (const auto *AS = dyn_cast<ArraySubscriptExpr>(X)) {
      const Expr *B = AS->getBase()->IgnoreParenImpCasts();
      if (!B->getType()->isArrayType())
        break; // a pointer's element: the memory it points into
      X = B;
    }
    if (const auto *DR = dyn_cast<DeclRefExpr>(X);
        DR && isa<VarDecl>(DR->getDecl()))
      return isCompactLocated(M, DR);
  }
  // A number read from a node (`&locks[n->shard]`, `buf + n->len`) only
  // says where in other memory: the memory handed over is not the node's.
  // An address made a number (`(uintptr_t)&n->mu`, aligned and cast back)
  // still is.
  // Neither does a pointer to a pinned struct read from a node
  // (`&t->owner->mu`): the memory handed over is the pinned object's,
  // which the switch never moves.
  for (const Stmt *C : E->children())
    if (const auto *X = dyn_cast_or_null<Expr>(C);
        X && (!X->getType()->isArithmeticType() || holdsAddress(X)) &&
        !M.pinnedPointee(X->getType()) && touchesCompact(M, X))
      return true;
  return false;
}

bool handsCompactMemory(const Model &M, const Expr *A) {
  QualType T = A->getType();
  return (!T->isScalarType() || T->isPointerType()) && touchesCompact(M, A);
}

/// E is an integer made a pointer (GLib's `GINT_TO_POINTER(i)`), not a
/// null pointer constant.
static bool integerMadePointer(ASTContext &Ctx, const Expr *E) {
  const auto *C = dyn_cast<CastExpr>(E->IgnoreParens());
  if (!C)
    return false;
  if (C->getCastKind() == CK_NoOp || C->getCastKind() == CK_BitCast)
    return integerMadePointer(Ctx, C->getSubExpr());
  return C->getCastKind() == CK_IntegralToPointer &&
         !E->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNull);
}

/// E, an integer made a pointer, is a constant no arena holds: below
/// 1 MiB (`(void *)1`, a small tag) or with high bits set (`(void *)-1`,
/// `MAP_FAILED`).
static bool constantOutsideArena(ASTContext &Ctx, const Expr *E) {
  const Expr *I = E->IgnoreParenCasts();
  Expr::EvalResult R;
  if (!I->getType()->isIntegerType() || !I->EvaluateAsInt(R, Ctx))
    return false;
  const llvm::APSInt &I64 = R.Val.getInt();
  uint64_t V =
      I64.isSigned() ? uint64_t(I64.getSExtValue()) : I64.getZExtValue();
  return V < (1u << 20) || V >= (uint64_t(1) << 40);
}

/// E is an integer made a pointer, or a call of a function of this TU
/// that returns one that may be no constant outside the arena (`void
/// *int_to_ptr(long i) { return (void *)i; }`, not a lookup whose error
/// path returns `(void *)-1`).
static bool integerPointerValue(Session &S, const Expr *E) {
  if (integerMadePointer(S.Ctx, E))
    return true;
  const auto *CE = dyn_cast<CallExpr>(E->IgnoreParenCasts());
  const FunctionDecl *Def = CE ? localDefinition(S, CE) : nullptr;
  if (!Def || !Def->hasBody())
    return false;
  bool Found = false;
  std::function<void(const Stmt *)> Walk = [&](const Stmt *St) {
    if (!St || Found)
      return;
    if (const auto *RS = dyn_cast<ReturnStmt>(St))
      Found = RS->getRetValue() &&
              integerMadePointer(S.Ctx, RS->getRetValue()) &&
              !constantOutsideArena(S.Ctx, RS->getRetValue());
    for (const Stmt *C : St->children())
      Walk(C);
  };
  Walk(Def->getBody());
  return Found;
}

/// A pointer whose pointee, through pointers and arrays, is void: `void
/// *`, `void **`, libuv's `QUEUE *` (`void *(*)[2]`).
static bool isUntypedPointerType(QualType T) {
  const auto *PT = T.getCanonicalType()->getAs<PointerType>();
  if (!PT)
    return false;
  QualType P = PT->getPointeeType();
  while (true) {
    if (const auto *AT = P->getAsArrayTypeUnsafe())
      P = AT->getElementType();
    else if (const auto *Q = P->getAs<PointerType>())
      P = Q->getPointeeType();
    else
      return P->isVoidType();
  }
}

std::vector<std::pair<std::string, uint64_t>>
untypedMembers(const RecordDecl *R) {
  std::vector<std::pair<std::string, uint64_t>> Out;
  if (!R || R->isUnion() || !(R = R->getDefinition()))
    return Out;
  for (const FieldDecl *F : R->fields()) {
    if (!F->getIdentifier() || F->isBitField())
      continue;
    ArrayShape A = stripArrays(F->getType());
    if (A.Count && !A.Variable && A.Element->isPointerType() &&
        isUntypedPointerType(A.Element))
      Out.push_back({F->getName().str(), A.Count});
    else if (const auto *RT = F->getType()->getAs<RecordType>())
      // A struct member of its own (`o.in.p`), not an array of them.
      for (auto &[Path, Count] : untypedMembers(RT->getDecl()))
        Out.push_back({F->getName().str() + "." + Path, Count});
  }
  return Out;
}

namespace {

/// One pass over a body: adds what flows (Grow), or warns where it is
/// stored into memory (Check).
class Flow : public RecursiveASTVisitor<Flow> {
public:
  Flow(Session &S, const FunctionDecl *FD, bool Check)
      : S(S), M(S.M), FD(FD), Check(Check) {
    unseenCallers();
  }
  bool Changed = false;

  /// E may hold a compact object's address as a plain pointer: a compact
  /// pointer converted (`void *d = n`, `(char *)n`, `push(l, n)` into a
  /// `void *` parameter), a read of an untyped field of a compact object
  /// (`c->data`, `c->key`, libuv's `QUEUE_NEXT(h)`: what the switch moves
  /// there), or a copy of a local or local array that may hold one.  The
  /// switch moves such an address as one inside an object, so a local or
  /// parameter holding it is registered as an interior one is; where it
  /// is kept elsewhere, the void-escape warning speaks (Escapes.cpp), not
  /// interior-escape.
  bool holdsAddress(const Expr *E) const {
    const auto *C = dyn_cast<CastExpr>(E->IgnoreParens());
    if (!C || !isPlainPointerType(M, C->getType()))
      return false;
    const Expr *Sub = C->getSubExpr();
    switch (C->getCastKind()) {
    case CK_BitCast:
    case CK_NoOp:
      return M.pointeeOf(Sub->getType()) || holdsAddress(Sub);
    case CK_LValueToRValue: {
      if (inAddressField(M, Sub))
        return true;
      const VarDecl *V = localVariable(Sub);
      if (!V)
        V = localArrayOf(Sub);
      return V && M.ObjectAddressVars.count(V);
    }
    default:
      return false;
    }
  }

  /// E, of an untyped pointer type, comes from where the plugin cannot
  /// see what it holds: a call (a table's `void *lookup(k)`, a call
  /// through a pointer), a read of memory that is no local (a plain
  /// struct's `e->value`, an array element, a global), or va_arg.  A
  /// compact object kept as `void *` in an untyped field of another
  /// compact struct, or in a table the user declared CP_COMPACT, comes
  /// back that way, and a local that holds it across a safepoint is left
  /// pointing into the released arena unless it is a root.  Not opaque:
  /// a null constant, an integer made a pointer, malloc's result, the
  /// address of a variable, a string.
  bool opaqueAddress(const Expr *E) const {
    if (!isUntypedPointerType(E->getType()))
      return false;
    E = E->IgnoreParens();
    if (const auto *C = dyn_cast<CastExpr>(E)) {
      const Expr *Sub = C->getSubExpr();
      switch (C->getCastKind()) {
      case CK_BitCast:
      case CK_NoOp:
        return opaqueAddress(Sub);
      case CK_LValueToRValue:
        return !localVariable(Sub) && !localArrayOf(Sub);
      default:
        return false;
      }
    }
    if (const auto *CE = dyn_cast<CallExpr>(E))
      return allocFunction(CE) == AllocFn::None && !resultArgument(CE) &&
             !isAlignedAllocator(CE->getDirectCallee());
    if (isa<VAArgExpr>(E))
      return true;
    if (const auto *OV = dyn_cast<OpaqueValueExpr>(E))
      return opaqueAddress(OV->getSourceExpr());
    if (const auto *CO = dyn_cast<AbstractConditionalOperator>(E))
      return opaqueAddress(CO->getTrueExpr()) ||
             opaqueAddress(CO->getFalseExpr());
    if (const auto *BO = dyn_cast<BinaryOperator>(E);
        BO && (BO->getOpcode() == BO_Comma || BO->getOpcode() == BO_Assign))
      return opaqueAddress(BO->getRHS());
    return false;
  }

  /// Parameters of an untyped pointer type of a function that callers
  /// this TU does not see may call -- one other files call, or a callback
  /// whose address is taken (`g_list_foreach(l, visit, acc)` hands visit
  /// each cell's `void *data`) -- hold what those callers pass.
  void unseenCallers() {
    // (A body that starts in a macro has no place for a frame: its
    // parameters stay unregistered, as before this analysis.)
    if ((!FD->isExternallyVisible() &&
         !M.AddressTaken.count(FD->getCanonicalDecl())) ||
        !FD->getBody() || !FD->getBody()->getBeginLoc().isFileID())
      return;
    for (const ParmVarDecl *P : FD->parameters())
      if (P->getIdentifier() && isUntypedPointerType(P->getType()))
        addOpaque(P);
  }

  bool VisitVarDecl(VarDecl *VD) {
    const Expr *Init = VD->getInit();
    // Not one a macro declares (pthread_cleanup_push's `__cancel_arg`): no
    // frame can register it, and its own analysis (Escapes.cpp) speaks.
    bool Local = VD->hasLocalStorage() && !VD->isStaticLocal() &&
                 VD->getLocation().isFileID();
    if (Init && holdsAddress(Init) && Local)
      addObject(VD);
    else if (Init && opaqueAddress(Init) && Local)
      addOpaque(VD);
    // `struct ctx c = make_ctx(k);`: what the struct value holds.
    if (Init && !isa<InitListExpr>(Init->IgnoreParenImpCasts()) &&
        plainStruct(VD))
      addStruct(VD);
    if (const auto *IL = dyn_cast_or_null<InitListExpr>(Init);
        IL && plainStruct(VD) && llvm::any_of(IL->inits(), [&](const Expr *X) {
          return X && (holdsAddress(X) || opaqueAddress(X));
        }))
      addStruct(VD);
    if (!Init || !isInteriorPointer(M, Init))
      return true;
    if (VD->hasLocalStorage() && !VD->isStaticLocal())
      add(VD);
    else
      escape(Init);
    return true;
  }

  /// The switch moves a value of an untyped field that falls inside the
  /// compact arena as an address: an integer kept there (an id, a hash)
  /// that happens to would change.  Warned where the plugin sees one
  /// stored, straight or through a parameter of a function of this file
  /// that stores it there.
  void integerInAddressField(const Expr *Value, const Expr *Field) {
    if (!Check || S.isIgnoredLoc(Value->getExprLoc()))
      return;
    const auto *ME = dyn_cast<MemberExpr>(Field->IgnoreParens());
    const FieldDecl *F =
        ME ? dyn_cast<FieldDecl>(ME->getMemberDecl()) : nullptr;
    S.report(Diag::IntegerCast, Value->getExprLoc(),
             "an integer made a pointer is kept in " +
                 (F ? "field " + quoted(F->getName()) + ", " : std::string()) +
                 "an untyped pointer field of a compact struct; the switch "
                 "moves a value there that falls inside the compact arena as "
                 "if it were an object's address, so an integer that does "
                 "would change; keep integers in a field of integer type",
             {tokRange(Value->getSourceRange())});
  }

  /// The field of a compact object that FD stores its parameter P in, or
  /// null: straight, or through a parameter of a function of this TU it
  /// hands P to (a set's add that hands the key to its insert), three
  /// calls deep.
  const Expr *storedInAddressField(const FunctionDecl *FD, const ParmVarDecl *P,
                                   unsigned Depth = 0) {
    const Expr *Field = nullptr;
    anyReferenceTo(FD->getBody(), P, [&](const DeclRefExpr *DR) {
      const Expr *Cur = DR;
      const Expr *Up = parentSkippingParens(S.Ctx, DR, &Cur);
      while (const auto *C = dyn_cast_or_null<ImplicitCastExpr>(Up))
        Up = parentSkippingParens(S.Ctx, C, &Cur);
      const auto *BO = dyn_cast_or_null<BinaryOperator>(Up);
      if (BO && BO->getOpcode() == BO_Assign &&
          BO->getRHS()->IgnoreParenImpCasts() == DR &&
          inAddressField(M, BO->getLHS()))
        Field = BO->getLHS();
      const auto *CE = dyn_cast_or_null<CallExpr>(Up);
      const FunctionDecl *G = CE ? localDefinition(S, CE) : nullptr;
      if (G && G->hasBody() && Depth < 3)
        for (unsigned I = 0; I < CE->getNumArgs() && I < G->getNumParams(); ++I)
          if (CE->getArg(I)->IgnoreParenImpCasts() == DR && !Field)
            Field = storedInAddressField(G, G->getParamDecl(I), Depth + 1);
      return Field != nullptr;
    });
    return Field;
  }

  /// The local struct of a plain type with untyped pointer members whose
  /// member E names (`ctx.found`, `it.q[0]`, `o.in.p`), or null.
  const VarDecl *localStructOf(const Expr *E) const {
    const VarDecl *VD =
        isa<MemberExpr>(E->IgnoreParenImpCasts()) ||
                isa<ArraySubscriptExpr>(E->IgnoreParenImpCasts())
            ? localStorage(E)
            : nullptr;
    return VD && plainStruct(VD) ? VD : nullptr;
  }

  /// VD is a local (not static) of a struct type that is neither compact
  /// nor pinned (those are roots of their own type), declared in the
  /// program (not va_list's record), with untyped pointer members.
  /// So is a small local array of them (`struct kv a[4]`, up to
  /// MaxStructElements elements: the frame registers each element's
  /// members).
  bool plainStruct(const VarDecl *VD) const {
    ArrayShape A = stripArrays(VD->getType());
    const auto *RT = A.Element->getAs<RecordType>();
    // One dimension only: the frame names `a[i].member`.
    const auto *AT = S.Ctx.getAsConstantArrayType(VD->getType());
    if (AT && AT->getElementType()->isArrayType())
      return false;
    if (!RT || A.Variable || A.Count == 0 || A.Count > MaxStructElements ||
        !VD->hasLocalStorage() || VD->isStaticLocal() || isa<ParmVarDecl>(VD) ||
        !VD->getIdentifier() || !VD->getLocation().isFileID() ||
        rootShape(M, VD->getType()).Kind)
      return false;
    const RecordDecl *R = RT->getDecl();
    return !S.Ctx.getSourceManager().isInSystemHeader(R->getLocation()) &&
           !untypedMembers(R).empty();
  }

  /// As addOpaque, for a local struct's untyped members: Sure when a
  /// member is handed a compact object's address itself.
  void addStruct(const VarDecl *VD, bool Sure = false) {
    if ((!Sure && !M.AddressEvidence.count(VD)) ||
        M.IntegerPointerVars.count(VD) || !rootable(VD))
      return;
    if (M.ObjectAddressStructs.insert(VD).second)
      Changed = true;
  }

  /// `&ctx` handed on: whatever gets it may fill the untyped members.
  /// `&v` of a `void *` local (an out-parameter, `get(k, &v)`): whatever
  /// gets it may store into it.
  bool VisitUnaryOperator(UnaryOperator *UO) {
    if (UO->getOpcode() != UO_AddrOf)
      return true;
    const VarDecl *VD = localVariable(UO->getSubExpr()->IgnoreParens());
    if (VD && plainStruct(VD))
      addStruct(VD);
    else if (VD && isUntypedPointerType(VD->getType()) &&
             !isa<ParmVarDecl>(VD) && !VD->isStaticLocal() &&
             VD->getLocation().isFileID())
      addOpaque(VD);
    return true;
  }

  bool VisitBinaryOperator(BinaryOperator *BO) {
    if (BO->getOpcode() == BO_Assign &&
        (holdsAddress(BO->getRHS()) || opaqueAddress(BO->getRHS())))
      if (const VarDecl *VD = localStructOf(BO->getLHS()))
        addStruct(VD, holdsAddress(BO->getRHS()));
    // `c = make_ctx(k);`: a whole struct value.
    if (BO->getOpcode() == BO_Assign)
      if (const VarDecl *VD = localVariable(BO->getLHS());
          VD && plainStruct(VD))
        addStruct(VD);
    if (BO->getOpcode() == BO_Assign && integerPointerValue(S, BO->getRHS()) &&
        inAddressField(M, BO->getLHS()))
      integerInAddressField(BO->getRHS(), BO->getLHS());
    if (BO->getOpcode() == BO_Assign && holdsAddress(BO->getRHS())) {
      if (const VarDecl *VD = localVariable(BO->getLHS()))
        addObject(VD);
      else if (const VarDecl *A = localArrayOf(BO->getLHS()))
        addObject(A); // libuv's `QUEUE pq`: the array is the root
    } else if (BO->getOpcode() == BO_Assign && opaqueAddress(BO->getRHS())) {
      if (const VarDecl *VD = localVariable(BO->getLHS()))
        addOpaque(VD);
      else if (const VarDecl *A = localArrayOf(BO->getLHS());
               A && isUntypedPointerType(stripArrays(A->getType()).Element))
        addOpaque(A); // `void *vals[2]; vals[0] = lookup(k);`
    }
    if (BO->getOpcode() != BO_Assign || !isInteriorPointer(M, BO->getRHS()))
      return true;
    if (const VarDecl *VD = localVariable(BO->getLHS()))
      add(VD);
    else if (const VarDecl *A = localArrayOf(BO->getLHS()))
      add(A); // an element of a local array: the array is the root
    else if (!inAddressField(M, BO->getLHS())) // there the switch moves it
      escape(BO->getRHS(), throughPointer(BO->getLHS()));
    else if (const auto *ME =
                 dyn_cast<MemberExpr>(BO->getLHS()->IgnoreParens()))
      if (const auto *F = dyn_cast<FieldDecl>(ME->getMemberDecl());
          F && isBytePointer(F->getType()) && isBumpPointer(S, F))
        carved(BO->getRHS(), F);
    return true;
  }

  /// `struct span s = {e->name, 5};`, `long *vs[] = {&e->val};`: kept
  /// in an aggregate, the address is no root.
  bool VisitInitListExpr(InitListExpr *IL) {
    for (const Expr *Init : IL->inits())
      if (Init && isInteriorPointer(M, Init))
        escape(Init);
    return true;
  }

  bool VisitCallExpr(CallExpr *CE) {
    // Whatever the callee (a blocking call, a function of the program that
    // waits: `CP_NATIVE(wait_on(&x->cv, &x->mu))`), memory inside a compact
    // object handed over in a declared region is used while the switch
    // counts the thread as stopped.
    if (Check && CE->getDirectCallee() && inDeclaredRegion(CE))
      for (const Expr *A : CE->arguments())
        if (handsCompactMemory(M, A)) {
          nativeOnObject(CE, A);
          return true;
        }
    const FunctionDecl *Def = localDefinition(S, CE);
    if (Def) {
      for (unsigned I = 0; I < CE->getNumArgs() && I < Def->getNumParams(); ++I)
        if (isInteriorPointer(M, CE->getArg(I)))
          add(Def->getParamDecl(I));
        else if (holdsAddress(CE->getArg(I)))
          addObject(Def->getParamDecl(I));
        else if (integerPointerValue(S, CE->getArg(I))) {
          if (Def->hasBody())
            if (const Expr *F = storedInAddressField(Def, Def->getParamDecl(I)))
              integerInAddressField(CE->getArg(I), F);
        } else if (opaqueAddress(CE->getArg(I)))
          addOpaque(Def->getParamDecl(I));
      return true;
    }
    if (Check && isBlockingFunction(CE->getDirectCallee()) &&
        !promptBlockingFunction(CE->getDirectCallee()))
      for (const Expr *A : CE->arguments())
        if (handsCompactMemory(M, A)) {
          blockingOnObject(CE, A);
          break;
        }
    return true;
  }

  /// St lies between the statements `cp_native_enter();` and
  /// `cp_native_leave();` of a block around it (CP_NATIVE(stmt), or the
  /// two written out).
  bool inDeclaredRegion(const Stmt *St) {
    auto isCall = [](const Stmt *X, StringRef Name) {
      const auto *E = dyn_cast_or_null<Expr>(X);
      const auto *C = E ? dyn_cast<CallExpr>(E->IgnoreParenCasts()) : nullptr;
      const FunctionDecl *G = C ? C->getDirectCallee() : nullptr;
      return G && G->getName() == Name;
    };
    // The nearest enter or leave before St, block by block outwards: a
    // leave in an inner block (an early exit) ends the region there.
    for (DynTypedNodeList Ps = S.Ctx.getParents(*St); !Ps.empty();
         Ps = S.Ctx.getParents(Ps[0])) {
      const Stmt *Up = Ps[0].get<Stmt>();
      if (!Up)
        return false;
      if (const auto *CS = dyn_cast<CompoundStmt>(Up)) {
        int Last = 0; // 1 entered, -1 left
        for (const Stmt *X : CS->body()) {
          if (X == St)
            break;
          if (isCall(X, "cp_native_enter"))
            Last = 1;
          else if (isCall(X, "cp_native_leave"))
            Last = -1;
        }
        if (Last)
          return Last > 0;
      }
      St = Up;
    }
    return false;
  }

  /// A native region the program declared around a blocking call handed
  /// memory inside a compact object: the switch counts the thread as
  /// stopped and moves that memory while the call uses it (a waiter on a
  /// condition variable in a boxed global slept on the old address: 6 of
  /// 30 runs hung).
  void nativeOnObject(const CallExpr *CE, const Expr *A) {
    if (S.isIgnoredLoc(CE->getExprLoc()))
      return;
    S.report(
        Diag::NativeOnObject, A->getExprLoc(),
        quoted(CE->getDirectCallee()->getName()) +
            " is handed memory inside a compact object in a native region "
            "(CP_NATIVE): the switch would move that memory while the call "
            "waits on it or fills it; keep locks, condition variables and "
            "buffers outside compact objects (in a struct or a global "
            "that holds no compact pointer), or call it outside the region",
        {tokRange(A->getSourceRange())});
  }

  bool VisitReturnStmt(ReturnStmt *RS) {
    if (isInteriorPointer(M, RS->getRetValue()) &&
        M.InteriorReturns.insert(FD->getCanonicalDecl()).second)
      Changed = true;
    return true;
  }

private:
  Session &S;
  Model &M;
  const FunctionDecl *FD;
  const bool Check;

  /// VD holds what opaqueAddress sees, which may be anything: a root only
  /// where the function uses its value as a compact object's address
  /// (Model::AddressEvidence), never where it may hold an integer (the
  /// switch would change one that fell inside a live slab), and never
  /// where a root would not compile (a `register` variable; a declaration
  /// a goto or a case label may jump past, into the frame's scope).
  void addOpaque(const VarDecl *VD) {
    if (M.AddressEvidence.count(VD) && !M.IntegerPointerVars.count(VD))
      addObject(VD);
  }

  /// A goto or a case label may jump past VD's declaration into its
  /// scope: clang refuses such a jump once a frame (a declaration with a
  /// cleanup) is placed there.  So: a label after the declaration in its
  /// scope that a goto from outside [declaration, end of scope] targets (or
  /// any, with an indirect goto), or a case label after it of a switch
  /// that begins before it.
  bool mayJumpPast(const VarDecl *VD) {
    if (isa<ParmVarDecl>(VD))
      return false;
    const SourceManager &SM = S.Ctx.getSourceManager();
    auto before = [&](SourceLocation A, SourceLocation B) {
      return SM.isBeforeInTranslationUnit(SM.getExpansionLoc(A),
                                          SM.getExpansionLoc(B));
    };
    const Stmt *Scope = nullptr;
    for (DynTypedNodeList Ps = S.Ctx.getParents(*VD); !Ps.empty();
         Ps = S.Ctx.getParents(Ps[0])) {
      if (const Stmt *St = Ps[0].get<Stmt>(); St && !isa<DeclStmt>(St)) {
        Scope = St;
        break;
      }
      if (Ps[0].get<FunctionDecl>())
        return false;
    }
    if (!Scope)
      return false;
    SourceLocation D = VD->getLocation(), End = Scope->getEndLoc();
    llvm::SmallPtrSet<const LabelDecl *, 4> Labels;
    bool Jump = false;
    std::function<void(const Stmt *)> After = [&](const Stmt *St) {
      if (!St || Jump)
        return;
      if (const auto *L = dyn_cast<LabelStmt>(St);
          L && before(D, L->getBeginLoc()))
        Labels.insert(L->getDecl());
      if (const auto *SC = dyn_cast<SwitchCase>(St);
          SC && before(D, SC->getBeginLoc()))
        for (DynTypedNodeList Ps = S.Ctx.getParents(*SC); !Ps.empty();
             Ps = S.Ctx.getParents(Ps[0])) {
          if (const auto *SW = Ps[0].get<SwitchStmt>()) {
            Jump |= before(SW->getBeginLoc(), D);
            break;
          }
          if (!Ps[0].get<Stmt>())
            break;
        }
      for (const Stmt *C : St->children())
        After(C);
    };
    After(Scope);
    if (Jump || Labels.empty())
      return Jump;
    std::function<void(const Stmt *)> Gotos = [&](const Stmt *St) {
      if (!St || Jump)
        return;
      if (const auto *G = dyn_cast<GotoStmt>(St);
          G && Labels.count(G->getLabel()))
        Jump |= !(before(D, G->getBeginLoc()) && before(G->getBeginLoc(), End));
      Jump |= isa<IndirectGotoStmt>(St);
      for (const Stmt *C : St->children())
        Gotos(C);
    };
    Gotos(FD->getBody());
    return Jump;
  }

  /// A root must be addressable where the frame registers it: not a
  /// `register` variable, not one a macro declares, not a parameter of a
  /// function whose body starts in a macro (no place for its frame), not
  /// a variable-length array, and not one a jump may pass.
  bool rootable(const VarDecl *VD) {
    if (VD->getStorageClass() == SC_Register || !VD->getLocation().isFileID() ||
        stripArrays(VD->getType()).Variable)
      return false;
    if (const auto *P = dyn_cast<ParmVarDecl>(VD)) {
      const auto *F = dyn_cast<FunctionDecl>(P->getDeclContext());
      const Stmt *Body = F ? F->getBody() : nullptr;
      return Body && Body->getBeginLoc().isFileID();
    }
    return !mayJumpPast(VD);
  }

  void addObject(const VarDecl *VD) {
    if (isPlainPointerType(M, stripArrays(VD->getType()).Element) &&
        !M.ObjectAddressVars.count(VD) && rootable(VD) &&
        M.ObjectAddressVars.insert(VD).second)
      Changed = true;
  }

  void add(const VarDecl *VD) {
    if (isPlainPointerType(M, stripArrays(VD->getType()).Element) &&
        M.InteriorVars.insert(VD).second)
      Changed = true;
  }

  /// The part of E that makes it an interior pointer: the address taken,
  /// the variable or the call (through casts, conditionals, commas,
  /// assignments and pointer arithmetic), where the warning points.
  const Expr *leaf(const Expr *E) const {
    E = E->IgnoreParens();
    if (interiorAddressOf(M, E))
      return E;
    if (const auto *C = dyn_cast<CastExpr>(E))
      return leaf(C->getSubExpr());
    if (const auto *CO = dyn_cast<AbstractConditionalOperator>(E))
      return leaf(isInteriorPointer(M, CO->getTrueExpr()) ? CO->getTrueExpr()
                                                          : CO->getFalseExpr());
    if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
      if (BO->isAdditiveOp() || BO->isCompoundAssignmentOp())
        return leaf(isInteriorPointer(M, BO->getLHS()) ? BO->getLHS() : BO->getRHS());
      return leaf(BO->getRHS());
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(E); UO && UO->isIncrementDecrementOp())
      return leaf(UO->getSubExpr());
    return E;
  }

  /// Where the value E (a leaf) points: "the address of field 'value'
  /// inside a compact object" or "'w', which may point inside a compact
  /// object,".
  std::string origin(const Expr *E) const {
    if (const Expr *X = interiorAddressOf(M, E)) {
      bool Element = false;
      while (const auto *AS = dyn_cast<ArraySubscriptExpr>(X)) {
        X = AS->getBase()->IgnoreParenImpCasts();
        Element = true;
      }
      const FieldDecl *F = memberField(X);
      return "the address of " + std::string(Element ? "an element of " : "") +
             (F ? "field " + quoted(F->getName()) : std::string("data")) +
             " inside a compact object";
    }
    if (const VarDecl *VD = localVariable(E))
      return quoted(VD->getName()) + ", which may point inside a compact object,";
    if (const auto *CE = dyn_cast<CallExpr>(E))
      if (const FunctionDecl *Callee = CE->getDirectCallee())
        return "the result of " + quoted(Callee->getName()) +
               ", which may point inside a compact object,";
    return "a pointer that may point inside a compact object";
  }

  /// A blocking call handed memory inside a compact object (a buffer
  /// `read` fills, a mutex or condition variable in a node) is no native
  /// region (Planner::isNativeCall): the switch cannot move an object the
  /// kernel or a waiter holds the address of.
  void blockingOnObject(const CallExpr *CE, const Expr *A) {
    if (S.isIgnoredLoc(CE->getExprLoc()))
      return;
    S.report(Diag::BlockingOnObject, A->getExprLoc(),
             quoted(CE->getDirectCallee()->getName()) +
                 " is handed memory inside a compact object, which the switch "
                 "would move while the call uses it; so the call is no native "
                 "region, and a switch while it blocks waits for it (at most "
                 "COMPACTPTR_SAFEPOINT_TIMEOUT, then the program stops); keep "
                 "buffers, locks and condition variables outside compact objects",
             {tokRange(A->getSourceRange())});
  }

  /// The lvalue E is reached through a plain pointer (`*p`, `p[i]`,
  /// `p->f`), which may point into an untyped address field of a compact
  /// object as well as anywhere else.
  static bool throughPointer(const Expr *E) {
    E = E->IgnoreParens();
    if (const auto *UO = dyn_cast<UnaryOperator>(E))
      return UO->getOpcode() == UO_Deref;
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
      const Expr *B = AS->getBase()->IgnoreParenImpCasts();
      return !B->getType()->isArrayType() || throughPointer(B);
    }
    if (const auto *ME = dyn_cast<MemberExpr>(E))
      return ME->isArrow() || throughPointer(ME->getBase());
    return false;
  }

  /// `r->avail = c->data`: the field is moved by the switch, but as a bump
  /// pointer it hands out pieces of a compact object -- a region's chunk
  /// marked compact, where the program carves its own objects -- and the
  /// pointers to those that the program keeps (their links to each other,
  /// its locals) are plain: neither roots nor translated.
  void carved(const Expr *Value, const FieldDecl *F) {
    const Expr *E = leaf(Value);
    if (!Check || S.isIgnoredLoc(E->getExprLoc()))
      return;
    S.report(Diag::InteriorEscape, E->getExprLoc(),
             origin(E) + " becomes the bump pointer " + quoted(F->getName()) +
                 ": what is carved from it lies inside a compact object, which "
                 "the switch moves, while the pointers the program keeps to "
                 "those pieces (their links, its locals) are not translated, "
                 "and after the switch they point into the released arena; "
                 "carve from memory outside the compact heap (a chunk that "
                 "holds only its link and the bytes gains nothing from "
                 "CP_COMPACT)",
             {tokRange(E->getSourceRange())});
  }

  void escape(const Expr *Value, bool ThroughPointer = false) {
    const Expr *E = leaf(Value);
    if (!Check || S.isIgnoredLoc(E->getExprLoc()))
      return;
    S.report(Diag::InteriorEscape, E->getExprLoc(),
             origin(E) +
                 (ThroughPointer
                      ? " is stored through a pointer; unless it lands in an "
                        "untyped pointer field of a compact object ('void *', "
                        "'char *', ...), which the switch moves, it is no "
                        "root there"
                      : " is stored into memory; kept there, it is no root") +
                 ", and after the switch it points into the released "
                 "arena (keep a compact pointer to the object and take "
                 "the address where it is used)",
             {tokRange(E->getSourceRange())});
  }
};

} // namespace

/// E is an integer made a pointer whose value may fall inside the compact
/// arena: not a constant below 1 MiB (`(void *)1`, a small tag) nor one
/// with high bits set (`(void *)-1`, `MAP_FAILED`), which no arena holds.
static bool integerMayBeAddress(Session &S, const Expr *E) {
  if (!integerMadePointer(S.Ctx, E))
    return integerPointerValue(S, E);
  return !constantOutsideArena(S.Ctx, E);
}

/// Model::IntegerPointerVars and Model::AddressEvidence, over every body:
/// which locals and parameters (a struct or array as a whole) are handed
/// an integer made a pointer (by an initializer, an assignment, a call of
/// a function of this TU) or have their value made an integer; and which
/// have their value used as a compact object's address -- converted to a
/// compact pointer type (`(struct node *)v`, `struct node *n = v`) or
/// stored straight into an untyped field of a compact object.
static void opaqueFacts(Session &S) {
  Model &M = S.M;
  std::function<void(const Stmt *)> Walk = [&](const Stmt *St) {
    if (!St)
      return;
    for (const Stmt *C : St->children())
      Walk(C);
    if (const auto *C = dyn_cast<CastExpr>(St)) {
      const Expr *Sub = C->getSubExpr()->IgnoreParenImpCasts();
      if (C->getCastKind() == CK_PointerToIntegral)
        if (const VarDecl *V = localStorage(Sub))
          M.IntegerPointerVars.insert(V);
      if ((C->getCastKind() == CK_BitCast || C->getCastKind() == CK_NoOp) &&
          M.pointeeOf(C->getType()) && !M.pointeeOf(Sub->getType()))
        if (const VarDecl *V = localStorage(Sub))
          M.AddressEvidence.insert(V);
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(St);
        BO && BO->getOpcode() == BO_Assign) {
      if (integerMayBeAddress(S, BO->getRHS()))
        if (const VarDecl *V = localStorage(BO->getLHS()))
          M.IntegerPointerVars.insert(V);
      if (inAddressField(M, BO->getLHS()))
        if (const VarDecl *V = localStorage(BO->getRHS()))
          M.AddressEvidence.insert(V);
    }
    if (const auto *DS = dyn_cast<DeclStmt>(St))
      for (const Decl *D : DS->decls()) {
        const auto *V = dyn_cast<VarDecl>(D);
        const Expr *Init = V ? V->getInit() : nullptr;
        if (!Init)
          continue;
        const auto *IL = dyn_cast<InitListExpr>(Init);
        if (IL ? llvm::any_of(IL->inits(),
                              [&](const Expr *X) {
                                return X && integerMayBeAddress(S, X);
                              })
               : integerMayBeAddress(S, Init))
          M.IntegerPointerVars.insert(V);
      }
    if (const auto *CE = dyn_cast<CallExpr>(St))
      if (const FunctionDecl *Def = localDefinition(S, CE))
        for (unsigned I = 0; I < CE->getNumArgs() && I < Def->getNumParams();
             ++I)
          if (integerMayBeAddress(S, CE->getArg(I)))
            M.IntegerPointerVars.insert(Def->getParamDecl(I));
  };
  for (const FunctionDecl *FD : definitionsInOrder(S))
    Walk(FD->getBody());
}

void runInterior(Session &S) {
  if (!S.Opts.switchable())
    return;
  opaqueFacts(S);
  flowToFixedPoint<Flow>(S, [](const FunctionDecl *, const Flow &) {});
}

} // namespace compactptr
