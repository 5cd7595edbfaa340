//===- Engine.h - the compactptr engine: shared model and pass entry points ===//
//
// The engine turns a parsed C translation unit into rewritten source text.
// It is a pipeline of passes, one per file:
//
//   Analysis.cpp  compact types (annotated + inferred), function classes
//   Safety.cpp    the safety gate for types (unions, bit-fields, packed, ...)
//   Layout.cpp    compact layouts: field order, generated declarations
//   Rewrite.cpp   function forms: compact, wide, dual and checked bodies
//   Emit.cpp      generated code placement, descriptors, applying the edits
//   Engine.cpp    the pipeline driver and the diagnostic helpers
//
// Two front ends drive it: Plugin.cpp (compactptr.so, a nested parse inside
// clang) and tool/compactptr-rewrite.cpp (libTooling).  Passes collect edits
// in an EditSet; any error clears the whole set, so a file is never half
// rewritten.
//
//===----------------------------------------------------------------------===//
#ifndef COMPACTPTR_ENGINE_H
#define COMPACTPTR_ENGINE_H

#include "Edits.h"
#include "Vocabulary.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Token.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallVector.h"
#include <array>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace clang {
class Preprocessor;
}

namespace compactptr {

class ExpansionRecorder;

/// Every diagnostic of the engine (Diagnostics.def).
enum class Diag {
#define CP_DIAG(Id, Name, Level, Advise) Id,
#include "Diagnostics.def"
};
/// A diagnostic's name ("alloc-size") and whether it is a warning.
const char *diagName(Diag D);
bool diagIsWarning(Diag D);

/// What the user's flags make of a warning: Default (on), Ignored
/// (-Wno-compactptr-NAME), Error (-Werror=compactptr-NAME), Warning
/// (-Wno-error=compactptr-NAME after an Error).
enum class WarningState { Default, Ignored, Warning, Error };

/// Build modes (docs/plugin.md): `switchable` (dual and checked bodies, the
/// plugin's default), `compact-only` (compact bodies only), `wide` (runtime
/// allocator, original layouts).
enum class Mode { CompactOnly, Wide, Switchable };

struct Options {
  Mode TheMode = Mode::CompactOnly;
  /// Plugin option auto-safepoints: polls in the loops of main and in spin
  /// loops (isSpinLoop) (switchable mode only).
  bool AutoSafepoints = true;
  /// Keep the planner's decisions as text in Session::PlanText.
  bool DumpPlan = false;
  /// Per warning name (or "" for the group `compactptr`): the state the
  /// user's -W flags give it, in order.
  std::vector<std::pair<std::string, WarningState>> Warnings;
  /// clang's -w and -Werror, which clang 19 does not apply to a plugin's
  /// diagnostics: the front ends copy them from the compiler's options.
  bool NoWarnings = false, WarningsAsErrors = false;
  /// NoWarnings and WarningsAsErrors are set already (the plugin, whose
  /// nested parse has its own, quiet options); otherwise runEngine reads
  /// them from the translation unit's DiagnosticOptions.
  bool FlagsFromCompiler = false;
  /// Apply one warning flag as clang spells it after -W: "no-compactptr-X",
  /// "error=compactptr-X", "no-error=compactptr-X", "compactptr-X" (X may
  /// be empty: the whole group).  False (and Err set) if it names no
  /// diagnostic of the engine.
  bool addWarningFlag(llvm::StringRef Flag, std::string &Err);
  /// The level the user's flags give warning D (Ignored, Warning, Error).
  WarningState warningState(Diag D) const;
  /// Some bodies use the compact layout (so converters are generated).
  bool compactBodies() const { return TheMode != Mode::Wide; }
  /// Every body is the compact body (no dispatch, no checked form).
  bool compactOnly() const { return TheMode == Mode::CompactOnly; }
  bool switchable() const { return TheMode == Mode::Switchable; }
  /// The CP_BUILD_* constant descriptors carry.
  const char *buildFlag() const {
    return TheMode == Mode::Wide         ? "CP_BUILD_WIDE"
           : TheMode == Mode::Switchable ? "CP_BUILD_SWITCHABLE"
                                         : "CP_BUILD_COMPACT_ONLY";
  }
  static bool parseMode(llvm::StringRef S, Mode &Out);
  static const char *modeName(Mode M);
};

struct CompactType;
struct Session;

/// A member of a compact type that an offset kept at run time was
/// measured to (`(char *)&x->hh - (char *)x`, `offsetof(T, hh)`).
struct MeasuredMember {
  const CompactType *T = nullptr;
  const clang::FieldDecl *F = nullptr;
  bool operator==(const MeasuredMember &O) const {
    return T == O.T && F == O.F;
  }
};

/// One field of a compact type, as the compact layout stores it.
/// Layout.cpp: T is const or holds a const member at any depth (C lets an
/// initializer set it, no assignment: the generated code copies bytes).
bool hasConstPart(clang::QualType T);

struct FieldInfo {
  enum Kind { Bytes, Handle, Struct };
  const clang::FieldDecl *FD = nullptr;
  Kind K = Bytes;
  uint64_t Count = 1;                 ///< array elements (flattened)
  const clang::RecordDecl *Target = nullptr; ///< Handle/Struct: the record
  unsigned CompactAlign = 1;          ///< bytes, for field ordering
  uint64_t CompactSize = 0;           ///< bytes (0 if unknown)
  uint64_t CompactOffset = 0;         ///< bytes (Layout)
  /// A run of consecutive bit-fields, kept together as one Bytes field:
  /// its fields in declaration order (FD is the first named one).  Its
  /// bits keep their places relative to a boundary aligned for the run,
  /// so the bytes they span copy as they are between the layouts.
  std::vector<const clang::FieldDecl *> Bits;
  uint64_t BitsLead = 0;  ///< bytes from that boundary to the run's first
  uint64_t BitsWide = 0;  ///< the run's first byte in the wide layout
  uint64_t BitsBytes = 0; ///< bytes the run spans
  /// The flexible array member (last: `char key[];`, `struct node
  /// *forward[];`, `struct level level[];`): a field of no size of its
  /// own, its elements in the room the object was allocated with
  /// (cp_flex_count).
  bool Flex = false;
  /// The struct hack's last member of one element (`struct snode
  /// *forward[1];`): a field of its size, placed last, whose room past it
  /// the descriptor gives a CP_FIELD_FLEX entry that starts at its second
  /// element.
  bool OneElementRoom = false;
  /// A `T **` field (T compact): 8 bytes in both layouts, CP_FIELD_SLOT in
  /// the descriptor, so the switch moves a handle slot's address in it.
  bool SlotPointer = false;
  /// An untyped address (isAddressFieldType): 8 bytes in both layouts,
  /// CP_FIELD_ADDRESS in the descriptor.
  bool AddressPointer = false;
};

/// A compact type: annotated with `compact` or inferred.
struct CompactType {
  const clang::RecordDecl *RD = nullptr;
  bool Annotated = false;
  std::string Name;         ///< tag or typedef name (descriptor name)
  std::string WideSpelling; ///< how C names the wide type: "struct node"
  std::string CompactTag;   ///< "cp__c_node": `struct cp__c_node`
  std::string DescName;     ///< "cp__desc_node"
  std::vector<FieldInfo> Fields; ///< in compact-layout order (Layout pass)
  unsigned CompactAlign = 1;
  uint64_t CompactSize = 0;
  bool LayoutDone = false;
  /// "file:line" of each cast between a pointer to this type and an
  /// integer (the integer-cast warning), recorded in the descriptor so the
  /// runtime can say after the switch that such values did not follow.
  std::vector<std::string> IntegerCastSites;
  /// Pinned (Model::Pinned): the synchronization object it holds
  /// ("pthread_mutex_t"); empty for a compact type.
  std::string Sync;
  std::string compactSpelling() const { return "struct " + CompactTag; }
};

/// What Analysis learns about a function (docs/plugin.md, section 4a).
enum FunctionClass : unsigned {
  FC_None = 0,
  FC_LayoutDependent = 1, ///< touches a compact layout
  /// Reaches a safepoint: main; declared CP_SAFEPOINT; calls
  /// cp_safepoint() or cp_switch_to_wide(); allocates a compact object (an
  /// allocation site is a safepoint); or calls a function of the TU that
  /// does.  Gets the checked form.
  FC_Safepoint = 2,
  /// Calls code the engine cannot see -- another translation unit's
  /// function, a function pointer, a library function handed a function --
  /// which may allocate and so switch; or a function of the TU that does and
  /// is not dual (a dual function's compact body holds the switch off while
  /// it runs, so its callers need not care).
  FC_Opaque = 4,
  /// May allocate a compact object, and so make a switch pending: directly,
  /// through opaque code, or through a function of the TU that may.
  FC_Allocates = 8,
  /// Has parameters, locals or expressions of compact-pointer (or compact
  /// value) type: an opaque function that does keeps them in roots.
  FC_HoldsCompact = 16,
  /// Touches compact objects or the switch's state, itself or through a
  /// function of the TU it calls (directly or through a pointer):
  /// layout-dependent, holding compact pointers, allocating a compact
  /// object or reaching a safepoint of its own.  Entered from outside
  /// rewritten code, such a function comes inside first (Entries.cpp).
  FC_Touches = 32,
};

/// Analysis.cpp: the function of this translation unit that blocking call
/// CE runs back through its argument A (pthread_once's init routine), or
/// null.
const clang::FunctionDecl *blockingCallbackHere(const Session &S, const clang::CallExpr *CE,
                                                const clang::Expr *A);
/// Analysis.cpp: CE calls code the engine cannot see (see FC_Opaque):
/// through a pointer, a function defined in no part of this TU that is not
/// a builtin, a runtime function, `pure` or `const`, or a system-header
/// function handed a function (qsort's comparator).
bool isOpaqueCall(const Session &S, const clang::CallExpr *CE);
/// A variable's cleanup function F is code the engine cannot see, as an
/// opaque call's callee: of another file, or a system header's that calls
/// through a pointer (glibc's pthread_cleanup_push under -fexceptions).
bool opaqueCleanup(const Session &S, const clang::FunctionDecl *F);
/// Analysis.cpp: CE calls alloca or one of clang's __builtin_alloca forms.
bool isAllocaCall(const clang::CallExpr *CE);
/// Analysis.cpp: the first call of FD (switchable mode) to another file's
/// function whose prototype has compact pointers (its result or a
/// parameter is, or points to, a compact pointer, object, or a struct
/// holding them), which makes FD safepoint-reaching -- a constructor such
/// as node_new called in a builder's loop, a lookup that waits on a read
/// lock: as a compact body
/// FD deferred every switch until the arena was exhausted, or held a
/// writer's switch up until the timeout.  Null when FD has none, or one
/// in a statement expression or initializer list, or calls alloca: the
/// checked form refuses those, and FD stays a compact body, as before.
const clang::CallExpr *interfaceCall(const Session &S,
                                     const clang::FunctionDecl *FD);
/// Analysis.cpp: the local variable or parameter E names, or null.
const clang::VarDecl *localVariable(const clang::Expr *E);
/// Analysis.cpp: T is `void *` or a pointer to a character type, the
/// pointers C code counts bytes with.
bool isBytePointer(clang::QualType T);
/// Analysis.cpp: the address E stands for when it is a pointer the
/// compiler computes from integers alone, not from any object -- a
/// sentinel or poison value (`(void *)0x100`, the kernel's `(void *)0x100
/// + POISON_POINTER_DELTA`) -- non-null; else nothing.
std::optional<uint64_t> constantAddress(const clang::Expr *E,
                                        const clang::ASTContext &Ctx);
/// Analysis.cpp: the definition of the function CE calls directly, if it
/// is in this TU (not in an ignored file); else null.
const clang::FunctionDecl *localDefinition(const Session &S, const clang::CallExpr *CE);
/// Analysis.cpp: the definitions of Model::Functions in source order (so
/// the fixed points and their messages do not depend on the map's order).
std::vector<const clang::FunctionDecl *> definitionsInOrder(const Session &S);
/// A flow-insensitive analysis over the translation unit (Slots.cpp,
/// Interior.cpp): FlowT(S, FD, Check) visits one body, growing the Model
/// and setting Changed (Check false), or reporting what escapes (Check
/// true).  Grows to a fixed point over every definition in source order,
/// then checks each body once, handing each checked visitor to Checked.
template <class FlowT, class CheckedFn>
void flowToFixedPoint(Session &S, CheckedFn Checked) {
  std::vector<const clang::FunctionDecl *> Fns = definitionsInOrder(S);
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (const clang::FunctionDecl *FD : Fns) {
      FlowT F(S, FD, /*Check=*/false);
      F.TraverseStmt(FD->getBody());
      Changed |= F.Changed;
    }
  }
  for (const clang::FunctionDecl *FD : Fns) {
    FlowT F(S, FD, /*Check=*/true);
    F.TraverseStmt(FD->getBody());
    Checked(FD, F);
  }
}
/// Analysis.cpp: the pointer type E's value is used as, through the casts
/// around it (`(struct node **)alloca(...)`); E's own type if none.
clang::QualType pointerUse(clang::ASTContext &Ctx, const clang::Expr *E);
/// Analysis.cpp: switchable, CE calls a libc function that may block for
/// long (Vocabulary.def) and hands it no memory of the compact heap: the
/// checked form calls it in a native region (SafepointCalls.cpp), so it is
/// a safepoint.  With compact memory among its arguments (a buffer or a
/// mutex inside a node) it is a plain call: the switch cannot move what
/// the kernel or a waiter holds (blocking-on-object, Interior.cpp).
bool isNativeCall(const Session &S, const clang::CallExpr *CE);
/// Analysis.cpp: switchable, CE calls out of rewritten code: a function
/// of another file (declared outside system headers, defined in no part
/// of this TU; see isOpaqueCall), or one of this TU that touches nothing
/// compact (FC_Touches) and calls code it cannot see, handed no compact
/// memory, no pointer to
/// memory that holds compact pointers and no byte or `void *` variable,
/// and returning no compact pointer.  The checked form makes the call with
/// its roots saved, outside (cp__call_out/cp__call_back), so the switch
/// can run while the callee waits (a thread pool's pool_wait_idle()).
bool isCallOut(const Session &S, const clang::CallExpr *CE);
/// Entries.cpp: switchable, FD (a definition) may be called from outside
/// rewritten code -- it has external linkage, its address is taken, or
/// it runs at start-up or exit -- and touches compact objects
/// (FC_Touches): it comes inside at its entry (cp__enter).
bool isEntry(const Session &S, const clang::FunctionDecl *FD);
/// Entries.cpp: makes entry function FD (a definition whose body starts
/// in the file) come inside when called from outside: `f__outside`
/// declared before it and defined after it, and the test at the start of
/// its body (or, where FD cannot call itself again -- variadic, K&R,
/// unnamed parameters -- a cleanup that keeps the thread inside until it
/// returns).  Before the form's edits at the same offsets.
void markEntry(Session &S, const clang::FunctionDecl *FD);
/// Entries.cpp: the definition of `cp__entry_f`, the weak symbol by which
/// rewritten code of other files knows entry FD is rewritten code too ("" if
/// FD has no external linkage).
std::string entryMarker(const clang::FunctionDecl *FD);
/// LoopPolls.cpp: Loop is a spin loop, one that may wait for another
/// thread: its condition touches an atomic object (an _Atomic lvalue, a
/// __sync or __atomic builtin) or reads a volatile one, its body yields or
/// pauses (Vocabulary.def), or an `if` in its body on such a read leaves
/// it.  In switchable mode it polls for the switch at each iteration,
/// wherever it is (not in a possible signal handler, nor in a native
/// region): the thread it waits for may be the one that switches.
bool isSpinLoop(const clang::Stmt *Loop);
/// LoopPolls.cpp: the body of a while, do or for statement.
const clang::Stmt *loopBodyOf(const clang::Stmt *Loop);
/// Analysis.cpp: why FD cannot have the dual form (variadic, main, static
/// locals, its braces from a macro ...), or "".
std::string dualBlocker(const clang::SourceManager &SM, const clang::FunctionDecl *FD);

