//===- Pools.cpp - a program's own allocators: pools and wrappers ---------===//
//
// In:  a conversion of a byte pointer (`void *`, `char *`) to a compact
//      pointer, and the bodies of this translation unit's functions.
// Out: an error (unannotated-allocator) where the plugin can see that the
//      memory is not a compact allocation: it comes from libc's malloc
//      through a wrapper, or is carved out of a buffer by a bump pointer
//      (`(struct ent *)localmalloc(sizeof *e)` where localmalloc hands out
//      pieces of one malloc(32768)), with a fix-it that declares the
//      function CP_ALLOCATOR (the rewrite then allocates the compact
//      objects through the runtime, Allocation.cpp).
//
// Why: an object outside the arena has no handle; storing its address into
//      a compact field stores a handle that names something else, and the
//      switch would not move it.  The runtime stops at such a store, but
//      only when it happens; the plugin can often tell at compile time.
//
// How the memory is traced (flow-insensitive, through the function that
// makes the conversion and, for calls, the callee's returns, a few levels
// deep): a libc allocation whose result the rewrite does not route (its
// destination is not a compact type), pointer arithmetic on a byte
// pointer, an array, or a bump pointer: a global byte pointer that the
// translation unit moves (`+=`, `++`) or sets from malloc, or a byte
// pointer field of any struct that it moves (a region's `r->avail`).
// Arithmetic
// back from an address by an offsetof (container_of, from a member of any
// type) is not a buffer: it steps to the object around the member; nor is
// a number of bytes from an object's address (layout-offset refuses it in
// Safety.cpp).  A call of a
// CP_ALLOCATOR function, of the runtime, or of a function whose body is not
// here is not traced (the foreign-object warning covers `void *` results
// of the latter).
//
// Not in wide mode, where objects and pointers stay native.  In every mode,
// a compact pointer made inside a CP_ALLOCATOR function's own body is an
// error (allocator-body): the body does not run for compact objects.
//
// The same for root arrays, in switchable mode (checkRootArrayConversion):
// memory that a `T **` (T compact) comes to name must be a root array, the
// only arrays of compact pointers the switch translates.  A conversion to
// one from memory the program allocates itself -- a wrapper's `void *`
// (`v = xrealloc(v, n * sizeof *v)`), a stretchy buffer's header-prefixed
// block (stb's `*(void **)&a = grow(a, ...)`), the bucket array carved
// after a table's header (`(struct node **)(t + 1)`) -- is an error; a
// `void *` from a function whose body is not here, a warning
// (foreign-object), as for objects.
//
// Tests: test/diagnostics/unannotated-allocator.c,
// test/diagnostics/unannotated-allocator-field.c, test/idioms/pools.test,
// test/switchable/root-array-conversion.c.
//
//===----------------------------------------------------------------------===//
#include "Engine.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"

#include <functional>

using namespace clang;

namespace compactptr {
static bool offsetMeasured(Session &S, const clang::Expr *Off,
                           std::vector<MeasuredMember> &Members,
                           unsigned Depth = 0);
namespace {

/// Calls F for every node of St.
template <typename Fn> void forEach(const Stmt *St, Fn F) {
  if (!St)
    return;
  F(St);
  for (const Stmt *C : St->children())
    forEach(C, F);
}

/// Arithmetic that steps from one object to the object around it
/// (container_of: `(char *)p - offsetof(T, f)`, p a pointer to a struct):
/// the result is the object that holds *p, not a piece of a buffer.
/// The left operand is a pointer to a struct cast to a byte pointer.
bool steppedFromObject(const BinaryOperator *BO) {
  const auto *C = dyn_cast<ExplicitCastExpr>(BO->getLHS()->IgnoreParens());
  if (!C)
    return false;
  const auto *PT = C->getSubExpr()->getType().getCanonicalType()->getAs<PointerType>();
  return PT && PT->getPointeeType()->isRecordType();
}
/// `&e->key`, `&e->name[2]`, `e->name` (decayed): the address of a member.
bool memberAddress(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
    if (UO->getOpcode() != UO_AddrOf)
      return false;
    E = UO->getSubExpr()->IgnoreParens();
  }
  while (const auto *AS = dyn_cast<ArraySubscriptExpr>(E))
    E = AS->getBase()->IgnoreParenImpCasts();
  return isa<MemberExpr>(E);
}
bool derivedFromObject(const BinaryOperator *BO) {
  bool Offsetof = false;
  forEach(BO->getRHS(), [&](const Stmt *St) { Offsetof |= isa<OffsetOfExpr>(St); });
  // Forward from a struct pointer, or back from a pointer to a member of
  // any type (`(char *)key - offsetof(struct entry, key)`, key an `int *`
  // or a `char *` into a name): a pool steps forward, never back by an
  // offsetof.
  return Offsetof && (steppedFromObject(BO) || BO->getOpcode() == BO_Sub);
}

const char *const SteppedByRuntimeOffset =
    "an address stepped from another object by an offset computed at run time";

/// Why byte-pointer arithmetic BO is not a compact allocation, or "".
std::string arithmeticOrigin(const BinaryOperator *BO, ASTContext &Ctx) {
  if (derivedFromObject(BO))
    return "";
  const auto *C = dyn_cast<ExplicitCastExpr>(BO->getLHS()->IgnoreParens());
  if (C && (steppedFromObject(BO) || memberAddress(C->getSubExpr()))) {
    // Stepped from the address of an object or a member, not through a
    // buffer.  A number of bytes is refused where it is written
    // (layout-offset, Safety.cpp).  container_of with an offset kept at
    // run time (uthash's `hho`, from a handle or from `&e->id`): the
    // offset was measured in one layout, and offsetof is what the rewrite
    // knows to give in each.
    if (BO->getRHS()->isIntegerConstantExpr(Ctx))
      return "";
    return SteppedByRuntimeOffset;
  }
  return "a pointer moved through a buffer";
}

const VarDecl *varOf(const Expr *E) {
  const auto *DR = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  return DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
}

/// The global or the field E names (`cur`, `r->avail`), or null.
static const ValueDecl *storage(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    return dyn_cast<FieldDecl>(ME->getMemberDecl());
  return varOf(E);
}

/// The read of a kept offset E, past the casts clang puts around it.
static const Expr *offsetRead(const Expr *E) {
  while (const auto *IC = dyn_cast<ImplicitCastExpr>(E->IgnoreParens())) {
    if (IC->getCastKind() == CK_LValueToRValue)
      return IC;
    E = IC->getSubExpr();
  }
  return E;
}

/// E reads V: V itself, or a local copy of it (obstack's `char *p =
/// r->avail; ... r->avail = p + k;`).
static bool readsStorage(const Expr *E, const ValueDecl *V) {
  if (storage(E) == V)
    return true;
  const VarDecl *L = varOf(E);
  return L && L->hasLocalStorage() && L->getInit() &&
         storage(L->getInit()) == V;
}

class Tracer {
public:
  explicit Tracer(Session &S) : S(S) {}

