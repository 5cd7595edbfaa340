//===- Rewrite.cpp - compact bodies ---------------------------------------===//
//
// In:  the Model (Analysis, Layout) and every function body and file-scope
//      initializer outside system headers.
// Out: edits: each outermost affected expression is replaced once by text
//      built from its subexpressions (untouched leaves are copied from the
//      source, or printed from the AST when they come from a macro body).
//
// The compact body form (compact-only mode) rewrites:
//   - member access through compact pointers: plain fields in place, handle
//     reads decode, handle stores encode through cp__sth(&slot, v), so every
//     lvalue is evaluated once; NULL tests and handle comparisons compare
//     handles without decoding;
//   - `*p`, `p[i]`, pointer arithmetic and differences with the compact
//     stride (++, --, +=, -= through cp__padd(&slot, bytes, post));
//   - copies between heap objects and wide values through the generated
//     converters cp__load_T / cp__store_T;
//   - sizeof, _Alignof, offsetof of compact types and heap objects.
// Every mode rewrites malloc/calloc/realloc/free of compact types into the
// typed runtime calls and heap arrays of compact pointers into root arrays.
// Switchable mode (design.md §4) chooses a form per function:
//   - dual (layout-dependent, no safepoint): the original symbol keeps the
//     wide body behind `if (cp_is_compact()) { ++depth; f__cp(...); ... }`;
//     the compact body f__cp goes to the end of the file behind #line and
//     calls TU-local dual functions' compact bodies directly;
//   - checked (safepoint-reaching): each full expression that depends on a
//     layout becomes `(cp_is_compact() ? <compact> : <wide>)`; stores whose
//     value may reach a safepoint evaluate it first; parameters and locals
//     holding compact pointers are pushed in shadow-stack frames, popped by
//     a cleanup attribute; main's loops get cp_safepoint() polls; loops
//     in which no safepoint can run, main's innermost loop bodies after
//     their poll and runs of statements between safepoints are versioned
//     by mode (one test, two copies).
// Invariants: never emits a partial rewrite (errors clear all edits in
//      Engine.cpp); anything it cannot rewrite is an error at the user's
//      location.
// Tests: test/rewrite/*.c, test/plugin/*.c, test/switchable/*.
//
//===----------------------------------------------------------------------===//
#include "Engine.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/PrettyPrinter.h"
#include "clang/Lex/Lexer.h"
#include "llvm/Support/raw_ostream.h"
#include <set>

using namespace clang;

namespace compactptr {
namespace {

enum class AllocFn { None, Malloc, Calloc, Realloc, Free };

AllocFn allocFunction(const CallExpr *CE) {
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!FD || !FD->getIdentifier())
    return AllocFn::None;
  StringRef N = FD->getName();
  // A program's own function called malloc is not libc's.
  if (FD->hasBody() && !FD->isInlined())
    return AllocFn::None;
  if (N == "malloc" && CE->getNumArgs() == 1)
    return AllocFn::Malloc;
  if (N == "calloc" && CE->getNumArgs() == 2)
    return AllocFn::Calloc;
  if (N == "realloc" && CE->getNumArgs() == 2)
    return AllocFn::Realloc;
  if (N == "free" && CE->getNumArgs() == 1)
    return AllocFn::Free;
  return AllocFn::None;
}

/// `sizeof(T)`, `n * sizeof(T)`, `sizeof(T) * n`.
struct SizeShape {
  bool Ok = false;
  QualType Elem;
  const Expr *Count = nullptr; ///< null: one element
};

SizeShape sizeShape(const Expr *E) {
  SizeShape R;
  E = E->IgnoreParenImpCasts();
  if (const auto *U = dyn_cast<UnaryExprOrTypeTraitExpr>(E)) {
    if (U->getKind() == UETT_SizeOf) {
      R.Ok = true;
      R.Elem = U->getTypeOfArgument();
    }
    return R;
  }
  if (const auto *B = dyn_cast<BinaryOperator>(E)) {
    if (B->getOpcode() != BO_Mul)
      return R;
    SizeShape L = sizeShape(B->getLHS()), Rt = sizeShape(B->getRHS());
    if (L.Ok && !L.Count) {
      L.Count = B->getRHS();
      return L;
    }
    if (Rt.Ok && !Rt.Count) {
      Rt.Count = B->getLHS();
      return Rt;
    }
  }
  return R;
}

/// The body a function gets.  Compact-only mode gives every function the
/// Compact form, wide mode the Wide form (allocation only).  Switchable
/// mode gives a layout-dependent function that reaches no safepoint a
/// *dual* body: the original symbol keeps the Wide form behind an entry
/// dispatch, and a clone `f__cp` (Compact form, `Clone` set: calls to dual
/// functions go to their compact bodies) goes to the end of the file.  A
/// safepoint-reaching function gets the Checked form: each full expression
/// that depends on a layout becomes `(cp_is_compact() ? <compact> : <wide>)`
/// (one branch runs, so every lvalue is still evaluated once), and its
/// compact-pointer locals and parameters live in shadow-stack frames.
enum class Form { Compact, Wide, Checked };

/// A call that may reach a safepoint: a TU-local safepoint-reaching
/// function, a `safepoint` declaration, cp_safepoint(), cp_switch_to_wide().
bool isSafepointCallee(const Model &M, const FunctionDecl *FD) {
  if (!FD)
    return false;
  auto It = M.Functions.find(FD->getCanonicalDecl());
  if (It != M.Functions.end() && (It->second & FC_Safepoint))
    return true;
  for (const Decl *D : FD->redecls())
    for (const auto *A : D->specific_attrs<AnnotateAttr>())
      if (A->getAnnotation() == "compactptr::safepoint")
        return true;
  if (!FD->getIdentifier())
    return false;
  StringRef N = FD->getName();
  return N == "cp_safepoint" || N == "cp_switch_to_wide";
}

/// True if St (a function body) declares a static local.
bool hasStaticLocal(const Stmt *St) {
  if (!St)
    return false;
  if (const auto *DS = dyn_cast<DeclStmt>(St))
    for (const Decl *D : DS->decls())
      if (const auto *VD = dyn_cast<VarDecl>(D))
        if (VD->isStaticLocal())
          return true;
  for (const Stmt *C : St->children())
    if (hasStaticLocal(C))
      return true;
  return false;
}

class BodyRewriter {
public:
  explicit BodyRewriter(Session &S) : S(S), M(S.M), SM(S.SM) {}

  /// Switchable mode: decide which functions get the dual form (before any
  /// body is rewritten, so compact bodies know whom to call directly).
  void planDuals(const std::vector<const FunctionDecl *> &Fns) {
    if (!S.Opts.switchable())
      return;
    for (const FunctionDecl *FD : Fns)
      if (classOf(FD) == FC_LayoutDependent && dualBlocker(FD).empty())
        Duals.insert(FD->getCanonicalDecl());
  }

  void rewriteFunction(const FunctionDecl *FD) {
    CurFn = FD;
    Clone = false;
    FrameCounter = 0;
    if (!S.Opts.switchable()) {
      TheForm = S.Opts.compactOnly() ? Form::Compact : Form::Wide;
      Affected.clear();
      walk(FD->getBody());
      return;
    }
    unsigned Cls = classOf(FD);
    if (Duals.count(FD->getCanonicalDecl())) {
      rewriteDual(FD);
      return;
    }
    if (Cls == FC_None) {
      TheForm = Form::Wide;
      Affected.clear();
      walk(FD->getBody());
      return;
    }
    rewriteChecked(FD);
  }
  void rewriteInit(const Expr *E) {
    // Static initializers cannot test the mode: switchable builds keep them
    // in the wide form (allocation calls are not constant anyway).
    TheForm = S.Opts.compactOnly() ? Form::Compact : Form::Wide;
    Clone = false;
    Affected.clear();
    top(E, false);
  }

private:
  Session &S;
  const Model &M;
  const SourceManager &SM;
  Form TheForm = Form::Compact;
  bool Clone = false; ///< rewriting the compact clone of a dual function
  const FunctionDecl *CurFn = nullptr;
  unsigned FrameCounter = 0;
  std::set<const FunctionDecl *> Duals;
  llvm::DenseMap<const Stmt *, bool> Affected, AffectedC, AffectedW;
  std::set<std::pair<unsigned, std::string>> Reported;

  unsigned classOf(const FunctionDecl *FD) const {
    auto It = M.Functions.find(FD->getCanonicalDecl());
    return It == M.Functions.end() ? FC_None : It->second;
  }
  bool compact() const { return TheForm == Form::Compact; }