/// A variable of compact type placed in the compact heap (Boxing.cpp).
struct BoxedVar {
  CompactType *T = nullptr;
  bool Static = false;  ///< static storage: allocated at its first use
  std::string Ptr;      ///< "cp__box_V": the pointer to the heap object
  std::string Getter;   ///< "cp__box_get_V" (static storage)
  std::string Init;     ///< "cp__box_init_V" (static storage)
  /// An array of T: its dimensions as declared ("[8]", "[4][2]", "[]" for
  /// an extern declaration of unknown size) and its element count (0 when
  /// unknown); the heap object is one array, `T (*cp__box_V)[8]` points
  /// to it.  Empty and 1 for a single object.
  std::string Dims;
  uint64_t Count = 1;
  /// `T *` for one object, `__typeof__(T (*)[8])` for an array (usable
  /// in a declaration as in a cast), with T's spelling.
  std::string pointerType(const std::string &T) const {
    return Dims.empty() ? T + " *" : "__typeof__(" + T + " (*)" + Dims + ")";
  }
};

/// The engine's view of a translation unit.
struct Model {
  std::vector<std::unique_ptr<CompactType>> Types; ///< definition order
  llvm::DenseMap<const clang::RecordDecl *, CompactType *> ByDecl;
  /// Analysis.cpp (switchable): pinned types, structs not annotated that
  /// hold compact pointers (or a pinned struct) and a synchronization
  /// object (CP_SYNC_TYPE) -- a work queue, a pool.  Not compact: they
  /// keep their layout, pointers to them are native, and their heap
  /// objects come from cp_pinned_alloc, which the switch never moves (a
  /// thread may wait in the kernel on the mutex at its address) and whose
  /// compact pointers it translates in place.  Values are roots.  Only
  /// DescName, Name, WideSpelling, RD and Sync are set.
  std::vector<std::unique_ptr<CompactType>> Pinned;
  llvm::DenseMap<const clang::RecordDecl *, CompactType *> PinnedByDecl;
  llvm::DenseMap<const clang::FunctionDecl *, unsigned> Functions;
  /// Analysis.cpp: functions of the TU (canonical) whose address is taken
  /// (named other than as a call's callee).
  std::set<const clang::FunctionDecl *> AddressTaken;
  /// SignalHandlers.cpp (switchable): definitions (canonical) that may be
  /// signal handlers: of a handler's type, their address taken.  Their
  /// spin loops, and those of what they call, do not poll: a switch there
  /// would move the heap under the code the signal interrupted.
  llvm::SetVector<const clang::FunctionDecl *> Handlers;
  /// Those and the functions of the TU they call, directly or through
  /// others (canonical): no spin loop of theirs polls.
  std::set<const clang::FunctionDecl *> HandlerReach;
  /// Analysis.cpp (switchable, auto-safepoints): the spin loops that poll
  /// (isSpinLoop, outside HandlerReach).
  llvm::DenseSet<const clang::Stmt *> SpinLoops;
  /// Every struct and union definition outside system headers.
  std::vector<const clang::RecordDecl *> Records;
  /// Slots.cpp: `T **` locals and parameters, and functions (canonical)
  /// whose result, that may hold the address of a handle slot.
  llvm::DenseSet<const clang::VarDecl *> SlotVars;
  llvm::DenseSet<const clang::FunctionDecl *> SlotReturns;
  /// Slots.cpp: `T **` fields of compact structs that may hold the address
  /// of a handle slot (a store of one seen here, or declared in a system
  /// header: <sys/queue.h>'s `tqe_prev`), and those read here as plain
  /// pointers otherwise: the descriptor's CP_SLOT_USE_*, which the runtime
  /// checks agree between translation units.
  llvm::DenseSet<const clang::FieldDecl *> SlotFields;
  llvm::DenseSet<const clang::FieldDecl *> SlotFieldsRead;
  /// Slots.cpp: the slot-pointer fields at the same place of compact
  /// structs that open with the same fields (C-style inheritance: one is
  /// read through a pointer to the other, also by way of `void *`); they
  /// are in SlotFields together.
  llvm::DenseMap<const clang::FieldDecl *,
                 llvm::SmallVector<const clang::FieldDecl *, 2>>
      SlotTwins;
  /// Interior.cpp (switchable): locals and parameters that may hold an
  /// address inside a compact object's plain data (`int *w = &c->value;`):
  /// a checked function's frame registers them untyped, so the switch
  /// moves them with the object, as it does slot pointers; and functions
  /// (canonical) whose result may.
  llvm::DenseSet<const clang::VarDecl *> InteriorVars;
  llvm::DenseSet<const clang::FunctionDecl *> InteriorReturns;
  /// Locals and parameters of plain pointer type handed a compact
  /// object's address (`void *d = n`, a `void *` parameter a compact
  /// pointer is passed to): registered untyped by their frames as
  /// InteriorVars are, so a switch while they hold it moves it; not
  /// interior pointers for the warnings, as void-escape speaks where such
  /// an address is kept.  Also those of an untyped pointer type (`void *`,
  /// `void **`, libuv's `QUEUE *`) handed what the plugin cannot see into:
  /// a call's result, a read of memory, va_arg, a parameter of a function
  /// other files or a call through a pointer may call.
  llvm::DenseSet<const clang::VarDecl *> ObjectAddressVars;
  /// Interior.cpp: local structs of a plain type with untyped pointer
  /// members (`struct find_ctx { void *found; }`) that may hold a compact
  /// object's address: a member is handed one, or the struct's address is
  /// taken (a callback fills `ctx->found`).  Their frames register each
  /// such member (untypedMembers).
  llvm::DenseSet<const clang::VarDecl *> ObjectAddressStructs;
  /// Interior.cpp: locals and parameters (a struct or array as a whole)
  /// handed an integer made a pointer that may fall inside the arena
  /// (`GINT_TO_POINTER(i)`), or whose value is made an integer: never
  /// roots for an opaque source, as the switch would change an integer
  /// that fell inside a live slab.
  llvm::DenseSet<const clang::VarDecl *> IntegerPointerVars;
  /// Interior.cpp: locals and parameters (a struct or array as a whole)
  /// whose value the function uses as a compact object's address:
  /// converted to a compact pointer type, or stored into an untyped field
  /// of a compact object.  An opaque source makes a root only of these.
  llvm::DenseSet<const clang::VarDecl *> AddressEvidence;
  /// Provenance.cpp: locals, parameters (of functions only this file
  /// calls) and function definitions whose every value is null, a compact
  /// allocation or a decoded handle.
  llvm::DenseSet<const clang::VarDecl *> KnownVars;
  llvm::DenseSet<const clang::FunctionDecl *> KnownReturns;
  /// Boxing.cpp: variables (canonical) placed in the compact heap.
  std::map<const clang::VarDecl *, BoxedVar> Boxed;
  /// HandleRoots.cpp (compact-only): `T **` variables (canonical) whose
  /// root arrays hold handles, and the allocations and frees of them.
  llvm::DenseSet<const clang::VarDecl *> HandleRoots;
  llvm::DenseSet<const clang::CallExpr *> HandleRootAllocs, HandleRootFrees;
  /// Escapes.cpp (switchable): a compact pointer a thread ends with, as
  /// `void *` (the cast in a start routine's `return` or in
  /// `pthread_exit`'s argument), printed `cp_thread_result(...)` so that
  /// the runtime keeps it as a root until pthread_join hands it over; or
  /// one it sets as a pthread key's value (mapped to the key), printed
  /// `cp_thread_specific(key, ...)`.
  llvm::DenseMap<const clang::Expr *, const clang::Expr *> ThreadKept;
  /// Offsets kept at run time that code steps by (uthash's `tbl->hho`, a
  /// field or a local, Pools.cpp), each with the members the values the
  /// file gives them are measured to: every read is printed as the offset
  /// of the member the value read names, in the layout of the moment
  /// (cp__measured_offset); at a step to a compact type (MeasuredSteps),
  /// only among that type's members.
  llvm::DenseMap<const clang::ValueDecl *, std::vector<MeasuredMember>>
      MeasuredOffsets;
  llvm::DenseMap<const clang::Expr *, std::vector<MeasuredMember>>
      MeasuredSteps;
  /// Function pointer fields looked at by hookFreed: whether the
  /// translation unit gives them `free` (a cache: one walk of the TU each).
  mutable llvm::DenseMap<const clang::FieldDecl *, bool> FreeHooks;

