//===- Allocators.cpp - calls of a program's own CP_ALLOCATOR functions ===//
//
// In:  a call of a function declared CP_ALLOCATOR whose result the rewrite
//      routes to the runtime (Allocation.cpp).
// Out: which argument is the size (sizeof(T) or n * sizeof(T)), which
//      others count objects, and whether the runtime can take the call
//      over at all.  The function says so through its alloc_size
//      attribute, or through its body in this translation unit (read for
//      parameters that multiply a size or reach calloc's count, and for one
//      that reaches realloc's block: the call is then the runtime's realloc
//      of that argument); with neither, an argument that may be a count or
//      a block makes the call ambiguous, and it is refused rather than
//      allocated as one object.
// Tests: test/rewrite/allocator-counts.c, test/diagnostics/allocator-call.c,
//        test/rewrite/pool-allocator.c.
//
//===----------------------------------------------------------------------===//
#include "Printer.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallBitVector.h"
#include <optional>

using namespace clang;

namespace compactptr {

/// The argument a CP_ALLOCATOR function's size is in: the first one shaped
/// sizeof(T) or n * sizeof(T), else the first one (for the error); null if
/// it takes none.
const Expr *allocatorSizeArg(const CallExpr *CE) {
  for (const Expr *A : CE->arguments())
    if (sizeShape(A).Ok)
      return A;
  return CE->getNumArgs() ? CE->getArg(0) : nullptr;
}

/// What a CP_ALLOCATOR function does with its parameters, read from its
/// body: which ones multiply a size or go where calloc and reallocarray
/// take a count (Count), which reach realloc's block argument (Block), and
/// which reach it through a dereference (BlockRef: `*pp = realloc(*pp,
/// n)`, a block resized in place of the caller's variable), and which are
/// freed or copied from (Copied: a resize made by hand with malloc, memcpy
/// and free).
/// Followed through calls to functions with a body in this translation
/// unit (a wrapper of a wrapper) and through their alloc_size attributes,
/// a few levels deep.
struct ParamRoles {
  llvm::SmallBitVector Count, Block, BlockRef, Copied;
};

static ParamRoles paramRoles(const FunctionDecl *FD, unsigned Depth);

/// The parameters of FD whose values locals of its body hold: `void *old
/// = p;`, `n2 = n + 1;` (the first pass of RoleFinder).
class AliasFinder : public RecursiveASTVisitor<AliasFinder> {
public:
  explicit AliasFinder(const FunctionDecl *FD) : FD(FD) {}
  llvm::DenseMap<const VarDecl *, llvm::SmallBitVector> Alias;

  bool VisitVarDecl(VarDecl *V) {
    if (!isa<ParmVarDecl>(V) && V->getInit())
      flowInto(V, V->getInit());
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator *B) {
    if (B->getOpcode() == BO_Assign)
      if (const auto *DR = dyn_cast<DeclRefExpr>(B->getLHS()->IgnoreParens()))
        if (const auto *V = dyn_cast<VarDecl>(DR->getDecl());
            V && !isa<ParmVarDecl>(V))
          flowInto(V, B->getRHS());
    return true;
  }
  /// The parameters E's value may come from: every one it names, directly
  /// or through a local (Whole: anywhere inside; else only as its value,
  /// through casts, `?:` and commas, never as the base of a member or an
  /// operand of arithmetic).
  void paramsIn(const Expr *E, bool Whole, llvm::SmallBitVector &Out) const {
    if (!E)
      return;
    E = E->IgnoreParenCasts();
    if (const auto *DR = dyn_cast<DeclRefExpr>(E)) {
      if (const auto *P = dyn_cast<ParmVarDecl>(DR->getDecl())) {
        if (P->getDeclContext() == FD &&
            P->getFunctionScopeIndex() < Out.size())
          Out.set(P->getFunctionScopeIndex());
      } else if (const auto *V = dyn_cast<VarDecl>(DR->getDecl())) {
        auto It = Alias.find(V);
        if (It != Alias.end())
          Out |= It->second;
      }
      return;
    }
    if (const auto *C = dyn_cast<AbstractConditionalOperator>(E)) {
      paramsIn(C->getTrueExpr(), Whole, Out);
      paramsIn(C->getFalseExpr(), Whole, Out);
      return;
    }
    if (const auto *B = dyn_cast<BinaryOperator>(E);
        B && B->getOpcode() == BO_Comma) {
      paramsIn(B->getRHS(), Whole, Out);
      return;
    }
    if (Whole)
      for (const Stmt *Child : E->children())
        if (const auto *CE = dyn_cast_or_null<Expr>(Child))
          paramsIn(CE, Whole, Out);
  }

private:
  const FunctionDecl *FD;
  void flowInto(const VarDecl *V, const Expr *E) {
    llvm::SmallBitVector &Bits = Alias[V];
    Bits.resize(FD->getNumParams());
    paramsIn(E, /*Whole=*/true, Bits);
  }
};

class RoleFinder : public RecursiveASTVisitor<RoleFinder> {
public:
  RoleFinder(const FunctionDecl *FD, unsigned Depth, const AliasFinder &A)
      : FD(FD), Depth(Depth), A(A) {
    R.Count.resize(FD->getNumParams());
    R.Block.resize(FD->getNumParams());
    R.BlockRef.resize(FD->getNumParams());
    R.Copied.resize(FD->getNumParams());
  }
  ParamRoles R;

