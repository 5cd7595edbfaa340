//===- Plugin.cpp - compactptr.so: the clang plugin front end -------------===//
//
// Loaded with `clang -fplugin=compactptr.so`.  The attributes register in
// Attributes.cpp.  The action (AddBeforeMainAction) parses the same
// invocation once more, syntax only, in a nested CompilerInstance, runs the
// engine on that AST, and overrides every rewritten file in the outer
// compiler's SourceManager before the outer parse starts; the user's own
// action (-c, -S, -emit-llvm, -fsyntax-only, -MD, -g) then compiles the
// rewritten source.  The nested parse keeps quiet: its diagnostics are
// dropped (the outer parse reports them once), and the engine's own are
// recorded and replayed in the outer compiler at the user's locations when
// the outer parse is done.
//
// Options: -fplugin-arg-compactptr-mode=switchable|compact-only|wide
//            (default switchable)
//          -fplugin-arg-compactptr-auto-safepoints=on|off (default on: polls
//            at the loop back-edges of main in switchable mode)
//          -fplugin-arg-compactptr-dump=-|DIR  (rewritten text to stderr or
//                                               to DIR/<file name>)
//          -fplugin-arg-compactptr-plan=-      (the planner's decisions, per
//                                               function, to stderr)
//          -fplugin-arg-compactptr-W<flag>     (a warning flag as clang spells
//                                               it after -W: Wno-compactptr-X,
//                                               Werror=compactptr-X, ...)
// Tests: test/plugin/*.c.
//
//===----------------------------------------------------------------------===//
#include "Engine.h"
#include "clang/AST/ASTConsumer.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;
using namespace compactptr;

namespace {

/// True while the nested parse runs: the plugin, registered there too,
/// must not start another one.
thread_local bool InNested = false;

/// A file position independent of any SourceManager.
struct FilePos {
  OptionalFileEntryRef FE;
  unsigned Offset = 0;
  bool Valid = false;
};

struct RecordedDiag {
  DiagnosticsEngine::Level Level;
  FilePos Loc;
  std::string Msg;
  /// "expanded from macro 'M'" notes, innermost first, at the definitions.
  std::vector<std::pair<FilePos, std::string>> Macros;
  std::vector<std::pair<FilePos, FilePos>> Ranges;
  std::vector<std::pair<std::pair<FilePos, FilePos>, std::string>> Fixits;
};

/// Records the engine's diagnostics in the nested parse.
class RecordingSink : public DiagSink {
public:
  const SourceManager *SM = nullptr;
  std::vector<RecordedDiag> Diags;

  FilePos pos(SourceLocation L) const {
    FilePos P;
    if (L.isInvalid())
      return P;
    L = SM->getFileLoc(L);
    auto [FID, Off] = SM->getDecomposedLoc(L);
    P.FE = SM->getFileEntryRefForID(FID);
    P.Offset = Off;
    P.Valid = (bool)P.FE;
    return P;
  }