  /// The outermost function of this TU whose return value origin() traced
  /// the memory through (`xmalloc` in `c ? xmalloc(n) : 0`), or null.
  const FunctionDecl *Maker = nullptr;
  /// The libc call origin() traced the memory to (a block malloc,
  /// calloc or realloc returned), or AllocFn::None.
  AllocFn Block = AllocFn::None;
  /// Tracing a pinned object: a realloc through `void *` keeps one pinned
  /// (cp_realloc_any resizes it in whole objects).
  bool Pinned = false;
  /// The step by an offset kept at run time origin() traced the memory
  /// to (uthash's `(char *)hhp - tbl->hho`), or null.
  const BinaryOperator *Step = nullptr;

  /// Why the memory E points at is not a compact allocation, or "".
  std::string origin(const Expr *E, const FunctionDecl *FD, unsigned Depth = 0) {
    if (!E || Depth > 6)
      return "";
    // A sentinel computed from integers alone (the kernel's `(void *)0x100
    // + POISON_POINTER_DELTA`) names no memory, so no pool: its value
    // decides whether a handle holds it (Safety.cpp refuses one beyond a
    // handle's reach where it is stored).
    if (constantAddress(E, S.Ctx))
      return "";
    const Expr *X = E->IgnoreParenCasts();
    if (const auto *CE = dyn_cast<CallExpr>(X))
      return callOrigin(CE, Depth);
    if (const auto *BO = dyn_cast<BinaryOperator>(X)) {
      // A tag in the low bits of an aligned address taken off or put on
      // (crit-bit's `uint8_t *p = t->root; ... (void *)(p - 1)`) is no
      // step through a buffer, whose objects are at least a handle's size
      // apart: the memory is the pointer's own (a pool's `r + 1` is still
      // the pool's).
      if (BO->isAdditiveOp() && isBytePointer(BO->getType())) {
        if (isTagStep(BO->getRHS(), S.Ctx))
          return origin(BO->getLHS(), FD, Depth + 1);
        std::string Why = arithmeticOrigin(BO, S.Ctx);
        // By an offset measured to a member, from an element held as `void
        // *` (uthash's HASH_SELECT: `(char *)_elt + _dst_hho`) or from a
        // member's address held as its own type (`(char *)idp - t->ido`):
        // a step between an object and its member, not through a buffer.
        // (Not from a `char *`: a byte buffer's pieces are no members.)
        std::vector<MeasuredMember> Members;
        const auto *FromPT =
            BO->getLHS()->IgnoreParenCasts()->getType()->getAs<PointerType>();
        if (!Why.empty() && Why != SteppedByRuntimeOffset && FromPT &&
            !FromPT->getPointeeType()->isCharType() &&
            offsetMeasured(S, BO->getRHS(), Members) &&
            llvm::all_of(Members, [](const MeasuredMember &X) { return X.F; }))
          Why = SteppedByRuntimeOffset;
        if (Why == SteppedByRuntimeOffset)
          Step = BO;
        return Why;
      }
      if (BO->getOpcode() == BO_Assign || BO->getOpcode() == BO_Comma)
        return origin(BO->getRHS(), FD, Depth + 1);
      return "";
    }
    if (const auto *CO = dyn_cast<ConditionalOperator>(X)) {
      std::string T = origin(CO->getTrueExpr(), FD, Depth + 1);
      return T.empty() ? origin(CO->getFalseExpr(), FD, Depth + 1) : T;
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(X)) {
      if (UO->getOpcode() == UO_AddrOf)
        if (const auto *AS = dyn_cast<ArraySubscriptExpr>(UO->getSubExpr()->IgnoreParens()))
          if (const VarDecl *V = varOf(AS->getBase()); V && V->getType()->isArrayType())
            return "an element of array '" + V->getName().str() + "'";
      if (UO->isIncrementDecrementOp() && isBytePointer(UO->getType()))
        return "a pointer moved through a buffer";
      return "";
    }
    if (const auto *DR = dyn_cast<DeclRefExpr>(X)) {
      const auto *V = dyn_cast<VarDecl>(DR->getDecl());
      if (!V)
        return "";
      if (V->getType()->isArrayType())
        return "array '" + V->getName().str() + "'";
      if (V->hasLocalStorage())
        return localOrigin(V, FD, Depth);
      if (isBytePointer(V->getType()) && bumped(V))
        return "the bump pointer '" + V->getName().str() + "'";
      return "";
    }
    // A bump pointer kept in a field of the pool's own struct (a region's
    // `r->avail`, copied out before it is moved: `p = r->avail; r->avail
    // += n; return p;`), as for a global one: such a region got only the
    // foreign-object warning, and its objects stopped the program at
    // their first handle store (exit 70).
    if (const auto *ME = dyn_cast<MemberExpr>(X)) {
      const auto *F = dyn_cast<FieldDecl>(ME->getMemberDecl());
      if (F && isBytePointer(F->getType()) && bumped(F))
        return "the bump pointer in field '" + F->getName().str() + "' of '" +
               S.typeText(S.Ctx.getRecordType(F->getParent())) + "'";
      return "";
    }
    return "";
  }

private:
  Session &S;
  std::set<const VarDecl *> Visiting;
  std::map<const ValueDecl *, bool> Bumped;
  std::set<const FunctionDecl *> InCall;

