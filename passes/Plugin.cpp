//===- Plugin.cpp - compactptr.so: the clang plugin front end -------------===//
//
// Loaded with `clang -fplugin=compactptr.so`.  The attributes register in
// Attributes.cpp.  The action (AddBeforeMainAction) parses the same
// invocation once more, syntax only, in a nested CompilerInstance, runs the
// engine on that AST, and overrides every rewritten file in the outer
// compiler's SourceManager before the outer parse starts; the user's own
// action (-c, -S, -emit-llvm, -fsyntax-only, -MD, -g) then compiles the
// rewritten source.  Every diagnostic comes from the nested parse, on the
// user's text: clang's own and the engine's are recorded there and
// replayed in the outer compiler when its parse is done (Replay.h), and
// the outer compile's own warnings, about rewritten text, are ignored.
// Where macros produce whole functions that use compact types, the nested
// parse runs twice: the second reads the files with those invocations
// spelled out (GeneratorMacros.cpp), and the outer compile reads them too.
//
// Options: -fplugin-arg-compactptr-mode=switchable|compact-only|wide
//            (default switchable)
//          -fplugin-arg-compactptr-auto-safepoints=on|off (default on: polls
//            in the loops of main and in spin loops, switchable mode)
//          -fplugin-arg-compactptr-dump=-|DIR  (rewritten text to stderr or
//                                               to DIR/<file name>)
//          -fplugin-arg-compactptr-plan=-      (the planner's decisions, per
//                                               function, to stderr)
//          -fplugin-arg-compactptr-W<flag>     (a warning flag as clang spells
//                                               it after -W: Wno-compactptr-X,
//                                               Werror=compactptr-X, ...)
//          -fplugin-arg-compactptr-preprocess=FILE|-  (also print the
//            rewritten, preprocessed C, as -E would; what compactptr-cc -E
//            runs, since clang gives plugins no hook in -E itself)
//
// Guards (each a small function below): the host clang's version is
// checked when the library loads, the target when the plugin starts, and
// `-plugin compactptr` (which would replace code generation) is refused.
// Tests: test/plugin/*.c, test/toolchain/*.
//
//===----------------------------------------------------------------------===//
#include "Engine.h"
#include "Replay.h"
#include "Vocabulary.h"
#include "clang/AST/ASTConsumer.h"
#include "clang/Basic/Version.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "clang/Frontend/Utils.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"
#include <cstdio>
#include <unistd.h>

using namespace clang;
using namespace compactptr;

