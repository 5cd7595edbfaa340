//===- Allocation.cpp - malloc, calloc, realloc and free of compact types ==//
//
// In:  a call to a libc allocation function (Vocabulary.def), or to a
//      program's own allocation function declared CP_ALLOCATOR /
//      CP_DEALLOCATOR (a pool: the size and counts as Allocators.cpp reads
//      them, the object freed the first pointer argument; the others are
//      still evaluated when they have side effects).
// Out: the typed runtime call: cp_alloc / cp_alloc_array /
//      cp_realloc_array / cp_free for compact objects (the size must be
//      sizeof(T) or n * sizeof(T), also through a size helper that
//      multiplies, productHelper: otherwise an error with a fix-it), and
//      cp_root_array_alloc / _realloc / _free for heap arrays of compact
//      pointers (root arrays), cp_pinned_alloc / _realloc / _free for
//      pinned objects (Pinned.cpp; the same rule for the size).  The type
//      comes from where the result goes (through casts), from realloc's
//      argument or from the size.
// Every form rewrites allocation, so these are Printer members shared by
// both printers.
// Tests: test/rewrite/malloc-forms.c, test/rewrite/root-array.c,
//        test/rewrite/knr-malloc.c, test/plugin/free-through-cast.c,
//        test/rewrite/pool-allocator.c, test/idioms/pools.test,
//        test/diagnostics/alloc-size-not-sizeof.c,
//        test/rewrite/size-helper.c.
//
//===----------------------------------------------------------------------===//
#include "Printer.h"
#include "clang/AST/ParentMapContext.h"
#include <functional>

using namespace clang;

