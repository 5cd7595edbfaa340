//===- Engine.cpp - pipeline driver, model queries, edits, diagnostics ----===//
//
// Runs the passes in order on one translation unit: Analysis, Safety,
// Layout, Rewrite, Emit.  Any error from any pass clears the collected
// edits, so the front ends see either every file rewritten or none.
// Covered by every test under test/plugin and test/rewrite.
//
//===----------------------------------------------------------------------===//
#include "Engine.h"
#include "Printer.h"
#include "clang/AST/Attr.h"
#include "clang/AST/PrettyPrinter.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace compactptr {

bool Options::parseMode(llvm::StringRef S, Mode &Out) {
  if (S == "compact-only") {
    Out = Mode::CompactOnly;
    return true;
  }
  if (S == "wide") {
    Out = Mode::Wide;
    return true;
  }
  if (S == "switchable") {
    Out = Mode::Switchable;
    return true;
  }
  return false;
}

const char *Options::modeName(Mode M) {
  return M == Mode::Wide         ? "wide"
         : M == Mode::Switchable ? "switchable"
                                 : "compact-only";
}

static const RecordDecl *recordDeclOf(QualType T) {
  if (T.isNull())
    return nullptr;
  const auto *RT = T.getCanonicalType()->getAs<RecordType>();
  if (!RT)
    return nullptr;
  const RecordDecl *RD = RT->getDecl()->getDefinition();
  return RD ? RD : RT->getDecl();
}

CompactType *Model::recordOf(QualType T) const {
  const RecordDecl *RD = recordDeclOf(T);
  if (!RD)
    return nullptr;
  auto It = ByDecl.find(cast<RecordDecl>(RD->getCanonicalDecl()));
  return It == ByDecl.end() ? nullptr : It->second;
}

CompactType *Model::pointeeOf(QualType T) const {
  if (T.isNull())
    return nullptr;
  const auto *PT = T.getCanonicalType()->getAs<PointerType>();
  if (!PT)
    return nullptr;
  return recordOf(PT->getPointeeType());
}

CompactType *Model::elementOf(QualType T) const {
  return T.isNull() ? nullptr : recordOf(stripArrays(T).Element);
}

CompactType *Model::pinnedOf(QualType T) const {
  const RecordDecl *RD = T.isNull() ? nullptr : recordDeclOf(T);
  return RD ? PinnedByDecl.lookup(cast<RecordDecl>(RD->getCanonicalDecl()))
            : nullptr;
}

CompactType *Model::pinnedPointee(QualType T) const {
  if (T.isNull())
    return nullptr;
  const auto *PT = T.getCanonicalType()->getAs<PointerType>();
  return PT ? pinnedOf(PT->getPointeeType()) : nullptr;
}

RootShape rootShape(const Model &M, QualType T) {
  RootShape R;
  if (T.isNull())
    return R;
  ArrayShape A = stripArrays(T);
  R.Count = A.Count;
  R.VLA = A.Variable;
  // `_Atomic(struct node *) top;` (a lock-free stack's head): the switch
  // rewrites it while every thread is stopped, as any other root.
  if (const auto *AT = A.Element->getAs<AtomicType>())
    A.Element = AT->getValueType().getCanonicalType();
  if ((R.T = M.pointeeOf(A.Element)))
    R.Kind = "CP_ROOT_POINTER";
  else if ((R.T = M.recordOf(A.Element)) || (R.T = M.pinnedOf(A.Element)))
    R.Kind = "CP_ROOT_VALUE";
  if (R.Count == 0)
    R.Kind = nullptr;
  return R;
}

void EngineDiagSink::report(DiagnosticsEngine::Level L, SourceLocation Loc,
                            StringRef Msg, ArrayRef<CharSourceRange> Ranges,
                            ArrayRef<FixItHint> Fixits) {
  std::string Text = Msg.str();
  if (Expanded && Loc.isValid()) {
    // Inside a spelled-out expansion: at its invocation, which has the
    // same line and column in the parsed text as in the user's file.
    const SourceManager &SM = Diags.getSourceManager();
    auto [FID, Off] = SM.getDecomposedLoc(SM.getFileLoc(Loc));
    OptionalFileEntryRef FE = SM.getFileEntryRefForID(FID);
    for (const ExpandedFile &F : *Expanded)
      if (FE && FE->getName() == F.Name)
        if (unsigned B = F.expansionBegin(Off); B != ~0u) {
          Text += F.producedNote(Off);
          Loc = SM.getLocForStartOfFile(FID).getLocWithOffset(B);
        }
  }
  unsigned ID = Diags.getCustomDiagID(L, "%0");
  auto DB = Diags.Report(Loc, ID);
  DB << Text;
  for (const auto &R : Ranges)
    DB << R;
  for (const auto &F : Fixits)
    DB << F;
}

