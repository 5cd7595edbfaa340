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
//      allocated as one object.  Also the program's size helpers that
//      multiply two parameters (productHelper: git's st_mult), whose call
//      in an allocation's size is the product of its arguments.
//      Also the pools a CP_ALLOCATOR function is handed: the type of a
//      pool of objects of one size (poolElementType), a set-up whose kept
//      size no one else reads (isQuietPoolSetUp), and the calls that give
//      a pool's memory back or hand it an object its own code would free
//      (checkPoolReleases, the pool-release warning).
// Tests: test/rewrite/allocator-counts.c, test/diagnostics/allocator-call.c,
//        test/rewrite/pool-allocator.c, test/rewrite/size-helper.c,
//        test/diagnostics/size-helper-refused.c,
//        test/switchable/pool-of-one-size.c,
//        test/diagnostics/pool-of-one-size.c,
//        test/diagnostics/pool-release.c.
//
//===----------------------------------------------------------------------===//
#include "Printer.h"
#include "Vocabulary.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/Builtins.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <map>
#include <optional>

using namespace clang;

namespace compactptr {

/// What a CP_ALLOCATOR function's body does with its parameters, as far
/// as the allocations in it show (libc's, and those of functions with an
/// alloc_size attribute or a body here, a few calls deep):
///   Factor    a factor of an allocation's size, `n * size`, `calloc(n,
///             size)`, also through a local (`bytes = n * size`) and
///             `__builtin_mul_overflow`;
///   InSize    anywhere in an allocation's size (`(size + 7) & ~7`);
///   Block     realloc's block (by value: the call is the runtime's
///             realloc of that argument);
///   BlockRef  realloc's block through a dereference (`*pp = realloc(*pp,
///             n)`);
///   BlockOther inside realloc's block argument some other way (`(char *)p
///             - HDR`, a helper's result): a resize the runtime cannot take
///             over;
///   Copied    freed or copied from (a resize by hand, a clone);
///   Opaque    handed to a call the plugin cannot see into (a function of
///             another file without alloc_size, a function pointer).
struct ParamRoles {
  llvm::SmallBitVector Factor, InSize, Block, BlockRef, BlockOther, Copied,
      Opaque;
  /// Each allocation's size as a product: its parameter factors, the
  /// parameters inside its other factors, and whether a factor holds no
  /// parameter (a constant, a global).
  struct Product {
    llvm::SmallBitVector Params, Held;
    bool Other;
  };
  std::vector<Product> Products;
  bool Allocates = false; ///< an allocation was seen
};

static ParamRoles paramRoles(const FunctionDecl *FD, unsigned Depth);

/// The argument a CP_ALLOCATOR function's size is in: the first one shaped
/// sizeof(T) or n * sizeof(T) -- of several (Lua's `luaM_realloc_(b,
/// osize, nsize)`, whose old size comes first), the one the body's
/// allocation is sized by, or without a body here the one its alloc_size
/// names -- else the first one (for the error); null if it takes none.
const Expr *allocatorSizeArg(const CallExpr *CE) {
  llvm::SmallVector<unsigned, 2> Shaped;
  for (unsigned I = 0; I < CE->getNumArgs(); ++I)
    if (sizeShape(CE->getArg(I)).Ok)
      Shaped.push_back(I);
  if (Shaped.empty())
    return CE->getNumArgs() ? CE->getArg(0) : nullptr;
  const FunctionDecl *FD = CE->getDirectCallee();
  const FunctionDecl *Def = FD ? FD->getDefinition() : nullptr;
  if (Shaped.size() > 1 && Def && Def->getBody() && !Def->isVariadic()) {
    ParamRoles R = paramRoles(Def, 4);
    for (unsigned I : Shaped)
      if (I < R.InSize.size() && R.InSize.test(I))
        return CE->getArg(I);
  } else if (Shaped.size() > 1 && FD) {
    if (const auto *AS = FD->getMostRecentDecl()->getAttr<AllocSizeAttr>();
        AS && llvm::is_contained(Shaped, AS->getElemSizeParam().getASTIndex()))
      return CE->getArg(AS->getElemSizeParam().getASTIndex());
  }
  return CE->getArg(Shaped.front());
}

/// The definitions of FD's locals (`void *old = p;`, `bytes = n * size;`,
/// `__builtin_mul_overflow(n, size, &bytes)`: the factors it multiplies).
class LocalDefs : public RecursiveASTVisitor<LocalDefs> {
public:
  llvm::DenseMap<const VarDecl *, std::vector<std::vector<const Expr *>>> Defs;
  /// Parameters the body changes other than to a constant (`size *= n`,
  /// `n++`, `&n`): their value at an allocation is not the caller's.
  llvm::DenseSet<const ParmVarDecl *> Changed;

  bool VisitVarDecl(VarDecl *V) {
    if (!isa<ParmVarDecl>(V) && V->getInit())
      Defs[V].push_back({V->getInit()});
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator *B) {
    if (const VarDecl *V = local(B->getLHS()); V && B->isAssignmentOp())
      Defs[V].push_back({B->getOpcode() == BO_Assign ? B->getRHS() : B});
    if (const ParmVarDecl *P = param(B->getLHS());
        P && B->isAssignmentOp() &&
        !(B->getOpcode() == BO_Assign &&
          B->getRHS()->IgnoreParenCasts()->isIntegerConstantExpr(
              P->getASTContext())))
      Changed.insert(P);
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    if (U->isIncrementDecrementOp() || U->getOpcode() == UO_AddrOf)
      if (const ParmVarDecl *P = param(U->getSubExpr()))
        Changed.insert(P);
    return true;
  }
  bool VisitCallExpr(CallExpr *C) {
    const FunctionDecl *F = C->getDirectCallee();
    if (F && F->getBuiltinID() == Builtin::BI__builtin_mul_overflow &&
        C->getNumArgs() == 3)
      if (const auto *UO =
              dyn_cast<UnaryOperator>(C->getArg(2)->IgnoreParenCasts());
          UO && UO->getOpcode() == UO_AddrOf)
        if (const VarDecl *V = local(UO->getSubExpr()))
          Defs[V].push_back({C->getArg(0), C->getArg(1)});
    return true;
  }
  static const ParmVarDecl *param(const Expr *E) {
    const auto *DR = dyn_cast<DeclRefExpr>(E->IgnoreParens());
    return DR ? dyn_cast<ParmVarDecl>(DR->getDecl()) : nullptr;
  }
  static const VarDecl *local(const Expr *E) {
    const auto *DR = dyn_cast<DeclRefExpr>(E->IgnoreParens());
    const auto *V = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
    return V && !isa<ParmVarDecl>(V) && V->hasLocalStorage() ? V : nullptr;
  }
};

class RoleFinder : public RecursiveASTVisitor<RoleFinder> {
public:
  RoleFinder(const FunctionDecl *FD, unsigned Depth, const LocalDefs &L)
      : FD(FD), Depth(Depth), L(L) {
    unsigned N = FD->getNumParams();
    for (llvm::SmallBitVector *B : {&R.Factor, &R.InSize, &R.Block, &R.BlockRef,
                                    &R.BlockOther, &R.Copied, &R.Opaque})
      B->resize(N);
  }
  ParamRoles R;