  void report(DiagnosticsEngine::Level L, SourceLocation Loc, StringRef Msg,
              ArrayRef<CharSourceRange> Ranges,
              ArrayRef<FixItHint> Fixits) override {
    RecordedDiag D;
    D.Level = L;
    D.Loc = pos(Loc);
    D.Msg = Msg.str();
    for (SourceLocation M = Loc; M.isMacroID();) {
      if (SM->isMacroArgExpansion(M)) {
        M = SM->getImmediateSpellingLoc(M);
        continue;
      }
      StringRef Name = Lexer::getImmediateMacroName(M, *SM, LangOptions());
      D.Macros.push_back({pos(SM->getSpellingLoc(M)), Name.str()});
      M = SM->getImmediateExpansionRange(M).getBegin();
    }
    for (const CharSourceRange &R : Ranges) {
      CharSourceRange F = R;
      if (R.isTokenRange()) // make it a char range in the nested SM
        F = CharSourceRange::getCharRange(
            R.getBegin(), Lexer::getLocForEndOfToken(SM->getFileLoc(R.getEnd()), 0,
                                                     *SM, LangOptions()));
      D.Ranges.push_back({pos(F.getBegin()), pos(F.getEnd())});
    }
    for (const FixItHint &H : Fixits) {
      CharSourceRange F = H.RemoveRange;
      if (F.isTokenRange())
        F = CharSourceRange::getCharRange(
            F.getBegin(), Lexer::getLocForEndOfToken(SM->getFileLoc(F.getEnd()), 0,
                                                     *SM, LangOptions()));
      D.Fixits.push_back({{pos(F.getBegin()), pos(F.getEnd())}, H.CodeToInsert});
    }
    Diags.push_back(std::move(D));
  }
};

/// Swallows every diagnostic of the nested parse.
class QuietConsumer : public DiagnosticConsumer {
  void HandleDiagnostic(DiagnosticsEngine::Level L, const Diagnostic &D) override {
    DiagnosticConsumer::HandleDiagnostic(L, D);
  }
};

struct NestedResult {
  bool Ran = false;
  bool Ok = true;
  std::vector<RewrittenFile> Files;
  bool WantPlan = false;
  std::string Plan;
};

class EngineConsumer : public ASTConsumer {
public:
  EngineConsumer(const Options &O, RecordingSink &Sink, NestedResult &R)
      : O(O), Sink(Sink), R(R) {}
  void HandleTranslationUnit(ASTContext &Ctx) override {
    if (Ctx.getDiagnostics().hasErrorOccurred())
      return; // the outer parse reports the program's own errors
    Sink.SM = &Ctx.getSourceManager();
    R.Ran = true;
    R.Ok = runEngine(Ctx, O, Sink, R.Files, R.WantPlan ? &R.Plan : nullptr);
  }

private:
  const Options &O;
  RecordingSink &Sink;
  NestedResult &R;
};

/// Preprocesses the translation unit and stops at the first `compact`
/// identifier (what CP_COMPACT and [[compactptr::compact]] expand to).  A
/// TU without one has no compact type: the full nested parse is skipped.
class ScanAction : public PreprocessorFrontendAction {
public:
  bool Found = false;

protected:
  void ExecuteAction() override {
    Preprocessor &PP = getCompilerInstance().getPreprocessor();
    PP.EnterMainSourceFile();
    Token Tok;
    do {
      PP.Lex(Tok);
      if (Tok.is(tok::identifier) && Tok.getIdentifierInfo()->getName() == "compact") {
        Found = true;
        return;
      }
    } while (Tok.isNot(tok::eof));
  }
};

class NestedAction : public ASTFrontendAction {
public:
  NestedAction(const Options &O, RecordingSink &Sink, NestedResult &R)
      : O(O), Sink(Sink), R(R) {}
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &,
                                                 StringRef) override {
    return std::make_unique<EngineConsumer>(O, Sink, R);
  }

private:
  const Options &O;
  RecordingSink &Sink;
  NestedResult &R;
};

/// In the outer compile: replays the engine's diagnostics once the outer
/// parse has seen every file (so #line notes and include stacks exist).
class ReplayConsumer : public ASTConsumer {
public:
  ReplayConsumer(CompilerInstance &CI, std::vector<RecordedDiag> Diags,
                 std::vector<RewrittenFile> Files)
      : CI(CI), Diags(std::move(Diags)), Files(std::move(Files)) {
    // The user's text of every rewritten file, read before the override.
    for (const RewrittenFile &F : this->Files)
      if (F.FE)
        if (auto B = CI.getFileManager().getBufferForFile(*F.FE))
          Originals[F.FE->getUniqueID()] = {std::move(*B), FileID()};
  }

