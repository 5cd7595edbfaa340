//===- Analysis.cpp - find compact types, classify functions --------------===//
//
// In:  the AST of one translation unit.
// Out: Model::Types, the compact types: every struct annotated `compact`
//      (on any declaration), then, to a fixed point, every struct with a
//      field that points to a compact type or holds one by value (arrays
//      included).  Model::Functions: per function with a body, whether it
//      is layout-dependent and whether it reaches a safepoint (docs/design.md;
//      Rewrite.cpp picks the dual or checked form from them).
// Invariants: keys are canonical declarations; types appear in the order
//      their definitions appear in the TU; system headers are ignored.
// Tests: test/rewrite/inferred-compact-type.c, test/rewrite/layout-reorder.c.
//
//===----------------------------------------------------------------------===//
#include "Engine.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/xxhash.h"
#include <functional>
#include <map>

using namespace clang;

namespace compactptr {
namespace {

class Collector : public RecursiveASTVisitor<Collector> {
public:
  Collector(Session &S, std::vector<const FunctionDecl *> &Fns)
      : S(S), Fns(Fns) {}
  bool VisitRecordDecl(RecordDecl *RD) {
    if (!RD->isThisDeclarationADefinition() || S.isIgnoredLoc(RD->getLocation()))
      return true;
    S.M.Records.push_back(RD);
    return true;
  }
  bool VisitFunctionDecl(FunctionDecl *FD) {
    // The runtime header's own inline functions are not the program's.
    if (FD->doesThisDeclarationHaveABody() && !S.isIgnoredLoc(FD->getLocation()) &&
        !isRuntimeFunction(FD))
      Fns.push_back(FD);
    return true;
  }

private:
  Session &S;
  std::vector<const FunctionDecl *> &Fns;
};

void addType(Session &S, const RecordDecl *RD, bool Annotated) {
  std::unique_ptr<CompactType> T = namedType(RD);
  T->Annotated = Annotated;
  S.M.ByDecl[cast<RecordDecl>(RD->getCanonicalDecl())] = T.get();
  S.M.Types.push_back(std::move(T));
}

/// An unnamed struct that is the type of a named field of another compact
/// type (`struct { struct job *next, **prev; } link;`, as <sys/queue.h>'s
/// _ENTRY macros write it) is named after that field, "job__link", and
/// spelled in C through the field, `__typeof__(((struct job *)0)->link)`,
/// so the converters and descriptors can name it.  Any other unnamed
/// compact type keeps an empty name and Safety refuses it.
void nameNestedType(Session &S, CompactType &T) {
  if (!T.Name.empty())
    return;
  const auto *Parent = dyn_cast<RecordDecl>(T.RD->getParent());
  CompactType *PT =
      Parent ? S.M.ByDecl.lookup(cast<RecordDecl>(Parent->getCanonicalDecl())) : nullptr;
  if (!PT)
    return;
  nameNestedType(S, *PT);
  if (PT->Name.empty())
    return;
  for (const FieldDecl *FD : Parent->fields()) {
    ArrayShape A = stripArrays(FD->getType());
    const auto *RT = A.Element->getAs<RecordType>();
    if (FD->getName().empty() || !RT ||
        RT->getDecl()->getCanonicalDecl() != T.RD->getCanonicalDecl())
      continue;
    std::string Elem;
    for (const ArrayType *AT = FD->getType()->getAsArrayTypeUnsafe(); AT;
         AT = AT->getElementType()->getAsArrayTypeUnsafe())
      Elem += "[0]";
    T.Name = PT->Name + "__" + FD->getName().str();
    T.WideSpelling = "__typeof__(((" + PT->WideSpelling + " *)0)->" +
                     FD->getName().str() + Elem + ")";
    T.CompactTag = "cp__c_" + T.Name;
    T.DescName = "cp__desc_" + T.Name;
    return;
  }
}

/// The index of parameter Param of the function-like macro Macro whose
/// `#define Macro(` comes last before offset Before in Buf, or -1.
static int macroParameter(StringRef Buf, size_t Before, StringRef Macro,
                          StringRef Param) {
  std::string Callee = (Macro + "(").str();
  for (size_t Head = Before;;) {
    Head = Buf.substr(0, Head).rfind(Callee);
    if (Head == StringRef::npos)
      return -1;
    // `#define NAME(`, apart by blanks (glibc writes a tab).
    StringRef Lead = Buf.substr(0, Head), Trim = Lead.rtrim(" \t");
    if (Trim.size() == Lead.size() || !Trim.ends_with("define"))
      continue;
    size_t Open = Head + Macro.size(), Close = Buf.find(')', Open);
    if (Close == StringRef::npos || Close > Before)
      return -1;
    llvm::SmallVector<StringRef, 4> Params;
    Buf.slice(Open + 1, Close).split(Params, ',');
    for (unsigned K = 0; K < Params.size(); ++K)
      if (Params[K].trim() == Param)
        return (int)K;
    return -1;
  }
}

/// The K-th argument of the macro invocation whose name is at Call (in a
/// file or in another macro's body): where it starts (after the `(` or
/// comma before it) and its tokens, or false where it is not lexed.
static bool macroArgument(const Session &S, SourceLocation Call, unsigned K,
                          SourceLocation &Start,
                          llvm::SmallVectorImpl<Token> &Arg) {
  const SourceManager &SM = S.SM;
  auto [FID, Off] = SM.getDecomposedLoc(SM.getSpellingLoc(Call));
  StringRef Buf = SM.getBufferData(FID);
  Lexer L(SM.getLocForStartOfFile(FID), S.LO, Buf.begin(), Buf.begin() + Off,
          Buf.end());
  Token Tok;
  L.LexFromRawLexer(Tok); // the macro's name
  if (L.LexFromRawLexer(Tok) || !Tok.is(tok::l_paren))
    return false;
  Start = Tok.getEndLoc();
  unsigned At = 0, Depth = 0;
  while (!L.LexFromRawLexer(Tok)) {
    if (Depth == 0 && Tok.isOneOf(tok::comma, tok::r_paren)) {
      if (At == K)
        return true;
      if (Tok.is(tok::r_paren))
        return false;
      ++At;
      Start = Tok.getEndLoc();
      continue;
    }
    if (Tok.is(tok::l_paren))
      ++Depth;
    else if (Tok.is(tok::r_paren))
      --Depth;
    if (At == K)
      Arg.push_back(Tok);
  }
  return false;
}

/// Where a tag goes into the source so that the unnamed struct RD gets one:
/// after its `struct` keyword written in the file, or, where a macro writes
/// `struct name {` and was given nothing for `name` (<sys/queue.h>'s
/// `LIST_HEAD(, job)`; `TAILQ_HEAD(name, type)` hands `name` on to
/// `_TAILQ_HEAD(name, struct type,)`), into that empty argument of the
/// invocation in the file.  Not found (invalid) for anything else.
static SourceLocation tagInsertionPoint(const Session &S,
                                        const RecordDecl *RD) {
  const SourceManager &SM = S.SM;
  SourceLocation KW = RD->getBeginLoc();
  // Written in the file: before the `{`, after any attributes.
  if (KW.isFileID())
    return RD->getBraceRange().getBegin().isFileID()
               ? RD->getBraceRange().getBegin()
               : SourceLocation();
  if (!SM.isMacroBodyExpansion(KW))
    return {};
  // The word after `struct` in the macro's body.
  auto [DefFID, KwOff] = SM.getDecomposedLoc(SM.getSpellingLoc(KW));
  StringRef Def = SM.getBufferData(DefFID);
  auto Word = [&](size_t At) { // blanks and line continuations skipped
    while (At < Def.size() && (isWhitespace(Def[At]) || Def[At] == '\\'))
      ++At;
    size_t E = At;
    while (E < Def.size() && isAsciiIdentifierContinue(Def[E]))
      ++E;
    return std::make_pair(Def.substr(At, E - At), E);
  };
  auto [Kw, AfterKw] = Word(KwOff);
  if (Kw != "struct" && Kw != "union")
    return {};
  std::string Param = Word(AfterKw).first.str();
  for (SourceLocation Loc = KW;
       Loc.isMacroID() && SM.isMacroBodyExpansion(Loc);) {
    StringRef Macro = Lexer::getImmediateMacroName(Loc, SM, S.LO);
    auto [BodyFID, BodyOff] = SM.getDecomposedLoc(SM.getSpellingLoc(Loc));
    int K = macroParameter(SM.getBufferData(BodyFID), BodyOff, Macro, Param);
    SourceLocation Call = SM.getImmediateExpansionRange(Loc).getBegin();
    SourceLocation Start;
    llvm::SmallVector<Token, 2> Arg;
    if (K < 0 || !macroArgument(S, Call, (unsigned)K, Start, Arg))
      return {};
    if (Call.isFileID())
      return Arg.empty() ? Start : SourceLocation();
    // Handed on from the outer macro's own parameter.
    if (Arg.size() != 1 || !Arg[0].is(tok::raw_identifier))
      return {};
    Param = Arg[0].getRawIdentifier().str();
    Loc = Call;
  }
  return {};
}

/// An unnamed compact struct that is the type of a file-scope variable
/// declared with it (`static LIST_HEAD(, job) all;`, `static struct {
/// struct job *first; } heads;`) has no name the rewritten code could
/// spell: it gets a tag, "all__t" (with a hash of its fields for a
/// variable other files cannot see, so that two such statics of different
/// types in two files, or one file built twice with different macros, are
/// two types to the runtime; a number after it if the name is taken),
/// inserted into the source and given to the declaration, so that clang's
/// printer names it too.
void nameVariableType(Session &S, CompactType &T) {
  if (!T.Name.empty() || !T.RD->getDeclContext()->isFileContext())
    return;
  const VarDecl *Var = nullptr;
  for (const Decl *D : S.Ctx.getTranslationUnitDecl()->decls()) {
    const auto *VD = dyn_cast<VarDecl>(D);
    const auto *RT =
        VD ? stripArrays(VD->getType()).Element->getAs<RecordType>() : nullptr;
    if (RT && RT->getDecl()->getCanonicalDecl() == T.RD->getCanonicalDecl()) {
      Var = VD;
      break;
    }
  }
  SourceLocation At = Var ? tagInsertionPoint(S, T.RD) : SourceLocation();
  if (At.isInvalid())
    return;
  std::string Name = Var->getName().str() + "__t";
  if (!Var->isExternallyVisible()) {
    std::string Fields;
    for (const FieldDecl *F : T.RD->fields())
      Fields += S.typeText(F->getType()) + " " + F->getName().str() + ";";
    Name += "_" + llvm::utohexstr(llvm::xxh3_64bits(Fields) & 0xffffff);
  }
  // Not a tag of the file, nor another compact type's name.
  auto Taken = [&](const std::string &N) {
    for (const Decl *D :
         S.Ctx.getTranslationUnitDecl()->lookup(&S.Ctx.Idents.get(N)))
      if (isa<TagDecl>(D))
        return true;
    return llvm::any_of(S.M.Types, [&](const auto &U) { return U->Name == N; });
  };
  const std::string Base = Name;
  for (unsigned K = 2; Taken(Name); ++K)
    Name = Base + "_" + std::to_string(K);
  const_cast<RecordDecl *>(T.RD)->setDeclName(&S.Ctx.Idents.get(Name));
  auto [FID, Off] = S.SM.getDecomposedLoc(At);
  S.Edits.insert(FID, Off, T.RD->getBeginLoc().isFileID() ? Name + " " : Name);
  T.Name = Name;
  T.WideSpelling = (T.RD->isUnion() ? "union " : "struct ") + Name;
  T.CompactTag = "cp__c_" + T.Name;
  T.DescName = "cp__desc_" + T.Name;
}

/// The field makes its struct compact: it points to, or holds, a compact
/// type (through arrays).
bool fieldIsCompact(const Session &S, const FieldDecl *FD) {
  QualType E = stripArrays(FD->getType()).Element;
  // Switchable: an _Atomic compact pointer makes its struct compact too,
  // where the type checks refuse it: kept in a plain struct it would be no
  // root.  Without a switch a plain struct may hold it natively.
  if (const auto *AT = E->getAs<AtomicType>(); AT && S.Opts.switchable())
    E = AT->getValueType();
  return S.M.pointeeOf(E) || S.M.recordOf(E);
}

/// Layout-dependent uses of compact types in a body, and the calls that
/// decide whether it reaches a safepoint.
class Classifier : public RecursiveASTVisitor<Classifier> {
public:
  Classifier(const Session &S) : S(S), M(S.M) {}
  bool LayoutDependent = false;
  bool Safepoint = false;
  bool Opaque = false;
  bool Allocates = false;
  bool AllocatesObject = false; ///< a compact object, here (not opaquely)
  bool HoldsCompact = false;
  /// The function may be a signal handler: its spin loops do not poll.
  bool InHandler = false;
  /// Its spin loops that poll (Model::SpinLoops).
  std::vector<const Stmt *> Spins;
  std::vector<const FunctionDecl *> Callees;
  /// The function types called through pointers.
  std::vector<const FunctionType *> Indirect;

