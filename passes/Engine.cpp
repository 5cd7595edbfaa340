//===- Engine.cpp - pipeline driver, model queries, edits, diagnostics ----===//
//
// Runs the passes in order on one translation unit: Analysis, Safety,
// Layout, Rewrite, Emit.  Any error from any pass clears the collected
// edits, so the front ends see either every file rewritten or none.
// Covered by every test under test/plugin and test/rewrite.
//
//===----------------------------------------------------------------------===//
#include "Engine.h"
#include "clang/AST/PrettyPrinter.h"
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

RootShape rootShape(const Model &M, QualType T) {
  RootShape R;
  ArrayShape A = stripArrays(T);
  R.Count = A.Count;
  R.VLA = A.Variable;
  if ((R.T = M.pointeeOf(A.Element)))
    R.Kind = "CP_ROOT_POINTER";
  else if ((R.T = M.recordOf(A.Element)))
    R.Kind = "CP_ROOT_VALUE";
  if (R.Count == 0)
    R.Kind = nullptr;
  return R;
}

void EngineDiagSink::report(DiagnosticsEngine::Level L, SourceLocation Loc,
                            StringRef Msg, ArrayRef<CharSourceRange> Ranges,
                            ArrayRef<FixItHint> Fixits) {
  unsigned ID = Diags.getCustomDiagID(L, "%0");
  auto DB = Diags.Report(Loc, ID);
  DB << Msg;
  for (const auto &R : Ranges)
    DB << R;
  for (const auto &F : Fixits)
    DB << F;
}

void Session::error(SourceLocation Loc, StringRef Msg,
                    ArrayRef<CharSourceRange> Ranges, ArrayRef<FixItHint> Fixits) {
  ++Errors;
  Sink.report(DiagnosticsEngine::Error, Loc, Msg, Ranges, Fixits);
}

void Session::warning(SourceLocation Loc, StringRef Msg,
                      ArrayRef<CharSourceRange> Ranges,
                      ArrayRef<FixItHint> Fixits) {
  Sink.report(DiagnosticsEngine::Warning, Loc, Msg, Ranges, Fixits);
}

bool Session::isIgnoredLoc(SourceLocation Loc) const {
  if (Loc.isInvalid())
    return true;
  SourceLocation E = SM.getExpansionLoc(Loc);
  if (SM.isInSystemHeader(E))
    return true;
  return SM.getFileID(E).isInvalid() || !SM.getFileEntryRefForID(SM.getFileID(E));
}

std::string Session::typeText(QualType T) const {
  PrintingPolicy P(LO);
  P.SuppressTagKeyword = false;
  P.Bool = false;
  return T.getAsString(P);
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

bool runEngine(ASTContext &Ctx, const Options &O, DiagSink &Sink,
               std::vector<RewrittenFile> &Out, std::string *Plan) {
  Out.clear();
  Options Opts = O;
  Opts.DumpPlan = Plan != nullptr;
  Session S(Ctx, Opts, Sink);
  runAnalysis(S);
  runSafety(S);
  if (S.Errors)
    return false;
  if (S.M.Types.empty())
    return true;
  runLayout(S);
  if (S.Errors)
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

} // namespace compactptr
