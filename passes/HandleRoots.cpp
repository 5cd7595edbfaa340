//===- HandleRoots.cpp - root arrays that hold handles (compact-only) -----===//
//
// In:  compact-only mode; the variables of type `T **` (T compact) of the
//      main file, and every reference to them in the translation unit.
// Out: Model::HandleRoots, HandleRootAllocs, HandleRootFrees; the edits
//      of their declarations (`struct node **b` -> `cp_handle_t *b`).
//
// A heap array of compact pointers (`malloc(n * sizeof(struct node *))`)
// is a root array: native slots of 8 bytes, because the array is handed
// around as a `struct node **` that any code may index, pass to qsort or
// to another file.  Where the plugin sees every use of the array, the
// slots can hold 4-byte handles instead, as a program compressed by hand
// stores indices in its bucket array: half the memory, and the chains it
// heads read without a decode.  That is so for a variable
//   - of the main file, file-static or local (no other file names it),
//     alone in its declaration, not thread-local, without attributes,
//   - whose every use is: an element read `v[i]` or written `v[i] = x`; an
//     allocation `v = malloc(n * sizeof(T *))` or `calloc` (also as its
//     initializer, `sizeof *v` inside it too); `v = NULL`; `free(v)`; a
//     truth test or a comparison with a null pointer constant; an
//     assignment's own value only tested (not `w = v = malloc(..)`).
// Anything else -- `&v[i]`, `*v`, `v + 1`, `v` passed or copied anywhere,
// `realloc`, `memset` -- keeps the array a root array of native pointers:
// the choice is per variable and silent, since both are correct.  Only
// compact-only mode: no switch ever needs to widen these arrays, which
// the runtime cannot find.
// Printed by Printer.cpp (element reads decode, writes encode: such an
// element is a handle lvalue, like a handle field; a cast written on the
// allocation goes) and Allocation.cpp (`malloc(n * sizeof(cp_handle_t))`;
// `free` stays, which compactptr.h links to cp_free_any, and that hands a
// block of libc's back to libc).
// Tests: test/rewrite/handle-root-array.c.
//
//===----------------------------------------------------------------------===//
#include "Engine.h"
#include "Printer.h"
#include "Vocabulary.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace compactptr {

namespace {

bool isNull(ASTContext &Ctx, const Expr *E) {
  return E->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull) !=
         Expr::NPCK_NotNull;
}

/// The compact T of a variable typed exactly `T **` (no qualifier on
/// either pointer), else null.
CompactType *elementPointee(const Model &M, QualType VT) {
  if (VT.hasQualifiers() || !VT->isPointerType())
    return nullptr;
  QualType E = VT->getPointeeType();
  if (E.hasQualifiers() || !E->isPointerType())
    return nullptr;
  return M.pointeeOf(E);
}

/// CE allocates an array of `T *` for a variable of element type `T *`:
/// malloc or calloc, sized `n * sizeof(T *)` (one pointer an element).
bool isElementAllocation(const Model &M, const CallExpr *CE, const CompactType *T) {
  AllocFn F = allocFunction(CE);
  if (F != AllocFn::Malloc && F != AllocFn::Calloc)
    return false;
  SizeShape Sh = allocSizeShape(CE);
  if (!Sh.Ok || Sh.Elem.isNull() || !Sh.Elem->isPointerType() ||
      Sh.Elem->getPointeeType().hasQualifiers())
    return false;
  return M.pointeeOf(Sh.Elem) == T;
}

struct Collect : RecursiveASTVisitor<Collect> {
  const Model &M;
  llvm::DenseMap<const VarDecl *, std::vector<const DeclRefExpr *>> Uses;
  explicit Collect(const Model &M) : M(M) {}
  bool VisitDeclRefExpr(DeclRefExpr *DR) {
    if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl()))
      if (elementPointee(M, VD->getType()))
        Uses[VD->getCanonicalDecl()].push_back(DR);
    return true;
  }
};

class Chooser {
public:
  Chooser(Session &S) : S(S), Ctx(S.Ctx), SM(S.SM) {}

