//===- Planner.h - a plan per function, as data ---------------------------===//
//
// The planner decides, before a body is rewritten, what the rewrite does
// with it: its form, and in a checked function which loops, loop bodies
// and runs of statements are versioned by mode, where polls go and which
// locals are frame roots.  Each decision is recorded with its reason in
// the function's plan; `-fplugin-arg-compactptr-plan=-` and
// `compactptr-rewrite --plan` print the plans, so tests can check a
// decision without reading the whole generated file.
//
// Forms (docs/plugin.md, section 4a):
//   compact   compact-only mode: the compact body only
//   wide      wide mode, or a function that depends on no layout
//   dual      switchable, layout-dependent, reaches no safepoint: the wide
//             body behind an entry dispatch, plus a compact clone f__cp
//   checked   switchable, reaches a safepoint: one body that picks the
//             layout by mode, with shadow-stack frames
// Tests: test/switchable/plan-*.c, test/switchable/*.c.
//
//===----------------------------------------------------------------------===//
#ifndef COMPACTPTR_PLANNER_H
#define COMPACTPTR_PLANNER_H

#include "Printer.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <map>

namespace compactptr {

/// St declares a static local / has a label (or takes one's address):
/// printed twice, once per layout, it would have two of them.
bool hasStaticLocal(const clang::Stmt *St);
bool hasLabel(const clang::Stmt *St);

enum class FunctionForm { Compact, Wide, Dual, Checked };

/// One decision about a statement of a function, with its reason.
struct Decision {
  unsigned Line = 0;
  std::string What, Why;
};

struct FunctionPlan {
  const clang::FunctionDecl *FD = nullptr;
  FunctionForm Form = FunctionForm::Wide;
  std::string Why;
  std::vector<Decision> Decisions;
};

/// A run of consecutive statements of a block [Begin, End) in which no
/// safepoint can run but at transfer sites (Planner::transferSite), and
/// the part of it versioned by mode as a whole: [VBegin, VEnd), from its first to its last layout-dependent statement
/// (the statements around them run once in either mode, so they are not
/// copied: smaller code, which the optimizer inlines more readily).
struct Run {
  size_t Begin = 0, End = 0;
  size_t VBegin = 0, VEnd = 0;
  bool Versioned = false;
  /// The transfer sites of the versioned part, in order (transferSite).
  std::vector<const clang::Stmt *> Sites;
};

class Planner {
public:
  /// Compact: the printer of the compact copies of versioned regions,
  /// asked whether a region depends on a layout; a call to a closed dual
  /// function counts (the copy calls its compact body directly, where
  /// each call outside a region tests the mode).
  /// Duals and Closed receive the dual functions, and those of them that
  /// can reach no safepoint at all (nothing they call allocates or is code
  /// the engine cannot see): their compact bodies need no depth count.
  Planner(Session &S, Printer &Compact, std::set<const clang::FunctionDecl *> &Duals,
          std::set<const clang::FunctionDecl *> &Closed)
      : S(S), M(S.M), SM(S.SM), Compact(Compact), Duals(Duals), Closed(Closed) {}

  /// Decide every function's form.  Dual functions are decided first, so
  /// compact bodies know which calls go straight to a compact body.
  void planForms(const std::vector<const clang::FunctionDecl *> &Fns);
  FunctionPlan &planOf(const clang::FunctionDecl *FD);

  // ---- checked-form decisions (recorded in the plan of FD) ---------------
  /// FD's loops get polls (main, with auto-safepoints on).
  bool pollsLoops(const clang::FunctionDecl *FD) const;
  /// Loop is versioned whole (no safepoint can run inside; in main: it
  /// cannot allocate, so one poll goes in front).
  bool versionLoop(const clang::FunctionDecl *FD, const clang::Stmt *Loop);
  /// A polled loop body (of main, or of a spin loop: Spin) is versioned
  /// after its poll.
  bool versionBody(const clang::FunctionDecl *FD, const clang::Stmt *Body,
                   bool Spin = false);
  /// Loop is a spin loop that polls at each iteration, in any function
  /// (Model::SpinLoops: auto-safepoints on, not in a signal handler).
  bool spins(const clang::Stmt *Loop) const;
  /// St holds a spin loop (or is one): a safepoint can run inside it.
  bool hasSpinLoop(const clang::Stmt *St) const;
  /// St declares a variable whose cleanup function may reach a safepoint:
  /// a call at the end of its scope that no CallExpr shows.
  bool hasSafepointCleanup(const clang::Stmt *St) const;
  /// The run of the statements of a block of a checked function that
  /// starts at Body[I]: it stops before a statement that may reach a
  /// safepoint other than at transfer sites, or cannot be copied (in main:
  /// before a loop, whose polls the copies would lose), and before a declaration whose variable is used
  /// after the run (the copies are blocks of their own).  Versioned if two
  /// or more of its statements depend on a layout; the versioned part
  /// leaves out the statements before the first and after the last of
  /// them, and ends before a statement holding a transfer site that a
  /// declaration of the part precedes.
  Run run(const clang::FunctionDecl *FD, llvm::ArrayRef<const clang::Stmt *> Body,
          size_t I);
  /// Record a decision taken by the rewrite itself (frames, polls).
  void note(const clang::FunctionDecl *FD, clang::SourceLocation L,
            std::string What, std::string Why);