  bool VisitMemberExpr(MemberExpr *E) {
    QualType B = E->getBase()->getType();
    return mark(E->isArrow() ? (bool)M.pointeeOf(B) : (bool)M.recordOf(B));
  }
  bool VisitUnaryExprOrTypeTraitExpr(UnaryExprOrTypeTraitExpr *E) {
    return mark(M.elementOf(E->getTypeOfArgument()));
  }
  bool VisitOffsetOfExpr(OffsetOfExpr *E) {
    return mark(M.recordOf(E->getTypeSourceInfo()->getType()));
  }
  bool VisitArraySubscriptExpr(ArraySubscriptExpr *E) {
    return mark(M.recordOf(E->getType()));
  }
  bool VisitBinaryOperator(BinaryOperator *E) {
    return mark(E->isAdditiveOp() && (M.pointeeOf(E->getLHS()->getType()) ||
                                      M.pointeeOf(E->getRHS()->getType())));
  }
  bool VisitUnaryOperator(UnaryOperator *E) {
    return mark((E->isIncrementDecrementOp() && M.pointeeOf(E->getType())) ||
                (E->getOpcode() == UO_Deref && M.recordOf(E->getType())));
  }
  bool VisitExpr(Expr *E) {
    if (rootShape(M, E->getType()).Kind)
      HoldsCompact = true;
    return true;
  }
  bool VisitVarDecl(VarDecl *VD) {
    if (rootShape(M, VD->getType()).Kind)
      HoldsCompact = true;
    // A cleanup function is called where the variable's scope ends, a call
    // no CallExpr shows: what it reaches, the function reaches (a caller
    // kept its roots in no frame around a function whose cleanup
    // allocated, and stopped at their first use after the switch).
    // One of another file, or a system header's that calls through a
    // pointer, may allocate, as an opaque call may.
    if (const auto *C = VD->getAttr<CleanupAttr>())
      if (const FunctionDecl *F = C->getFunctionDecl()) {
        if (opaqueCleanup(S, F))
          Opaque = Allocates = true;
        else
          Callees.push_back(F->getCanonicalDecl());
      }
    return true;
  }
  // A spin loop polls for the switch (LoopPolls.cpp): a safepoint.
  bool VisitWhileStmt(WhileStmt *L) { return spins(L); }
  bool VisitDoStmt(DoStmt *L) { return spins(L); }
  bool VisitForStmt(ForStmt *L) { return spins(L); }
  bool VisitCallExpr(CallExpr *E) {
    if (isOpaqueCall(S, E)) {
      Opaque = Allocates = true;
      if (!E->getDirectCallee())
        if (const auto *PT = E->getCallee()->getType()->getAs<PointerType>())
          if (const auto *FT = PT->getPointeeType()->getAs<FunctionType>())
            Indirect.push_back(FT);
      return true;
    }
    const FunctionDecl *FD = E->getDirectCallee();
    // A blocking call is a safepoint in switchable mode: the thread is
    // native while it blocks (SafepointCalls.cpp), so the switch can run
    // meanwhile, and the function must keep its roots in a frame.
    if (isSafepointFunction(FD) || isNativeCall(S, E))
      Safepoint = true;
    for (const Expr *A : E->arguments())
      if (const FunctionDecl *Cb = blockingCallbackHere(S, E, A))
        Callees.push_back(Cb->getCanonicalDecl());
    if (allocFunction(E) != AllocFn::None)
      for (const Expr *A : E->arguments())
        if (M.pointeeOf(A->IgnoreParenCasts()->getType()))
          LayoutDependent = true;
    if (allocatesObject(S, E))
      LayoutDependent = Safepoint = Allocates = AllocatesObject = true;
    Callees.push_back(FD->getCanonicalDecl());
    return true;
  }

private:
  const Session &S;
  const Model &M;
  bool spins(const Stmt *L) {
    if (S.Opts.switchable() && S.Opts.AutoSafepoints && !InHandler &&
        isSpinLoop(L)) {
      Safepoint = true;
      Spins.push_back(L);
    }
    return true;
  }
  /// The node depends on a layout if Uses; the visit goes on.
  bool mark(bool Uses) {
    LayoutDependent |= Uses;
    return true;
  }
};

/// Functions of the TU whose address is taken (named other than as a
/// call's callee): what a call through a pointer of their type may reach.
class AddressTaken : public RecursiveASTVisitor<AddressTaken> {
public:
  std::set<const FunctionDecl *> Found;
  bool VisitCallExpr(CallExpr *E) {
    Callee.insert(E->getCallee()->IgnoreParenImpCasts());
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (const auto *FD = dyn_cast<FunctionDecl>(E->getDecl()); FD && !Callee.count(E))
      Found.insert(FD->getCanonicalDecl());
    return true;
  }

private:
  std::set<const Expr *> Callee; // visited before the callee's DeclRefExpr
};

/// Tells whether FD has a body in this TU (Model::Functions).
bool definedHere(const Model &M, const FunctionDecl *FD) {
  return M.Functions.count(FD->getCanonicalDecl()) != 0;
}

} // namespace

std::unique_ptr<CompactType> namedType(const RecordDecl *RD) {
  auto T = std::make_unique<CompactType>();
  T->RD = RD;
  if (const IdentifierInfo *II = RD->getIdentifier()) {
    T->Name = II->getName().str();
    T->WideSpelling = "struct " + T->Name;
  } else if (const TypedefNameDecl *TD = RD->getTypedefNameForAnonDecl()) {
    T->Name = TD->getName().str();
    T->WideSpelling = T->Name;
  }
  T->CompactTag = "cp__c_" + T->Name;
  T->DescName = "cp__desc_" + T->Name;
  return T;
}

const RecordDecl *valueRecord(const FieldDecl *FD) {
  const auto *RT = stripArrays(FD->getType()).Element->getAs<RecordType>();
  return RT ? cast<RecordDecl>(RT->getDecl()->getCanonicalDecl()) : nullptr;
}

void inferCompactTypes(Session &S, const std::set<const RecordDecl *> &Pinned) {
  S.M.Types.clear();
  S.M.ByDecl.clear();
  // Annotated types first, then inferred ones to a fixed point.  A struct
  // holding a pinned one by value is inferred too: it holds its mutex, so
  // it is pinned in turn (Pinned.cpp).
  for (const RecordDecl *RD : S.M.Records)
    if (RD->isStruct() && hasAttribute(RD, "compact"))
      addType(S, RD, true);
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (const RecordDecl *RD : S.M.Records) {
      const auto *C = cast<RecordDecl>(RD->getCanonicalDecl());
      if (!RD->isStruct() || S.M.ByDecl.count(C) || Pinned.count(C))
        continue;
      for (const FieldDecl *FD : RD->fields())
        if (fieldIsCompact(S, FD) || Pinned.count(valueRecord(FD))) {
          addType(S, RD, false);
          Changed = true;
          break;
        }
    }
  }
}