  bool VisitCallExpr(CallExpr *C) {
    const FunctionDecl *Callee = C->getDirectCallee();
    if (Callee && Callee->getBuiltinID() == Builtin::BI__builtin_mul_overflow)
      return true; // a definition (LocalDefs)
    AllocFn F = Callee ? allocFunction(C) : AllocFn::None;
    unsigned NA = C->getNumArgs();
    switch (F) {
    case AllocFn::Malloc:
      return size({C->getArg(0)});
    case AllocFn::Calloc:
      return size({C->getArg(0), C->getArg(1)});
    case AllocFn::Realloc:
      block(C->getArg(0));
      return NA == 3 ? size({C->getArg(1), C->getArg(2)})
                     : size({C->getArg(1)});
    case AllocFn::Free:
      mark(R.Copied, C->getArg(0), true);
      return true;
    default:
      break;
    }
    if (!Callee) { // through a pointer: a hook
      for (const Expr *A : C->arguments())
        mark(R.Opaque, A, true);
      return true;
    }
    if (byteCopyFunction(Callee, nullptr).size() && NA > 1) {
      mark(R.Copied, C->getArg(1), true);
      return true;
    }
    if (const auto *AS = Callee->getAttr<AllocSizeAttr>()) {
      std::vector<const Expr *> Sz;
      for (ParamIdx I : {AS->getElemSizeParam(), AS->getNumElemsParam()})
        if (I.isValid() && I.getASTIndex() < NA)
          Sz.push_back(C->getArg(I.getASTIndex()));
      // Its other arguments: a block it may resize, or anything.
      for (unsigned I = 0; I < NA; ++I)
        if (!llvm::is_contained(Sz, C->getArg(I)))
          mark(R.Opaque, C->getArg(I), true);
      return size(Sz);
    }
    const FunctionDecl *Def = Callee->getDefinition();
    if (!Def || !Def->getBody() || Def == FD || Depth == 0) {
      // libc that only reads (strlen, printf) or the program's own code
      // in another file: a parameter handed over is opaque unless the
      // call is a system header's.
      if (!Callee->getBuiltinID() && !isSystemFunction(Callee))
        for (const Expr *A : C->arguments())
          mark(R.Opaque, A, true);
      return true;
    }
    ParamRoles In = paramRoles(Def, Depth - 1);
    // Each of its allocations, in terms of this call's arguments: a
    // factor of it stays a factor (through the argument's own product),
    // a parameter held inside another factor stays held.
    for (const ParamRoles::Product &IP : In.Products) {
      std::vector<const Expr *> Sz;
      bool Held = false, Other = IP.Other;
      llvm::SmallBitVector H(R.Factor.size());
      for (unsigned I = 0; I < NA && I < Def->getNumParams(); ++I) {
        if (IP.Params.test(I))
          Sz.push_back(C->getArg(I));
        if (IP.Held.test(I)) {
          mark(H, C->getArg(I), true);
          Held = true;
        }
      }
      size(Sz, &H, Other || (Held && H.none()));
    }
    R.Allocates |= In.Allocates;
    for (unsigned I = 0; I < NA && I < Def->getNumParams(); ++I) {
      const Expr *A = C->getArg(I);
      if (In.Block.test(I))
        block(A);
      if (In.BlockRef.test(I))
        mark(R.BlockRef, A, false);
      if (In.Copied.test(I))
        mark(R.Copied, A, true);
      if (In.BlockOther.test(I))
        mark(R.BlockOther, A, true);
      if (In.Opaque.test(I))
        mark(R.Opaque, A, true);
    }
    return true;
  }

private:
  const FunctionDecl *FD;
  unsigned Depth;
  const LocalDefs &L;

  bool isSystemFunction(const FunctionDecl *F) const {
    const SourceManager &SM = FD->getASTContext().getSourceManager();
    return llvm::any_of(F->redecls(), [&](const FunctionDecl *D) {
      return SM.isInSystemHeader(SM.getExpansionLoc(D->getLocation()));
    });
  }

  /// The parameter E names, directly (through casts), or -1.
  int param(const Expr *E) const {
    const auto *DR = dyn_cast<DeclRefExpr>(E->IgnoreParenCasts());
    const auto *P = DR ? dyn_cast<ParmVarDecl>(DR->getDecl()) : nullptr;
    return P && P->getDeclContext() == FD ? (int)P->getFunctionScopeIndex()
                                          : -1;
  }

  /// The parameters E's value may come from, through casts, `?:`, commas
  /// and locals (Whole: also from anywhere inside it, arithmetic included).
  void mark(llvm::SmallBitVector &Bits, const Expr *E, bool Whole,
            unsigned Level = 0) {
    if (!E || Level > 4)
      return;
    E = E->IgnoreParenCasts();
    if (int P = param(E); P >= 0) {
      Bits.set(P);
      return;
    }
    if (const VarDecl *V = LocalDefs::local(E)) {
      auto It = L.Defs.find(V);
      if (It != L.Defs.end())
        for (const auto &Def : It->second)
          for (const Expr *X : Def)
            mark(Bits, X, Whole, Level + 1);
      return;
    }
    if (const auto *C = dyn_cast<AbstractConditionalOperator>(E)) {
      mark(Bits, C->getTrueExpr(), Whole, Level);
      mark(Bits, C->getFalseExpr(), Whole, Level);
      return;
    }
    if (const auto *B = dyn_cast<BinaryOperator>(E);
        B && B->getOpcode() == BO_Comma) {
      mark(Bits, B->getRHS(), Whole, Level);
      return;
    }
    if (Whole)
      for (const Stmt *Child : E->children())
        if (const auto *X = dyn_cast_or_null<Expr>(Child))
          mark(Bits, X, Whole, Level);
  }