  /// CE may reach a safepoint: an allocation of a compact object, a
  /// safepoint by declaration (Vocabulary.h), a function of the TU that
  /// reaches one, or code the engine cannot see (isOpaqueCall) that no
  /// compact body holds off -- a function of the TU that calls such code
  /// and is not dual.
  bool mayReach(const clang::CallExpr *CE) const;
  /// Switchable: CE calls a libc function that may block for long
  /// (Vocabulary.def); the checked form calls it in a native region, where
  /// the switch can run while the thread blocks.
  bool isNativeCall(const clang::CallExpr *CE) const;
  /// The first call in St that may reach a safepoint (and that Keep
  /// accepts), or null (unevaluated operands excluded).
  const clang::CallExpr *firstMayReachCall(
      const clang::Stmt *St,
      llvm::function_ref<bool(const clang::CallExpr *)> Keep = nullptr) const;
  /// No safepoint can run inside St and it can be copied (no labels,
  /// static locals, case labels of a switch around it, no spin loop).
  bool copyable(const clang::Stmt *St) const;
  /// St is a transfer site: `v = <allocation of compact objects>;`, v a
  /// local or parameter (not boxed), nothing else in St may reach a
  /// safepoint, and all of it is the file's own text.  A region versioned
  /// by mode can hold one: the compact copy's allocation slow path, the
  /// only place in it where the switch can run, resumes the wide copy
  /// right after St (CheckedWalker::versionByMode).  Its allocation call,
  /// or null.
  /// Var receives the local.
  const clang::CallExpr *transferSite(const clang::Stmt *St,
                                      const clang::VarDecl **Var = nullptr) const;
  /// St can be copied, and every call in it that may reach a safepoint
  /// belongs to a transfer site that a label can follow in the wide copy:
  /// a statement of a block of St with no declaration of St in scope
  /// before it (the jump would skip that declaration's initialization;
  /// a declaration under a case label, or a compound literal whose storage
  /// may be used later, counts too).  InBlock: St itself may be a site.
  /// Sites receives them, in order; false if there is none.
  bool transferable(const clang::Stmt *St, std::vector<const clang::Stmt *> &Sites,
                    bool InBlock = true) const;
  /// Loop can be versioned whole with transfer sites (transferable; in
  /// main: it needs no polls).
  bool versionLoopWithSites(const clang::FunctionDecl *FD, const clang::Stmt *Loop,
                            std::vector<const clang::Stmt *> &Sites) const;
  /// A loop inside St (`do { } while (0)` runs once: not a loop).
  static bool hasLoop(const clang::Stmt *St);
  /// `do { ... } while (0)`: a statement macro's wrapper, not a loop.
  static bool runsOnce(const clang::Stmt *Loop);
  /// St may allocate a compact object: it allocates one, calls code the
  /// engine cannot see, or calls a function of the TU that may.
  bool mayAllocate(const clang::Stmt *St) const;
  /// A loop of main needs a poll per iteration: a switch may become
  /// pending in it where no safepoint is legal (under a compact body), so
  /// only a poll would run it.
  bool needsPolls(const clang::Stmt *Loop) const;

  /// Every plan, in function order, as text (one line per decision).
  std::string dump() const;

private:
  Session &S;
  const Model &M;
  const clang::SourceManager &SM;
  Printer &Compact;
  std::set<const clang::FunctionDecl *> &Duals;
  std::set<const clang::FunctionDecl *> &Closed;
  std::vector<FunctionPlan> Plans;
  std::map<const clang::FunctionDecl *, size_t> Index;

  unsigned classOf(const clang::FunctionDecl *FD) const;
  std::string checkedReason(const clang::FunctionDecl *FD) const;
  bool versionable(const clang::Stmt *St) { return copyable(St) && Compact.affected(St); }
  bool sitesIn(const clang::Stmt *St, bool InBlock, bool DeclInScope,
               std::vector<const clang::Stmt *> &Sites) const;
  unsigned line(clang::SourceLocation L) const;
};

} // namespace compactptr

#endif
