//===- LoopPolls.cpp - the checked form's loops: polls and versioning ----===//
//
// In:  a loop of a function of the checked form.
// Out: in main, a cp_safepoint() poll where a switch may be pending: at
//      the start of each iteration of a loop that may allocate under a
//      compact body or call code the engine cannot see, else one poll in
//      front of the loop (or of the macro expansion that holds it); a loop
//      in which no safepoint can run is versioned by mode as a whole, an
//      innermost polled body after its poll.
// Invariants: a poll is inserted only where the user's text has a place
//      for it (a statement's first token and the offset after its end, a
//      macro expansion taken whole); else the loop is refused, naming the
//      macro.
// Tests: test/switchable/main-polls.c, loop-versioning.c,
//      poll-body-versioning.c, macro-statement-frame.c.
//
//===----------------------------------------------------------------------===//
#include "Walker.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/SaveAndRestore.h"

using namespace clang;

namespace compactptr {

/// A node of a loop that says the loop may be waiting for another thread.
static bool waitsOnThreads(const Stmt *St) {
  if (isa<AtomicExpr>(St))
    return true;
  if (const auto *CE = dyn_cast<CallExpr>(St)) {
    const FunctionDecl *G = CE->getDirectCallee();
    return isAtomicBuiltin(G) || isSpinHint(G);
  }
  // An _Atomic object named (loaded, stored or updated in place), or a
  // volatile one read: `while (!ready)`, `while (stop == 0)`.
  if (const auto *E = dyn_cast<Expr>(St))
    if (E->isGLValue() && E->getType()->isAtomicType())
      return true;
  if (const auto *IC = dyn_cast<ImplicitCastExpr>(St))
    return IC->getCastKind() == CK_LValueToRValue &&
           IC->getSubExpr()->getType().isVolatileQualified();
  return false;
}

/// St or a node inside it satisfies P (unevaluated operands, which do
/// nothing at run time, left out).
template <typename Pred> static bool anyEvaluated(const Stmt *St, Pred P) {
  if (!St || isa<UnaryExprOrTypeTraitExpr>(St))
    return false;
  if (P(St))
    return true;
  for (const Stmt *C : St->children())
    if (anyEvaluated(C, P))
      return true;
  return false;
}

/// A yield or a pause: a call that only a waiting loop makes.
static bool spinHint(const Stmt *St) {
  const auto *CE = dyn_cast<CallExpr>(St);
  return CE && isSpinHint(CE->getDirectCallee());
}

/// The locals Body loads from what another thread writes: `r =
/// atomic_load(&ready);`, `int r = flag;` (flag volatile).
static llvm::SmallPtrSet<const VarDecl *, 4> loadedLocals(const Stmt *Body) {
  llvm::SmallPtrSet<const VarDecl *, 4> Out;
  auto local = [](const Expr *E) -> const VarDecl * {
    const auto *DR = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
    return VD && VD->hasLocalStorage() ? VD : nullptr;
  };
  anyEvaluated(Body, [&](const Stmt *X) {
    if (const auto *BO = dyn_cast<BinaryOperator>(X);
        BO && BO->getOpcode() == BO_Assign) // not `s += load`: a sum
      if (const VarDecl *VD = local(BO->getLHS());
          VD && anyEvaluated(BO->getRHS(), waitsOnThreads))
        Out.insert(VD);
    if (const auto *DS = dyn_cast<DeclStmt>(X))
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D);
            VD && VD->hasLocalStorage() && VD->getInit() &&
            anyEvaluated(VD->getInit(), waitsOnThreads))
          Out.insert(VD);
    return false;
  });
  return Out;
}

/// St reads what another thread writes: directly, or through a local the
/// loop's body loaded it into (`do r = atomic_load(&ready); while (!r);`).
static bool readsThreads(const Stmt *St,
                         const llvm::SmallPtrSet<const VarDecl *, 4> &Loaded) {
  return anyEvaluated(St, [&](const Stmt *X) {
    if (waitsOnThreads(X))
      return true;
    const auto *DR = dyn_cast<DeclRefExpr>(X);
    const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
    return VD && Loaded.count(VD);
  });
}

