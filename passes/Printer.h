//===- Printer.h - expressions printed in one form ------------------------===//
//
// A Printer turns an expression of the user's program into C text in one
// form: Compact (heap objects in their compact layout: handles decoded and
// encoded, compact strides and sizes, converters for copies) or Wide (the
// original layout; only allocation changes).  It never edits the source: a
// walker (Walker.h) asks it for the text of an outermost affected
// expression and records one edit.  Untouched leaves are copied from the
// user's text, so the output reads like the input.
//
// Each printer has its own memo of which nodes it rewrites, so "this
// region, versioned by mode" is "print it with both printers"; a printer's
// form never changes.  Allocation.cpp holds its allocation rules.
// Tests: test/rewrite/*.c (one construct per file).
//
//===----------------------------------------------------------------------===//
#ifndef COMPACTPTR_PRINTER_H
#define COMPACTPTR_PRINTER_H

#include "Engine.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <optional>
#include <set>

namespace compactptr {

/// The layout a printer writes expressions for.
enum class Form { Compact, Wide };

/// The rewrite's refusals: an error at the user's location, once per
/// construct (Session::report), though a node printed by two printers
/// fails twice.
class Refusals {
public:
  explicit Refusals(Session &S) : S(S) {}
  void fail(const clang::Stmt *E, const std::string &Msg,
            Diag D = Diag::Unrewritable);

private:
  Session &S;
};

/// `sizeof(T)`, `n * sizeof(T)`, `sizeof(T) * n` (Allocation.cpp).
struct SizeShape {
  bool Ok = false;
  clang::QualType Elem;
  /// The factors of the element count (`sizeof(T *) * rows * cols`: rows
  /// and cols); none: one element.
  llvm::SmallVector<const clang::Expr *, 2> Counts;
  /// One object of a type with a flexible array member and room for its
  /// elements: Bytes, the size as written (`sizeof *e + len + 1`,
  /// `offsetof(struct entry, key) + n`), counted by cp_flex_count.
  bool Flex = false;
  const clang::Expr *Bytes = nullptr;
  /// Bytes reads a local that holds such a size (`size_t n = sizeof *e +
  /// k;`): counted for either layout (cp_flex_count_any).
  bool AnyLayout = false;
};
/// Allocation.cpp: E's shape as a size (through casts to integer types).
SizeShape sizeShape(const clang::Expr *E);
/// Allocation.cpp: the size an allocation call CE asks for, as a shape
/// (calloc's two arguments either way round, reallocarray's last two).
SizeShape allocSizeShape(const clang::CallExpr *CE);
/// Allocation.cpp: VD, a local that only its initializer writes, is read
/// only as the size of allocations of one object with a flexible array
/// member (`e = malloc(n)`), whose room cp_flex_count makes enough in
/// either layout: its layout-dependent value is used at once.
bool onlyFlexAllocationSize(clang::ASTContext &Ctx, const clang::VarDecl *VD);
/// Allocators.cpp: the argument a CP_ALLOCATOR call's size is in (the first
/// shaped sizeof(T) or n * sizeof(T), else the first, for the error); null
/// if it takes none.
const clang::Expr *allocatorSizeArg(const clang::CallExpr *CE);
/// Allocators.cpp: how a call of a CP_ALLOCATOR function sizes what it
/// allocates beyond its sizeof argument: the arguments that count objects,
/// the block it resizes (a realloc wrapper; null if none), and a problem
/// that keeps the runtime from taking the call over (empty if none).
struct AllocatorCall {
  std::vector<const clang::Expr *> Counts;
  const clang::Expr *Block = nullptr;
  std::string Problem;
};
AllocatorCall allocatorCall(const clang::CallExpr *CE);
/// Allocators.cpp: FD is a size helper of the program's own that returns
/// the product of two of its integer parameters, checking it for overflow
/// at most (git's st_mult: `return a * b;`, or `__builtin_mul_overflow(a,
/// b, &r)` and `return r;`, at every return, a and b unchanged): their
/// indices; else none.  `malloc(st_mult(sizeof *p, n))` is then `n *
/// sizeof *p`.
std::optional<std::pair<unsigned, unsigned>>
productHelper(const clang::FunctionDecl *FD);
/// Allocators.cpp: likewise for a sum (git's st_add: `return a + b;`):
/// `calloc(1, st_add3(sizeof *x, len, 1))` is an object with a flexible
/// array member and its room.
std::optional<std::pair<unsigned, unsigned>>
sumHelper(const clang::FunctionDecl *FD);
/// Allocators.cpp: a call of a CP_ALLOCATOR function that takes no size
/// (`pool_alloc(&pool)`, a pool of objects of one size): the type of the
/// objects, which this translation unit says by handing the same pool
/// (the variable or field an argument names) sizeof of one type and
/// nothing else (`pool_init(&pool, sizeof(struct node), 64)`); else a null
/// type.
clang::QualType poolElementType(const Model &M, const clang::CallExpr *CE);
/// Allocators.cpp: FD (a CP_ALLOCATOR function) takes no integer: a pool
/// of objects of one size, set at its creation.
bool takesNoSize(const clang::FunctionDecl *FD);
/// Allocators.cpp: CE hands Size (its argument) with a pool (`&pool`,
/// `&ctx->pool`, `mp`: a pointer to a struct that is no compact one) that
/// this translation unit hands to a CP_ALLOCATOR function, to a set-up
/// that only stores it into the pool's fields (`pool_init(&pool,
/// sizeof(struct node), 64)`), and nothing but the set-up and the pool's
/// CP_ALLOCATOR and CP_DEALLOCATOR functions reads those fields: the size
/// kept there never sizes a compact object.
bool isQuietPoolSetUp(const Model &M, clang::ASTContext &Ctx,
                      const clang::CallExpr *CE, const clang::Expr *Size);
/// Allocators.cpp: the functions whose code runs only for the memory a
/// program's own allocator hands out: its CP_ALLOCATOR and CP_DEALLOCATOR
/// functions, and the static functions only they call (a pool's refill),
/// but Except (canonical declarations).
llvm::SmallPtrSet<const clang::FunctionDecl *, 8>
allocatorOwnFunctions(clang::ASTContext &Ctx,
                      const clang::FunctionDecl *Except = nullptr);
/// AllocatorEffects.cpp: warns (allocator-effects) at an update a
/// CP_ALLOCATOR or CP_DEALLOCATOR function makes (itself or through a
/// static helper) to a variable or field that code of the program other
/// than its own functions reads (`live_bytes += n`, printed by main): the
/// calls the rewrite routes to the runtime no longer run it.
void checkAllocatorEffects(Session &S);
/// Allocators.cpp: warns (pool-release) at a call that hands a pool a
/// CP_ALLOCATOR function allocates from to a function that gives the
/// pool's memory back (`pool_destroy(&pool)`: the compact objects are not
/// freed with it), or that hands it a compact object as `void *` without
/// being a CP_DEALLOCATOR (`pool_free(&pool, n)`: its code does not free
/// the runtime's object).
void checkPoolReleases(Session &S);
/// ReallocRebase.cpp: the realloc-rebase warning (switchable mode).
void checkReallocRebase(Session &S);
/// Allocators.cpp: forgets what it read of the last translation unit's
/// functions (runEngine, before each).
void forgetAllocatorRoles();

class Printer {
public:
  /// CompactBodies: calls to the functions in Duals go to their compact
  /// bodies `f__cp` (the printer of a dual function's compact clone).
  Printer(Session &S, Refusals &R, Form F,
          const std::set<const clang::FunctionDecl *> &Duals,
          bool CompactBodies = false)
      : S(S), M(S.M), SM(S.SM), R(R), F(F), Duals(Duals),
        CompactBodies(CompactBodies) {}

