//===- PlainFiles.cpp - files without compact types, in switchable mode --===//
//
// In:  a translation unit that declares no compact type, built in
//      switchable mode.
// Out: the main file with each spin loop polled (isSpinLoop: at the start
//      of its body, CP__PLAIN_POLL), and each blocking libc call
//      (Vocabulary.def) in a
//      native region, for a thread the runtime knows: `pthread_cond_wait(
//      &cv, &mu)` becomes `__extension__({ CP__PLAIN_ENTER(); __auto_type
//      cp__nr1 = pthread_cond_wait(&cv, &mu); CP__PLAIN_LEAVE(); cp__nr1;
//      })`; a lock is tried first (`pthread_mutex_trylock`), so an
//      uncontended one costs what it costs natively.  A short preamble
//      declares the two runtime functions weak (the file need not include
//      <compactptr.h>, nor its build name the include directory, nor the
//      program link the runtime) and the two macros, and a `#line` keeps
//      every user line at its number.
//
// Why: such a file holds no compact pointer, so nothing else in it needs
//      the rewrite; but a thread may wait in it for another thread that
//      switches -- a thread pool of its own file, whose workers and whose
//      `pool_wait_idle()` wait in `pthread_cond_wait` while tasks from
//      another file allocate.  Outside a native region the waiting thread
//      held the switch up until COMPACTPTR_SAFEPOINT_TIMEOUT stopped the
//      program.  Threads the runtime does not know are left alone, as the
//      switch leaves them (cp__native_enter_known): a call here does not
//      make a thread known, which would make the switch wait for it while
//      it runs code without polls.
// Not rewritten: calls inside a macro's body (only a call spelled in the
//      file, or a whole macro expansion, has a place for the text), calls
//      in headers, calls in functions that may be signal handlers (a
//      region entered from a handler would make the interrupted code look
//      stopped), and the runtime's own files (CP__RUNTIME_ITSELF).
// Tests: test/threads/pool-in-plain-file.test.
//
//===----------------------------------------------------------------------===//
#include "Engine.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;

namespace compactptr {
namespace {

/// The non-blocking form of a one-argument lock, or "".
StringRef tryLockOf(StringRef Name) {
  return llvm::StringSwitch<StringRef>(Name)
      .Case("pthread_mutex_lock", "pthread_mutex_trylock")
      .Case("pthread_rwlock_rdlock", "pthread_rwlock_tryrdlock")
      .Case("pthread_rwlock_wrlock", "pthread_rwlock_trywrlock")
      .Case("pthread_spin_lock", "pthread_spin_trylock")
      .Case("mtx_lock", "mtx_trylock")
      .Default("");
}

/// `void (int)` or `void (int, T *, U *)`: the types of signal handlers.
bool handlerType(const FunctionDecl *FD) {
  if (!FD->getReturnType()->isVoidType() || FD->getNumParams() < 1 ||
      !FD->getParamDecl(0)->getType()->isIntegerType())
    return false;
  return FD->getNumParams() == 1 ||
         (FD->getNumParams() == 3 &&
          FD->getParamDecl(1)->getType()->isPointerType() &&
          FD->getParamDecl(2)->getType()->isPointerType());
}

class PlainCalls : public RecursiveASTVisitor<PlainCalls> {
public:
  explicit PlainCalls(Session &S) : S(S), SM(S.SM) {}

  /// Functions of a handler's type whose address is taken (as
  /// SignalHandlers.cpp finds them), collected before the walk.
  std::set<const FunctionDecl *> Handlers;
  std::set<const DeclRefExpr *> Callees;
  std::vector<const DeclRefExpr *> Refs;
  bool Collecting = true;
  unsigned Count = 0;