  /// The factors of a product: parameters (Params), other factors that
  /// hold parameters (Held: `(size + 7) / 8`, `*cap`), and whether a
  /// factor is a constant other than 1 or holds none (Other).  Of `c ? x :
  /// 1` (a size never zero) the product is x's.
  void factors(const Expr *E, llvm::SmallBitVector &Params,
               llvm::SmallBitVector &Held, bool &Other, unsigned Level = 0) {
    E = E->IgnoreParenCasts();
    if (const auto *B = dyn_cast<BinaryOperator>(E);
        B && (B->getOpcode() == BO_Mul || B->getOpcode() == BO_MulAssign)) {
      factors(B->getLHS(), Params, Held, Other, Level);
      factors(B->getRHS(), Params, Held, Other, Level);
      return;
    }
    // A size helper that multiplies (st_mult(n, size)): its two arguments.
    if (const auto *C = dyn_cast<CallExpr>(E)) {
      auto H = productHelper(C->getDirectCallee());
      if (H && H->first < C->getNumArgs() && H->second < C->getNumArgs()) {
        factors(C->getArg(H->first), Params, Held, Other, Level);
        factors(C->getArg(H->second), Params, Held, Other, Level);
        return;
      }
    }
    if (int P = param(E); P >= 0) {
      // A parameter the body changes holds something else by then.
      if (L.Changed.count(FD->getParamDecl(P))) {
        Held.set(P);
        Other = true;
      } else {
        Params.set(P);
      }
      return;
    }
    ASTContext &Ctx = FD->getASTContext();
    if (std::optional<llvm::APSInt> V = E->getIntegerConstantExpr(Ctx)) {
      Other |= *V != 1;
      return;
    }
    if (const auto *C = dyn_cast<AbstractConditionalOperator>(E)) {
      const Expr *T = C->getTrueExpr(), *F = C->getFalseExpr();
      if (F->isIntegerConstantExpr(Ctx) && !T->isIntegerConstantExpr(Ctx))
        return factors(T, Params, Held, Other, Level);
      if (T->isIntegerConstantExpr(Ctx) && !F->isIntegerConstantExpr(Ctx))
        return factors(F, Params, Held, Other, Level);
    }
    if (const VarDecl *V = LocalDefs::local(E); V && Level < 4) {
      // One definition, or one beside constants (a guard against a zero
      // size: `if (!bytes) bytes = 1;`).
      const std::vector<const Expr *> *Only = nullptr;
      unsigned Others = 0;
      auto It = L.Defs.find(V);
      if (It != L.Defs.end())
        for (const auto &Def : It->second) {
          if (Def.size() == 1 &&
              Def[0]->IgnoreParenCasts()->isIntegerConstantExpr(
                  FD->getASTContext()))
            continue;
          Only = &Def;
          ++Others;
        }
      if (Others == 1) {
        for (const Expr *X : *Only)
          factors(X, Params, Held, Other, Level + 1);
        return;
      }
    }
    llvm::SmallBitVector In(Params.size());
    mark(In, E, true);
    if (In.any())
      Held |= In;
    else
      Other = true;
  }

  /// An allocation whose size is the product of Parts (and of a callee's
  /// own factors: parameters held in them, ExtraHeld, and ExtraOther).
  bool size(std::vector<const Expr *> Parts,
            const llvm::SmallBitVector *ExtraHeld = nullptr,
            bool ExtraOther = false) {
    R.Allocates = true;
    unsigned N = R.Factor.size();
    ParamRoles::Product P{llvm::SmallBitVector(N), llvm::SmallBitVector(N),
                          false};
    for (const Expr *X : Parts)
      factors(X, P.Params, P.Held, P.Other);
    if (ExtraHeld)
      P.Held |= *ExtraHeld;
    P.Other |= ExtraOther;
    R.Factor |= P.Params;
    R.InSize |= P.Params;
    R.InSize |= P.Held;
    // One of each (a wrapper that calls the next in many places would
    // multiply them level by level).
    if (llvm::none_of(R.Products, [&](const ParamRoles::Product &Q) {
          return Q.Params == P.Params && Q.Held == P.Held && Q.Other == P.Other;
        }))
      R.Products.push_back(std::move(P));
    return true;
  }