  /// Why FD cannot get the dual form (then it gets the checked form), or "".
  std::string dualBlocker(const FunctionDecl *FD) const {
    if (FD->isMain())
      return "main";
    if (FD->isVariadic())
      return "variadic";
    if (FD->getStorageClass() == SC_Extern)
      return "extern definition";
    for (const ParmVarDecl *P : FD->parameters())
      if (!P->getIdentifier())
        return "unnamed parameter";
    const auto *CS = dyn_cast_or_null<CompoundStmt>(FD->getBody());
    if (!CS)
      return "no body";
    SourceLocation Locs[] = {FD->getBeginLoc(), FD->getLocation(),
                             CS->getLBracLoc(), CS->getRBracLoc()};
    for (SourceLocation L : Locs)
      if (!L.isFileID() || SM.getFileID(L) != SM.getFileID(FD->getLocation()))
        return "macro";
    if (hasStaticLocal(CS))
      return "static local";
    return "";
  }

  bool dualCallee(const CallExpr *CE) const {
    const FunctionDecl *FD = CE->getDirectCallee();
    return FD && Duals.count(FD->getCanonicalDecl()) &&
           isa<DeclRefExpr>(CE->getCallee()->IgnoreParenImpCasts());
  }

  // ---- dual form -----------------------------------------------------------
  void rewriteDual(const FunctionDecl *FD) {
    const auto *CS = cast<CompoundStmt>(FD->getBody());
    FileID FID = SM.getFileID(FD->getLocation());
    unsigned FnBegin = SM.getFileOffset(FD->getBeginLoc());
    unsigned NameOff = SM.getFileOffset(FD->getLocation());
    unsigned LB = SM.getFileOffset(CS->getLBracLoc());
    unsigned End = SM.getFileOffset(CS->getRBracLoc()) + 1;
    std::string Name = FD->getName().str(), CName = Name + "__cp";

    PrintingPolicy P(S.LO);
    P.SuppressTagKeyword = false;
    P.Bool = false;
    std::string Proto;
    {
      llvm::raw_string_ostream OS(Proto);
      FD->getType().print(OS, P, CName);
    }
    std::string Args;
    for (const ParmVarDecl *Pm : FD->parameters())
      Args += (Args.empty() ? "" : ", ") + Pm->getName().str();
    std::string Call = CName + "(" + Args + ")";
    std::string Dispatch =
        FD->getReturnType()->isVoidType()
            ? " if (cp_is_compact()) { ++cp__compact_depth; " + Call +
                  "; --cp__compact_depth; return; }"
            : " if (cp_is_compact()) { ++cp__compact_depth; __typeof__(" + Call +
                  ") cp__r = " + Call + "; --cp__compact_depth; return cp__r; }";
    // Inserted before the walks: they precede body edits at the same offset.
    S.Edits.insert(FID, FnBegin, "static __attribute__((unused)) " + Proto + "; ");
    S.Edits.insert(FID, LB + 1, Dispatch);

    // The wide body: the original code with allocation rewritten.
    TheForm = Form::Wide;
    Affected.clear();
    walk(CS);

    // The compact body, rewritten into a separate edit set.
    unsigned Before = S.Errors;
    EditSet Saved = std::move(S.Edits);
    S.Edits = EditSet();
    TheForm = Form::Compact;
    Clone = true;
    Affected.clear();
    walk(CS);
    Clone = false;
    EditSet Mine = std::move(S.Edits);
    S.Edits = std::move(Saved);
    if (S.Errors != Before)
      return;
    std::vector<Edit> Es;
    for (auto &[F, V] : Mine.files()) {
      for (const Edit &E : V) {
        if (F != FID || E.Offset < FnBegin || E.Offset + E.Length > End) {
          S.error(FD->getLocation(), "cannot build the compact body of '" +
                                         Name + "': an edit falls outside it");
          return;
        }
        Es.push_back(E);
      }
    }
    Edit NameEdit;
    NameEdit.Offset = NameOff;
    NameEdit.Length = FD->getName().size();
    NameEdit.Text = CName;
    NameEdit.Order = 0;
    Es.push_back(NameEdit);
    std::stable_sort(Es.begin(), Es.end(), [](const Edit &A, const Edit &B) {
      return A.Offset != B.Offset ? A.Offset < B.Offset : A.Order < B.Order;
    });
    StringRef Buf = SM.getBufferData(FID);
    std::string Text = "__attribute__((unused)) ";
    if (FD->getStorageClass() == SC_None)
      Text += "static ";
    unsigned Pos = FnBegin;
    for (const Edit &E : Es) {
      if (E.Offset < Pos) {
        S.error(FD->getLocation(), "cannot build the compact body of '" + Name +
                                       "': overlapping rewrites");
        return;
      }
      Text += Buf.substr(Pos, E.Offset - Pos).str() + E.Text;
      Pos = E.Offset + E.Length;
    }
    Text += Buf.substr(Pos, End - Pos).str();
    PresumedLoc PL = SM.getPresumedLoc(FD->getBeginLoc(), false);
    std::string Where = PL.isValid() ? lineDirective(PL.getLine(), PL.getFilename()) : "";
    S.Edits.insert(FID, Buf.size(),
                   "\n/* compactptr: compact body of " + Name +
                       " (its warnings are reported once, on the wide body) */\n"
                       "#pragma clang diagnostic push\n"
                       "#pragma clang diagnostic ignored \"-Weverything\"\n" +
                       Where + Text +
                       "\n#pragma clang diagnostic pop\n");
  }

  // ---- checked form ----------------------------------------------------------
  void rewriteChecked(const FunctionDecl *FD) {
    TheForm = Form::Checked;
    Affected.clear();
    AffectedC.clear();
    AffectedW.clear();
    const auto *CS = dyn_cast_or_null<CompoundStmt>(FD->getBody());
    if (!CS)
      return;
    std::vector<const VarDecl *> Params;
    for (const ParmVarDecl *P : FD->parameters())
      if (P->getIdentifier() && rootShape(P->getType()).Kind)
        Params.push_back(P);
    if (!Params.empty()) {
      SourceLocation LB = CS->getLBracLoc();
      if (!LB.isFileID()) {
        S.error(FD->getLocation(), "cannot register the parameters of '" +
                                       FD->getName().str() +
                                       "' as roots: its body starts in a macro");
        return;
      }
      auto [FID, Off] = SM.getDecomposedLoc(LB);
      S.Edits.insert(FID, Off + 1, " " + frameText(Params));
    }
    walk(CS);
  }

  struct RootShape {
    const char *Kind = nullptr;
    uint64_t Count = 1;
    CompactType *T = nullptr;
    bool VLA = false;
  };
  /// How a local of type QT is registered in a frame (Kind null: not a root).
  RootShape rootShape(QualType QT) const {
    RootShape R;
    QualType E = QT.getCanonicalType();
    while (const auto *AT = dyn_cast<ArrayType>(E.getTypePtr())) {
      if (const auto *CAT = dyn_cast<ConstantArrayType>(AT))
        R.Count *= CAT->getSize().getZExtValue();
      else
        R.VLA = true;
      E = AT->getElementType().getCanonicalType();
    }
    if ((R.T = M.pointeeOf(E)))
      R.Kind = "CP_ROOT_POINTER";
    else if ((R.T = M.recordOf(E)))
      R.Kind = "CP_ROOT_VALUE";
    if (R.Count == 0)
      R.Kind = nullptr;
    return R;
  }
  /// A local of a checked function that its frame registers.
  bool isFrameRoot(const VarDecl *VD) const {
    return VD->hasLocalStorage() && !isa<ParmVarDecl>(VD) && VD->getIdentifier() &&
           rootShape(VD->getType()).Kind;
  }
  /// `cp_root_desc_t cp__rtN[] = {...}; cp_frame_t cp__frN ...; push` for Vs.
  std::string frameText(const std::vector<const VarDecl *> &Vs) {
    std::string N = std::to_string(++FrameCounter);
    std::string Out = "cp_root_desc_t cp__rt" + N + "[" + std::to_string(Vs.size()) + "] = {";
    for (const VarDecl *VD : Vs) {
      RootShape R = rootShape(VD->getType());
      std::string Nm = VD->getName().str();
      Out += "{(void *)&" + Nm + ", " + R.Kind + ", " + std::to_string(R.Count) +
             ", &" + R.T->DescName + ", \"" + Nm + "\"}, ";
    }
    Out += "}; cp_frame_t cp__fr" + N +
           " __attribute__((cleanup(cp_frame_pop))) = {0, " + std::to_string(Vs.size()) +
           ", cp__rt" + N + "}; cp_frame_push(&cp__fr" + N + ");";
    return Out;
  }
  /// A frame root declared without initializer starts null (the switch
  /// must not see stack garbage): the text to insert after its declarator.
  std::string zeroInit(const VarDecl *VD) const {
    return VD->getType()->isPointerType() ? " = 0" : " = {0}";
  }
  bool checkVLA(const VarDecl *VD) {
    if (!rootShape(VD->getType()).VLA)
      return true;
    S.error(VD->getLocation(),
            "'" + VD->getName().str() +
                "' is a variable-length array holding compact pointers in a "
                "function that reaches a safepoint; it cannot be registered as "
                "a root (use a root array: malloc(n * sizeof(T *)))",
            {CharSourceRange::getTokenRange(VD->getSourceRange())});
    return false;
  }
  /// Offset just after the end of VD's declarator, or ~0u.
  unsigned afterDeclarator(const VarDecl *VD) const {
    SourceLocation L = VD->getEndLoc();
    if (!L.isFileID())
      return ~0u;
    return SM.getFileOffset(Lexer::getLocForEndOfToken(L, 0, SM, S.LO));
  }