  /// The compact type of a record type (through typedefs), else null.
  CompactType *recordOf(clang::QualType T) const;
  /// The compact pointee of a pointer type, else null.
  CompactType *pointeeOf(clang::QualType T) const;
  /// Strip array types: the compact record element, else null.
  CompactType *elementOf(clang::QualType T) const;
  /// The pinned type of a record type (through typedefs), else null.
  CompactType *pinnedOf(clang::QualType T) const;
  /// The pinned pointee of a pointer type, else null.
  CompactType *pinnedPointee(clang::QualType T) const;
};

/// How a variable of type T is registered as a root: CP_ROOT_POINTER for
/// compact pointers (and arrays of them), CP_ROOT_VALUE for values of
/// compact or pinned types; Kind null if T holds neither.
struct RootShape {
  const char *Kind = nullptr;
  uint64_t Count = 1;      ///< flattened array elements
  CompactType *T = nullptr;
  bool VLA = false;        ///< a variable-length array: not registrable
};
RootShape rootShape(const Model &M, clang::QualType T);

/// `'name'`, as diagnostics quote the user's names.
inline std::string quoted(llvm::StringRef S) { return "'" + S.str() + "'"; }
/// The token range of R, as diagnostics underline it.
inline clang::CharSourceRange tokRange(clang::SourceRange R) {
  return clang::CharSourceRange::getTokenRange(R);
}

