//===- Walker.cpp - statements rewritten in one form; the rewrite driver ===//
//
// In:  the Model (Analysis, Layout) and every function body and file-scope
//      initializer outside system headers.
// Out: edits in Session::Edits: each outermost affected expression is
//      replaced once by its printed text (Printer.h); static locals get
//      their root descriptors on their declaration's line.
// The driver makes the three printers (wide, compact, and compact for the
// clones of dual functions, which call compact bodies directly), asks the
// Planner for every function's form and hands each body to the walker of
// that form: Walker (compact, wide), rewriteDual (Dual.cpp) or
// CheckedWalker (Checked.cpp).
// Invariants: never a partial rewrite (errors clear all edits in
//      Engine.cpp); anything not rewritten is an error at the user's
//      location.
// Tests: test/rewrite/*.c, test/plugin/*.c, test/switchable/*.
//
//===----------------------------------------------------------------------===//
#include "Walker.h"
#include <algorithm>

using namespace clang;

namespace compactptr {

void Walker::walk(const Stmt *St) {
  if (!St)
    return;
  if (const auto *E = dyn_cast<Expr>(St)) {
    top(E, false);
    return;
  }
  if (const auto *I = dyn_cast<IfStmt>(St)) {
    walk(I->getInit());
    walk(I->getConditionVariableDeclStmt());
    top(I->getCond(), true);
    walk(I->getThen());
    walk(I->getElse());
    return;
  }
  if ((isa<WhileStmt>(St) || isa<DoStmt>(St) || isa<ForStmt>(St)) && walkLoop(St))
    return;
  if (const auto *W = dyn_cast<WhileStmt>(St)) {
    top(W->getCond(), true);
    loopBody(W->getBody());
    return;
  }
  if (const auto *D = dyn_cast<DoStmt>(St)) {
    loopBody(D->getBody());
    top(D->getCond(), true);
    return;
  }
  if (const auto *F = dyn_cast<ForStmt>(St)) {
    if (walkFor(F))
      return;
    walk(F->getInit());
    top(F->getCond(), true);
    top(F->getInc(), false);
    loopBody(F->getBody());
    return;
  }
  if (const auto *CS = dyn_cast<CompoundStmt>(St); CS && walkBlock(CS))
    return;
  if (const auto *DS = dyn_cast<DeclStmt>(St)) {
    std::string Roots;
    for (const Decl *D : DS->decls()) {
      // `typedef __typeof__(v.first) link_t;`: the type's text names v.
      if (const auto *TD = dyn_cast<TypedefNameDecl>(D))
        for (const Expr *T : P.boxedTypeofs(TD))
          place(T, P.boxedOnly(T));
      if (const auto *VD = dyn_cast<VarDecl>(D)) {
        if (VD->hasLocalStorage() && S.M.Boxed.count(VD->getCanonicalDecl())) {
          boxLocal(VD);
          continue;
        }
        // `__typeof__(v.first) f = ...;`: the type's text names boxed v.
        for (const Expr *T : P.boxedTypeofs(VD))
          place(T, P.boxedOnly(T));
        if (const Expr *Init = VD->getInit())
          top(Init, false);
        if (VD->isStaticLocal())
          Roots += rootDescText(S, VD, " ");
      }
    }
    if (!frameFor(DS, Roots))
      return;
    // Root descriptors and frames follow their declaration, on its line.
    SourceLocation End = DS->getEndLoc();
    if (!Roots.empty() && !End.isFileID()) {
      // A static local a macro declares: its root descriptor has no line
      // to go on (it would be left out: a root the switch never sees).
      P.fail(DS,
             "cannot rewrite the expansion of macro '" + P.macroName(DS) +
                 "': a static local it declares holds compact pointers and "
                 "needs a root descriptor after its declaration; declare it "
                 "outside the macro",
             Diag::MacroStatement);
      return;
    }
    if (!Roots.empty()) {
      auto [FID, Off] = SM.getDecomposedLoc(End);
      Out.insert(FID, Off + 1, " " + Roots);
    }
    return;
  }
  for (const Stmt *C : St->children())
    walk(C);
}

void Walker::boxLocal(const VarDecl *VD) {
  bool C = P.form() == Form::Compact;
  unsigned Before = S.Errors;
  std::string T = boxLocalText(S, VD, C ? &P : nullptr, C ? nullptr : &P);
  if (S.Errors == Before)
    rewriteBoxedLocal(S, Out, VD, T);
}

void Walker::top(const Expr *E, bool BoolCtx) {
  if (!E || !P.affected(E))
    return;
  unsigned Before = S.Errors;
  std::string T = BoolCtx ? P.boolText(E) : P.text(E);
  if (S.Errors != Before)
    return;
  place(E, std::move(T));
}

void Walker::run(const Stmt *St) {
  Top = St;
  walk(St);
  resolve();
}

/// Ds are conditional directives only, each group closed within them.
static bool closedConditionals(ArrayRef<StringRef> Ds) {
  int Depth = 0;
  for (StringRef D : Ds) {
    StringRef W = D.drop_front().ltrim();
    if (W.starts_with("if"))
      ++Depth;
    else if (W.starts_with("endif"))
      --Depth;
    else if (!W.starts_with("el"))
      return false; // #define, #undef, #pragma...: must stay where they are
    if (Depth < 0)
      return false;
  }
  return Depth == 0;
}

void Walker::place(const Expr *E, std::string T) {
  CharSourceRange R = P.fileRange(E);
  if (R.isValid()) {
    // The printed text keeps the directives between E's tokens when it
    // copies their text once; printed from the AST or twice (once per
    // layout) it keeps none or two copies, which only whole conditional
    // groups survive (`a = b +` `#ifdef X` `1;` `#else` ... would lose
    // its `#ifdef`, or double it, and keep one `#else`).
    auto [FID, B] = SM.getDecomposedLoc(R.getBegin());
    std::vector<StringRef> Was =
        directiveLines(SM.getBufferData(FID).slice(B, SM.getFileOffset(R.getEnd())));
    if (!Was.empty() && directiveLines(T) != Was && !closedConditionals(Was)) {
      P.fail(E,
             "cannot rewrite this expression: a preprocessor directive lies "
             "inside it, and its rewritten text is printed once per layout; "
             "put the directive around the whole statement",
             Diag::DirectiveInExpression);
      return;
    }
  }
  if (Out.replace(SM, R, T))
    return;
  const Stmt *A = P.placeable(E, Top);
  if (!A) {
    P.fail(E, P.macroMessage(E), Diag::MacroBody);
    return;
  }
  Pending[E] = std::move(T);
  if (std::find(Expansions.begin(), Expansions.end(), A) == Expansions.end())
    Expansions.push_back(A);
}

void Walker::resolve() {
  // Outermost first: an expansion inside another is printed with it.
  // A loop whose header alone is the expansion (`FOREACH(x, h) body`)
  // has only its header printed: the body keeps its text.
  struct Item {
    const Stmt *A;
    FileID FID;
    unsigned B, E;
    bool Header;
  };
  std::vector<Item> Items;
  for (const Stmt *A : Expansions) {
    CharSourceRange H = P.headerExpansion(A);
    CharSourceRange R =
        H.isValid() ? Lexer::makeFileCharRange(H, SM, S.LO) : P.placeRange(A);
    if (R.isInvalid()) { // placeable() found it: never expected
      P.fail(A, P.macroMessage(A), Diag::MacroBody);
      continue;
    }
    auto [FID, B] = SM.getDecomposedLoc(R.getBegin());
    Items.push_back({A, FID, B, SM.getFileOffset(R.getEnd()), H.isValid()});
  }
  Expansions.clear();
  std::stable_sort(Items.begin(), Items.end(), [](const Item &X, const Item &Y) {
    return X.B != Y.B ? X.B < Y.B : X.E > Y.E;
  });
  unsigned Covered = 0;
  FileID CoveredFID;
  for (const Item &I : Items) {
    if (I.FID == CoveredFID && I.B < Covered)
      continue;
    // The edits already made inside the expansion (in children that have
    // a text in the file) are rendered into those children's copies.
    EditSet Inner = Out.take(I.FID, I.B, I.E);
    bool AllPlaced = true;
    std::string T = I.Header ? P.printedHeader(cast<ForStmt>(I.A), &Pending, &Inner, &AllPlaced)
                             : P.printed(I.A, &Pending, &Inner, &AllPlaced);
    if (!AllPlaced) {
      P.fail(I.A, "cannot rewrite the expansion of macro '" + P.macroName(I.A) +
                      "': code the rewrite changes in place (a frame, a poll, a "
                      "versioned region) lies inside it; write that code "
                      "outside the macro",
              Diag::MacroStatement);
      continue;
    }
    // Warnings clang keeps quiet inside a macro expansion stay quiet in
    // its printed form.
    Out.replace(I.FID, I.B, I.E,
                std::string(QuietBegin) + " " + T + " " + QuietEnd);
    CoveredFID = I.FID;
    Covered = I.E;
  }
  Pending.clear();
}

void runRewrite(Session &S) {
  std::vector<const FunctionDecl *> Fns;
  for (const Decl *D : S.Ctx.getTranslationUnitDecl()->decls())
    if (const auto *FD = dyn_cast<FunctionDecl>(D))
      if (!S.isIgnoredLoc(FD->getLocation()) && FD->doesThisDeclarationHaveABody() &&
          !isRuntimeFunction(FD))
        Fns.push_back(FD);
  std::set<const FunctionDecl *> Duals, Closed;
  Refusals R(S);
  Printer Wide(S, R, Form::Wide, Duals), Compact(S, R, Form::Compact, Duals),
      Clone(S, R, Form::Compact, Duals, /*CompactBodies=*/true),
      Direct(S, R, Form::Compact, Closed, /*CompactBodies=*/true);
  Planner Pl(S, Direct, Duals, Closed);
  Pl.planForms(Fns);
  // Static initializers cannot test the mode: switchable builds keep them
  // in the wide form (allocation calls are not constant anyway).
  Printer &Inits = S.Opts.compactOnly() ? Compact : Wide;
  for (const Decl *D : S.Ctx.getTranslationUnitDecl()->decls()) {
    if (S.isIgnoredLoc(D->getLocation()))
      continue;
    if (const auto *VD = dyn_cast<VarDecl>(D)) {
      // A boxed variable's initializer moves into its initializer
      // function (rewriteBoxedGlobals).
      // So does one that names a boxed variable (a constructor's).
      if (const Expr *Init = VD->getInit();
          Init && !S.M.Boxed.count(VD->getCanonicalDecl()) &&
          !initializedAtRunTime(S, VD))
        Walker(S, Inits, S.Edits).run(Init);
      continue;
    }
    const auto *FD = dyn_cast<FunctionDecl>(D);
    if (!FD || !FD->doesThisDeclarationHaveABody() || isRuntimeFunction(FD))
      continue;
    FunctionForm Form = Pl.planOf(FD).Form;
    // Before the form's own edits: they come after it at the same offsets.
    // (A body a macro produces is refused where it uses compact types, or
    // spelled out by GeneratorMacros.cpp first.)
    if (isEntry(S, FD) && FD->getBody()->getBeginLoc().isFileID())
      markEntry(S, FD);
    switch (Form) {
    case FunctionForm::Compact:
      Walker(S, Compact, S.Edits).run(FD->getBody());
      break;
    case FunctionForm::Wide:
      Walker(S, Wide, S.Edits).run(FD->getBody());
      break;
    case FunctionForm::Dual:
      rewriteDual(S, FD, Wide, Clone, Closed.count(FD->getCanonicalDecl()) != 0);
      break;
    case FunctionForm::Checked:
      CheckedWalker(S, Pl, Compact, Wide, Direct, S.Edits, FD).rewrite();
      break;
    }
  }
  rewriteBoxedGlobals(S, Compact, Wide);
  // A static CP_ALLOCATOR / CP_DEALLOCATOR function, or size helper of
  // this file (st_mult), whose calls all went to the runtime would be
  // unused.
  for (const FunctionDecl *FD : Fns)
    if (FD->getStorageClass() == SC_Static &&
        FD->getOuterLocStart().isFileID() &&
        (hasAttribute(FD, "allocator") || hasAttribute(FD, "deallocator") ||
         (S.SM.isInMainFile(FD->getOuterLocStart()) && productHelper(FD)))) {
      auto [FID, Off] = S.SM.getDecomposedLoc(FD->getOuterLocStart());
      S.Edits.insert(FID, Off, "__attribute__((unused)) ");
    }
  if (S.Opts.DumpPlan)
    S.PlanText = Pl.dump();
}

} // namespace compactptr