/// Body leaves the loop on what another thread writes: an `if` whose
/// condition reads it and that breaks out, returns or jumps (`for (;;) {
/// if (atomic_load(&done)) break; ... }`).
static bool
exitsOnThreads(const Stmt *Body,
               const llvm::SmallPtrSet<const VarDecl *, 4> &Loaded) {
  return anyEvaluated(Body, [&](const Stmt *X) {
    const auto *If = dyn_cast<IfStmt>(X);
    return If && readsThreads(If->getCond(), Loaded) &&
           anyEvaluated(If, [](const Stmt *Y) {
             return isa<BreakStmt>(Y) || isa<ReturnStmt>(Y) || isa<GotoStmt>(Y);
           });
  });
}

const Stmt *loopBodyOf(const Stmt *Loop) {
  if (const auto *W = dyn_cast<WhileStmt>(Loop))
    return W->getBody();
  if (const auto *D = dyn_cast<DoStmt>(Loop))
    return D->getBody();
  return cast<ForStmt>(Loop)->getBody();
}

bool isSpinLoop(const Stmt *Loop) {
  if (Planner::runsOnce(Loop)) // a statement macro's do { } while (0)
    return false;
  const Stmt *Cond = nullptr, *Body = nullptr;
  if (const auto *W = dyn_cast<WhileStmt>(Loop))
    Cond = W->getCond(), Body = W->getBody();
  else if (const auto *D = dyn_cast<DoStmt>(Loop))
    Cond = D->getCond(), Body = D->getBody();
  else if (const auto *F = dyn_cast<ForStmt>(Loop))
    Cond = F->getCond(), Body = F->getBody();
  else
    return false;
  // What the loop waits on decides when it ends: an atomic counter bumped
  // in a loop over keys (a comparator's) makes no spin loop.
  if (anyEvaluated(Body, spinHint))
    return true;
  llvm::SmallPtrSet<const VarDecl *, 4> Loaded = loadedLocals(Body);
  return readsThreads(Cond, Loaded) || exitsOnThreads(Body, Loaded);
}

/// Where statement St's text starts in a file: its first token, or the
/// start of the macro expansion that opens it (`FOREACH(x, h) body`);
/// invalid if it starts inside a macro's expansion.
SourceLocation CheckedWalker::startOf(const Stmt *St) const {
  if (CharSourceRange R = P.placeRange(St); R.isValid())
    return R.getBegin(); // its tokens in the file (a macro argument's too)
  SourceLocation B = St->getBeginLoc(), Start;
  if (B.isMacroID() && Lexer::isAtStartOfMacroExpansion(B, SM, S.LO, &Start))
    B = Start;
  return B.isFileID() ? B : SourceLocation();
}