/// Where a struct whose closing brace RBrace a macro produced ends: true
/// if the brace is the expansion's last token, or is followed there only
/// by the `;` that ends the declaration (`#define DECL_HEAD(n, t) struct
/// n { struct t *first; };`, used without a `;` of its own: Semi is set).
/// False: the macro goes on after the struct.
bool structEndsExpansion(const clang::SourceManager &SM, const clang::LangOptions &LO,
                         clang::SourceLocation RBrace, bool &Semi);

/// The preprocessor directives in Text, one trimmed line each: the lines
/// after its first whose first token is `#` (Text starts inside a line).
std::vector<llvm::StringRef> directiveLines(llvm::StringRef Text);

/// Escapes.cpp: the hazards of switchable mode, warned where Safety.cpp's
/// walk finds them.  E (an lvalue not of compact type) lies inside a heap
/// object of compact type: `p->value`, `p->pos.x`, `p->vals[i]`.
bool insideCompactObject(const Model &M, const clang::Expr *E);
/// A compact pointer converted to `void *` and kept (void-escape).
void checkVoidEscape(Session &S, const clang::CastExpr *E);
/// Escapes.cpp: the bytes of a compact pointer variable copied out by
/// memcpy or write, or read in by read, where the switch cannot see them.
void checkPointerBytes(Session &S, const clang::CallExpr *CE);
/// Escapes.cpp: a `void *` local set from a compact pointer, handed to a
/// function that keeps its argument.
void checkVoidLocalEscape(Session &S, const clang::CallExpr *CE,
                          const clang::FunctionDecl *Caller);
/// Escapes.cpp (switchable): a sizeof, _Alignof or offsetof of a compact
/// struct (Trait) whose value is kept -- stored, or handed to a function of
/// the program -- is the size of the layout of the moment; after the
/// switch it is stale (layout-stored).
void checkLayoutStored(Session &S, const clang::Expr *Trait, const CompactType *T);
/// Reports the layout-stored warnings checkLayoutStored held, but for
/// sizeofs of types the layout made no smaller (after runLayout; before
/// it, every one).
void reportHeldLayoutStored(Session &S);
/// Escapes.cpp: a callback that may switch handed to qsort and its kind.
void checkCallbackSafepoint(Session &S, const clang::CallExpr *CE);
/// Escapes.cpp: F may reach a safepoint (Model::Functions' FC_Safepoint),
/// and how the callback-safepoint warnings say so.
bool reachesSafepoint(const Model &M, const clang::FunctionDecl *F);
std::string reachesSafepointText(const clang::FunctionDecl *F);
/// Escapes.cpp: the callback-safepoint warning for a function of another
/// file handed a callback that may reach a safepoint.
void checkCallbackElsewhere(Session &S, const clang::CallExpr *CE);
/// A `void *` from a call that is not an allocation of the type becoming
/// a compact pointer (foreign-object); through an explicit cast only when
/// the call is handed the type's size (it allocates one).
void checkForeignObject(Session &S, const clang::CastExpr *E);
/// Escapes.cpp (switchable): a compact pointer with a tag in its low bits
/// (`(uint8_t *)n + 1`) stored into memory as `void *` that the switch
/// does not see (void-escape, as the pointer itself would be).
void checkTaggedEscape(Session &S, const clang::CastExpr *E);
/// Pools.cpp: V, a global byte pointer that the translation unit moves or
/// sets from malloc, or a byte pointer field of any object that it moves
/// (`+=`, `++`, `f = f + n`), is a bump pointer.  A field set from malloc
/// is only a buffer (a vector's `v->items = realloc(v->items, ...)`).
bool isBumpPointer(Session &S, const clang::ValueDecl *V);
/// K is an integer constant from 0 to 3: a tag in the low bits of an
/// aligned address, not a step between objects.
bool isTagStep(const clang::Expr *K, clang::ASTContext &Ctx);
/// CE calls an allocation hook -- a function pointer, as cJSON's
/// `hooks->allocate(sizeof(cJSON))` -- handed the size of one compact T,
/// its result converted to a T * at once, its callee free of side effects:
/// T (Printer allocates with cp_alloc while the hook is malloc), else null.
const CompactType *hookAllocated(const Model &M, clang::ASTContext &Ctx,
                                 const clang::CallExpr *CE);
/// CE calls a deallocation hook with a compact pointer: a function
/// pointer field returning void, handed one pointer as `void *`, that
/// this translation unit gives `free` (assigned or in braces), as cJSON's
/// `hooks->deallocate(item)`, its callee free of side effects: the
/// compact pointer (Printer frees with cp_free_any while the hook is
/// free), else null.
const clang::Expr *hookFreed(const Model &M, clang::ASTContext &Ctx,
                             const clang::CallExpr *CE);

/// St or a statement inside it satisfies P (depth first, stopping at the
/// first).
template <typename Pred> bool anyNode(const clang::Stmt *St, Pred P) {
  if (!St)
    return false;
  if (P(St))
    return true;
  for (const clang::Stmt *C : St->children())
    if (anyNode(C, P))
      return true;
  return false;
}
/// Analysis.cpp: a statement of the translation unit's code -- a function
/// body or a file-scope variable's initializer, depth first -- satisfies
/// P (stopping at the first).  For facts about a field or a variable that
/// any of its writes decides (a hook given `free`, an offset's values).
bool anyNodeInUnit(clang::ASTContext &Ctx,
                   llvm::function_ref<bool(const clang::Stmt *)> P);