  void choose(const VarDecl *V, const std::vector<const DeclRefExpr *> &Uses) {
    CompactType *T = elementPointee(S.M, V->getType());
    if (!T || !declarationFits(V))
      return;
    std::vector<const CallExpr *> Allocs, Frees;
    if (const Expr *I = V->getInit()) {
      const auto *CE = dyn_cast<CallExpr>(I->IgnoreParenCasts());
      if (CE && isElementAllocation(S.M, CE, T))
        Allocs.push_back(CE);
      else if (!isNull(Ctx, I))
        return;
    }
    // Assignments first: a `sizeof *v` is allowed only inside one of them.
    std::vector<const DeclRefExpr *> Rest;
    for (const DeclRefExpr *DR : Uses) {
      if (!SM.isInMainFile(SM.getExpansionLoc(DR->getLocation())))
        return;
      const Expr *P = parentSkippingParens(Ctx, DR);
      const auto *BO = dyn_cast_or_null<BinaryOperator>(P);
      if (!BO || BO->getOpcode() != BO_Assign || BO->getLHS()->IgnoreParens() != DR) {
        Rest.push_back(DR);
        continue;
      }
      // The assignment's own value is the array too (`w = v = malloc(..)`,
      // `return v = ..`): only a test of it may follow.
      if (!valueDiscardedOrTested(Ctx, BO))
        return;
      const Expr *R = BO->getRHS()->IgnoreParenCasts();
      const auto *CE = dyn_cast<CallExpr>(R);
      if (CE && isElementAllocation(S.M, CE, T))
        Allocs.push_back(CE);
      else if (!isNull(Ctx, BO->getRHS()))
        return;
    }
    for (const DeclRefExpr *DR : Rest)
      if (!usedAsElementsOnly(DR, Allocs, Frees))
        return;
    S.M.HandleRoots.insert(V);
    S.M.HandleRootAllocs.insert(Allocs.begin(), Allocs.end());
    S.M.HandleRootFrees.insert(Frees.begin(), Frees.end());
    // `static struct node **b` -> `static cp_handle_t *b`: the name and
    // what follows it (an initializer) keep their text.
    CharSourceRange R = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(V->getBeginLoc(), V->getLocation()), SM, S.LO);
    std::string Storage = V->getStorageClass() == SC_Static     ? "static "
                          : V->getStorageClass() == SC_Register ? "register "
                                                                : "";
    if (!R.isValid() ||
        !S.Edits.replace(SM, R, Storage + "cp_handle_t *" + V->getName().str()))
      S.report(Diag::Internal, V->getLocation(),
               "compactptr internal error: cannot rewrite the declaration of '" +
                   V->getName().str() + "'");
  }