  Form form() const { return F; }
  /// CE calls a dual function whose compact body this printer calls
  /// directly (`g(...)` becomes `g__cp(...)` in a compact clone).
  bool dualCallee(const clang::CallExpr *CE) const;
  /// St or a node inside it is rewritten by this printer (memoized).
  bool affected(const clang::Stmt *St);
  /// The node itself is rewritten (not only a descendant).
  bool own(const clang::Stmt *St);
  /// Text of St as a plain C expression of its type.
  std::string text(const clang::Stmt *St);
  /// The operands of the `__typeof__`s in the types St spells (a cast's,
  /// a sizeof's, a compound literal's, those of the variables a
  /// declaration statement declares) or D declares, that name a boxed
  /// variable: boxedOnly gives their text.
  llvm::SmallVector<const clang::Expr *, 2>
  boxedTypeofs(const clang::Stmt *St) const;
  llvm::SmallVector<const clang::Expr *, 2>
  boxedTypeofs(const clang::Decl *D) const;
  /// The user's text of St with only its uses of boxed variables replaced
  /// (an unevaluated operand: `sizeof V` is the heap object's size).
  std::string boxedOnly(const clang::Stmt *St);
  /// Text of E in a truth-value context: handles compare without decode.
  std::string boolText(const clang::Expr *E);
  /// Compact lvalue text of a heap object, handle slot or plain field.
  std::string clv(const clang::Expr *E);
  /// The user's text of E (printed from the AST if it has none).
  std::string original(const clang::Stmt *E);
  /// E's tokens as a range of one file, or an invalid range.
  clang::CharSourceRange fileRange(const clang::Stmt *E) const;
  /// The refusal for a use produced by a macro.
  std::string macroMessage(const clang::Stmt *E) const;
  /// Expansion.cpp: fails St if the expansion printed in place of R would parse again
  /// to other tokens (__COUNTER__, a macro name left unexpanded).
  void refuseReparseHazard(const clang::Stmt *St, clang::CharSourceRange R);
  /// Expansion.cpp: St printed from the AST (a node produced by a macro
  /// expansion has no text of its own to splice): rewritten children from
  /// this printer, untouched children with a text in the file copied from
  /// it, Pending's texts for the nodes it names; everything else printed by
  /// clang's statement printer.  One line of output per line of St's range.
  /// Inner: edits already recorded inside St's range; each copied child
  /// is rendered with the ones inside it, and AllPlaced says whether every
  /// edit of Inner landed in a copied child.
  std::string printed(const clang::Stmt *St,
                      const llvm::DenseMap<const clang::Stmt *, std::string> *Pending = nullptr,
                      const EditSet *Inner = nullptr, bool *AllPlaced = nullptr);
  /// Expansion.cpp: the file range of a for loop's header where the header
  /// alone is one macro expansion and the body the user's text after it
  /// (`FOREACH(x, head) body`, the expansion `for (init; cond; inc)`);
  /// else an invalid range.  Such a header is printed on its own, so the
  /// body keeps its text and its in-place edits (frames, polls, versions).
  clang::CharSourceRange headerExpansion(const clang::Stmt *Loop) const;
  /// Expansion.cpp: that header printed, `for (init; cond; inc)`, as
  /// printed() prints a statement.
  std::string printedHeader(const clang::ForStmt *F,
                            const llvm::DenseMap<const clang::Stmt *, std::string> *Pending,
                            const EditSet *Inner, bool *AllPlaced);
  /// Expansion.cpp: the file range a printed St replaces: its tokens as a
  /// range of one file, or, for a statement that is a whole macro
  /// expansion ending inside one of its arguments, that expansion.
  clang::CharSourceRange placeRange(const clang::Stmt *St) const;
  /// The outermost macro at E's use site (the name written in the file).
  std::string macroName(const clang::Stmt *E) const;
  /// Expansion.cpp: the node whose text in the file replaces E's when E
  /// has none (E is produced by a macro): the smallest of E and its
  /// ancestors, below Top, whose tokens are a range of one file -- the
  /// outermost macro expansion at E's use site.  Null if none.
  const clang::Stmt *placeable(const clang::Stmt *E, const clang::Stmt *Top);
  /// E's value is discarded or only tested (expression statement,
  /// for-increment, condition).
  bool isStatementLevel(const clang::Expr *E);
  /// Nothing reads E's value: it is statement-level, the left of a comma,
  /// or cast to void (so a store needs no value cast, which
  /// -Wunused-value would flag).
  bool isValueDiscarded(const clang::Expr *E);
  /// How C names T in the output.  A struct, union or enum without a tag
  /// or typedef name has no name that compiles (clang spells it "(unnamed
  /// struct at f.c:7:3)"): the use At is refused (when given).
  std::string ty(clang::QualType T, const clang::Stmt *At = nullptr);
  /// `T Name` in declarator syntax (`struct node *cp__h1`, `int (*f)(void)`).
  std::string declText(clang::QualType T, llvm::StringRef Name);

