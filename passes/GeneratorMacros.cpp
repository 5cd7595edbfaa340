//===- GeneratorMacros.cpp - macros that produce whole functions ----------===//
//
// In:  the Model (compact types) and the text of every macro expansion in
//      the user's files, recorded while the translation unit was parsed
//      (ExpansionRecorder: the tokens the parser received, in order).
// Out: for each function definition whose body a macro produces and that
//      uses a compact type (`LIST_DEFINE(nl, node, next)` expanding to
//      `static struct node *nl_push(...) { ... }`), the file's text with
//      that macro's outermost expansion replaced by its tokens, spelled on
//      one line and followed by the line breaks it covered, so every later
//      line keeps its number (between pragmas that turn off the warnings
//      clang gives no macro expansion).  The front end parses the expanded text
//      once more and the rewrite sees ordinary functions.
//
// Why: the rewrite edits the user's text; a function produced by a macro
//      has none (its tokens come from the #define, shared with every other
//      expansion), so it was refused -- and generator macros are how C
//      libraries write generic containers (BSD tree.h's RB_GENERATE,
//      klib's KHASH_INIT, hand-written DEFINE_LIST(T)).  Only the expansions
//      that produce such a function are replaced; other uses of the macro,
//      and its #define, stay.
//
// Left refused (the rewrite's macro-body error): an expansion in a file
// the engine does not rewrite (a system header; Safety refuses a function
// there that uses a compact type), and one that would not parse again to
// the tokens the parser received: a `_Pragma` (which acts in the
// preprocessor or reaches the parser as an annotation), a `__COUNTER__`, a
// macro name its own expansion left unexpanded, a directive between the
// invocation's arguments.
//
// Tests: test/rewrite/generator-macro.c, test/Inputs/macros/generator.c.
//
//===----------------------------------------------------------------------===//
#include "Engine.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/MacroInfo.h"
#include "clang/Lex/Preprocessor.h"

using namespace clang;

namespace compactptr {

namespace {

/// A `_Pragma` in an expansion acts in the preprocessor (a diagnostic
/// push, `pack`, `once`) or reaches the parser as an annotation; either
/// way it is not a token the watcher sees, so the spelled-out text would
/// lose it.
class PragmaSeen : public PPCallbacks {
public:
  explicit PragmaSeen(ExpansionRecorder &R) : R(R) {}
  void PragmaDirective(SourceLocation Loc, PragmaIntroducerKind K) override {
    if (K == PIK__Pragma && Loc.isMacroID())
      R.pragmaIn(Loc);
  }
  /// Overridden as in SkippedText (Engine.h): the vtable then names no
  /// symbol of clang's own whose signature changed between versions.
  void HasInclude(SourceLocation, StringRef, bool, OptionalFileEntryRef,
                  SrcMgr::CharacteristicKind) override {}

private:
  ExpansionRecorder &R;
};

} // namespace

void ExpansionRecorder::attach(Preprocessor &PP) {
  this->PP = &PP;
  PP.setTokenWatcher([this](const Token &Tok) { see(Tok); });
  PP.addPPCallbacks(std::make_unique<PragmaSeen>(*this));
}

void ExpansionRecorder::pragmaIn(SourceLocation L) {
  const SourceManager &SM = PP->getSourceManager();
  Texts[SM.getExpansionRange(L).getBegin().getRawEncoding()].Pragma = true;
}

/// A macro whose whole body is its own name (glibc's `#define stdout
/// stdout`): spelled again, it expands to what the parser received.
static bool isIdentityMacro(const IdentifierInfo *II, const MacroInfo *MI) {
  return MI && MI->isObjectLike() && MI->getNumTokens() == 1 &&
         MI->getReplacementToken(0).getIdentifierInfo() == II;
}

void ExpansionRecorder::see(const Token &Tok) {
  SourceLocation L = Tok.getLocation();
  unsigned Counter = PP->getCounterValue();
  bool CounterMoved = Counter != LastCounter;
  LastCounter = Counter;
  if (L.isInvalid() || !L.isMacroID())
    return;
  const SourceManager &SM = PP->getSourceManager();
  SourceLocation Begin = SM.getExpansionRange(L).getBegin();
  if (SM.isInSystemHeader(Begin))
    return;
  Expansion &X = Texts[Begin.getRawEncoding()];
  // Text that would not parse again to the same tokens: an annotation (a
  // _Pragma the parser acts on), a __COUNTER__ (the parse again would
  // count from where the first one was, and every later use would shift),
  // a macro's name its own expansion left unexpanded (`#define scale
  // (scale * 2)`: spelled again, it would expand once more).
  if (Tok.isAnnotation() || Tok.is(tok::eof))
    X.Pragma = true;
  bool WasHazard = X.Counts || X.Repainted;
  X.Counts |= CounterMoved;
  if (const IdentifierInfo *II = Tok.getIdentifierInfo();
      II && Tok.isExpandDisabled() && !isIdentityMacro(II, PP->getMacroInfo(II)))
    X.Repainted = true;
  if (!WasHazard && (X.Counts || X.Repainted))
    Hazards.push_back(Begin);
  if (!X.spellable())
    return;
  if (!X.Text.empty())
    X.Text += ' ';
  X.Offsets.push_back({L.getRawEncoding(), unsigned(X.Text.size())});
  X.Text += PP->getSpelling(Tok);
}

unsigned ExpansionRecorder::Expansion::offsetOf(SourceLocation L) const {
  for (const auto &[Raw, Off] : Offsets)
    if (Raw == L.getRawEncoding())
      return Off;
  return ~0u;
}

const ExpansionRecorder::Expansion *
ExpansionRecorder::reparseHazard(const SourceManager &SM, FileID FID, unsigned B,
                                 unsigned E) const {
  for (SourceLocation L : Hazards) {
    auto [F, Off] = SM.getDecomposedLoc(L);
    if (F == FID && Off >= B && Off < E)
      return find(L);
  }
  return nullptr;
}

const ExpansionRecorder::Expansion *
ExpansionRecorder::find(SourceLocation Begin) const {
  auto It = Texts.find(Begin.getRawEncoding());
  return It == Texts.end() ? nullptr : &It->second;
}

namespace {

/// Does the function name a compact type: in a parameter, a local, or the
/// type of any expression (a holder's field read, a cast)?
class UsesCompact : public RecursiveASTVisitor<UsesCompact> {
public:
  explicit UsesCompact(const Model &M) : M(M) {}
  bool Found = false;

