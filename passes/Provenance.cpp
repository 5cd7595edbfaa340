//===- Provenance.cpp - compact pointers known to come from the arena -----===//
//
// In:  every function body of the translation unit.
// Out: Model::KnownVars, KnownReturns: locals, parameters of functions no
//      other file can call, and function results, whose every value is a
//      null pointer, a compact allocation, a handle just decoded, or
//      another such value.  A store of such a value into a handle field
//      needs no range check (the printers' cp__sth_known): it is in the
//      arena and granule-aligned by construction.  Every other store keeps
//      the check, which stops the program on a foreign pointer (a pool's
//      memory, a stack object) instead of storing a handle that names
//      something else.
// The greatest fixed point: every candidate starts known, and one value
// from anywhere else (a global, a non-compact field, a cast from an
// integer, pointer arithmetic, an asm output, a parameter of a function
// another file may call or that is entered other than by the calls the
// AST shows -- its address, an alias, asm, a cleanup attribute -- a
// variable whose address is taken) removes it, until nothing changes.
// A result counts only from the body that runs (not a weak or an inline
// definition another may replace).
// Tests: test/rewrite/encode-provenance.c.
//
//===----------------------------------------------------------------------===//
#include "Engine.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/StringSet.h"

using namespace clang;

namespace compactptr {

namespace {

/// Every value each candidate can take (null: one the analysis cannot
/// follow), and the functions used other than by a direct call.
struct Sources {
  llvm::DenseMap<const VarDecl *, std::vector<const Expr *>> Vars;
  llvm::DenseMap<const FunctionDecl *, std::vector<const Expr *>> Returns;
  llvm::DenseSet<const FunctionDecl *> AddressTaken; ///< canonical
  llvm::DenseSet<const DeclRefExpr *> Callees;
  /// Names reached by other paths than a call the AST shows: alias
  /// targets, and the text of every asm statement (a `call f` there).
  llvm::StringSet<> Aliased;
  std::vector<std::string> AsmTexts;
  bool inAsm(llvm::StringRef Name) const {
    for (const std::string &T : AsmTexts)
      if (llvm::StringRef(T).contains(Name))
        return true;
    return false;
  }
};

class Collect : public RecursiveASTVisitor<Collect> {
public:
  Collect(const Model &M, Sources &Src) : M(M), Src(Src) {}

  bool TraverseFunctionDecl(FunctionDecl *D) {
    const FunctionDecl *Outer = FD;
    FD = D;
    bool Ok = RecursiveASTVisitor::TraverseFunctionDecl(D);
    FD = Outer;
    return Ok;
  }

  bool VisitVarDecl(VarDecl *VD) {
    if (candidate(VD) && !isa<ParmVarDecl>(VD) && VD->getInit())
      Src.Vars[VD].push_back(VD->getInit());
    // A cleanup function is called with the variable's address, where no
    // call is written.
    if (const auto *C = VD->getAttr<CleanupAttr>())
      if (const FunctionDecl *F = C->getFunctionDecl())
        Src.AddressTaken.insert(F->getCanonicalDecl());
    return true;
  }
  bool VisitDecl(Decl *D) {
    if (const auto *A = D->getAttr<AliasAttr>())
      Src.Aliased.insert(A->getAliasee());
    if (const auto *A = D->getAttr<IFuncAttr>())
      Src.Aliased.insert(A->getResolver());
    if (const auto *A = dyn_cast<FileScopeAsmDecl>(D))
      Src.AsmTexts.push_back(A->getAsmString()->getString().str());
    return true;
  }
  bool VisitGCCAsmStmt(GCCAsmStmt *A) {
    Src.AsmTexts.push_back(A->getAsmString()->getString().str());
    // An output operand is an assignment the AST shows no value for.
    for (unsigned I = 0; I < A->getNumOutputs(); ++I)
      if (const VarDecl *V = target(A->getOutputExpr(I)))
        Src.Vars[V].push_back(nullptr);
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator *BO) {
    if (!BO->isAssignmentOp()) // `p != NULL` reads p, it does not set it
      return true;
    if (const VarDecl *V = target(BO->getLHS()))
      Src.Vars[V].push_back(BO->getOpcode() == BO_Assign ? BO->getRHS() : nullptr);
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *UO) {
    // ++, --, and & (written through a pointer afterwards).
    if (UO->isIncrementDecrementOp() || UO->getOpcode() == UO_AddrOf)
      if (const VarDecl *V = target(UO->getSubExpr()))
        Src.Vars[V].push_back(nullptr);
    return true;
  }
  bool VisitReturnStmt(ReturnStmt *RS) {
    if (RS->getRetValue() && FD)
      Src.Returns[FD].push_back(RS->getRetValue());
    return true;
  }
  bool VisitCallExpr(CallExpr *CE) {
    const auto *Callee = dyn_cast<DeclRefExpr>(CE->getCallee()->IgnoreParenImpCasts());
    const auto *G = Callee ? dyn_cast<FunctionDecl>(Callee->getDecl()) : nullptr;
    if (!G)
      return true;
    Src.Callees.insert(Callee);
    const FunctionDecl *Def = G->getDefinition();
    if (!Def)
      return true;
    for (unsigned I = 0; I < Def->getNumParams(); ++I)
      Src.Vars[Def->getParamDecl(I)].push_back(I < CE->getNumArgs() ? CE->getArg(I)
                                                                      : nullptr);
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *DR) {
    if (const auto *G = dyn_cast<FunctionDecl>(DR->getDecl()); G && !Src.Callees.count(DR))
      Src.AddressTaken.insert(G->getCanonicalDecl());
    return true;
  }

private:
  const Model &M;
  Sources &Src;
  const FunctionDecl *FD = nullptr; ///< whose body is being visited