/// Analysis.cpp: the first field of T, or null.
const clang::FieldDecl *firstField(const CompactType *T);
/// Analysis.cpp: A begins with a value of B (its first field,
/// recursively; Layout.cpp places a first field at offset 0 in both
/// layouts): a pointer to an A is a pointer to that B.
bool beginsWith(const Model &M, const CompactType *A, const CompactType *B);
/// Analysis.cpp: expression classes the later passes share.
/// A glvalue of compact record (or array-of-record) type that lives in a
/// heap object, so in compact layout: `*p`, `p[i]`, `p->s`, `x.s` of such.
bool isCompactLocated(const Model &M, const clang::Expr *E);
/// Analysis.cpp: the lvalue E is an untyped address field of a compact
/// object (isAddressFieldType) or an element of one, named directly or
/// through a cast of its address (`*(QUEUE **)&(*q)[0]`, q `&n->link`):
/// an address stored there is moved by the switch.
bool inAddressField(const Model &M, const clang::Expr *E);
/// LHS is `*w`, w a local (not a parameter) whose every value in its
/// function is the address of such a field (`&t->root`, `q->child + d`),
/// its own address never taken: crit-bit's `void **wherep` walking down
/// the tree to where a node goes.
bool landsInAddressField(clang::ASTContext &Ctx, const Model &M,
                         const clang::Expr *LHS);
/// Analysis.cpp: the local array an element of which the lvalue E is,
/// named the same ways (`pq[1]`, `*(QUEUE **)&(*&pq)[0]`), or null.
const clang::VarDecl *localArrayOf(const clang::Expr *E);
/// Analysis.cpp: the local variable (automatic, or a parameter) whose own
/// memory the lvalue E is: `v`, `v.f`, `v[i]`, `v.a[i].f` (never through
/// a pointer); null otherwise.
const clang::VarDecl *localStorage(const clang::Expr *E);
/// The function whose body holds E, or null.
const clang::FunctionDecl *enclosingFunction(clang::ASTContext &Ctx,
                                             const clang::Stmt *E);
/// A compact-pointer field (or element of a handle array field) of a
/// compact-located object, or an element of a root array that holds
/// handles (isHandleRootElement): in compact layout it holds a handle.
bool isHandleLValue(const Model &M, const clang::Expr *E);
/// An array field of compact pointers in a compact-located object.
bool isHandleArray(const Model &M, const clang::Expr *E);
/// RD's member that holds the room an object is allocated with past its
/// fixed part, or null: a flexible array member, or the struct hack's
/// last member of zero or one element of pointers to structs or structs
/// (`struct snode *forward[1];`, `struct level level[1];`), which C
/// compilers let a program index past its end as they do a flexible array
/// member (-fstrict-flex-arrays=0, the default).
const clang::FieldDecl *roomMember(const clang::RecordDecl *RD);
/// FD is the struct hack's one-element last member (roomMember): its
/// first element lies inside the struct's size, the rest in the room.
bool isOneElementRoom(const clang::FieldDecl *FD);
/// The first sizeof, _Alignof or offsetof of a compact struct under St,
/// other than the sizeof of a value (an array of structs in the wide
/// layout, whose size is what it says): its value depends on the layout.
const clang::Expr *layoutDependentTrait(const Model &M, const clang::Stmt *St);
/// E's value is thrown away or only tested (a statement of its own, a
/// condition, `!`, `&&`, `||`, the left of a comma, a cast to void, a
/// comparison with a null pointer constant).
bool valueDiscardedOrTested(clang::ASTContext &Ctx, const clang::Expr *E);
/// Full expression E's value is discarded: an expression statement, a
/// for-init or for-increment (not a condition, a return's value, or part
/// of a larger expression).
bool fullExpressionDiscarded(clang::ASTContext &Ctx, const clang::Expr *E);
/// CE is `memset(X, 0, sizeof X)` or `memset(&X, 0, sizeof X)` with X a
/// handle array field, its result unused: X, else null.  A null handle is 0 as a null
/// pointer is, so the clear is right in either layout once both X and
/// its size are the layout's (Printer::callText).
const clang::Expr *handleArrayCleared(clang::ASTContext &Ctx, const Model &M,
                                      const clang::CallExpr *CE);
/// A run of handles moved or copied between handle arrays, or cleared:
/// `memmove(&D, &S, N * sizeof X)` (memcpy, their builtins; `sizeof X * N`,
/// or `sizeof X` for one element) with D and S handle lvalues (elements
/// of handle arrays, or such an array decayed: `memset(n->kids, 0, k *
/// sizeof n->kids[0])`, `n->kids + 1`) of the same pointee type and X of
/// that pointer type,
/// or `memset(&D, 0, N * sizeof X)` (Src null), the result unused.  Count
/// is N (null for one element).  In either layout the run is that many
/// slots of the layout's own size (Printer::callText), as shifting a
/// B-tree node's children needs.
/// One end of such a run: an element lvalue (`&a[i]`), or a handle
/// array and the terms of an index, where the array decays (`a`, `a + i`,
/// `a + i + 1`; no terms for element 0).
struct HandleAt {
  const clang::Expr *Element = nullptr;
  const clang::Expr *Array = nullptr;
  llvm::SmallVector<const clang::Expr *, 2> Index;
  explicit operator bool() const { return Element || Array; }
  clang::QualType pointerType() const;
};
struct HandleRun {
  HandleAt Dst, Src;
  /// A copy between a run of handles and an array of native pointers (a
  /// local `struct quad *k[4]`, a `struct quad **`): the native end, as
  /// written without its conversions, in place of the Dst or Src that is
  /// then empty.
  const clang::Expr *Native = nullptr;
  const clang::Expr *Count = nullptr;
  /// N is a size in elements the compiler knows, that of a whole array of
  /// such handles (`memcpy(n->kids, o->kids, sizeof o->kids)`) or less some
  /// elements (`sizeof n->kids - sizeof n->kids[0]`): the count, else 0.
  uint64_t Elements = 0;
};
std::optional<HandleRun> handleRunMoved(clang::ASTContext &Ctx, const Model &M,
                                        const clang::CallExpr *CE);
/// E's parent expression, through parentheses (null at a statement).
/// Outermost: the last parenthesis instead.
/// E lies in an operand that is not evaluated: of a sizeof or _Alignof, the
/// controlling expression of a _Generic, or a `__typeof__` (no parent in
/// the statement tree).  Printer leaves such operands as written, so their
/// C types hold there.
bool inUnevaluatedOperand(clang::ASTContext &Ctx, const clang::Expr *E);
const clang::Expr *parentSkippingParens(clang::ASTContext &Ctx, const clang::Expr *E,
                                        const clang::Expr **Outermost = nullptr);
/// Up from pointer E through conversions to other pointer types (E becomes
/// the outermost, through parentheses too): P is its parent (null at a
/// statement or declaration); false where a conversion leaves pointers.
bool upThroughPointerCasts(clang::ASTContext &Ctx, const clang::Expr *&E,
                           const clang::Expr *&P);
/// The call pointer E is an argument of, through conversions to other
/// pointer types (E becomes the outermost), or null.
const clang::CallExpr *callTakingPointer(clang::ASTContext &Ctx,
                                         const clang::Expr *&E);
/// The position of E among Call's arguments (parentheses aside), or
/// Call->getNumArgs() if it is none of them (the callee).
unsigned argumentIndex(const clang::CallExpr *Call, const clang::Expr *E);
/// What kind of variable VD is, for messages: "parameter", "local",
/// "static local", "thread-local" or "global".
llvm::StringRef variableKind(const clang::VarDecl *VD);
/// VD is the `void *__cancel_arg` glibc's pthread_cleanup_push declares
/// to keep its argument until the handler runs.
bool isCleanupArgument(const clang::VarDecl *VD);
/// VD (isCleanupArgument) has another pthread_cleanup_push nested in its
/// scope, whose own `__cancel_arg` hides it there (FrameSlots.cpp).
bool cleanupArgHidden(clang::ASTContext &Ctx, const clang::VarDecl *VD);
/// Writes and stdio reads (write, send..., fgets, fread): they block only
/// on a slow pipe or socket, and serialize objects to files all the time.
bool promptBlockingFunction(const clang::FunctionDecl *FD);
/// The field a member expression names, if any.
const clang::FieldDecl *memberField(const clang::Expr *E);
/// Some reference to V under Body satisfies F (the walk stops at the
/// first that does).
bool anyReferenceTo(const clang::Stmt *Body, const clang::ValueDecl *V,
                    llvm::function_ref<bool(const clang::DeclRefExpr *)> F);