  bool VisitDeclRefExpr(DeclRefExpr *DR) {
    if (Collecting && isa<FunctionDecl>(DR->getDecl()))
      Refs.push_back(DR);
    return true;
  }
  bool TraverseFunctionDecl(FunctionDecl *FD) {
    if (!Collecting && FD->doesThisDeclarationHaveABody() &&
        Handlers.count(FD->getCanonicalDecl()))
      return true; // a possible signal handler: its calls stay as they are
    return RecursiveASTVisitor::TraverseFunctionDecl(FD);
  }
  // Unevaluated operands run nothing.
  bool TraverseUnaryExprOrTypeTraitExpr(UnaryExprOrTypeTraitExpr *) {
    return true;
  }
  bool VisitWhileStmt(WhileStmt *L) { return spin(L, L->getBody()); }
  bool VisitDoStmt(DoStmt *L) { return spin(L, L->getBody()); }
  bool VisitForStmt(ForStmt *L) { return spin(L, L->getBody()); }
  bool VisitCallExpr(CallExpr *CE) {
    if (Collecting) {
      if (const auto *DR =
              dyn_cast<DeclRefExpr>(CE->getCallee()->IgnoreParenImpCasts()))
        Callees.insert(DR);
      return true;
    }
    const FunctionDecl *G = CE->getDirectCallee();
    if (!G || !isBlockingFunction(G))
      return true;
    CharSourceRange R = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(CE->getSourceRange()), SM, S.LO);
    if (R.isInvalid() || !SM.isInMainFile(R.getBegin()))
      return true;
    auto [FID, B] = SM.getDecomposedLoc(R.getBegin());
    unsigned E = SM.getFileOffset(R.getEnd());
    // A blocking call inside the arguments of another one is inside its
    // region already (the visit is outer first).
    for (auto [OB, OE] : Done)
      if (OB <= B && E <= OE)
        return true;
    Done.push_back({B, E});
    std::string Id = std::to_string(++Count);
    std::string Var = "cp__nr" + Id;
    // A lock spelled in the file: tried first, its argument evaluated once.
    StringRef Try = tryLockOf(G->getName());
    if (!Try.empty() && CE->getNumArgs() == 1 && CE->getBeginLoc().isFileID() &&
        CE->getEndLoc().isFileID()) {
      CharSourceRange A = Lexer::makeFileCharRange(
          CharSourceRange::getTokenRange(CE->getArg(0)->getSourceRange()), SM,
          S.LO);
      if (A.isValid()) {
        std::string Arg = Lexer::getSourceText(A, SM, S.LO).str();
        std::string P = "cp__na" + Id, Call = G->getName().str();
        S.Edits.replace(FID, B, E,
                        "__extension__({ __auto_type " + P + " = (" + Arg +
                            "); int " + Var + " = " + Try.str() + "(" + P +
                            "); if (" + Var + " != 0) { CP__PLAIN_ENTER(); " +
                            Var + " = " + Call + "(" + P +
                            "); CP__PLAIN_LEAVE(); } " + Var + "; })");
        return true;
      }
    }
    if (CE->getType()->isVoidType()) {
      S.Edits.insert(FID, B, "__extension__({ CP__PLAIN_ENTER(); ");
      S.Edits.insert(FID, E, "; CP__PLAIN_LEAVE(); })");
    } else {
      S.Edits.insert(FID, B,
                     "__extension__({ CP__PLAIN_ENTER(); __auto_type " + Var +
                         " = ");
      S.Edits.insert(FID, E, "; CP__PLAIN_LEAVE(); " + Var + "; })");
    }
    return true;
  }

private:
  Session &S;
  SourceManager &SM;
  std::vector<std::pair<unsigned, unsigned>> Done; ///< rewritten calls