namespace {
struct DiagRow {
  const char *Name;
  bool Warning;
};
constexpr DiagRow DiagRows[] = {
#define CP_DIAG(Id, Name, Level, Advise) {Name, #Level[0] == 'w'},
#include "Diagnostics.def"
};
} // namespace

const char *diagName(Diag D) { return DiagRows[(unsigned)D].Name; }
bool diagIsWarning(Diag D) { return DiagRows[(unsigned)D].Warning; }

bool Options::addWarningFlag(StringRef Flag, std::string &Err) {
  WarningState St = WarningState::Default;
  StringRef Name = Flag;
  if (Name.consume_front("no-error="))
    St = WarningState::Warning;
  else if (Name.consume_front("error="))
    St = WarningState::Error;
  else if (Name.consume_front("no-"))
    St = WarningState::Ignored;
  if (Name != "compactptr" && !Name.consume_front("compactptr-")) {
    Err = "'-W" + Flag.str() + "' is not a compactptr warning flag";
    return false;
  }
  if (Name == "compactptr")
    Name = "";
  bool Known = Name.empty();
  for (const DiagRow &R : DiagRows)
    Known |= R.Warning && Name == R.Name;
  if (!Known) {
    Err = "unknown warning '-W" + Flag.str() + "' (compactptr warnings:";
    for (const DiagRow &R : DiagRows)
      if (R.Warning)
        Err += std::string(" ") + R.Name;
    Err += ")";
    return false;
  }
  Warnings.push_back({Name.str(), St});
  return true;
}

WarningState Options::warningState(Diag D) const {
  WarningState St = WarningState::Default;
  for (const auto &[Name, F] : Warnings) {
    if (!Name.empty() && Name != diagName(D))
      continue;
    switch (F) {
    case WarningState::Default: // -Wcompactptr-X: on again
      if (St == WarningState::Ignored)
        St = WarningState::Warning;
      break;
    case WarningState::Warning: // -Wno-error=compactptr-X: never an error
      if (St != WarningState::Ignored)
        St = WarningState::Warning;
      break;
    default:
      St = F;
    }
  }
  return St;
}

bool Session::report(Diag D, SourceLocation Loc, StringRef Msg,
                     ArrayRef<CharSourceRange> Ranges, ArrayRef<FixItHint> Fixits) {
  std::string Text = Msg.str();
  DiagnosticsEngine::Level L = DiagnosticsEngine::Error;
  if (diagIsWarning(D)) {
    WarningState St = Opts.warningState(D);
    if (St == WarningState::Ignored || Opts.NoWarnings)
      return false;
    if (St == WarningState::Default && Opts.WarningsAsErrors)
      St = WarningState::Error;
    bool AsError = St == WarningState::Error;
    L = AsError ? DiagnosticsEngine::Error : DiagnosticsEngine::Warning;
    Text += std::string(" [") + (AsError ? "-Werror," : "") + "-Wcompactptr-" +
            diagName(D) + "]";
  }
  if (L == DiagnosticsEngine::Error) {
    // One error per construct: the rewrite may meet a construct Safety
    // refused already, or print it in two bodies.
    ++Errors;
    if (Loc.isValid()) {
      auto [FID, Off] = SM.getDecomposedExpansionLoc(Loc);
      for (const auto &[F, R] : ErrorRanges)
        if (F == FID && Off >= R.first && Off <= R.second)
          return false;
      unsigned End = Off;
      if (!Ranges.empty() && Ranges[0].isValid()) {
        auto [EF, EO] = SM.getDecomposedExpansionLoc(Ranges[0].getEnd());
        if (EF == FID && EO >= Off)
          End = EO;
      }
      ErrorRanges.push_back({FID, {Off, End}});
    }
  }
  Sink.report(L, Loc, Text, Ranges, Fixits);
  return true;
}

void Session::note(SourceLocation Loc, StringRef Msg, ArrayRef<FixItHint> Fixits) {
  Sink.report(DiagnosticsEngine::Note, Loc, Msg, {}, Fixits);
}