/// Boxing.cpp: the boxed variable E names (a DeclRefExpr), or null.
const BoxedVar *boxedVar(const Model &M, const clang::Expr *E);
/// Why VD, of compact struct type, stays in wide layout however its
/// address is used (a parameter, a static or thread-local variable, a
/// variable-length array) and the way out; empty for a variable that is
/// boxed when its address is used.
std::string whyStaysWide(const clang::VarDecl *VD);
/// E is `&V`, `&V.f`, `&V[i]` or V decayed, for such a V: a byte address
/// of wide memory, never a compact pointer.
bool addressOfWideVariable(const clang::Expr *E);
/// Boxing.cpp: the text of a use of boxed variable B: the heap object.
std::string boxUseText(const BoxedVar &B);
/// Slots.cpp: E (a `T **`, T compact) may hold the address of a handle
/// slot, so loads and stores through it pick the slot's width by address.
bool isSlotPointer(const Model &M, const clang::Expr *E);
/// `*E` where E may hold the address of a handle slot.
bool isSlotDeref(const Model &M, const clang::Expr *E);
/// Slots.cpp: FD is a `T **` field (T a compact type, arrays of them too)
/// of a struct the plugin lays out, which may keep the address of a
/// handle slot: the descriptor says CP_FIELD_SLOT, the switch moves it.
bool isSlotFieldType(const Model &M, const clang::FieldDecl *FD);
/// Slots.cpp: FD is an untyped address field (`void *data`, `char *key`,
/// libuv's `void *QUEUE[2]`: data pointers to a type that is not compact,
/// arrays of them too) of a struct the plugin lays out: the descriptor
/// says CP_FIELD_ADDRESS, and the switch moves one that points into a
/// compact object to the same place in its wide copy.
bool isAddressFieldType(const Model &M, const clang::FieldDecl *FD);
/// Interior.cpp: E (a plain pointer) may hold an address inside a compact
/// object's plain data: `&n->value`, `n->name`, a variable of
/// Model::InteriorVars, a call of a function of InteriorReturns, or
/// pointer arithmetic, casts and conditionals of those.
bool isInteriorPointer(const Model &M, const clang::Expr *E);
/// Interior.cpp: the most elements of a local array of plain structs
/// whose untyped members a frame registers one by one.
constexpr uint64_t MaxStructElements = 16;
/// Interior.cpp: the members of R of an untyped pointer type (`void *`,
/// `void *[2]`), also inside struct members of R (`in.p`), as member
/// paths with their element counts, in declaration order.
std::vector<std::pair<std::string, uint64_t>>
untypedMembers(const clang::RecordDecl *R);
/// Interior.cpp: E may hand out memory of the compact heap: something in
/// it has a compact pointer type, is a compact-located value of compact
/// record type, or is an interior pointer (as far as Model::InteriorVars
/// knows yet).
bool touchesCompact(const Model &M, const clang::Expr *E);
/// Interior.cpp: argument A of a blocking call hands the call memory of the
/// compact heap: touchesCompact, and not a scalar (`read(c->fd, ...)`: the
/// value is copied before the call, and its native region evaluates the
/// arguments before it enters).
bool handsCompactMemory(const Model &M, const clang::Expr *A);

/// Allocation.cpp: what a call to a libc allocation function allocates or
/// frees: compact objects (the typed runtime calls), a root array (a heap
/// array of compact pointers), pinned objects (Model::Pinned), or neither
/// (left to libc).
enum class AllocTarget { None, Object, RootArray, Pinned };
AllocTarget allocTarget(const Session &S, const clang::CallExpr *CE);
/// CE allocates (malloc, calloc, realloc) compact objects: in switchable
/// mode an allocation site is a safepoint.
bool allocatesObject(const Session &S, const clang::CallExpr *CE);
/// The compact type of the objects CE allocates from the runtime (an
/// allocation of one or of an array, a pool's call typed by its pool),
/// whatever its destination (`return pool_alloc(p);` in a `void *`
/// helper), or null.
const CompactType *allocatedType(const Session &S, const clang::CallExpr *CE);
/// Allocation.cpp: CE resizes a block (realloc, or a CP_ALLOCATOR wrapper
/// that hands it to realloc): its block is live across the call, no
/// fresh allocation.
bool resizesBlock(const clang::CallExpr *CE);

/// A rewritten file: the whole new text.
struct RewrittenFile {
  clang::FileID FID;
  clang::OptionalFileEntryRef FE;
  std::string Name; ///< as the compiler spells it (presumed name)
  std::string Text;
  bool IsMain = false;
  /// Where original offsets went: the preamble size and, per applied edit,
  /// {original offset, original length, new length}.
  unsigned PreambleSize = 0;
  std::vector<std::array<unsigned, 3>> Applied;
  /// The offset in Text of an offset in the original file.
  unsigned mapOffset(unsigned Orig) const {
    long Delta = PreambleSize;
    for (const auto &A : Applied) {
      if (A[1] == 0 && Orig >= A[0])
        Delta += A[2];
      else if (A[1] != 0 && Orig >= A[0] + A[1])
        Delta += (long)A[2] - (long)A[1];
      else if (A[1] != 0 && Orig >= A[0])
        return A[0] + Delta;
      else
        break;
    }
    return Orig + Delta;
  }
};

/// Where diagnostics go.  The tool reports straight into its
/// DiagnosticsEngine; the plugin records them in the nested parse and
/// replays them in the outer compiler.
struct DiagSink {
  virtual ~DiagSink() = default;
  virtual void report(clang::DiagnosticsEngine::Level L, clang::SourceLocation Loc,
                      llvm::StringRef Msg,
                      llvm::ArrayRef<clang::CharSourceRange> Ranges,
                      llvm::ArrayRef<clang::FixItHint> Fixits) = 0;
};

/// Reports through a DiagnosticsEngine with one custom ID per level.
struct ExpandedFile;
class EngineDiagSink : public DiagSink {
public:
  explicit EngineDiagSink(clang::DiagnosticsEngine &D) : Diags(D) {}
  /// The files parsed with generator macros spelled out (compactptr-rewrite's
  /// second run): a diagnostic inside a spelled-out expansion is reported
  /// at the invocation, naming the function.
  const std::vector<ExpandedFile> *Expanded = nullptr;
  void report(clang::DiagnosticsEngine::Level L, clang::SourceLocation Loc,
              llvm::StringRef Msg, llvm::ArrayRef<clang::CharSourceRange> Ranges,
              llvm::ArrayRef<clang::FixItHint> Fixits) override;

private:
  clang::DiagnosticsEngine &Diags;
};

/// Shared state of one engine run.
struct Session {
  clang::ASTContext &Ctx;
  clang::SourceManager &SM;
  const clang::LangOptions &LO;
  Options Opts;
  DiagSink &Sink;
  Model M;
  EditSet Edits;
  unsigned Errors = 0;
  std::string PlanText; ///< the plans, when Options::DumpPlan
  /// What the parse recorded of macro expansions (GeneratorMacros.cpp),
  /// when the front end recorded it.
  const ExpansionRecorder *Rec = nullptr;
  /// File ranges (expansion offsets) of the errors reported so far.
  std::vector<std::pair<clang::FileID, std::pair<unsigned, unsigned>>> ErrorRanges;
  /// Functions already offered the CP_ALLOCATOR fix-it (Pools.cpp): one
  /// insertion each, however many of their calls are refused.
  std::set<const clang::FunctionDecl *> AllocatorFixIts;
  /// Functions of the TU that a call starts a thread in (pthread_create's
  /// start routine), found at the first question (Escapes.cpp).
  std::optional<std::set<const clang::FunctionDecl *>> ThreadStarts;
  /// Functions of type `void *(void *)` whose address this TU hands to
  /// code it cannot see (a fork helper of another file), each with the
  /// first function it is handed to: each may be a thread's start routine
  /// there, or a walker's accessor (Escapes.cpp).
  std::optional<
      std::map<const clang::FunctionDecl *, const clang::FunctionDecl *>>
      MaybeThreadStarts;
  /// The text the preprocessor skipped (SkippedText).
  llvm::ArrayRef<clang::SourceRange> Skipped;