  std::string callOrigin(const CallExpr *CE, unsigned Depth) {
    switch (allocFunction(CE)) {
    case AllocFn::Malloc:
    case AllocFn::Calloc:
    case AllocFn::Realloc: {
      // The rewrite routes an allocation converted to the compact type right
      // there, or sized by sizeof of one (Allocation.cpp).
      if (Depth == 0 || sizesCompact(CE) ||
          (Pinned && allocFunction(CE) == AllocFn::Realloc))
        return "";
      Block = allocFunction(CE);
      return "a block from '" + CE->getDirectCallee()->getNameAsString() + "'";
    }
    case AllocFn::None:
      break;
    default:
      return "";
    }
    const FunctionDecl *G = CE->getDirectCallee();
    if (!G || isRuntimeFunction(G))
      return "";
    const FunctionDecl *Def = G->getDefinition();
    if (!Def || S.isIgnoredLoc(Def->getLocation()) || !InCall.insert(Def).second)
      return "";
    std::string Why;
    forEach(Def->getBody(), [&](const Stmt *St) {
      if (!Why.empty())
        return;
      if (const auto *RS = dyn_cast<ReturnStmt>(St))
        Why = origin(RS->getRetValue(), Def, Depth + 1);
    });
    InCall.erase(Def);
    if (Why.empty())
      return "";
    Maker = G; // inner calls returned first: the last one set is outermost
    return "memory from '" + G->getNameAsString() + "' (" + Why + ")";
  }

  /// An argument of CE is sizeof of a compact type (or of an array of
  /// compact pointers' element).
  bool sizesCompact(const CallExpr *CE) {
    bool Yes = false;
    for (const Expr *A : CE->arguments())
      forEach(A, [&](const Stmt *St) {
        if (const auto *U = dyn_cast<UnaryExprOrTypeTraitExpr>(St))
          if (U->getKind() == UETT_SizeOf) {
            QualType T = U->getTypeOfArgument();
            Yes |= S.M.elementOf(T) || S.M.pointeeOf(T);
          }
      });
    return Yes;
  }

  /// A local: its initializer and what is assigned to it in FD.
  std::string localOrigin(const VarDecl *V, const FunctionDecl *FD, unsigned Depth) {
    if (!FD || !Visiting.insert(V).second)
      return "";
    std::string Why = origin(V->getInit(), FD, Depth + 1);
    forEach(FD->getBody(), [&](const Stmt *St) {
      if (!Why.empty())
        return;
      if (const auto *BO = dyn_cast<BinaryOperator>(St)) {
        if (varOf(BO->getLHS()) != V)
          return;
        if (BO->getOpcode() == BO_Assign)
          Why = origin(BO->getRHS(), FD, Depth + 1);
        else if ((BO->getOpcode() == BO_AddAssign || BO->getOpcode() == BO_SubAssign) &&
                 isBytePointer(V->getType()))
          Why = "a pointer moved through a buffer";
      } else if (const auto *UO = dyn_cast<UnaryOperator>(St)) {
        if (UO->isIncrementDecrementOp() && varOf(UO->getSubExpr()) == V &&
            isBytePointer(V->getType()))
          Why = "a pointer moved through a buffer";
      }
    });
    Visiting.erase(V);
    return Why;
  }

  bool bumped(const ValueDecl *V) {
    auto It = Bumped.find(V);
    if (It != Bumped.end())
      return It->second;
    return Bumped[V] = isBumpPointer(S, V);
  }
};

} // namespace

bool isBumpPointer(Session &S, const ValueDecl *V) {
  bool B = false;
  for (const Decl *D : S.Ctx.getTranslationUnitDecl()->decls()) {
    const auto *FD = dyn_cast<FunctionDecl>(D);
    if (!FD || !FD->doesThisDeclarationHaveABody() || B)
      continue;
    forEach(FD->getBody(), [&](const Stmt *St) {
      if (const auto *BO = dyn_cast<BinaryOperator>(St)) {
        if (storage(BO->getLHS()) != V)
          return;
        if (BO->getOpcode() == BO_AddAssign || BO->getOpcode() == BO_SubAssign)
          B = true;
        else if (BO->getOpcode() == BO_Assign) {
          const Expr *R = BO->getRHS()->IgnoreParenCasts();
          bool Field = isa<FieldDecl>(V);
          if (const auto *CE = dyn_cast<CallExpr>(R))
            B |= !Field && (allocFunction(CE) == AllocFn::Malloc ||
                            allocFunction(CE) == AllocFn::Calloc ||
                            allocFunction(CE) == AllocFn::Realloc);
          if (const auto *A = dyn_cast<BinaryOperator>(R))
            B |= A->isAdditiveOp() && (!Field || readsStorage(A->getLHS(), V) ||
                                       readsStorage(A->getRHS(), V));
        }
      } else if (const auto *UO = dyn_cast<UnaryOperator>(St)) {
        B |= UO->isIncrementDecrementOp() && storage(UO->getSubExpr()) == V;
      }
    });
  }
  return B;
}