  bool candidate(const VarDecl *VD) const {
    QualType T = VD->getType();
    return VD->hasLocalStorage() && T->isPointerType() && M.pointeeOf(T) &&
           !T.isVolatileQualified();
  }
  const VarDecl *target(const Expr *E) const {
    const VarDecl *V = localVariable(E);
    return V && candidate(V) ? V : nullptr;
  }
};

} // namespace

static bool inMainFile(const Session &S, SourceLocation L) {
  return S.SM.isInMainFile(S.SM.getExpansionLoc(L));
}

bool isKnownCompact(const Session &S, const Expr *E) {
  const Model &M = S.M;
  while (E) {
    if (E->isNullPointerConstant(S.Ctx, Expr::NPC_ValueDependentIsNotNull))
      return true;
    E = E->IgnoreParens();
    if (const auto *CE = dyn_cast<CastExpr>(E)) {
      // Only casts that keep the address as it is.
      CastKind K = CE->getCastKind();
      if (K != CK_NoOp && K != CK_BitCast && K != CK_LValueToRValue)
        return false;
      const Expr *Sub = CE->getSubExpr();
      if (K == CK_LValueToRValue && isHandleLValue(M, Sub))
        return true; // a handle just decoded
      E = Sub;
      continue;
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
      if (BO->getOpcode() != BO_Comma && BO->getOpcode() != BO_Assign)
        return false;
      E = BO->getRHS();
      continue;
    }
    if (const auto *CO = dyn_cast<AbstractConditionalOperator>(E))
      return isKnownCompact(S, CO->getTrueExpr()) && isKnownCompact(S, CO->getFalseExpr());
    if (const auto *DR = dyn_cast<DeclRefExpr>(E)) {
      const auto *V = dyn_cast<VarDecl>(DR->getDecl());
      return V && M.KnownVars.count(V);
    }
    if (const auto *CE = dyn_cast<CallExpr>(E)) {
      if (allocatesObject(S, CE))
        return true;
      const FunctionDecl *G = localDefinition(S, CE);
      // A header's text is rewritten once for every file that includes
      // it, so what it stores must not depend on this file's functions.
      if (G && inMainFile(S, G->getLocation()) && !inMainFile(S, CE->getBeginLoc()))
        return false;
      return G && M.KnownReturns.count(G);
    }
    return false;
  }
  return false;
}

void runProvenance(Session &S) {
  Model &M = S.M;
  Sources Src;
  std::vector<const FunctionDecl *> Fns = definitionsInOrder(S);
  // The whole unit, not only the bodies: a function named in a file-scope
  // initializer (a table of handlers) can be called with anything.
  Collect(M, Src).TraverseDecl(S.Ctx.getTranslationUnitDecl());
  // Reached other than by the calls the AST shows: through its address,
  // an alias, asm, or as a constructor, destructor or `used` symbol.
  auto enteredElsewhere = [&](const FunctionDecl *F) {
    return Src.AddressTaken.count(F->getCanonicalDecl()) || Src.Aliased.count(F->getName()) ||
           Src.inAsm(F->getName()) || F->hasAttr<UsedAttr>() ||
           F->hasAttr<ConstructorAttr>() || F->hasAttr<DestructorAttr>();
  };
  // Start from every candidate: locals, parameters of functions only this
  // file calls directly, results of compact-pointer type.
  for (auto &[V, Values] : Src.Vars) {
    const auto *P = dyn_cast<ParmVarDecl>(V);
    const auto *Owner = P ? dyn_cast<FunctionDecl>(P->getDeclContext()) : nullptr;
    // Parameters of a function in a header depend on the callers of each
    // file that includes it: not followed (the header is rewritten once).
    if (P && (!Owner || !Owner->getIdentifier() || Owner->isExternallyVisible() ||
              !inMainFile(S, Owner->getLocation()) || Owner->isVariadic() ||
              enteredElsewhere(Owner)))
      continue;
    M.KnownVars.insert(V);
  }
  // Results only of the body that runs: not a weak one (another file's
  // may win at link time), not an inline definition that is not the
  // external one (a call may go to the external definition), not one a
  // name is aliased to through asm.
  for (const FunctionDecl *FD : Fns)
    if (FD->getReturnType()->isPointerType() && M.pointeeOf(FD->getReturnType()) &&
        FD->getIdentifier() && !FD->isWeak() && !FD->hasAttr<GNUInlineAttr>() &&
        !(FD->isInlined() && FD->isExternallyVisible() &&
          !FD->isInlineDefinitionExternallyVisible()) &&
        !Src.inAsm(FD->getName()))
      M.KnownReturns.insert(FD);
  // A candidate with no value at all (a parameter never passed, a local
  // never assigned) has no entry in Src.Vars and is not known; one whose
  // only values are its own (`p = p ? p : q` with q known) stays known.
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (auto &[V, Values] : Src.Vars)
      if (M.KnownVars.count(V))
        for (const Expr *E : Values)
          if (!E || !isKnownCompact(S, E)) {
            M.KnownVars.erase(V);
            Changed = true;
            break;
          }
    for (auto &[FD, Values] : Src.Returns)
      if (M.KnownReturns.count(FD))
        for (const Expr *E : Values)
          if (!isKnownCompact(S, E)) {
            M.KnownReturns.erase(FD);
            Changed = true;
            break;
          }
  }
}

} // namespace compactptr