namespace {

/// compactptr.so calls clang's C++ API, which changes with every major
/// version: loaded into another clang it would stop at the first missing
/// symbol with a dynamic linker error.  This runs before anything else in
/// the library (constructor priority), calls only getClangFullVersion(),
/// which every clang exports with the same signature, and stops a clang of
/// another major version with one line.
__attribute__((constructor(101))) void checkHostClang() {
  std::string Full = getClangFullVersion();
  StringRef V = StringRef(Full).split("version ").second;
  V = V.take_while([](char C) { return isDigit(C) || C == '.'; });
  unsigned Major = 0;
  if (V.split('.').first.getAsInteger(10, Major) || Major == CLANG_VERSION_MAJOR)
    return;
  char Exe[4096];
  ssize_t N = readlink("/proc/self/exe", Exe, sizeof Exe - 1);
  Exe[N > 0 ? N : 0] = 0;
  std::fprintf(stderr, "compactptr.so needs clang %d.x; found clang %s at %s\n",
               CLANG_VERSION_MAJOR, V.str().c_str(), N > 0 ? Exe : "(unknown)");
  std::fflush(stderr);
  _exit(1);
}

/// The handles replace 64-bit pointers and the runtime is x86-64 Linux
/// code: any other target would build objects that call the wrong runtime.
bool checkTarget(const CompilerInstance &CI) {
  if (!CI.hasTarget())
    return true;
  const llvm::Triple &T = CI.getTarget().getTriple();
  if (T.getArch() == llvm::Triple::x86_64 && T.isOSLinux() && !T.isX32())
    return true;
  DiagnosticsEngine &D = CI.getDiagnostics();
  D.Report(D.getCustomDiagID(DiagnosticsEngine::Error,
                             "compactptr: target '%0' is not supported; "
                             "compactptr builds for x86-64 Linux only"))
      << T.str();
  return false;
}

/// `-Xclang -plugin -Xclang compactptr` makes a plugin *replace* code
/// generation; compactptr rewrites and then lets the user's action (-c,
/// -S, ...) compile, so that form would build nothing.  Clang finds the
/// first entry of that name for -plugin, so this one is registered before
/// the real action; for -fplugin= and -add-plugin it stays inactive.
class PluginFlagRefusal : public PluginASTAction {
public:
  ActionType getActionType() override { return CmdlineAfterMainAction; }
  bool ParseArgs(const CompilerInstance &CI,
                 const std::vector<std::string> &) override {
    const FrontendOptions &FO = CI.getFrontendOpts();
    if (FO.ProgramAction == frontend::PluginAction && FO.ActionName == "compactptr") {
      DiagnosticsEngine &D = CI.getDiagnostics();
      D.Report(D.getCustomDiagID(
          DiagnosticsEngine::Error,
          "compactptr: '-plugin compactptr' replaces code generation; load "
          "compactptr.so with -fplugin=compactptr.so (or -Xclang -load "
          "-Xclang compactptr.so -Xclang -add-plugin -Xclang compactptr)"));
    }
    return false;
  }
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &,
                                                 StringRef) override {
    return std::make_unique<ASTConsumer>();
  }
};

/// True while the nested parse runs: the plugin, registered there too,
/// must not start another one.
thread_local bool InNested = false;

/// compactptr.h redeclares free and realloc with the assembler names of
/// the runtime's cp_free_any and cp_realloc_any, which clang refuses after
/// a first use: a header included before it with an inline function that
/// calls free (<immintrin.h> through <mm_malloc.h>, header-only libraries)
/// made every compile fail inside compactptr.h.  So the compile of a
/// translation unit with compact types declares them first, before the
/// files of -include (including the header itself first would read the
/// system's feature macros before the program's own `#define
/// _GNU_SOURCE`); the header's own declarations then agree.  The nested
/// parse, which runs where the main file may have compact types, declares
/// them too, so it parses what the compile will.  No macro in them: -E
/// output starts with the same text.
const char *const HookDeclarations =
    "extern void free(void *) __asm__(\"cp_free_any\");\n"
    "extern void *realloc(void *, __typeof__(sizeof 0)) __asm__(\"cp_realloc_any\");\n";

/// The hooks first, in a parse that has not entered the main file yet:
/// after the macros of the command line, before the files of -include.
void declareHooksFirst(Preprocessor &PP) {
  std::string P = PP.getPredefines();
  size_t At = P.find("#include \"");
  if (At == std::string::npos)
    At = P.size();
  P.insert(At, std::string("#ifndef COMPACTPTR_NO_FREE_HOOK\n") + HookDeclarations +
                   "#endif\n");
  PP.setPredefines(P);
}

/// Swallows every diagnostic of a nested compile whose diagnostics are
/// not the user's concern (the scan for compact types, the -E printer).
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
  std::vector<SourceRange> Skipped; ///< recorded by SkippedText
  /// The first parse records macro expansions; if macros produce
  /// functions that use compact types, Expanded holds the files to parse
  /// again with those expansions spelled out (GeneratorMacros.cpp).
  ExpansionRecorder Rec;
  std::vector<ExpandedFile> Expanded;
  bool Again = false; ///< this parse reads the expanded files
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
    R.Ok = runEngine(Ctx, O, Sink, R.Skipped, R.Files, R.WantPlan ? &R.Plan : nullptr,
                     &R.Rec, R.Again ? nullptr : &R.Expanded);
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
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 StringRef) override {
    CI.getPreprocessor().addPPCallbacks(std::make_unique<SkippedText>(R.Skipped));
    R.Rec = ExpansionRecorder();
    R.Rec.attach(CI.getPreprocessor());
    declareHooksFirst(CI.getPreprocessor());
    return std::make_unique<EngineConsumer>(O, Sink, R);
  }