  void HandleTranslationUnit(ASTContext &) override {
    SourceManager &SM = CI.getSourceManager();
    DiagnosticsEngine &DE = CI.getDiagnostics();
    // A diagnostic in a rewritten file points at the user's text: a copy
    // of the original buffer under the file's name, so its line, column
    // and snippet are the user's (the compiled text is the rewritten one).
    auto loc = [&](const FilePos &P) -> SourceLocation {
      if (!P.Valid)
        return SourceLocation();
      auto It = Originals.find(P.FE->getUniqueID());
      if (It != Originals.end()) {
        auto &[Buf, FID] = It->second;
        if (FID.isInvalid())
          FID = SM.createFileID(llvm::MemoryBuffer::getMemBufferCopy(
              Buf->getBuffer(), P.FE->getName()));
        return SM.getLocForStartOfFile(FID).getLocWithOffset(P.Offset);
      }
      FileID FID = SM.translateFile(*P.FE);
      if (FID.isInvalid())
        FID = SM.getOrCreateFileID(*P.FE, SrcMgr::C_User);
      return SM.getLocForStartOfFile(FID).getLocWithOffset(P.Offset);
    };
    for (const RecordedDiag &D : Diags) {
      {
        unsigned ID = DE.getCustomDiagID(D.Level, "%0");
        auto DB = DE.Report(loc(D.Loc), ID);
        DB << D.Msg;
        for (const auto &R : D.Ranges)
          DB << CharSourceRange::getCharRange(loc(R.first), loc(R.second));
        for (const auto &F : D.Fixits)
          DB << FixItHint::CreateReplacement(
              CharSourceRange::getCharRange(loc(F.first.first), loc(F.first.second)),
              F.second);
      } // emitted here, before its notes
      // clang's own macro backtraces are part of a diagnostic's rendering,
      // which -verify does not see; these notes are diagnostics, so -verify
      // runs leave them out likewise.
      if (CI.getDiagnosticOpts().VerifyDiagnostics)
        continue;
      unsigned Note = DE.getCustomDiagID(DiagnosticsEngine::Note,
                                         "expanded from macro '%0'");
      for (const auto &[Pos, Name] : D.Macros)
        DE.Report(loc(Pos), Note) << Name;
    }
  }

private:
  CompilerInstance &CI;
  std::vector<RecordedDiag> Diags;
  std::vector<RewrittenFile> Files;
  std::map<llvm::sys::fs::UniqueID,
           std::pair<std::unique_ptr<llvm::MemoryBuffer>, FileID>>
      Originals;
};

class CompactPtrAction : public PluginASTAction {
public:
  bool ParseArgs(const CompilerInstance &CI,
                 const std::vector<std::string> &Args) override {
    DiagnosticsEngine &D = CI.getDiagnostics();
    unsigned Bad = D.getCustomDiagID(DiagnosticsEngine::Error,
                                     "compactptr: %0 (options: "
                                     "-fplugin-arg-compactptr-mode=switchable|"
                                     "compact-only|wide, "
                                     "-fplugin-arg-compactptr-auto-safepoints=on|off, "
                                     "-fplugin-arg-compactptr-dump=-|DIR, "
                                     "-fplugin-arg-compactptr-plan=-, "
                                     "-fplugin-arg-compactptr-W[no-][error=]compactptr[-NAME])");
    for (const std::string &A : Args) {
      StringRef Name = StringRef(A).split('=').first;
      StringRef Value = StringRef(A).split('=').second;
      if (Name == "mode") {
        if (!Options::parseMode(Value, Opts.TheMode)) {
          D.Report(Bad) << ("unknown mode '" + Value.str() + "'");
          return false;
        }
      } else if (Name == "auto-safepoints") {
        if (Value != "on" && Value != "off") {
          D.Report(Bad) << ("auto-safepoints must be 'on' or 'off', not '" +
                            Value.str() + "'");
          return false;
        }
        Opts.AutoSafepoints = Value == "on";
      } else if (Name == "dump" && !Value.empty()) {
        Dump = Value.str();
      } else if (Name == "plan" && Value == "-") {
        Plan = true;
      } else if (StringRef(A).starts_with("W")) {
        // Warning flags, as clang spells them after -W; clang itself
        // cannot take -Wcompactptr-* (plugins add no warning groups).
        std::string Err;
        if (!Opts.addWarningFlag(StringRef(A).drop_front(), Err)) {
          D.Report(Bad) << Err;
          return false;
        }
      } else {
        D.Report(Bad) << ("unknown option '" + A + "'");
        return false;
      }
    }
    return true;
  }