void runAnalysis(Session &S) {
  std::vector<const FunctionDecl *> Fns;
  Collector C(S, Fns);
  C.TraverseDecl(S.Ctx.getTranslationUnitDecl());

  if (S.Opts.switchable())
    choosePinnedTypes(S);
  else
    inferCompactTypes(S, {});
  for (auto &T : S.M.Types)
    nameNestedType(S, *T);
  for (auto &T : S.M.Types)
    nameVariableType(S, *T);
  // Keep definition order (inferred types were appended late).
  std::stable_sort(S.M.Types.begin(), S.M.Types.end(),
                   [&](const std::unique_ptr<CompactType> &A,
                       const std::unique_ptr<CompactType> &B) {
                     return S.SM.isBeforeInTranslationUnit(
                         A->RD->getBeginLoc(), B->RD->getBeginLoc());
                   });
  if (S.M.Types.empty())
    return;
  findSignalHandlers(S);

  // Function classes; they propagate over calls between functions of the
  // TU (docs/plugin.md, section 4a).  Every function is known first, so a
  // call to a function defined later in the file is not opaque.
  for (const FunctionDecl *FD : Fns)
    S.M.Functions[FD->getCanonicalDecl()] = FC_None;
  llvm::DenseMap<const FunctionDecl *, std::vector<const FunctionDecl *>> Calls;
  llvm::DenseMap<const FunctionDecl *, std::vector<const FunctionType *>> Indirect;
  for (const FunctionDecl *FD : Fns) {
    Classifier K(S);
    K.InHandler = S.M.HandlerReach.count(FD->getCanonicalDecl());
    K.TraverseStmt(FD->getBody());
    unsigned Cls = FC_None;
    if (K.LayoutDependent)
      Cls |= FC_LayoutDependent;
    if (K.Safepoint || FD->isMain() || isSafepointFunction(FD) ||
        interfaceCall(S, FD))
      Cls |= FC_Safepoint;
    if (K.Opaque)
      Cls |= FC_Opaque;
    if (K.Allocates)
      Cls |= FC_Allocates;
    bool Holds = K.HoldsCompact;
    for (const ParmVarDecl *P : FD->parameters())
      Holds |= rootShape(S.M, P->getType()).Kind != nullptr;
    if (Holds)
      Cls |= FC_HoldsCompact;
    if (K.LayoutDependent || Holds || K.Safepoint || K.AllocatesObject ||
        FD->isMain() || isSafepointFunction(FD))
      Cls |= FC_Touches;
    S.M.Functions[FD->getCanonicalDecl()] |= Cls;
    S.M.SpinLoops.insert(K.Spins.begin(), K.Spins.end());
    Calls[FD->getCanonicalDecl()] = std::move(K.Callees);
    Indirect[FD->getCanonicalDecl()] = std::move(K.Indirect);
  }
  // A call through a pointer may reach any function of the TU whose
  // address is taken and whose type it has (a visitor's callback that
  // allocates): such a call reaches a safepoint if one of them does, so
  // its caller keeps its roots (checked) instead of holding the switch off
  // under a compact body until the arena is exhausted.  Targets outside
  // the TU stay opaque.  A call through a pointer without a prototype may
  // reach any of them.
  AddressTaken Taken;
  Taken.TraverseDecl(S.Ctx.getTranslationUnitDecl());
  S.M.AddressTaken = Taken.Found;
  for (auto &[F, Types] : Indirect)
    for (const FunctionType *FT : Types)
      for (const FunctionDecl *G : Taken.Found)
        if (definedHere(S.M, G) &&
            (isa<FunctionNoProtoType>(FT) ||
             S.Ctx.hasSameType(QualType(FT, 0), G->getType())))
          Calls[F].push_back(G);
  // A dual function (layout-dependent, reaching no safepoint) runs its
  // compact body with the switch held off, so opaque calls under it do not
  // make its callers opaque.
  std::map<const FunctionDecl *, bool> Blocked;
  for (const FunctionDecl *FD : Fns)
    Blocked[FD->getCanonicalDecl()] = !dualBlocker(S.SM, FD).empty();
  auto dual = [&](const FunctionDecl *F, unsigned Cls) {
    return (Cls & FC_LayoutDependent) && !(Cls & FC_Safepoint) && !Blocked[F];
  };
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (auto &[F, Callees] : Calls) {
      unsigned &Cls = S.M.Functions[F];
      unsigned Old = Cls;
      for (const FunctionDecl *G : Callees) {
        auto It = S.M.Functions.find(G);
        if (It == S.M.Functions.end())
          continue;
        unsigned GC = It->second;
        Cls |= GC & (FC_Safepoint | FC_Allocates | FC_Touches);
        if ((GC & FC_Opaque) && !dual(G, GC))
          Cls |= FC_Opaque;
      }
      Changed |= Cls != Old;
    }
  }
}