  /// Roots saved around a call that may reach a safepoint (the checked
  /// form): Decls declares a frame where the function has none, Save (an
  /// expression) copies the live compact-pointer locals into frame slots,
  /// Restore (statements) reads them back (the switch may have moved what
  /// they point to).  Allocation sites and cp_safepoint() save only on
  /// their slow path.  Id names the call's temporaries; ArgTemps: the
  /// arguments are evaluated into temporaries first (they assign a local
  /// that Restore would overwrite).
  struct Spill {
    std::string Decls, Save, Restore;
    unsigned Id = 0;
    bool ArgTemps = false;
    /// A blocking call: called in a native region, after its arguments
    /// are evaluated and the roots saved; the roots are read back after
    /// the region (the switch may have run while the thread blocked).
    bool Native = false;
    /// A call out of rewritten code (isCallOut): made outside, after its
    /// arguments are evaluated and the roots saved; the roots are read
    /// back once the thread is inside again.
    bool CallOut = false;
    std::vector<const clang::VarDecl *> Saved; ///< the variables saved
    /// A transfer site's allocation in the compact copy of a versioned
    /// region: where its slow path switched, it assigns the object to
    /// TransferVar and jumps to TransferLabel, right after the site in
    /// the wide copy (Planner::transferSite).
    std::string TransferVar, TransferLabel;
    bool empty() const {
      return Saved.empty() && !Native && !CallOut && TransferLabel.empty();
    }
    /// The jump of a transfer site, after the slow path read its roots
    /// back; Value names the object.
    std::string transfer(const std::string &Value) const {
      if (TransferLabel.empty())
        return "";
      return " if (__builtin_expect(!cp_is_compact(), 0)) { " + TransferVar + " = " + Value +
             "; goto " + TransferLabel + "; }";
    }
    /// The slots, counts, types and names for cp__saved_slow, where a
    /// slow path registers its roots out of line (empty: the roots are in
    /// a frame already).
    std::string Helper;
    /// Declarations, then the saving, to open a `{ }` block with (C89).
    std::string block() const {
      return Save.empty() ? Decls : Decls + " (void)(" + Save + ");";
    }
    /// The slow call of an allocation (What "0": of one object of Desc,
    /// "1": of N of them) or a poll ("2"): Direct, or the out-of-line
    /// helper that registers the saved roots around it.
    std::string slow(const char *What, const std::string &Desc, const std::string &N,
                     const std::string &Direct) const {
      if (Helper.empty())
        return Direct;
      return std::string(What[0] == '2' ? "(void)" : "") + "cp__saved_slow(" + What + ", " +
             Desc + ", " + N + ", " + Helper + ")";
    }
  };
  using NameMap = llvm::DenseMap<const clang::Stmt *, std::string>;
  using SpillMap = llvm::DenseMap<const clang::CallExpr *, Spill>;

