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
#include "clang/Analysis/Analyses/LiveVariables.h"
#include "clang/Analysis/AnalysisDeclContext.h"
#include <memory>
#include <optional>

namespace compactptr {

/// T can be declared by its name: no struct or enum without a tag in it
/// (SafepointCalls.cpp).
bool namesItsTags(clang::QualType T);

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
  /// Direct: the compact printer of the compact copies of regions
  /// versioned by mode, which call the compact bodies of closed dual
  /// functions directly.
  CheckedWalker(Session &S, Planner &Pl, Printer &C, Printer &W, Printer &Direct,
                EditSet &Out, const clang::FunctionDecl *FD)
      : Walker(S, W, Out), M(S.M), Pl(Pl), C(C), W(W), Direct(Direct), FD(FD) {}
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
  bool boxLocalCallsFirst(const clang::VarDecl *VD);

private:
  const Model &M;
  Planner &Pl;
  Printer &C, &W, &Direct;
  const clang::FunctionDecl *FD;
  unsigned FrameCounter = 0;

  void hintInline();
  bool polls() const { return Pl.pollsLoops(FD) && !PollFree; }
  bool PollFree = false;                  ///< inside a loop that cannot allocate
  /// Bodies of spin loops (Planner::spins): each polls, in any function.
  std::set<const clang::Stmt *> SpinBodies;
  /// A warning for each spin loop the walk did not reach (one inside a
  /// statement expression), which has no poll.
  void warnUnpolledSpins(const clang::Stmt *Body);
  const clang::Stmt *PlainLoop = nullptr; ///< being walked without walkLoop
  /// Macro expansions with a poll in front for the loops inside them.
  std::set<const clang::Stmt *> PolledFronts;
  /// One entry of a frame: what cp__root registers for it.
  struct FrameRoot {
    std::string Name, Addr, Kind, Count, Desc;
  };
  std::string frameText(const std::vector<const clang::VarDecl *> &Vs);
  std::string frameText(const std::vector<std::pair<std::string, clang::QualType>> &Vs);
  std::string frameText(const std::vector<FrameRoot> &Rs);
  FrameRoot frameRoot(const std::string &Name, clang::QualType T) const;
  bool isFrameRoot(const clang::VarDecl *VD) const;
  bool checkVLA(const clang::VarDecl *VD);
  bool checkJumpsPast(const clang::DeclStmt *DS, const clang::VarDecl *VD);
  void checkStackArrays(const clang::Stmt *Body);
  void checkVarArgs(const clang::Stmt *Body);
  unsigned afterDeclarator(const clang::VarDecl *VD) const;
  unsigned endAfter(const clang::Stmt *St) const;
  clang::SourceLocation startOf(const clang::Stmt *St) const;
  /// Sites: the transfer sites inside Sts (Planner::transferSite).
  bool versionByMode(llvm::ArrayRef<const clang::Stmt *> Sts, llvm::StringRef Open,
                     llvm::StringRef Close,
                     llvm::ArrayRef<const clang::Stmt *> Sites = {});
  /// A transfer site's text in one copy, [B, E) of the file.
  struct SiteText {
    unsigned B, E;
    std::string Text;
  };
  std::string formText(llvm::ArrayRef<const clang::Stmt *> Sts, Printer &F,
                       clang::FileID FID, unsigned B, unsigned E,
                       llvm::ArrayRef<SiteText> Sites = {});
  /// The checked text of transfer site St, [B, E) of FID; with Label, its
  /// slow path jumps there after a switch.  False after an error.
  bool siteText(const clang::Stmt *St, clang::FileID FID, unsigned B, unsigned E,
                const std::string &Label, std::string &Text);
  /// The transfer site being printed, for checkedText.
  struct {
    const clang::CallExpr *At = nullptr;
    std::string Var, Label;
  } Transfer;
  unsigned ResumeCounter = 0;
  const clang::Stmt *parentIn(const clang::Stmt *St, const clang::Expr *E);
  bool staleAcross(const clang::Stmt *Y, bool ValuesToo);
  void hazardOf(const clang::Expr *U, const clang::Expr *E, bool &Hazard,
                bool &Hoistable);
  const clang::Expr *hoistedNode(const clang::Expr *U, const clang::Expr *E);
  bool unchangedByCalls(const clang::Expr *X) const;
  bool heldInTemporary(clang::QualType T) const;
  void operandsBefore(const clang::Expr *U, const clang::Expr *E,
                      std::vector<const clang::Expr *> &Out);
  bool unitsOf(const clang::Stmt *St, const clang::Expr *E,
               std::vector<const clang::Expr *> &Units, Printer::NameMap &Subs);
  bool exprText(const clang::Expr *E, bool BoolCtx, std::string &Text);
  Printer::SpillMap Spills; ///< of the full expression being printed
  /// Its statement expressions that are units, each with its allocation.
  std::map<const clang::StmtExpr *, const clang::CallExpr *> AllocUnits;
  /// Those of them whose text depends on the layout, the allocation the
  /// first thing they evaluate (`({ T *p = malloc(..); p->next = 0; p; })`):
  /// printed with the mode tested after the allocation (modeText).
  std::set<const clang::StmtExpr *> AllocFirst;
  /// Their allocations, each with the variables its statement expression
  /// declares: not in scope where it is printed, so not saved around it.
  std::map<const clang::CallExpr *, std::set<const clang::VarDecl *>> NotSavedAt;
  bool allocatesFirst(const clang::StmtExpr *SE, const clang::CallExpr *In);
  bool modeText(const clang::Expr *E, bool BoolCtx, const Printer::NameMap &Names,
                const Printer::SpillMap &Spills, std::string &Text);