const VarDecl *localVariable(const Expr *E) {
  const auto *DR = dyn_cast<DeclRefExpr>(E->IgnoreParens());
  const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
  return VD && VD->hasLocalStorage() ? VD : nullptr;
}

bool isBytePointer(QualType T) {
  const auto *PT = T.getCanonicalType()->getAs<PointerType>();
  if (!PT)
    return false;
  QualType P = PT->getPointeeType();
  return P->isVoidType() || P->isCharType();
}

const FieldDecl *firstField(const CompactType *T) {
  auto It = T->RD->field_begin();
  return It == T->RD->field_end() ? nullptr : *It;
}

bool beginsWith(const Model &M, const CompactType *A, const CompactType *B) {
  for (const FieldDecl *F = firstField(A); F;) {
    if (F->getType()->isArrayType())
      return false;
    CompactType *Inner = M.recordOf(F->getType());
    if (!Inner)
      return false;
    if (Inner == B)
      return true;
    F = firstField(Inner);
  }
  return false;
}

std::optional<uint64_t> constantAddress(const Expr *E, const ASTContext &Ctx) {
  if (!E->getType()->isPointerType() || E->isValueDependent())
    return std::nullopt;
  // An lvalue with no base is an integer made a pointer, moved by constant
  // arithmetic (GNU C counts `void *` arithmetic in bytes).
  Expr::EvalResult R;
  if (!E->EvaluateAsRValue(R, Ctx) || !R.Val.isLValue() ||
      !R.Val.getLValueBase().isNull() || R.Val.isNullPointer())
    return std::nullopt;
  uint64_t V = (uint64_t)R.Val.getLValueOffset().getQuantity();
  if (V == 0)
    return std::nullopt;
  return V;
}

const FunctionDecl *localDefinition(const Session &S, const CallExpr *CE) {
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!FD || !isa<DeclRefExpr>(CE->getCallee()->IgnoreParenImpCasts()))
    return nullptr;
  const FunctionDecl *Def = FD->getDefinition();
  if (!Def || !Def->doesThisDeclarationHaveABody() || S.isIgnoredLoc(Def->getLocation()))
    return nullptr;
  return Def;
}

std::vector<const FunctionDecl *> definitionsInOrder(const Session &S) {
  std::vector<const FunctionDecl *> Fns;
  for (const auto &[FD, Cls] : S.M.Functions)
    if (const FunctionDecl *Def = FD->getDefinition())
      Fns.push_back(Def);
  std::sort(Fns.begin(), Fns.end(), [&](const FunctionDecl *A, const FunctionDecl *B) {
    return S.SM.isBeforeInTranslationUnit(A->getLocation(), B->getLocation());
  });
  return Fns;
}

QualType pointerUse(ASTContext &Ctx, const Expr *E) {
  QualType T = E->getType();
  const Expr *Cur = E;
  while (const Expr *P = parentSkippingParens(Ctx, Cur, &Cur)) {
    const auto *C = dyn_cast<CastExpr>(P);
    if (!C || !C->getType()->isPointerType())
      break;
    T = C->getType();
    Cur = P;
  }
  return T;
}

bool promptBlockingFunction(const FunctionDecl *FD) {
  return FD && FD->getIdentifier() &&
         llvm::StringSwitch<bool>(FD->getName())
             .Cases("write", "writev", "send", "sendto", "sendmsg", "sendmmsg",
                    true)
             .Cases("fgets", "getline", "getdelim", "fread", true)
             .Default(false);
}

/// A byte or `void *` pointer variable: where it points the plugin does
/// not follow (`void *q = node; ... q = buf;`), so it may be an object.
static bool bytesOfUnknownObject(const Expr *A) {
  const auto *DR = dyn_cast<DeclRefExpr>(A->IgnoreParenCasts());
  const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
  if (!VD || !VD->getType()->isPointerType())
    return false;
  QualType P = VD->getType()->getPointeeType();
  return P->isVoidType() || P->isCharType();
}

bool isNativeCall(const Session &S, const CallExpr *CE) {
  if (!S.Opts.switchable() || !isBlockingFunction(CE->getDirectCallee()))
    return false;
  for (const Expr *A : CE->arguments())
    if (handsCompactMemory(S.M, A))
      return false;
  // A write from (or a read into) bytes behind a pointer variable may use
  // a compact object's bytes: in a region the switch would move them while
  // the kernel copies (a write lost 12 of 16 KiB).  Without one the switch
  // waits for the call, as before these calls were regions.
  if (promptBlockingFunction(CE->getDirectCallee()))
    for (const Expr *A : CE->arguments())
      if (bytesOfUnknownObject(A))
        return false;
  return true;
}

/// T is an integer type meant to hold an address (intptr_t, uintptr_t).
static bool isAddressInteger(QualType T) {
  for (const auto *TT = T->getAs<TypedefType>(); TT;
       TT = TT->getDecl()->getUnderlyingType()->getAs<TypedefType>())
    if (TT->getDecl()->getName() == "intptr_t" ||
        TT->getDecl()->getName() == "uintptr_t")
      return true;
  return false;
}

/// A function of another file that the program declared CP_SAFEPOINT: it
/// may allocate, or block (a pool's or a gate's wait).  Unless that file is
/// rewritten (the call's marker says so once linked), it is code outside:
/// a call of it is a call out, and the thread counts as stopped while the
/// callee waits.  (Taken for rewritten code, a worker that waited in one
/// for the thread that switches held the switch up until its timeout.)
static bool declaredSafepoint(const FunctionDecl *FD) {
  return hasAttribute(FD, "safepoint") && !isRuntimeFunction(FD);
}

