//===- Expansion.cpp - uses of compact types produced by macros -----------===//
//
// A use of a compact type whose tokens come from a macro body has no text
// of its own in the file.  The rewrite replaces the outermost macro
// expansion at that use site -- the smallest enclosing expression or
// statement whose tokens are one range of the file -- by that node printed
// from the AST (clang's statement printer, through a PrinterHelper):
// rewritten children come from the printer, untouched children that have
// a text in the file are copied from it (macro arguments keep the user's
// spelling), everything else is printed.  The `#define` stays; other uses
// of the macro are untouched.  Printed text keeps the range's line count:
// the printer's own line breaks become spaces and the missing lines are
// added at the end, so the lines after the use keep their numbers.
// Refused (an error naming the macro): a use below which no node up to the
// function body is a range of the file (a function whose body a macro
// produces).
// Tests: test/rewrite/macro-*.c, test/switchable/macro-*.c,
//        test/Inputs/macros/*.c (run tests), test/diagnostics/macro-body.c.
//
//===----------------------------------------------------------------------===//
#include "Printer.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/PrettyPrinter.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;

namespace compactptr {
namespace {

/// Content (copied text, rewritten children) is written with its line
/// breaks as this marker, so the printer's own breaks can be told apart.
constexpr char Break = '\x01';

class Helper : public PrinterHelper {
public:
  Helper(const Stmt *Root, Printer &P,
         const llvm::DenseMap<const Stmt *, std::string> *Pending,
         const EditSet *Inner, const SourceManager &SM)
      : Root(Root), P(P), Pending(Pending), Inner(Inner), SM(SM) {}
  /// File ranges copied (with Inner's edits inside them).
  std::vector<std::pair<unsigned, unsigned>> Copied;

  bool handledStmt(Stmt *X, raw_ostream &OS) override {
    if (X == Root)
      return false;
    std::string T;
    if (Pending) {
      auto It = Pending->find(X);
      if (It != Pending->end())
        T = It->second;
    }
    CharSourceRange R = P.fileRange(X);
    if (T.empty() && R.isValid() && Inner) {
      // A child in the file: its text with the walker's edits inside it.
      auto [FID, B] = SM.getDecomposedLoc(R.getBegin());
      unsigned E = SM.getFileOffset(R.getEnd());
      Rendered Rd = Inner->render(FID, SM.getBufferData(FID), B, E);
      if (!Rd.Ok || E <= B)
        return false;
      T = Rd.Text;
      Copied.push_back({B, E});
    }
    if (T.empty() && P.affected(X))
      T = P.text(X);
    if (T.empty() && R.isValid()) {
      auto [FID, B] = SM.getDecomposedLoc(R.getBegin());
      unsigned E = SM.getFileOffset(R.getEnd());
      T = SM.getBufferData(FID).substr(B, E > B ? E - B : 0).str();
    }
    if (T.empty())
      return false;
    for (char C : T)
      OS << (C == '\n' ? Break : C);
    return true;
  }

private:
  const Stmt *Root;
  Printer &P;
  const llvm::DenseMap<const Stmt *, std::string> *Pending;
  const EditSet *Inner;
  const SourceManager &SM;
};

} // namespace

std::string Printer::printed(const Stmt *St,
                             const llvm::DenseMap<const Stmt *, std::string> *Pending,
                             const EditSet *Inner, bool *AllPlaced) {
  PrintingPolicy Pol(S.LO);
  Pol.SuppressTagKeyword = false;
  Pol.Bool = false;
  std::string Raw;
  llvm::raw_string_ostream OS(Raw);
  Helper H(St, *this, Pending, Inner, SM);
  St->printPretty(OS, &H, Pol, 0, "\n", &S.Ctx);
  OS.flush();
  if (AllPlaced && Inner) {
    *AllPlaced = true;
    for (const auto &[F, V] : Inner->files())
      for (const Edit &X : V) {
        bool In = false;
        for (auto [B, E] : H.Copied)
          In |= X.Offset >= B && X.end() <= E;
        *AllPlaced &= In;
      }
  }
  while (!Raw.empty() && (Raw.back() == '\n' || Raw.back() == ' '))
    Raw.pop_back();
  std::string Out;
  unsigned Lines = 0;
  for (char C : Raw) {
    if (C == '\n')
      Out += ' ';
    else if (C == Break) {
      Out += '\n';
      ++Lines;
    } else
      Out += C;
  }
  // As many lines as the text it replaces, and no `;` the user wrote
  // after it (`do { } while (0)` is printed with one).
  CharSourceRange R = fileRange(St);
  if (R.isValid()) {
    StringRef Orig = Lexer::getSourceText(R, SM, S.LO);
    if (!Out.empty() && Out.back() == ';' && !Orig.rtrim().ends_with(";"))
      Out.pop_back();
    for (unsigned N = Orig.count('\n'); Lines < N; ++Lines)
      Out += '\n';
  }
  // An expression printed in place of another keeps its own parentheses.
  if (isa<Expr>(St))
    return "(" + Out + ")";
  return Out;
}

std::string Printer::macroName(const Stmt *E) const {
  SourceLocation L = SM.getExpansionLoc(E->getBeginLoc());
  return Lexer::getSourceText(CharSourceRange::getTokenRange(L, L), SM, S.LO).str();
}

const Stmt *Printer::placeable(const Stmt *E, const Stmt *Top) {
  DynTypedNode N = DynTypedNode::create(*E);
  for (;;) {
    if (const Stmt *X = N.get<Stmt>()) {
      if (fileRange(X).isValid())
        return X;
      if (X == Top)
        return nullptr;
    }
    auto Ps = S.Ctx.getParents(N);
    if (Ps.empty())
      return nullptr;
    N = Ps[0];
    if (N.get<FunctionDecl>() || N.get<TranslationUnitDecl>())
      return nullptr;
  }
}

} // namespace compactptr
