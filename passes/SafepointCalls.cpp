//===- SafepointCalls.cpp - roots and calls that may reach a safepoint ----===//
//
// In:  a function in the checked form (Checked.cpp) and the Planner's
//      answer to "may this call reach a safepoint" (an allocation of a
//      compact object, cp_safepoint(), a function of the TU that reaches
//      one, code the engine cannot see).
// Out: (1) the function's frame of slots.  Every scalar compact-pointer
//      local and parameter has a slot; it stays an ordinary variable (a
//      register, most of the time) and is saved into its slot before a call
//      that may reach a safepoint and read back after it, when it may be
//      used after the call.  Allocation sites and polls save only on their
//      slow path (a switch pending, or an arena that cannot serve the
//      allocation), so the common case costs a load and a branch.  The
//      frame is pushed before the first statement of the body that saves
//      a root, so paths that return before it pay nothing; slow paths in
//      a function without one register their roots out of line
//      (cp__saved_slow).
//      (2) For each full expression, the calls that go first: a call with
//      something around it that the switch would leave stale is evaluated
//      into a temporary before the rest of the expression (see below), and
//      the expression's text picks its layout by mode after it.
// Invariants: a variable is saved only where it is in scope and named by
//      itself (no inner declaration hides it); its slot is read back before
//      any later use.  Liveness is approximated from the source: a use
//      after the call, in the same full expression, or anywhere in a loop
//      around the call (every variable in scope, if the function has
//      labels).
// Tests: test/switchable/allocation-safepoint.c, test/switchable/slot-roots.c,
//        test/switchable/safepoint-in-expression.c, test/switchable/builders.test.
//
//===----------------------------------------------------------------------===//
#include "Walker.h"
#include "clang/AST/ParentMapContext.h"
#include <functional>

using namespace clang;

namespace compactptr {

// ---- frame slots --------------------------------------------------------

bool CheckedWalker::isSlotRoot(const VarDecl *VD) const {
  // A variable whose address is taken may be written through it while a
  // call runs: it is registered by address instead.
  if (!VD->hasLocalStorage() || !VD->getIdentifier() || AddrTaken.count(VD))
    return false;
  QualType T = VD->getType();
  return T->isPointerType() && M.pointeeOf(T) && !T.isConstQualified() &&
         !T.isVolatileQualified();
}

unsigned CheckedWalker::offsetOf(SourceLocation L) const {
  SourceLocation E = SM.getExpansionLoc(L);
  return SM.getFileID(E) == BodyFID ? SM.getFileOffset(E) : ~0u;
}

/// The statement a declaration in DS is scoped to: the block, or the for,
/// if, while or switch statement that declares it.
static const Stmt *scopeOf(ASTContext &Ctx, const DeclStmt *DS, const Stmt *Body) {
  auto Ps = Ctx.getParents(*DS);
  const Stmt *P = Ps.empty() ? nullptr : Ps[0].get<Stmt>();
  return P ? P : Body;
}

void CheckedWalker::collectSlots(const CompoundStmt *Body) {
  BodyFID = SM.getFileID(SM.getExpansionLoc(Body->getBeginLoc()));
  std::function<void(const Stmt *)> Addr = [&](const Stmt *St) {
    if (!St)
      return;
    if (const auto *UO = dyn_cast<UnaryOperator>(St); UO && UO->getOpcode() == UO_AddrOf)
      if (const auto *DR = dyn_cast<DeclRefExpr>(UO->getSubExpr()->IgnoreParens()))
        if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl()))
          AddrTaken.insert(VD);
    for (const Stmt *C : St->children())
      Addr(C);
  };
  Addr(Body);
  unsigned BB = offsetOf(Body->getBeginLoc()), BE = offsetOf(Body->getEndLoc());
  llvm::DenseMap<const VarDecl *, size_t> Index;
  auto add = [&](const VarDecl *VD, unsigned DeclEnd, unsigned SB, unsigned SE) {
    Locals.push_back({VD, DeclEnd, SB, SE});
    if (!isSlotRoot(VD))
      return;
    Index[VD] = Slots.size();
    Slots.push_back({VD, (unsigned)Slots.size(), DeclEnd, SB, SE, {}});
  };
  for (const ParmVarDecl *P : FD->parameters())
    if (P->getIdentifier())
      add(P, 0, BB, BE);
  std::function<void(const Stmt *)> Walk = [&](const Stmt *St) {
    if (!St)
      return;
    if (const auto *DS = dyn_cast<DeclStmt>(St)) {
      const Stmt *Scope = scopeOf(S.Ctx, DS, Body);
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D); VD && VD->getIdentifier() &&
                                                   VD->isLocalVarDecl())
          add(VD, offsetOf(VD->getEndLoc()) + 1, offsetOf(Scope->getBeginLoc()),
              offsetOf(Scope->getEndLoc()));
    } else if (const auto *DR = dyn_cast<DeclRefExpr>(St)) {
      if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl()))
        if (auto It = Index.find(VD); It != Index.end())
          Slots[It->second].Refs.push_back(offsetOf(DR->getLocation()));
    } else if (isa<WhileStmt>(St) || isa<DoStmt>(St) || isa<ForStmt>(St)) {
      Loops.push_back({offsetOf(St->getBeginLoc()), offsetOf(St->getEndLoc())});
    } else if (isa<LabelStmt>(St) || isa<AddrLabelExpr>(St) ||
               isa<IndirectGotoStmt>(St)) {
      AllLive = true; // a goto may jump back: every variable in scope is live
    }
    for (const Stmt *C : St->children())
      Walk(C);
  };
  Walk(Body);
}

