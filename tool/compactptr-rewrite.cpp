//===- compactptr-rewrite.cpp - the engine as a source-to-source tool -----===//
//
// Runs the same engine as compactptr.so on each source file and prints the
// rewritten files (or writes them to a directory).  The output is plain C
// over include/compactptr.h and builds with clang or gcc without the
// plugin; link it with the runtime (-lcompactptr).
//
//===----------------------------------------------------------------------===//
#include "Engine.h"
#include "clang/AST/ASTConsumer.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/CommonOptionsParser.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/MemoryBuffer.h"
#include <map>
#include <set>

using namespace clang;
using namespace clang::tooling;
using namespace compactptr;

static llvm::cl::OptionCategory Category("compactptr-rewrite options");

static llvm::cl::opt<std::string>
    ModeOpt("mode", llvm::cl::desc("Build mode: compact-only (default), switchable or wide"),
            llvm::cl::init("compact-only"), llvm::cl::cat(Category));

static llvm::cl::opt<bool> AutoSafepointsOpt(
    "auto-safepoints",
    llvm::cl::desc("switchable mode: safepoint polls in the loops of main and "
                   "in spin loops, those that may wait for another thread "
                   "(default on)"),
    llvm::cl::init(true), llvm::cl::cat(Category));

static llvm::cl::opt<std::string>
    OutDir("o",
           llvm::cl::desc("Write rewritten files to <dir>/<file name> instead "
                          "of printing them"),
           llvm::cl::value_desc("dir"), llvm::cl::cat(Category));

static llvm::cl::opt<bool>
    MainOnly("main-only",
             llvm::cl::desc("Print only the main files, not rewritten headers"),
             llvm::cl::cat(Category));

static llvm::cl::opt<bool>
    PlanOpt("plan",
            llvm::cl::desc("Print the planner's decisions (each function's form "
                           "and, in checked functions, versioned regions, polls "
                           "and frames, with their reasons) instead of the "
                           "rewritten files"),
            llvm::cl::cat(Category));

static const char *MoreHelp = R"(
Rewrites C translation units that use compact types (see docs/plugin.md) into
plain C over <compactptr.h>, exactly as compactptr.so does inside clang.

  compactptr-rewrite [options] <file>... -- <compile flags>
  compactptr-rewrite [options] -p <build dir> <file>...

Without -o, every rewritten file (main files, then headers) is printed to
standard output after a line `// ===== compactptr: <file> =====`.  Files with
no compact type are printed unchanged.  With -o DIR, files are written to
DIR/<file name> (headers too); compile them with -I DIR ahead of the
original include directories and -I <compactptr>/include.

A header shared by several files is written once (files are told apart by
their real path, so a header reached through a symlink is the same file);
a file whose text would not change is not written again, so a second run
changes nothing.  With -p, a compile command's
-fplugin-arg-compactptr-mode=M or --cp-mode=M (compactptr-cc) sets that
file's mode, unless -mode is given.  C++ files and files that already are
rewritten output (they define the module record) are left as they are.

Exit status:
  0  every file was rewritten (or needed no rewrite)
  1  a file has errors (the program's own, or a construct the rewrite
     refuses; see the diagnostics), or two files rewrite a shared header
     differently, or two rewritten files have the same name for -o;
     nothing is written for those, the other files are written
  2  bad command line
)";

namespace {

/// A file's real path (symlinks resolved), or the name if it has none.
std::string realPath(const std::string &Name) {
  llvm::SmallString<256> Real;
  return llvm::sys::fs::real_path(Name, Real) ? Name : Real.str().str();
}

struct Collected {
  /// Real path -> (name as first seen, text), in the order first seen.
  std::map<std::string, std::pair<std::string, std::string>> Files;
  std::vector<std::string> Order;
  /// Per main file (as the tool was given it): the mode its compile
  /// command asks for (-p).
  std::map<std::string, Mode> Modes;
  bool Failed = false;
  /// Main files to parse again with these files' generator macros
  /// expanded (GeneratorMacros.cpp).
  std::vector<std::pair<std::string, std::vector<ExpandedFile>>> Again;