  void block(const Expr *E) {
    mark(R.Block, E, false);
    llvm::SmallBitVector Any(R.Block.size());
    mark(Any, E, true);
    R.BlockOther |= Any.reset(R.Block);
    // `*pp`, `pp[0]`: the block is in the caller's variable pp points to.
    const Expr *X = E->IgnoreParenCasts();
    if (const auto *UO = dyn_cast<UnaryOperator>(X);
        UO && UO->getOpcode() == UO_Deref)
      mark(R.BlockRef, UO->getSubExpr(), false);
    else if (const auto *AS = dyn_cast<ArraySubscriptExpr>(X))
      mark(R.BlockRef, AS->getBase(), false);
  }
};

/// paramRoles' answers for the translation unit being compiled (a wrapper
/// of wrappers is read once, not once per path to it): cleared by
/// runEngine before each one (forgetAllocatorRoles).
static llvm::DenseMap<std::pair<const FunctionDecl *, unsigned>, ParamRoles>
    RolesSeen;

/// productHelper's answers for the translation unit being compiled.
static std::map<std::pair<const FunctionDecl *, BinaryOperatorKind>,
                std::optional<std::pair<unsigned, unsigned>>>
    HelpersSeen;

/// What the translation unit being compiled does with its pools (the
/// objects a CP_ALLOCATOR function is handed): read once, at the first
/// question (poolFacts).
struct PoolFacts {
  /// Pools handed to a CP_ALLOCATOR function, and the first such function.
  llvm::DenseMap<const ValueDecl *, const FunctionDecl *> Allocating;
  /// The size of one object a call hands with a pool (`pool_init(&pool,
  /// sizeof(struct node), 64)`); a null type where calls hand the same pool
  /// sizes of different types.
  llvm::DenseMap<const ValueDecl *, QualType> Sizes;
  /// poolType's answers for helpers' parameters (each a walk of the TU).
  llvm::DenseMap<const ValueDecl *, QualType> ParamTypes;
};
static std::optional<PoolFacts> PoolsSeen;

void forgetAllocatorRoles() {
  RolesSeen.clear();
  HelpersSeen.clear();
  PoolsSeen.reset();
}

/// The pool a pointer argument names: the variable or field whose address
/// it is (`&pool`, `&ctx->pool`) or that holds it (`mp`), of a struct type
/// that is no compact one (a pool's state, not an object); else null.
static const ValueDecl *poolOf(const Model &M, const Expr *E) {
  E = E->IgnoreParenCasts();
  const auto *PT = E->getType()->getAs<PointerType>();
  if (!PT || !PT->getPointeeType()->isStructureType() ||
      M.recordOf(PT->getPointeeType()))
    return nullptr;
  if (const auto *UO = dyn_cast<UnaryOperator>(E);
      UO && UO->getOpcode() == UO_AddrOf)
    E = UO->getSubExpr()->IgnoreParenCasts();
  if (const auto *DR = dyn_cast<DeclRefExpr>(E))
    return dyn_cast<VarDecl>(DR->getDecl());
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    return dyn_cast<FieldDecl>(ME->getMemberDecl());
  return nullptr;
}

static const PoolFacts &poolFacts(const Model &M, ASTContext &Ctx) {
  if (PoolsSeen)
    return *PoolsSeen;
  PoolsSeen.emplace();
  PoolFacts &F = *PoolsSeen;
  std::vector<std::pair<const ValueDecl *, const ParmVarDecl *>> Handed;
  anyNodeInUnit(Ctx, [&](const Stmt *St) {
    const auto *CE = dyn_cast<CallExpr>(St);
    if (!CE)
      return false;
    bool Allocates = allocFunction(CE) == AllocFn::Allocator;
    const Expr *One = nullptr;
    llvm::SmallVector<const ValueDecl *, 2> Pools;
    const RecordDecl *PoolType = nullptr;
    for (const Expr *A : CE->arguments())
      if (const ValueDecl *P = poolOf(M, A)) {
        Pools.push_back(P);
        PoolType = A->IgnoreParenCasts()
                       ->getType()
                       ->getPointeeType()
                       ->getAsRecordDecl();
      }
    // The size of one object of a type other than the pool's own
    // (`memset(&pool, 0, sizeof pool)` clears the pool).
    for (const Expr *A : CE->arguments())
      if (SizeShape Sh = sizeShape(A); Sh.Ok && !Sh.Flex && Sh.Counts.empty() &&
                                       Sh.Elem->isRecordType() &&
                                       Sh.Elem->getAsRecordDecl() != PoolType)
        One = A;
    for (const ValueDecl *P : Pools) {
      if (Allocates)
        F.Allocating.try_emplace(P, CE->getDirectCallee());
      if (!One)
        continue;
      QualType T = sizeShape(One).Elem.getCanonicalType().getUnqualifiedType();
      auto [It, New] = F.Sizes.try_emplace(P, T);
      if (!New && It->second != T)
        It->second = QualType();
    }
    // A pool handed to a function of the file that allocates from its
    // parameter (`push(&pool, head, k)`) is allocated from too.
    if (const FunctionDecl *Callee = CE->getDirectCallee();
        Callee && !Allocates)
      if (const FunctionDecl *Def = Callee->getDefinition())
        for (unsigned I = 0; I < CE->getNumArgs() && I < Def->getNumParams();
             ++I)
          if (const ValueDecl *P = poolOf(M, CE->getArg(I)))
            Handed.push_back({P, Def->getParamDecl(I)});
    return false;
  });
  // And a pool handed to a set-up of the file's that hands its parameter
  // the size (`node_pool_setup(&nodes)` calling `pool_init(p, sizeof(struct
  // node), 64)`) holds that type.
  for (bool Grew = true; Grew;) {
    Grew = false;
    for (auto [P, Param] : Handed) {
      if (auto It = F.Allocating.find(Param); It != F.Allocating.end())
        Grew |= F.Allocating.try_emplace(P, It->second).second;
      if (auto It = F.Sizes.find(Param); It != F.Sizes.end()) {
        auto [Was, New] = F.Sizes.try_emplace(P, It->second);
        if (!New && Was->second != It->second && !Was->second.isNull()) {
          Was->second = QualType();
          New = true;
        }
        Grew |= New;
      }
    }
  }
  return F;
}

/// The one type of object this translation unit says pool P holds: the
/// type whose sizeof it hands P with; for a parameter of a static
/// function, the one its every call hands that parameter a pool of (a
/// helper handed the pool, `push(&pool, head, k)`, a few calls deep).
/// Null where none is said, or two.
static QualType poolType(const Model &M, ASTContext &Ctx, const ValueDecl *P,
                         unsigned Depth = 0) {
  const PoolFacts &F = poolFacts(M, Ctx);
  if (auto It = F.Sizes.find(P); It != F.Sizes.end())
    return It->second;
  if (auto It = F.ParamTypes.find(P); Depth == 0 && It != F.ParamTypes.end())
    return It->second;
  const auto *PV = dyn_cast<ParmVarDecl>(P);
  const auto *FD = PV ? dyn_cast<FunctionDecl>(PV->getDeclContext()) : nullptr;
  if (!FD || FD->isExternallyVisible() || Depth > 4)
    return QualType();
  unsigned I = PV->getFunctionScopeIndex();
  QualType T;
  bool Calls = false, Unknown = false;
  anyNodeInUnit(Ctx, [&](const Stmt *St) {
    if (const auto *DR = dyn_cast<DeclRefExpr>(St);
        DR && DR->getDecl()->getCanonicalDecl() == FD->getCanonicalDecl()) {
      // Every use of the function is a call of it (no pointer to it).
      const Expr *Top = DR;
      const Expr *Up = parentSkippingParens(Ctx, DR, &Top);
      while (const auto *IC = dyn_cast_or_null<ImplicitCastExpr>(Up))
        Up = parentSkippingParens(Ctx, Top = IC, &Top);
      const auto *CE = dyn_cast_or_null<CallExpr>(Up);
      if (!CE || CE->getCallee()->IgnoreParenImpCasts() != DR ||
          I >= CE->getNumArgs())
        return Unknown = true;
      const ValueDecl *Q = poolOf(M, CE->getArg(I));
      if (Q == P)
        return false; // a recursive call hands the pool on
      QualType U = Q ? poolType(M, Ctx, Q, Depth + 1) : QualType();
      if (U.isNull() || (Calls && U != T))
        return Unknown = true;
      T = U;
      Calls = true;
    }
    return false;
  });
  QualType Out = Unknown || !Calls ? QualType() : T;
  if (Depth == 0)
    PoolsSeen->ParamTypes[P] = Out;
  return Out;
}

bool takesNoSize(const FunctionDecl *FD) {
  // A pool of one size takes none: no parameter an integer.
  return !FD->isVariadic() &&
         llvm::all_of(FD->parameters(), [](const ParmVarDecl *P) {
           return P->getType()->isPointerType();
         });
}

QualType poolElementType(const Model &M, const CallExpr *CE) {
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!FD || allocFunction(CE) != AllocFn::Allocator || !takesNoSize(FD))
    return QualType();
  QualType T;
  for (const Expr *A : CE->arguments()) {
    const ValueDecl *P = poolOf(M, A);
    if (!P)
      continue;
    QualType U = poolType(M, FD->getASTContext(), P);
    if (U.isNull() || (!T.isNull() && T != U))
      return QualType();
    T = U;
  }
  return T;
}