/// Record R is a union, or a member (or an array of them) of a union
/// somewhere in the translation unit: its fields may be written through
/// another member.
static bool inUnion(ASTContext &Ctx, const RecordDecl *R) {
  if (R->isUnion())
    return true;
  std::function<bool(const DeclContext *)> Walk = [&](const DeclContext *DC) {
    for (const Decl *X : DC->decls()) {
      if (const auto *RD = dyn_cast<RecordDecl>(X);
          RD && RD->isUnion() &&
          llvm::any_of(RD->fields(), [&](const FieldDecl *FD) {
            return FD->getType()
                       ->getBaseElementTypeUnsafe()
                       ->getAsRecordDecl() == R;
          }))
        return true;
      if (const auto *Inner = dyn_cast<DeclContext>(X); Inner && Walk(Inner))
        return true;
    }
    return false;
  };
  return Walk(Ctx.getTranslationUnitDecl());
}

/// The member a measured offset names: `(char *)&x->hh - (char *)x` or
/// `offsetof(T, hh)` (one member of a compact T), else {}.
static MeasuredMember measuredMember(const Model &M, const Expr *R) {
  R = R->IgnoreParenCasts();
  if (const auto *O = dyn_cast<OffsetOfExpr>(R)) {
    CompactType *T = M.recordOf(O->getTypeSourceInfo()->getType());
    if (T && O->getNumComponents() == 1 &&
        O->getComponent(0).getKind() == OffsetOfNode::Field)
      return {T, O->getComponent(0).getField()};
    return {};
  }
  const auto *B = dyn_cast<BinaryOperator>(R);
  const auto *A =
      B ? dyn_cast<UnaryOperator>(B->getLHS()->IgnoreParenCasts()) : nullptr;
  const auto *ME = A && A->getOpcode() == UO_AddrOf
                       ? dyn_cast<MemberExpr>(A->getSubExpr()->IgnoreParens())
                       : nullptr;
  const VarDecl *X = ME && ME->isArrow() ? varOf(ME->getBase()) : nullptr;
  CompactType *T = X ? M.pointeeOf(ME->getBase()->getType()) : nullptr;
  if (!T || varOf(B->getRHS()->IgnoreParenCasts()) != X)
    return {};
  return {T, dyn_cast<FieldDecl>(ME->getMemberDecl())};
}

/// The offset Off kept at run time (uthash's `tbl->hho`, a local) is a
/// field or variable whose every value in this translation unit was
/// measured in the layout the code runs in: a difference of two addresses
/// (`(char *)&add->hh - (char *)add`) or an offsetof, both of the compact
/// layout in compact code, zero, or a local of such values.  A number
/// written by hand is the wide layout's, and a parameter (its callers'
/// values), a variable other files can set or whose address is taken, or
/// a field of a struct some union holds (written through another member)
/// may hold one.  A field's values in other files are not seen.
static bool offsetMeasured(Session &S, const Expr *Off,
                           std::vector<MeasuredMember> &Members,
                           unsigned Depth) {
  const ValueDecl *V = storage(Off);
  const auto *F = dyn_cast_or_null<FieldDecl>(V);
  const auto *Var = dyn_cast_or_null<VarDecl>(V);
  if (Depth > 3 || (!F && !Var) || isa_and_nonnull<ParmVarDecl>(Var) ||
      (Var && !Var->hasLocalStorage() && Var->isExternallyVisible()) ||
      (F && inUnion(S.Ctx, F->getParent())))
    return false;
  auto Measured = [&](const Expr *R) {
    R = R->IgnoreParenCasts();
    if (std::optional<llvm::APSInt> C =
            isa<OffsetOfExpr>(R) ? std::nullopt
                                 : R->getIntegerConstantExpr(S.Ctx)) {
      Members.push_back({}); // no member to check against
      return *C == 0; // the object itself, in either layout
    }
    if (const VarDecl *L = varOf(R); L && L->hasLocalStorage())
      return offsetMeasured(S, R, Members, Depth + 1);
    const auto *B = dyn_cast<BinaryOperator>(R);
    Members.push_back(measuredMember(S.M, R));
    return isa<OffsetOfExpr>(R) || (B && B->getOpcode() == BO_Sub &&
                                    B->getLHS()->getType()->isPointerType() &&
                                    B->getRHS()->getType()->isPointerType());
  };
  bool Any = false, Other = false;
  if (Var && Var->getInit()) {
    Any = true;
    Other |= !Measured(Var->getInit());
  }
  // Every write is looked at, until one is not measured.
  anyNodeInUnit(S.Ctx, [&](const Stmt *St) {
    if (const auto *BO = dyn_cast<BinaryOperator>(St);
        BO && BO->isAssignmentOp() && storage(BO->getLHS()) == V) {
      Any = true;
      Other |= BO->getOpcode() != BO_Assign || !Measured(BO->getRHS());
    } else if (const auto *UO = dyn_cast<UnaryOperator>(St)) {
      if ((UO->isIncrementDecrementOp() || UO->getOpcode() == UO_AddrOf) &&
          storage(UO->getSubExpr()) == V)
        Other = true;
    } else if (const auto *IL = dyn_cast<InitListExpr>(St); IL && F) {
      // `{.hho = 16}`: a value for the field written in a struct's braces.
      const RecordDecl *RD = IL->getType()->getAsRecordDecl();
      if (RD == F->getParent() && F->getFieldIndex() < IL->getNumInits())
        Other |= !Measured(IL->getInit(F->getFieldIndex()));
    }
    return Other;
  });
  return Any && !Other;
}