private:
  Session &S;
  ASTContext &Ctx;
  const SourceManager &SM;

  /// V is declared once, in the main file, on its own, in the user's
  /// text: its declaration can be rewritten whole.
  bool declarationFits(const VarDecl *V) {
    if (isa<ParmVarDecl>(V) || V->getPreviousDecl() || V->getMostRecentDecl() != V ||
        V->hasExternalStorage() || V->getTLSKind() != VarDecl::TLS_None || V->hasAttrs() ||
        (V->hasGlobalStorage() && V->isExternallyVisible()) ||
        V->getType().isVolatileQualified())
      return false;
    if (V->getBeginLoc().isMacroID() || V->getLocation().isMacroID() ||
        !SM.isInMainFile(V->getLocation()))
      return false;
    // Alone in its declaration: no other declarator shares its start, and
    // no struct is defined or first named in the text the rewrite
    // replaces (`static struct node {...} **v;`).
    for (const Decl *D : V->getDeclContext()->decls())
      if (D != V && (D->getBeginLoc() == V->getBeginLoc() ||
                     (isa<TagDecl>(D) &&
                      !SM.isBeforeInTranslationUnit(D->getLocation(), V->getBeginLoc()) &&
                      SM.isBeforeInTranslationUnit(D->getLocation(), V->getLocation()))))
        return false;
    // A declarator of only `*`s and the name: `(*v)` or an attribute in
    // it would be cut by the rewrite, which ends at the name.
    for (TypeLoc TL = V->getTypeSourceInfo()->getTypeLoc(); !TL.isNull();
         TL = TL.getNextTypeLoc())
      if (TL.getAs<ParenTypeLoc>() || TL.getAs<AttributedTypeLoc>())
        return false;
    auto Ps = Ctx.getParents(*V);
    if (!Ps.empty())
      if (const auto *DS = Ps[0].get<DeclStmt>(); DS && !DS->isSingleDecl())
        return false;
    return true;
  }

  /// DR (not the left side of an assignment) reads V only to index it,
  /// test it, free it, or measure an element inside one of Allocs.
  bool usedAsElementsOnly(const DeclRefExpr *DR, const std::vector<const CallExpr *> &Allocs,
                          std::vector<const CallExpr *> &Frees) {
    if (insideElementSizeof(DR, Allocs))
      return true;
    // Any other unevaluated operand (`sizeof v[0]->data`, `__typeof__`,
    // `_Generic`) is left as written, where `v[0]` would be a handle.
    if (inUnevaluatedOperand(Ctx, DR))
      return false;
    const Expr *Top = nullptr;
    const auto *RV = dyn_cast_or_null<ImplicitCastExpr>(parentSkippingParens(Ctx, DR));
    if (!RV || RV->getCastKind() != CK_LValueToRValue)
      return false;
    const Expr *P = parentSkippingParens(Ctx, RV, &Top);
    if (!P)
      return valueDiscardedOrTested(Ctx, RV);
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(P)) {
      if (AS->getBase()->IgnoreParens() != RV)
        return false;
      // The element: read (an rvalue of it) or assigned, nothing else.
      const Expr *EP = parentSkippingParens(Ctx, AS, &Top);
      if (const auto *L = dyn_cast_or_null<ImplicitCastExpr>(EP))
        return L->getCastKind() == CK_LValueToRValue;
      const auto *BO = dyn_cast_or_null<BinaryOperator>(EP);
      return BO && BO->getOpcode() == BO_Assign && BO->getLHS()->IgnoreParens() == AS;
    }
    if (const auto *IC = dyn_cast<ImplicitCastExpr>(P)) {
      // free(v): through the conversion to `void *`.
      const auto *CE = dyn_cast_or_null<CallExpr>(parentSkippingParens(Ctx, IC));
      if (IC->getCastKind() == CK_BitCast && CE && allocFunction(CE) == AllocFn::Free &&
          CE->getNumArgs() == 1 && CE->getArg(0)->IgnoreParenImpCasts() == DR) {
        Frees.push_back(CE);
        return true;
      }
    }
    // `if (v)`, `!v`, `v == NULL`, `(void)v`: the same in either form.
    return valueDiscardedOrTested(Ctx, RV);
  }

  /// E is `*v` or `v[k]` of the variable DR names, itself.
  static bool isElementOf(const Expr *E, const DeclRefExpr *DR) {
    E = E->IgnoreParens();
    const Expr *Base = nullptr;
    if (const auto *UO = dyn_cast<UnaryOperator>(E); UO && UO->getOpcode() == UO_Deref)
      Base = UO->getSubExpr();
    else if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E))
      Base = AS->getBase();
    return Base && Base->IgnoreParenImpCasts() == DR;
  }

  /// DR is inside `sizeof *v` or `sizeof v[k]` (an element's size) within
  /// the arguments of one of Allocs.
  bool insideElementSizeof(const DeclRefExpr *DR, const std::vector<const CallExpr *> &Allocs) {
    const Stmt *Cur = DR;
    const UnaryExprOrTypeTraitExpr *Trait = nullptr;
    for (int Depth = 0; Depth < 64; ++Depth) {
      auto Ps = Ctx.getParents(*Cur);
      if (Ps.empty())
        return false;
      const Stmt *P = Ps[0].get<Stmt>();
      if (!P)
        return false;
      if (const auto *U = dyn_cast<UnaryExprOrTypeTraitExpr>(P); U && !Trait) {
        if (U->getKind() != UETT_SizeOf || U->isArgumentType() ||
            !isElementOf(U->getArgumentExpr(), DR))
          return false;
        Trait = U;
      }
      if (const auto *CE = dyn_cast<CallExpr>(P))
        return Trait && llvm::is_contained(Allocs, CE);
      Cur = P;
    }
    return false;
  }
};

} // namespace

void runHandleRoots(Session &S) {
  if (!S.Opts.compactOnly())
    return;
  Collect C(S.M);
  C.TraverseDecl(S.Ctx.getTranslationUnitDecl());
  // Declaration order, so the edits do not depend on the map's order.
  std::vector<const VarDecl *> Vars;
  for (auto &[V, Uses] : C.Uses)
    Vars.push_back(V);
  llvm::sort(Vars, [&](const VarDecl *A, const VarDecl *B) {
    return S.SM.isBeforeInTranslationUnit(A->getLocation(), B->getLocation());
  });
  Chooser Ch(S);
  for (const VarDecl *V : Vars)
    Ch.choose(V, C.Uses[V]);
}

bool isHandleRootElement(const Model &M, const Expr *E) {
  if (M.HandleRoots.empty())
    return false;
  const auto *AS = dyn_cast<ArraySubscriptExpr>(E->IgnoreParens());
  const auto *DR = AS ? dyn_cast<DeclRefExpr>(AS->getBase()->IgnoreParenImpCasts()) : nullptr;
  const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
  return VD && M.HandleRoots.count(VD->getCanonicalDecl());
}

} // namespace compactptr