  /// A spin loop (isSpinLoop) polls at the start of its body, as in a
  /// file with compact types: the thread it waits for may be parked for
  /// the switch (a spin lock of its own file whose holder allocates).  Its
  /// callers of other files save their roots around the call, as around
  /// any call to code they cannot see.  A body that is a block, a `;` or
  /// an expression statement spelled in the file has a place for it.
  bool spin(const Stmt *Loop, const Stmt *Body) {
    // (Headers are not rewritten here: their loops are left alone.)
    if (Collecting || !S.Opts.AutoSafepoints || !Body ||
        !SM.isInMainFile(SM.getExpansionLoc(Loop->getBeginLoc())) ||
        !isSpinLoop(Loop))
      return true;
    const char *Poll = "CP__PLAIN_POLL();";
    if (const auto *CS = dyn_cast<CompoundStmt>(Body)) {
      SourceLocation L = CS->getLBracLoc();
      if (L.isFileID() && SM.isInMainFile(L)) {
        auto [FID, Off] = SM.getDecomposedLoc(L);
        S.Edits.insert(FID, Off + 1, std::string(" ") + Poll);
        ++Count;
        return true;
      }
    } else if (isa<NullStmt>(Body) || isa<Expr>(Body)) {
      SourceLocation B = Body->getBeginLoc(), E = Body->getEndLoc();
      SourceLocation After =
          isa<NullStmt>(Body)
              ? E.getLocWithOffset(1)
              : Lexer::findLocationAfterToken(E, tok::semi, SM, S.LO, false);
      if (B.isFileID() && E.isFileID() && After.isValid() && After.isFileID() &&
          SM.isInMainFile(B)) {
        auto [FID, Off] = SM.getDecomposedLoc(B);
        S.Edits.insert(FID, Off, std::string("{ ") + Poll + " ");
        S.Edits.insert(FID, SM.getFileOffset(After), " }");
        ++Count;
        return true;
      }
    }
    S.report(Diag::UnpolledSpin, Loop->getBeginLoc(),
             "no safepoint poll can go in this spin loop: its body comes from "
             "a macro or is not a block; if it waits for a thread that "
             "switches, the switch waits for it until "
             "COMPACTPTR_SAFEPOINT_TIMEOUT stops the program: write the body "
             "as a block in the file, or call cp_safepoint() in it",
             {CharSourceRange::getTokenRange(Loop->getSourceRange())});
    return true;
  }
};

} // namespace

void runPlainFile(Session &S, std::vector<RewrittenFile> &Out) {
  // The runtime's own files: their locks are the switch's.
  if (S.Ctx.Idents.get("CP__RUNTIME_ITSELF").hasMacroDefinition())
    return;
  PlainCalls V(S);
  TranslationUnitDecl *TU = S.Ctx.getTranslationUnitDecl();
  V.TraverseDecl(TU);
  for (const DeclRefExpr *DR : V.Refs)
    if (!V.Callees.count(DR))
      if (const auto *FD = dyn_cast<FunctionDecl>(DR->getDecl());
          FD && handlerType(FD))
        V.Handlers.insert(FD->getCanonicalDecl());
  V.Collecting = false;
  V.TraverseDecl(TU);
  if (!V.Count)
    return;
  FileID Main = S.SM.getMainFileID();
  Rendered Body = S.Edits.render(S.SM, Main);
  if (!Body.Ok) {
    S.report(
        Diag::Internal,
        S.SM.getLocForStartOfFile(Main).getLocWithOffset(Body.ConflictOffset),
        "conflicting rewrites of the same code");
    return;
  }
  RewrittenFile R;
  R.FID = Main;
  R.FE = S.SM.getFileEntryRefForID(Main);
  R.IsMain = true;
  R.Plain = true;
  PresumedLoc PL = S.SM.getPresumedLoc(S.SM.getLocForStartOfFile(Main), false);
  R.Name =
      PL.isValid() ? PL.getFilename() : (R.FE ? R.FE->getName().str() : "");
  // The declarations <compactptr.h> makes (with its attributes, so the
  // header may come later in the file), weak: a program that links no
  // runtime (no file of it has compact types) calls neither.
  std::string Text =
      "__attribute__((weak, visibility(\"default\"))) void "
      "cp__native_enter_known(void); "
      "__attribute__((weak, visibility(\"default\"))) void "
      "cp_native_leave(void);\n"
      "#define CP__PLAIN_ENTER() (cp__native_enter_known ? "
      "cp__native_enter_known() : (void)0)\n"
      "#define CP__PLAIN_LEAVE() (cp_native_leave ? "
      "cp_native_leave() : (void)0)\n"
      "extern __attribute__((weak, visibility(\"default\"))) int "
      "cp__switch_pending; __attribute__((weak, "
      "visibility(\"default\"))) void cp_safepoint_slow(void);\n"
      "#define CP__PLAIN_POLL() ((&cp__switch_pending && "
      "__atomic_load_n(&cp__switch_pending, __ATOMIC_RELAXED)) ? "
      "cp_safepoint_slow() : (void)0)\n" +
      lineDirective(1, R.Name);
  R.PreambleSize = Text.size();
  R.Applied = std::move(Body.Applied);
  R.Text = Text + Body.Text;
  Out.push_back(std::move(R));
}

} // namespace compactptr