  // NativeRegions.cpp: cp_native_enter(); ... cp_native_leave(); in a block.
  struct NativeRegion {
    const clang::CallExpr *Enter, *Leave;
    /// Assigned or declared inside.  Every other compact-pointer local
    /// live at the exit was in scope, and so live, at the entry: in its
    /// slot.
    std::set<const clang::VarDecl *> Written;
  };
  std::vector<NativeRegion> Regions;
  /// Every node between the entry and the exit of a region: calls there
  /// neither save nor read back (the roots are in their slots, and the
  /// thread is native).
  llvm::DenseSet<const clang::Stmt *> InRegion;
  void collectNativeRegions(const clang::Stmt *St);
  NativeRegion *regionOf(const clang::CallExpr *CE);
  static bool isNativeTransition(const clang::CallExpr *CE);

  // SafepointCalls.cpp: the frame of slots and the roots saved around calls.
  /// A scalar compact-pointer local or parameter, kept in a frame slot.
  struct SlotRoot {
    const clang::VarDecl *VD;
    unsigned Index;
    unsigned DeclEnd, ScopeB, ScopeE; ///< in scope in [DeclEnd, ScopeE]
    std::vector<unsigned> Refs;       ///< where it is named
    /// The statement it is scoped to (null: the whole body).  Offsets
    /// cannot tell inside one macro expansion: pthread_cleanup_pop closes
    /// the block a local between it and its push is declared in, then
    /// calls the handler, all at the pop's offset.
    const clang::Stmt *Scope = nullptr;
  };
  /// Every named local or parameter, for the hiding check.
  struct LocalVar {
    const clang::VarDecl *VD;
    unsigned DeclEnd, ScopeB, ScopeE;
  };
  std::vector<SlotRoot> Slots;
  std::set<const clang::VarDecl *> AddrTaken;
  /// `void *` locals a thread's result is joined into and used as compact
  /// pointers only (joinResults): frame roots of no type.
  std::set<const clang::VarDecl *> JoinResults;
  std::vector<LocalVar> Locals;
  std::vector<std::pair<unsigned, unsigned>> Loops;
  /// The spin loops among them (polled in any function): where each one's
  /// poll goes, at the start of its body, by the loop's start.
  std::map<unsigned, unsigned> SpinPolls;
  bool AllLive = false;   ///< labels: every variable in scope is live
  /// The function calls setjmp (vfork, getcontext): see computeLiveness.
  bool ReturnsTwice = false;
  std::string ReturnsTwiceName; ///< the first such callee, for diagnostics
  /// Variably modified types beyond a plain VLA: see computeLiveness.
  bool BoundsInTypes = false;
  /// Liveness on the function's CFG (clang's LiveVariables), which
  /// narrows the source approximation at calls: null where it cannot be
  /// trusted (no CFG, setjmp, an edge marked unreachable: CfgPruned).
  /// CfgPos: each statement's block and index.
  std::unique_ptr<clang::AnalysisDeclContext> CfgCtx;
  bool CfgPruned = false;
  clang::LiveVariables *Liveness = nullptr;
  llvm::DenseMap<const clang::Stmt *, std::pair<const clang::CFGBlock *, unsigned>> CfgPos;
  void computeLiveness();
  const clang::CFG *cfg();
  std::optional<bool> reaches(const clang::Stmt *From, const clang::Stmt *To);
  bool deadAfter(const clang::Stmt *At, const clang::VarDecl *VD);
  bool SlotFrame = false; ///< the frame of slots was placed
  clang::FileID BodyFID;
  bool isSlotRoot(const clang::VarDecl *VD) const;
  /// The compact type a slot root VD points to (its own pointee, or for
  /// pthread_cleanup_push's `void *__cancel_arg` its initializer's), or null.
  CompactType *slotType(const clang::VarDecl *VD) const;
  void joinResults(const clang::CompoundStmt *Body);
  bool within(const clang::Stmt *St, const clang::Stmt *Scope) const;
  unsigned offsetOf(clang::SourceLocation L) const;
  unsigned endOffsetOf(clang::SourceLocation L) const;
  void collectSlots(const clang::CompoundStmt *Body);
  void placeSlotFrame(const clang::CompoundStmt *Body);
  bool slowPathSite(const clang::CallExpr *CE) const;
  bool declaresRootBefore(const clang::StmtExpr *SE, const clang::CallExpr *At);
  bool sameText(const clang::Expr *X);
  /// Report false: no error for a variable an inner one hides (the frame
  /// is being placed; the call's own liveness decides later).
  std::vector<const SlotRoot *> liveAt(unsigned CB, unsigned CE, unsigned EB,
                                       unsigned EE, const clang::Stmt *At, bool &Ok,
                                       bool Report);
  /// Kept: variables a call around At saves too, whose slots At's read
  /// back leaves set (the enclosing call reads them back and clears them).
  Printer::Spill spillAt(unsigned CB, unsigned CE, unsigned EB, unsigned EE,
                         const clang::Stmt *At, bool SlowPath,
                         NativeRegion *Region = nullptr,
                         const std::set<const clang::VarDecl *> &Kept = {});
  std::string pollText(unsigned Pos, const clang::Stmt *At);

