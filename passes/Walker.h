//===- Walker.h - statements rewritten in one form, and the checked form --===//
//
// A Walker rewrites the statements of a body in one form: it finds each
// outermost affected full expression, asks its Printer for the text and
// records one edit in its EditSet.  It never changes form: a region that
// needs both layouts is walked twice, by two walkers with two printers
// into two private edit sets, and rendered by the edit layer.
//
// CheckedWalker is the checked form (switchable mode, functions that reach
// a safepoint): full expressions pick their layout by mode, compact-pointer
// locals and parameters are registered in shadow-stack frames, main's
// loops get polls, and the regions the Planner versions are printed by
// both printers.  Dual.cpp holds the dual form.
// Tests: test/rewrite/*.c, test/switchable/*.c.
//
//===----------------------------------------------------------------------===//
#ifndef COMPACTPTR_WALKER_H
#define COMPACTPTR_WALKER_H

#include "Planner.h"

namespace compactptr {

class Walker {
public:
  Walker(Session &S, Printer &P, EditSet &Out) : S(S), SM(S.SM), P(P), Out(Out) {}
  virtual ~Walker() = default;
  /// Rewrite St and every statement in it, then print the macro
  /// expansions that hold uses without a text of their own.
  void run(const clang::Stmt *St);
  /// Replace a maximal affected full expression.
  virtual void top(const clang::Expr *E, bool BoolCtx);

protected:
  Session &S;
  const clang::SourceManager &SM;
  Printer &P;
  EditSet &Out;
  const clang::Stmt *Top = nullptr; ///< what run() walks
  /// Full expressions produced by a macro: their text, placed when the
  /// expansion around them is printed (resolve()).
  llvm::DenseMap<const clang::Stmt *, std::string> Pending;
  std::vector<const clang::Stmt *> Expansions;

  void walk(const clang::Stmt *St);
  /// Put the text T of full expression E in place: over E's text in the
  /// file, or, if a macro produced E, into the printed expansion around it.
  void place(const clang::Expr *E, std::string T);
  /// Print every expansion that holds pending texts (Expansion.cpp).
  void resolve();

  // Hooks of the checked form; the plain forms do nothing special.
  /// Handle a loop whole (versioned); false: walk it as usual.
  virtual bool walkLoop(const clang::Stmt *) { return false; }
  virtual void loopBody(const clang::Stmt *Body) { walk(Body); }
  virtual bool walkFor(const clang::ForStmt *) { return false; }
  virtual bool walkBlock(const clang::CompoundStmt *) { return false; }
  /// The frame registering DS's roots ("" if none); false after an error.
  virtual bool frameFor(const clang::DeclStmt *, std::string &) { return true; }
  /// A local placed in the compact heap (Boxing.cpp): its declarator.
  virtual void boxLocal(const clang::VarDecl *VD);
};

class CheckedWalker : public Walker {
public:
  CheckedWalker(Session &S, Planner &Pl, Printer &C, Printer &W, EditSet &Out,
                const clang::FunctionDecl *FD)
      : Walker(S, W, Out), M(S.M), Pl(Pl), C(C), W(W), FD(FD) {}
  /// Rewrite the whole function: parameter frame, then the body.
  void rewrite();
  void top(const clang::Expr *E, bool BoolCtx) override;

protected:
  bool walkLoop(const clang::Stmt *St) override;
  void loopBody(const clang::Stmt *Body) override;
  bool walkFor(const clang::ForStmt *F) override;
  bool walkBlock(const clang::CompoundStmt *CS) override;
  bool frameFor(const clang::DeclStmt *DS, std::string &Text) override;
  void boxLocal(const clang::VarDecl *VD) override;

private:
  const Model &M;
  Planner &Pl;
  Printer &C, &W;
  const clang::FunctionDecl *FD;
  unsigned FrameCounter = 0;

  bool polls() const { return Pl.pollsLoops(FD); }
  std::string frameText(const std::vector<const clang::VarDecl *> &Vs);
  bool isFrameRoot(const clang::VarDecl *VD) const;
  bool checkVLA(const clang::VarDecl *VD);
  unsigned afterDeclarator(const clang::VarDecl *VD) const;
  unsigned endAfter(const clang::Stmt *St) const;
  bool versionByMode(llvm::ArrayRef<const clang::Stmt *> Sts, llvm::StringRef Open,
                     llvm::StringRef Close);
  std::string formText(llvm::ArrayRef<const clang::Stmt *> Sts, Printer &F,
                       clang::FileID FID, unsigned B, unsigned E);
  bool isDiscarded(const clang::Expr *E);
  void scanHazard(const clang::Stmt *St, bool InSPArgs, unsigned &SP, bool &OwnOut,
                  bool &OwnAny);
  bool checkedText(const clang::Expr *E, bool BoolCtx, std::string &Out);
  bool assignAfterCall(const clang::Expr *E, std::string &Out);
  void fail(const clang::Stmt *E, const std::string &Msg,
            Diag D = Diag::Unrewritable) {
    P.fail(E, Msg, D);
  }
};

/// Dual.cpp: the dual form of FD: the wide body in place behind an entry
/// dispatch, the compact clone f__cp right after the function.
void rewriteDual(Session &S, const clang::FunctionDecl *FD, Printer &Wide,
                 Printer &CompactClone);

} // namespace compactptr

#endif