bool Session::isIgnoredLoc(SourceLocation Loc) const {
  if (Loc.isInvalid())
    return true;
  SourceLocation E = SM.getExpansionLoc(Loc);
  if (SM.isInSystemHeader(E))
    return true;
  return SM.getFileID(E).isInvalid() || !SM.getFileEntryRefForID(SM.getFileID(E));
}

unsigned Session::nextTokenOffset(FileID FID, unsigned Off) const {
  StringRef T = SM.getBufferData(FID);
  bool LineStart = false; // only blanks since the last newline
  while (Off < T.size()) {
    char C = T[Off];
    if (C == '\n') {
      LineStart = true;
      ++Off;
    } else if (C == ' ' || C == '\t' || C == '\r' || C == '\f' || C == '\v') {
      ++Off;
    } else if (T.substr(Off).starts_with("//")) {
      Off = std::min(T.size(), T.find('\n', Off));
    } else if (T.substr(Off).starts_with("/*")) {
      size_t E = T.find("*/", Off + 2);
      Off = E == StringRef::npos ? T.size() : E + 2;
    } else if (C == '#' && LineStart) {
      // A directive, continued lines included.
      while (Off < T.size() && T[Off] != '\n')
        Off += T[Off] == '\\' && Off + 1 < T.size() && T[Off + 1] == '\n' ? 2 : 1;
    } else {
      // The text of a skipped block is not a token of the program.
      auto In = llvm::find_if(Skipped, [&](SourceRange R) {
        auto [BF, B] = SM.getDecomposedLoc(R.getBegin());
        auto [EF, E] = SM.getDecomposedLoc(R.getEnd());
        return BF == FID && EF == FID && B <= Off && Off < E;
      });
      if (In == Skipped.end())
        return Off;
      Off = SM.getFileOffset(In->getEnd());
      LineStart = false;
    }
  }
  return Off;
}

std::vector<StringRef> directiveLines(StringRef Text) {
  std::vector<StringRef> Out;
  for (size_t I = Text.find('\n'); I != StringRef::npos; I = Text.find('\n', I + 1)) {
    StringRef Line = Text.drop_front(I + 1).split('\n').first.trim();
    if (Line.starts_with("#"))
      Out.push_back(Line);
  }
  return Out;
}

PrintingPolicy Session::policy() const {
  PrintingPolicy P(LO);
  P.SuppressTagKeyword = false;
  P.Bool = false;
  return P;
}

std::string Session::typeText(QualType T) const {
  return T.getAsString(policy());
}

std::string Session::descRef(const CompactType &T, const FunctionDecl *FD) {
  std::string Ref = "&" + T.DescName;
  const RecordDecl *Def = T.RD ? T.RD->getDefinition() : nullptr;
  if (!FD || !Def || !DescDeclared.insert({FD, &T}).second)
    return Ref;
  SourceLocation Begin = SM.getExpansionLoc(FD->getBeginLoc());
  if (!SM.isBeforeInTranslationUnit(Begin,
                                    SM.getExpansionLoc(Def->getLocation())))
    return Ref;
  auto [FID, Off] = SM.getDecomposedLoc(Begin);
  Edits.insert(FID, beforeAttributes(SM, FD, FID, Off),
               "static cp_type_desc_t " + T.DescName + "; ");
  return Ref;
}

unsigned beforeAttributes(const SourceManager &SM, const Decl *D, FileID FID,
                          unsigned Off) {
  // A C23 `[[gnu::constructor]]` ahead of `static` is not in D's range,
  // and would apply to a declaration inserted after it.
  for (const Attr *A : D->attrs()) {
    if (A->isImplicit() || A->getRange().isInvalid())
      continue;
    auto [AF, AO] = SM.getDecomposedExpansionLoc(A->getRange().getBegin());
    if (AF == FID && AO < Off)
      Off = AO;
  }
  StringRef Text = SM.getBufferData(FID);
  for (unsigned O = Off; O > 0;) {
    while (O > 0 && isWhitespace(Text[O - 1]))
      --O;
    if (O < 2 || Text.substr(O - 2, 2) != "[[")
      break;
    Off = O -= 2;
  }
  return Off;
}

std::string lineDirective(unsigned Line, StringRef File) {
  std::string S = "#line " + std::to_string(Line) + " \"";
  for (char C : File) {
    if (C == '\\' || C == '"')
      S += '\\';
    S += C;
  }
  S += "\"\n";
  return S;
}