  bool VisitBinaryOperator(BinaryOperator *B) {
    if (B->getOpcode() == BO_Mul || B->getOpcode() == BO_MulAssign)
      for (const Expr *Side : {B->getLHS(), B->getRHS()})
        count(Side);
    return true;
  }
  bool VisitCallExpr(CallExpr *C) {
    const FunctionDecl *Callee = C->getDirectCallee();
    if (!Callee)
      return true;
    AllocFn F = allocFunction(C);
    if (F == AllocFn::Calloc) {
      for (const Expr *Arg : C->arguments())
        count(Arg);
      return true;
    }
    if (F == AllocFn::Free ||
        (byteCopyFunction(Callee, nullptr).size() && C->getNumArgs() > 1)) {
      mark(R.Copied, C->getArg(F == AllocFn::Free ? 0 : 1), false, true);
      return true;
    }
    if (F == AllocFn::Realloc) {
      block(C->getArg(0));
      for (unsigned I = 1; C->getNumArgs() == 3 && I < 3; ++I)
        count(C->getArg(I));
      return true;
    }
    if (const auto *AS = Callee->getAttr<AllocSizeAttr>()) {
      if (AS->getNumElemsParam().isValid()) {
        count(argAt(C, AS->getElemSizeParam().getASTIndex()));
        count(argAt(C, AS->getNumElemsParam().getASTIndex()));
      }
      return true;
    }
    const FunctionDecl *Def = Callee->getDefinition();
    if (!Def || !Def->getBody() || Def == FD || Depth == 0)
      return true;
    ParamRoles Inner = paramRoles(Def, Depth - 1);
    for (unsigned I = 0; I < C->getNumArgs() && I < Def->getNumParams(); ++I) {
      if (Inner.Count.test(I))
        count(C->getArg(I));
      if (Inner.Copied.test(I))
        mark(R.Copied, C->getArg(I), false, true);
      if (Inner.BlockRef.test(I))
        mark(R.BlockRef, C->getArg(I), false, true);
      if (Inner.Block.test(I))
        block(C->getArg(I));
    }
    return true;
  }

private:
  const FunctionDecl *FD;
  unsigned Depth;
  const AliasFinder &A;