  bool VisitValueDecl(ValueDecl *D) { return note(D->getType()); }
  bool VisitExpr(Expr *E) { return note(E->getType()); }
  bool VisitFunctionDecl(FunctionDecl *FD) { return note(FD->getReturnType()); }

private:
  const Model &M;
  bool note(QualType T) {
    for (int Depth = 0; !T.isNull() && Depth < 8; Depth++) {
      if (M.recordOf(T)) {
        Found = true;
        return false; // stop the traversal
      }
      T = T.getCanonicalType();
      if (const auto *PT = T->getAs<PointerType>())
        T = PT->getPointeeType();
      else if (const auto *AT = dyn_cast<ArrayType>(T.getTypePtr()))
        T = AT->getElementType();
      else
        break;
    }
    return true;
  }
};

} // namespace

bool usesCompactType(const Model &M, const FunctionDecl *FD) {
  UsesCompact U(M);
  U.TraverseDecl(const_cast<FunctionDecl *>(FD));
  return U.Found;
}

/// Warnings clang gives no code a macro expands to (`if (EMPTY(h))` of
/// `#define EMPTY(h) ((h)->first == NULL)` is no -Wparentheses-equality;
/// nor is a compiled-out `LOG(...);` an empty body, `MARK_USED(x) x = x` a
/// self-assignment, or `SAME(h, h)` a tautology),
/// which the spelled-out text would otherwise draw at the invocation (an
/// error under -Werror): off around it, on its line, so that line numbers
/// stay.
static const std::string QuietOpen =
    "_Pragma(\"clang diagnostic push\") "
    "_Pragma(\"clang diagnostic ignored \\\"-Wparentheses-equality\\\"\") "
    "_Pragma(\"clang diagnostic ignored \\\"-Wunused-value\\\"\") "
    "_Pragma(\"clang diagnostic ignored \\\"-Wempty-body\\\"\") "
    "_Pragma(\"clang diagnostic ignored \\\"-Wself-assign\\\"\") "
    "_Pragma(\"clang diagnostic ignored \\\"-Wtautological-compare\\\"\") ";
static const std::string QuietClose = " _Pragma(\"clang diagnostic pop\")";

bool expandGenerators(Session &S, const ExpansionRecorder &Rec,
                      std::vector<ExpandedFile> &Out) {
  const SourceManager &SM = S.SM;
  // The outermost expansions to replace, per file: begin and end offsets.
  std::map<FileID, std::map<unsigned, std::pair<unsigned, const ExpansionRecorder::Expansion *>>>
      Sites;
  // The functions each produces, to name them in diagnostics.
  std::map<const ExpansionRecorder::Expansion *, std::vector<const FunctionDecl *>> Fns;
  for (const Decl *D : S.Ctx.getTranslationUnitDecl()->decls()) {
    const auto *FD = dyn_cast<FunctionDecl>(D);
    if (!FD || !FD->doesThisDeclarationHaveABody())
      continue;
    SourceLocation LB = FD->getBody()->getBeginLoc();
    if (!LB.isMacroID() || S.isIgnoredLoc(LB))
      continue;
    if (!usesCompactType(S.M, FD))
      continue;
    CharSourceRange R = SM.getExpansionRange(LB);
    const ExpansionRecorder::Expansion *X = Rec.find(R.getBegin());
    if (!X || !X->spellable())
      continue; // the rewrite refuses it, naming the macro
    CharSourceRange F = Lexer::makeFileCharRange(R, SM, S.LO);
    if (F.isInvalid())
      continue;
    auto [FID, B] = SM.getDecomposedLoc(F.getBegin());
    unsigned E = SM.getFileOffset(F.getEnd());
    // A directive between the invocation's arguments (`#undef EOF`) acts
    // where it stands; spelled out on one line, it would be lost.
    if (!directiveLines(SM.getBufferData(FID).slice(B, E)).empty())
      continue;
    Sites[FID][B] = {E, X};
    Fns[X].push_back(FD);
  }
  for (auto &[FID, Ranges] : Sites) {
    OptionalFileEntryRef FE = SM.getFileEntryRefForID(FID);
    if (!FE)
      continue;
    StringRef Was = SM.getBufferData(FID);
    ExpandedFile EF;
    EF.FE = FE;
    EF.Name = SM.getFileEntryRefForID(FID)->getName().str();
    unsigned At = 0;
    for (auto &[B, EndX] : Ranges) {
      auto [E, X] = EndX;
      const std::string *Text = &X->Text;
      if (B < At)
        continue; // inside an expansion already replaced
      EF.Text += Was.slice(At, B);
      EF.Text += QuietOpen;
      size_t Lines = Was.slice(B, E).count('\n');
      StringRef Macro = Was.substr(B).take_while(
          [](char C) { return isAsciiIdentifierContinue(C); });
      for (const FunctionDecl *FD : Fns[X]) {
        unsigned FB = X->offsetOf(FD->getBeginLoc()), FE = X->offsetOf(FD->getEndLoc());
        if (FB != ~0u && FE != ~0u && FB <= FE)
          EF.Functions.push_back({unsigned(EF.Text.size()) + FB,
                                  unsigned(EF.Text.size()) + FE + 1,
                                  FD->getNameAsString(), Macro.str()});
      }
      EF.Text += *Text;
      EF.Text += QuietClose;
      EF.Text += std::string(Lines, '\n');
      EF.Shifts.push_back({B, E - B,
                           unsigned(QuietOpen.size() + Text->size() +
                                    QuietClose.size() + Lines)});
      At = E;
    }
    EF.Text += Was.substr(At);
    Out.push_back(std::move(EF));
  }
  return !Out.empty();
}

unsigned ExpandedFile::expansionBegin(unsigned Off) const {
  long Delta;
  const std::array<unsigned, 3> *X = expansionAt(Shifts, Off, Delta);
  return X ? unsigned(long((*X)[0]) + Delta) : ~0u;
}

std::string ExpandedFile::producedNote(unsigned Off) const {
  const Produced *P = producedAt(Off);
  return P ? " (in function '" + P->Function + "', which macro '" + P->Macro +
                 "' produces here)"
           : "";
}

const ExpandedFile::Produced *ExpandedFile::producedAt(unsigned Off) const {
  for (const Produced &P : Functions)
    if (Off >= P.B && Off < P.E)
      return &P;
  return nullptr;
}

const std::array<unsigned, 3> *
ExpandedFile::expansionAt(const std::vector<std::array<unsigned, 3>> &Shifts, unsigned Off,
                          long &Delta) {
  Delta = 0;
  for (const std::array<unsigned, 3> &X : Shifts) {
    auto [B, OldLen, NewLen] = X;
    unsigned NewB = unsigned(long(B) + Delta);
    if (Off < NewB)
      break;
    if (Off < NewB + NewLen)
      return &X;
    Delta += long(NewLen) - long(OldLen);
  }
  return nullptr;
}

unsigned ExpandedFile::originalOffset(
    const std::vector<std::array<unsigned, 3>> &Shifts, unsigned Off) {
  long Delta;
  if (const std::array<unsigned, 3> *X = expansionAt(Shifts, Off, Delta))
    return (*X)[0]; // inside the expansion: the macro's name
  return unsigned(long(Off) - Delta);
}

} // namespace compactptr
