//===- Replay.cpp - diagnostics from the nested parse, replayed outside --===//
//
// See Replay.h: what is recorded in the nested parse (the engine's
// diagnostics and clang's own), and how the outer compile replays them at
// the user's text.
// Tests: test/diagnostics/user-spelling.c, test/plugin/clang-warnings.c.
//
//===----------------------------------------------------------------------===//
#include "Replay.h"
#include "clang/Basic/DiagnosticIDs.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/SmallString.h"

using namespace clang;

namespace compactptr {

FilePos RecordingSink::pos(SourceLocation L) const {
  FilePos P;
  if (L.isInvalid())
    return P;
  L = SM->getFileLoc(L);
  auto [FID, Off] = SM->getDecomposedLoc(L);
  P.FE = SM->getFileEntryRefForID(FID);
  P.Offset = Off;
  P.Valid = (bool)P.FE;
  if (P.FE && Expanded)
    for (const ExpandedFile &F : *Expanded)
      if (F.FE && F.FE->getUniqueID() == P.FE->getUniqueID())
        P.Offset = ExpandedFile::originalOffset(F.Shifts, Off);
  return P;
}

std::string RecordingSink::producedNote(SourceLocation L) const {
  if (!Expanded || L.isInvalid())
    return "";
  auto [FID, Off] = SM->getDecomposedLoc(SM->getFileLoc(L));
  OptionalFileEntryRef FE = SM->getFileEntryRefForID(FID);
  if (!FE)
    return "";
  for (const ExpandedFile &F : *Expanded)
    if (F.FE && F.FE->getUniqueID() == FE->getUniqueID())
      return F.producedNote(Off);
  return "";
}

void RecordingSink::report(DiagnosticsEngine::Level L, SourceLocation Loc,
                           StringRef Msg, ArrayRef<CharSourceRange> Ranges,
                           ArrayRef<FixItHint> Fixits) {
  RecordedDiag D;
  D.Level = L;
  D.Loc = pos(Loc);
  D.Msg = Msg.str();
  // Inside a function a generator macro produces, the position is the
  // invocation's: say which function, and which macro.
  D.Msg += producedNote(Loc);
  for (SourceLocation M = Loc; M.isMacroID();) {
    if (SM->isMacroArgExpansion(M)) {
      M = SM->getImmediateSpellingLoc(M);
      continue;
    }
    StringRef Name = Lexer::getImmediateMacroName(M, *SM, LangOptions());
    D.Macros.push_back({pos(SM->getSpellingLoc(M)), Name.str()});
    M = SM->getImmediateExpansionRange(M).getBegin();
  }
  // Token ranges become character ranges here, while the nested
  // SourceManager can still measure the last token.
  auto charRange = [&](CharSourceRange R) {
    if (R.isTokenRange())
      R = CharSourceRange::getCharRange(
          R.getBegin(), Lexer::getLocForEndOfToken(SM->getFileLoc(R.getEnd()), 0,
                                                   *SM, LangOptions()));
    return std::make_pair(pos(R.getBegin()), pos(R.getEnd()));
  };
  for (const CharSourceRange &R : Ranges)
    D.Ranges.push_back(charRange(R));
  for (const FixItHint &H : Fixits)
    D.Fixits.push_back({charRange(H.RemoveRange), H.CodeToInsert});
  Diags.push_back(std::move(D));
}

void ClangDiagRecorder::BeginSourceFile(const LangOptions &LO,
                                        const Preprocessor *PP) {
  DiagnosticConsumer::BeginSourceFile(LO, PP);
  if (PP)
    Sink.SM = &PP->getSourceManager();
}

void ClangDiagRecorder::HandleDiagnostic(DiagnosticsEngine::Level L,
                                         const Diagnostic &D) {
  DiagnosticConsumer::HandleDiagnostic(L, D); // counts errors and warnings
  if (!Sink.SM || L == DiagnosticsEngine::Ignored)
    return;
  SmallString<256> Msg;
  D.FormatDiagnostic(Msg);
  // The replay reports through a custom ID, which has no option of its
  // own: the name goes into the text, as clang's printer would add it.
  StringRef Opt = DiagnosticIDs::getWarningOptionForDiag(D.getID());
  if (ShowOptionNames && !Opt.empty()) {
    if (L == DiagnosticsEngine::Warning)
      Msg += (" [-W" + Opt + "]").str();
    else if (L == DiagnosticsEngine::Error)
      Msg += (" [-Werror,-W" + Opt + "]").str();
  }
  std::vector<CharSourceRange> Ranges(D.getRanges().begin(), D.getRanges().end());
  std::vector<FixItHint> Fixits(D.getFixItHints().begin(), D.getFixItHints().end());
  Sink.report(L, D.getLocation(), Msg, Ranges, Fixits);
}

ReplayConsumer::ReplayConsumer(CompilerInstance &CI, std::vector<RecordedDiag> Diags,
                               std::vector<RewrittenFile> Files)
    : CI(CI), Diags(std::move(Diags)), Files(std::move(Files)) {
  // The user's text of every rewritten file, read before the override.
  for (const RewrittenFile &F : this->Files)
    if (F.FE)
      if (auto B = CI.getFileManager().getBufferForFile(*F.FE))
        Originals[F.FE->getUniqueID()] = {std::move(*B), FileID()};
}

/// A diagnostic in a rewritten file points at the user's text: a copy of
/// the original buffer under the file's name, so its line, column and
/// snippet are the user's (the compiled text is the rewritten one).
SourceLocation ReplayConsumer::loc(const FilePos &P) {
  if (!P.Valid)
    return SourceLocation();
  SourceManager &SM = CI.getSourceManager();
  auto It = Originals.find(P.FE->getUniqueID());
  if (It != Originals.end()) {
    auto &[Buf, FID] = It->second;
    if (FID.isInvalid()) {
      // Included where the compiled file is, so a header's diagnostics
      // keep their "In file included from" line.
      FileID Compiled = SM.translateFile(*P.FE);
      SourceLocation IncludedAt =
          Compiled.isValid() ? SM.getIncludeLoc(Compiled) : SourceLocation();
      FID = SM.createFileID(
          llvm::MemoryBuffer::getMemBufferCopy(Buf->getBuffer(), P.FE->getName()),
          SrcMgr::C_User, 0, 0, IncludedAt);
    }
    return SM.getLocForStartOfFile(FID).getLocWithOffset(P.Offset);
  }
  FileID FID = SM.translateFile(*P.FE);
  if (FID.isInvalid())
    FID = SM.getOrCreateFileID(*P.FE, SrcMgr::C_User);
  return SM.getLocForStartOfFile(FID).getLocWithOffset(P.Offset);
}

void ReplayConsumer::HandleTranslationUnit(ASTContext &) {
  DiagnosticsEngine &DE = CI.getDiagnostics();
  // Plugin.cpp ignores the outer compile's warnings (they would be about
  // the rewritten text); the recorded ones are the user's and must show.
  bool Ignoring = DE.getIgnoreAllWarnings();
  DE.setIgnoreAllWarnings(false);
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
  DE.setIgnoreAllWarnings(Ignoring);
}

} // namespace compactptr
