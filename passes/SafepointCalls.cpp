//===- SafepointCalls.cpp - calls that may reach a safepoint --------------===//
//
// In:  a function in the checked form (Checked.cpp) and the Planner's
//      answer to "may this call reach a safepoint" (an allocation of a
//      compact object, cp_safepoint(), a function of the TU that reaches
//      one, code the engine cannot see).
// Out: for each full expression, the calls that go first: a call with
//      something around it that the switch would leave stale is evaluated
//      into a temporary before the rest of the expression (see below), and
//      the expression's text picks its layout by mode after it.  The roots
//      live across each call are saved and read back by FrameSlots.cpp.
// Tests: test/switchable/safepoint-in-expression.c,
//        test/switchable/allocation-safepoint.c,
//        test/switchable/allocation-macro-initializes.c.
//
//===----------------------------------------------------------------------===//
#include "Walker.h"
#include "clang/AST/ParentMapContext.h"
#include <functional>

using namespace clang;

namespace compactptr {

// ---- calls that may reach a safepoint inside a full expression -----------
//
// The switch may happen inside such a call.  Whatever the expression
// evaluates before the call and uses after it -- a compact pointer held in
// a register, the address of a handle slot, the mode tested at its start --
// is stale afterwards.  So a call with anything of that kind around it is
// evaluated first, into a temporary, and the rest of the expression follows
// with the mode tested after it:
//   `p->next = g(q)`       ->  ({ T cp__h1 = g(q); <p->next = cp__h1, by mode>; })
//   `push(head, mk())`     ->  ({ T cp__h1 = mk(); push(head, cp__h1); })
//   `join(mk(), mk())`     ->  ({ T cp__h1 = 0; <frame: cp__h1>; cp__h1 = mk();
//                                 T cp__h2 = mk(); join(cp__h1, cp__h2); })
// C leaves the order of a call's arguments, of an operator's operands and
// of an assignment's sides unspecified, so evaluating the call first is one
// of the orders the program already allows.  A temporary that is held
// across a later such call is a root.  A call in a conditional operand (an
// arm of ?:, the right of && or ||, or of a comma) cannot go first: if
// something is held across it, that is an error.

void mayReachCalls(const Planner &Pl, const Stmt *St,
                   std::vector<const CallExpr *> &Out,
                   bool IntoStatementExpressions) {
  if (!St || isa<UnaryExprOrTypeTraitExpr>(St))
    return;
  if (const auto *G = dyn_cast<GenericSelectionExpr>(St)) {
    mayReachCalls(Pl, G->getResultExpr(), Out, IntoStatementExpressions);
    return;
  }
  if (isa<StmtExpr>(St) && !IntoStatementExpressions)
    return; // its own statements: not split here
  for (const Stmt *C : St->children())
    mayReachCalls(Pl, C, Out, IntoStatementExpressions);
  if (const auto *CE = dyn_cast<CallExpr>(St); CE && Pl.mayReach(CE))
    Out.push_back(CE);
}

/// The parent of St inside E (St != E), or null.
const Stmt *CheckedWalker::parentIn(const Stmt *St, const Expr *E) {
  if (St == E)
    return nullptr;
  auto Ps = S.Ctx.getParents(*St);
  return Ps.empty() ? nullptr : Ps[0].get<Stmt>();
}

/// Something in Y, evaluated before or after a call, is stale if the
/// switch happens in the call: a node whose compact text differs from its
/// wide one (member access, stride, sizeof ... of a compact type), or a
/// compact pointer or value held as a value.  Y's nodes that are
/// substituted (earlier temporaries) are compact values if their type is.
bool CheckedWalker::staleAcross(const Stmt *Y, bool ValuesToo) {
  if (!Y)
    return false;
  if (!C.substituted(Y).empty()) {
    const auto *E = dyn_cast<Expr>(Y);
    return ValuesToo && E && rootShape(M, E->getType()).Kind;
  }
  if (const auto *U = dyn_cast<UnaryExprOrTypeTraitExpr>(Y))
    return C.affected(U); // sizeof of a compact type: its layout's size
  if (const auto *E = dyn_cast<Expr>(Y)) {
    if (C.own(E) && !isa<CallExpr>(E))
      return true;
    if (ValuesToo && E->isPRValue() && rootShape(M, E->getType()).Kind &&
        E->isNullPointerConstant(S.Ctx, Expr::NPC_ValueDependentIsNotNull) ==
            Expr::NPCK_NotNull)
      return true;
  }
  if (const auto *G = dyn_cast<GenericSelectionExpr>(Y))
    return staleAcross(G->getResultExpr(), ValuesToo);
  for (const Stmt *X : Y->children())
    if (staleAcross(X, ValuesToo))
      return true;
  return false;
}

/// Whether CE, inside full expression E, has something around it that the
/// switch would leave stale (Hazard), and whether it can be evaluated
/// before the rest of E (Hoistable: it is not in a conditional operand).
void CheckedWalker::hazardOf(const Expr *U, const Expr *E, bool &Hazard,
                             bool &Hoistable) {
  Hazard = false;
  Hoistable = true;
  const Stmt *X = U;
  for (const Stmt *A = parentIn(X, E); A; X = A, A = parentIn(A, E)) {
    if (const auto *AE = dyn_cast<Expr>(A); AE && C.own(AE) && !isa<CallExpr>(AE))
      Hazard = true; // layout work on the call's result: after the call
    // A call printed by mode (a dual function's compact body, `f__cp`): the
    // mode is tested before its arguments run, and one that switches would
    // leave the compact body called on wide objects.
    if (const auto *PC = dyn_cast<CallExpr>(A); PC && Direct.own(PC) && !sameText(PC))
      Hazard = true;
    auto stale = [&](const Stmt *Y, bool Values) {
      Hazard |= staleAcross(Y, Values);
    };
    if (const auto *CO = dyn_cast<AbstractConditionalOperator>(A)) {
      if (X == CO->getCond()) {
        stale(CO->getTrueExpr(), false); // evaluated after the call
        stale(CO->getFalseExpr(), false);
      } else {
        Hoistable = false; // the cond was tested before; the arms exclude
      }
      continue;
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(A);
        BO && (BO->isLogicalOp() || BO->getOpcode() == BO_Comma)) {
      if (X == BO->getLHS())
        stale(BO->getRHS(), false);
      else
        Hoistable = false;
      continue;
    }
    if (isa<StmtExpr>(A)) {
      Hoistable = false;
      continue;
    }
    // Unsequenced with the call: evaluated before it and used after it, or
    // evaluated after it.  A variable named as the target of an
    // assignment is an address that does not move.
    for (const Stmt *Y : A->children()) {
      if (!Y || Y == X)
        continue;
      const auto *BA = dyn_cast<BinaryOperator>(A);
      if (BA && BA->isAssignmentOp() && Y == BA->getLHS() &&
          isa<DeclRefExpr>(BA->getLHS()->IgnoreParens()))
        continue;
      stale(Y, true);
    }
  }
}

/// The node a hoisted unit's value is held as: the unit with the implicit
/// conversions and parentheses above it (inside E).
const Expr *CheckedWalker::hoistedNode(const Expr *U, const Expr *E) {
  const Expr *N = U;
  while (N != E) {
    const Stmt *P = parentIn(N, E);
    if (!P || !(isa<ImplicitCastExpr>(P) || isa<ParenExpr>(P)))
      break;
    N = cast<Expr>(P);
  }
  return N;
}

/// X's value is the same whenever it is evaluated between its full
/// expression's start and its use: no side effect, and it reads nothing a
/// call could write (constants, sizes, locals whose address is not taken).
bool CheckedWalker::unchangedByCalls(const Expr *X) const {
  X = X->IgnoreParens();
  if (isa<IntegerLiteral, FloatingLiteral, CharacterLiteral, StringLiteral,
          UnaryExprOrTypeTraitExpr, OffsetOfExpr>(X))
    return true;
  if (const auto *DR = dyn_cast<DeclRefExpr>(X)) {
    const auto *VD = dyn_cast<VarDecl>(DR->getDecl());
    if (!VD)
      return true; // a function, an enumerator
    // An array names its address; a local is changed only through it.
    return VD->getType()->isArrayType() ||
           (VD->hasLocalStorage() && !AddrTaken.count(VD) &&
            !VD->getType().isVolatileQualified());
  }
  if (const auto *UO = dyn_cast<UnaryOperator>(X))
    return !UO->isIncrementDecrementOp() && UO->getOpcode() != UO_Deref &&
           UO->getOpcode() != UO_AddrOf && unchangedByCalls(UO->getSubExpr());
  if (const auto *CE = dyn_cast<CastExpr>(X))
    return (CE->getCastKind() != CK_LValueToRValue ||
            isa<DeclRefExpr>(CE->getSubExpr()->IgnoreParens())) &&
           unchangedByCalls(CE->getSubExpr());
  if (const auto *BO = dyn_cast<BinaryOperator>(X))
    return !BO->isAssignmentOp() && unchangedByCalls(BO->getLHS()) &&
           unchangedByCalls(BO->getRHS());
  return false;
}

/// T can be declared by its name: no struct or enum without a tag in it.
bool namesItsTags(QualType T) {
  while (true) {
    T = T.getCanonicalType();
    if (const auto *PT = T->getAs<PointerType>())
      T = PT->getPointeeType();
    else if (const auto *AT = dyn_cast<ArrayType>(T.getTypePtr()))
      T = AT->getElementType();
    else if (const auto *FT = T->getAs<FunctionType>()) {
      if (const auto *P = dyn_cast<FunctionProtoType>(FT))
        for (QualType A : P->getParamTypes())
          if (!namesItsTags(A))
            return false;
      T = FT->getReturnType();
    } else
      break;
  }
  const TagDecl *TD = T->getAsTagDecl();
  return !TD || TD->getIdentifier();
}

/// A value evaluated ahead of a call that may switch can wait in a
/// temporary of type T: a number, a function pointer, or a compact pointer
/// (a root then) -- not a pointer into an object, which would be stale --
/// declared by its name.
bool CheckedWalker::heldInTemporary(QualType T) const {
  return (T->isArithmeticType() || T->isFunctionPointerType() ||
          M.pointeeOf(T)) &&
         namesItsTags(T);
}

static bool hasStmtExpr(const Stmt *St) {
  return St && (isa<StmtExpr>(St) || llvm::any_of(St->children(), hasStmtExpr));
}

/// The operands that clang's code evaluates before U inside E, outer ones
/// first, which a call could change and which go into a temporary as they
/// are: `counter++` in `pair(counter++, leaf(), leaf())`, `g` in `f(g,
/// leaf())`.  A call's callee and arguments run left to right, an
/// operator's left operand before its right, a scalar assignment's right
/// side before its target.  Only numbers, function pointers and compact
/// pointers (a temporary of those is a root) go, and none after one that
/// cannot: a pointer into an object (`&p->key`, `&p->next`, an array
/// member) would be stale after a switch in U, and clang copies a struct
/// argument after the arguments to its right.
void CheckedWalker::operandsBefore(const Expr *U, const Expr *E,
                                   std::vector<const Expr *> &Out) {
  std::vector<const Expr *> Levels;
  const Stmt *X = U;
  for (const Stmt *A = parentIn(X, E); A; X = A, A = parentIn(A, E)) {
    std::vector<const Expr *> Before;
    const auto *BO = dyn_cast<BinaryOperator>(A);
    if (BO && BO->isAssignmentOp()) {
      // A scalar assignment's right side runs before its target (unitsOf
      // takes its units in that order); a struct's, after.
      if (X == BO->getLHS() && BO->getType()->isScalarType())
        Before.push_back(BO->getRHS());
    } else if (isa<CallExpr>(A) || BO) {
      for (const Stmt *Y : A->children()) {
        if (Y == X)
          break;
        if (const auto *YE = dyn_cast_or_null<Expr>(Y))
          Before.push_back(YE);
      }
    }
    // Outer levels' operands run before inner ones'.
    Levels.insert(Levels.begin(), Before.begin(), Before.end());
  }
  // In order, up to the first that cannot go into a temporary: the rest
  // would run before it, where the native build runs them after.
  for (const Expr *Y : Levels) {
    if (unchangedByCalls(Y))
      continue;
    if (!heldInTemporary(Y->getType()) || hasStmtExpr(Y))
      return;
    Out.push_back(Y);
  }
}

const VarDecl *assignedVariable(const Stmt *St, bool AddressToo) {
  const Expr *Target = nullptr;
  if (const auto *BO = dyn_cast<BinaryOperator>(St); BO && BO->isAssignmentOp())
    Target = BO->getLHS();
  if (const auto *UO = dyn_cast<UnaryOperator>(St);
      UO && (UO->isIncrementDecrementOp() || (AddressToo && UO->getOpcode() == UO_AddrOf)))
    Target = UO->getSubExpr();
  const auto *DR = Target ? dyn_cast<DeclRefExpr>(Target->IgnoreParenImpCasts()) : nullptr;
  return DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
}

/// Some argument of CE assigns (or increments) one of Vs: Restore after
/// the call would undo it, so the arguments go into temporaries first.
static bool assignsAny(const CallExpr *CE, const std::vector<const VarDecl *> &Vs) {
  std::function<bool(const Stmt *)> Any = [&](const Stmt *St) {
    if (!St)
      return false;
    if (const VarDecl *V = assignedVariable(St, /*AddressToo=*/false);
        V && llvm::is_contained(Vs, V))
      return true;
    for (const Stmt *C : St->children())
      if (Any(C))
        return true;
    return false;
  };
  for (const Expr *A : CE->arguments())
    if (Any(A))
      return true;
  return false;
}

/// The checked text of E, by mode where it depends on one, with the nodes
/// of Names printed as their temporaries.  False: E needs no change.  The
/// compact side calls the compact bodies of closed dual functions
/// directly (`g__cp(...)`, which the optimizer may inline, as in a
/// compact-only build): the mode is tested here, and nothing they call
/// can switch, so their dispatch would only test it again.
bool CheckedWalker::modeText(const Expr *E, bool BoolCtx, const Printer::NameMap &Names,
                             const Printer::SpillMap &Spills, std::string &Text) {
  // (Not when SE is a unit of E, `__extension__ ({ ... })`: then Names
  // holds its text already.)
  if (const auto *SE = dyn_cast<StmtExpr>(E->IgnoreParens());
      SE && AllocFirst.count(SE) && !Names.count(SE)) {
    // ({ void *cp__aN = <the allocation>; cp_is_compact() ? <SE, compact>
    //                                                    : <SE, wide>; })
    // with the allocation in SE named cp__aN: it may switch, so the
    // layout is picked after it.
    const CallExpr *In = AllocUnits.at(SE);
    std::string A, Tmp = "cp__a" + std::to_string(++FrameCounter);
    {
      Printer::Context SC(Direct, Names, Spills), SW(W, Names, Spills);
      A = Direct.text(In);
      if (A != W.text(In) || !W.affected(SE)) { // an allocation prints alike
        S.report(Diag::Internal, SE->getBeginLoc(),
                 "compactptr internal error: cannot print this allocation before "
                 "the statement expression it is in",
                 {CharSourceRange::getTokenRange(SE->getSourceRange())});
        return false;
      }
    }
    Printer::NameMap Inner = Names;
    Inner[In] = Tmp;
    Printer::Context SC(Direct, Inner, Spills), SW(W, Inner, Spills);
    std::string TC = Direct.text(SE), TW = W.text(SE);
    bool Void =
        fullExpressionDiscarded(S.Ctx, E) || SE->getType()->isVoidType();
    std::string Pick = Void ? "cp_is_compact() ? (void)" + TC + " : (void)" + TW
                            : "cp_is_compact() ? " + TC + " : " + TW;
    Text = "({ void *" + Tmp + " = " + A + "; " + Pick + "; })";
    if (BoolCtx)
      Text = "!!" + Text;
    return true;
  }
  Printer::Context SC(Direct, Names, Spills), SW(W, Names, Spills);
  if (!Direct.affected(E))
    return false;
  std::string TC = BoolCtx ? Direct.boolText(E) : Direct.text(E);
  std::string TW = W.affected(E) ? (BoolCtx ? W.boolText(E) : W.text(E)) : W.original(E);
  if (TC == TW && !Spills.empty() && fullExpressionDiscarded(S.Ctx, E))
    Text = "(void)(" + TC + ")"; // a call between Save and Restore yields a value
  else if (TC == TW)
    Text = TC;
  else if (BoolCtx)
    Text = "(cp_is_compact() ? !!(" + TC + ") : !!(" + TW + "))";
  else if (fullExpressionDiscarded(S.Ctx, E))
    Text = "(cp_is_compact() ? (void)(" + TC + ") : (void)(" + TW + "))";
  else
    Text = "(cp_is_compact() ? (" + TC + ") : (" + TW + "))";
  return true;
}

/// Checked form: the text of E choosing its layout by mode, with the calls
/// that may reach a safepoint evaluated first where something around them
/// would go stale.  False if E needs no change (or an error was reported).
/// A node whose operands after the first run conditionally or later:
/// ?:, &&, ||, the comma.  Later: those operands.
static bool sequencing(const Stmt *St, llvm::SmallVectorImpl<const Expr *> &Later) {
  if (const auto *CO = dyn_cast<ConditionalOperator>(St)) {
    Later.push_back(CO->getTrueExpr());
    Later.push_back(CO->getFalseExpr());
    return true;
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(St);
      BO && (BO->isLogicalOp() || BO->getOpcode() == BO_Comma)) {
    Later.push_back(BO->getRHS());
    return true;
  }
  return false;
}

/// The units of E, in evaluation order: each call that may reach a
/// safepoint, and each conditional node (?:, &&, ||, comma) below E with
/// such a call in an operand it may skip or runs later -- that node goes
/// first as a whole if anything must, its own calls dealt with inside it.
/// When E itself is such a node, those operands are expressions of their
/// own: their texts go into Subs.
bool CheckedWalker::unitsOf(const Stmt *St, const Expr *E,
                            std::vector<const Expr *> &Units, Printer::NameMap &Subs) {
  if (const auto *SE = dyn_cast<StmtExpr>(St)) {
    if (St != E && AllocUnits.count(SE))
      Units.push_back(SE); // an allocation macro (checkedText)
    return true;
  }
  if (!St || isa<UnaryExprOrTypeTraitExpr>(St))
    return true;
  if (const auto *G = dyn_cast<GenericSelectionExpr>(St))
    return unitsOf(G->getResultExpr(), E, Units, Subs);
  if (isa<BinaryConditionalOperator>(St)) {
    std::vector<const CallExpr *> Calls;
    mayReachCalls(Pl, St, Calls);
    if (Calls.empty())
      return true;
    S.report(Diag::SafepointInExpression, Calls.front()->getExprLoc(),
             "a call that may reach a safepoint in a '?:' with its middle "
             "operand omitted cannot be rewritten; write the middle operand out",
             {CharSourceRange::getTokenRange(St->getSourceRange())});
    return false;
  }
  llvm::SmallVector<const Expr *, 2> Later;
  if (sequencing(St, Later)) {
    // (An allocation macro counts as a call: `n->next = c ? NEW(T) : 0`
    // evaluates the whole ?: first.)
    std::function<bool(const Stmt *)> allocUnitIn = [&](const Stmt *X) {
      if (!X)
        return false;
      if (const auto *SE = dyn_cast<StmtExpr>(X))
        return AllocUnits.count(SE) != 0;
      return llvm::any_of(X->children(), allocUnitIn);
    };
    bool Calls = false;
    for (const Expr *X : Later) {
      std::vector<const CallExpr *> In;
      mayReachCalls(Pl, X, In);
      Calls |= !In.empty() || allocUnitIn(X);
    }
    if (Calls && St != E) {
      Units.push_back(cast<Expr>(St));
      return true;
    }
    if (Calls) {
      for (const Expr *X : Later) {
        std::string T;
        unsigned Before = S.Errors;
        if (exprText(X, false, T))
          Subs[X] = T;
        if (S.Errors != Before)
          return false;
      }
      // Only the first operand belongs to E's own evaluation.
      return unitsOf(*St->child_begin(), E, Units, Subs);
    }
  }
  // In clang's order: a scalar assignment's right side before its target
  // (`mk()->key = mk()->key + n++`).
  llvm::SmallVector<const Stmt *, 4> Kids(St->children());
  if (const auto *BO = dyn_cast<BinaryOperator>(St);
      BO && BO->isAssignmentOp() && BO->getType()->isScalarType())
    std::reverse(Kids.begin(), Kids.end());
  for (const Stmt *Ch : Kids)
    if (!unitsOf(Ch, E, Units, Subs))
      return false;
  if (const auto *CE = dyn_cast<CallExpr>(St); CE && Pl.mayReach(CE))
    Units.push_back(CE);
  return true;
}

/// The calls under St that may reach a safepoint inside a statement
/// expression (`({ ... })`, the body of many allocation and error-check
/// macros), each with the outermost statement expression it is in.
void callsInStmtExprs(const Planner &Pl, const Stmt *St, const StmtExpr *Outer,
                      std::vector<std::pair<const CallExpr *, const StmtExpr *>> &Out) {
  if (!St || isa<UnaryExprOrTypeTraitExpr>(St))
    return;
  if (const auto *SE = dyn_cast<StmtExpr>(St); SE && !Outer)
    Outer = SE;
  // A blocking call in a statement expression (TEMP_FAILURE_RETRY) gets
  // no native region there: it is a plain call, as it was natively.
  if (const auto *CE = dyn_cast<CallExpr>(St);
      CE && Outer && Pl.mayReach(CE) && !Pl.isNativeCall(CE))
    Out.push_back({CE, Outer});
  for (const Stmt *C : St->children())
    callsInStmtExprs(Pl, C, Outer, Out);
}

/// Whether statement expression SE declares a variable that holds a
/// compact pointer before the call At (not one At initializes).
static bool declaresRootIn(const Model &M, const SourceManager &SM,
                               const Stmt *St, const CallExpr *At) {
  if (const auto *DS = dyn_cast<DeclStmt>(St))
    for (const Decl *D : DS->decls())
      if (const auto *VD = dyn_cast<VarDecl>(D);
          VD && rootShape(M, VD->getType()).Kind &&
          SM.isBeforeInTranslationUnit(VD->getEndLoc(), At->getBeginLoc()))
        return true;
  for (const Stmt *C : St->children())
    if (C && declaresRootIn(M, SM, C, At))
      return true;
  return false;
}

/// Whether the allocation In is the first thing statement expression SE
/// evaluates, so that it can be evaluated before SE: what comes before it
/// evaluates nothing (declarations without initializers or with constant
/// ones, type declarations, empty statements), and on the way down to it
/// every operand that C evaluates earlier has In in it (an if's condition,
/// a variable's initializer or new value, the left of &&, || and the
/// comma) and every operand that C leaves unordered beside it has no side
/// effects (`(p = malloc(n)) == NULL`).  In's arguments may not read a
/// variable SE declares.
bool CheckedWalker::allocatesFirst(const StmtExpr *SE, const CallExpr *In) {
  const CompoundStmt *Body = SE->getSubStmt();
  if (!Body)
    return false;
  auto contains = [](const Stmt *X, const Stmt *Y) {
    std::function<bool(const Stmt *)> in = [&](const Stmt *Z) {
      if (!Z || Z == Y)
        return Z != nullptr;
      for (const Stmt *C : Z->children())
        if (in(C))
          return true;
      return false;
    };
    return in(X);
  };
  // 1: In comes first in X; 0: X evaluates nothing; -1: something else
  // comes first (or X is a statement this does not look into).
  std::function<int(const Stmt *)> first = [&](const Stmt *X) -> int {
    if (!X || isa<NullStmt>(X))
      return 0;
    if (X == In)
      return 1;
    if (const auto *CS = dyn_cast<CompoundStmt>(X)) {
      for (const Stmt *C : CS->body())
        if (int R = first(C))
          return R;
      return 0;
    }
    if (const auto *DS = dyn_cast<DeclStmt>(X)) {
      for (const Decl *D : DS->decls()) {
        if (const auto *TD = dyn_cast<TypedefNameDecl>(D);
            TD && TD->getUnderlyingType()->isVariablyModifiedType())
          return -1; // its size is evaluated here
        const auto *VD = dyn_cast<VarDecl>(D);
        if (!VD)
          continue; // a typedef, a struct
        if (VD->getType()->isVariablyModifiedType() || VD->hasGlobalStorage())
          return -1;
        const Expr *I = VD->getInit();
        if (!I || (!contains(I, In) && I->isEvaluatable(S.Ctx)))
          continue;
        return first(I) == 1 ? 1 : -1;
      }
      return 0;
    }
    if (const auto *IS = dyn_cast<IfStmt>(X))
      return !IS->getInit() && !IS->getConditionVariable() && first(IS->getCond()) == 1 ? 1 : -1;
    const auto *E = dyn_cast<Expr>(X);
    if (!E)
      return -1;
    E = E->IgnoreParenCasts();
    if (E == In)
      return 1;
    if (const auto *UO = dyn_cast<UnaryOperator>(E);
        UO && !UO->isIncrementDecrementOp() && UO->getOpcode() != UO_Deref)
      return first(UO->getSubExpr()) == 1 ? 1 : -1;
    const auto *BO = dyn_cast<BinaryOperator>(E);
    if (!BO)
      return -1;
    const Expr *L = BO->getLHS(), *R = BO->getRHS();
    if (BO->getOpcode() == BO_Assign)
      return isa<DeclRefExpr>(L->IgnoreParens()) && first(R) == 1 ? 1 : -1;
    if (BO->isLogicalOp() || BO->getOpcode() == BO_Comma || BO->isAssignmentOp())
      return first(L) == 1 ? 1 : -1; // compound assignment: not looked into
    if (contains(L, In) && !R->HasSideEffects(S.Ctx))
      return first(L) == 1 ? 1 : -1;
    if (contains(R, In) && !L->HasSideEffects(S.Ctx))
      return first(R) == 1 ? 1 : -1;
    return -1;
  };
  // SE is printed once per layout after it: a static local or a label
  // would be two.
  if (first(Body) != 1 || hasStaticLocal(Body) || hasLabel(Body))
    return false;
  // In's text goes before SE, where nothing SE declares is in scope: it
  // may not name any of it (a variable, also under sizeof, a typedef, an
  // enumerator).
  std::set<std::string> Own;
  std::function<void(const Stmt *)> declared = [&](const Stmt *X) {
    if (const auto *DS = dyn_cast_or_null<DeclStmt>(X))
      for (const Decl *D : DS->decls()) {
        if (const auto *ND = dyn_cast<NamedDecl>(D); ND && ND->getIdentifier())
          Own.insert(ND->getName().str());
        if (const auto *ED = dyn_cast<EnumDecl>(D))
          for (const EnumConstantDecl *C : ED->enumerators())
            Own.insert(C->getName().str());
      }
    if (X)
      for (const Stmt *C : X->children())
        declared(C);
  };
  declared(Body);
  Printer::NameMap None;
  Printer::Context SC(Direct, None);
  std::string A = Direct.text(In);
  for (size_t I = 0; I < A.size();) {
    if (!isAsciiIdentifierStart(A[I])) {
      ++I;
      continue;
    }
    size_t J = I;
    while (J < A.size() && isAsciiIdentifierContinue(A[J]))
      ++J;
    if (Own.count(A.substr(I, J - I)))
      return false;
    I = J;
  }
  return true;
}

bool CheckedWalker::declaresRootBefore(const StmtExpr *SE, const CallExpr *At) {
  return declaresRootIn(M, S.Ctx.getSourceManager(), SE->getSubStmt(), At);
}

/// Whether X is printed the same for both layouts.
bool CheckedWalker::sameText(const Expr *X) {
  Printer::NameMap None;
  Printer::Context SC(Direct, None), SW(W, None);
  return Direct.text(X) == (W.affected(X) ? W.text(X) : W.original(X));
}

/// Checked form: the text of the full expression E choosing its layout by
/// mode, with the calls that may reach a safepoint saving the live roots
/// around them and evaluated first where something around them would go
/// stale.  False if E needs no change (or an error was reported).
bool CheckedWalker::checkedText(const Expr *E, bool BoolCtx, std::string &Text) {
  // The statements of a statement expression are not the walker's: the
  // expression is printed whole, by mode, so a switch inside it would
  // leave the layout it picked, and the roots around it, stale.
  std::vector<std::pair<const CallExpr *, const StmtExpr *>> Inner;
  callsInStmtExprs(Pl, E, nullptr, Inner);
  unsigned EB = offsetOf(E->getBeginLoc()), EE = endOffsetOf(E->getEndLoc());
  // E is printed by mode (a member access, a size of a compact type, a
  // call to a dual function's compact body): a switch inside would leave
  // the layout it picked stale.  (An allocation is printed alike for both.)
  bool Layout = !Inner.empty() && !sameText(E);
  std::vector<const CallExpr *> InnerAllocs;
  AllocUnits.clear();
  AllocFirst.clear();
  NotSavedAt.clear();
  for (auto [In, SE] : Inner) {
    // Harmless where nothing around the call depends on the layout and no
    // compact pointer is live across it (`CHECK(write(fd, ...))`).
    bool Ok;
    std::vector<const SlotRoot *> Live =
        liveAt(offsetOf(In->getBeginLoc()), endOffsetOf(In->getEndLoc()), EB, EE, In, Ok, true);
    if (!Ok)
      return false;
    if (!Layout && Live.empty())
      continue;
    // An allocation (`NEW(T)`: `({ T *p = calloc(1, sizeof(T)); if (!p)
    // abort(); p; })`) saves the roots live across it on its slow path,
    // where it may switch, and reads them back at once: the function's
    // variables, in either layout's form -- not those the statement
    // expression declares, which are not the function's roots.  If the
    // statement expression reads no layout (its text is the same in both),
    // the switch leaves nothing in it stale; what is around it in E is
    // dealt with as around a call: the statement expression is a unit,
    // evaluated first where something around it would go stale
    // (`n->next = NEW(T)`, `f(head, NEW(T))`).
    if (slowPathSite(In) && sameText(SE) && !declaresRootBefore(SE, In)) {
      InnerAllocs.push_back(In);
      AllocUnits.insert({SE, In});
      continue;
    }
    // The usual allocation macro initializes the object it allocates
    // (`({ T *p = malloc(sizeof *p); p->key = k; p->next = NULL; p; })`):
    // its text depends on the layout, but the allocation is the first
    // thing it evaluates, so the mode can be tested after it.
    if (slowPathSite(In) && allocatesObject(S, In) && sameText(In) &&
        allocatesFirst(SE, In) &&
        llvm::count_if(Inner, [SE = SE](const auto &P) { return P.second == SE; }) == 1) {
      InnerAllocs.push_back(In);
      AllocUnits.insert({SE, In});
      AllocFirst.insert(SE);
      // SE's own variables hold nothing yet where In runs, before SE,
      // out of their scope: none is saved around it.
      std::set<const VarDecl *> &Own = NotSavedAt[In];
      std::function<void(const Stmt *)> own = [&](const Stmt *X) {
        if (const auto *DS = dyn_cast_or_null<DeclStmt>(X))
          for (const Decl *D : DS->decls())
            if (const auto *VD = dyn_cast<VarDecl>(D))
              Own.insert(VD);
        if (X)
          for (const Stmt *C : X->children())
            own(C);
      };
      own(SE->getSubStmt());
      continue;
    }
    std::string From = SE->getBeginLoc().isMacroID()
                           ? " (from macro '" + W.macroName(SE) + "')"
                           : std::string();
    S.report(Diag::SafepointInExpression, SE->getBeginLoc(),
             "this statement expression" + From +
                 " calls a function that may reach a safepoint (the switch "
                 "can happen in the middle of it: the layout picked before "
                 "and the compact pointers held across it would be stale); "
                 "write it as a function (a static inline function that "
                 "allocates is rewritten), or as a statement",
             {CharSourceRange::getTokenRange(SE->getSourceRange()),
              CharSourceRange::getTokenRange(In->getSourceRange())});
    return false;
  }
  std::vector<const CallExpr *> Calls;
  mayReachCalls(Pl, E, Calls);
  Calls.insert(Calls.end(), InnerAllocs.begin(), InnerAllocs.end());
  // The roots to save around each call.
  Spills.clear();
  unsigned Before = S.Errors;
  // A call in the arguments of another (`val(mk(2))`, the function's
  // frame of slots shared by both): the outer call saved its roots before
  // its arguments ran, so the inner one leaves the slots of those roots
  // set when it reads them back.  Cleared there, the outer call would read
  // back null, and the roots would be gone while it runs.
  auto savedAround = [&](const CallExpr *CE) {
    std::set<const VarDecl *> Kept;
    for (const Stmt *X = CE; X != E;) {
      auto Ps = S.Ctx.getParents(*X);
      X = Ps.empty() ? nullptr : Ps[0].get<Stmt>();
      if (!X)
        break;
      if (const auto *Outer = dyn_cast<CallExpr>(X); Outer && llvm::is_contained(Calls, Outer)) {
        bool Ok;
        for (const SlotRoot *R : liveAt(offsetOf(Outer->getBeginLoc()),
                                        endOffsetOf(Outer->getEndLoc()), EB, EE, Outer, Ok, true))
          Kept.insert(R->VD);
      }
    }
    return Kept;
  };
  for (const CallExpr *CE : Calls) {
    NativeRegion *Region = isNativeTransition(CE) ? regionOf(CE) : nullptr;
    Printer::Spill Sp = spillAt(offsetOf(CE->getBeginLoc()), endOffsetOf(CE->getEndLoc()),
                                EB, EE, CE, slowPathSite(CE), Region, savedAround(CE));
    // A blocking call outside a native region of the program's own gets
    // one (even with no root live across it: the thread must count as
    // stopped while it blocks), its arguments evaluated before it, where
    // they may still read compact objects.
    if (Pl.isNativeCall(CE) && !InRegion.count(CE) && S.Errors == Before) {
      Sp.Native = true;
      Sp.ArgTemps = true;
    }
    // A call out of rewritten code, likewise outside (the switch may run
    // while the callee waits), but not inside a native region (the thread
    // is stopped there already).
    if (!Sp.Native && isCallOut(S, CE) && !InRegion.count(CE) && !Region &&
        S.Errors == Before) {
      Sp.CallOut = true;
      Sp.ArgTemps = true;
    }
    if (CE == Transfer.At) {
      Sp.TransferVar = Transfer.Var;
      Sp.TransferLabel = Transfer.Label;
    }
    if (Sp.empty())
      continue;
    if (isNativeTransition(CE) && !Region) {
      // Saved and read back here, a root would be read back at the entry
      // and saved again at the exit, over the value the switch translated.
      S.report(Diag::SafepointInExpression, CE->getExprLoc(),
               "this native region holds compact pointers ('" +
                   Sp.Saved.front()->getName().str() +
                   "'...) across it: write cp_native_enter(); and "
                   "cp_native_leave(); as statements of one block, or use "
                   "CP_NATIVE(stmt)",
               {CharSourceRange::getTokenRange(CE->getSourceRange())});
      return false;
    }
    Sp.ArgTemps |= assignsAny(CE, Sp.Saved);
    Sp.Id = ++FrameCounter;
    Spills[CE] = std::move(Sp);
  }
  if (S.Errors != Before)
    return false;
  bool Changed = exprText(E, BoolCtx, Text);
  Spills.clear();
  return Changed && S.Errors == Before;
}

/// exprText: E (a full expression, or an operand of a conditional node
/// that is printed on its own) with its units dealt with.
bool CheckedWalker::exprText(const Expr *E, bool BoolCtx, std::string &Text) {
  Printer::NameMap Names;
  std::vector<const Expr *> Units;
  if (!unitsOf(E, E, Units, Names))
    return false;
  std::vector<std::pair<const Expr *, std::string>> Hoisted; // node, its text
  for (const Expr *U : Units) {
    bool Hazard, Hoistable;
    {
      Printer::Context SC(C, Names);
      hazardOf(U, E, Hazard, Hoistable);
    }
    const auto *CE = dyn_cast<CallExpr>(U);
    std::string UT; // a conditional unit's own text
    if (!CE) {
      if (!exprText(U, false, UT))
        UT = W.original(U);
    }
    if (!Hazard) {
      if (!CE)
        Names[U] = UT; // in place
      continue;
    }
    if (!Hoistable || isa<InitListExpr>(E)) {
      const CallExpr *At = CE;
      if (const auto *SE = dyn_cast<StmtExpr>(U))
        At = AllocUnits.at(SE);
      if (!At) {
        std::vector<const CallExpr *> In;
        mayReachCalls(Pl, U, In);
        At = In.front();
      }
      const FunctionDecl *G = At->getDirectCallee();
      std::string Callee = G ? "'" + G->getName().str() + "'" : "a function pointer";
      if (allocatesObject(S, At))
        Callee = "an allocation (" + Callee + ")";
      S.report(Diag::SafepointInExpression, At->getExprLoc(),
               "this expression holds a compact pointer or uses a compact "
               "layout across a call to " + Callee +
                   ", which may reach a safepoint (the switch can happen in "
                   "the middle of the expression), and the call cannot be "
                   "evaluated first; store the call's result in a local first",
               {CharSourceRange::getTokenRange(E->getSourceRange())});
      return false;
    }
    // What clang's code evaluates before U and a call could change goes
    // first too, in its order: `pair(counter++, leaf(), leaf())` reads the
    // counter before the leaves are made, as the native build does.
    std::vector<const Expr *> Earlier;
    operandsBefore(U, E, Earlier);
    for (const Expr *Y : Earlier) {
      const Expr *YN = hoistedNode(Y, E);
      if (Names.count(YN) || Names.count(Y))
        continue;
      // Its own calls that may reach a safepoint went first already
      // (units come in clang's order), or it and the rest stay: printed by
      // mode ahead of such a call, it would pick the layout before the
      // switch.
      std::vector<const CallExpr *> In;
      mayReachCalls(Pl, Y, In);
      if (llvm::any_of(In, [&](const CallExpr *CE) {
            return !Names.count(CE) && !Names.count(hoistedNode(CE, E));
          }))
        break;
      std::string YT;
      if (!modeText(YN, false, Names, Spills, YT))
        YT = W.original(YN);
      Names[YN] = "cp__h" + std::to_string(++FrameCounter);
      Hoisted.push_back({YN, YT});
      Pl.note(FD, Y->getExprLoc(), "operand evaluated first",
              "it runs before a call evaluated first, as in the native build");
    }
    const Expr *N = hoistedNode(U, E);
    if (CE) {
      // The call's text with the units inside it already named.
      if (!modeText(N, false, Names, Spills, UT))
        UT = W.original(N);
    } else if (N != U) {
      Printer::NameMap Inner = Names;
      Inner[U] = UT;
      if (!modeText(N, false, Inner, Spills, UT))
        UT = W.original(N);
    }
    Names[N] = "cp__h" + std::to_string(++FrameCounter);
    Hoisted.push_back({N, UT});
    std::string What = CE && CE->getDirectCallee()
                           ? "call to '" + CE->getDirectCallee()->getName().str() + "'"
                       : CE                ? "call through a pointer"
                       : isa<StmtExpr>(U) ? "statement expression that allocates"
                                          : "conditional operand with a call";
    Pl.note(FD, U->getExprLoc(), What + " evaluated first",
            "the switch may happen inside it");
  }
  if (Hoisted.empty())
    return modeText(E, BoolCtx, Names, Spills, Text);

  // ({ <temporaries> <frame of those held across a later unit> <h1 = unit
  // 1;> ... <rest of E>; }): declarations first (C89).
  std::string Decls, Body;
  std::vector<std::pair<std::string, QualType>> Roots;
  for (size_t I = 0; I < Hoisted.size(); ++I) {
    const auto &[N, T] = Hoisted[I];
    const std::string &Name = Names[N];
    QualType Ty = N->getType().getUnqualifiedType();
    // `size_t`, `node_t *`: by the type it names, which no local of the
    // same name hides (where that type has names all through).
    if (namesItsTags(Ty))
      Ty = Ty.getCanonicalType().getUnqualifiedType();
    if (Ty->isVoidType()) {
      Body += "(void)(" + T + "); ";
      continue;
    }
    bool Root = I + 1 < Hoisted.size() && rootShape(M, Ty).Kind;
    Decls += W.declText(Ty, Name) +
             (!Root ? "; " : Ty->isPointerType() ? " = 0; " : " = {0}; ");
    if (Root) // held across the next unit
      Roots.push_back({Name, Ty});
    Body += Name + " = " + T + "; ";
  }
  std::string Rest;
  if (!modeText(E, BoolCtx, Names, Spills, Rest))
    Rest = W.original(E);
  Text = "__extension__({ " + Decls + (Roots.empty() ? "" : frameText(Roots) + " ") + Body +
         Rest + "; })";
  return true;
}

} // namespace compactptr