/// The fields of its pool that Def, a pool's set-up, stores its size
/// parameter P into (`p->size = (size + 15) & ~15`, `size < 8 ? 8 :
/// size`), where that is all it does with P's value but compare it, size
/// allocations by it (`malloc(n * size)`, used at once) and give P another
/// (`if (size < 16) size = 16;`); else none.
static std::optional<llvm::SmallVector<const FieldDecl *, 2>>
sizeFields(ASTContext &Ctx, const FunctionDecl *Def, const ParmVarDecl *P) {
  llvm::SmallVector<const FieldDecl *, 2> Fields;
  auto IsP = [&](const Expr *E) {
    const auto *DR = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    return DR && DR->getDecl() == P;
  };
  bool Other = anyReferenceTo(Def->getBody(), P, [&](const DeclRefExpr *DR) {
    const Expr *Cur = DR;
    while (const Expr *Up = parentSkippingParens(Ctx, Cur, &Cur)) {
      if (const auto *BO = dyn_cast<BinaryOperator>(Up)) {
        if (BO->isComparisonOp())
          return false; // a truth value
        if (BO->getOpcode() == BO_Assign) {
          if (BO->getLHS()->IgnoreParens() == Cur)
            return !IsP(Cur); // P given another value
          if (IsP(BO->getLHS()))
            return false;
          const FieldDecl *F = memberField(BO->getLHS()->IgnoreParenImpCasts());
          if (F)
            Fields.push_back(F);
          return !F;
        }
        if (!BO->isMultiplicativeOp() && !BO->isAdditiveOp() &&
            !BO->isBitwiseOp() && !BO->isShiftOp())
          return true;
      } else if (const auto *C = dyn_cast<CallExpr>(Up)) {
        return allocFunction(C) == AllocFn::None;
      } else if (const auto *CO = dyn_cast<ConditionalOperator>(Up)) {
        if (CO->getCond()->IgnoreParens() == Cur)
          return false; // a truth value
      } else if (const auto *UO = dyn_cast<UnaryOperator>(Up)) {
        if (UO->getOpcode() == UO_LNot)
          return false;
        if (UO->getOpcode() != UO_Not && UO->getOpcode() != UO_Minus &&
            UO->getOpcode() != UO_Plus)
          return true;
      } else if (!isa<CastExpr>(Up)) {
        return true;
      }
      Cur = Up;
    }
    return true;
  });
  if (Other)
    return std::nullopt;
  return Fields;
}

llvm::SmallPtrSet<const FunctionDecl *, 8>
allocatorOwnFunctions(ASTContext &Ctx, const FunctionDecl *Except) {
  llvm::SmallPtrSet<const FunctionDecl *, 8> Own;
  std::vector<const FunctionDecl *> Bodies;
  for (const Decl *D : Ctx.getTranslationUnitDecl()->decls())
    if (const auto *G = dyn_cast<FunctionDecl>(D);
        G && G->doesThisDeclarationHaveABody()) {
      Bodies.push_back(G);
      if (hasAttribute(G, "allocator") || hasAttribute(G, "deallocator"))
        Own.insert(G->getCanonicalDecl());
    }
  auto Refs = [](const Stmt *Body, const FunctionDecl *G) {
    unsigned N = 0;
    anyNode(Body, [&](const Stmt *St) {
      const auto *DR = dyn_cast<DeclRefExpr>(St);
      N += DR && DR->getDecl()->getCanonicalDecl() == G->getCanonicalDecl();
      return false;
    });
    return N;
  };
  for (bool Grew = true; Grew;) {
    Grew = false;
    for (const FunctionDecl *G : Bodies) {
      if (Own.count(G->getCanonicalDecl()) || G->isExternallyVisible() ||
          G == Except)
        continue;
      unsigned All = 0, FromOwn = 0;
      for (const FunctionDecl *H : Bodies) {
        unsigned N = Refs(H->getBody(), G);
        All += N;
        FromOwn += Own.count(H->getCanonicalDecl()) ? N : 0;
      }
      if (All && All == FromOwn)
        Grew |= Own.insert(G->getCanonicalDecl()).second;
    }
  }
  return Own;
}

bool isQuietPoolSetUp(const Model &M, ASTContext &Ctx, const CallExpr *CE,
                      const Expr *Size) {
  if (!llvm::any_of(CE->arguments(), [&](const Expr *A) {
        const ValueDecl *P = A != Size ? poolOf(M, A) : nullptr;
        return P && poolFacts(M, Ctx).Allocating.count(P);
      }))
    return false;
  const FunctionDecl *FD = CE->getDirectCallee();
  const FunctionDecl *Def = FD ? FD->getDefinition() : nullptr;
  if (!Def || !Def->getBody())
    return false;
  unsigned I = 0;
  while (I < CE->getNumArgs() &&
         CE->getArg(I)->IgnoreParens() != Size->IgnoreParens())
    ++I;
  if (I >= Def->getNumParams())
    return false;
  auto Fields = sizeFields(Ctx, Def, Def->getParamDecl(I));
  if (!Fields)
    return false;
  // Those fields are read by the pool's own functions only: its
  // allocators and deallocators, the static functions only they call (a
  // refill), and the set-up, which only writes them.
  llvm::SmallPtrSet<const FunctionDecl *, 8> Own =
      allocatorOwnFunctions(Ctx, Def);
  std::vector<const FunctionDecl *> Bodies;
  for (const Decl *D : Ctx.getTranslationUnitDecl()->decls())
    if (const auto *G = dyn_cast<FunctionDecl>(D);
        G && G->doesThisDeclarationHaveABody())
      Bodies.push_back(G);
  for (const FunctionDecl *G : Bodies) {
    if (Own.count(G->getCanonicalDecl()))
      continue;
    if (anyNode(G->getBody(), [&](const Stmt *St) {
          const auto *ME = dyn_cast<MemberExpr>(St);
          if (!ME || !llvm::is_contained(*Fields, ME->getMemberDecl()))
            return false;
          if (G != Def)
            return true;
          // The set-up writes them, and may size its first chunk by them
          // (`malloc(p->size * n)`); a read there that goes elsewhere
          // (`bytes = p->size`) may take the size out.
          const Expr *Cur = ME;
          while (const Expr *Up = parentSkippingParens(Ctx, Cur, &Cur)) {
            if (const auto *BO = dyn_cast<BinaryOperator>(Up)) {
              if (BO->isComparisonOp())
                return false;
              if (BO->getOpcode() == BO_Assign)
                return BO->getLHS()->IgnoreParens() != Cur;
              if (!BO->isMultiplicativeOp() && !BO->isAdditiveOp() &&
                  !BO->isBitwiseOp() && !BO->isShiftOp())
                return true;
            } else if (const auto *C = dyn_cast<CallExpr>(Up)) {
              return allocFunction(C) == AllocFn::None;
            } else if (!isa<CastExpr>(Up)) {
              return true;
            }
            Cur = Up;
          }
          return true;
        }))
      return false;
  }
  return true;
}

