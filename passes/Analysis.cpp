//===- Analysis.cpp - find compact types, classify functions --------------===//
//
// In:  the AST of one translation unit.
// Out: Model::Types, the compact types: every struct annotated `compact`
//      (on any declaration), then, to a fixed point, every struct with a
//      field that points to a compact type or holds one by value (arrays
//      included).  Model::Functions: per function with a body, whether it
//      is layout-dependent and whether it reaches a safepoint (docs/design.md;
//      Rewrite.cpp picks the dual or checked form from them).
// Invariants: keys are canonical declarations; types appear in the order
//      their definitions appear in the TU; system headers are ignored.
// Tests: test/rewrite/inferred-compact-type.c, test/rewrite/layout-reorder.c.
//
//===----------------------------------------------------------------------===//
#include "Engine.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

namespace compactptr {
namespace {

class Collector : public RecursiveASTVisitor<Collector> {
public:
  Collector(Session &S, std::vector<const FunctionDecl *> &Fns)
      : S(S), Fns(Fns) {}
  bool VisitRecordDecl(RecordDecl *RD) {
    if (!RD->isThisDeclarationADefinition() || S.isIgnoredLoc(RD->getLocation()))
      return true;
    S.M.Records.push_back(RD);
    return true;
  }
  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (FD->doesThisDeclarationHaveABody() && !S.isIgnoredLoc(FD->getLocation()))
      Fns.push_back(FD);
    return true;
  }

private:
  Session &S;
  std::vector<const FunctionDecl *> &Fns;
};

void addType(Session &S, const RecordDecl *RD, bool Annotated) {
  auto T = std::make_unique<CompactType>();
  T->RD = RD;
  T->Annotated = Annotated;
  if (const IdentifierInfo *II = RD->getIdentifier()) {
    T->Name = II->getName().str();
    T->WideSpelling = "struct " + T->Name;
  } else if (const TypedefNameDecl *TD = RD->getTypedefNameForAnonDecl()) {
    T->Name = TD->getName().str();
    T->WideSpelling = T->Name;
  }
  T->CompactTag = "cp__c_" + T->Name;
  T->DescName = "cp__desc_" + T->Name;
  S.M.ByDecl[cast<RecordDecl>(RD->getCanonicalDecl())] = T.get();
  S.M.Types.push_back(std::move(T));
}

/// The field makes its struct compact: it points to, or holds, a compact
/// type (through arrays).
bool fieldIsCompact(const Model &M, const FieldDecl *FD) {
  QualType E = stripArrays(FD->getType()).Element;
  return M.pointeeOf(E) || M.recordOf(E);
}

/// Layout-dependent uses of compact types in a body.
class Classifier : public RecursiveASTVisitor<Classifier> {
public:
  Classifier(const Model &M) : M(M) {}
  bool LayoutDependent = false;
  bool Safepoint = false;
  std::vector<const FunctionDecl *> Callees;

  bool VisitMemberExpr(MemberExpr *E) {
    QualType B = E->getBase()->getType();
    return mark(E->isArrow() ? (bool)M.pointeeOf(B) : (bool)M.recordOf(B));
  }
  bool VisitUnaryExprOrTypeTraitExpr(UnaryExprOrTypeTraitExpr *E) {
    return mark(M.elementOf(E->getTypeOfArgument()));
  }
  bool VisitOffsetOfExpr(OffsetOfExpr *E) {
    return mark(M.recordOf(E->getTypeSourceInfo()->getType()));
  }
  bool VisitArraySubscriptExpr(ArraySubscriptExpr *E) {
    return mark(M.recordOf(E->getType()));
  }
  bool VisitBinaryOperator(BinaryOperator *E) {
    return mark(E->isAdditiveOp() && (M.pointeeOf(E->getLHS()->getType()) ||
                                      M.pointeeOf(E->getRHS()->getType())));
  }
  bool VisitUnaryOperator(UnaryOperator *E) {
    return mark((E->isIncrementDecrementOp() && M.pointeeOf(E->getType())) ||
                (E->getOpcode() == UO_Deref && M.recordOf(E->getType())));
  }
  bool VisitCallExpr(CallExpr *E) {
    const FunctionDecl *FD = E->getDirectCallee();
    if (!FD)
      return true;
    if (isSafepointFunction(FD))
      Safepoint = true;
    if (allocFunction(E) != AllocFn::None)
      for (const Expr *A : E->arguments())
        if (M.pointeeOf(A->IgnoreParenCasts()->getType()))
          LayoutDependent = true;
    Callees.push_back(FD->getCanonicalDecl());
    return true;
  }

private:
  const Model &M;
  /// The node depends on a layout if Uses; the visit goes on.
  bool mark(bool Uses) {
    LayoutDependent |= Uses;
    return true;
  }
};

} // namespace