  /// Polls at the loop back-edges of main.
  bool pollLoops() const {
    return TheForm == Form::Checked && S.Opts.AutoSafepoints && CurFn &&
           CurFn->isMain();
  }
  /// A switch becomes pending only at an allocation, and only allocation
  /// can exhaust the arena: a loop of main that cannot allocate (it calls
  /// nothing but builtins, free and functions of the system headers) needs
  /// one poll before it, not one per iteration, and then keeps one mode.
  static bool mayAllocate(const Stmt *St) {
    return anyNode(St, [](const Stmt *X) {
      const auto *CE = dyn_cast<CallExpr>(X);
      if (!CE)
        return false;
      AllocFn F = allocFunction(CE);
      if (F != AllocFn::None)
        return F != AllocFn::Free;
      const FunctionDecl *FD = CE->getDirectCallee();
      if (!FD)
        return true;
      if (FD->getBuiltinID())
        return false;
      const SourceManager &SMgr = FD->getASTContext().getSourceManager();
      return !SMgr.isInSystemHeader(FD->getLocation());
    });
  }
  /// Offset just after statement St (its `;` or `}` included), or ~0u.
  unsigned endAfter(const Stmt *St) const {
    if (const auto *CS = dyn_cast<CompoundStmt>(St)) {
      SourceLocation L = CS->getRBracLoc();
      return L.isFileID() ? SM.getFileOffset(L) + 1 : ~0u;
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
  void loopBody(const Stmt *Body) {
    if (!Body || !pollLoops()) {
      walk(Body);
      return;
    }
    if (!hasLoop(Body) && versionable(Body) &&
        versionByMode(Body, "{ cp_safepoint(); ", " }"))
      return;
    if (const auto *CS = dyn_cast<CompoundStmt>(Body)) {
      SourceLocation L = CS->getLBracLoc();
      if (!L.isFileID()) {
        fail(Body, "cannot insert a safepoint poll in this loop of main: its "
                   "body comes from a macro");
        return;
      }
      auto [FID, Off] = SM.getDecomposedLoc(L);
      S.Edits.insert(FID, Off + 1, " cp_safepoint();");
      walk(Body);
      return;
    }
    SourceLocation B = Body->getBeginLoc();
    unsigned E = endAfter(Body);
    if (!B.isFileID() || E == ~0u) {
      fail(Body, "cannot insert a safepoint poll in this loop of main: its "
                 "body comes from a macro");
      return;
    }
    auto [FID, Off] = SM.getDecomposedLoc(B);
    S.Edits.insert(FID, Off, "{ cp_safepoint(); ");
    walk(Body);
    S.Edits.insert(FID, E, " }");
  }

  /// A for statement of a checked function whose init declares frame
  /// roots: `{ <decl> <frame> for (; cond; inc) body }`.
  bool checkedForWithRoots(const ForStmt *F) {
    const auto *DS = dyn_cast_or_null<DeclStmt>(F->getInit());
    if (!DS)
      return false;
    std::vector<const VarDecl *> Roots;
    for (const Decl *D : DS->decls())
      if (const auto *VD = dyn_cast<VarDecl>(D); VD && isFrameRoot(VD)) {
        if (!checkVLA(VD))
          return true;
        Roots.push_back(VD);
      }
    if (Roots.empty())
      return false;
    SourceLocation FB = F->getBeginLoc(), DB = DS->getBeginLoc(), DE = DS->getEndLoc();
    unsigned End = endAfter(F);
    if (!FB.isFileID() || !DB.isFileID() || !DE.isFileID() || End == ~0u) {
      fail(F, "cannot register the loop variables of this for statement as "
              "roots: it comes from a macro");
      return true;
    }
    FileID FID = SM.getFileID(FB);
    unsigned DBo = SM.getFileOffset(DB), DEo = SM.getFileOffset(DE) + 1;
    StringRef Buf = SM.getBufferData(FID);
    // The declaration's own text, initializers rewritten, roots zeroed.
    std::vector<Part> Parts;
    for (const Decl *D : DS->decls()) {
      const auto *VD = dyn_cast<VarDecl>(D);
      if (!VD)
        continue;
      if (const Expr *Init = VD->getInit()) {
        std::string T;
        unsigned Before = S.Errors;
        if (isa<InitListExpr>(Init) && affected(Init)) {
          fail(Init, "cannot rewrite this initializer list in a for statement");
          return true;
        }
        if (checkedText(Init, false, T)) {
          CharSourceRange R = fileRange(Init);
          if (R.isInvalid() || SM.getFileID(R.getBegin()) != FID) {
            fail(Init, macroMessage(Init));
            return true;
          }
          Parts.push_back({SM.getFileOffset(R.getBegin()), SM.getFileOffset(R.getEnd()), T});
        }
        if (S.Errors != Before)
          return true;
      } else if (isFrameRoot(VD)) {
        unsigned A = afterDeclarator(VD);
        if (A == ~0u) {
          fail(F, "cannot rewrite this for statement: it comes from a macro");
          return true;
        }
        Parts.push_back({A, A, zeroInit(VD)});
      }
    }
    std::sort(Parts.begin(), Parts.end(),
              [](const Part &A, const Part &B) { return A.B < B.B; });
    std::string Decl;
    unsigned Pos = DBo;
    for (const Part &P : Parts) {
      Decl += Buf.substr(Pos, P.B - Pos).str() + P.T;
      Pos = P.E;
    }
    Decl += Buf.substr(Pos, DEo - Pos).str();
    S.Edits.replace(SM, CharSourceRange::getCharRange(FB, SM.getLocForStartOfFile(FID).getLocWithOffset(DEo)),
                    "{ " + Decl + " " + frameText(Roots) + " for (;");
    top(F->getCond(), true);
    top(F->getInc(), false);
    loopBody(F->getBody());
    S.Edits.insert(FID, End, " }");
    return true;
  }

  /// A loop of a checked function in which no safepoint can run (no poll,
  /// no call that may reach one, no call through a function pointer; an
  /// external function that reaches one must be declared CP_SAFEPOINT)
  /// keeps one mode from entry to exit: it is versioned,
  /// `{ if (cp_is_compact()) { <compact loop> } else { <wide loop> } }`, so
  /// compact mode pays no per-access mode test.  In main, a loop that
  /// cannot allocate is versioned too, with its one poll in front.  False
  /// if St is not versioned.
  bool versionLoop(const Stmt *St) {
    if ((pollLoops() && mayAllocate(St)) || !versionable(St))
      return false;
    return versionByMode(St, pollLoops() ? "{ cp_safepoint(); " : "{ ", " }");
  }
  /// No safepoint can run inside St, it can be copied (labels, static
  /// locals and case labels of a switch around it cannot), and it depends
  /// on a layout.
  bool versionable(const Stmt *St) { return copyable(St) && affectedCompact(St); }
  bool copyable(const Stmt *St) {
    return !firstSafepointCall(St) && !hasLabelOrStatic(St) &&
           !hasForeignCase(St) && !hasIndirectCall(St);
  }
  bool affectedCompact(const Stmt *St) {
    Form Saved = TheForm;
    TheForm = Form::Compact;
    Affected.clear();
    bool Any = affected(St);
    TheForm = Saved;
    Affected.clear();
    return Any;
  }

  /// A block of a checked function: each run of statements between
  /// safepoint-reaching ones keeps one mode from its start to its end, so a
  /// run with two or more layout-dependent statements is versioned by
  /// mode as a whole (one test instead of one per expression).  A run ends
  /// before a declaration whose variable is used after the run (the copies
  /// are blocks of their own); in main it holds no loop (a loop's polls
  /// would be lost in the copies).
  void walkCheckedBlock(const CompoundStmt *CS) {
    std::vector<const Stmt *> Body(CS->body_begin(), CS->body_end());
    size_t I = 0;
    while (I < Body.size()) {
      size_t J = I;
      while (J < Body.size() && copyable(Body[J]) &&
             !(pollLoops() && hasLoop(Body[J])))
        ++J;
      // Trim the run at the first declaration still needed after it.
      for (size_t K = I; K < J; ++K)
        if (declUsedAfter(Body[K], ArrayRef<const Stmt *>(Body).drop_front(J))) {
          J = K;
          break;
        }
      ArrayRef<const Stmt *> Run = ArrayRef<const Stmt *>(Body).slice(I, J - I);
      unsigned NAffected = 0;
      for (const Stmt *St : Run)
        NAffected += affectedCompact(St);
      if (NAffected >= 2 && versionByMode(Run, "{ ", " }")) {
        I = J;
        continue;
      }
      for (const Stmt *St : Run)
        walk(St);
      if (J < Body.size())
        walk(Body[J]);
      I = J + 1;
    }
  }
  /// St declares a variable that one of Later refers to.
  static bool declUsedAfter(const Stmt *St, ArrayRef<const Stmt *> Later) {
    const auto *DS = dyn_cast<DeclStmt>(St);
    if (!DS)
      return false;
    std::set<const Decl *> Vars(DS->decl_begin(), DS->decl_end());
    for (const Stmt *L : Later)
      if (anyNode(L, [&](const Stmt *X) {
            const auto *DR = dyn_cast<DeclRefExpr>(X);
            return DR && Vars.count(DR->getDecl());
          }))
        return true;
    return false;
  }
  /// Replace statement St by `Open if (cp_is_compact()) { <compact St> }
  /// else { <wide St> } Close`.  The wide copy follows a #line back to St's
  /// first line and is padded to its column, so both copies carry the
  /// user's lines; the compact copy's warnings are silenced (the wide copy
  /// reports them once).  False if St is left to the caller.
  bool versionByMode(ArrayRef<const Stmt *> Sts, StringRef Open, StringRef Close) {
    SourceLocation BL = Sts.front()->getBeginLoc();
    unsigned E = endAfter(Sts.back());
    if (!BL.isFileID() || E == ~0u)
      return false;
    auto [FID, B] = SM.getDecomposedLoc(BL);
    unsigned Before = S.Errors;
    std::string C = formText(Sts, Form::Compact, FID, B, E);
    std::string W = formText(Sts, Form::Wide, FID, B, E);
    if (S.Errors != Before)
      return true;
    PresumedLoc PL = SM.getPresumedLoc(BL, false);
    if (PL.isInvalid())
      return false;
    std::string Pad(PL.getColumn() > 1 ? PL.getColumn() - 1 : 0, ' ');
    std::string T =
        Open.str() +
        "if (cp_is_compact()) { _Pragma(\"clang diagnostic push\") "
        "_Pragma(\"clang diagnostic ignored \\\"-Weverything\\\"\") " +
        C + " _Pragma(\"clang diagnostic pop\") } else {\n" +
        lineDirective(PL.getLine(), PL.getFilename()) + Pad + W + " }" +
        Close.str();
    S.Edits.replace(SM,
                    CharSourceRange::getCharRange(
                        BL, SM.getLocForStartOfFile(FID).getLocWithOffset(E)),
                    T);
    return true;
  }
  /// The text of statements Sts ([B, E) of FID) rewritten in form F.
  std::string formText(ArrayRef<const Stmt *> Sts, Form F, FileID FID,
                       unsigned B, unsigned E) {
    const Stmt *St = Sts.front();
    Form Saved = TheForm;
    EditSet Outer = std::move(S.Edits);
    S.Edits = EditSet();
    TheForm = F;
    Affected.clear();
    for (const Stmt *X : Sts)
      walk(X);
    TheForm = Saved;
    Affected.clear();
    EditSet Mine = std::move(S.Edits);
    S.Edits = std::move(Outer);
    std::vector<Edit> Es;
    for (auto &[F2, V] : Mine.files())
      for (const Edit &X : V) {
        if (F2 != FID || X.Offset < B || X.Offset + X.Length > E) {
          fail(St, "cannot version this code by mode: a rewrite falls outside it");
          return "";
        }
        Es.push_back(X);
      }
    std::stable_sort(Es.begin(), Es.end(), [](const Edit &A, const Edit &Bx) {
      return A.Offset != Bx.Offset ? A.Offset < Bx.Offset : A.Order < Bx.Order;
    });
    StringRef Buf = SM.getBufferData(FID);
    std::string Out;
    unsigned Pos = B;
    for (const Edit &X : Es) {
      if (X.Offset < Pos) {
        fail(St, "cannot version this code by mode: overlapping rewrites");
        return "";
      }
      Out += Buf.substr(Pos, X.Offset - Pos).str() + X.Text;
      Pos = X.Offset + X.Length;
    }
    return Out + Buf.substr(Pos, E - Pos).str();
  }
  /// St or a statement inside it satisfies P.
  template <typename Pred> static bool anyNode(const Stmt *St, Pred P) {
    if (!St)
      return false;
    if (P(St))
      return true;
    for (const Stmt *C : St->children())
      if (anyNode(C, P))
        return true;
    return false;
  }
  /// A call through a function pointer, or a call handed a function
  /// (qsort's comparator): the plugin cannot see whether it reaches a
  /// safepoint, so the code keeps the per-expression test.
  static bool hasIndirectCall(const Stmt *St) {
    return anyNode(St, [](const Stmt *X) {
      const auto *CE = dyn_cast<CallExpr>(X);
      if (!CE)
        return false;
      if (!CE->getDirectCallee())
        return true;
      for (const Expr *A : CE->arguments())
        if (A->getType()->isFunctionPointerType())
          return true;
      return false;
    });
  }
  /// A loop inside St (it polls, in main).
  static bool hasLoop(const Stmt *St) {
    return anyNode(St, [](const Stmt *X) {
      return isa<WhileStmt>(X) || isa<DoStmt>(X) || isa<ForStmt>(X);
    });
  }
  /// A case label of a switch around St (Duff's device): two copies of St
  /// would repeat it.
  static bool hasForeignCase(const Stmt *St) {
    if (!St)
      return false;
    if (isa<SwitchCase>(St))
      return true;
    if (const auto *Sw = dyn_cast<SwitchStmt>(St))
      return hasForeignCase(Sw->getInit()) || hasForeignCase(Sw->getCond());
    for (const Stmt *C : St->children())
      if (hasForeignCase(C))
        return true;
    return false;
  }
  static bool hasLabelOrStatic(const Stmt *St) {
    return anyNode(St, [](const Stmt *X) {
      if (isa<LabelStmt>(X) || isa<AddrLabelExpr>(X))
        return true;
      if (const auto *DS = dyn_cast<DeclStmt>(X))
        for (const Decl *D : DS->decls())
          if (const auto *VD = dyn_cast<VarDecl>(D); VD && VD->isStaticLocal())
            return true;
      return false;
    });
  }

  /// The full expression E's value is discarded (expression statement,
  /// for-init or for-increment).
  bool isDiscarded(const Expr *E) {
    auto Ps = S.Ctx.getParents(*E);
    if (Ps.empty())
      return false;
    const Stmt *P = Ps[0].get<Stmt>();
    if (!P || isa<Expr>(P) || isa<ReturnStmt>(P))
      return false;
    if (const auto *I = dyn_cast<IfStmt>(P))
      return I->getCond() != E;
    if (const auto *W = dyn_cast<WhileStmt>(P))
      return W->getCond() != E;
    if (const auto *D = dyn_cast<DoStmt>(P))
      return D->getCond() != E;
    if (const auto *F = dyn_cast<ForStmt>(P))
      return F->getCond() != E;
    if (const auto *Sw = dyn_cast<SwitchStmt>(P))
      return Sw->getCond() != E;
    return true;
  }

  /// Layout-dependent work of E (compact form) that may run after a call
  /// that reaches a safepoint: the mode tested before it may be stale.
  void scanHazard(const Stmt *St, bool InSPArgs, unsigned &SP, bool &OwnOut,
                  bool &OwnAny) {
    if (!St)
      return;
    if (const auto *CE = dyn_cast<CallExpr>(St)) {
      if (isSafepointCallee(M, CE->getDirectCallee())) {
        ++SP;
        for (const Expr *A : CE->arguments())
          scanHazard(A, true, SP, OwnOut, OwnAny);
        return;
      }
    } else if (!isa<UnaryExprOrTypeTraitExpr>(St) && own(St)) {
      OwnAny = true;
      if (!InSPArgs)
        OwnOut = true;
    }
    if (isa<UnaryExprOrTypeTraitExpr>(St))
      return;
    for (const Stmt *C : St->children())
      scanHazard(C, InSPArgs, SP, OwnOut, OwnAny);
  }
  const CallExpr *firstSafepointCall(const Stmt *St) {
    if (!St)
      return nullptr;
    if (const auto *CE = dyn_cast<CallExpr>(St))
      if (isSafepointCallee(M, CE->getDirectCallee()))
        return CE;
    for (const Stmt *C : St->children())
      if (const CallExpr *R = firstSafepointCall(C))
        return R;
    return nullptr;
  }

  /// Checked form: the text of E choosing its layout by mode.  False if E
  /// needs no change (or an error was reported).
  bool checkedText(const Expr *E, bool BoolCtx, std::string &Out) {
    Form Saved = TheForm;
    TheForm = Form::Compact;
    std::swap(Affected, AffectedC);
    bool AC = affected(E);
    std::string TC;
    unsigned SP = 0;
    bool OwnOut = false, OwnAny = false;
    if (AC) {
      TC = BoolCtx ? boolText(E) : text(E);
      scanHazard(E, false, SP, OwnOut, OwnAny);
    }
    std::swap(Affected, AffectedC);
    TheForm = Form::Wide;
    std::swap(Affected, AffectedW);
    std::string TW;
    if (AC)
      TW = affected(E) ? (BoolCtx ? boolText(E) : text(E)) : original(E);
    std::swap(Affected, AffectedW);
    TheForm = Saved;
    if (!AC)
      return false;
    if (TC == TW) {
      Out = TC;
      return true;
    }
    if ((SP >= 1 && OwnOut) || (SP >= 2 && OwnAny)) {
      if (assignAfterCall(E, Out))
        return true;
      const CallExpr *CE = firstSafepointCall(E);
      std::string Callee = CE && CE->getDirectCallee()
                               ? CE->getDirectCallee()->getName().str()
                               : "a function";
      S.error(CE ? CE->getExprLoc() : E->getExprLoc(),
              "this expression uses a compact layout and calls '" + Callee +
                  "', which may reach a safepoint (the switch can happen in "
                  "the middle of it); store the call's result in a local "
                  "first",
              {CharSourceRange::getTokenRange(E->getSourceRange())});
      return false;
    }
    if (BoolCtx)
      Out = "(cp_is_compact() ? !!(" + TC + ") : !!(" + TW + "))";
    else if (isDiscarded(E))
      Out = "(cp_is_compact() ? (void)(" + TC + ") : (void)(" + TW + "))";
    else
      Out = "(cp_is_compact() ? (" + TC + ") : (" + TW + "))";
    return true;
  }

  /// `L = R` where only R may reach a safepoint: evaluate R first, then
  /// test the mode for the store, `({ T t = R; <store t into L>; t; })`.
  bool assignAfterCall(const Expr *E, std::string &Out) {
    const auto *BO = dyn_cast<BinaryOperator>(E->IgnoreParens());
    if (!BO || BO->getOpcode() != BO_Assign || firstSafepointCall(BO->getLHS()) ||
        !BO->getLHS()->getType()->isScalarType())
      return false;
    const Expr *L = BO->getLHS(), *R = BO->getRHS();
    std::string RT;
    if (!checkedText(R, false, RT))
      RT = original(R);
    std::string T = "cp__t" + std::to_string(++FrameCounter);
    Form Saved = TheForm;
    TheForm = Form::Compact;
    std::swap(Affected, AffectedC);
    std::string SC;
    if (isHandleLValue(M, L))
      SC = "cp__sth(&" + clv(L) + ", " + T + ")";
    else
      SC = text(L) + " = " + T;
    std::swap(Affected, AffectedC);
    TheForm = Form::Wide;
    std::swap(Affected, AffectedW);
    std::string SW = text(L) + " = " + T;
    std::swap(Affected, AffectedW);
    TheForm = Saved;
    Out = "({ " + ty(L->getType().getUnqualifiedType()) + " " + T + " = (" + RT +
          "); if (cp_is_compact()) " + SC + "; else " + SW + ";" +
          (isDiscarded(E) ? std::string() : " " + T + ";") + " })";
    return true;
  }

  void checkedTop(const Expr *E, bool BoolCtx) {
    if (const auto *IL = dyn_cast<InitListExpr>(E)) {
      if (const InitListExpr *Syn = IL->getSyntacticForm())
        IL = Syn;
      for (const Expr *I : IL->inits()) {
        if (!I || I->getBeginLoc().isInvalid())
          continue;
        if (const auto *DI = dyn_cast<DesignatedInitExpr>(I))
          I = DI->getInit();
        checkedTop(I, false);
      }
      return;
    }
    std::string T;
    unsigned Before = S.Errors;
    if (!checkedText(E, BoolCtx, T) || S.Errors != Before)
      return;
    if (!S.Edits.replace(SM, fileRange(E), T))
      fail(E, macroMessage(E));
  }

  void fail(const Stmt *E, const std::string &Msg) {
    SourceLocation L = E->getBeginLoc();
    if (const auto *X = dyn_cast<Expr>(E))
      L = X->getExprLoc();
    if (!Reported.insert({L.getRawEncoding(), Msg}).second) {
      ++S.Errors;
      return;
    }
    S.error(L, Msg, {CharSourceRange::getTokenRange(E->getSourceRange())});
  }

  // ---- statements ----------------------------------------------------------
  void walk(const Stmt *St) {
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
    if (TheForm == Form::Checked && (isa<WhileStmt>(St) || isa<DoStmt>(St) ||
                                     isa<ForStmt>(St)) &&
        versionLoop(St))
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
      if (TheForm == Form::Checked && checkedForWithRoots(F))
        return;
      walk(F->getInit());
      top(F->getCond(), true);
      top(F->getInc(), false);
      loopBody(F->getBody());
      return;
    }
    if (const auto *CS = dyn_cast<CompoundStmt>(St); CS && TheForm == Form::Checked) {
      walkCheckedBlock(CS);
      return;
    }
    if (const auto *DS = dyn_cast<DeclStmt>(St)) {
      std::string Roots;
      std::vector<const VarDecl *> Frame;
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D)) {
          if (const Expr *Init = VD->getInit())
            top(Init, false);
          if (VD->isStaticLocal())
            Roots += rootDescText(S, VD, " ");
          else if (TheForm == Form::Checked && isFrameRoot(VD)) {
            if (!checkVLA(VD))
              return;
            Frame.push_back(VD);
            if (!VD->getInit()) {
              unsigned A = afterDeclarator(VD);
              if (A == ~0u) {
                fail(DS, "cannot register '" + VD->getName().str() +
                             "' as a root: its declaration comes from a macro");
                return;
              }
              S.Edits.insert(SM.getFileID(SM.getExpansionLoc(VD->getLocation())), A,
                             zeroInit(VD));
            }
          }
        }
      if (!Frame.empty())
        Roots += frameText(Frame);
      // Static locals' root descriptors follow their declaration, on its line.
      SourceLocation End = DS->getEndLoc();
      if (!Roots.empty() && End.isFileID()) {
        auto [FID, Off] = SM.getDecomposedLoc(End);
        S.Edits.insert(FID, Off + 1, " " + Roots);
      }
      return;
    }
    for (const Stmt *C : St->children())
      walk(C);
  }

