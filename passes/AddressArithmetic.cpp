//===- AddressArithmetic.cpp - addresses that are integers for a moment ---===//
//
// In:  a cast between a compact pointer and an integer, from Safety.cpp's
//      integer-cast check.
// Out: whether the integer lives only where no switch can come: pointer
//      arithmetic done in integers and turned back into a pointer before
//      any call.  mcf rebases its pointers after a realloc that way:
//
//        off = (size_t)new - (size_t)old;
//        for (...) p->f = (arc_t *)((size_t)p->f + off);
//
//      Each value is the address of the moment, used at once: the switch
//      (which happens only in calls) cannot move an object between the
//      casts, so there is nothing to warn about and no site for the
//      runtime to list after the switch.  Only additions and subtractions
//      count (a tag or'ed into the low bits is the integer-cast warning's
//      alignment matter), only locals (a parameter's value comes from
//      before the call), and only where no call, loop around a call, or
//      goto lies between an integer's first and last use (source order:
//      no path can bring an integer made before a call to a use after it).
// Tests: test/diagnostics/integer-round-trip.c.
//
//===----------------------------------------------------------------------===//
#include "Engine.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

namespace compactptr {

namespace {

/// The facts of one function body the checks below ask for, gathered in
/// one walk: where its calls are, its loops that hold calls, its gotos.
struct Body {
  SourceManager &SM;
  std::vector<unsigned> Calls;
  std::vector<std::pair<unsigned, unsigned>> LoopsWithCalls;
  bool Jumps = false;

  Body(ASTContext &Ctx, const Stmt *B) : SM(Ctx.getSourceManager()) {
    struct Walk : RecursiveASTVisitor<Walk> {
      Body &Self;
      explicit Walk(Body &B) : Self(B) {}
      bool VisitCallExpr(CallExpr *CE) {
        Self.Calls.push_back(Self.at(CE->getBeginLoc()));
        return true;
      }
      bool VisitGotoStmt(GotoStmt *) { return Self.Jumps = true; }
      bool VisitIndirectGotoStmt(IndirectGotoStmt *) {
        return Self.Jumps = true;
      }
      bool VisitStmt(Stmt *St) {
        if (isa<ForStmt, WhileStmt, DoStmt>(St))
          Self.LoopsWithCalls.emplace_back(Self.at(St->getBeginLoc()),
                                           Self.at(St->getEndLoc()));
        return true;
      }
    } W(*this);
    W.TraverseStmt(const_cast<Stmt *>(B));
    // Keep the loops that hold a call.
    llvm::erase_if(LoopsWithCalls, [&](std::pair<unsigned, unsigned> L) {
      return llvm::none_of(
          Calls, [&](unsigned C) { return L.first <= C && C <= L.second; });
    });
  }

  unsigned at(SourceLocation L) const {
    return SM.getFileOffset(SM.getExpansionLoc(L));
  }

  /// No call lies in [Lo, Hi], and no loop around a call holds any of
  /// Points (a value made in one pass would be used in the next).
  bool quiet(unsigned Lo, unsigned Hi, ArrayRef<unsigned> Points) const {
    if (Jumps)
      return false;
    for (unsigned C : Calls)
      if (Lo <= C && C <= Hi)
        return false;
    for (auto [LB, LE] : LoopsWithCalls)
      for (unsigned P : Points)
        if (LB <= P && P <= LE)
          return false;
    return true;
  }
};

class RoundTrips {
public:
  RoundTrips(Session &S, const FunctionDecl *F)
      : S(S), F(F), B(S.Ctx, F->getBody()) {}

  /// The integer E (a compact pointer made one) goes, through additions,
  /// straight into an integer made a pointer again, or into a local that
  /// does so (local), with no call in between.
  bool transientInteger(const Expr *E) {
    const Expr *Top = nullptr;
    const Stmt *To = consumer(E, Top);
    if (const auto *C = dyn_cast_or_null<CastExpr>(To))
      return C->getCastKind() == CK_IntegralToPointer && callFree(Top);
    const VarDecl *V = assignedLocal(To, Top);
    return V && callFree(Top) && local(V);
  }

