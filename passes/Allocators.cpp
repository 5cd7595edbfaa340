//===- Allocators.cpp - calls of a program's own CP_ALLOCATOR functions ===//
//
// In:  a call of a function declared CP_ALLOCATOR whose result the rewrite
//      routes to the runtime (Allocation.cpp).
// Out: which argument is the size (sizeof(T) or n * sizeof(T)), which
//      others count objects, and whether the runtime can take the call
//      over at all.  The function says so through its alloc_size
//      attribute, or through its body in this translation unit (read for
//      parameters that multiply a size or reach calloc's count, and for one
//      that reaches realloc's block: a resize the runtime cannot take
//      over); with neither, an argument that may be a count or a block
//      makes the call ambiguous, and it is refused rather than allocated as
//      one object.
// Tests: test/rewrite/allocator-counts.c, test/diagnostics/allocator-call.c,
//        test/rewrite/pool-allocator.c.
//
//===----------------------------------------------------------------------===//
#include "Printer.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/SmallBitVector.h"

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
/// take a count (Count), and which reach realloc's block argument (Block).
/// Followed through calls to functions with a body in this translation
/// unit (a wrapper of a wrapper) and through their alloc_size attributes,
/// a few levels deep.
struct ParamRoles {
  llvm::SmallBitVector Count, Block;
};

static ParamRoles paramRoles(const FunctionDecl *FD, unsigned Depth);

class RoleFinder : public RecursiveASTVisitor<RoleFinder> {
public:
  RoleFinder(const FunctionDecl *FD, unsigned Depth) : FD(FD), Depth(Depth) {
    R.Count.resize(FD->getNumParams());
    R.Block.resize(FD->getNumParams());
  }
  ParamRoles R;

  bool VisitBinaryOperator(BinaryOperator *B) {
    if (B->getOpcode() == BO_Mul || B->getOpcode() == BO_MulAssign)
      for (const Expr *Side : {B->getLHS(), B->getRHS()})
        mark(R.Count, Side);
    return true;
  }
  bool VisitCallExpr(CallExpr *C) {
    const FunctionDecl *Callee = C->getDirectCallee();
    if (!Callee)
      return true;
    AllocFn F = allocFunction(C);
    if (F == AllocFn::Calloc) {
      for (const Expr *A : C->arguments())
        mark(R.Count, A);
      return true;
    }
    if (F == AllocFn::Realloc) {
      mark(R.Block, C->getArg(0));
      for (unsigned I = 1; C->getNumArgs() == 3 && I < 3; ++I)
        mark(R.Count, C->getArg(I));
      return true;
    }
    if (const auto *AS = Callee->getAttr<AllocSizeAttr>()) {
      if (AS->getNumElemsParam().isValid()) {
        mark(R.Count, argAt(C, AS->getElemSizeParam().getASTIndex()));
        mark(R.Count, argAt(C, AS->getNumElemsParam().getASTIndex()));
      }
      return true;
    }
    const FunctionDecl *Def = Callee->getDefinition();
    if (!Def || Def == FD || Depth == 0)
      return true;
    ParamRoles Inner = paramRoles(Def, Depth - 1);
    for (unsigned I = 0; I < C->getNumArgs() && I < Def->getNumParams(); ++I) {
      if (Inner.Count.test(I))
        mark(R.Count, C->getArg(I));
      if (Inner.Block.test(I))
        mark(R.Block, C->getArg(I));
    }
    return true;
  }

private:
  const FunctionDecl *FD;
  unsigned Depth;

  static const Expr *argAt(const CallExpr *C, unsigned I) {
    return I < C->getNumArgs() ? C->getArg(I) : nullptr;
  }
  void mark(llvm::SmallBitVector &Bits, const Expr *E) {
    const auto *DR = E ? dyn_cast<DeclRefExpr>(E->IgnoreParenCasts()) : nullptr;
    const auto *P = DR ? dyn_cast<ParmVarDecl>(DR->getDecl()) : nullptr;
    if (P && P->getDeclContext() == FD &&
        P->getFunctionScopeIndex() < Bits.size())
      Bits.set(P->getFunctionScopeIndex());
  }
};