void runAnalysis(Session &S) {
  std::vector<const FunctionDecl *> Fns;
  Collector C(S, Fns);
  C.TraverseDecl(S.Ctx.getTranslationUnitDecl());

  // Annotated types first, then inferred ones to a fixed point.
  for (const RecordDecl *RD : S.M.Records)
    if (RD->isStruct() && hasAttribute(RD, "compact"))
      addType(S, RD, true);
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (const RecordDecl *RD : S.M.Records) {
      if (!RD->isStruct() || S.M.ByDecl.count(cast<RecordDecl>(RD->getCanonicalDecl())))
        continue;
      for (const FieldDecl *FD : RD->fields())
        if (fieldIsCompact(S.M, FD)) {
          addType(S, RD, false);
          Changed = true;
          break;
        }
    }
  }
  // Keep definition order (inferred types were appended late).
  std::stable_sort(S.M.Types.begin(), S.M.Types.end(),
                   [&](const std::unique_ptr<CompactType> &A,
                       const std::unique_ptr<CompactType> &B) {
                     return S.SM.isBeforeInTranslationUnit(
                         A->RD->getBeginLoc(), B->RD->getBeginLoc());
                   });
  if (S.M.Types.empty())
    return;

  // Function classes; safepoint-reaching propagates over TU-local calls.
  llvm::DenseMap<const FunctionDecl *, std::vector<const FunctionDecl *>> Calls;
  for (const FunctionDecl *FD : Fns) {
    Classifier K(S.M);
    K.TraverseStmt(FD->getBody());
    unsigned Cls = FC_None;
    if (K.LayoutDependent)
      Cls |= FC_LayoutDependent;
    if (K.Safepoint || FD->isMain() || isSafepointFunction(FD))
      Cls |= FC_Safepoint;
    S.M.Functions[FD->getCanonicalDecl()] = Cls;
    Calls[FD->getCanonicalDecl()] = std::move(K.Callees);
  }
  Changed = true;
  while (Changed) {
    Changed = false;
    for (auto &[F, Callees] : Calls) {
      unsigned &Cls = S.M.Functions[F];
      if (Cls & FC_Safepoint)
        continue;
      for (const FunctionDecl *G : Callees) {
        auto It = S.M.Functions.find(G);
        if (It != S.M.Functions.end() && (It->second & FC_Safepoint)) {
          Cls |= FC_Safepoint;
          Changed = true;
          break;
        }
      }
    }
  }
}

} // namespace compactptr

namespace compactptr {

const Expr *parentSkippingParens(ASTContext &Ctx, const Expr *E,
                                 const Expr **Outermost) {
  for (;;) {
    auto Ps = Ctx.getParents(*E);
    const Expr *P = Ps.empty() ? nullptr : Ps[0].get<Expr>();
    if (P && isa<ParenExpr>(P)) {
      E = P;
      continue;
    }
    if (Outermost)
      *Outermost = E;
    return P;
  }
}

const FieldDecl *memberField(const Expr *E) {
  const auto *ME = dyn_cast<MemberExpr>(E->IgnoreParens());
  return ME ? dyn_cast<FieldDecl>(ME->getMemberDecl()) : nullptr;
}

/// The base of a member expression lives in a heap object.
static bool memberBaseIsCompact(const Model &M, const MemberExpr *ME) {
  if (ME->isArrow())
    return M.pointeeOf(ME->getBase()->getType()) != nullptr;
  return isCompactLocated(M, ME->getBase());
}

/// `X` decayed to a pointer: returns X, else null.
static const Expr *decayedArray(const Expr *B) {
  B = B->IgnoreParens();
  if (const auto *IC = dyn_cast<ImplicitCastExpr>(B))
    if (IC->getCastKind() == CK_ArrayToPointerDecay)
      return IC->getSubExpr()->IgnoreParens();
  return nullptr;
}

bool isCompactLocated(const Model &M, const Expr *E) {
  E = E->IgnoreParens();
  if (!M.elementOf(E->getType()))
    return false;
  if (boxedVar(M, E))
    return true;
  if (const auto *UO = dyn_cast<UnaryOperator>(E))
    return UO->getOpcode() == UO_Deref &&
           M.pointeeOf(UO->getSubExpr()->getType()) != nullptr;
  if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
    if (const Expr *A = decayedArray(AS->getBase()))
      return isCompactLocated(M, A);
    return M.pointeeOf(AS->getBase()->getType()) != nullptr;
  }
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    return isa<FieldDecl>(ME->getMemberDecl()) && memberBaseIsCompact(M, ME);
  return false;
}

/// E (parentheses stripped) is stored in a heap object: a field of a
/// compact-located object, or an element of a handle array field.
static bool inHeapField(const Model &M, const Expr *E) {
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    return isa<FieldDecl>(ME->getMemberDecl()) && memberBaseIsCompact(M, ME);
  if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E))
    if (const Expr *A = decayedArray(AS->getBase()))
      return isHandleArray(M, A);
  return false;
}

bool isHandleArray(const Model &M, const Expr *E) {
  E = E->IgnoreParens();
  ArrayShape A = stripArrays(E->getType());
  return A.Array && M.pointeeOf(A.Element) && inHeapField(M, E);
}

bool isHandleLValue(const Model &M, const Expr *E) {
  E = E->IgnoreParens();
  return M.pointeeOf(E->getType()) && inHeapField(M, E);
}

} // namespace compactptr