/// Off is a field this translation unit reads but never writes (no
/// assignment, `++`, `&` or braces): its values are other files' (uthash's
/// `tbl->hho` in a file that only finds and deletes).  Not of a struct a
/// union holds.
static bool neverWritten(Session &S, const Expr *Off) {
  const auto *F = dyn_cast_or_null<FieldDecl>(storage(Off));
  if (!F || inUnion(S.Ctx, F->getParent()))
    return false;
  bool Written = false;
  anyNodeInUnit(S.Ctx, [&](const Stmt *St) {
    if (const auto *BO = dyn_cast<BinaryOperator>(St))
      Written |= BO->isAssignmentOp() && storage(BO->getLHS()) == F;
    else if (const auto *UO = dyn_cast<UnaryOperator>(St))
      Written |=
          (UO->isIncrementDecrementOp() || UO->getOpcode() == UO_AddrOf) &&
          storage(UO->getSubExpr()) == F;
    else if (const auto *IL = dyn_cast<InitListExpr>(St))
      Written |= IL->getType()->getAsRecordDecl() == F->getParent();
    return Written;
  });
  return !Written;
}

/// The members a step by a kept offset may be stepping over, beside those
/// this file measures it to (other files measure it to theirs: a table of
/// another type, a file that only finds), checked when read: back to T
/// from a pointer to a struct, T's members of that struct's type
/// (`(char *)hhp - tbl->hho`, hhp a `UT_hash_handle *`: a 'struct user''s
/// UT_hash_handle members); forward to T, a member type, the members of
/// type T of the struct stepped from, or of every compact struct where
/// that is `void *` (HASH_DELETE's `(char *)elt + tbl->hho`); back to a
/// type not known (T null: a step that stays `void *`), the members of
/// that struct's type of every compact struct.  None from a pointer to a
/// scalar.
static std::vector<MeasuredMember>
stepMembers(Session &S, const BinaryOperator *Step, CompactType *T) {
  const auto *C = dyn_cast<ExplicitCastExpr>(Step->getLHS()->IgnoreParens());
  const auto *From =
      C ? C->getSubExpr()->getType()->getAs<PointerType>() : nullptr;
  if (!From)
    return {};
  QualType Member =
      From->getPointeeType().getCanonicalType().getUnqualifiedType();
  std::vector<MeasuredMember> Out;
  // A member of struct type names itself (a handle embedded once); one of
  // a scalar type (an `unsigned *` stepped back from) could be any of many.
  if (!Member->isRecordType() && !Member->isVoidType())
    return Out;
  auto Of = [](QualType X) {
    return X.getCanonicalType().getUnqualifiedType();
  };
  if (Step->getOpcode() == BO_Sub) {
    for (const auto &U : S.M.Types)
      if (!T || U.get() == T)
        for (const FieldDecl *X : U->RD->fields())
          if (Of(X->getType()) == Member)
            Out.push_back({U.get(), X});
    return Out;
  }
  if (!T)
    return Out;
  QualType To = Of(S.Ctx.getRecordType(T->RD));
  for (const auto &U : S.M.Types)
    if (Member->isVoidType() || Of(S.Ctx.getRecordType(U->RD)) == Member)
      for (const FieldDecl *X : U->RD->fields())
        if (Of(X->getType()) == To)
          Out.push_back({U.get(), X});
  return Out;
}

/// Adds the members of From that To lacks to To.
static void addMembers(std::vector<MeasuredMember> &To,
                       const std::vector<MeasuredMember> &From) {
  for (const MeasuredMember &X : From)
    if (!llvm::is_contained(To, X))
      To.push_back(X);
}

bool isTagStep(const Expr *K, ASTContext &Ctx) {
  std::optional<llvm::APSInt> V = K->getIntegerConstantExpr(Ctx);
  // (An unsigned `(size_t)-16` has all its bits active.)
  return V && !V->isNegative() && V->getActiveBits() <= 2;
}

/// G hands out memory it only looks up: its body calls nothing and
/// changes nothing but its own locals (`return v->data + i * v->elem;`).
/// An allocator takes the memory from somewhere: a call, a bump of a
/// pool's cursor, a free list's head.
static bool onlyLooksUp(const FunctionDecl *G) {
  const Stmt *Body = G->getBody();
  if (!Body)
    return false;
  std::function<bool(const Stmt *)> Changes = [&](const Stmt *X) {
    if (!X)
      return false;
    if (isa<CallExpr>(X))
      return true;
    const Expr *Target = nullptr;
    if (const auto *BO = dyn_cast<BinaryOperator>(X);
        BO && BO->isAssignmentOp())
      Target = BO->getLHS();
    else if (const auto *UO = dyn_cast<UnaryOperator>(X);
             UO && UO->isIncrementDecrementOp())
      Target = UO->getSubExpr();
    if (Target) {
      const auto *DR = dyn_cast<DeclRefExpr>(Target->IgnoreParenImpCasts());
      const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
      if (!VD || !VD->hasLocalStorage())
        return true;
    }
    for (const Stmt *C : X->children())
      if (Changes(C))
        return true;
    return false;
  };
  return !Changes(Body);
}

/// "the 'void *' returned by 'G' becomes a compact pointer to 'T'".
static std::string returned(const CastExpr *E, const FunctionDecl *G,
                            const std::string &Ptr, const CompactType *T) {
  bool Void = E->getSubExpr()->getType()->getPointeeType()->isVoidType();
  return std::string("the ") + (Void ? "'void *'" : "'char *'") +
         " returned by '" + G->getNameAsString() + "' becomes " + Ptr +
         T->WideSpelling + "'";
}