  bool checkedText(const clang::Expr *E, bool BoolCtx, std::string &Out);
  void fail(const clang::Stmt *E, const std::string &Msg,
            Diag D = Diag::Unrewritable) {
    P.fail(E, Msg, D);
  }
};

/// SafepointCalls.cpp: the variable St (one node) assigns -- the target of
/// an assignment or of ++/-- (AddressToo: or of `&`) -- or null.
const clang::VarDecl *assignedVariable(const clang::Stmt *St, bool AddressToo);

/// SafepointCalls.cpp: the calls of St that may reach a safepoint, in
/// evaluation order (post-order, left to right), outside unevaluated
/// operands and, unless IntoStatementExpressions (checkVarArgs: an
/// allocating `NEW_NODE()` macro), statement expressions.
void mayReachCalls(const Planner &Pl, const clang::Stmt *St,
                   std::vector<const clang::CallExpr *> &Out,
                   bool IntoStatementExpressions = false);
/// The calls under St that may reach a safepoint inside a statement
/// expression, each with the outermost statement expression it is in.
void callsInStmtExprs(const Planner &Pl, const clang::Stmt *St, const clang::StmtExpr *Outer,
                      std::vector<std::pair<const clang::CallExpr *, const clang::StmtExpr *>> &Out);

/// Dual.cpp: the dual form of FD: the wide body in place behind an entry
/// dispatch, the compact clone f__cp right after the function.
void rewriteDual(Session &S, const clang::FunctionDecl *FD, Printer &Wide,
                 Printer &CompactClone, bool Closed);

} // namespace compactptr

#endif