/// A site whose roots are saved only on its slow path: an allocation of
/// compact objects (malloc, calloc) or cp_safepoint().
bool CheckedWalker::slowPathSite(const CallExpr *CE) const {
  if (allocatesObject(S, CE))
    return allocFunction(CE) != AllocFn::Realloc;
  const FunctionDecl *G = CE->getDirectCallee();
  return G && G->getName() == "cp_safepoint" && CE->getNumArgs() == 0;
}

/// The slot roots live across a call at [CB, CE] of full expression
/// [EB, EE] (a poll: CB == CE, EB > EE): in scope there, and used after it,
/// in the same full expression, or in a loop around it.  Ok is false after
/// an error (a variable hidden by an inner one of the same name).
std::vector<const CheckedWalker::SlotRoot *>
CheckedWalker::liveAt(unsigned CB, unsigned CE, unsigned EB, unsigned EE,
                      const Stmt *At, bool &Ok) {
  std::vector<const SlotRoot *> Out;
  Ok = true;
  auto inScope = [&](unsigned DeclEnd, unsigned SB, unsigned SE) {
    return DeclEnd <= CB && SB <= CB && CE <= SE;
  };
  for (const SlotRoot &R : Slots) {
    if (!inScope(R.DeclEnd, R.ScopeB, R.ScopeE))
      continue;
    bool Live = AllLive;
    for (unsigned X : R.Refs) {
      if (Live)
        break;
      if (X > CE || (X >= EB && X <= EE)) {
        Live = true;
        break;
      }
      for (auto [LB, LE] : Loops)
        if (LB <= CB && CE <= LE && R.ScopeB <= LB && X >= LB && X <= LE) {
          Live = true;
          break;
        }
    }
    if (!Live)
      continue;
    // An inner declaration of the same name hides it here.
    for (const LocalVar &L : Locals)
      if (L.VD != R.VD && L.VD->getName() == R.VD->getName() &&
          inScope(L.DeclEnd, L.ScopeB, L.ScopeE) && L.ScopeB >= R.ScopeB &&
          L.DeclEnd > R.DeclEnd) {
        S.report(Diag::Unrewritable, At->getBeginLoc(),
                 "'" + R.VD->getName().str() +
                     "' holds a compact pointer across this call, which may "
                     "reach a safepoint, but an inner declaration of the same "
                     "name hides it here; rename one of them",
                 {CharSourceRange::getTokenRange(At->getSourceRange())});
        Ok = false;
        return {};
      }
    Out.push_back(&R);
  }
  return Out;
}