  /// Records a rewritten file; a header rewritten differently by two
  /// translation units is an error (it is compiled in different contexts).
  void add(const std::string &Name, std::string Text) {
    std::string Key = realPath(Name);
    auto It = Files.find(Key);
    if (It == Files.end()) {
      Order.push_back(Key);
      Files[Key] = {Name, std::move(Text)};
      return;
    }
    // Reached through another path (a symlink, ../): the #line
    // directives name the file as it was reached, the code is the same.
    const std::string &First = It->second.first;
    if (Name != First) {
      std::string From = "\"" + Name + "\"", To = "\"" + First + "\"";
      for (size_t At = Text.find(From); At != std::string::npos;
           At = Text.find(From, At + To.size()))
        Text.replace(At, From.size(), To);
    }
    if (It->second.second != Text) {
      llvm::errs() << "compactptr-rewrite: error: '" << Name
                   << "' is rewritten differently by two translation units "
                      "(it is compiled in different contexts); not written\n";
      It->second.second.clear();
      Conflicts.insert(Key);
      Failed = true;
    }
  }
  std::set<std::string> Conflicts;
};

/// The -W[no-][error=]compactptr* flags of the file being rewritten: the
/// arguments adjuster takes them out of its command line (clang would call
/// them unknown) and the engine applies them.
std::vector<std::string> FileWarningFlags;

/// Rewritten output defines the module record (CP_DEFINE_MODULE() at its
/// end); rewriting it again would rewrite the generated code too.
bool isRewrittenOutput(ASTContext &Ctx) {
  for (const Decl *D : Ctx.getTranslationUnitDecl()->decls())
    if (const auto *VD = dyn_cast<VarDecl>(D))
      if (VD->getName() == "cp__module" && VD->isThisDeclarationADefinition() &&
          Ctx.getSourceManager().isInMainFile(VD->getLocation()))
        return true;
  return false;
}

class ToolConsumer : public ASTConsumer {
public:
  ToolConsumer(const Options &Base, Collected &C, StringRef InFile)
      : O(Base), C(C), InFile(InFile.str()) {
    std::string Err;
    for (const std::string &F : FileWarningFlags)
      if (!O.addWarningFlag(F, Err)) {
        // As the plugin: an unknown flag fails the run (exit status 1).
        llvm::errs() << "compactptr-rewrite: " << Err << "\n";
        C.Failed = true;
      }
  }
  void HandleTranslationUnit(ASTContext &Ctx) override {
    if (Ctx.getDiagnostics().hasErrorOccurred()) {
      C.Failed = true;
      return;
    }
    const SourceManager &SM = Ctx.getSourceManager();
    const char *LeftAlone = Ctx.getLangOpts().CPlusPlus || Ctx.getLangOpts().ObjC
                                ? "C++ or Objective-C (the engine rewrites C)"
                            : isRewrittenOutput(Ctx) ? "already rewritten output"
                                                     : nullptr;
    if (LeftAlone) {
      llvm::errs() << "compactptr-rewrite: note: '" << InFile << "' is "
                   << LeftAlone << "; left as it is\n";
      C.add(InFile, SM.getBufferData(SM.getMainFileID()).str());
      return;
    }
    Options TUOptions = O;
    auto M = C.Modes.find(realPath(InFile));
    if (M != C.Modes.end())
      TUOptions.TheMode = M->second;
    EngineDiagSink Sink(Ctx.getDiagnostics());
    if (Again)
      for (const auto &[File, Expanded] : C.Again)
        if (File == InFile)
          Sink.Expanded = &Expanded;
    std::vector<RewrittenFile> Out;
    std::string Plan;
    std::vector<ExpandedFile> Expanded;
    bool Ok = runEngine(Ctx, TUOptions, Sink, Skipped, Out, PlanOpt ? &Plan : nullptr,
                        Rec, Again ? nullptr : &Expanded);
    if (!Expanded.empty()) {
      C.Again.push_back({InFile, std::move(Expanded)});
      return;
    }
    if (PlanOpt)
      llvm::outs() << Plan;
    if (!Ok) {
      C.Failed = true;
      return;
    }
    if (PlanOpt)
      return;
    if (Out.empty()) { // nothing compact: the file as it is
      RewrittenFile R;
      R.Name = InFile;
      R.Text = SM.getBufferData(SM.getMainFileID()).str();
      R.IsMain = true;
      Out.push_back(std::move(R));
    }
    for (RewrittenFile &R : Out) {
      if (MainOnly && !R.IsMain)
        continue;
      C.add(R.FE ? R.FE->getName().str() : R.Name, std::move(R.Text));
    }
  }