  Session(clang::ASTContext &C, const Options &O, DiagSink &S,
          llvm::ArrayRef<clang::SourceRange> Skipped)
      : Ctx(C), SM(C.getSourceManager()), LO(C.getLangOpts()), Opts(O), Sink(S),
        Skipped(Skipped) {}

  /// The offset in FID of the first token at or after Off, stepping over
  /// blanks, comments, preprocessor directives and the text of conditional
  /// blocks the preprocessor skipped (`s += p->key\n#ifdef X\n * 2\n#endif\n;`:
  /// the `;` that ends the statement).  Raw text: no macro expansion.
  unsigned nextTokenOffset(clang::FileID FID, unsigned Off) const;

  /// Report diagnostic D (its level from Diagnostics.def and the user's
  /// flags): an error is a refusal, and the run produces no rewrite.  A
  /// construct gets one error, however many passes or bodies see it.
  /// False if it was not reported (ignored, or the construct has its
  /// error already).
  bool report(Diag D, clang::SourceLocation Loc, llvm::StringRef Msg,
              llvm::ArrayRef<clang::CharSourceRange> Ranges = {},
              llvm::ArrayRef<clang::FixItHint> Fixits = {});
  /// A note on the diagnostic just reported: where its fix goes, with the
  /// fix-it there (clang's printer shows a distant fix-it's line number in
  /// the margin of the main snippet).
  void note(clang::SourceLocation Loc, llvm::StringRef Msg,
            llvm::ArrayRef<clang::FixItHint> Fixits = {});
  /// Errors of the types themselves (Safety): Layout and Rewrite do not run.
  unsigned TypeErrors = 0;
  /// layout-stored warnings, held until the layout is known
  /// (reportHeldLayoutStored), in the order of the text: a sizeof of a type
  /// as large in both layouts keeps its value across the switch.
  struct HeldTrait {
    const clang::Expr *Trait;
    const CompactType *T;
    std::string Where;
  };
  std::vector<HeldTrait> HeldLayoutStored;
  /// True for locations the engine leaves alone (system headers, builtins).
  bool isIgnoredLoc(clang::SourceLocation Loc) const;
  /// `struct node` / `node_t` for a type, as the user's source spells it.
  std::string typeText(clang::QualType T) const;
  /// How the engine prints C types: tag keywords kept (`struct node *`),
  /// `_Bool` for C before C23.
  clang::PrintingPolicy policy() const;
  /// `&cp__desc_node`, T's descriptor as the code of FD names it.  A type
  /// defined after FD begins (only declared there: `struct ctx;`, its
  /// pointers held in FD's roots) gets its descriptor declared before FD,
  /// once: the descriptor is declared with the type's definition.
  std::string descRef(const CompactType &T, const clang::FunctionDecl *FD);
  std::set<std::pair<const clang::FunctionDecl *, const CompactType *>>
      DescDeclared;
};

// ---- the passes, in pipeline order ----------------------------------------
/// Analysis.cpp: fill Model::Types (annotated, then inferred to a fixed
/// point; in switchable mode Pinned.cpp chooses) and Model::Functions.
void runAnalysis(Session &S);
/// Analysis.cpp: Model::Types anew: the annotated structs, then to a fixed
/// point those holding a compact pointer or value, or a record of Pinned
/// (canonical) by value; the records of Pinned left out.
void inferCompactTypes(Session &S,
                       const std::set<const clang::RecordDecl *> &Pinned);
/// Analysis.cpp: a CompactType for RD with its names (tag or typedef name,
/// spellings, descriptor), which stay empty for an unnamed struct.
std::unique_ptr<CompactType> namedType(const clang::RecordDecl *RD);
/// Analysis.cpp: the record a field holds by value (through arrays;
/// canonical), else null.
const clang::RecordDecl *valueRecord(const clang::FieldDecl *FD);
/// Pinned.cpp (switchable): Model::Types and Model::Pinned.
void choosePinnedTypes(Session &S);
/// Pinned.cpp: the pinned-prefix warning, at each pinned struct that
/// begins with a compact struct's fields (a compact pointer among them).
void warnPinnedPrefixes(Session &S);
/// Pools.cpp: the unannotated-allocator error for a conversion of a byte
/// pointer to a compact pointer whose memory the plugin can trace to
/// libc's malloc or a bump pointer; true if reported.
bool checkPoolConversion(Session &S, const clang::CastExpr *E);
/// Pools.cpp: the kept offsets every byte-pointer step reads, typed or
/// not, into Model::MeasuredOffsets (after the checks of conversions).
void noteKeptOffsets(Session &S);
/// In switchable mode, a conversion to `T **` (T compact) of memory that
/// is not a root array (see Pools.cpp): an error, or a warning for a
/// `void *` of another file's function.  True if it reported.
bool checkRootArrayConversion(Session &S, const clang::CastExpr *E);
/// Boxing.cpp: which variables of compact type live in the compact heap
/// (Model::Boxed).
void runBoxing(Session &S);
/// Slots.cpp: which `T **` may point at handle slots (Model::SlotVars,
/// SlotReturns); errors where such a pointer escapes the analysis.
void runSlots(Session &S);
/// Interior.cpp (switchable): which pointers may point inside a compact
/// object's plain data (Model::InteriorVars, InteriorReturns); warnings
/// where such a pointer is stored into memory.
void runInterior(Session &S);
/// HandleRoots.cpp (compact-only): which `T **` variables' root arrays
/// hold handles (Model::HandleRoots), their declarations rewritten.
void runHandleRoots(Session &S);
/// HandleRoots.cpp: E is `v[i]` of a variable of Model::HandleRoots: a
/// handle lvalue outside the heap.
bool isHandleRootElement(const Model &M, const clang::Expr *E);
/// Provenance.cpp: which compact pointers come from the arena by
/// construction (Model::KnownVars, KnownReturns).
void runProvenance(Session &S);
/// Provenance.cpp: E's value is null, a compact allocation, a handle just
/// decoded, or a variable or call of Model::KnownVars, KnownReturns: a
/// store of it into a handle field needs no range check.
bool isKnownCompact(const Session &S, const clang::Expr *E);
/// SignalHandlers.cpp (switchable): handler-looking functions whose
/// address is taken leave a native region at their entry.
void runSignalHandlers(Session &S);
/// SignalHandlers.cpp: fill Model::Handlers (switchable mode).
void findSignalHandlers(Session &S);
/// Safety.cpp: the safety gate: the type-level refusals (runTypeChecks),
/// then the refusals and hazards in function bodies.
void runSafety(Session &S);
/// TypeChecks.cpp: type-level refusals (unions, bit-fields, packed, ...).
void runTypeChecks(Session &S);
/// Layout.cpp: field order, sizes and alignments of every compact layout.
void runLayout(Session &S);
/// Layout.cpp: `struct cp__c_T {...};` plus converters, for one type.
std::string compactDeclText(const Session &S, const CompactType &T);
/// Layout.cpp: the descriptor definition and its registration.
std::string descriptorText(const Session &S, const CompactType &T);
/// Layout.cpp: the descriptor of a pinned type (Model::Pinned): its wide
/// layout as both layouts, listing its compact pointers and the pinned
/// structs it holds by value.
std::string pinnedDescriptorText(const Session &S, const CompactType &T);
/// Emit.cpp: a root descriptor and its registration for a variable with
/// static storage that holds compact pointers or compact values, else "".
std::string rootDescText(const Session &S, const clang::VarDecl *VD,
                         llvm::StringRef Sep);