  /// While one is alive, the printer prints each node of Names as its name
  /// (a call the checked form evaluates first, into a temporary) and each
  /// call of Spills between its Save and Restore; both count as rewritten.
  /// The memo of affected nodes is set aside meanwhile.
  class Context {
  public:
    Context(Printer &P, const NameMap &Names, const SpillMap &Spills = SpillMap());
    ~Context();
    Context(const Context &) = delete;
    Context &operator=(const Context &) = delete;

  private:
    Printer &P;
    NameMap SavedNames;
    SpillMap SavedSpills;
    llvm::DenseMap<const clang::Stmt *, bool> SavedAffected;
  };
  /// The name a Context gives St, or "".
  llvm::StringRef substituted(const clang::Stmt *St) const {
    auto It = Names.find(St);
    return It == Names.end() ? llvm::StringRef() : llvm::StringRef(It->second);
  }

  void fail(const clang::Stmt *E, const std::string &Msg,
            Diag D = Diag::Unrewritable) {
    R.fail(E, Msg, D);
  }

private:
  std::string textOf(const clang::Stmt *St); // text()'s body
  Session &S;
  const Model &M;
  const clang::SourceManager &SM;
  Refusals &R;
  const Form F;
  const std::set<const clang::FunctionDecl *> &Duals;
  const bool CompactBodies;
  llvm::DenseMap<const clang::Stmt *, bool> Affected;
  /// The thread's result or key value being printed inside its
  /// cp_thread_result(...) or cp_thread_specific(...).
  const clang::Expr *ThreadKeptOpen = nullptr;
  /// The read of an offset kept at run time being printed inside its
  /// cp__measured_offset(...).
  const clang::Expr *MeasuredOpen = nullptr;
  NameMap Names;   ///< Context
  SpillMap Spills; ///< Context
  const Spill *spillOf(const clang::Stmt *St) const {
    const auto *CE = llvm::dyn_cast<clang::CallExpr>(St);
    auto It = CE ? Spills.find(CE) : Spills.end();
    return It == Spills.end() ? nullptr : &It->second;
  }
  std::string callText(const clang::CallExpr *CE);
  std::string nativeRunText(const HandleRun &Run);
  std::string handleText(const HandleAt &At);
  std::string spilledCall(const clang::CallExpr *CE, const Spill &Sp);
  std::string returnsTwiceText(const clang::CallExpr *CE);