  /// The integer made a compact pointer by E is an address of the moment:
  /// it adds to the address a pointer made integer in the same expression
  /// (or a local holding such addresses, local) only constants and
  /// integers no address went into; no call runs in it.
  bool transientPointer(const CastExpr *E) {
    const Expr *Sub = E->getSubExpr();
    bool Address = false;
    return callFree(Sub) && leaves(Sub, Address, 0) && Address;
  }

private:
  Session &S;
  const FunctionDecl *F;
  Body B;
  llvm::DenseMap<const VarDecl *, bool> Locals;

  /// An addition or subtraction of integers, or a conversion between
  /// integer types.
  static bool additive(const Expr *P) {
    if (!P->getType()->isIntegerType())
      return false;
    if (const auto *BO = dyn_cast<BinaryOperator>(P))
      return BO->isAdditiveOp();
    const auto *C = dyn_cast<CastExpr>(P);
    return C &&
           (C->getCastKind() == CK_IntegralCast || C->getCastKind() == CK_NoOp);
  }

  /// Up from E through additions and integer conversions: what its value
  /// ends in (null for a declaration's initializer), and Top, the whole
  /// expression it is part of there.
  const Stmt *consumer(const Expr *E, const Expr *&Top) {
    Top = E;
    for (;;) {
      const Expr *Cur = Top;
      const Expr *P = parentSkippingParens(S.Ctx, Top, &Cur);
      Top = Cur;
      if (!P) {
        auto Ps = S.Ctx.getParents(*Cur);
        return Ps.empty() ? nullptr : Ps[0].get<Stmt>();
      }
      if (!additive(P))
        return P;
      Top = P;
    }
  }

  /// The local integer a value Top ends in initializes or is assigned to
  /// (`off = ...`, `size_t off = ...`), or null.
  const VarDecl *assignedLocal(const Stmt *To, const Expr *Top) {
    if (const auto *BO = dyn_cast_or_null<BinaryOperator>(To)) {
      if (BO->getOpcode() != BO_Assign || BO->getRHS()->IgnoreParens() != Top)
        return nullptr;
      const auto *DR = dyn_cast<DeclRefExpr>(BO->getLHS()->IgnoreParens());
      return DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
    }
    if (To)
      return nullptr;
    auto Ps = S.Ctx.getParents(*Top);
    return Ps.empty() ? nullptr : Ps[0].get<VarDecl>();
  }

  static bool callFree(const Stmt *St) {
    if (!St)
      return false;
    if (isa<CallExpr, StmtExpr>(St))
      return false;
    for (const Stmt *C : St->children())
      if (C && !callFree(C))
        return false;
    return true;
  }

  /// V, an integer local (no parameter, static, volatile or address
  /// taken), is read only where its value goes straight into an integer
  /// made a pointer, and no call comes between its first and last use.
  bool local(const VarDecl *V) {
    if (auto It = Locals.find(V); It != Locals.end())
      return It->second;
    Locals[V] = false; // (a use of V in its own uses: not followed again)
    bool Ok = V->hasLocalStorage() && !isa<ParmVarDecl>(V) &&
              V->getType()->isIntegerType() &&
              !V->getType().isVolatileQualified();
    std::vector<unsigned> Points;
    // What is stored into it: addresses of the moment, constants, plain
    // numbers (a value kept in a global, read back, is not).
    auto stored = [&](const Expr *X) {
      bool Address = false;
      return leaves(X, Address, 0);
    };
    if (Ok && V->hasInit()) {
      Points.push_back(B.at(V->getInit()->getBeginLoc()));
      Ok = stored(V->getInit());
    }
    if (Ok)
      anyReferenceTo(F->getBody(), V, [&](const DeclRefExpr *DR) {
        Points.push_back(B.at(DR->getBeginLoc()));
        const Expr *Cur = DR;
        const Expr *P = parentSkippingParens(S.Ctx, DR, &Cur);
        if (const auto *BO = dyn_cast_or_null<BinaryOperator>(P);
            BO && BO->getOpcode() == BO_Assign &&
            BO->getLHS()->IgnoreParens() == Cur) {
          Ok = stored(BO->getRHS());
          return !Ok;
        }
        const auto *Read = dyn_cast_or_null<ImplicitCastExpr>(P);
        if (!Read || Read->getCastKind() != CK_LValueToRValue) {
          Ok = false;
          return true;
        }
        const Expr *Top = nullptr;
        const auto *C = dyn_cast_or_null<CastExpr>(consumer(Read, Top));
        Ok = C && C->getCastKind() == CK_IntegralToPointer && callFree(Top);
        return !Ok;
      });
    if (Ok && !Points.empty()) {
      auto [Lo, Hi] = std::minmax_element(Points.begin(), Points.end());
      Ok = B.quiet(*Lo, *Hi, Points);
    }
    return Locals[V] = Ok;
  }