  static const Expr *argAt(const CallExpr *C, unsigned I) {
    return I < C->getNumArgs() ? C->getArg(I) : nullptr;
  }
  /// Integer parameters anywhere in E count; pointer parameters that are
  /// E's value are the block.
  void count(const Expr *E) { mark(R.Count, E, true, false); }
  void block(const Expr *E) {
    mark(R.Block, E, false, true);
    // `*pp`, `pp[0]`: the block is in the caller's variable pp points to.
    const Expr *X = E->IgnoreParenCasts();
    if (const auto *UO = dyn_cast<UnaryOperator>(X);
        UO && UO->getOpcode() == UO_Deref)
      mark(R.BlockRef, UO->getSubExpr(), false, true);
    else if (const auto *AS = dyn_cast<ArraySubscriptExpr>(X))
      mark(R.BlockRef, AS->getBase(), false, true);
  }
  void mark(llvm::SmallBitVector &Bits, const Expr *E, bool Whole,
            bool Pointers) {
    llvm::SmallBitVector Found(FD->getNumParams());
    A.paramsIn(E, Whole, Found);
    for (int I = Found.find_first(); I >= 0; I = Found.find_next(I)) {
      QualType T = FD->getParamDecl(I)->getType();
      if (Pointers ? T->isPointerType() : T->isIntegerType())
        Bits.set(I);
    }
  }
};

static ParamRoles paramRoles(const FunctionDecl *FD, unsigned Depth) {
  AliasFinder A(FD);
  A.TraverseStmt(FD->getBody());
  A.TraverseStmt(FD->getBody()); // a local set from another set later
  RoleFinder V(FD, Depth, A);
  V.TraverseStmt(FD->getBody());
  return V.R;
}

AllocatorCall allocatorCall(const CallExpr *CE) {
  AllocatorCall R;
  const FunctionDecl *FD = CE->getDirectCallee();
  const Expr *SizeArg = allocatorSizeArg(CE);
  SizeShape Sh = SizeArg ? sizeShape(SizeArg) : SizeShape();
  if (!FD || !Sh.Ok)
    return R;
  ASTContext &Ctx = FD->getASTContext();
  unsigned Size = 0;
  while (CE->getArg(Size) != SizeArg)
    ++Size;
  std::string Name = "'" + FD->getNameAsString() + "'";
  auto argText = [&](unsigned I) {
    std::string Out;
    llvm::raw_string_ostream OS(Out);
    CE->getArg(I)->IgnoreParenImpCasts()->printPretty(OS, nullptr,
                                                      Ctx.getPrintingPolicy());
    return "'" + Out + "'";
  };
  const FunctionDecl *Def = FD->getDefinition();
  std::optional<ParamRoles> Roles;
  if (Def && Def->getBody())
    Roles = paramRoles(Def, 4);

  // The counts: the attribute says it (alloc_size(size) or alloc_size(size,
  // count)), else the body; with neither, another argument may count the
  // objects (xcalloc(n, sizeof *p), or the other way round after a bare
  // sizeof).  An integer after a size that counts already, or a constant
  // after a bare sizeof, is taken for something else (a zone, flags, an
  // alignment, __LINE__).
  if (const auto *AS = FD->getMostRecentDecl()->getAttr<AllocSizeAttr>()) {
    unsigned E = AS->getElemSizeParam().getASTIndex();
    int N = AS->getNumElemsParam().isValid()
                ? (int)AS->getNumElemsParam().getASTIndex()
                : -1;
    if (Size == E && N >= 0 && (unsigned)N < CE->getNumArgs())
      R.Counts.push_back(CE->getArg(N));
    else if ((int)Size == N && E < CE->getNumArgs())
      R.Counts.push_back(CE->getArg(E));
    else if (Size != E) {
      R.Problem =
          Name + " takes its size as argument " + std::to_string(E + 1) +
          " (alloc_size), but sizeof is argument " + std::to_string(Size + 1);
      return R;
    }
  } else if (Roles) {
    for (unsigned I = 0; I < CE->getNumArgs() && I < Def->getNumParams(); ++I)
      if (I != Size && Roles->Count.test(I) && !Roles->Block.test(I))
        R.Counts.push_back(CE->getArg(I));
  } else {
    for (unsigned I = 0; I < CE->getNumArgs(); ++I) {
      const Expr *A = CE->getArg(I)->IgnoreParenImpCasts();
      if (I != Size && A->getType()->isIntegerType() &&
          (I < Size || (Sh.Counts.empty() && !A->isIntegerConstantExpr(Ctx)))) {
        R.Problem = "the plugin cannot see whether " + argText(I) +
                    " counts the objects " + Name +
                    " allocates (its body is not in this file): give " + Name +
                    " __attribute__((alloc_size(...))), or pass the whole "
                    "size (n * sizeof(T))";
        return R;
      }
    }
  }

  // The block to resize: the one argument the body hands to realloc (the
  // call becomes the runtime's realloc of it).
  for (unsigned I = 0; I < CE->getNumArgs(); ++I) {
    if (I == Size)
      continue;
    bool Block;
    if (Roles) {
      if (I < Def->getNumParams() && Roles->BlockRef.test(I)) {
        R.Problem = Name + " resizes the block " + argText(I) +
                    " points to (it reaches realloc through a "
                    "dereference): the runtime cannot take that resize "
                    "over; call realloc here";
        return R;
      }
      Block = I < Def->getNumParams() && Roles->Block.test(I);
    } else {
      Block = false;
    }
    // An argument of the allocated type's pointer type that the body frees
    // or copies from (a resize made by hand with malloc, memcpy and free,
    // or a clone), or that a body the plugin cannot see may resize.
    QualType T = CE->getArg(I)->IgnoreParenImpCasts()->getType();
    if (!Block && T->isPointerType() &&
        Ctx.hasSameUnqualifiedType(T->getPointeeType(), Sh.Elem) &&
        (!Roles || (I < Def->getNumParams() && Roles->Copied.test(I)))) {
      R.Problem = Roles ? Name + " is handed " + argText(I) +
                              ", an object of the type it allocates, and "
                              "does not resize it with realloc (a copy by "
                              "hand, or a clone): call realloc, or malloc "
                              "and copy, here"
                        : "the plugin cannot see whether " + Name +
                              " resizes " + argText(I) +
                              " (its body is not in this file); call "
                              "realloc here, or give " +
                              Name + " a body in this file";
      return R;
    }
    if (!Block)
      continue;
    if (R.Block) {
      R.Problem = Name + " hands both " + argText(I) +
                  " and another argument to realloc";
      return R;
    }
    R.Block = CE->getArg(I);
  }
  return R;
}

} // namespace compactptr