  ActionType getActionType() override { return AddBeforeMainAction; }

  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 StringRef InFile) override {
    if (InNested || CI.getLangOpts().CPlusPlus || CI.getLangOpts().ObjC)
      return std::make_unique<ASTConsumer>();
    RecordingSink Sink;
    NestedResult R;
    R.WantPlan = Plan;
    // The nested parse is quiet: take -w and -Werror from this one.
    const DiagnosticOptions &DO = CI.getDiagnosticOpts();
    Opts.FlagsFromCompiler = true;
    Opts.NoWarnings = DO.IgnoreWarnings;
    for (const std::string &W : DO.Warnings)
      if (W == "error" || W == "no-error")
        Opts.WarningsAsErrors = W == "error";
    runNested(CI, Sink, R);
    if (Plan)
      llvm::errs() << R.Plan;
    for (const RewrittenFile &F : R.Files)
      if (!F.FE) { // standard input or a virtual buffer: no file to override
        CI.getDiagnostics().Report(CI.getDiagnostics().getCustomDiagID(
            DiagnosticsEngine::Error,
            "compactptr: cannot rewrite '%0' (not a file); compile from a "
            "file or use compactptr-rewrite"))
            << F.Name;
        R.Ok = false;
      }
    if (R.Ok && !R.Files.empty()) {
      overrideFiles(CI, R.Files);
      dump(R.Files);
    }
    return std::make_unique<ReplayConsumer>(
        CI, std::move(Sink.Diags),
        R.Ok ? std::move(R.Files) : std::vector<RewrittenFile>());
  }

private:
  Options Opts = [] {
    Options O;
    O.TheMode = Mode::Switchable; // the plugin's default build mode
    return O;
  }();
  std::string Dump;
  bool Plan = false;

  /// A quiet compiler for the same invocation, syntax only.
  std::unique_ptr<CompilerInstance> nestedCompiler(CompilerInstance &CI) {
    auto Inv = std::make_shared<CompilerInvocation>(CI.getInvocation());
    FrontendOptions &FO = Inv->getFrontendOpts();
    FO.ProgramAction = frontend::ParseSyntaxOnly;
    FO.OutputFile.clear();
    FO.AddPluginActions.clear();
    FO.ShowStats = false;
    FO.TimeTracePath.clear();
    Inv->getDependencyOutputOpts() = DependencyOutputOptions();
    DiagnosticOptions &DO = Inv->getDiagnosticOpts();
    DO.VerifyDiagnostics = false;
    DO.ShowCarets = false;
    DO.Warnings.push_back("no-everything");

    auto Nested = std::make_unique<CompilerInstance>(CI.getPCHContainerOperations());
    Nested->setInvocation(std::move(Inv));
    Nested->setFileManager(&CI.getFileManager());
    Nested->createDiagnostics(new QuietConsumer, /*ShouldOwnClient=*/true);
    Nested->getDiagnostics().setIgnoreAllWarnings(true);
    return Nested;
  }

  void runNested(CompilerInstance &CI, RecordingSink &Sink, NestedResult &R) {
    InNested = true;
    ScanAction Scan;
    nestedCompiler(CI)->ExecuteAction(Scan);
    if (Scan.Found) {
      NestedAction A(Opts, Sink, R);
      nestedCompiler(CI)->ExecuteAction(A);
    }
    InNested = false;
  }

  void overrideFiles(CompilerInstance &CI, const std::vector<RewrittenFile> &Files) {
    SourceManager &SM = CI.getSourceManager();
    for (const RewrittenFile &F : Files) {
      if (!F.FE)
        continue;
      SM.overrideFileContents(
          *F.FE, llvm::MemoryBuffer::getMemBufferCopy(F.Text, F.FE->getName()));
      if (F.IsMain) // the main FileID was sized for the original text
        SM.setMainFileID(SM.createFileID(*F.FE, SourceLocation(), SrcMgr::C_User));
    }
  }

  void dump(const std::vector<RewrittenFile> &Files) {
    if (Dump.empty())
      return;
    for (const RewrittenFile &F : Files) {
      if (Dump == "-") {
        llvm::errs() << "// ===== compactptr: " << F.Name << " =====\n" << F.Text;
        continue;
      }
      llvm::sys::fs::create_directories(Dump);
      SmallString<256> P(Dump);
      llvm::sys::path::append(P, llvm::sys::path::filename(F.Name));
      std::error_code EC;
      llvm::raw_fd_ostream OS(P, EC);
      if (!EC)
        OS << F.Text;
    }
  }
};

} // namespace

static int Anchor = compactptr::attributesAnchor();

static FrontendPluginRegistry::Add<CompactPtrAction>
    Register("compactptr", "rewrite compact types to 32-bit handles");