namespace compactptr {

static const Expr *pastIntegerCasts(const Expr *E) {
  for (;;) {
    E = E->IgnoreParenImpCasts();
    const auto *C = dyn_cast<CStyleCastExpr>(E);
    if (!C || !C->getType()->isIntegerType())
      return E;
    E = C->getSubExpr();
  }
}

static const VarDecl *flexLocal(const Expr *E);

/// The record whose fixed part E's sum starts from, for a type with a
/// flexible array member: a term `sizeof(T)` (`sizeof *e`) or
/// `offsetof(T, member)` for its flexible array member, in a sum
/// (`sizeof *e + len + 1`), or a local holding such a size (flexLocal;
/// not followed when Follow is false: a local's initializer is read
/// once); else null.
static QualType flexBase(const Expr *E, bool Follow = true) {
  E = pastIntegerCasts(E);
  if (Follow)
    if (const VarDecl *VD = flexLocal(E))
      return flexBase(VD->getInit(), false);
  auto HasFlex = [](QualType T) {
    const auto *RT = T.isNull() ? nullptr : T->getAs<RecordType>();
    return RT && roomMember(RT->getDecl());
  };
  if (const auto *U = dyn_cast<UnaryExprOrTypeTraitExpr>(E))
    return U->getKind() == UETT_SizeOf && HasFlex(U->getTypeOfArgument())
               ? U->getTypeOfArgument()
               : QualType();
  if (const auto *O = dyn_cast<OffsetOfExpr>(E)) {
    QualType T = O->getTypeSourceInfo()->getType();
    if (!HasFlex(T) || O->getNumComponents() != 1 ||
        O->getComponent(0).getKind() != OffsetOfNode::Field)
      return QualType();
    const FieldDecl *F = O->getComponent(0).getField();
    return roomMember(F->getParent()) == F ? T : QualType();
  }
  if (const auto *B = dyn_cast<BinaryOperator>(E);
      B && B->getOpcode() == BO_Add) {
    QualType L = flexBase(B->getLHS(), Follow);
    return L.isNull() ? flexBase(B->getRHS(), Follow) : L;
  }
  if (const auto *C = dyn_cast<CallExpr>(E)) // st_add(sizeof *x, len)
    if (auto H = sumHelper(C->getDirectCallee());
        H && H->first < C->getNumArgs() && H->second < C->getNumArgs()) {
      QualType L = flexBase(C->getArg(H->first), Follow);
      return L.isNull() ? flexBase(C->getArg(H->second), Follow) : L;
    }
  return QualType();
}

/// VD is a local variable that only its initializer writes: no
/// assignment, increment or address taken in its function.
static bool writtenOnlyByInit(const VarDecl *VD) {
  const auto *FD = dyn_cast<FunctionDecl>(VD->getDeclContext());
  if (!FD || !FD->getBody() || !VD->getInit() || !VD->hasLocalStorage() ||
      VD->getType().isVolatileQualified())
    return false;
  auto Names = [VD](const Expr *X) {
    const auto *DR = dyn_cast<DeclRefExpr>(X->IgnoreParenImpCasts());
    return DR && DR->getDecl() == VD;
  };
  std::function<bool(const Stmt *)> Writes = [&](const Stmt *St) {
    if (!St)
      return false;
    if (const auto *BO = dyn_cast<BinaryOperator>(St);
        BO && BO->isAssignmentOp() && Names(BO->getLHS()))
      return true;
    if (const auto *UO = dyn_cast<UnaryOperator>(St);
        UO && (UO->isIncrementDecrementOp() || UO->getOpcode() == UO_AddrOf) &&
        Names(UO->getSubExpr()))
      return true;
    for (const Stmt *C : St->children())
      if (Writes(C))
        return true;
    return false;
  };
  return !Writes(FD->getBody());
}

/// E names a local that holds the size of one object with a flexible
/// array member (`size_t n = sizeof *e + len + 1;`), written only by its
/// initializer, which is such a size itself (not through another local).
/// A product in a local is not followed: its count would be evaluated
/// again at the call.
static bool isFlexLocal(const VarDecl *VD) {
  // The initializer first: the walk of the function's body is the cost.
  return VD->getType()->isIntegerType() && VD->hasLocalStorage() &&
         VD->getInit() && !flexBase(VD->getInit(), false).isNull() &&
         writtenOnlyByInit(VD);
}
static const VarDecl *flexLocal(const Expr *E) {
  const auto *DR = dyn_cast<DeclRefExpr>(pastIntegerCasts(E));
  const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
  return VD && isFlexLocal(VD) ? VD : nullptr;
}

/// E reads a flexLocal: its value may be the other layout's, if a switch
/// came after the local was set.
static bool readsFlexLocal(const Expr *E) {
  if (!E)
    return false;
  if (flexLocal(E))
    return true;
  for (const Stmt *C : E->children())
    if (const auto *CE = dyn_cast_or_null<Expr>(C); CE && readsFlexLocal(CE))
      return true;
  return false;
}

SizeShape sizeShape(const Expr *E) {
  SizeShape R;
  // Through casts to integer types: `(unsigned)(sizeof(T) * n)`.
  E = pastIntegerCasts(E);
  // The size of one object with a flexible array member held in a local
  // first (`size_t n = sizeof *e + len + 1; e = malloc(n);`), also in a
  // sum (`malloc(n + 1)`): a switch since may have left it the other
  // layout's, so its room is counted for either (cp_flex_count_any).
  if (flexLocal(E)) {
    R.Elem = flexBase(E);
    R.Ok = R.Flex = R.AnyLayout = true;
    R.Bytes = E;
    return R;
  }
  const auto *Call = dyn_cast<CallExpr>(E);
  if (const auto *B = dyn_cast<BinaryOperator>(E);
      (B && B->getOpcode() == BO_Add) ||
      (Call && sumHelper(Call->getDirectCallee()))) {
    // One object and the room for its flexible array member's elements.
    R.Elem = flexBase(E);
    R.Ok = R.Flex = !R.Elem.isNull();
    R.AnyLayout = R.Flex && readsFlexLocal(E);
    R.Bytes = E;
    return R;
  }
  if (const auto *U = dyn_cast<UnaryExprOrTypeTraitExpr>(E)) {
    if (U->getKind() == UETT_SizeOf) {
      R.Ok = true;
      R.Elem = U->getTypeOfArgument();
      // An object with a flexible array member always takes the room past
      // its member's offset (cp_flex_count), even with no elements.
      R.Flex = !flexBase(E).isNull();
      R.Bytes = E;
    }
    return R;
  }
  const Expr *LHS = nullptr, *RHS = nullptr;
  if (const auto *B = dyn_cast<BinaryOperator>(E);
      B && B->getOpcode() == BO_Mul) {
    LHS = B->getLHS();
    RHS = B->getRHS();
  } else if (const auto *C = dyn_cast<CallExpr>(E)) {
    // A size helper of the program's (git's st_mult): the product of two
    // of its arguments, when the others have no effect to keep.
    auto P = productHelper(C->getDirectCallee());
    if (!P || std::max(P->first, P->second) >= C->getNumArgs())
      return R;
    const ASTContext &Ctx = C->getDirectCallee()->getASTContext();
    for (unsigned I = 0; I < C->getNumArgs(); ++I)
      if (I != P->first && I != P->second && C->getArg(I)->HasSideEffects(Ctx))
        return R;
    LHS = C->getArg(P->first);
    RHS = C->getArg(P->second);
  } else {
    return R;
  }
  // The sizeof may be any factor: `n * sizeof(T)`, `sizeof(T *) * rows *
  // cols`, `rows * (cols * sizeof(T))`.
  SizeShape L = sizeShape(LHS), Rt = sizeShape(RHS);
  if (L.Flex || Rt.Flex) // several objects, each with room of its own?
    return R;
  if (L.Ok) {
    L.Counts.push_back(RHS);
    return L;
  }
  if (Rt.Ok) {
    Rt.Counts.insert(Rt.Counts.begin(), LHS);
    return Rt;
  }
  return R;
}

bool onlyFlexAllocationSize(ASTContext &Ctx, const VarDecl *VD) {
  if (!isFlexLocal(VD))
    return false;
  const auto *FD = cast<FunctionDecl>(VD->getDeclContext());
  bool Read = false, Other = false;
  std::function<void(const Stmt *)> Walk = [&](const Stmt *St) {
    if (!St || Other)
      return;
    if (const auto *DR = dyn_cast<DeclRefExpr>(St); DR && DR->getDecl() == VD) {
      Read = true;
      // Up through casts to integer types and sums (`malloc(n + 1)`).
      const Expr *Cur = DR;
      const Expr *P = parentSkippingParens(Ctx, Cur, &Cur);
      while (P && ((isa<CastExpr>(P) && P->getType()->isIntegerType()) ||
                   (isa<BinaryOperator>(P) &&
                    cast<BinaryOperator>(P)->getOpcode() == BO_Add)))
        P = parentSkippingParens(Ctx, Cur = P, &Cur);
      const auto *CE = dyn_cast_or_null<CallExpr>(P);
      SizeShape Sh = CE && allocFunction(CE) != AllocFn::None
                         ? allocSizeShape(CE)
                         : SizeShape();
      Other = !Sh.Flex || pastIntegerCasts(Sh.Bytes) != pastIntegerCasts(Cur);
      return;
    }
    for (const Stmt *C : St->children())
      Walk(C);
  };
  Walk(FD->getBody());
  return Read && !Other;
}

/// The pointer type the allocation result is converted to (through
/// parentheses and casts), or the call's own type.
static QualType destinationType(ASTContext &Ctx, const Expr *Call) {
  const Expr *Cur = Call;
  QualType T = Call->getType();
  while (const Expr *P = parentSkippingParens(Ctx, Cur, &Cur)) {
    const auto *C = dyn_cast<CastExpr>(P);
    if (!C || !C->getType()->isPointerType())
      return T;
    T = C->getType();
    Cur = P;
  }
  return T;
}

/// T without `_Atomic`: an atomic compact pointer's value type.
static QualType valueType(QualType T) {
  if (const auto *AT = T->getAs<AtomicType>())
    return AT->getValueType();
  return T;
}

/// A pointer to compact pointers: `struct node **`, or to constant arrays
/// of them, `struct node *(*)[2]` (a table of head/tail pairs).
static CompactType *rootPointee(const Model &M, QualType T) {
  if (!T->isPointerType())
    return nullptr;
  ArrayShape A = stripArrays(T->getPointeeType());
  return A.Variable ? nullptr : M.pointeeOf(valueType(A.Element));
}

/// The arguments of a free function that are compact pointers through
/// casts (or root arrays, pinned objects): the objects it may free.
static llvm::SmallVector<const Expr *, 2> compactArgs(const Model &M,
                                                      const CallExpr *CE) {
  llvm::SmallVector<const Expr *, 2> Out;
  for (const Expr *A : CE->arguments()) {
    QualType T = A->IgnoreParenCasts()->getType();
    if (M.pointeeOf(T) || rootPointee(M, T) || M.pinnedPointee(T))
      Out.push_back(A);
  }
  return Out;
}

/// The object a free function frees: free's argument, or the compact
/// argument of a CP_DEALLOCATOR function -- a pool's `pool_free(&pool,
/// obj)` hands the pool first; of two (a pool that is a compact struct
/// itself), the one its parameter takes untyped (`void *obj`), else
/// null (allocText refuses the call) -- else its first pointer argument;
/// else null.
static const Expr *freedArg(const Model &M, const CallExpr *CE) {
  llvm::SmallVector<const Expr *, 2> Cs = compactArgs(M, CE);
  if (Cs.size() == 1)
    return Cs.front();
  if (Cs.size() > 1) {
    const FunctionDecl *FD = CE->getDirectCallee();
    const Expr *Untyped = nullptr;
    for (unsigned I = 0; FD && I < CE->getNumArgs() && I < FD->getNumParams();
         ++I)
      if (llvm::is_contained(Cs, CE->getArg(I)) &&
          isBytePointer(FD->getParamDecl(I)->getType())) {
        if (Untyped)
          return nullptr;
        Untyped = CE->getArg(I);
      }
    return Untyped;
  }
  for (const Expr *A : CE->arguments())
    if (A->IgnoreParenCasts()->getType()->isPointerType() ||
        A->getType()->isPointerType())
      return A;
  return nullptr;
}

/// calloc's (N, Size), either way round: one of them sizeof(T).
/// E is the literal 1 (calloc(1, ...)).
static bool isOne(const Expr *E) {
  const auto *L = dyn_cast<IntegerLiteral>(E->IgnoreParenImpCasts());
  return L && L->getValue() == 1;
}

/// RD's flexible array member when its elements are compact pointers or
/// compact structs (their size differs between the layouts); else null.
static const FieldDecl *elementsMember(const Model &M, const RecordDecl *RD) {
  const FieldDecl *Last = roomMember(RD);
  if (!Last)
    return nullptr;
  QualType E = stripArrays(Last->getType()).Element;
  return M.pointeeOf(E) || M.recordOf(E) ? Last : nullptr;
}

static QualType elementType(const FieldDecl *FAM) {
  return FAM->getType()->castAsArrayTypeUnsafe()->getElementType();
}

/// E is the room of some elements of type Elem: `n * sizeof(Elem)` either
/// way round, `sizeof(Elem)`, `sizeof(Elem[n])`, or such a sizeof of an
/// expression (`sizeof n->forward[0]`).
static bool elementRoom(const Expr *E, QualType Elem) {
  E = pastIntegerCasts(E);
  if (const auto *B = dyn_cast<BinaryOperator>(E);
      B && B->getOpcode() == BO_Mul)
    return elementRoom(B->getLHS(), Elem) || elementRoom(B->getRHS(), Elem);
  const auto *U = dyn_cast<UnaryExprOrTypeTraitExpr>(E);
  if (!U || U->getKind() != UETT_SizeOf)
    return false;
  QualType T = U->getTypeOfArgument();
  if (const ArrayType *AT = T->getAsArrayTypeUnsafe())
    T = AT->getElementType();
  // Compact pointers are counted in native pointers: any object pointer's
  // size is theirs (`sizeof(void *)`).
  if (Elem->isPointerType())
    return T->isPointerType() && !T->isFunctionPointerType();
  return T.getCanonicalType().getUnqualifiedType() ==
         Elem.getCanonicalType().getUnqualifiedType();
}

/// Bytes, the size of one object with a flexible array member of compact
/// pointers or structs, is its fixed part (`sizeof(T)`, `sizeof *n`,
/// `offsetof(T, member)`) alone or plus the room of elements of type Elem,
/// also through a local holding such a size.
static bool onlyElementRoom(const Expr *Bytes, QualType Elem) {
  const Expr *E = pastIntegerCasts(Bytes);
  if (const VarDecl *VD = flexLocal(E))
    E = pastIntegerCasts(VD->getInit());
  auto Base = [](const Expr *X) {
    X = pastIntegerCasts(X);
    return (isa<UnaryExprOrTypeTraitExpr>(X) || isa<OffsetOfExpr>(X)) &&
           !flexBase(X, false).isNull();
  };
  if (Base(E))
    return true;
  const auto *B = dyn_cast<BinaryOperator>(E);
  return B && B->getOpcode() == BO_Add &&
         ((Base(B->getLHS()) && elementRoom(B->getRHS(), Elem)) ||
          (Base(B->getRHS()) && elementRoom(B->getLHS(), Elem)));
}

/// RD ends in a byte array of one element or none (`char name[1];`, the
/// struct hack of older C, which the plugin cannot tell from a field of
/// one byte): the advice to declare it flexible; else "".
static std::string charHackAdvice(const RecordDecl *RD) {
  const FieldDecl *Last = nullptr;
  for (const FieldDecl *F : RD->fields())
    Last = F;
  const ConstantArrayType *AT =
      Last ? RD->getASTContext().getAsConstantArrayType(Last->getType())
           : nullptr;
  if (!AT || AT->getSize().ugt(1) || !AT->getElementType()->isCharType())
    return "";
  return "; to allocate room past its last member, declare it as a flexible "
         "array member (" +
         AT->getElementType().getAsString() + " " + Last->getName().str() +
         "[];)" +
         (AT->getSize().isZero() ? std::string()
                                 : ", and count in the size the byte that "
                                   "sizeof counted");
}

/// How a message names RD's room member: a one-element or empty last
/// member is taken for the struct hack's room (roomMember).
static std::string roomText(const FieldDecl *FD) {
  if (FD->getType()->isIncompleteArrayType())
    return "flexible array member";
  return "last member '" + FD->getName().str() +
         "', taken for a flexible "
         "array member as in the struct hack";
}

static SizeShape countAndSize(const Expr *N, const Expr *Size) {
  // One object with a flexible array member: calloc(1, sizeof *e + n).
  SizeShape A = sizeShape(Size);
  if (A.Flex)
    return isOne(N) ? A : SizeShape();
  if (A.Ok) {
    A.Counts.insert(A.Counts.begin(), N);
    return A;
  }
  SizeShape B = sizeShape(N);
  if (B.Flex)
    return isOne(Size) ? B : SizeShape();
  if (B.Ok)
    B.Counts.push_back(Size);
  return B;
}

SizeShape allocSizeShape(const CallExpr *CE) {
  switch (allocFunction(CE)) {
  case AllocFn::Allocator: {
    const Expr *A = allocatorSizeArg(CE);
    SizeShape Sh = A ? sizeShape(A) : SizeShape();
    if (Sh.Ok)
      for (const Expr *N : allocatorCall(CE).Counts)
        Sh.Counts.push_back(N);
    // One object with a flexible array member is one: a count beside it
    // (xcalloc(n, sizeof *e + k)) would be several, but for a 1.
    if (Sh.Flex) {
      for (const Expr *N : Sh.Counts)
        if (!isOne(N))
          return SizeShape();
      Sh.Counts.clear();
    }
    return Sh;
  }
  case AllocFn::Malloc:
    return sizeShape(CE->getArg(0));
  case AllocFn::Realloc:
    // reallocarray(p, n, size): the count and size as calloc takes them.
    return CE->getNumArgs() == 3 ? countAndSize(CE->getArg(1), CE->getArg(2))
                                 : sizeShape(CE->getArg(1));
  case AllocFn::Calloc:
    return countAndSize(CE->getArg(0), CE->getArg(1));
  default:
    return SizeShape();
  }
}

/// allocSizeShape, and for a pool of objects of one size that takes none
/// (`pool_alloc(&pool)`) one object of the type the file hands the pool
/// the sizeof of.
static SizeShape allocOrPoolShape(const Model &M, const CallExpr *CE) {
  SizeShape Sh = allocSizeShape(CE);
  if (!Sh.Ok && allocFunction(CE) == AllocFn::Allocator)
    if (QualType PT = poolElementType(M, CE); !PT.isNull()) {
      Sh.Ok = true;
      Sh.Elem = PT;
    }
  return Sh;
}

/// The block a call resizes: realloc's first argument, or the one a
/// CP_ALLOCATOR realloc wrapper hands to realloc (Allocators.cpp); null
/// for an allocation.
static const Expr *resizedBlock(const CallExpr *CE, AllocFn F) {
  if (F == AllocFn::Realloc)
    return CE->getArg(0);
  if (F == AllocFn::Allocator)
    return allocatorCall(CE).Block;
  return nullptr;
}

bool resizesBlock(const CallExpr *CE) {
  return resizedBlock(CE, allocFunction(CE)) != nullptr;
}

AllocTarget allocTarget(const Session &S, const CallExpr *CE) {
  const Model &M = S.M;
  AllocFn F = allocFunction(CE);
  auto of = [&](QualType T) {
    return M.pointeeOf(T)       ? AllocTarget::Object
           : rootPointee(M, T)  ? AllocTarget::RootArray
           : M.pinnedPointee(T) ? AllocTarget::Pinned
                                : AllocTarget::None;
  };
  switch (F) {
  case AllocFn::Free:
  case AllocFn::Deallocator: {
    // Through casts: free((void *)p) frees a compact object too.  Several
    // compact pointers, none said to be the object: refused (allocText).
    const Expr *P = freedArg(M, CE);
    if (!P && compactArgs(M, CE).size() > 1)
      return AllocTarget::Object;
    return P ? of(P->IgnoreParenCasts()->getType()) : AllocTarget::None;
  }
  case AllocFn::Malloc:
  case AllocFn::Calloc:
  case AllocFn::Realloc:
  case AllocFn::Allocator: {
    if (AllocTarget T = of(destinationType(S.Ctx, CE)); T != AllocTarget::None)
      return T;
    if (const Expr *B = resizedBlock(CE, F))
      if (AllocTarget T = of(B->IgnoreParenImpCasts()->getType());
          T != AllocTarget::None)
        return T;
    SizeShape Sh = allocOrPoolShape(M, CE); // `void *v = pool_alloc(&pool)`
    if (!Sh.Ok)
      return AllocTarget::None;
    if (M.recordOf(Sh.Elem))
      return AllocTarget::Object;
    if (M.pinnedOf(Sh.Elem))
      return AllocTarget::Pinned;
    return of(S.Ctx.getPointerType(Sh.Elem));
  }
  case AllocFn::None:
    return AllocTarget::None;
  }
  return AllocTarget::None;
}

bool allocatesObject(const Session &S, const CallExpr *CE) {
  AllocFn F = allocFunction(CE);
  return F != AllocFn::None && F != AllocFn::Free && F != AllocFn::Deallocator &&
         allocTarget(S, CE) == AllocTarget::Object;
}

const CompactType *allocatedType(const Session &S, const CallExpr *CE) {
  if (!allocatesObject(S, CE))
    return nullptr;
  SizeShape Sh = allocOrPoolShape(S.M, CE);
  return Sh.Ok ? S.M.recordOf(Sh.Elem) : nullptr;
}

/// The call allocates or frees compact objects or root arrays.
bool Printer::allocShape(const CallExpr *CE) {
  return allocTarget(S, CE) != AllocTarget::None;
}

/// `(void)(a), ` for each argument of CE other than Keep that has side
/// effects: a call routed to the runtime still evaluates them.
std::string Printer::otherArgs(const CallExpr *CE,
                               llvm::ArrayRef<const Expr *> Keep) {
  std::string Out;
  for (const Expr *A : CE->arguments())
    if (!llvm::is_contained(Keep, A) && A->HasSideEffects(S.Ctx))
      Out += "(void)(" + text(A) + "), ";
  return Out;
}

std::string Printer::countText(const SizeShape &Sh, const CallExpr *CE) {
  // The size as written, in the layout of the moment, made a count of
  // objects' room for both layouts (the switch moves the member whole).
  if (Sh.Flex)
    if (CompactType *T = M.recordOf(Sh.Elem))
      return std::string(Sh.AnyLayout ? "cp_flex_count_any(&"
                                      : "cp_flex_count(&") +
             T->DescName + ", (unsigned long)(" + text(Sh.Bytes) + "))";
  if (Sh.Counts.empty())
    return "1";
  // Several factors multiply with an overflow check (calloc checks its
  // own product; a wrapped count would allocate too little).
  std::string Out = "(unsigned long)(" + text(Sh.Counts[0]) + ")";
  for (size_t I = 1; I < Sh.Counts.size(); ++I)
    Out = "cp__count_mul(" + Out + ", (unsigned long)(" + text(Sh.Counts[I]) +
          "))";
  return Out;
}
/// The fix-it for an allocation size not written through sizeof: `16` or
/// `sizeof(long[2])` where the element is 16 bytes becomes `sizeof(T)`,
/// `48` becomes `3 * sizeof(T)`, `n * 16` becomes `n * sizeof(T)`; a
/// constant that is no multiple of the element size gets none.
void Printer::sizeFix(const Expr *Size, const std::string &SizeofT,
                      int64_t Elem, std::vector<FixItHint> &Fix) {
  const Expr *X = Size->IgnoreParenImpCasts();
  auto replace = [&](const Expr *E, std::string T) {
    CharSourceRange R = fileRange(E);
    if (R.isValid())
      Fix.push_back(FixItHint::CreateReplacement(R, T));
  };
  if (Elem <= 0)
    return;
  if (auto V = X->getIntegerConstantExpr(S.Ctx)) {
    int64_t C = V->getExtValue();
    if (C > 0 && C % Elem == 0)
      return replace(X, C == Elem ? SizeofT : std::to_string(C / Elem) + " * " + SizeofT);
    if (isa<UnaryExprOrTypeTraitExpr>(X)) // sizeof of another type
      replace(X, SizeofT);
    return;
  }
  if (const auto *B = dyn_cast<BinaryOperator>(X); B && B->getOpcode() == BO_Mul)
    for (const Expr *Side : {B->getRHS(), B->getLHS()})
      if (auto V = Side->getIntegerConstantExpr(S.Ctx); V && V->getExtValue() == Elem)
        return replace(Side, SizeofT);
}

/// For a size the program reads at run time (GObject's and CPython's
/// `calloc(1, klass->instance_size)`): it says nothing of which compact
/// type is made, whose size differs between the layouts.
std::string Printer::runtimeSizeAdvice(const Expr *Size) const {
  bool Measured = anyNode(Size, [](const Stmt *St) {
    return isa<UnaryExprOrTypeTraitExpr>(St) || isa<OffsetOfExpr>(St);
  });
  if (Measured || Size->isIntegerConstantExpr(S.Ctx))
    return "";
  return "; a size read at run time (a class's recorded instance size) "
         "does not say which type it makes, and the layouts differ: "
         "allocate each type where it is known, with sizeof of its own (a "
         "constructor per class)";
}

/// Why such a pool's call is no allocation of one object here, and what
/// makes it one (poolElementType).
static std::string sizelessPoolAdvice(const CallExpr *CE,
                                      const std::string &W) {
  std::string Fn = "'" + CE->getDirectCallee()->getNameAsString() + "'";
  std::string Sizeof = "sizeof(" + W + ")";
  return "; " + Fn + " takes no size, and a pool of objects of one size " +
         "allocates one '" + W + "' a call only where this file hands the " +
         "same pool (the variable or field named here) " + Sizeof +
         " and no other type's size, as its set-up does (`pool_init(&pool, " +
         Sizeof + ", 64)`): do that here, or pass the size to each call";
}

std::string Printer::allocText(const CallExpr *CE, const Spill *Sp) {
  AllocFn F = allocFunction(CE);
  if (F == AllocFn::Free || F == AllocFn::Deallocator) {
    const Expr *A = freedArg(M, CE);
    if (!A) {
      fail(CE,
           "'" + CE->getDirectCallee()->getNameAsString() +
               "' is declared CP_DEALLOCATOR and is handed several compact "
               "pointers: which one it frees is not said (the runtime frees "
               "one); take the object as 'void *', or hand it the object as "
               "its only compact pointer",
           Diag::AllocSize);
      return "";
    }
    QualType AT = A->IgnoreParenCasts()->getType();
    std::string Pre = F == AllocFn::Deallocator ? otherArgs(CE, A) : "";
    if (M.HandleRootFrees.count(CE)) // a root array of handles: a block of libc's
      return "free(" + text(A) + ")";
    // In wide mode an object from the program's own pool (accepted there,
    // section 4e of docs/plugin.md) is a block of libc's: cp_free_any
    // hands it to libc, and still checks the runtime's own objects.
    std::string Free = S.Opts.compactBodies() ? "cp_free(" : "cp_free_any(";
    std::string Call = M.pointeeOf(AT) ? Free + text(A) + ")"
                       : M.pinnedPointee(AT)
                           ? "cp_pinned_free(" + text(A) + ")"
                           : "cp_root_array_free((void **)(" + text(A) + "))";
    return Pre.empty() ? Call : "(" + Pre + Call + ")";
  }
  if (F == AllocFn::Allocator) {
    AllocatorCall AC = allocatorCall(CE);
    if (!AC.Problem.empty()) {
      fail(CE,
           "this call of a CP_ALLOCATOR function cannot go to the "
           "runtime: " +
               AC.Problem,
           Diag::AllocSize);
      return "";
    }
    // The pool's own call goes away; its other arguments still run (the
    // size and the counts once, in the runtime's call).
    std::vector<const Expr *> Keep = AC.Counts;
    // (A pool that takes no size: its arguments are no size, and run.)
    if (const Expr *Size = allocatorSizeArg(CE); Size && sizeShape(Size).Ok)
      Keep.push_back(Size);
    Keep.push_back(AC.Block);
    std::string Pre = otherArgs(CE, Keep);
    if (!Pre.empty()) {
      std::string Call = allocCall(CE, F, Sp);
      return Call.empty() ? "" : "(" + Pre + Call + ")";
    }
  }
  return allocCall(CE, F, Sp);
}

std::string Printer::allocCall(const CallExpr *CE, AllocFn F, const Spill *Sp) {
  QualType D = destinationType(S.Ctx, CE);
  SizeShape Sh = allocOrPoolShape(M, CE);
  CompactType *DT = M.pointeeOf(D), *DR = rootPointee(M, D);
  const Expr *Block = resizedBlock(CE, F);
  if (Block && !DT && !DR) {
    QualType A = Block->IgnoreParenImpCasts()->getType();
    DT = M.pointeeOf(A);
    DR = rootPointee(M, A);
  }
  CompactType *ST = Sh.Ok ? M.recordOf(Sh.Elem) : nullptr;
  // A root array's element may be an array of compact pointers itself
  // (`calloc(n, sizeof *b)` into a `struct node *(*b)[2]`): PerElem
  // pointers each.
  ArrayShape RE = Sh.Ok ? stripArrays(Sh.Elem) : ArrayShape();
  // (`_Atomic(struct node *)` elements too: a table of atomic links.)
  CompactType *SR =
      Sh.Ok && !RE.Variable && valueType(RE.Element)->isPointerType()
          ? M.pointeeOf(valueType(RE.Element))
          : nullptr;
  uint64_t PerElem = RE.Count;
  const Expr *SizeArg = F == AllocFn::Allocator ? allocatorSizeArg(CE)
                                                 : CE->getArg(F == AllocFn::Realloc ? 1 : 0);
  if (!Sh.Ok && (F == AllocFn::Calloc || F == AllocFn::Realloc))
    SizeArg = CE->getArg(CE->getNumArgs() - 1); // calloc's, reallocarray's size
  if (SizeArg && allocTarget(S, CE) == AllocTarget::Pinned)
    return pinnedCall(CE, F, Sh, SizeArg);
  if (!SizeArg) {
    fail(CE, "'" + CE->getDirectCallee()->getNameAsString() +
                 "' is declared CP_ALLOCATOR but takes no size: an allocator "
                 "for compact objects takes sizeof(T) or n * sizeof(T)",
         Diag::AllocSize);
    return "";
  }

  // An object with a flexible array member is one, whatever its room: an
  // array of them would put objects where the switch copies bytes.
  CompactType *FT = ST ? ST : DT;
  bool FlexType = FT && roomMember(FT->RD);
  if ((DT && !ST) || (FlexType && !Sh.Flex && !Sh.Counts.empty())) {
    std::vector<FixItHint> Fix;
    if (!SR && !FlexType && charHackAdvice(FT->RD).empty())
      sizeFix(
          SizeArg, "sizeof(" + FT->WideSpelling + ")",
          S.Ctx.getTypeSizeInChars(S.Ctx.getRecordType(FT->RD)).getQuantity(),
          Fix);
    const std::string &W = FT->WideSpelling;
    S.report(Diag::AllocSize, SizeArg->getExprLoc(),
             "allocation of compact type '" + W +
                 "' must have its size expressed as " +
                 (FlexType ? "sizeof(" + W +
                                 ") + n (one object and the room for its " +
                                 roomText(roomMember(FT->RD)) +
                                 ", also calloc(1, ...); an array of such "
                                 "objects is not supported)"
                           : "sizeof(" + W + ") or n * sizeof(" + W + ")" +
                                 charHackAdvice(FT->RD) +
                                 (F == AllocFn::Allocator &&
                                          takesNoSize(CE->getDirectCallee())
                                      ? sizelessPoolAdvice(CE, W)
                                      : runtimeSizeAdvice(SizeArg))),
             {CharSourceRange::getTokenRange(SizeArg->getSourceRange())}, Fix);
    return "";
  }
  if (const FieldDecl *FAM =
          FlexType && Sh.Flex ? elementsMember(M, FT->RD) : nullptr;
      FAM && !onlyElementRoom(Sh.Bytes, elementType(FAM))) {
    const std::string &W = FT->WideSpelling;
    std::string E = ty(elementType(FAM));
    S.report(Diag::AllocSize, SizeArg->getExprLoc(),
             "allocation of compact type '" + W +
                 "' must have its size expressed as sizeof(" + W +
                 ") + n * sizeof(" + E + "): its flexible array member '" +
                 FAM->getName().str() + "' holds " +
                 (M.pointeeOf(elementType(FAM)) ? "compact pointers"
                                                : "compact structs") +
                 ", whose size differs between the layouts, so its room "
                 "counts its elements and nothing else (keep other data in "
                 "an object of its own)",
             {CharSourceRange::getTokenRange(SizeArg->getSourceRange())});
    return "";
  }
  // `(struct obj *)malloc(sizeof(struct num))`, num beginning with an obj
  // (CPython's objects, a header struct first): the object allocated is
  // the num, and the pointer names its header, at offset 0 in both
  // layouts.  A realloc may not change the object's type.
  if (DT && ST && DT != ST && (Block || !beginsWith(M, ST, DT))) {
    fail(CE,
         "allocation of '" + ST->WideSpelling + "' is converted to '" + ty(D) +
             "', " +
             (Block ? "a resize that would change the object's type "
                      "(allocate a new '" +
                          ST->WideSpelling + "' and copy into it)"
                    : "which '" + ST->WideSpelling +
                          "' does not begin with: allocate the type the "
                          "pointer names, or convert to a pointer to the "
                          "struct the allocated one begins with (its "
                          "first member)"),
         Diag::IncompatibleCast);
    return "";
  }
  if (DR && !SR) {
    std::vector<FixItHint> Fix;
    sizeFix(SizeArg, "sizeof(" + DR->WideSpelling + " *)",
            S.Ctx.getTypeSizeInChars(S.Ctx.VoidPtrTy).getQuantity(), Fix);
    S.report(Diag::AllocSize, SizeArg->getExprLoc(),
            "allocation of an array of compact pointers must have its size "
            "expressed as n * sizeof(" + DR->WideSpelling + " *)",
            {CharSourceRange::getTokenRange(SizeArg->getSourceRange())}, Fix);
    return "";
  }
  if (ST) {
    // Switchable: an allocation site is a safepoint (the entries run a
    // pending switch first, and switch rather than exhaust the arena).
    // (A pool's call names its type from elsewhere in the file: it may lie
    // in a helper defined before the type, `return pool_alloc(p);`.)
    std::string Desc = S.descRef(*ST, enclosingFunction(S.Ctx, CE));
    std::string SP = S.Opts.switchable() ? "_safepoint(" : "(";
    if (Block) {
      std::string T = "cp_realloc_array" + SP + Desc + ", " + text(Block) +
                      ", " + countText(Sh, CE) + ")";
      if (!Sp)
        return T;
      std::string R = "cp__r" + std::to_string(Sp->Id);
      return "__extension__({ void *" + R + "; { " + Sp->block() + " " + R + " = " + T +
             "; " + Sp->Restore + " } " + R + "; })";
    }
    // Roots are saved only on the slow path: a pending switch, or an
    // arena that cannot serve the allocation.
    std::string A = Sp ? "cp__a" + std::to_string(Sp->Id) : "";
    if (Sh.Counts.empty() && !Sh.Flex) {
      if (!Sp)
        return "cp_alloc" + SP + Desc + ")";
      return "__extension__({ void *" + A + " = cp__alloc_fast(" + Desc +
             "); if (__builtin_expect(!" + A + ", 0)) { " + Sp->block() + " " + A +
             " = " + Sp->slow("0", Desc, "0", "cp__alloc_slow(" + Desc + ")") + "; " +
             Sp->Restore + Sp->transfer(A) + " } " + A + "; })";
    }
    if (!Sp)
      return "cp_alloc_array" + SP + Desc + ", " + countText(Sh, CE) + ")";
    std::string N = "cp__n" + std::to_string(Sp->Id);
    return "__extension__({ unsigned long " + N + " = " + countText(Sh, CE) +
           "; void *" + A + " = cp__alloc_array_fast(" + Desc + ", " + N +
           "); if (__builtin_expect(!" + A + ", 0)) { " + Sp->block() + " " + A +
           " = " + Sp->slow("1", Desc, N, "cp__alloc_array_slow(" + Desc + ", " + N + ")") +
           "; " + Sp->Restore + Sp->transfer(A) + " } " + A + "; })";
  }
  if (SR && M.HandleRootAllocs.count(CE)) {
    // A root array that holds handles (HandleRoots.cpp): a block of libc's.
    if (F == AllocFn::Calloc)
      return "((void *)calloc(" + countText(Sh, CE) + ", sizeof(cp_handle_t)))";
    return "((void *)malloc(" + countText(Sh, CE) + " * sizeof(cp_handle_t)))";
  }
  if (SR) {
    std::string N = countText(Sh, CE);
    if (PerElem != 1)
      N += " * " + std::to_string(PerElem);
    if (Block)
      return "((void *)cp_root_array_realloc((void **)(" + text(Block) + "), " +
             N + "))";
    return "((void *)cp_root_array_alloc(" + N + "))";
  }
  return splice(CE);
}

/// Pinned objects: cp_pinned_alloc(&desc, n) for malloc and calloc,
/// cp_pinned_realloc(&desc, p, n) for realloc; n from a size that counts
/// objects, else the alloc-size error (the runtime counts whole objects).
std::string Printer::pinnedCall(const CallExpr *CE, AllocFn F,
                                const SizeShape &Sh, const Expr *SizeArg) {
  QualType D = destinationType(S.Ctx, CE);
  CompactType *DP = M.pinnedPointee(D);
  const Expr *Block = resizedBlock(CE, F);
  if (!DP && Block)
    DP = M.pinnedPointee(Block->IgnoreParenImpCasts()->getType());
  // (A pinned object is one of a fixed size: no flexible array member.)
  CompactType *SP = Sh.Ok && !Sh.Flex ? M.pinnedOf(Sh.Elem) : nullptr;
  if (!SP || (DP && DP != SP)) {
    CompactType *T = DP ? DP : SP;
    std::vector<FixItHint> Fix;
    sizeFix(SizeArg, "sizeof(" + T->WideSpelling + ")",
            S.Ctx.getTypeSizeInChars(S.Ctx.getRecordType(T->RD)).getQuantity(),
            Fix);
    S.report(Diag::AllocSize, SizeArg->getExprLoc(),
             "allocation of " + quoted(T->WideSpelling) +
                 " (pinned: it holds a '" + T->Sync +
                 "' and compact pointers, and stays in place at the "
                 "switch) must have its size expressed as sizeof(" +
                 T->WideSpelling + ") or n * sizeof(" + T->WideSpelling + ")",
             {CharSourceRange::getTokenRange(SizeArg->getSourceRange())}, Fix);
    return "";
  }
  std::string Desc = S.descRef(*SP, enclosingFunction(S.Ctx, CE));
  if (Block)
    return "cp_pinned_realloc(" + Desc + ", " + text(Block) + ", " +
           countText(Sh, CE) + ")";
  return "cp_pinned_alloc(" + Desc + ", " + countText(Sh, CE) + ")";
}

} // namespace compactptr