/// Offset just after statement St (its `;` or `}` included), or ~0u.
unsigned CheckedWalker::endAfter(const Stmt *St) const {
  auto semiAfter = [&](CharSourceRange R) {
    auto [FID, Off] = SM.getDecomposedLoc(R.getEnd());
    unsigned Semi = S.nextTokenOffset(FID, Off);
    return SM.getBufferData(FID).substr(Semi).starts_with(";") ? Semi + 1 : ~0u;
  };
  // A statement that is a whole expansion ending in an argument
  // (`EACH(x, h, if (c) n++;);`): the `;` after the expansion.
  if (P.fileRange(St).isInvalid())
    if (CharSourceRange R = P.placeRange(St); R.isValid())
      return semiAfter(R);
  if (const auto *CS = dyn_cast<CompoundStmt>(St)) {
    SourceLocation L = CS->getRBracLoc();
    if (L.isFileID())
      return SM.getFileOffset(L) + 1;
    // A block that is a whole expansion (`#define CLRV(v) { ... }` used as
    // `CLRV(cm);`): it ends where the expansion does; the `;` after it is
    // a statement of its own.
    CharSourceRange R = P.fileRange(St);
    return R.isValid() ? SM.getFileOffset(R.getEnd()) : ~0u;
  }
  if (const auto *NS = dyn_cast<NullStmt>(St)) {
    SourceLocation L = NS->getSemiLoc();
    return L.isFileID() ? SM.getFileOffset(L) + 1 : ~0u;
  }
  if (const auto *I = dyn_cast<IfStmt>(St))
    return endAfter(I->getElse() ? I->getElse() : I->getThen());
  if (const auto *W = dyn_cast<WhileStmt>(St))
    return endAfter(W->getBody());
  if (const auto *F = dyn_cast<ForStmt>(St))
    return endAfter(F->getBody());
  if (const auto *Sw = dyn_cast<SwitchStmt>(St))
    return endAfter(Sw->getBody());
  if (const auto *L = dyn_cast<LabelStmt>(St))
    return endAfter(L->getSubStmt());
  if (const auto *C = dyn_cast<SwitchCase>(St))
    return endAfter(C->getSubStmt());
  if (const auto *DS = dyn_cast<DeclStmt>(St)) {
    SourceLocation L = DS->getEndLoc();
    return L.isFileID() ? SM.getFileOffset(L) + 1 : ~0u;
  }
  if (CharSourceRange R = P.fileRange(St); R.isValid())
    return semiAfter(R); // its tokens in the file (a macro argument's too)
  SourceLocation E = St->getEndLoc();
  if (E.isMacroID())
    E = SM.getExpansionRange(E).getEnd();
  if (!E.isFileID())
    return ~0u;
  SourceLocation A = Lexer::findLocationAfterToken(E, tok::semi, SM, S.LO, false);
  return A.isValid() && A.isFileID() ? SM.getFileOffset(A) : ~0u;
}
/// Walk a loop body, with a poll at its start in main.  An innermost
/// body in which nothing past the poll can reach a safepoint keeps one
/// mode for the whole iteration: it is versioned by mode after the poll,
/// `{ cp_safepoint(); if (cp_is_compact()) { <compact body> } else {
/// <wide body> } }`, so compact mode pays one test per iteration, not one
/// per access.  A body that holds a loop is not versioned: that loop's
/// polls could switch in the middle of the copy.  Cond and inc keep the
/// checked form, since the poll may switch between them and the body.
void CheckedWalker::loopBody(const Stmt *Body) {
  bool Spin = SpinBodies.count(Body);
  if (!Body || !(polls() || Spin)) {
    walk(Body);
    return;
  }
  std::string Poll = pollText(offsetOf(Body->getBeginLoc()), Body);
  if (Pl.versionBody(FD, Body, Spin) &&
      versionByMode(Body, "{ " + Poll + " ", " }")) {
    Pl.note(FD, Body->getBeginLoc(), "loop body versioned after its poll",
            "nothing past the poll can reach a safepoint");
    return;
  }
  // Where the poll goes: after the `{` of a compound body (a body that
  // opens with declarations becomes a block of its own after it: C89
  // allows no statement before a declaration), or in braces around any
  // other body.
  FileID FID;
  unsigned Open, Close = ~0u;
  std::string OpenText = " " + Poll, CloseText = "} ";
  const auto *CS = dyn_cast<CompoundStmt>(Body);
  SourceLocation B = CS ? CS->getLBracLoc() : startOf(Body);
  if (CS) {
    if (!CS->body_empty() && isa<DeclStmt>(CS->body_front()) &&
        CS->getRBracLoc().isFileID()) {
      OpenText += " {";
      Close = SM.getFileOffset(CS->getRBracLoc());
    }
  } else {
    OpenText = "{ " + Poll + " ";
    CloseText = " }";
    Close = endAfter(Body);
  }
  if (B.isInvalid() || !B.isFileID() || (!CS && Close == ~0u)) {
    if (Spin && !polls()) {
      // It compiled before spin loops polled: a warning, and the loop
      // stays as it was.  (A loop of main that needs a poll is refused
      // below, as before.)
      S.report(Diag::UnpolledSpin, Body->getBeginLoc(),
               "no safepoint poll can go in this spin loop: its body comes "
               "from macro '" +
                   P.macroName(Body) +
                   "'; if it waits for a thread that switches, the switch "
                   "waits for it until COMPACTPTR_SAFEPOINT_TIMEOUT stops the "
                   "program: write the loop outside the macro, or call "
                   "cp_safepoint() in its body",
               {CharSourceRange::getTokenRange(Body->getSourceRange())});
      walk(Body);
      return;
    }
    // main's polls serve a switch that became pending where none was
    // legal (code the plugin cannot see, an allocation under a compact
    // body); without one it waits for the next safepoint after the loop,
    // and an arena exhausted before that stops the program saying so.
    // A library's loop (utarray_free's destructor calls) is kept, warned.
    S.report(Diag::UnpolledLoop, Body->getBeginLoc(),
             "no safepoint poll can go in this loop of main: its body comes "
             "from macro '" +
                 P.macroName(Body) +
                 "', and it calls code that may allocate; a switch that "
                 "becomes pending in it where none is legal (under a compact "
                 "body, in code the plugin cannot see) waits for the next "
                 "safepoint (should the arena run out first, the program "
                 "stops saying so): write the loop outside the macro, or "
                 "call cp_safepoint() in its body",
             {CharSourceRange::getTokenRange(Body->getSourceRange())});
    walk(Body);
    return;
  }
  std::tie(FID, Open) = SM.getDecomposedLoc(B);
  Out.insert(FID, CS ? Open + 1 : Open, OpenText);
  Pl.note(FD, Body->getBeginLoc(), "poll at the start of the loop body",
          Spin ? "a spin loop: it may wait for the thread that switches"
               : "a loop of main that may allocate or reach a safepoint");
  walk(Body);
  if (Close != ~0u)
    Out.insert(FID, Close, CloseText);
}