/// The two parameters E multiplies, `a * b` (through parentheses and
/// integer conversions), or a local L defines so everywhere (`r = a * b`,
/// `__builtin_mul_overflow(a, b, &r)`); else none.
static std::optional<std::pair<const ParmVarDecl *, const ParmVarDecl *>>
paramProduct(const Expr *E, const LocalDefs &L, BinaryOperatorKind Op = BO_Mul,
             unsigned Depth = 0) {
  E = E->IgnoreParenCasts();
  if (const auto *B = dyn_cast<BinaryOperator>(E); B && B->getOpcode() == Op) {
    const ParmVarDecl *A = LocalDefs::param(B->getLHS()->IgnoreParenCasts()),
                      *C = LocalDefs::param(B->getRHS()->IgnoreParenCasts());
    if (A && C && A != C)
      return std::make_pair(A, C);
    return std::nullopt;
  }
  // (A local: its definitions, for a product only -- LocalDefs reads
  // __builtin_mul_overflow's operands as factors.)
  const VarDecl *V = Op == BO_Mul ? LocalDefs::local(E) : nullptr;
  auto It = V && Depth == 0 ? L.Defs.find(V) : L.Defs.end();
  if (It == L.Defs.end() || It->second.empty())
    return std::nullopt;
  std::optional<std::pair<const ParmVarDecl *, const ParmVarDecl *>> Same;
  for (const std::vector<const Expr *> &D : It->second) {
    std::optional<std::pair<const ParmVarDecl *, const ParmVarDecl *>> P;
    if (D.size() == 2) {
      const ParmVarDecl *A = LocalDefs::param(D[0]->IgnoreParenCasts()),
                        *C = LocalDefs::param(D[1]->IgnoreParenCasts());
      if (A && C && A != C)
        P = std::make_pair(A, C);
    } else if (D.size() == 1) {
      P = paramProduct(D[0], L, Op, Depth + 1);
    }
    if (!P || (Same && !(*Same == *P || (Same->first == P->second &&
                                         Same->second == P->first))))
      return std::nullopt;
    Same = P;
  }
  return Same;
}

/// FD returns Op (a product or a sum) of two of its integer parameters,
/// unchanged, at every return: their indices.
static std::optional<std::pair<unsigned, unsigned>>
binaryHelper(const FunctionDecl *FD, BinaryOperatorKind Op) {
  const FunctionDecl *Def = FD ? FD->getDefinition() : nullptr;
  if (!Def || !Def->hasBody() || Def->isVariadic() || Def->getNumParams() < 2 ||
      !Def->getReturnType()->isIntegerType())
    return std::nullopt;
  auto Key = std::make_pair(Def, Op);
  auto Seen = HelpersSeen.find(Key);
  if (Seen != HelpersSeen.end())
    return Seen->second;
  std::optional<std::pair<unsigned, unsigned>> &R = HelpersSeen[Key];
  LocalDefs L;
  L.TraverseStmt(Def->getBody());
  struct Returns : RecursiveASTVisitor<Returns> {
    std::vector<const ReturnStmt *> All;
    bool VisitReturnStmt(ReturnStmt *RS) {
      All.push_back(RS);
      return true;
    }
  } Rs;
  Rs.TraverseStmt(Def->getBody());
  std::optional<std::pair<const ParmVarDecl *, const ParmVarDecl *>> Same;
  for (const ReturnStmt *RS : Rs.All) {
    auto P = RS->getRetValue() ? paramProduct(RS->getRetValue(), L, Op)
                               : std::nullopt;
    if (!P || L.Changed.count(P->first) || L.Changed.count(P->second) ||
        !P->first->getType()->isIntegerType() ||
        !P->second->getType()->isIntegerType() ||
        (Same && !(*Same == *P ||
                   (Same->first == P->second && Same->second == P->first))))
      return R = std::nullopt;
    Same = P;
  }
  if (Same)
    R = std::make_pair(Same->first->getFunctionScopeIndex(),
                       Same->second->getFunctionScopeIndex());
  return R;
}

std::optional<std::pair<unsigned, unsigned>>
productHelper(const FunctionDecl *FD) {
  return binaryHelper(FD, BO_Mul);
}

std::optional<std::pair<unsigned, unsigned>> sumHelper(const FunctionDecl *FD) {
  return binaryHelper(FD, BO_Add);
}

static ParamRoles readRoles(const FunctionDecl *FD, unsigned Depth);

static ParamRoles paramRoles(const FunctionDecl *FD, unsigned Depth) {
  auto Key = std::make_pair(FD->getCanonicalDecl(), Depth);
  auto It = RolesSeen.find(Key);
  if (It != RolesSeen.end())
    return It->second;
  ParamRoles R = readRoles(FD, Depth);
  RolesSeen[Key] = R;
  return R;
}

static ParamRoles readRoles(const FunctionDecl *FD, unsigned Depth) {
  LocalDefs L;
  L.TraverseStmt(FD->getBody());
  RoleFinder V(FD, Depth, L);
  V.TraverseStmt(FD->getBody());
  return V.R;
}

/// A and B name the same variable or member chain (`a`, `q->items`).
static bool sameLValue(const Expr *A, const Expr *B) {
  A = A->IgnoreParenCasts();
  B = B->IgnoreParenCasts();
  if (const auto *DA = dyn_cast<DeclRefExpr>(A)) {
    const auto *DB = dyn_cast<DeclRefExpr>(B);
    return DB && DA->getDecl() == DB->getDecl();
  }
  if (const auto *MA = dyn_cast<MemberExpr>(A)) {
    const auto *MB = dyn_cast<MemberExpr>(B);
    return MB && MA->getMemberDecl() == MB->getMemberDecl() &&
           MA->isArrow() == MB->isArrow() &&
           sameLValue(MA->getBase(), MB->getBase());
  }
  return false;
}

/// The expression a call's result is assigned to (`a = f(...)`, through
/// casts), or null.
static const Expr *destinationOf(ASTContext &Ctx, const Expr *E) {
  for (;;) {
    DynTypedNodeList Ps = Ctx.getParents(*E);
    const auto *P = Ps.empty() ? nullptr : Ps[0].get<Expr>();
    if (P && (isa<ParenExpr>(P) || isa<CastExpr>(P))) {
      E = P;
      continue;
    }
    const auto *B = dyn_cast_or_null<BinaryOperator>(P);
    return B && B->getOpcode() == BO_Assign && B->getRHS() == E ? B->getLHS()
                                                                : nullptr;
  }
}