bool checkPoolConversion(Session &S, const CastExpr *E) {
  // A pinned struct too (Pinned.cpp): memory the runtime did not hand out
  // is never registered, so the switch would not translate its pointers.
  CompactType *T = S.M.pointeeOf(E->getType());
  bool Pinned = !T && (T = S.M.pinnedPointee(E->getType()));
  if (!T || !isBytePointer(E->getSubExpr()->getType()))
    return false;
  const std::string Ptr =
      Pinned ? "a pointer to pinned '" : "a compact pointer to '";
  const FunctionDecl *FD = enclosingFunction(S.Ctx, E);
  if (FD && hasAttribute(FD, "allocator")) {
    // In every mode the calls that allocate compact objects go to the
    // runtime, so this body never runs for them: what it does to the
    // object (a constructor stamping an id) would be lost.
    // A typed allocator (`struct node *node_block(size_t n)` around
    // `calloc(n, sizeof(struct node))`) allocates the objects itself,
    // which the plugin rewrites anyway: the annotation is what breaks it.
    // A body that only types the memory on its way out (`struct node *c =
    // calloc(1, n); ... return c;`) serves the calls that allocate other
    // memory.
    const auto *Inner = dyn_cast<CallExpr>(E->getSubExpr()->IgnoreParenCasts());
    bool Allocates = !Pinned && Inner && allocFunction(Inner) != AllocFn::None;
    const std::string Fn = quoted(FD->getNameAsString());
    const std::string Routed =
        Fn + " is declared CP_ALLOCATOR, so its calls that allocate compact "
             "objects go to the runtime";
    std::string Msg;
    if (Allocates && S.M.pointeeOf(FD->getReturnType()) == T)
      Msg = Fn + " allocates the " + quoted(T->WideSpelling) +
            " itself and returns a " + quoted(T->WideSpelling + " *") +
            ", so it needs no CP_ALLOCATOR, which sends its calls to the "
            "runtime and skips this body; remove the annotation (this "
            "allocation is then rewritten like any other)";
    else if (Allocates)
      Msg = Routed +
            ", and this body serves its other calls, whose memory "
            "is no " +
            quoted(T->WideSpelling) +
            "; keep it as 'void *' here (`void *p = calloc(1, n);`)";
    else
      Msg = Routed +
            " and this body does not run for them: what it does to "
            "the " +
            quoted(T->WideSpelling) +
            " would be lost; initialize the object after the call";
    S.report(Diag::AllocatorBody, E->getExprLoc(), Msg,
             {CharSourceRange::getTokenRange(E->getSourceRange())});
    return true;
  }
  // In wide mode every object keeps its native layout and every pointer is
  // native: memory from a pool is as good an object as it is natively.
  if (!S.Opts.compactBodies())
    return false;
  Tracer Tr(S);
  Tr.Pinned = Pinned;
  std::string Why = Tr.origin(E->getSubExpr(), FD);
  if (Why.empty())
    return false;
  const auto *CE = dyn_cast<CallExpr>(E->getSubExpr()->IgnoreParenCasts());
  const FunctionDecl *G = CE ? CE->getDirectCallee() : Tr.Maker;
  auto R = CharSourceRange::getTokenRange(E->getSourceRange());
  if (Why.find(SteppedByRuntimeOffset) != std::string::npos) {
    // One layout: an offset measured at run time is right (a pinned
    // object's, or any in compact-only code, where no switch changes the
    // layout under a kept offset).
    if (Pinned)
      return false;
    std::vector<MeasuredMember> Members;
    bool Measured = Tr.Step && offsetMeasured(S, Tr.Step->getRHS(), Members);
    // Every value this file gives names a member (`hh` of 'struct user',
    // of 'struct group': each table measures its own), or the file gives
    // none (another file does): each read of the offset in this file is
    // printed as the offset, in the layout of the moment, of the member the
    // value read was measured to -- among those this file measures it to
    // and those a step by it may go over (stepMembers) -- checked, since
    // another file may set it by hand; so a switch that leaves the kept
    // offset the compact layout's changes nothing.  At this step, only the
    // members of the type it goes to.
    bool Usable =
        Tr.Step &&
        (Measured ? llvm::all_of(Members,
                                 [](const MeasuredMember &X) { return X.F; })
                  : neverWritten(S, Tr.Step->getRHS()));
    if (Usable) {
      addMembers(Members, stepMembers(S, Tr.Step, T));
      std::vector<MeasuredMember> Here;
      for (const MeasuredMember &X : Members)
        if (Tr.Step->getOpcode() == BO_Sub ? X.T == T
                                           : S.M.recordOf(X.F->getType()) == T)
          addMembers(Here, {X});
      if (!Here.empty()) {
        // A helper that steps for several types (`elmt_of(t, h)` cast to
        // each): the members of every one of them.
        addMembers(S.M.MeasuredOffsets[storage(Tr.Step->getRHS())], Members);
        addMembers(S.M.MeasuredSteps[offsetRead(Tr.Step->getRHS())], Here);
        return false;
      }
    }
    // Other measured values (zero among them) are right in compact-only
    // code, which has one layout.
    if (Measured && !S.Opts.switchable())
      return false;
    // The offset was measured in one layout; offsetof is what the rewrite
    // gives in each.  Also when a function of this TU does the step (a
    // generic list's `obj_of`): it is no allocator, and CP_ALLOCATOR would
    // turn the lookup into an allocation.
    S.report(Diag::UnannotatedAllocator, E->getExprLoc(),
             Ptr + T->WideSpelling + "' is made from " + Why +
                 ", which the plugin cannot tell is the start of a '" +
                 T->WideSpelling +
                 "' (it would differ between the layouts); step back with "
                 "offsetof(" +
                 T->WideSpelling + ", member), as container_of does" +
                 (Measured ? ", or build the program compact-only "
                             "(--cp-mode=compact-only), where the offset "
                             "it measures stays right (in switchable code, "
                             "every value it is given must be measured to a "
                             "member, one of them of the type the step "
                             "goes to)"
                           : ""),
             {R});
    return true;
  }
  if (G && G->getDefinition() && onlyLooksUp(G->getDefinition())) {
    // An accessor of a buffer (a generic vector's `vec_at`): what it finds
    // there are bytes, copies of objects or none, and CP_ALLOCATOR would
    // turn each lookup into an allocation.
    S.report(Diag::UnannotatedAllocator, E->getExprLoc(),
             returned(E, G, Ptr, T) + ", but '" + G->getNameAsString() +
                 "' looks it up in memory it does not allocate: objects kept "
                 "there as bytes are copies outside the "
                 "compact heap, which compact pointers cannot name; keep "
                 "pointers to the objects (an array of '" +
                 T->WideSpelling + " *') instead of their bytes",
             {R});
    return true;
  }
  if (G && G->getDefinition()) {
    // A function of this TU hands the memory out: the fix is to declare it
    // an allocator, on its first declaration.
    const FunctionDecl *First = G->getFirstDecl();
    SourceLocation At = First->getOuterLocStart();
    bool Reported = S.report(
        Diag::UnannotatedAllocator, E->getExprLoc(),
        returned(E, G, Ptr, T) + ", but it is not a compact allocation: " +
            Why + "; declare '" + G->getNameAsString() +
            "' CP_ALLOCATOR, and the plugin allocates compact objects through "
            "the runtime instead",
        {R});
    if (Reported && At.isFileID() && S.AllocatorFixIts.insert(First).second)
      // What the annotation changes is easy to miss in a pool with state
      // of its own (a free list, a live count), so the note says it.
      S.note(At, "declare '" + G->getNameAsString() + "' CP_ALLOCATOR here; "
                 "its body then no longer runs for compact objects, so what "
                 "it counts or takes back from a free list is not theirs: "
                 "free them with free() or a CP_DEALLOCATOR function",
             {FixItHint::CreateInsertion(At, "CP_ALLOCATOR ")});
    return true;
  }
  S.report(Diag::UnannotatedAllocator, E->getExprLoc(),
           Ptr + T->WideSpelling + "' is made from " + Why +
               ", which is not a compact allocation; allocate compact objects "
               "with malloc(sizeof(" +
               T->WideSpelling +
               ")), or move the pool into a function declared CP_ALLOCATOR",
           {R});
  return true;
}