  /// Every leaf of the additions E is made of: a pointer made an integer
  /// here (Address), a constant, a local of such addresses (local), or a
  /// local no address went into.  Depth bounds the locals followed.
  bool leaves(const Expr *E, bool &Address, unsigned Depth) {
    E = E->IgnoreParens();
    if (E->isIntegerConstantExpr(S.Ctx))
      return true;
    if (const auto *BO = dyn_cast<BinaryOperator>(E))
      return BO->isAdditiveOp() && leaves(BO->getLHS(), Address, Depth) &&
             leaves(BO->getRHS(), Address, Depth);
    if (const auto *C = dyn_cast<CastExpr>(E)) {
      if (C->getCastKind() == CK_PointerToIntegral) {
        Address = true;
        return true;
      }
      if (C->getCastKind() == CK_LValueToRValue) {
        const auto *DR = dyn_cast<DeclRefExpr>(C->getSubExpr()->IgnoreParens());
        const auto *V = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
        return V && (local(V) || (Depth < 3 && plainNumber(V, Depth + 1)));
      }
      return additive(C) && leaves(C->getSubExpr(), Address, Depth);
    }
    return false;
  }

  /// V is a local integer no address went into: every value stored into
  /// it is made of constants and such locals only.
  bool plainNumber(const VarDecl *V, unsigned Depth) {
    if (!V->hasLocalStorage() || isa<ParmVarDecl>(V) ||
        !V->getType()->isIntegerType())
      return false;
    auto numeric = [&](const Expr *X) {
      struct Find : RecursiveASTVisitor<Find> {
        RoundTrips &Self;
        unsigned Depth;
        bool Ok = true;
        Find(RoundTrips &R, unsigned D) : Self(R), Depth(D) {}
        bool VisitCastExpr(CastExpr *C) {
          Ok &= C->getCastKind() != CK_PointerToIntegral;
          return Ok;
        }
        bool VisitCallExpr(CallExpr *) { return Ok = false; }
        bool VisitMemberExpr(MemberExpr *) { return Ok = false; }
        bool VisitDeclRefExpr(DeclRefExpr *DR) {
          if (const auto *W = dyn_cast<VarDecl>(DR->getDecl()))
            Ok &= Depth < 3 && Self.plainNumber(W, Depth + 1);
          return Ok;
        }
      } Fd(*this, Depth);
      Fd.TraverseStmt(const_cast<Expr *>(X));
      return Fd.Ok;
    };
    if (V->hasInit() && !numeric(V->getInit()))
      return false;
    bool Ok = true;
    anyReferenceTo(F->getBody(), V, [&](const DeclRefExpr *DR) {
      const Expr *Cur = DR;
      const Expr *P = parentSkippingParens(S.Ctx, DR, &Cur);
      if (const auto *UO = dyn_cast_or_null<UnaryOperator>(P)) {
        Ok = UO->isIncrementDecrementOp();
      } else if (const auto *BO = dyn_cast_or_null<BinaryOperator>(P);
                 BO && BO->isAssignmentOp() &&
                 BO->getLHS()->IgnoreParens() == Cur) {
        Ok = numeric(BO->getRHS());
      }
      return !Ok;
    });
    return Ok;
  }
};

} // namespace

bool transientAddressInteger(Session &S, const FunctionDecl *F,
                             const CastExpr *E) {
  if (!F || !F->hasBody())
    return false;
  RoundTrips R(S, F);
  return E->getCastKind() == CK_PointerToIntegral ? R.transientInteger(E)
                                                  : R.transientPointer(E);
}

} // namespace compactptr