/// P is used in FD's body other than as `(void)P`.
static bool usedInBody(const FunctionDecl *FD, const ParmVarDecl *P) {
  ASTContext &Ctx = FD->getASTContext();
  return anyReferenceTo(FD->getBody(), P, [&](const DeclRefExpr *DR) {
    const Stmt *Up = DR;
    for (;;) {
      DynTypedNodeList Ps = Ctx.getParents(*Up);
      const auto *E = Ps.empty() ? nullptr : Ps[0].get<Expr>();
      if (const auto *C = dyn_cast_or_null<CStyleCastExpr>(E);
          C && C->getType()->isVoidType())
        return false;
      if (!E || !(isa<ImplicitCastExpr>(E) || isa<ParenExpr>(E)))
        return true;
      Up = E;
    }
  });
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
  auto isInt = [&](unsigned I) {
    return CE->getArg(I)->IgnoreParenImpCasts()->getType()->isIntegerType();
  };
  const FunctionDecl *Def = FD->getDefinition();
  bool HasBody = Def && Def->getBody();
  std::optional<ParamRoles> Roles, Unreadable;
  // A body whose allocation the plugin cannot read (a bump pool, a hook
  // through a pointer, a function of another file, more than four calls
  // deep), or a size argument past the declared parameters (variadic),
  // says how many objects only through what it hands where the plugin
  // cannot see (Unreadable).
  if (HasBody && Size < Def->getNumParams() && !Def->isVariadic()) {
    Roles = paramRoles(Def, 4);
    if (!Roles->Allocates || !Roles->InSize.test(Size)) {
      Unreadable = Roles;
      Roles.reset();
    }
  }
  auto role = [&](llvm::SmallBitVector ParamRoles::*B, unsigned I) {
    return Roles && I < Def->getNumParams() && ((*Roles).*B).test(I);
  };
  std::string Unread =
      HasBody ? "its allocation is not one the plugin can read: a hook, a "
                "function of another file, or more than four calls deep"
              : "its body is not in this file";
  // A body read well enough, whose allocation is sized by another
  // parameter than the sizeof argument's (Lua's realloc-as-free,
  // `luaM_realloc_(b, osize, 0)`): say that, not that it is unreadable.
  if (Unreadable && Unreadable->Allocates)
    for (unsigned I = 0; I < CE->getNumArgs() && I < Def->getNumParams(); ++I)
      if (Unreadable->InSize.test(I)) {
        if (auto Z = CE->getArg(I)->getIntegerConstantExpr(Ctx); Z && *Z == 0) {
          R.Problem = Name + " is handed a size of 0 (argument " +
                      std::to_string(I + 1) +
                      "), with which it frees its block: free a compact "
                      "object with free(), or with a function declared "
                      "CP_DEALLOCATOR";
          return R;
        }
        Unread = "its body allocates " + argText(I) + " bytes (argument " +
                 std::to_string(I + 1) +
                 "), which is not sizeof(T) or n * "
                 "sizeof(T)";
        break;
      }

  // The counts: the attribute says it (alloc_size(size) or alloc_size(size,
  // count)), else the allocation in the body.
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
    // Where the sizeof argument is a factor of an allocation's size, the
    // other parameter factors count; a factor of its own (a capacity it
    // picks, a constant, a helper's result) leaves the count unknown.
    // Where it is only inside the size (rounded up, a header added), the
    // object is one -- unless another integer argument is in that size
    // too (a count beside a header: `hdr + n * size`).
    bool Factor = false;
    for (const ParamRoles::Product &P : Roles->Products) {
      if (!P.Params.test(Size))
        continue;
      Factor = true;
      if (P.Other || P.Held.any()) {
        R.Problem = "the plugin cannot tell how many objects " + Name +
                    " allocates: its allocation multiplies the size by "
                    "something other than its arguments (a capacity it "
                    "picks itself, a constant, a helper's result); call "
                    "malloc, calloc or realloc here, or give " +
                    Name + " __attribute__((alloc_size(...)))";
        return R;
      }
      for (unsigned I = 0; I < CE->getNumArgs(); ++I)
        if (I != Size && I < P.Params.size() && P.Params.test(I) && isInt(I) &&
            !llvm::is_contained(R.Counts, CE->getArg(I)))
          R.Counts.push_back(CE->getArg(I));
    }
    for (const ParamRoles::Product &P : Roles->Products)
      if (!Factor && P.Held.test(Size) && P.Other) {
        R.Problem = "the plugin cannot tell how many objects " + Name +
                    " allocates: its allocation's size is the sizeof "
                    "argument changed in its body or combined with a "
                    "constant; give " +
                    Name +
                    " __attribute__((alloc_size(...))), or call malloc, "
                    "calloc or realloc here";
        return R;
      }
    for (unsigned I = 0; !Factor && I < CE->getNumArgs(); ++I)
      if (I != Size && isInt(I) && role(&ParamRoles::InSize, I)) {
        R.Problem = "the plugin cannot tell how many objects " + Name +
                    " allocates: its allocation's size mixes the sizeof "
                    "argument with " +
                    argText(I) + " other than as a product; give " + Name +
                    " __attribute__((alloc_size(...))), or call malloc, "
                    "calloc or realloc here";
        return R;
      }
  } else {
    // No readable body and no attribute: another integer argument may
    // count the objects (xcalloc(n, sizeof *p), or the other way round
    // after a bare sizeof).  Without a body at all, an integer after a
    // size that counts already, or a constant after a bare sizeof, is
    // taken for something else (a zone, flags, an alignment, __LINE__).
    auto opaque = [&](unsigned I) {
      return Unreadable && I < Def->getNumParams() &&
             (Unreadable->Opaque.test(I) || Unreadable->InSize.test(I));
    };
    for (unsigned I = 0; I < CE->getNumArgs(); ++I) {
      const Expr *A = CE->getArg(I)->IgnoreParenImpCasts();
      // A body it can see that keeps the argument to itself (a pool's
      // arena id) gives no count.
      bool Seen = HasBody && !Def->isVariadic() && I < Def->getNumParams() &&
                  Size < Def->getNumParams();
      if (I != Size && isInt(I) &&
          (Seen ? opaque(I)
                : I < Size || HasBody ||
                      (Sh.Counts.empty() && !A->isIntegerConstantExpr(Ctx)))) {
        R.Problem = "the plugin cannot see whether " + argText(I) +
                    " counts the objects " + Name + " allocates (" + Unread +
                    "): give " + Name +
                    " __attribute__((alloc_size(...))), or pass the whole "
                    "size (n * sizeof(T))";
        return R;
      }
    }
  }

  // The block to resize: the one argument the body hands to realloc as it
  // is (the call becomes the runtime's realloc of it).  Any other argument
  // of the allocated type's pointer type (also through a cast), or the
  // pointer the result replaces (`a = f(a, ...)`), is refused unless the
  // body does not use it: a resize through a header or a dereference, a
  // copy by hand, a clone, a hook.
  const Expr *Dest = destinationOf(Ctx, CE);
  for (unsigned I = 0; I < CE->getNumArgs(); ++I) {
    if (I == Size)
      continue;
    const Expr *A = CE->getArg(I)->IgnoreParenCasts();
    if (role(&ParamRoles::Block, I) && !role(&ParamRoles::BlockRef, I) &&
        !role(&ParamRoles::BlockOther, I)) {
      if (R.Block) {
        R.Problem = Name + " hands both " + argText(I) +
                    " and another argument to realloc";
        return R;
      }
      R.Block = CE->getArg(I);
      continue;
    }
    QualType T = A->getType();
    bool OfType = T->isPointerType() &&
                  Ctx.hasSameUnqualifiedType(T->getPointeeType(), Sh.Elem);
    bool IsDest = Dest && sameLValue(A, Dest);
    bool Resized = role(&ParamRoles::BlockRef, I) ||
                   role(&ParamRoles::BlockOther, I) ||
                   role(&ParamRoles::Block, I);
    if (!OfType && !IsDest && !Resized)
      continue;
    if (Roles && !Resized && I < Def->getNumParams() &&
        !usedInBody(Def, Def->getParamDecl(I)))
      continue; // a hint the body does not use
    std::string What = IsDest   ? ", the pointer its result replaces,"
                       : OfType ? ", an object of the type it allocates,"
                                : ",";
    R.Problem =
        Roles ? Name + " is handed " + argText(I) + What +
                    (Resized ? " and resizes it other than by handing it to "
                               "realloc as it is (through a header, a "
                               "dereference or a helper)"
                             : " and uses it other than by handing it to "
                               "realloc (a copy by hand, a clone, a hook)") +
                    ": the runtime cannot take that over; call realloc, or "
                    "malloc and copy, here"
              : "the plugin cannot see whether " + Name + " resizes " +
                    argText(I) + " (" + Unread +
                    "); call realloc here, or give " + Name +
                    " a body in this file that allocates with malloc, "
                    "calloc or realloc";
    return R;
  }
  return R;
}