/// G, or a function of this TU it calls (a few levels down), allocates
/// with libc: the name of that allocation function, or "".
static std::string libcAllocationIn(const FunctionDecl *G, unsigned Depth = 0) {
  const FunctionDecl *Def = G ? G->getDefinition() : nullptr;
  if (!Def || Depth > 4)
    return "";
  std::string Found;
  forEach(Def->getBody(), [&](const Stmt *St) {
    const auto *CE = dyn_cast<CallExpr>(St);
    if (!Found.empty() || !CE)
      return;
    switch (allocFunction(CE)) {
    case AllocFn::Malloc:
    case AllocFn::Calloc:
    case AllocFn::Realloc:
      Found = CE->getDirectCallee()->getNameAsString();
      return;
    case AllocFn::None:
      if (const FunctionDecl *F = CE->getDirectCallee(); F && F != Def)
        Found = libcAllocationIn(F, Depth + 1);
      return;
    default:
      return;
    }
  });
  return Found;
}

/// `*(void **)&v = x` (stb's stretchy buffers): the value stored into
/// `T **v` through a `void **`, or null.
static const Expr *storedThroughBytePointer(Session &S, const CastExpr *E) {
  const auto *UO = dyn_cast<UnaryOperator>(E->getSubExpr()->IgnoreParens());
  if (!UO || UO->getOpcode() != UO_AddrOf)
    return nullptr;
  QualType Slot = UO->getSubExpr()->getType();
  if (!Slot->isPointerType() || !S.M.pointeeOf(Slot->getPointeeType()) ||
      !E->getType()->isPointerType() ||
      !isBytePointer(E->getType()->getPointeeType()))
    return nullptr;
  // Up through parentheses to the dereference, then the assignment.
  DynTypedNode N = DynTypedNode::create(*static_cast<const Stmt *>(E));
  const Expr *Cur = E;
  for (unsigned Guard = 0; Guard < 8; ++Guard) {
    auto Ps = S.Ctx.getParents(N);
    if (Ps.empty())
      return nullptr;
    if (const auto *P = Ps[0].get<ParenExpr>()) {
      Cur = P;
      N = Ps[0];
      continue;
    }
    if (const auto *D = Ps[0].get<UnaryOperator>();
        D && D->getOpcode() == UO_Deref && Cur == D->getSubExpr()) {
      Cur = D;
      N = Ps[0];
      continue;
    }
    if (const auto *BO = Ps[0].get<BinaryOperator>();
        BO && BO->getOpcode() == BO_Assign && isa<UnaryOperator>(Cur) &&
        BO->getLHS()->IgnoreParens() == Cur)
      return BO->getRHS();
    return nullptr;
  }
  return nullptr;
}