  bool compact() const { return F == Form::Compact; }
  const std::vector<MeasuredMember> *measuredRead(const clang::Expr *E) const;
  const clang::Expr *stepStart(const clang::Expr *E) const;
  bool compactTrait(const clang::UnaryExprOrTypeTraitExpr *U);
  bool within(clang::CharSourceRange R, clang::FileID FID, unsigned Begin,
              unsigned End) const;
  bool collectParts(const clang::Stmt *E, clang::FileID FID, unsigned Begin,
                    unsigned End, EditSet &Parts);
  bool needsRebuild(const clang::Stmt *C);
  std::string splice(const clang::Stmt *E);
  std::string ct(const CompactType *T);
  std::string cptr(const CompactType *T, const clang::Expr *E);
  const clang::Expr *handleRead(const clang::Expr *E);
  std::string caddr(const clang::Expr *E);
  std::string slotAddr(const clang::Expr *Deref);
  const CompactType *fieldHolder(const clang::Expr *E);
  bool mentionsBoxed(const clang::Stmt *St) const;
  clang::QualType withoutBoxedTypeof(clang::QualType T) const;
  bool boxedUses(const clang::Stmt *St, clang::FileID FID, unsigned Begin,
                 unsigned End, EditSet &Parts);
  std::string unaryText(const clang::UnaryOperator *UO);
  std::string binaryText(const clang::BinaryOperator *BO);
  std::string traitText(const clang::UnaryExprOrTypeTraitExpr *U);
  std::string offsetofText(const clang::OffsetOfExpr *OE);
  // Allocation.cpp
  bool allocShape(const clang::CallExpr *CE);
  std::string countText(const SizeShape &Sh, const clang::CallExpr *CE);
  std::string allocText(const clang::CallExpr *CE, const Spill *Sp = nullptr);
  std::string allocCall(const clang::CallExpr *CE, AllocFn F, const Spill *Sp);
  std::string runtimeSizeAdvice(const clang::Expr *Size) const;
  std::string pinnedCall(const clang::CallExpr *CE, AllocFn F,
                         const SizeShape &Sh, const clang::Expr *SizeArg);
  std::string otherArgs(const clang::CallExpr *CE,
                        llvm::ArrayRef<const clang::Expr *> Keep);
  void sizeFix(const clang::Expr *Size, const std::string &SizeofT, int64_t Elem,
               std::vector<clang::FixItHint> &Fix);
};

/// Boxing.cpp: VD's initializer names VD itself (`struct jobq q =
/// TAILQ_HEAD_INITIALIZER(q);`): the pointer to the object is set before
/// the initializer runs.
bool namesItself(const clang::VarDecl *VD);
/// Boxing.cpp: the declarator of boxed local VD, printed by C (compact
/// form), W (wide form) or both (the checked form picks by mode).  First:
/// statements that run before the object is allocated (VD has an
/// initializer).
std::string boxLocalText(Session &S, const clang::VarDecl *VD, Printer *C,
                         Printer *W, llvm::StringRef First = {});
/// Boxing.cpp: replace boxed local VD's declarator by Text in Out; false
/// after an error.
bool rewriteBoxedLocal(Session &S, EditSet &Out, const clang::VarDecl *VD,
                       const std::string &Text);
/// Boxing.cpp: VD is a file-scope pointer whose initializer names a boxed
/// variable; rewriteBoxedGlobals moves that initializer into a constructor.
bool initializedAtRunTime(const Session &S, const clang::VarDecl *VD);
/// Boxing.cpp: the declarations, getters and initializer functions of the
/// boxed variables with static storage.
void rewriteBoxedGlobals(Session &S, Printer &Compact, Printer &Wide);

} // namespace compactptr

#endif