/// FD gives memory back: its body here calls free or munmap, itself or
/// through functions of the file a few calls deep, and does not allocate
/// from a pool (a builder that frees its scratch is no release); without
/// a body here, the last word of its name says so (`pool_destroy`,
/// `obstack_free`, `arena_reset`; not `pool_free_count`).
static bool releasesMemory(const PoolFacts &F, const FunctionDecl *FD,
                           unsigned Depth = 0) {
  if (const FunctionDecl *Def = FD->getDefinition(); Def && Def->getBody()) {
    // Allocating from a pool it is handed, itself or through a helper.
    bool Frees = false,
         Allocates = llvm::any_of(Def->parameters(), [&](const ParmVarDecl *P) {
           return F.Allocating.count(P);
         });
    anyNode(Def->getBody(), [&](const Stmt *St) {
      const auto *CE = dyn_cast<CallExpr>(St);
      const FunctionDecl *G = CE ? CE->getDirectCallee() : nullptr;
      if (!G)
        return false;
      if (allocFunction(CE) == AllocFn::Allocator)
        Allocates = true;
      else if (G->getIdentifier() &&
               llvm::is_contained({"free", "munmap"}, G->getName()))
        Frees = true;
      else if (Depth < 3 && G->getDefinition() &&
               G->getDefinition()->getBody() && G != FD)
        Frees |= releasesMemory(F, G, Depth + 1);
      return false;
    });
    return Frees && !Allocates;
  }
  StringRef Name = FD->getName();
  StringRef Last =
      Name.rsplit('_').second.empty() ? Name : Name.rsplit('_').second;
  return llvm::any_of(std::initializer_list<StringRef>{"free", "destroy",
                                                       "release", "reset",
                                                       "clear", "drain"},
                      [&](StringRef W) { return Last.equals_insensitive(W); });
}

void checkPoolReleases(Session &S) {
  const Model &M = S.M;
  const PoolFacts &F = poolFacts(M, S.Ctx);
  if (F.Allocating.empty())
    return;
  anyNodeInUnit(S.Ctx, [&](const Stmt *St) {
    const auto *CE = dyn_cast<CallExpr>(St);
    const FunctionDecl *FD = CE ? CE->getDirectCallee() : nullptr;
    if (!FD || S.isIgnoredLoc(CE->getExprLoc()) ||
        S.SM.isInSystemHeader(S.SM.getExpansionLoc(FD->getLocation())))
      return false;
    AllocFn Kind = allocFunction(CE);
    if (Kind != AllocFn::None && Kind != AllocFn::Deallocator)
      return false;
    const Expr *Pool = nullptr, *Object = nullptr, *Untyped = nullptr;
    const FunctionDecl *Allocator = nullptr;
    for (unsigned I = 0; I < CE->getNumArgs(); ++I) {
      const Expr *A = CE->getArg(I);
      if (const ValueDecl *P = poolOf(M, A); P && !Pool) {
        if (auto It = F.Allocating.find(P); It != F.Allocating.end()) {
          Pool = A;
          Allocator = It->second;
        } else if (const RecordDecl *RD = A->IgnoreParenCasts()
                                              ->getType()
                                              ->getPointeeType()
                                              ->getAsRecordDecl()) {
          // A struct that holds the pool (`phase_end(&ph)`, the pool in
          // `ph.nodes`).
          for (const FieldDecl *FD2 : RD->fields())
            if (auto It = F.Allocating.find(FD2); It != F.Allocating.end()) {
              Pool = A;
              Allocator = It->second;
              break;
            }
        }
      } else if (M.pointeeOf(A->IgnoreParenCasts()->getType()) &&
                 I < FD->getNumParams() &&
                 isBytePointer(FD->getParamDecl(I)->getType())) {
        Object = A;
      } else if (isBytePointer(A->IgnoreParenCasts()->getType())) {
        Untyped = A;
      }
    }
    if (!Pool)
      return false;
    std::string Fn = "'" + FD->getNameAsString() + "'";
    std::string From = "the pool that CP_ALLOCATOR function '" +
                       Allocator->getNameAsString() + "' allocates from";
    if (Kind == AllocFn::Deallocator) {
      // Routed to the runtime only where it is handed a compact pointer.
      if (Untyped && !llvm::any_of(CE->arguments(), [&](const Expr *A) {
            return M.pointeeOf(A->IgnoreParenCasts()->getType());
          }))
        S.report(Diag::PoolRelease, Untyped->getExprLoc(),
                 Fn + " (CP_DEALLOCATOR) is handed an untyped pointer with " +
                     From +
                     ": only a compact pointer goes to the runtime, so if "
                     "this is a compact object the pool's own code runs on "
                     "it and frees nothing (it stays allocated until exit); "
                     "hand it as a pointer to its struct",
                 {CharSourceRange::getTokenRange(Untyped->getSourceRange())});
      return false;
    }
    if (Object)
      S.report(Diag::PoolRelease, Object->getExprLoc(),
               Fn + " is handed a compact object and " + From +
                   ": the object is the runtime's, which " + Fn +
                   "'s code does not free (it stays allocated until exit); "
                   "declare " +
                   Fn + " CP_DEALLOCATOR if it frees the object",
               {CharSourceRange::getTokenRange(Object->getSourceRange())});
    else if (releasesMemory(F, FD))
      S.report(Diag::PoolRelease, CE->getExprLoc(),
               Fn + " gives back the memory of " + From +
                   ", but the compact objects allocated \"from\" it are the "
                   "runtime's and are not freed with it: free each with free() "
                   "or a CP_DEALLOCATOR before, or they stay allocated until "
                   "exit",
               {CharSourceRange::getTokenRange(CE->getSourceRange())});
    return false;
  });
}

} // namespace compactptr