/// Rewrite.cpp: rewrite every function body and file-scope initializer.
void runRewrite(Session &S);
/// Emit.cpp: place generated code and apply all edits.
void runEmit(Session &S, std::vector<RewrittenFile> &Out);

/// Records the text of each macro expansion in the user's files, as the
/// parser receives its tokens (GeneratorMacros.cpp): attach it to the
/// preprocessor before the parse.
class ExpansionRecorder {
public:
  struct Expansion {
    std::string Text; ///< the tokens' spellings, one space apart
    /// Why its text, parsed again, would not give the tokens the parser
    /// received: a _Pragma in it (acted on, not a token), a __COUNTER__
    /// (later ones would shift), a macro name it left unexpanded (it would
    /// expand once more).  The last two also hold for an expansion the
    /// rewrite prints from the AST (Walker::resolve).
    bool Pragma = false, Counts = false, Repainted = false;
    bool spellable() const { return !Pragma && !Counts && !Repainted; }
    /// Each token's location and its offset in Text, in order (a
    /// function the expansion produces is found by its first and last
    /// token, to name it in diagnostics).
    std::vector<std::pair<clang::SourceLocation::UIntTy, unsigned>> Offsets;
    /// Offset in Text of the token at L, or ~0u.
    unsigned offsetOf(clang::SourceLocation L) const;
  };
  void attach(clang::Preprocessor &PP);
  /// The expansion whose outermost range begins at Begin, or null.
  const Expansion *find(clang::SourceLocation Begin) const;
  /// The expansion L is in holds a _Pragma.
  void pragmaIn(clang::SourceLocation L);
  /// An expansion that counts or leaves a macro name unexpanded, begun in
  /// [B, E) of FID (the text an expansion printed from the AST replaces),
  /// or null.
  const Expansion *reparseHazard(const clang::SourceManager &SM, clang::FileID FID,
                                 unsigned B, unsigned E) const;

private:
  void see(const clang::Token &Tok);
  clang::Preprocessor *PP = nullptr;
  unsigned LastCounter = 0; ///< __COUNTER__ at the previous token
  /// Where the expansions that count or leave a macro name unexpanded begin.
  std::vector<clang::SourceLocation> Hazards;
  llvm::DenseMap<clang::SourceLocation::UIntTy, Expansion> Texts;
};

/// A user file with the expansions of macros that produce whole functions
/// replaced by their text (GeneratorMacros.cpp): parse it again instead.
struct ExpandedFile {
  clang::OptionalFileEntryRef FE;
  std::string Name;
  std::string Text;
  /// Per replaced expansion: {original offset, original length, new length}.
  std::vector<std::array<unsigned, 3>> Shifts;
  /// A function an expansion produces: [B, E) of Text.
  struct Produced {
    unsigned B, E;
    std::string Function, Macro;
  };
  std::vector<Produced> Functions;
  /// The function produced at offset Off of Text, or null.
  const Produced *producedAt(unsigned Off) const;
  /// Where the replaced expansion holding offset Off of Text begins (the
  /// line and column of its invocation in the user's file), or ~0u.
  unsigned expansionBegin(unsigned Off) const;
  /// What a diagnostic at offset Off of Text adds to its message: the
  /// function and the macro that produces it, or "".
  std::string producedNote(unsigned Off) const;
  /// The original offset of Off in Text (an offset inside a replaced
  /// expansion: the macro's name).
  static unsigned originalOffset(const std::vector<std::array<unsigned, 3>> &Shifts,
                                 unsigned Off);
  /// The entry of Shifts whose new text holds offset Off, or null; Delta:
  /// how far the replacements before it moved the text.
  static const std::array<unsigned, 3> *
  expansionAt(const std::vector<std::array<unsigned, 3>> &Shifts, unsigned Off, long &Delta);
};

/// GeneratorMacros.cpp: FD names a compact type (a parameter, a local,
/// its result, or the type of any expression in it).
bool usesCompactType(const Model &M, const clang::FunctionDecl *FD);
/// GeneratorMacros.cpp: the files to parse again, with each expansion that
/// produces a function using a compact type replaced by its text; false if
/// there is none (the rewrite then refuses what it cannot place).
bool expandGenerators(Session &S, const ExpansionRecorder &Rec,
                      std::vector<ExpandedFile> &Out);

/// Engine.cpp: the pipeline.  Returns false if any error was reported (and
/// then Out is empty).  With no compact type in the TU, Out is empty too.
/// Given Rec (what the parse recorded) and Expanded: returns false with
/// Expanded filled, and nothing reported, when macros produce functions
/// that use compact types; parse those files again with that text, and
/// run the engine on it without Rec.
bool runEngine(clang::ASTContext &Ctx, const Options &O, DiagSink &Sink,
               llvm::ArrayRef<clang::SourceRange> Skipped,
               std::vector<RewrittenFile> &Out, std::string *Plan = nullptr,
               const ExpansionRecorder *Rec = nullptr,
               std::vector<ExpandedFile> *Expanded = nullptr);

/// Records the ranges of conditional blocks the preprocessor skips (the
/// branch of `#ifdef X ... #else ... #endif` not taken), for runEngine:
/// add one to the parse's preprocessor before it runs.
class SkippedText : public clang::PPCallbacks {
public:
  explicit SkippedText(std::vector<clang::SourceRange> &Out) : Out(Out) {}
  void SourceRangeSkipped(clang::SourceRange R, clang::SourceLocation) override {
    Out.push_back(R);
  }
  /// The one hook clang defines out of line: overridden, so the vtable
  /// names no symbol of clang's own whose signature changed between
  /// versions (loaded into another clang, compactptr.so must get as far
  /// as saying which version it needs; toolchain/wrong-clang.test).
  void HasInclude(clang::SourceLocation, llvm::StringRef, bool, clang::OptionalFileEntryRef,
                  clang::SrcMgr::CharacteristicKind) override {}

private:
  std::vector<clang::SourceRange> &Out;
};

/// Attributes.cpp: referenced by the front ends so the attributes register.
int attributesAnchor();

/// Engine.cpp: the offset in FID where a declaration inserted in front of
/// D goes, given D's own start Off: before D's attributes, so that none of
/// them (a C23 `[[gnu::constructor]]` ahead of `static`) applies to it.
unsigned beforeAttributes(const clang::SourceManager &SM, const clang::Decl *D,
                          clang::FileID FID, unsigned Off);
/// Text between the generated preamble and the user's first line.
std::string lineDirective(unsigned Line, llvm::StringRef File);
/// Text (a second copy of code of FID: a dual function's compact clone, a
/// versioned region's compact copy) with every comment blanked: a space,
/// or the newlines it spanned, so the lines stay the user's.  The other
/// copy carries the user's comments once; a `-verify` directive read in
/// both expects its diagnostic twice.
std::string withoutComments(const Session &S, clang::FileID FID,
                            const std::string &Text);

/// Around generated code whose warnings the user must not see (compact
/// clones, versioned regions, printed macro expansions): the preamble's
/// macros for `#pragma clang diagnostic push/ignored "-Weverything"/pop`.
/// The plugin's own compile of the rewritten text ignores every warning
/// already, and there they expand to nothing: each `-Weverything` pragma
/// sets the severity of every diagnostic clang has, a large part of the
/// whole parse where a file has many regions.
inline constexpr const char *QuietBegin = "CP__QUIET_BEGIN";
inline constexpr const char *QuietEnd = "CP__QUIET_END";
/// Defined by the plugin in its compile of the rewritten text.
inline constexpr const char *WarningsIgnoredMacro = "CP__WARNINGS_IGNORED";

} // namespace compactptr

#endif