bool isCallOut(const Session &S, const CallExpr *CE) {
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!S.Opts.switchable() || !FD || returnsTwice(FD) || isBlockingFunction(FD))
    return false;
  // Another file's function, or one of this file that touches nothing
  // compact and calls code it cannot see (a wrapper of the pool's wait):
  // outside either way.
  if (definedHere(S.M, FD)) {
    unsigned Cls = S.M.Functions.lookup(FD->getCanonicalDecl());
    if (!(Cls & FC_Opaque) || (Cls & FC_Touches))
      return false;
  } else if (threadStartArgument(FD) >= 0) {
    // pthread_create and its kind: the thread starts outside where its
    // creator called them out of rewritten code (the runtime's
    // cp_thread_create looks), so a start routine of a file without
    // compact types (a pool's worker) is outside from its first
    // instruction, and one of a rewritten file comes inside at its entry.
  } else if (!(isOpaqueCall(S, CE) || declaredSafepoint(FD)) ||
             S.SM.isInSystemHeader(S.SM.getExpansionLoc(FD->getLocation()))) {
    return false;
  }
  // Its result is held in a register between the callee's return (where
  // a callee that came inside goes back out) and the call's way back in:
  // a compact pointer there would miss a switch -- also one handed back
  // as a `void *` or byte pointer, through one of the caller's variables
  // (`store_get(k, &v)`), or as an address-sized integer (exit 70: used
  // after the switch, 7 of 200 runs).
  QualType R = CE->getType();
  if (rootShape(S.M, R).Kind || S.M.pointeeOf(R) || isBytePointer(R) ||
      isAddressInteger(R))
    return false;
  for (const Expr *A : CE->arguments()) {
    // (A bit-field cannot initialize the argument's temporary.)
    if (handsCompactMemory(S.M, A) || bytesOfUnknownObject(A) ||
        A->IgnoreParenImpCasts()->refersToBitField())
      return false;
    // A `void *` or byte pointer other than a string or null (what it
    // points into the plugin does not follow), or the address of one.
    const Expr *X = A->IgnoreParenImpCasts();
    QualType T = X->getType();
    if (isBytePointer(T) && !isa<StringLiteral>(X) &&
        !X->isNullPointerConstant(S.Ctx, Expr::NPC_ValueDependentIsNotNull))
      return false;
    if (T->isPointerType() && (isBytePointer(T->getPointeeType()) ||
                               isAddressInteger(T->getPointeeType())))
      return false;
    // A pointer to memory that holds compact pointers (a struct of roots):
    // code outside may copy or write them while the switch runs.
    if (T->isPointerType() && (rootShape(S.M, T->getPointeeType()).Kind ||
                               S.M.elementOf(T->getPointeeType())))
      return false;
  }
  return true;
}

/// A function of this translation unit that blocking call CE runs back
/// (pthread_once's init routine): seen, so the call reaches what it
/// reaches (the thread is native meanwhile, and the routine's first
/// allocation ends the region).  Other libc callbacks stay opaque: qsort
/// holds copies of the elements' pointers while its comparator runs.
const FunctionDecl *blockingCallbackHere(const Session &S, const CallExpr *CE,
                                         const Expr *A) {
  if (!isBlockingFunction(CE->getDirectCallee()))
    return nullptr;
  const auto *DR = dyn_cast<DeclRefExpr>(A->IgnoreParenImpCasts());
  const auto *Fn = DR ? dyn_cast<FunctionDecl>(DR->getDecl()) : nullptr;
  return Fn && definedHere(S.M, Fn) ? Fn : nullptr;
}

bool isAllocaCall(const CallExpr *CE) {
  switch (CE->getBuiltinCallee()) {
  case Builtin::BI__builtin_alloca:
  case Builtin::BI__builtin_alloca_uninitialized:
  case Builtin::BI__builtin_alloca_with_align:
  case Builtin::BI__builtin_alloca_with_align_uninitialized:
  case Builtin::BIalloca:
    return true;
  default:
    return false;
  }
}

/// T is, or points (at any depth) to, a compact pointer, a compact object
/// or a struct that holds compact pointers.
static bool reachesCompact(const Model &M, QualType T) {
  for (;;) {
    if (rootShape(M, T).Kind || M.pointeeOf(T))
      return true;
    const auto *PT = T->getAs<PointerType>();
    if (!PT)
      return false;
    T = PT->getPointeeType();
  }
}

/// CE calls a function of another file (not of a system header) whose
/// prototype has compact pointers: its result or a parameter is, or
/// points to, a compact pointer, object, or a struct holding them.
static bool compactInterface(const Session &S, const CallExpr *CE) {
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!FD || definedHere(S.M, FD) ||
      S.SM.isInSystemHeader(S.SM.getExpansionLoc(FD->getLocation())))
    return false;
  if (reachesCompact(S.M, FD->getReturnType()))
    return true;
  return llvm::any_of(FD->parameters(), [&](const ParmVarDecl *P) {
    return reachesCompact(S.M, P->getType());
  });
}

const CallExpr *interfaceCall(const Session &S, const FunctionDecl *FD) {
  if (!S.Opts.switchable() || !FD->getBody())
    return nullptr;
  const CallExpr *First = nullptr;
  bool Blocked = false;
  // Unevaluated operands (sizeof) call nothing.  A call in a statement
  // expression or an initializer list, or a function that calls alloca,
  // keeps the function a compact body, as before: the checked form
  // refuses these (the switch could come in the middle of them), and
  // such code compiled.
  std::function<void(const Stmt *, bool)> Walk = [&](const Stmt *St,
                                                     bool InCompound) {
    if (!St || Blocked || isa<UnaryExprOrTypeTraitExpr>(St))
      return;
    InCompound |= isa<StmtExpr>(St) || isa<InitListExpr>(St);
    if (const auto *CE = dyn_cast<CallExpr>(St)) {
      if (isAllocaCall(CE)) {
        Blocked = true;
        return;
      }
      if (isOpaqueCall(S, CE) && compactInterface(S, CE)) {
        if (InCompound) {
          Blocked = true;
          return;
        }
        if (!First)
          First = CE;
      }
    }
    for (const Stmt *C : St->children())
      Walk(C, InCompound);
  };
  Walk(FD->getBody(), false);
  return Blocked ? nullptr : First;
}

bool isOpaqueCall(const Session &S, const CallExpr *CE) {
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!FD)
    return true; // through a function pointer
  if (FD->getBuiltinID() || isSafepointFunction(FD) || isRuntimeFunction(FD) ||
      allocFunction(CE) != AllocFn::None)
    return false;
  // Pure and const functions write no memory: they cannot allocate.
  if (FD->hasAttr<PureAttr>() || FD->hasAttr<ConstAttr>())
    return false;
  if (S.SM.isInSystemHeader(S.SM.getExpansionLoc(FD->getLocation()))) {
    for (const Expr *A : CE->arguments())
      if (A->getType()->isFunctionPointerType() && !blockingCallbackHere(S, CE, A))
        return true; // a callback: it may allocate
    return false;
  }
  return !definedHere(S.M, FD);
}

bool opaqueCleanup(const Session &S, const FunctionDecl *F) {
  if (F->getBuiltinID() || isRuntimeFunction(F) || isSafepointFunction(F) ||
      F->hasAttr<PureAttr>() || F->hasAttr<ConstAttr>())
    return false;
  if (S.SM.isInSystemHeader(S.SM.getExpansionLoc(F->getLocation()))) {
    // glibc's __pthread_cleanup_routine, pthread_cleanup_push's cleanup
    // under -fexceptions, calls the handler through the frame's pointer.
    const FunctionDecl *Def = F->getDefinition();
    return Def && anyNode(Def->getBody(), [](const Stmt *St) {
             const auto *CE = dyn_cast<CallExpr>(St);
             return CE && !CE->getDirectCallee();
           });
  }
  return !definedHere(S.M, F);
}

std::string dualBlocker(const SourceManager &SM, const FunctionDecl *FD) {
  if (FD->isMain())
    return "main";
  if (FD->isVariadic())
    return "variadic";
  if (FD->getStorageClass() == SC_Extern)
    return "extern definition";
  // The clone copies the definition's text, attributes included: it would
  // run at start-up or exit too, a second time.
  if (FD->hasAttr<ConstructorAttr>() || FD->hasAttr<DestructorAttr>())
    return "a constructor or destructor (a second body would run too)";
  // `int a[n][n]`: the clone's prototype, without names, cannot spell it
  // (the generated code did not compile).
  for (const ParmVarDecl *P : FD->parameters())
    if (P->getType()->isVariablyModifiedType())
      return "a parameter of variably modified type";
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
  bool Static = false;
  std::function<void(const Stmt *)> Scan = [&](const Stmt *St) {
    if (!St || Static)
      return;
    if (const auto *DS = dyn_cast<DeclStmt>(St))
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D); VD && VD->isStaticLocal())
          Static = true;
    for (const Stmt *C : St->children())
      Scan(C);
  };
  Scan(CS);
  if (Static)
    return "static local";
  return "";
}

} // namespace compactptr

