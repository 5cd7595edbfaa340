//===- Replay.h - diagnostics from the nested parse, replayed outside ----===//
//
// The plugin parses the user's text twice: a nested, syntax-only parse of
// the original text (where the engine runs) and the outer compile of the
// rewritten text.  Every diagnostic the user sees comes from the nested
// parse, where the text is the user's:
//   - the engine's own (RecordingSink, through the DiagSink interface);
//   - clang's own warnings, notes and remarks (ClangDiagRecorder), so that
//     `if (p->next = q)` is still -Wparentheses at the user's column even
//     though the compiled text is a handle store.
// Both are recorded as file positions, independent of either compiler's
// SourceManager, and replayed by ReplayConsumer in the outer compile once
// its parse is done.  A position in a rewritten file is replayed on a copy
// of the original text under the file's name, so line, column and snippet
// are the user's; the outer compile's own warnings on the rewritten text
// are then ignored (Plugin.cpp), so nothing is reported twice or at the
// generated text.
// Tests: test/diagnostics/user-spelling.c, test/plugin/clang-warnings.c.
//
//===----------------------------------------------------------------------===//
#ifndef COMPACTPTR_REPLAY_H
#define COMPACTPTR_REPLAY_H

#include "Engine.h"
#include "clang/AST/ASTConsumer.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Frontend/CompilerInstance.h"
#include "llvm/Support/MemoryBuffer.h"
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace compactptr {

/// A file position independent of any SourceManager.
struct FilePos {
  clang::OptionalFileEntryRef FE;
  unsigned Offset = 0;
  bool Valid = false;
};

struct RecordedDiag {
  clang::DiagnosticsEngine::Level Level;
  FilePos Loc;
  std::string Msg;
  /// "expanded from macro 'M'" notes, innermost first, at the definitions.
  std::vector<std::pair<FilePos, std::string>> Macros;
  std::vector<std::pair<FilePos, FilePos>> Ranges;
  std::vector<std::pair<std::pair<FilePos, FilePos>, std::string>> Fixits;
};

/// Records diagnostics reported against the nested parse's SourceManager.
class RecordingSink : public DiagSink {
public:
  const clang::SourceManager *SM = nullptr;
  std::vector<RecordedDiag> Diags;
  /// Files the parse read with generator macros expanded (their positions
  /// are recorded at the user's text: inside an expansion, its start).
  const std::vector<ExpandedFile> *Expanded = nullptr;

  FilePos pos(clang::SourceLocation L) const;
  /// What a diagnostic at L adds to its message inside a function a
  /// generator macro produces (ExpandedFile::producedNote), or "".
  std::string producedNote(clang::SourceLocation L) const;
  void report(clang::DiagnosticsEngine::Level L, clang::SourceLocation Loc,
              llvm::StringRef Msg, llvm::ArrayRef<clang::CharSourceRange> Ranges,
              llvm::ArrayRef<clang::FixItHint> Fixits) override;
};

/// The nested parse's diagnostic client: records clang's own diagnostics
/// (already mapped by the user's -W flags, -w, -Werror and pragmas) with
/// their option name, as clang would print it.
class ClangDiagRecorder : public clang::DiagnosticConsumer {
public:
  explicit ClangDiagRecorder(bool ShowOptionNames)
      : ShowOptionNames(ShowOptionNames) {}
  RecordingSink Sink;
  void BeginSourceFile(const clang::LangOptions &LO,
                       const clang::Preprocessor *PP) override;
  void HandleDiagnostic(clang::DiagnosticsEngine::Level L,
                        const clang::Diagnostic &D) override;

private:
  bool ShowOptionNames;
};

/// In the outer compile: replays recorded diagnostics (clang's first, in
/// the order the parse met them, then the engine's) once the outer parse
/// has seen every file, so #line notes and include stacks exist.
class ReplayConsumer : public clang::ASTConsumer {
public:
  /// Files: the rewritten files, whose user text diagnostics are shown on.
  ReplayConsumer(clang::CompilerInstance &CI, std::vector<RecordedDiag> Diags,
                 std::vector<RewrittenFile> Files);
  void HandleTranslationUnit(clang::ASTContext &) override;

private:
  clang::CompilerInstance &CI;
  std::vector<RecordedDiag> Diags;
  std::vector<RewrittenFile> Files;
  std::map<llvm::sys::fs::UniqueID,
           std::pair<std::unique_ptr<llvm::MemoryBuffer>, clang::FileID>>
      Originals;
  clang::SourceLocation loc(const FilePos &P);
};

} // namespace compactptr

#endif