/// `Slot = V` and `V = Slot` for a compact-pointer variable: plain
/// assignments (void * converts both ways), or byte copies where the
/// pointee is qualified (no cast may drop a qualifier).  A slot of the
/// function's frame is cleared once read back (Clear): it stays registered
/// while the variable is dead or changes, and a stale value there would be
/// a root into freed memory at a later safepoint (the switch would follow
/// it, COMPACTPTR_VERIFY stop on it).
static void saveRestore(const VarDecl *V, const std::string &Slot, bool Clear,
                        std::string &Save, std::string &Restore) {
  std::string N = V->getName().str();
  QualType P = V->getType()->getPointeeType();
  if (P.isConstQualified() || P.isVolatileQualified()) {
    Save += (Save.empty() ? "" : ", ") + std::string("__builtin_memcpy(&") + Slot +
            ", &" + N + ", sizeof " + N + ")";
    Restore += "__builtin_memcpy(&" + N + ", &" + Slot + ", sizeof " + N + "); ";
  } else {
    Save += (Save.empty() ? "" : ", ") + Slot + " = " + N;
    Restore += N + " = " + Slot + "; ";
  }
  if (Clear)
    Restore += Slot + " = 0; ";
}

/// The most roots cp__saved_slow registers (CP__SAVED_MAX, Emit.cpp).
static constexpr size_t SavedMax = 16;

/// The text that saves the roots live across a call and reads them back:
/// into the function's frame of slots, or, where the function has none
/// (it saves roots only on slow paths), into slots that the slow path
/// registers out of line (cp__saved_slow: the fast path stays small
/// enough to inline), or into a frame of its own that lives as long as
/// the call.
Printer::Spill CheckedWalker::spillAt(unsigned CB, unsigned CE, unsigned EB,
                                      unsigned EE, const Stmt *At, bool SlowPath) {
  Printer::Spill Sp;
  bool Ok;
  std::vector<const SlotRoot *> Live = liveAt(CB, CE, EB, EE, At, Ok);
  if (!Ok || Live.empty())
    return Sp;
  for (const SlotRoot *R : Live)
    Sp.Saved.push_back(R->VD);
  if (SlotFrame) {
    for (const SlotRoot *R : Live)
      saveRestore(R->VD, "cp__slots[" + std::to_string(R->Index) + "]", true, Sp.Save,
                  Sp.Restore);
    return Sp;
  }
  std::string K = std::to_string(Live.size());
  if (SlowPath && Live.size() <= SavedMax) {
    // Types and names are constants; the helper fills the descriptors.
    std::string Types, Names;
    for (size_t I = 0; I < Live.size(); ++I) {
      Types += std::string(I ? ", " : "") + "&" + M.pointeeOf(Live[I]->VD->getType())->DescName;
      Names += std::string(I ? ", " : "") + "\"" + Live[I]->VD->getName().str() + "\"";
      saveRestore(Live[I]->VD, "cp__ls[" + std::to_string(I) + "]", false, Sp.Save,
                  Sp.Restore);
    }
    Sp.Decls = "void *cp__ls[" + K + "]; static cp_type_desc_t *const cp__lt[" + K +
               "] = {" + Types + "}; static const char *const cp__ln[" + K + "] = {" +
               Names + "};";
    Sp.Helper = "cp__ls, " + K + ", cp__lt, cp__ln";
    return Sp;
  }
  Sp.Decls = "void *cp__ls[" + K + "]; cp_root_desc_t cp__lr[" + K +
             "]; cp_frame_t cp__lf; int cp__li __attribute__((unused)) = (";
  for (size_t I = 0; I < Live.size(); ++I) {
    std::string Slot = "cp__ls[" + std::to_string(I) + "]";
    Sp.Decls += "cp__root(&cp__lr[" + std::to_string(I) + "], (void *)&" + Slot +
                ", CP_ROOT_POINTER, 1, &" + M.pointeeOf(Live[I]->VD->getType())->DescName +
                ", \"" + Live[I]->VD->getName().str() + "\"), ";
    saveRestore(Live[I]->VD, Slot, false, Sp.Save, Sp.Restore);
  }
  Sp.Decls += "cp__frame(&cp__lf, " + K + ", cp__lr));";
  Sp.Restore += "cp_frame_pop(&cp__lf);";
  return Sp;
}