namespace compactptr {

bool inUnevaluatedOperand(ASTContext &Ctx, const Expr *E) {
  const Stmt *Cur = E;
  for (int Depth = 0; Depth < 256; ++Depth) {
    auto Ps = Ctx.getParents(*Cur);
    if (Ps.empty())
      return true;
    const Stmt *P = Ps[0].get<Stmt>();
    if (!P)
      return Ps[0].get<Decl>() ==
             nullptr; // a declaration's initializer, or a type
    if (isa<UnaryExprOrTypeTraitExpr>(P))
      return true;
    // Only the controlling expression: the chosen association is evaluated.
    if (const auto *G = dyn_cast<GenericSelectionExpr>(P))
      return G->getControllingExpr() == Cur;
    if (!isa<Expr>(P))
      return false;
    Cur = P;
  }
  return true;
}

const Expr *parentSkippingParens(ASTContext &Ctx, const Expr *E,
                                 const Expr **Outermost) {
  for (;;) {
    auto Ps = Ctx.getParents(*E);
    const Expr *P = Ps.empty() ? nullptr : Ps[0].get<Expr>();
    if (P && isa<ParenExpr>(P)) {
      E = P;
      continue;
    }
    if (Outermost)
      *Outermost = E;
    return P;
  }
}

bool anyNodeInUnit(ASTContext &Ctx, llvm::function_ref<bool(const Stmt *)> P) {
  for (const Decl *D : Ctx.getTranslationUnitDecl()->decls()) {
    const Stmt *St = nullptr;
    if (const auto *FD = dyn_cast<FunctionDecl>(D))
      St = FD->doesThisDeclarationHaveABody() ? FD->getBody() : nullptr;
    else if (const auto *VD = dyn_cast<VarDecl>(D))
      St = VD->getInit();
    if (anyNode(St, P))
      return true;
  }
  return false;
}

bool anyReferenceTo(const Stmt *Body, const ValueDecl *V,
                    llvm::function_ref<bool(const DeclRefExpr *)> F) {
  if (!Body)
    return false;
  if (const auto *DR = dyn_cast<DeclRefExpr>(Body); DR && DR->getDecl() == V)
    return F(DR);
  for (const Stmt *C : Body->children())
    if (anyReferenceTo(C, V, F))
      return true;
  return false;
}

bool upThroughPointerCasts(ASTContext &Ctx, const Expr *&E, const Expr *&P) {
  P = parentSkippingParens(Ctx, E);
  while (const auto *C = dyn_cast_or_null<CastExpr>(P)) {
    if (!C->getType()->isPointerType())
      return false;
    E = C;
    P = parentSkippingParens(Ctx, C);
  }
  return true;
}

const CallExpr *callTakingPointer(ASTContext &Ctx, const Expr *&E) {
  const Expr *P;
  return upThroughPointerCasts(Ctx, E, P) ? dyn_cast_or_null<CallExpr>(P)
                                          : nullptr;
}

unsigned argumentIndex(const CallExpr *Call, const Expr *E) {
  unsigned I = 0;
  while (I < Call->getNumArgs() &&
         Call->getArg(I)->IgnoreParens() != E->IgnoreParens())
    ++I;
  return I;
}

StringRef variableKind(const VarDecl *VD) {
  if (isa<ParmVarDecl>(VD))
    return "parameter";
  if (VD->getTLSKind() != VarDecl::TLS_None)
    return "thread-local";
  if (!VD->hasGlobalStorage())
    return "local";
  return VD->isStaticLocal() ? "static local" : "global";
}

const FieldDecl *memberField(const Expr *E) {
  const auto *ME = dyn_cast<MemberExpr>(E->IgnoreParens());
  return ME ? dyn_cast<FieldDecl>(ME->getMemberDecl()) : nullptr;
}

/// The base of a member expression lives in a heap object.
static bool memberBaseIsCompact(const Model &M, const MemberExpr *ME) {
  if (ME->isArrow())
    return M.pointeeOf(ME->getBase()->getType()) != nullptr;
  return isCompactLocated(M, ME->getBase());
}

/// `X` decayed to a pointer: returns X, else null.
static const Expr *decayedArray(const Expr *B) {
  B = B->IgnoreParens();
  if (const auto *IC = dyn_cast<ImplicitCastExpr>(B))
    if (IC->getCastKind() == CK_ArrayToPointerDecay)
      return IC->getSubExpr()->IgnoreParens();
  return nullptr;
}

bool isCompactLocated(const Model &M, const Expr *E) {
  E = E->IgnoreParens();
  if (!M.elementOf(E->getType()))
    return false;
  if (boxedVar(M, E))
    return true;
  if (const auto *UO = dyn_cast<UnaryOperator>(E))
    return UO->getOpcode() == UO_Deref &&
           M.pointeeOf(UO->getSubExpr()->getType()) != nullptr;
  if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
    if (const Expr *A = decayedArray(AS->getBase()))
      return isCompactLocated(M, A);
    return M.pointeeOf(AS->getBase()->getType()) != nullptr;
  }
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    return isa<FieldDecl>(ME->getMemberDecl()) && memberBaseIsCompact(M, ME);
  return false;
}

/// E (parentheses stripped) is stored in a heap object: a field of a
/// compact-located object, or an element of a handle array field.
static bool inHeapField(const Model &M, const Expr *E) {
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    return isa<FieldDecl>(ME->getMemberDecl()) && memberBaseIsCompact(M, ME);
  if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E))
    if (const Expr *A = decayedArray(AS->getBase()))
      return isHandleArray(M, A);
  return false;
}

/// The lvalue whose memory E names, through elements of arrays and
/// casts of addresses: `n->link` for `n->link[1]`, for libuv's `(*q)[1]`
/// with q `&n->link`, and for `*(QUEUE **)&(*q)[0]` (QUEUE_NEXT); `pq`
/// for the same of a local `QUEUE pq`.
static const Expr *placeOf(const Expr *E) {
  E = E->IgnoreParens();
  if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E))
    if (const Expr *A = decayedArray(AS->getBase()))
      return placeOf(A);
  if (const auto *UO = dyn_cast<UnaryOperator>(E);
      UO && UO->getOpcode() == UO_Deref)
    if (const auto *A =
            dyn_cast<UnaryOperator>(UO->getSubExpr()->IgnoreParenCasts());
        A && A->getOpcode() == UO_AddrOf)
      return placeOf(A->getSubExpr());
  return E;
}

bool inAddressField(const Model &M, const Expr *E) {
  const auto *ME = dyn_cast<MemberExpr>(placeOf(E));
  const auto *F = ME ? dyn_cast<FieldDecl>(ME->getMemberDecl()) : nullptr;
  return F && isAddressFieldType(M, F) && memberBaseIsCompact(M, ME);
}

/// E is the address of an untyped field of a compact object: `&t->root`,
/// `&q->child[d]`, `q->child + d` (a decayed array of them).
static bool addressOfAddressField(const Model &M, const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (const auto *B = dyn_cast<BinaryOperator>(E); B && B->isAdditiveOp())
    E = (B->getLHS()->getType()->isPointerType() ? B->getLHS() : B->getRHS())
            ->IgnoreParenImpCasts();
  if (const auto *U = dyn_cast<UnaryOperator>(E);
      U && U->getOpcode() == UO_AddrOf)
    return inAddressField(M, U->getSubExpr());
  return E->getType()->isArrayType() && isa<MemberExpr>(E) &&
         inAddressField(M, E);
}