  std::vector<SourceRange> Skipped; ///< recorded by SkippedText
  /// The parse's record of macro expansions.
  ExpansionRecorder *Rec = nullptr;
  /// This parse reads files with generator macros expanded.
  bool Again = false;

private:
  Options O;
  Collected &C;
  std::string InFile;
};

class RewriteAction : public ASTFrontendAction {
public:
  RewriteAction(const Options &O, Collected &C, bool Again) : O(O), C(C), Again(Again) {}
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 StringRef InFile) override {
    auto Consumer = std::make_unique<ToolConsumer>(O, C, InFile);
    CI.getPreprocessor().addPPCallbacks(std::make_unique<SkippedText>(Consumer->Skipped));
    Rec.attach(CI.getPreprocessor());
    Consumer->Rec = &Rec;
    Consumer->Again = Again;
    return Consumer;
  }

private:
  const Options &O;
  Collected &C;
  bool Again;
  ExpansionRecorder Rec;
};

class Factory : public FrontendActionFactory {
public:
  Factory(const Options &O, Collected &C, bool Again = false)
      : O(O), C(C), Again(Again) {}
  std::unique_ptr<FrontendAction> create() override {
    return std::make_unique<RewriteAction>(O, C, Again);
  }

private:
  const Options &O;
  Collected &C;
  bool Again;
};

} // namespace