bool checkRootArrayConversion(Session &S, const CastExpr *E) {
  if (!S.Opts.switchable() || E->getCastKind() != CK_BitCast)
    return false;
  const Expr *Value = E->getSubExpr();
  QualType To = E->getType();
  if (const Expr *Stored = storedThroughBytePointer(S, E)) {
    Value = Stored;
    To = E->getSubExpr()->IgnoreParens()->getType()->getPointeeType();
  }
  if (!To->isPointerType())
    return false;
  CompactType *T = S.M.pointeeOf(To->getPointeeType());
  if (!T)
    return false;
  const std::string Arr = "'" + T->WideSpelling + " **'";
  const std::string Fix =
      "keep them in a root array: malloc, calloc or realloc of n * sizeof(" +
      T->WideSpelling + " *) into " + Arr;
  auto R = CharSourceRange::getTokenRange(E->getSourceRange());
  // The stored value's own type, under the conversion to `void *`.
  QualType From = Value == E->getSubExpr()
                      ? Value->getType()
                      : Value->IgnoreParenImpCasts()->getType();
  if (!From->isPointerType())
    return false;
  QualType FromElem = From->getPointeeType();
  // A header's or another object's memory (`(struct node **)(t + 1)`, the
  // buckets after a table's header in one block): no root array starts
  // there.
  if (!isBytePointer(From) && !FromElem->isVoidType() &&
      (FromElem->isRecordType() || FromElem->isArithmeticType()) &&
      !S.M.recordOf(FromElem) && !S.M.pinnedOf(FromElem)) {
    S.report(Diag::RootArrayForm, E->getExprLoc(),
             "this conversion makes a '" + From.getAsString(S.policy()) +
                 "' a " + Arr +
                 ": compact pointers stored in that memory "
                 "are not in a root array, so the switch would not "
                 "translate them; " +
                 Fix,
             {R});
    return true;
  }
  if (!isBytePointer(From))
    return false;
  Tracer Tr(S);
  std::string Why = Tr.origin(Value, enclosingFunction(S.Ctx, E));
  const auto *CE = dyn_cast<CallExpr>(Value->IgnoreParenCasts());
  const FunctionDecl *G = CE ? CE->getDirectCallee() : Tr.Maker;
  if (G && (G->getBuiltinID() || isRuntimeFunction(G) ||
            hasAttribute(G, "allocator") ||
            (CE && allocFunction(CE) != AllocFn::None) ||
            S.SM.isInSystemHeader(S.SM.getExpansionLoc(G->getLocation()))))
    return false; // the runtime's, or libc's: bsearch into a root array
  // A resize through a `void *` of this function (`v = realloc(v,
  // bytes)`, v a `void *` copy of the array): cp_realloc_any keeps a root
  // array one.
  if (!Tr.Maker && Tr.Block == AllocFn::Realloc)
    return false;
  if (Why.empty() && G && G->getDefinition()) {
    std::string Lib = libcAllocationIn(G);
    if (!Lib.empty())
      Why = "'" + G->getNameAsString() + "' allocates it with '" + Lib +
            "' and hands out a pointer into the block";
  }
  if (!Why.empty()) {
    bool Wrapper =
        G && G->getDefinition() && Tr.Maker == G && Tr.Block != AllocFn::None;
    if (Wrapper) {
      const FunctionDecl *First = G->getFirstDecl();
      SourceLocation At = First->getOuterLocStart();
      bool Reported = S.report(
          Diag::UnannotatedAllocator, E->getExprLoc(),
          "the 'void *' returned by '" + G->getNameAsString() + "' becomes " +
              Arr + ", but it is not a root array: " + Why +
              "; the switch would not translate the compact pointers stored "
              "there; declare '" +
              G->getNameAsString() +
              "' CP_ALLOCATOR, and the plugin allocates root arrays through "
              "the runtime instead",
          {R});
      if (Reported && At.isFileID() && S.AllocatorFixIts.insert(First).second)
        S.note(At, "declare '" + G->getNameAsString() + "' CP_ALLOCATOR here",
               {FixItHint::CreateInsertion(At, "CP_ALLOCATOR ")});
      return true;
    }
    S.report(Diag::RootArrayForm, E->getExprLoc(),
             "this memory becomes " + Arr + ", but it is not a root array (" +
                 Why +
                 "): the switch would not translate the compact "
                 "pointers stored there; " +
                 Fix,
             {R});
    return true;
  }
  // Another file's function: it may allocate the array (the fix is
  // CP_ALLOCATOR), or hand out one the runtime allocated (a cast says so).
  if (G && !G->getDefinition() && !isa<ExplicitCastExpr>(E) &&
      Value == E->getSubExpr()) {
    S.report(Diag::ForeignObject, E->getExprLoc(),
             "the 'void *' returned by '" + G->getNameAsString() +
                 "' becomes " + Arr + "; if '" + G->getNameAsString() +
                 "' allocates that memory, it is not a root array and the "
                 "switch would not translate the compact pointers stored "
                 "there (declare '" +
                 G->getNameAsString() +
                 "' CP_ALLOCATOR, or cast the result if it points into a "
                 "root array)",
             {R});
    return true;
  }
  return false;
}

/// Steps whose result stays `void *` (uthash's HASH_ADD: `(add)->hh.prev =
/// ELMT_FROM_HH(tbl, tbl->tail)`) are no conversion checkPoolConversion
/// sees, yet after the switch they must read the offset in the wide layout
/// as much as a typed one: a file whose only steps were such (a file that
/// only adds) stepped by the compact offset and linked every element added
/// after the switch 8 bytes off.  So every byte-pointer step by a kept
/// offset whose values are measured here, or come from other files only,
/// has its reads printed in the layout of the moment.
void noteKeptOffsets(Session &S) {
  if (!S.Opts.compactBodies())
    return;
  // Whether each offset's values qualify, and the members it is measured
  // to: one walk of the unit per offset, not per step.
  llvm::DenseMap<const ValueDecl *, std::optional<std::vector<MeasuredMember>>>
      Kept;
  anyNodeInUnit(S.Ctx, [&](const Stmt *St) {
    const auto *BO = dyn_cast<BinaryOperator>(St);
    if (!BO || !BO->isAdditiveOp() || !isBytePointer(BO->getType()) ||
        BO->getRHS()->isIntegerConstantExpr(S.Ctx))
      return false;
    const ValueDecl *V = storage(BO->getRHS());
    if (!V)
      return false;
    auto [It, New] = Kept.try_emplace(V);
    if (New) {
      std::vector<MeasuredMember> Members;
      if (offsetMeasured(S, BO->getRHS(), Members)
              ? llvm::all_of(Members,
                             [](const MeasuredMember &X) { return X.F; })
              : neverWritten(S, BO->getRHS()))
        It->second = std::move(Members);
    }
    if (!It->second)
      return false;
    std::vector<MeasuredMember> Members = *It->second;
    addMembers(Members, stepMembers(S, BO, nullptr));
    if (!Members.empty())
      addMembers(S.M.MeasuredOffsets[V], Members);
    return false;
  });
}

} // namespace compactptr