private:
  const Options &O;
  RecordingSink &Sink;
  NestedResult &R;
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
                                     "-fplugin-arg-compactptr-W[no-][error=]compactptr[-NAME], "
                                     "-fplugin-arg-compactptr-preprocess=FILE|-)");
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
      } else if (Name == "preprocess" && !Value.empty()) {
        Preprocess = Value.str();
      } else {
        D.Report(Bad) << ("unknown option '" + A + "'");
        return false;
      }
    }
    return checkTarget(CI);
  }

  ActionType getActionType() override { return AddBeforeMainAction; }

  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 StringRef InFile) override {
    if (InNested)
      return std::make_unique<ASTConsumer>();
    if (CI.getLangOpts().CPlusPlus || CI.getLangOpts().ObjC) {
      printPreprocessed(CI, {}, false); // C++ and Objective-C are left alone
      return std::make_unique<ASTConsumer>();
    }
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
    // The nested parse reports clang's own diagnostics on the user's text.
    ClangDiagRecorder Clang(CI.getDiagnosticOpts().ShowOptionNames);
    runNested(CI, Sink, R, Clang);
    if (!R.Files.empty()) // rewritten: it has compact types
      declareHooksFirst(CI.getPreprocessor());
    if (Plan)
      llvm::errs() << R.Plan;
    if (!R.Files.empty() && !refusePreprocessedInput(CI))
      R.Ok = false;
    if (R.Files.empty())
      warnPreprocessedWithoutPlugin(CI);
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
      // A decode wraps its operand in four to five levels of parentheses:
      // a chain of 60 `->next`, within clang's 256 levels as written, is
      // past them rewritten.  Half as many again: clang's parser has no
      // stack guard for parentheses, and on an 8 MiB stack it crashed at
      // about 520 levels (a chain of 120), so the limit cannot go much
      // further.  compactptr-cc raises the compile of a split build's
      // rewritten .i the same way.
      CI.getLangOpts().BracketDepth = CI.getLangOpts().BracketDepth * 3 / 2;
      overrideFiles(CI, R.Files);
      dump(CI, R.Files);
    }
    if (R.Ok)
      printPreprocessed(CI, R.Files, !R.Files.empty());
    // Rewritten: this compile's warnings would be about generated text, at
    // its columns; the nested parse's, recorded on the user's text, are
    // replayed instead (warnings of code generation are lost with them).
    // Not rewritten: this compile sees the user's text and reports itself.
    std::vector<RecordedDiag> Diags;
    if (R.Ok && !R.Files.empty()) {
      CI.getDiagnostics().setIgnoreAllWarnings(true);
      // ... so the generated code's `-Weverything` pragmas, which cost as
      // much as the rest of its parse, are left out (CP__QUIET_BEGIN).
      Preprocessor &PP = CI.getPreprocessor();
      PP.setPredefines(PP.getPredefines() + "#define " + WarningsIgnoredMacro + " 1\n");
      Diags = std::move(Clang.Sink.Diags);
    }
    Diags.insert(Diags.end(), std::make_move_iterator(Sink.Diags.begin()),
                 std::make_move_iterator(Sink.Diags.end()));
    return std::make_unique<ReplayConsumer>(
        CI, std::move(Diags),
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
  std::string Preprocess;

  /// A compiler for the same invocation, syntax only, whose diagnostics go
  /// to Client; without one it is quiet.
  std::unique_ptr<CompilerInstance> nestedCompiler(CompilerInstance &CI,
                                                   DiagnosticConsumer *Client = nullptr) {
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
    if (!Client)
      DO.Warnings.push_back("no-everything");

    auto Nested = std::make_unique<CompilerInstance>(CI.getPCHContainerOperations());
    Nested->setInvocation(std::move(Inv));
    Nested->setFileManager(&CI.getFileManager());
    if (Client) {
      Nested->createDiagnostics(Client, /*ShouldOwnClient=*/false);
    } else {
      Nested->createDiagnostics(new QuietConsumer, /*ShouldOwnClient=*/true);
      Nested->getDiagnostics().setIgnoreAllWarnings(true);
    }
    return Nested;
  }

  void runNested(CompilerInstance &CI, RecordingSink &Sink, NestedResult &R,
                 ClangDiagRecorder &Clang) {
    InNested = true;
    bool Found = mainFileNamesCompact(CI);
    if (!Found) {
      ScanAction Scan;
      nestedCompiler(CI)->ExecuteAction(Scan);
      Found = Scan.Found;
    }
    if (Found) {
      NestedAction A(Opts, Sink, R);
      nestedCompiler(CI, &Clang)->ExecuteAction(A);
    }
    if (!R.Expanded.empty())
      parseExpanded(CI, Sink, R, Clang);
    InNested = false;
  }

  /// The parse again, of the files with generator macros expanded: what
  /// the first one reported is dropped (this one reports it again, at the
  /// same places), and the outer compile gets the expanded text too.
  void parseExpanded(CompilerInstance &CI, RecordingSink &Sink, NestedResult &R,
                     ClangDiagRecorder &Clang) {
    Sink.Diags.clear();
    Clang.Sink.Diags.clear();
    Sink.Expanded = Clang.Sink.Expanded = &R.Expanded;
    R.Files.clear();
    R.Skipped.clear();
    R.Plan.clear();
    R.Ran = false;
    R.Ok = true;
    R.Again = true;
    auto N = nestedCompiler(CI, &Clang);
    N->createSourceManager(N->getFileManager());
    for (const ExpandedFile &F : R.Expanded)
      N->getSourceManager().overrideFileContents(
          *F.FE, llvm::MemoryBuffer::getMemBufferCopy(F.Text, F.FE->getName()));
    NestedAction A(Opts, Sink, R);
    N->ExecuteAction(A);
    if (!R.Ok)
      return;
    for (const ExpandedFile &F : R.Expanded) {
      bool Rewritten = false;
      for (const RewrittenFile &RF : R.Files)
        Rewritten |= RF.FE && RF.FE->getUniqueID() == F.FE->getUniqueID();
      if (Rewritten)
        continue;
      RewrittenFile RF;
      RF.FE = F.FE;
      RF.Name = F.Name;
      RF.Text = F.Text;
      RF.IsMain = F.FE->getUniqueID() ==
                  CI.getSourceManager().getFileEntryRefForID(
                      CI.getSourceManager().getMainFileID())->getUniqueID();
      R.Files.push_back(std::move(RF));
    }
  }

  /// The scan preprocesses every header before the first `compact`: as
  /// much lexing as the nested parse does again.  A main file whose own
  /// text names `compact` or `CP_COMPACT` (raw tokens: no comment or
  /// string) is parsed without it.  A false positive costs only time: a
  /// parse that finds no compact type rewrites nothing.
  static bool mainFileNamesCompact(CompilerInstance &CI) {
    SourceManager &SM = CI.getSourceManager();
    FileID Main = SM.getMainFileID();
    if (Main.isInvalid())
      return false;
    llvm::MemoryBufferRef Buf = SM.getBufferOrFake(Main);
    Lexer L(SM.getLocForStartOfFile(Main), CI.getLangOpts(), Buf.getBufferStart(),
            Buf.getBufferStart(), Buf.getBufferEnd());
    Token Tok;
    do {
      L.LexFromRawLexer(Tok);
      if (Tok.is(tok::raw_identifier) && (Tok.getRawIdentifier() == "compact" ||
                                          Tok.getRawIdentifier() == CP_COMPACT_MACRO))
        return true;
    } while (Tok.isNot(tok::eof));
    return false;
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

  /// A .i with compact types (clang -E with the plugin loaded, as
  /// -save-temps and ccache's CCACHE_NOCPP2 make it) lacks the header's
  /// macros the rewritten code needs; say so instead of failing on a
  /// missing include.  compactptr-cc -E and -save-temps give rewritten text.
  bool refusePreprocessedInput(CompilerInstance &CI) {
    const FrontendOptions &FO = CI.getFrontendOpts();
    if (FO.Inputs.empty() || !FO.Inputs[0].getKind().isPreprocessed())
      return true;
    DiagnosticsEngine &D = CI.getDiagnostics();
    D.Report(D.getCustomDiagID(
        DiagnosticsEngine::Error,
        "compactptr: '%0' is preprocessed text that was not rewritten (clang "
        "runs no plugin in -E); compile the source file, or preprocess with "
        "compactptr-cc -E (its -save-temps and ccache keep rewritten text)"))
        << (FO.Inputs[0].isFile() ? FO.Inputs[0].getFile() : StringRef("<buffer>"));
    return false;
  }

  /// A .i that clang -E made without the plugin has <compactptr.h>'s
  /// native branch in it (CP_COMPACT expanded to nothing, the mixed-build
  /// check cp__check_plain_unit defined): it builds as plain C with
  /// nothing compact, which the user who loaded the plugin did not ask
  /// for, and which the mixed-build check stops at start-up when other
  /// units are plugin-built.  A warning: alone, the program is right.
  void warnPreprocessedWithoutPlugin(CompilerInstance &CI) {
    const FrontendOptions &FO = CI.getFrontendOpts();
    SourceManager &SM = CI.getSourceManager();
    if (FO.Inputs.empty() || !FO.Inputs[0].getKind().isPreprocessed() ||
        SM.getMainFileID().isInvalid() ||
        !SM.getBufferData(SM.getMainFileID()).contains("cp__check_plain_unit"))
      return;
    DiagnosticsEngine &D = CI.getDiagnostics();
    D.Report(D.getCustomDiagID(
        DiagnosticsEngine::Warning,
        "compactptr: '%0' was preprocessed without the plugin (CP_COMPACT "
        "expanded to nothing there), so nothing in it is compact and it "
        "builds as plain C, which a program with plugin-built units refuses "
        "at start-up; compile the source file, or preprocess with "
        "compactptr-cc -E"))
        << (FO.Inputs[0].isFile() ? FO.Inputs[0].getFile() : StringRef("<buffer>"));
  }

  /// -E's printer; in a translation unit with compact types the output
  /// starts with the hooks, as the compile has them.  (Not through the
  /// predefines: the printer drops most of their declarations' tokens.)
  class PrintAction : public PrintPreprocessedAction {
  public:
    explicit PrintAction(bool HooksFirst) : HooksFirst(HooksFirst) {}

  protected:
    void ExecuteAction() override {
      CompilerInstance &CI = getCompilerInstance();
      std::unique_ptr<llvm::raw_ostream> OS =
          CI.createDefaultOutputFile(/*Binary=*/false, getCurrentFileOrBufferName());
      if (!OS)
        return;
      if (HooksFirst && !definedOnCommandLine(CI, "COMPACTPTR_NO_FREE_HOOK"))
        *OS << HookDeclarations;
      DoPrintPreprocessedInput(CI.getPreprocessor(), OS.get(),
                               CI.getPreprocessorOutputOpts());
    }

  private:
    bool HooksFirst;

    static bool definedOnCommandLine(CompilerInstance &CI, StringRef Name) {
      bool Defined = false;
      for (const auto &[Def, IsUndef] : CI.getPreprocessorOpts().Macros)
        if (StringRef(Def).split('=').first == Name)
          Defined = !IsUndef;
      return Defined;
    }
  };

  /// Option preprocess=FILE: runs the preprocessor over the rewritten
  /// files, as -E would, into FILE ('-': standard output).  The text is
  /// self-contained plain C: <compactptr.h> is expanded, and
  /// CP__PREPROCESSED_OUTPUT makes CP_COMPACT and CP_SAFEPOINT empty, so
  /// no compiler sees the attributes again (with the plugin loaded, the
  /// text has nothing left to rewrite).
  void printPreprocessed(CompilerInstance &CI, const std::vector<RewrittenFile> &Files,
                         bool HooksFirst) {
    if (Preprocess.empty())
      return;
    auto Inv = std::make_shared<CompilerInvocation>(CI.getInvocation());
    FrontendOptions &FO = Inv->getFrontendOpts();
    FO.ProgramAction = frontend::PrintPreprocessedInput;
    FO.OutputFile = Preprocess;
    FO.AddPluginActions.clear();
    Inv->getDependencyOutputOpts() = DependencyOutputOptions();
    Inv->getPreprocessorOutputOpts().ShowCPP = 1;
    Inv->getPreprocessorOpts().addMacroDef("CP__PREPROCESSED_OUTPUT=1");
    SourceManager &OuterSM = CI.getSourceManager();
    if (!FO.Inputs.empty() && FO.Inputs[0].isFile() && FO.Inputs[0].getFile() == "-")
      // Standard input was read once, by the outer compiler: hand its text on.
      FO.Inputs[0] = FrontendInputFile(OuterSM.getBufferOrFake(OuterSM.getMainFileID()),
                                       FO.Inputs[0].getKind());
    CompilerInstance Nested(CI.getPCHContainerOperations());
    Nested.setInvocation(std::move(Inv));
    Nested.setFileManager(&CI.getFileManager());
    Nested.createDiagnostics(new QuietConsumer, /*ShouldOwnClient=*/true);
    Nested.createSourceManager(CI.getFileManager());
    for (const RewrittenFile &F : Files)
      if (F.FE)
        Nested.getSourceManager().overrideFileContents(
            *F.FE, llvm::MemoryBuffer::getMemBufferCopy(F.Text, F.FE->getName()));
    InNested = true;
    PrintAction A(HooksFirst);
    bool Ok = Nested.ExecuteAction(A);
    InNested = false;
    if (!Ok || Nested.getDiagnostics().hasErrorOccurred()) {
      DiagnosticsEngine &D = CI.getDiagnostics();
      D.Report(D.getCustomDiagID(DiagnosticsEngine::Error,
                                 "compactptr: cannot print the preprocessed "
                                 "output to '%0'"))
          << Preprocess;
    }
  }

  void dump(CompilerInstance &CI, const std::vector<RewrittenFile> &Files) {
    if (Dump.empty())
      return;
    for (const RewrittenFile &F : Files) {
      if (Dump == "-") {
        llvm::errs() << "// ===== compactptr: " << F.Name << " =====\n" << F.Text;
        continue;
      }
      SmallString<256> P(Dump);
      llvm::sys::path::append(P, llvm::sys::path::filename(F.Name));
      std::error_code EC = llvm::sys::fs::create_directories(Dump);
      if (!EC) {
        llvm::raw_fd_ostream OS(P, EC);
        if (!EC)
          OS << F.Text;
      }
      if (EC) {
        DiagnosticsEngine &D = CI.getDiagnostics();
        D.Report(D.getCustomDiagID(DiagnosticsEngine::Error,
                                   "compactptr: cannot write the rewritten file '%0': %1"))
            << P << EC.message();
        return;
      }
    }
  }
};

} // namespace

static int Anchor = compactptr::attributesAnchor();

// The refusal first: clang's -plugin looks up the first entry of a name.
static FrontendPluginRegistry::Add<PluginFlagRefusal>
    RegisterRefusal("compactptr", "refuses '-plugin compactptr'");
static FrontendPluginRegistry::Add<CompactPtrAction>
    Register("compactptr", "rewrite compact types to 32-bit handles");