bool landsInAddressField(ASTContext &Ctx, const Model &M, const Expr *LHS) {
  LHS = LHS->IgnoreParens();
  const Expr *Base = nullptr;
  if (const auto *UO = dyn_cast<UnaryOperator>(LHS);
      UO && UO->getOpcode() == UO_Deref)
    Base = UO->getSubExpr();
  const auto *DR =
      Base ? dyn_cast<DeclRefExpr>(Base->IgnoreParenImpCasts()) : nullptr;
  const auto *V = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
  // (A parameter's values come from its callers.)
  if (!V || !V->hasLocalStorage() || isa<ParmVarDecl>(V))
    return false;
  const FunctionDecl *FD = enclosingFunction(Ctx, DR);
  if (!FD || !FD->hasBody())
    return false;
  bool Ok = !V->getInit() || addressOfAddressField(M, V->getInit());
  anyNode(FD->getBody(), [&](const Stmt *St) {
    if (const auto *BO = dyn_cast<BinaryOperator>(St)) {
      if (BO->isAssignmentOp() && localVariable(BO->getLHS()) == V)
        Ok &= BO->getOpcode() == BO_Assign &&
              addressOfAddressField(M, BO->getRHS());
    } else if (const auto *UO = dyn_cast<UnaryOperator>(St)) {
      // Its address taken, or stepped: it may be set anywhere.
      if ((UO->getOpcode() == UO_AddrOf || UO->isIncrementDecrementOp()) &&
          localVariable(UO->getSubExpr()) == V)
        Ok = false;
    }
    return !Ok;
  });
  return Ok;
}

const VarDecl *localArrayOf(const Expr *E) {
  const Expr *P = placeOf(E);
  if (P == E->IgnoreParens() || !P->getType()->isArrayType())
    return nullptr;
  return localVariable(P);
}

const FunctionDecl *enclosingFunction(ASTContext &Ctx, const Stmt *E) {
  DynTypedNode N = DynTypedNode::create(*E);
  for (unsigned Guard = 0; Guard < 4096; ++Guard) {
    auto Ps = Ctx.getParents(N);
    if (Ps.empty())
      return nullptr;
    if (const auto *FD = Ps[0].get<FunctionDecl>())
      return FD;
    N = Ps[0];
  }
  return nullptr;
}

const VarDecl *localStorage(const Expr *E) {
  for (;;) {
    E = E->IgnoreParenImpCasts();
    if (const auto *ME = dyn_cast<MemberExpr>(E); ME && !ME->isArrow()) {
      E = ME->getBase();
      continue;
    }
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E);
        AS && AS->getBase()->IgnoreParenImpCasts()->getType()->isArrayType()) {
      E = AS->getBase();
      continue;
    }
    return localVariable(E);
  }
}

const FieldDecl *roomMember(const RecordDecl *RD) {
  const FieldDecl *Last = nullptr;
  for (const FieldDecl *F : RD->fields())
    Last = F;
  if (!Last)
    return nullptr;
  if (Last->getType()->isIncompleteArrayType())
    return Last;
  // The hack's unambiguous kinds only: links to structs (a skip list's
  // forward[1]) and structs (levels).  A last member of one byte or int is
  // as often an ordinary field of arrays of such structs (the
  // differential generator's `unsigned char s0[1]`): bytes keep the advice
  // to declare `char name[];` (charHackAdvice, Allocation.cpp).
  const auto *AT = RD->getASTContext().getAsConstantArrayType(Last->getType());
  if (!AT || AT->getSize().ugt(1))
    return nullptr;
  QualType E = AT->getElementType();
  bool Hack = E->isRecordType() ||
              (E->isPointerType() && E->getPointeeType()->isRecordType());
  return Hack ? Last : nullptr;
}

bool isOneElementRoom(const FieldDecl *FD) {
  const auto *AT = FD->getASTContext().getAsConstantArrayType(FD->getType());
  return AT && AT->getSize() == 1 && roomMember(FD->getParent()) == FD;
}

bool isHandleArray(const Model &M, const Expr *E) {
  E = E->IgnoreParens();
  ArrayShape A = stripArrays(E->getType());
  return A.Array && M.pointeeOf(A.Element) && inHeapField(M, E);
}

const Expr *layoutDependentTrait(const Model &M, const Stmt *St) {
  if (!St)
    return nullptr;
  if (const auto *U = dyn_cast<UnaryExprOrTypeTraitExpr>(St)) {
    if (!M.recordOf(stripArrays(U->getTypeOfArgument()).Element))
      return nullptr;
    return U->isArgumentType() || isCompactLocated(M, U->getArgumentExpr()) ? U : nullptr;
  }
  if (const auto *O = dyn_cast<OffsetOfExpr>(St))
    return M.recordOf(O->getTypeSourceInfo()->getType()) ? O : nullptr;
  // The sizes of one compact type compared (git's BUILD_ASSERT_OR_ZERO(
  // sizeof(*dst) == sizeof(*src)) in COPY_ARRAY): equal in every layout.
  if (const auto *B = dyn_cast<BinaryOperator>(St); B && B->isEqualityOp()) {
    auto Size = [&](const Expr *E) -> const CompactType * {
      const auto *U =
          dyn_cast<UnaryExprOrTypeTraitExpr>(E->IgnoreParenImpCasts());
      return U && U->getKind() == UETT_SizeOf
                 ? M.recordOf(U->getTypeOfArgument())
                 : nullptr;
    };
    if (const CompactType *L = Size(B->getLHS()); L && L == Size(B->getRHS()))
      return nullptr;
  }
  for (const Stmt *C : St->children())
    if (const Expr *E = layoutDependentTrait(M, C))
      return E;
  return nullptr;
}

bool fullExpressionDiscarded(ASTContext &Ctx, const Expr *E) {
  auto Ps = Ctx.getParents(*E);
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

bool valueDiscardedOrTested(ASTContext &Ctx, const Expr *E) {
  const Expr *Top = E;
  const Expr *P = parentSkippingParens(Ctx, E, &Top);
  if (!P) {
    // A statement's expression: thrown away, or a condition -- but for a
    // return, an asm operand, and the last statement of a `({ })`.
    auto Ps = Ctx.getParents(*Top);
    const Stmt *St = Ps.empty() ? nullptr : Ps[0].get<Stmt>();
    if (!St || isa<ReturnStmt>(St) || isa<AsmStmt>(St) || isa<SwitchStmt>(St))
      return false;
    if (const auto *CS = dyn_cast<CompoundStmt>(St)) {
      auto Up = Ctx.getParents(*CS);
      if (!Up.empty() && Up[0].get<StmtExpr>() && CS->body_back() == Top)
        return false;
    }
    return true;
  }
  if (const auto *UO = dyn_cast<UnaryOperator>(P))
    return UO->getOpcode() == UO_LNot;
  if (const auto *BO = dyn_cast<BinaryOperator>(P)) {
    switch (BO->getOpcode()) {
    case BO_LAnd:
    case BO_LOr:
      return true;
    case BO_Comma:
      return BO->getLHS()->IgnoreParens() == Top;
    case BO_EQ:
    case BO_NE: {
      const Expr *Other = BO->getLHS()->IgnoreParens() == Top ? BO->getRHS() : BO->getLHS();
      return Other->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull) !=
             Expr::NPCK_NotNull;
    }
    default:
      return false;
    }
  }
  if (const auto *CO = dyn_cast<ConditionalOperator>(P))
    return CO->getCond()->IgnoreParens() == Top;
  if (const auto *C = dyn_cast<CastExpr>(P))
    return C->getType()->isVoidType() || C->getCastKind() == CK_PointerToBoolean;
  return false;
}

const Expr *handleArrayCleared(ASTContext &Ctx, const Model &M, const CallExpr *CE) {
  const FunctionDecl *FD = CE->getDirectCallee();
  StringRef Fn = FD ? byteCopyFunction(FD) : "";
  // memset's result is the array's address: kept, it would be a
  // `T **` into handles.
  if (CE->getNumArgs() != 3 || (Fn != "memset" && Fn != "__builtin_memset") ||
      !valueDiscardedOrTested(Ctx, CE))
    return nullptr;
  const Expr *A = CE->getArg(0)->IgnoreParenImpCasts();
  if (const auto *UO = dyn_cast<UnaryOperator>(A); UO && UO->getOpcode() == UO_AddrOf)
    A = UO->getSubExpr()->IgnoreParens();
  if (!isHandleArray(M, A))
    return nullptr;
  std::optional<llvm::APSInt> Fill = CE->getArg(1)->getIntegerConstantExpr(Ctx);
  const auto *U = dyn_cast<UnaryExprOrTypeTraitExpr>(CE->getArg(2)->IgnoreParenImpCasts());
  if (!Fill || *Fill != 0 || !U || U->getKind() != UETT_SizeOf || U->isArgumentType())
    return nullptr;
  // The same expression, token for token (the sizeof operand is not
  // evaluated, so X's side effects happen once either way).
  llvm::FoldingSetNodeID Cleared, Measured;
  A->Profile(Cleared, Ctx, /*Canonical=*/true);
  U->getArgumentExpr()->IgnoreParens()->Profile(Measured, Ctx, /*Canonical=*/true);
  return Cleared == Measured ? A : nullptr;
}