/// A poll at offset Pos: `cp_safepoint();`, or with the live roots saved
/// on its slow path.
std::string CheckedWalker::pollText(unsigned Pos, const Stmt *At) {
  Printer::Spill Sp = spillAt(Pos, Pos, 1, 0, At, true);
  if (Sp.empty())
    return "cp_safepoint();";
  return "if (cp__safepoint_due()) { " + Sp.block() + " " +
         Sp.slow("2", "0", "0", "cp_safepoint_slow()") + "; " + Sp.Restore + "}";
}

/// The function's frame of slots, when a call saves roots on every path
/// (a call to a function that may reach a safepoint, not an allocation or
/// a poll): before the first statement of the body that saves a root
/// there (at the top of the body if a label could jump past it), so a
/// path that returns before it (a recursion's base case, even one that
/// allocates) pays nothing for the frame.  Without one, slow paths
/// register their roots themselves.
void CheckedWalker::placeSlotFrame(const CompoundStmt *Body) {
  if (Slots.empty())
    return;
  std::vector<const CallExpr *> Calls;
  mayReachCalls(Pl, Body, Calls);
  std::set<const VarDecl *> Needed;
  std::vector<unsigned> Saves; // offsets of the calls and polls that save
  bool Unconditional = false;
  for (const CallExpr *CE : Calls) {
    unsigned CB = offsetOf(CE->getBeginLoc()), CEnd = offsetOf(CE->getEndLoc());
    bool Ok;
    for (const SlotRoot *R : liveAt(CB, CEnd, 0, ~0u, CE, Ok)) {
      Needed.insert(R->VD);
      Unconditional |= !slowPathSite(CE);
      Saves.push_back(CB);
    }
  }
  if (!Unconditional)
    return;
  if (polls())
    for (auto [LB, LE] : Loops) {
      bool Ok;
      for (const SlotRoot *R : liveAt(LB, LB, 1, 0, Body, Ok)) {
        Needed.insert(R->VD);
        Saves.push_back(LB);
      }
    }
  auto savesRoot = [&](const Stmt *St) {
    unsigned SB = offsetOf(St->getBeginLoc()), SE = offsetOf(St->getEndLoc());
    if (SB == ~0u || SE == ~0u)
      return true;
    for (unsigned X : Saves)
      if (SB <= X && X <= SE)
        return true;
    return false;
  };
  // At the top of the body if a label could jump past it or nothing comes
  // before; else before the first statement that saves a root.
  SourceLocation At;
  bool AtStart = AllLive || llvm::is_contained(Saves, ~0u);
  for (const Stmt *St : Body->body())
    if (!AtStart && savesRoot(St)) {
      At = SM.getExpansionLoc(St->getBeginLoc());
      AtStart = St == Body->body_front();
      break;
    }
  if (AtStart)
    At = Body->getLBracLoc().getLocWithOffset(1);
  if (At.isInvalid() || !At.isFileID() || SM.getFileID(At) != BodyFID ||
      (!AtStart && !Body->getRBracLoc().isFileID()))
    return;
  SlotFrame = true;
  unsigned K = 0;
  for (SlotRoot &R : Slots)
    R.Index = Needed.count(R.VD) ? K++ : ~0u;
  // Slots of variables no call saves are left out (spillAt never names
  // them: liveAt finds the same variables here and at each call).
  llvm::erase_if(Slots, [](const SlotRoot &R) { return R.Index == ~0u; });
  // Declarations only (C89): a block of its own when it follows a
  // statement; the slots are zeroed and the frame pushed by an initializer.
  std::string N = std::to_string(K), Names;
  std::string T = std::string(AtStart ? "" : "{ ") + "void *cp__slots[" + N +
                  "]; cp_root_desc_t cp__slotroots[" + N +
                  "]; cp_frame_t cp__slotframe __attribute__((cleanup(cp_frame_pop))); "
                  "int cp__slotin __attribute__((unused)) = (";
  for (const SlotRoot &R : Slots) {
    std::string Nm = R.VD->getName().str(), I = std::to_string(R.Index);
    T += "cp__slots[" + I + "] = 0, cp__root(&cp__slotroots[" + I + "], (void *)&cp__slots[" +
         I + "], CP_ROOT_POINTER, 1, &" + M.pointeeOf(R.VD->getType())->DescName +
         ", \"" + Nm + "\"), ";
    Names += (Names.empty() ? "" : ", ") + Nm;
  }
  T += "cp__frame(&cp__slotframe, " + N + ", cp__slotroots)); ";
  Out.insert(BodyFID, SM.getFileOffset(At), T);
  if (!AtStart)
    Out.insert(BodyFID, SM.getFileOffset(Body->getRBracLoc()), "} ");
  Pl.note(FD, At, "frame slots: " + Names,
          "compact pointers live across a call that may reach a safepoint are "
          "saved before it and read back after it");
}

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
                          std::vector<const CallExpr *> &Out) {
  if (!St || isa<UnaryExprOrTypeTraitExpr>(St))
    return;
  if (const auto *G = dyn_cast<GenericSelectionExpr>(St)) {
    mayReachCalls(Pl, G->getResultExpr(), Out);
    return;
  }
  if (isa<StmtExpr>(St)) // its own statements: not split here
    return;
  for (const Stmt *C : St->children())
    mayReachCalls(Pl, C, Out);
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

/// Some argument of CE assigns (or increments) one of Vs: Restore after
/// the call would undo it, so the arguments go into temporaries first.
static bool assignsAny(const CallExpr *CE, const std::vector<const VarDecl *> &Vs) {
  std::function<bool(const Stmt *)> Any = [&](const Stmt *St) {
    if (!St)
      return false;
    const Expr *Target = nullptr;
    if (const auto *BO = dyn_cast<BinaryOperator>(St); BO && BO->isAssignmentOp())
      Target = BO->getLHS();
    if (const auto *UO = dyn_cast<UnaryOperator>(St); UO && UO->isIncrementDecrementOp())
      Target = UO->getSubExpr();
    if (Target)
      if (const auto *DR = dyn_cast<DeclRefExpr>(Target->IgnoreParenImpCasts()))
        for (const VarDecl *V : Vs)
          if (DR->getDecl() == V)
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
  Printer::Context SC(Direct, Names, Spills), SW(W, Names, Spills);
  if (!Direct.affected(E))
    return false;
  std::string TC = BoolCtx ? Direct.boolText(E) : Direct.text(E);
  std::string TW = W.affected(E) ? (BoolCtx ? W.boolText(E) : W.text(E)) : W.original(E);
  if (TC == TW && !Spills.empty() && isDiscarded(E))
    Text = "(void)(" + TC + ")"; // a call between Save and Restore yields a value
  else if (TC == TW)
    Text = TC;
  else if (BoolCtx)
    Text = "(cp_is_compact() ? !!(" + TC + ") : !!(" + TW + "))";
  else if (isDiscarded(E))
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
  if (!St || isa<UnaryExprOrTypeTraitExpr>(St) || isa<StmtExpr>(St))
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
    bool Calls = false;
    for (const Expr *X : Later) {
      std::vector<const CallExpr *> In;
      mayReachCalls(Pl, X, In);
      Calls |= !In.empty();
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
  for (const Stmt *Ch : St->children())
    if (!unitsOf(Ch, E, Units, Subs))
      return false;
  if (const auto *CE = dyn_cast<CallExpr>(St); CE && Pl.mayReach(CE))
    Units.push_back(CE);
  return true;
}

/// Checked form: the text of the full expression E choosing its layout by
/// mode, with the calls that may reach a safepoint saving the live roots
/// around them and evaluated first where something around them would go
/// stale.  False if E needs no change (or an error was reported).
bool CheckedWalker::checkedText(const Expr *E, bool BoolCtx, std::string &Text) {
  std::vector<const CallExpr *> Calls;
  mayReachCalls(Pl, E, Calls);
  // The roots to save around each call.
  Spills.clear();
  unsigned EB = offsetOf(E->getBeginLoc()), EE = offsetOf(E->getEndLoc());
  unsigned Before = S.Errors;
  for (const CallExpr *CE : Calls) {
    Printer::Spill Sp = spillAt(offsetOf(CE->getBeginLoc()), offsetOf(CE->getEndLoc()),
                                EB, EE, CE, slowPathSite(CE));
    if (Sp.Save.empty())
      continue;
    Sp.ArgTemps = assignsAny(CE, Sp.Saved);
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
                       : CE ? "call through a pointer"
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