std::string withoutComments(const Session &S, FileID FID,
                            const std::string &Text) {
  SourceLocation Start = S.SM.getLocForStartOfFile(FID);
  Lexer L(Start, S.LO, Text.data(), Text.data(), Text.data() + Text.size());
  L.SetCommentRetentionState(true);
  std::string Out;
  unsigned Done = 0;
  Token Tok;
  while (!L.LexFromRawLexer(Tok) || Tok.is(tok::comment)) {
    if (!Tok.is(tok::comment))
      continue;
    unsigned Off = Tok.getLocation().getRawEncoding() - Start.getRawEncoding();
    StringRef Comment(Text.data() + Off, Tok.getLength());
    Out.append(Text, Done, Off - Done);
    // A comment over several lines leaves their line ends spliced: lines
    // stay the user's, and a directive it sat in (`#define W 2 /* ...
    // */ + 3`) stays one.
    Out += " ";
    for (size_t Lines = Comment.count('\n'); Lines; --Lines)
      Out += "\\\n";
    Done = Off + Tok.getLength();
  }
  Out.append(Text, Done);
  return Out;
}

bool runEngine(ASTContext &Ctx, const Options &O, DiagSink &Sink,
               ArrayRef<SourceRange> Skipped, std::vector<RewrittenFile> &Out,
               std::string *Plan, const ExpansionRecorder *Rec,
               std::vector<ExpandedFile> *Expanded) {
  Out.clear();
  forgetAllocatorRoles();
  Options Opts = O;
  Opts.DumpPlan = Plan != nullptr;
  const DiagnosticOptions &DO = Ctx.getDiagnostics().getDiagnosticOptions();
  if (!O.FlagsFromCompiler) {
    Opts.NoWarnings |= DO.IgnoreWarnings;
    for (const std::string &W : DO.Warnings) {
      if (W == "error")
        Opts.WarningsAsErrors = true;
      else if (W == "no-error")
        Opts.WarningsAsErrors = false;
    }
  }
  Session S(Ctx, Opts, Sink, Skipped);
  S.Rec = Rec;
  runAnalysis(S);
  // Functions that macros produce: the caller parses again with their
  // expansions spelled out, so nothing more is reported on this parse.
  if (Rec && Expanded && !S.M.Types.empty() && !S.Errors &&
      expandGenerators(S, *Rec, *Expanded))
    return false;
  if (!S.M.Types.empty())
    runBoxing(S);
  runSafety(S);
  // Errors in uses do not stop the run: the rewrite reports its own too,
  // so a file's errors come in one run.  Errors in the types do.
  if (S.TypeErrors) {
    reportHeldLayoutStored(S);
    return false;
  }
  if (S.M.Types.empty())
    return S.Errors == 0;
  runSlots(S);
  runInterior(S);
  runHandleRoots(S);
  runProvenance(S);
  runSignalHandlers(S);
  runLayout(S);
  reportHeldLayoutStored(S);
  if (S.TypeErrors)
    return false;
  runRewrite(S);
  if (Plan)
    *Plan = S.PlanText;
  if (S.Errors) {
    S.Edits.clear();
    return false;
  }
  runEmit(S, Out);
  if (S.Errors) {
    Out.clear();
    return false;
  }
  return true;
}

bool structEndsExpansion(const SourceManager &SM, const LangOptions &LO,
                         SourceLocation RBrace, bool &Semi) {
  Semi = false;
  if (Lexer::isAtEndOfMacroExpansion(RBrace, SM, LO))
    return true;
  // The next token of the macro's body: a `;` ending the expansion.
  // Tokens of one macro body expansion lie at the offsets they have in
  // the #define.
  SourceLocation Sp = SM.getSpellingLoc(RBrace);
  auto [FID, Off] = SM.getDecomposedLoc(Sp);
  StringRef After = SM.getBufferData(FID).substr(Off + 1);
  size_t Skip = 0;
  while (Skip < After.size()) {
    if (After[Skip] == ' ' || After[Skip] == '\t')
      ++Skip;
    else if (After.substr(Skip).starts_with("\\\n"))
      Skip += 2;
    else
      break;
  }
  if (Skip >= After.size() || After[Skip] != ';')
    return false;
  SourceLocation SemiLoc = RBrace.getLocWithOffset(Skip + 1);
  if (SM.getFileID(SemiLoc) != SM.getFileID(RBrace) ||
      SM.getSpellingLoc(SemiLoc) != Sp.getLocWithOffset(Skip + 1) ||
      !Lexer::isAtEndOfMacroExpansion(SemiLoc, SM, LO))
    return false;
  Semi = true;
  return true;
}

} // namespace compactptr