static ParamRoles paramRoles(const FunctionDecl *FD, unsigned Depth) {
  RoleFinder V(FD, Depth);
  V.TraverseStmt(FD->getBody());
  return V.R;
}

AllocatorCall allocatorCall(const CallExpr *CE) {
  AllocatorCall R;
  const FunctionDecl *FD = CE->getDirectCallee();
  const Expr *SizeArg = allocatorSizeArg(CE);
  if (!FD || !SizeArg || !sizeShape(SizeArg).Ok)
    return R;
  unsigned Size = 0;
  while (CE->getArg(Size) != SizeArg)
    ++Size;
  std::string Name = "'" + FD->getNameAsString() + "'";
  auto argText = [&](unsigned I) {
    std::string Out;
    llvm::raw_string_ostream OS(Out);
    CE->getArg(I)->IgnoreParenImpCasts()->printPretty(
        OS, nullptr, FD->getASTContext().getPrintingPolicy());
    return "'" + Out + "'";
  };
  // The attribute says it: alloc_size(size) or alloc_size(size, count).
  if (const auto *AS = FD->getMostRecentDecl()->getAttr<AllocSizeAttr>()) {
    unsigned E = AS->getElemSizeParam().getASTIndex();
    int N = AS->getNumElemsParam().isValid()
                ? (int)AS->getNumElemsParam().getASTIndex()
                : -1;
    if (Size == E && N >= 0 && (unsigned)N < CE->getNumArgs())
      R.Counts.push_back(CE->getArg(N));
    else if ((int)Size == N && E < CE->getNumArgs())
      R.Counts.push_back(CE->getArg(E));
    else if (Size != E)
      R.Problem =
          Name + " takes its size as argument " + std::to_string(E + 1) +
          " (alloc_size), but sizeof is argument " + std::to_string(Size + 1);
    return R;
  }
  const FunctionDecl *Def = FD->getDefinition();
  if (Def) {
    ParamRoles Roles = paramRoles(Def, 4);
    for (unsigned I = 0; I < CE->getNumArgs() && I < Def->getNumParams(); ++I) {
      if (Roles.Block.test(I)) {
        R.Problem = Name + " resizes the block it is handed (" + argText(I) +
                    " reaches realloc): the runtime cannot take a resize "
                    "over through it; call realloc here, or make " +
                    Name + " allocate only";
        return R;
      }
      if (I != Size && Roles.Count.test(I))
        R.Counts.push_back(CE->getArg(I));
    }
    return R;
  }
  // No body here and no attribute: another argument may count the objects
  // (xcalloc(n, sizeof *p), or the other way round after a bare sizeof) or
  // hand over a block to resize.  An integer after a size that counts
  // already, or a constant after a bare sizeof, is taken for something
  // else (a zone, flags, an alignment, __LINE__).
  bool Bare = sizeShape(SizeArg).Counts.empty();
  for (unsigned I = 0; I < CE->getNumArgs(); ++I) {
    if (I == Size)
      continue;
    const Expr *A = CE->getArg(I)->IgnoreParenImpCasts();
    QualType T = A->getType();
    if (T->isIntegerType() &&
        (I < Size ||
         (Bare && !A->isIntegerConstantExpr(FD->getASTContext())))) {
      R.Problem = "the plugin cannot see whether " + argText(I) +
                  " counts the objects " + Name +
                  " allocates (its body is not in this file): give " + Name +
                  " __attribute__((alloc_size(...))), or pass the whole size "
                  "(n * sizeof(T))";
      return R;
    }
    if (T->isPointerType() && sizeShape(SizeArg).Ok &&
        FD->getASTContext().hasSameUnqualifiedType(T->getPointeeType(),
                                                   sizeShape(SizeArg).Elem)) {
      R.Problem = "the plugin cannot see whether " + Name + " resizes " +
                  argText(I) +
                  " (its body is not in this file); call "
                  "realloc here, or give " +
                  Name + " a body in this file";
      return R;
    }
  }
  return R;
}

} // namespace compactptr