  /// Replace a maximal affected expression.
  void top(const Expr *E, bool BoolCtx) {
    if (E && TheForm == Form::Checked) {
      checkedTop(E, BoolCtx);
      return;
    }
    if (!E || !affected(E))
      return;
    unsigned Before = S.Errors;
    std::string T = BoolCtx ? boolText(E) : text(E);
    if (S.Errors != Before)
      return;
    CharSourceRange R = fileRange(E);
    if (!S.Edits.replace(SM, R, T))
      fail(E, macroMessage(E));
  }

  // ---- source text -------------------------------------------------------
  CharSourceRange fileRange(const Stmt *E) const {
    return Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(E->getSourceRange()), SM, S.LO);
  }

  std::string macroMessage(const Stmt *E) const {
    SourceLocation L = E->getBeginLoc();
    if (L.isMacroID()) {
      StringRef Name = Lexer::getImmediateMacroNameForDiagnostics(L, SM, S.LO);
      if (!Name.empty())
        return "cannot rewrite this use of a compact type: it is produced by "
               "macro '" + Name.str() +
               "'; write the access outside the macro or make it a function";
    }
    return "cannot rewrite this use of a compact type: it is produced by a "
           "macro expansion";
  }

  std::string original(const Stmt *E) {
    CharSourceRange R = fileRange(E);
    if (R.isValid()) {
      bool Invalid = false;
      StringRef T = Lexer::getSourceText(R, SM, S.LO, &Invalid);
      if (!Invalid)
        return T.str();
    }
    std::string Out;
    llvm::raw_string_ostream OS(Out);
    PrintingPolicy P(S.LO);
    P.SuppressTagKeyword = false;
    E->printPretty(OS, nullptr, P);
    return "(" + OS.str() + ")";
  }

  struct Part {
    unsigned B, E;
    std::string T;
  };

  /// The affected children of E whose text lies in [Begin, End) of FID;
  /// through nodes of a macro body that need no rebuilding, their
  /// descendants (macro arguments).
  bool collectParts(const Stmt *E, FileID FID, unsigned Begin, unsigned End,
                    std::vector<Part> &Parts) {
    for (const Stmt *C : E->children()) {
      if (!C || !affected(C))
        continue;
      CharSourceRange CR = fileRange(C);
      bool Inside = CR.isValid() && SM.getFileID(CR.getBegin()) == FID &&
                    SM.getFileOffset(CR.getBegin()) >= Begin &&
                    SM.getFileOffset(CR.getEnd()) <= End;
      if (Inside) {
        Parts.push_back({SM.getFileOffset(CR.getBegin()),
                         SM.getFileOffset(CR.getEnd()), text(C)});
        continue;
      }
      if (needsRebuild(C) || !C->getBeginLoc().isMacroID()) {
        fail(C, macroMessage(C));
        return false;
      }
      if (!collectParts(C, FID, Begin, End, Parts))
        return false;
    }
    return true;
  }

  /// text(C) is not just C's source with its children rewritten.
  bool needsRebuild(const Stmt *C) {
    if (own(C))
      return true;
    if (!compact())
      return false;
    if (const auto *IC = dyn_cast<ImplicitCastExpr>(C)) {
      const Expr *Sub = IC->getSubExpr();
      return (IC->getCastKind() == CK_LValueToRValue ||
              IC->getCastKind() == CK_ArrayToPointerDecay) &&
             (isHandleLValue(M, Sub) || isCompactLocated(M, Sub));
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(C))
      return BO->getOpcode() == BO_Assign &&
             (isHandleLValue(M, BO->getLHS()) || isCompactLocated(M, BO->getLHS()));
    if (const auto *UO = dyn_cast<UnaryOperator>(C))
      return UO->getOpcode() == UO_AddrOf && isCompactLocated(M, UO->getSubExpr());
    return false;
  }

  /// The original text of E with each affected child replaced.
  std::string splice(const Stmt *E) {
    CharSourceRange R = fileRange(E);
    if (R.isInvalid()) {
      fail(E, macroMessage(E));
      return "";
    }
    auto [FID, Begin] = SM.getDecomposedLoc(R.getBegin());
    unsigned End = SM.getFileOffset(R.getEnd());
    std::vector<Part> Parts;
    if (!collectParts(E, FID, Begin, End, Parts))
      return "";
    std::sort(Parts.begin(), Parts.end(),
              [](const Part &A, const Part &B) { return A.B < B.B; });
    StringRef Buf = SM.getBufferData(FID);
    std::string Out;
    unsigned Pos = Begin;
    for (size_t I = 0; I < Parts.size(); ++I) {
      const Part &P = Parts[I];
      if (P.B < Pos) {
        // The same macro argument expanded twice: identical text.
        if (I > 0 && P.B == Parts[I - 1].B && P.E == Parts[I - 1].E &&
            P.T == Parts[I - 1].T)
          continue;
        fail(E, macroMessage(E));
        return "";
      }
      Out += Buf.substr(Pos, P.B - Pos).str();
      Out += P.T;
      Pos = P.E;
    }
    Out += Buf.substr(Pos, End - Pos).str();
    return Out;
  }

  // ---- what needs rewriting ----------------------------------------------
  bool affected(const Stmt *St) {
    auto It = Affected.find(St);
    if (It != Affected.end())
      return It->second;
    bool A = false;
    if (const auto *U = dyn_cast<UnaryExprOrTypeTraitExpr>(St)) {
      A = compactTrait(U); // unevaluated operands are left alone
    } else {
      A = own(St);
      for (const Stmt *C : St->children())
        if (C && affected(C))
          A = true;
    }
    Affected[St] = A;
    return A;
  }

  /// The node itself is rewritten (not only a descendant).
  bool own(const Stmt *St) {
    if (const auto *CE = dyn_cast<CallExpr>(St))
      return (Clone && dualCallee(CE)) ||
             (allocFunction(CE) != AllocFn::None && allocShape(CE));
    if (!compact())
      return false;
    if (const auto *ME = dyn_cast<MemberExpr>(St))
      return ME->isArrow() ? M.pointeeOf(ME->getBase()->getType()) != nullptr
                           : isCompactLocated(M, ME->getBase());
    if (const auto *UO = dyn_cast<UnaryOperator>(St)) {
      if (UO->getOpcode() == UO_Deref)
        return M.pointeeOf(UO->getSubExpr()->getType()) != nullptr;
      if (UO->isIncrementDecrementOp())
        return M.pointeeOf(UO->getType()) != nullptr;
      return false;
    }
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(St))
      return M.pointeeOf(AS->getBase()->getType()) && M.recordOf(AS->getType());
    if (const auto *BO = dyn_cast<BinaryOperator>(St)) {
      switch (BO->getOpcode()) {
      case BO_Add:
      case BO_Sub:
      case BO_AddAssign:
      case BO_SubAssign:
        return M.pointeeOf(BO->getLHS()->getType()) ||
               M.pointeeOf(BO->getRHS()->getType());
      default:
        return false;
      }
    }
    if (const auto *OE = dyn_cast<OffsetOfExpr>(St))
      return M.recordOf(OE->getTypeSourceInfo()->getType()) != nullptr;
    return false;
  }

  bool compactTrait(const UnaryExprOrTypeTraitExpr *U) {
    if (!compact())
      return false;
    if (U->getKind() != UETT_SizeOf && U->getKind() != UETT_AlignOf &&
        U->getKind() != UETT_PreferredAlignOf)
      return false;
    if (U->isArgumentType())
      return M.elementOf(U->getArgumentType()) != nullptr;
    return isCompactLocated(M, U->getArgumentExpr());
  }

  // ---- text ----------------------------------------------------------------
  std::string ct(const CompactType *T) {
    if (!T) { // a classification bug: refuse rather than crash
      ++S.Errors;
      S.error(SourceLocation(), "compactptr internal error: no compact type "
                                "for a rewritten expression");
      return "";
    }
    return T->compactSpelling();
  }
  std::string ty(QualType T) { return S.typeText(T); }

  /// Text of E as a plain C expression of E's type.
  std::string text(const Stmt *St) {
    if (!affected(St))
      return original(St);
    const auto *E = dyn_cast<Expr>(St);
    if (!E)
      return splice(St);

    if (const auto *IC = dyn_cast<ImplicitCastExpr>(E)) {
      const Expr *Sub = IC->getSubExpr();
      if (compact() && IC->getCastKind() == CK_LValueToRValue) {
        if (isHandleLValue(M, Sub))
          return "((" + ty(IC->getType()) + ")cp_decode(" + clv(Sub) + "))";
        if (CompactType *T = M.recordOf(Sub->getType()); T && isCompactLocated(M, Sub))
          return "cp__load_" + T->Name + "(" + caddr(Sub) + ")";
      }
      if (compact() && IC->getCastKind() == CK_ArrayToPointerDecay &&
          isCompactLocated(M, Sub))
        return "((" + ty(IC->getType()) + ")" + clv(Sub) + ")";
      return text(Sub);
    }

    if (const auto *ME = dyn_cast<MemberExpr>(E)) {
      if (compact() && own(ME)) {
        if (isHandleLValue(M, ME) || isHandleArray(M, ME) || isCompactLocated(M, ME)) {
          fail(ME, "this use of handle field '" +
                       ME->getMemberDecl()->getName().str() +
                       "' cannot be rewritten; read it into a local first");
          return "";
        }
        return clv(ME);
      }
      return splice(ME);
    }

    if (const auto *UO = dyn_cast<UnaryOperator>(E))
      return unaryText(UO);
    if (const auto *BO = dyn_cast<BinaryOperator>(E))
      return binaryText(BO);
    if (const auto *CO = dyn_cast<ConditionalOperator>(E))
      return "(" + boolText(CO->getCond()) + " ? " + text(CO->getTrueExpr()) +
             " : " + text(CO->getFalseExpr()) + ")";

    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
      if (compact() && (isCompactLocated(M, AS) || isHandleLValue(M, AS))) {
        fail(AS, "this use of a heap object of compact type cannot be "
                 "rewritten; copy it into a local first");
        return "";
      }
      return splice(AS);
    }

    if (const auto *U = dyn_cast<UnaryExprOrTypeTraitExpr>(E))
      return traitText(U);

    if (const auto *OE = dyn_cast<OffsetOfExpr>(E))
      return offsetofText(OE);

    if (const auto *CE = dyn_cast<CallExpr>(E)) {
      if (allocFunction(CE) != AllocFn::None && allocShape(CE))
        return allocText(CE);
      if (Clone && dualCallee(CE)) {
        // A compact body calls a dual function's compact body directly.
        std::string Out = CE->getDirectCallee()->getName().str() + "__cp(";
        for (unsigned I = 0; I < CE->getNumArgs(); ++I)
          Out += (I ? ", " : "") + text(CE->getArg(I));
        return Out + ")";
      }
    }

    return splice(E);
  }

  /// Text of E in a truth-value context: handles compare without decode.
  std::string boolText(const Expr *E) {
    const Expr *X = E->IgnoreParens();
    if (const auto *IC = dyn_cast<ImplicitCastExpr>(X))
      if (compact() && IC->getCastKind() == CK_LValueToRValue &&
          isHandleLValue(M, IC->getSubExpr()))
        return "(" + clv(IC->getSubExpr()) + " != 0)";
    return text(E);
  }

  /// A handle read: `(h)` if E is the rvalue of a handle field.
  const Expr *handleRead(const Expr *E) {
    const Expr *X = E->IgnoreParens();
    if (const auto *IC = dyn_cast<ImplicitCastExpr>(X))
      if (IC->getCastKind() == CK_LValueToRValue && isHandleLValue(M, IC->getSubExpr()))
        return IC->getSubExpr();
    return nullptr;
  }

  /// Compact lvalue text: an lvalue in compact layout for a compact-located
  /// object, a handle slot (cp_handle_t) or a plain field of one.
  std::string clv(const Expr *E) {
    E = E->IgnoreParens();
    if (const auto *UO = dyn_cast<UnaryOperator>(E);
        UO && UO->getOpcode() == UO_Deref) {
      CompactType *T = M.pointeeOf(UO->getSubExpr()->getType());
      return "(*(" + ct(T) + " *)(" + text(UO->getSubExpr()) + "))";
    }
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
      const Expr *B = AS->getBase()->IgnoreParens();
      if (const auto *IC = dyn_cast<ImplicitCastExpr>(B))
        if (IC->getCastKind() == CK_ArrayToPointerDecay &&
            (isCompactLocated(M, IC->getSubExpr()) || isHandleArray(M, IC->getSubExpr())))
          return "(" + clv(IC->getSubExpr()) + "[" + text(AS->getIdx()) + "])";
      CompactType *T = M.pointeeOf(AS->getBase()->getType());
      return "(((" + ct(T) + " *)(" + text(AS->getBase()) + "))[" +
             text(AS->getIdx()) + "])";
    }
    if (const auto *ME = dyn_cast<MemberExpr>(E)) {
      if (!ME->isArrow() && !isCompactLocated(M, ME->getBase())) {
        fail(E, "this use of a compact type cannot be rewritten");
        return "";
      }
      std::string N = ME->getMemberDecl()->getName().str();
      if (ME->isArrow()) {
        CompactType *T = M.pointeeOf(ME->getBase()->getType());
        return "(((" + ct(T) + " *)(" + text(ME->getBase()) + "))->" + N + ")";
      }
      return "(" + clv(ME->getBase()) + "." + N + ")";
    }
    fail(E, "internal: no compact lvalue for this expression");
    return "";
  }

  std::string caddr(const Expr *E) { return "(&" + clv(E) + ")"; }

  std::string unaryText(const UnaryOperator *UO) {
    const Expr *Sub = UO->getSubExpr();
    switch (UO->getOpcode()) {
    case UO_Deref:
      if (compact() && M.pointeeOf(Sub->getType())) {
        fail(UO, "this use of a heap object of compact type cannot be "
                 "rewritten; copy it into a local first");
        return "";
      }
      break;
    case UO_AddrOf:
      if (compact() && isCompactLocated(M, Sub))
        return "((" + ty(UO->getType()) + ")" + caddr(Sub) + ")";
      if (compact() && (isHandleLValue(M, Sub) || isHandleArray(M, Sub))) {
        fail(UO, "the address of a handle field cannot be taken");
        return "";
      }
      break;
    case UO_LNot:
      return "(!" + boolText(Sub) + ")";
    case UO_PreInc:
    case UO_PreDec:
    case UO_PostInc:
    case UO_PostDec:
      if (CompactType *T = compact() ? M.pointeeOf(UO->getType()) : nullptr) {
        bool Post = UO->isPostfix();
        std::string D = UO->isIncrementOp() ? "" : "-";
        std::string Call =
            isHandleLValue(M, Sub)
                ? "cp__hadd(&" + clv(Sub) + ", "
                : "cp__padd(&(" + text(Sub) + "), ";
        Call += D + "(long)sizeof(" + ct(T) + "), " + (Post ? "1" : "0") + ")";
        if (isStatementLevel(UO))
          return Call;
        return "((" + ty(UO->getType()) + ")" + Call + ")";
      }
      break;
    default:
      break;
    }
    return splice(UO);
  }

  std::string binaryText(const BinaryOperator *BO) {
    const Expr *L = BO->getLHS(), *R = BO->getRHS();
    if (!compact())
      return splice(BO);
    switch (BO->getOpcode()) {
    case BO_Assign:
      if (isHandleLValue(M, L)) {
        if (isStatementLevel(BO))
          return "cp__sth(&" + clv(L) + ", " + text(R) + ")";
        return "((" + ty(L->getType()) + ")cp__sth(&" + clv(L) + ", " + text(R) + "))";
      }
      if (CompactType *T = M.recordOf(L->getType()); T && isCompactLocated(M, L)) {
        // Heap object = heap object of the same type: copy the compact bytes.
        if (CompactType *RT = M.recordOf(R->getType()); RT == T) {
          const Expr *RX = R->IgnoreParens();
          if (const auto *IC = dyn_cast<ImplicitCastExpr>(RX))
            if (IC->getCastKind() == CK_LValueToRValue &&
                isCompactLocated(M, IC->getSubExpr()) && isStatementLevel(BO))
              return "(void)(" + clv(L) + " = " + clv(IC->getSubExpr()) + ")";
        }
        return "cp__store_" + T->Name + "(" + caddr(L) + ", " + text(R) + ")";
      }
      break;
    case BO_AddAssign:
    case BO_SubAssign:
      if (CompactType *T = M.pointeeOf(L->getType())) {
        std::string D = BO->getOpcode() == BO_AddAssign ? "" : "-";
        std::string Call = isHandleLValue(M, L) ? "cp__hadd(&" + clv(L) + ", "
                                                : "cp__padd(&(" + text(L) + "), ";
        Call += D + "(long)(" + text(R) + ") * (long)sizeof(" + ct(T) + "), 0)";
        if (isStatementLevel(BO))
          return Call;
        return "((" + ty(L->getType()) + ")" + Call + ")";
      }
      break;
    case BO_Add:
    case BO_Sub: {
      CompactType *LT = M.pointeeOf(L->getType()), *RT = M.pointeeOf(R->getType());
      if (LT && RT)
        return "((" + ct(LT) + " *)(" + text(L) + ") - (" + ct(RT) + " *)(" +
               text(R) + "))";
      if (LT)
        return "((" + ty(BO->getType()) + ")((" + ct(LT) + " *)(" + text(L) +
               ") " + (BO->getOpcode() == BO_Add ? "+" : "-") + " (" + text(R) + ")))";
      if (RT)
        return "((" + ty(BO->getType()) + ")((" + text(L) + ") + (" + ct(RT) +
               " *)(" + text(R) + ")))";
      break;
    }
    case BO_EQ:
    case BO_NE: {
      std::string Op = BO->getOpcode() == BO_EQ ? " == " : " != ";
      const Expr *HL = handleRead(L), *HR = handleRead(R);
      auto isNull = [&](const Expr *X) {
        return X->isNullPointerConstant(S.Ctx, Expr::NPC_ValueDependentIsNotNull) !=
               Expr::NPCK_NotNull;
      };
      // Directly inside if (...) / while (...): no extra parentheses, which
      // -Wparentheses-equality would flag.
      std::string O = isStatementLevel(BO) ? "" : "(", C = O.empty() ? "" : ")";
      if (HL && HR)
        return O + clv(HL) + Op + clv(HR) + C;
      if (HL && isNull(R))
        return O + clv(HL) + Op + "0" + C;
      if (HR && isNull(L))
        return O + "0" + Op + clv(HR) + C;
      break;
    }
    case BO_LAnd:
    case BO_LOr:
      return "(" + boolText(L) + (BO->getOpcode() == BO_LAnd ? " && " : " || ") +
             boolText(R) + ")";
    default:
      break;
    }
    return splice(BO);
  }

  /// E is a full expression whose value is discarded or only tested
  /// (expression statement, for-increment, condition), so its type may
  /// change from `T *` to `void *` and it needs no extra parentheses.
  bool isStatementLevel(const Expr *E) {
    auto Ps = S.Ctx.getParents(*E);
    if (Ps.empty())
      return false;
    const Stmt *P = Ps[0].get<Stmt>();
    return P && !isa<Expr>(P) && !isa<ReturnStmt>(P);
  }

  std::string traitText(const UnaryExprOrTypeTraitExpr *U) {
    std::string Kw = U->getKind() == UETT_SizeOf ? "sizeof"
                     : U->getKind() == UETT_AlignOf ? "_Alignof"
                                                     : "__alignof__";
    if (U->isArgumentType()) {
      QualType T = U->getArgumentType();
      if (CompactType *C = M.recordOf(T))
        return Kw + "(" + ct(C) + ")";
      // An array of compact structs: count * compact size.
      uint64_t N = 1;
      QualType E = T.getCanonicalType();
      while (const auto *CAT = dyn_cast<ConstantArrayType>(E.getTypePtr())) {
        N *= CAT->getSize().getZExtValue();
        E = CAT->getElementType().getCanonicalType();
      }
      CompactType *C = M.recordOf(E);
      if (!C || E == T.getCanonicalType()) {
        fail(U, "cannot rewrite this sizeof of a compact type");
        return "";
      }
      if (Kw == "sizeof")
        return "((unsigned long)" + std::to_string(N) + " * sizeof(" + ct(C) + "))";
      return Kw + "(" + ct(C) + ")";
    }
    return Kw + "(" + clv(U->getArgumentExpr()) + ")";
  }

  std::string offsetofText(const OffsetOfExpr *OE) {
    CompactType *T = M.recordOf(OE->getTypeSourceInfo()->getType());
    std::string Out = "__builtin_offsetof(" + ct(T) + ", ";
    for (unsigned I = 0; I < OE->getNumComponents(); ++I) {
      const OffsetOfNode &N = OE->getComponent(I);
      switch (N.getKind()) {
      case OffsetOfNode::Field:
        if (I)
          Out += ".";
        Out += N.getField()->getName().str();
        break;
      case OffsetOfNode::Identifier:
        if (I)
          Out += ".";
        Out += N.getFieldName()->getName().str();
        break;
      case OffsetOfNode::Array:
        Out += "[" + text(OE->getIndexExpr(N.getArrayExprIndex())) + "]";
        break;
      case OffsetOfNode::Base:
        break;
      }
    }
    return Out + ")";
  }

  // ---- allocation ----------------------------------------------------------
  /// The pointer type the allocation result is converted to (through
  /// parentheses and casts), or the call's own type.
  QualType destinationType(const Expr *Call) {
    const Expr *Cur = Call;
    QualType T = Call->getType();
    for (;;) {
      auto Ps = S.Ctx.getParents(*Cur);
      if (Ps.empty())
        return T;
      const Expr *P = Ps[0].get<Expr>();
      if (!P)
        return T;
      if (isa<ParenExpr>(P)) {
        Cur = P;
        continue;
      }
      if (const auto *C = dyn_cast<CastExpr>(P)) {
        if (!C->getType()->isPointerType())
          return T;
        T = C->getType();
        Cur = P;
        continue;
      }
      return T;
    }
  }

  /// A compact pointer to pointer: `struct node **`.
  CompactType *rootPointee(QualType T) {
    if (!T->isPointerType())
      return nullptr;
    return M.pointeeOf(T->getPointeeType());
  }

  /// The call allocates or frees compact objects or root arrays.
  bool allocShape(const CallExpr *CE) {
    switch (allocFunction(CE)) {
    case AllocFn::Free: {
      // Through casts: free((void *)p) frees a compact object too.
      QualType A = CE->getArg(0)->IgnoreParenCasts()->getType();
      return M.pointeeOf(A) || rootPointee(A);
    }
    case AllocFn::Malloc:
    case AllocFn::Calloc:
    case AllocFn::Realloc: {
      QualType D = destinationType(CE);
      if (M.pointeeOf(D) || rootPointee(D))
        return true;
      if (allocFunction(CE) == AllocFn::Realloc) {
        QualType A = CE->getArg(0)->IgnoreParenImpCasts()->getType();
        if (M.pointeeOf(A) || rootPointee(A))
          return true;
      }
      SizeShape Sh = sizeFor(CE);
      return Sh.Ok && (M.recordOf(Sh.Elem) || rootPointee(QualType(
                           S.Ctx.getPointerType(Sh.Elem))));
    }
    case AllocFn::None:
      return false;
    }
    return false;
  }

  SizeShape sizeFor(const CallExpr *CE) {
    switch (allocFunction(CE)) {
    case AllocFn::Malloc:
      return sizeShape(CE->getArg(0));
    case AllocFn::Realloc:
      return sizeShape(CE->getArg(1));
    case AllocFn::Calloc: {
      SizeShape A = sizeShape(CE->getArg(1));
      if (A.Ok && !A.Count) {
        A.Count = CE->getArg(0);
        return A;
      }
      SizeShape B = sizeShape(CE->getArg(0));
      if (B.Ok && !B.Count) {
        B.Count = CE->getArg(1);
        return B;
      }
      return SizeShape();
    }
    default:
      return SizeShape();
    }
  }

  std::string countText(const SizeShape &Sh, const CallExpr *CE) {
    if (!Sh.Count)
      return "1";
    return "(unsigned long)(" + text(Sh.Count) + ")";
  }

  std::string allocText(const CallExpr *CE) {
    AllocFn F = allocFunction(CE);
    if (F == AllocFn::Free) {
      const Expr *A = CE->getArg(0);
      QualType AT = A->IgnoreParenCasts()->getType();
      if (M.pointeeOf(AT))
        return "cp_free(" + text(A) + ")";
      return "cp_root_array_free((void **)(" + text(A) + "))";
    }
    QualType D = destinationType(CE);
    SizeShape Sh = sizeFor(CE);
    CompactType *DT = M.pointeeOf(D), *DR = rootPointee(D);
    if (F == AllocFn::Realloc && !DT && !DR) {
      QualType A = CE->getArg(0)->IgnoreParenImpCasts()->getType();
      DT = M.pointeeOf(A);
      DR = rootPointee(A);
    }
    CompactType *ST = Sh.Ok ? M.recordOf(Sh.Elem) : nullptr;
    CompactType *SR = Sh.Ok && Sh.Elem->isPointerType() ? M.pointeeOf(Sh.Elem) : nullptr;
    const Expr *SizeArg = CE->getArg(F == AllocFn::Realloc ? 1 : 0);
    if (F == AllocFn::Calloc && !Sh.Ok)
      SizeArg = CE->getArg(1);

    if (DT && !ST) {
      std::vector<FixItHint> Fix;
      if (F == AllocFn::Malloc && SR == nullptr)
        if (const auto *U = dyn_cast<UnaryExprOrTypeTraitExpr>(SizeArg->IgnoreParenImpCasts()))
          Fix.push_back(FixItHint::CreateReplacement(
              CharSourceRange::getTokenRange(U->getSourceRange()),
              "sizeof(" + DT->WideSpelling + ")"));
      S.error(SizeArg->getExprLoc(),
              "allocation of compact type '" + DT->WideSpelling +
                  "' must have its size expressed as sizeof(" + DT->WideSpelling +
                  ") or n * sizeof(" + DT->WideSpelling + ")",
              {CharSourceRange::getTokenRange(SizeArg->getSourceRange())}, Fix);
      return "";
    }
    if (DT && ST && DT != ST) {
      fail(CE, "allocation of '" + ST->WideSpelling + "' is converted to '" +
                   ty(D) + "'");
      return "";
    }
    if (DR && !SR) {
      S.error(SizeArg->getExprLoc(),
              "allocation of an array of compact pointers must have its size "
              "expressed as n * sizeof(" + DR->WideSpelling + " *)",
              {CharSourceRange::getTokenRange(SizeArg->getSourceRange())});
      return "";
    }
    if (ST) {
      std::string Desc = "&" + ST->DescName;
      if (F == AllocFn::Realloc)
        return "cp_realloc_array(" + Desc + ", " + text(CE->getArg(0)) + ", " +
               countText(Sh, CE) + ")";
      if (!Sh.Count)
        return "cp_alloc(" + Desc + ")";
      return "cp_alloc_array(" + Desc + ", " + countText(Sh, CE) + ")";
    }
    if (SR) {
      if (F == AllocFn::Realloc)
        return "((void *)cp_root_array_realloc((void **)(" + text(CE->getArg(0)) +
               "), " + countText(Sh, CE) + "))";
      return "((void *)cp_root_array_alloc(" + countText(Sh, CE) + "))";
    }
    return splice(CE);
  }
};

} // namespace

void runRewrite(Session &S) {
  BodyRewriter R(S);
  std::vector<const FunctionDecl *> Fns;
  for (const Decl *D : S.Ctx.getTranslationUnitDecl()->decls())
    if (const auto *FD = dyn_cast<FunctionDecl>(D))
      if (!S.isIgnoredLoc(FD->getLocation()) && FD->doesThisDeclarationHaveABody())
        Fns.push_back(FD);
  R.planDuals(Fns);
  for (const Decl *D : S.Ctx.getTranslationUnitDecl()->decls()) {
    if (S.isIgnoredLoc(D->getLocation()))
      continue;
    if (const auto *FD = dyn_cast<FunctionDecl>(D)) {
      if (FD->doesThisDeclarationHaveABody())
        R.rewriteFunction(FD);
    } else if (const auto *VD = dyn_cast<VarDecl>(D)) {
      if (const Expr *Init = VD->getInit())
        R.rewriteInit(Init);
    }
  }
}

} // namespace compactptr