void CheckedWalker::warnUnpolledSpins(const Stmt *St) {
  if (!St)
    return;
  if (isa<WhileStmt>(St) || isa<DoStmt>(St) || isa<ForStmt>(St)) {
    const Stmt *Body = loopBodyOf(St);
    if (Pl.spins(St) && !InRegion.count(St) && !SpinBodies.count(Body)) {
      S.report(Diag::UnpolledSpin, St->getBeginLoc(),
               "no safepoint poll can go in this spin loop: it is inside a "
               "statement expression; if it waits for a thread that "
               "switches, the switch waits for it until "
               "COMPACTPTR_SAFEPOINT_TIMEOUT stops the program: write the "
               "loop as a statement of its own, or call cp_safepoint() in "
               "its body",
               {CharSourceRange::getTokenRange(St->getSourceRange())});
      return;
    }
  }
  for (const Stmt *C : St->children())
    warnUnpolledSpins(C);
}

/// A loop of a checked function in which no safepoint can run (no poll,
/// no call that may reach one, no call through a function pointer; an
/// external function that reaches one must be declared CP_SAFEPOINT)
/// keeps one mode from entry to exit: it is versioned,
/// `{ if (cp_is_compact()) { <compact loop> } else { <wide loop> } }`, so
/// compact mode pays no per-access mode test.  In main, a loop that
/// cannot allocate is versioned too, with its one poll in front.  So is a
/// loop whose only safepoints are transfer sites (allocations into
/// locals, Planner::transferSite) and that needs no polls.  False if St is
/// not versioned.
bool CheckedWalker::walkLoop(const Stmt *St) {
  if (Pl.runsOnce(St)) { // a statement macro's do { } while (0): no poll
    const auto *D = cast<DoStmt>(St);
    walk(D->getBody());
    top(D->getCond(), true);
    return true;
  }
  // A spin loop polls at each iteration, in any function, and is never
  // versioned whole: the thread it waits for may be the one that switches
  // (docs/plugin.md, section 4a).
  if (Pl.spins(St) && !InRegion.count(St)) { // a native region is safe
    const Stmt *Body = loopBodyOf(St);
    SpinBodies.insert(Body);
    return false;
  }
  if (St == PlainLoop)
    return false;
  // A loop whose only safepoints are allocations into locals is versioned
  // whole too: the compact copy's slow paths resume the wide copy.
  auto withSites = [&] {
    std::vector<const Stmt *> Sites;
    if (!Pl.versionLoopWithSites(FD, St, Sites) || !versionByMode(St, "{ ", " }", Sites))
      return false;
    Pl.note(FD, St->getBeginLoc(), "loop versioned whole",
            "no safepoint can run inside it but at " + std::to_string(Sites.size()) +
                " allocation(s) whose slow path resumes the wide copy");
    return true;
  };
  if (polls() && Pl.mayAllocate(St) && !Pl.needsPolls(St)) {
    if (withSites())
      return true;
    // Every allocation in it is a safepoint itself: no polls.
    Pl.note(FD, St->getBeginLoc(), "no poll in the loop",
            "every allocation it reaches is a safepoint of checked code");
    llvm::SaveAndRestore Free(PollFree, true);
    llvm::SaveAndRestore Plain(PlainLoop, St);
    walk(St);
    return true;
  }
  if (!Pl.versionLoop(FD, St) ||
      !versionByMode(St, polls() ? "{ " + pollText(offsetOf(St->getBeginLoc()), St) + " "
                                 : std::string("{ "),
                     " }")) {
    if (!polls())
      return withSites();
    if (Pl.mayAllocate(St))
      return false;
    // A loop of main that cannot allocate, and is not versioned: one poll
    // in front of it too, and none inside (no switch can become pending
    // there).
    const Stmt *Front = St;
    SourceLocation B = startOf(St);
    unsigned E = endAfter(St);
    if (B.isInvalid() || E == ~0u) {
      // A loop inside a macro expansion (a statement macro's search loop,
      // utarray_push_back's doubling of its capacity): the poll goes in
      // front of the statement the expansion is.  One that becomes pending
      // between the two (the expansion allocates first) waits only for
      // this loop to end: it cannot allocate, so it cannot exhaust the
      // arena.  One poll serves every such loop in it.
      Front = P.placeable(St, Top);
      if (!Front || isa<Expr>(Front))
        return false;
      B = startOf(Front);
      E = endAfter(Front);
      if (B.isInvalid() || E == ~0u)
        return false;
      if (!PolledFronts.insert(Front).second) {
        llvm::SaveAndRestore Free(PollFree, true);
        llvm::SaveAndRestore Plain(PlainLoop, St);
        walk(St);
        return true;
      }
    }
    auto [FID, Off] = SM.getDecomposedLoc(B);
    Out.insert(FID, Off, "{ " + pollText(Off, Front) + " ");
    Pl.note(FD, B,
            Front == St ? "one poll in front of the loop, none inside"
                        : "one poll in front of the expansion of macro '" +
                              P.macroName(Front) + "', none in its loops",
            "a loop of main that cannot allocate");
    llvm::SaveAndRestore Free(PollFree, true);
    llvm::SaveAndRestore Plain(PlainLoop, St);
    walk(St);
    Out.insert(FID, E, " }");
    return true;
  }
  Pl.note(FD, St->getBeginLoc(),
          polls() ? "loop versioned whole, one poll in front" : "loop versioned whole",
          polls() ? "a loop of main that cannot allocate"
                  : "no safepoint can run inside it");
  return true;
}

} // namespace compactptr