/// The handle E points at: the element whose address it takes (`&p->kids[i]`,
/// through conversions), or a one-dimensional handle array decayed, alone or
/// plus an index (`p->kids`, `p->kids + i`); else empty.
static HandleAt handleAddressed(const Model &M, const Expr *E) {
  HandleAt R;
  E = E->IgnoreParenCasts();
  if (const auto *UO = dyn_cast<UnaryOperator>(E);
      UO && UO->getOpcode() == UO_AddrOf) {
    const Expr *L = UO->getSubExpr()->IgnoreParens();
    if (isa<ArraySubscriptExpr>(L) && isHandleLValue(M, L))
      R.Element = L;
    return R;
  }
  // `a + i + 1` is `(a + i) + 1`: the pointer side, then its index terms,
  // each step an `T **` (no cast to bytes between them).
  while (const auto *B = dyn_cast<BinaryOperator>(E)) {
    QualType P = B->getType()->getPointeeType();
    if (B->getOpcode() != BO_Add || P.isNull() || !M.pointeeOf(P))
      return HandleAt();
    bool Left = B->getLHS()->getType()->isPointerType();
    R.Index.insert(R.Index.begin(), Left ? B->getRHS() : B->getLHS());
    E = (Left ? B->getLHS() : B->getRHS())->IgnoreParenImpCasts();
  }
  const ArrayType *AT = E->getType()->getAsArrayTypeUnsafe();
  if (!AT || !AT->getElementType()->isPointerType() || !isHandleArray(M, E))
    return HandleAt();
  R.Array = E;
  return R;
}

QualType HandleAt::pointerType() const {
  return Element ? Element->getType()
                 : Array->getType()->getAsArrayTypeUnsafe()->getElementType();
}

/// E is `sizeof X` or `sizeof(T)` with X or T of type Ptr.
static bool isSizeOfType(ASTContext &Ctx, const Expr *E, QualType Ptr) {
  const auto *U = dyn_cast<UnaryExprOrTypeTraitExpr>(E->IgnoreParenImpCasts());
  return U && U->getKind() == UETT_SizeOf &&
         Ctx.hasSameUnqualifiedType(U->getTypeOfArgument(), Ptr);
}

/// N, a byte count, in elements of type Ptr where the compiler knows it:
/// `sizeof A` of an array of Ptr, `k * sizeof(Ptr)` with k constant, and
/// differences of those; else empty.
static std::optional<uint64_t> constantElements(ASTContext &Ctx, const Expr *N,
                                                QualType Ptr) {
  N = N->IgnoreParenImpCasts();
  if (const auto *U = dyn_cast<UnaryExprOrTypeTraitExpr>(N);
      U && U->getKind() == UETT_SizeOf) {
    if (Ctx.hasSameUnqualifiedType(U->getTypeOfArgument(), Ptr))
      return 1;
    if (const auto *AT = Ctx.getAsConstantArrayType(U->getTypeOfArgument());
        AT && Ctx.hasSameUnqualifiedType(AT->getElementType(), Ptr))
      return AT->getSize().getZExtValue();
    return std::nullopt;
  }
  const auto *B = dyn_cast<BinaryOperator>(N);
  if (!B)
    return std::nullopt;
  if (B->getOpcode() == BO_Sub) {
    std::optional<uint64_t> L = constantElements(Ctx, B->getLHS(), Ptr);
    std::optional<uint64_t> R = constantElements(Ctx, B->getRHS(), Ptr);
    if (L && R && *L >= *R)
      return *L - *R;
    return std::nullopt;
  }
  if (B->getOpcode() == BO_Mul)
    for (auto [Count, Size] : {std::pair(B->getLHS(), B->getRHS()),
                               std::pair(B->getRHS(), B->getLHS())}) {
      std::optional<llvm::APSInt> K = Count->getIntegerConstantExpr(Ctx);
      if (K && !K->isNegative() && isSizeOfType(Ctx, Size, Ptr))
        return K->getZExtValue();
    }
  return std::nullopt;
}

std::optional<HandleRun> handleRunMoved(ASTContext &Ctx, const Model &M, const CallExpr *CE) {
  const FunctionDecl *FD = CE->getDirectCallee();
  StringRef Fn = FD ? byteCopyFunction(FD) : "";
  bool Clear = Fn.ends_with("memset");
  if (CE->getNumArgs() != 3 ||
      !(Clear || Fn.ends_with("memmove") || Fn.ends_with("memcpy")) ||
      !valueDiscardedOrTested(Ctx, CE))
    return std::nullopt;
  HandleRun R;
  R.Dst = handleAddressed(M, CE->getArg(0));
  if (Clear) {
    // A null handle is 0, as a null pointer is.
    std::optional<llvm::APSInt> Fill = CE->getArg(1)->getIntegerConstantExpr(Ctx);
    if (!R.Dst || !Fill || *Fill != 0)
      return std::nullopt;
  } else {
    R.Src = handleAddressed(M, CE->getArg(1));
    // One end an array of native pointers of the same type: copied
    // element by element, each encoded or decoded (Printer).
    for (auto [Handles, Other] :
         {std::pair(&R.Dst, CE->getArg(1)), std::pair(&R.Src, CE->getArg(0))}) {
      if (!*Handles || (R.Dst && R.Src))
        continue;
      const Expr *N = Other->IgnoreParenCasts();
      QualType T = N->getType();
      QualType Elem = T->isArrayType()
                          ? QualType(T->getArrayElementTypeNoTypeQual(), 0)
                          : T->getPointeeType();
      if (!Elem.isNull() && !isHandleArray(M, N) && !isHandleLValue(M, N) &&
          Ctx.hasSameUnqualifiedType(Elem, Handles->pointerType()))
        R.Native = N;
    }
    if (!R.Native &&
        (!R.Dst || !R.Src ||
         !Ctx.hasSameUnqualifiedType(R.Dst.pointerType(), R.Src.pointerType())))
      return std::nullopt;
  }
  QualType Ptr = (R.Dst ? R.Dst : R.Src).pointerType();
  const Expr *N = CE->getArg(2)->IgnoreParenImpCasts();
  if (isSizeOfType(Ctx, N, Ptr))
    return R;
  // A size in whole elements known to the compiler: the size of a whole
  // array of such handles (`sizeof o->kids`, as memset's clear of one is
  // written), less some elements (`sizeof o->kids - sizeof o->kids[0]`, a
  // shift of all but one).
  std::optional<uint64_t> K;
  if (!isa<BinaryOperator>(N) || cast<BinaryOperator>(N)->getOpcode() != BO_Mul)
    K = constantElements(Ctx, N, Ptr);
  if (K && *K > 0) {
    R.Elements = *K;
    return R;
  }
  const auto *Mul = dyn_cast<BinaryOperator>(N);
  if (!Mul || Mul->getOpcode() != BO_Mul)
    return std::nullopt;
  if (isSizeOfType(Ctx, Mul->getRHS(), Ptr))
    R.Count = Mul->getLHS();
  else if (isSizeOfType(Ctx, Mul->getLHS(), Ptr))
    R.Count = Mul->getRHS();
  else
    return std::nullopt;
  return R;
}

bool isHandleLValue(const Model &M, const Expr *E) {
  E = E->IgnoreParens();
  return M.pointeeOf(E->getType()) && (inHeapField(M, E) || isHandleRootElement(M, E));
}

} // namespace compactptr