int main(int argc, const char **argv) {
  (void)compactptr::attributesAnchor();
  llvm::cl::extrahelp Extra(MoreHelp);
  // Without `--` or -p, no compilation database is looked for (clang's
  // tools print five lines of why none was found, then go on with no
  // flags): the files are parsed with no flags, as `-- ` would.
  std::vector<const char *> Args(argv, argv + argc);
  bool HasFlags = false;
  for (int I = 1; I < argc; I++) {
    StringRef A(argv[I]);
    HasFlags |= A == "--" || A == "-p" || A.starts_with("-p=") ||
                A == "--help" || A == "-help" || A.starts_with("--help-") ||
                A == "--version";
  }
  if (!HasFlags)
    Args.push_back("--");
  int NArgs = (int)Args.size();
  auto Parser = CommonOptionsParser::create(NArgs, Args.data(), Category,
                                            llvm::cl::OneOrMore);
  if (!Parser) {
    llvm::errs() << Parser.takeError() << "\n";
    return 2;
  }
  Options O;
  O.AutoSafepoints = AutoSafepointsOpt;
  if (!Options::parseMode(ModeOpt, O.TheMode)) {
    llvm::errs() << "compactptr-rewrite: unknown mode '" << ModeOpt
                 << "' (compact-only, switchable or wide)\n";
    return 2;
  }
  Collected C;
  // ClangTool hands clang the absolute path of each file; with a fixed
  // compile command (`--`), clang then names the file that way in `#line`
  // and __FILE__, where the native build has the spelling the user gave.
  // A compilation database's commands keep their own spelling.
  std::map<std::string, std::string> Spelled; // absolute path -> as given
  if (llvm::is_contained(Args, llvm::StringRef("--")))
    for (const std::string &F : Parser->getSourcePathList())
      if (llvm::sys::path::is_relative(F)) {
        llvm::SmallString<256> Abs(F);
        if (!llvm::sys::fs::make_absolute(Abs))
          Spelled[std::string(Abs)] = F;
      }
  auto Adjust = [&](ClangTool &Tool) {
    Tool.appendArgumentsAdjuster(
        [&Spelled](const CommandLineArguments &Args, StringRef) {
          CommandLineArguments Out(Args);
          for (std::string &A : Out)
            if (auto It = Spelled.find(A); It != Spelled.end())
              A = It->second;
          return Out;
        });
    // A compile command built for the plugin names its mode; compactptr-cc's
    // own options are not clang's.
    bool ModeGiven = ModeOpt.getNumOccurrences() > 0;
    Tool.appendArgumentsAdjuster(
        [&C, ModeGiven](const CommandLineArguments &Args, StringRef File) {
          CommandLineArguments Out;
          for (const std::string &A : Args) {
            StringRef S(A);
            Mode M;
            for (StringRef Prefix : {"-fplugin-arg-compactptr-mode=", "--cp-mode="})
              if (S.consume_front(Prefix) && !ModeGiven && Options::parseMode(S, M))
                C.Modes[realPath(File.str())] = M;
            if (StringRef(A).starts_with("--cp-"))
              continue;
            Out.push_back(A);
          }
          return Out;
        });
    Tool.appendArgumentsAdjuster(getInsertArgumentAdjuster(
        "-resource-dir=" COMPACTPTR_CLANG_RESOURCE_DIR,
        ArgumentInsertPosition::END));
    // Standard input (`-`) is C: the driver wants -x for it, and said so
    // with an error line even when the rewrite went well.
    Tool.appendArgumentsAdjuster(
        [](const CommandLineArguments &Args, StringRef File) {
          bool Stdin = File == "-" || File.ends_with("/-"); // made absolute
          if (!Stdin || llvm::any_of(Args, [](const std::string &A) {
                return StringRef(A).starts_with("-x");
              }))
            return Args;
          CommandLineArguments Out(Args);
          Out.insert(Out.begin() + (Out.empty() ? 0 : 1), {"-x", "c"});
          return Out;
        });
    Tool.appendArgumentsAdjuster(
        [](const CommandLineArguments &Args, StringRef) {
          CommandLineArguments Out;
          FileWarningFlags.clear();
          for (const std::string &A : Args) {
            StringRef W(A);
            if (W.consume_front("-W") &&
                (W.starts_with("compactptr") || W.starts_with("no-compactptr") ||
                 W.starts_with("error=compactptr") ||
                 W.starts_with("no-error=compactptr"))) {
              FileWarningFlags.push_back(W.str());
              continue;
            }
            Out.push_back(A);
          }
          return Out;
        });
  };
  ClangTool Tool(Parser->getCompilations(), Parser->getSourcePathList());
  Adjust(Tool);
  Factory F(O, C);
  // A file with errors contributes nothing; the others are still written,
  // so one bad translation unit does not hold back a whole project.
  int RC = Tool.run(&F);
  // Translation units where macros produce functions that use compact
  // types: once more, each with its expanded files.
  for (auto &[File, Expanded] : C.Again) {
    ClangTool Again(Parser->getCompilations(), {File});
    Adjust(Again);
    for (const ExpandedFile &X : Expanded)
      Again.mapVirtualFile(X.Name, X.Text);
    Factory FA(O, C, /*Again=*/true);
    RC |= Again.run(&FA);
  }
  std::map<std::string, std::string> Written; // output path -> real path
  for (const std::string &Key : C.Order) {
    if (C.Conflicts.count(Key))
      continue;
    const std::string &Name = C.Files[Key].first;
    const std::string &Text = C.Files[Key].second;
    if (OutDir.empty()) {
      llvm::outs() << "// ===== compactptr: " << Name << " =====\n" << Text;
      continue;
    }
    if (std::error_code EC = llvm::sys::fs::create_directories(OutDir)) {
      llvm::errs() << "compactptr-rewrite: cannot create '" << OutDir
                   << "': " << EC.message() << "\n";
      return 1;
    }
    llvm::SmallString<256> P(OutDir);
    llvm::sys::path::append(P, llvm::sys::path::filename(Name));
    auto [It, New] = Written.insert({P.str().str(), Key});
    if (!New) {
      llvm::errs() << "compactptr-rewrite: error: '" << Name << "' and '"
                   << C.Files[It->second].first << "' would both be written to '"
                   << P << "'; not written\n";
      C.Failed = true;
      continue;
    }
    // Unchanged text is not written again: a second run changes nothing,
    // not even a timestamp that make would see.
    if (auto Old = llvm::MemoryBuffer::getFile(P); Old && (*Old)->getBuffer() == Text)
      continue;
    std::error_code EC;
    llvm::raw_fd_ostream OS(P, EC);
    if (EC) {
      llvm::errs() << "compactptr-rewrite: cannot write '" << P
                   << "': " << EC.message() << "\n";
      return 1;
    }
    OS << Text;
  }
  return RC != 0 || C.Failed ? 1 : 0;
}
