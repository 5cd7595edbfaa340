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
         const EditSet *Inner, const SourceManager &SM, const PrintingPolicy &Pol)
      : Root(Root), P(P), Pending(Pending), Inner(Inner), SM(SM), Pol(Pol) {}
  /// File ranges copied (with Inner's edits inside them).
  std::vector<std::pair<unsigned, unsigned>> Copied;

  bool handledStmt(Stmt *X, raw_ostream &OS) override {
    if (X == Root)
      return printOwn(X, OS);
    std::string T;
    if (Pending) {
      auto It = Pending->find(X);
      if (It != Pending->end())
        T = It->second;
    }
    CharSourceRange R = P.fileRange(X);
    if (T.empty() && R.isValid() && Inner && !holdsPending(X)) {
      // A child in the file: its text with the walker's edits inside it
      // (not where a node below it waits in Pending: an expansion of
      // several statements in a loop's body, `SET_AB(n, i, j);` with
      // `#define SET_AB(p, x, y) (p)->a = x; (p)->b = y`, has no text of
      // its own, and the copy kept it unrewritten).
      auto [FID, B] = SM.getDecomposedLoc(R.getBegin());
      unsigned E = SM.getFileOffset(R.getEnd());
      Rendered Rd = Inner->render(FID, SM.getBufferData(FID), B, E);
      if (!Rd.Ok || E <= B)
        return false;
      T = Rd.Text;
      Copied.push_back({B, E});
      // A statement's range stops before the `;` that ends it (`if (c) x
      // = y;`, `return x;`, `do { } while (0);`): copied where clang's
      // printer prints the statement, which adds a `;` only after an
      // expression, it keeps the user's -- or the macro body's, for a
      // statement passed as an argument (`CP_NATIVE(while (c) wait())`
      // is `...; stmt; ...`).
      if (!isa<Expr>(X) && !StringRef(T).rtrim().ends_with(";") &&
          !StringRef(T).rtrim().ends_with("}") &&
          (SM.getBufferData(FID).substr(E).ltrim().starts_with(";") ||
           SM.isMacroArgExpansion(X->getBeginLoc())))
        T += ";";
    }
    if (T.empty() && R.isInvalid() && printOwn(X, OS))
      return true;
    if (T.empty() && P.affected(X)) {
      // A statement is printed by clang, its children through this
      // helper: the walker's texts for its full expressions are in
      // Pending (the checked form's pick the layout by mode; this
      // printer's own text would be one layout only).
      if (!isa<Expr>(X))
        return false;
      if (Pending) {
        // Every full expression the walker rewrites has its text in
        // Pending: above it, clang prints; a node rewritten on its own
        // that is not below one was not walked, and is never printed in
        // one form by guess.
        if (!P.own(X))
          return false;
        P.fail(X,
               "cannot rewrite the expansion of macro '" + P.macroName(X) +
                   "': this use of a compact type inside it is not in a "
                   "statement or expression the rewrite can print; write it "
                   "outside the macro",
               Diag::MacroStatement);
        return false;
      }
      T = P.text(X);
    }
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
  /// A node below X (not X) has its text in Pending.
  bool holdsPending(const Stmt *X) const {
    if (!Pending || Pending->empty())
      return false;
    for (const Stmt *C : X->children())
      if (C && (Pending->count(C) || holdsPending(C)))
        return true;
    return false;
  }

  /// Statements clang's printer would print without this helper: it
  /// prints declarations through its declaration printer, which takes no
  /// helper, so an initializer would keep its unrewritten text (a macro's
  /// `int t = (p)->a;` read through the wide layout); and it prints a
  /// compound body of an if, for or do statement raw, so the body itself
  /// never reaches the helper (a body written in the file, `FOREACH_LIVE(x,
  /// h) { ... }` ending in `else`, is then not copied with its in-place
  /// edits: a run versioned by mode across its statements).  Those are
  /// printed here, every child through this helper.  False: let clang
  /// print X.
  bool printOwn(Stmt *X, raw_ostream &OS) {
    if (auto *DS = dyn_cast<DeclStmt>(X)) {
      std::string T;
      if (!declText(DS, /*ForInit=*/false, T))
        return refuse(DS);
      OS << T;
      return true;
    }
    if (auto *I = dyn_cast<IfStmt>(X)) {
      if (I->getInit() || I->getConditionVariableDeclStmt() || I->isConsteval())
        return false;
      OS << "if (";
      I->getCond()->printPretty(OS, this, Pol);
      OS << ") ";
      sub(I->getThen(), OS);
      if (I->getElse()) {
        OS << " else ";
        sub(I->getElse(), OS);
      }
      return true;
    }
    if (auto *D = dyn_cast<DoStmt>(X)) {
      OS << "do ";
      sub(D->getBody(), OS);
      OS << " while (";
      D->getCond()->printPretty(OS, this, Pol);
      OS << ");";
      return true;
    }
    auto *F = dyn_cast<ForStmt>(X);
    if (!F || F->getConditionVariableDeclStmt())
      return false;
    std::string Init;
    if (auto *DS = dyn_cast_or_null<DeclStmt>(F->getInit())) {
      if (!declText(DS, /*ForInit=*/true, Init))
        return refuse(DS);
    } else if (F->getInit()) {
      llvm::raw_string_ostream IS(Init);
      F->getInit()->printPretty(IS, this, Pol);
      IS << ";";
    } else {
      Init = ";";
    }
    OS << "for (" << Init << " ";
    if (F->getCond())
      F->getCond()->printPretty(OS, this, Pol);
    OS << "; ";
    if (F->getInc())
      F->getInc()->printPretty(OS, this, Pol);
    OS << ") ";
    sub(F->getBody(), OS);
    return true;
  }

  /// A sub-statement, through this helper; an expression gets its `;`.
  void sub(Stmt *St, raw_ostream &OS) {
    St->printPretty(OS, this, Pol);
    if (isa<Expr>(St)) // printed as an expression: no `;` of its own
      OS << ";";
  }

  /// A declaration declText cannot say: clang may print it only if
  /// nothing in it is rewritten; otherwise a refusal naming the macro
  /// (never the unrewritten text).  False: let clang print it.
  bool refuse(const DeclStmt *DS) {
    if (P.affected(DS))
      P.fail(DS,
             "cannot rewrite the expansion of macro '" + P.macroName(DS) +
                 "': a declaration it makes (with attributes, a storage class "
                 "other than static or register, or several types in a for "
                 "loop's init) cannot be printed rewritten; declare it outside "
                 "the macro",
             Diag::MacroStatement);
    return false;
  }

  /// DS as C text ending in `;`, initializers printed through this
  /// helper.  One declaration per variable, or, in a for loop's init
  /// (one declaration only), one list where the variables share a type.
  /// False where that cannot be said in C text (a declaration of a type,
  /// attributes): see refuse().
  bool declText(const DeclStmt *DS, bool ForInit, std::string &Out) {
    llvm::raw_string_ostream OS(Out);
    const VarDecl *First = nullptr;
    for (const Decl *D : DS->decls()) {
      const auto *VD = dyn_cast<VarDecl>(D);
      if (!VD || VD->hasAttrs() || !VD->getIdentifier())
        return false;
      if (ForInit && First && VD->getType() != First->getType())
        return false;
      if (!First || !ForInit) {
        if (First)
          OS << " ";
        if (VD->getStorageClass() == SC_Static)
          OS << "static ";
        else if (VD->getStorageClass() == SC_Register)
          OS << "register ";
        else if (VD->getStorageClass() != SC_None)
          return false;
        OS << P.declText(VD->getType(), VD->getName());
      } else {
        // The same type: the declarator is the name (no array or
        // function-pointer syntax, whose declarator wraps the name).
        if (VD->getType()->isArrayType() || VD->getType()->isFunctionPointerType())
          return false;
        OS << ", " << VD->getName();
      }
      if (const Expr *Init = VD->getInit()) {
        OS << " = ";
        Init->printPretty(OS, this, Pol);
      }
      if (!ForInit)
        OS << ";";
      First = VD;
    }
    if (ForInit)
      OS << ";";
    return First != nullptr;
  }

  const Stmt *Root;
  Printer &P;
  const llvm::DenseMap<const Stmt *, std::string> *Pending;
  const EditSet *Inner;
  const SourceManager &SM;
  PrintingPolicy Pol;
};

using Ranges = std::vector<std::pair<unsigned, unsigned>>;

/// St printed (see Printer::printed) on one line per line of the content
/// copied into it; Lines counts those line breaks, Copied gets the file
/// ranges copied.
std::string printOneLine(const Stmt *St, Printer &P, const Session &S,
                         const llvm::DenseMap<const Stmt *, std::string> *Pending,
                         const EditSet *Inner, Ranges &Copied, unsigned &Lines) {
  PrintingPolicy Pol(S.LO);
  Pol.SuppressTagKeyword = false;
  Pol.Bool = false;
  std::string Raw;
  llvm::raw_string_ostream OS(Raw);
  Helper H(St, P, Pending, Inner, S.SM, Pol);
  St->printPretty(OS, &H, Pol, 0, "\n", &S.Ctx);
  OS.flush();
  Copied.insert(Copied.end(), H.Copied.begin(), H.Copied.end());
  while (!Raw.empty() && (Raw.back() == '\n' || Raw.back() == ' '))
    Raw.pop_back();
  std::string Out;
  for (char C : Raw) {
    if (C == '\n')
      Out += ' ';
    else if (C == Break) {
      Out += '\n';
      ++Lines;
    } else
      Out += C;
  }
  return Out;
}

/// Every edit of Inner lies in one of the copied ranges.
bool allPlaced(const EditSet &Inner, const Ranges &Copied) {
  for (const auto &[F, V] : Inner.files())
    for (const Edit &X : V) {
      bool In = false;
      for (auto [B, E] : Copied)
        In |= X.Offset >= B && X.end() <= E;
      if (!In)
        return false;
    }
  return true;
}

/// Pad Out with line breaks to as many lines as the file range R holds.
void keepLines(std::string &Out, unsigned Lines, CharSourceRange R,
               const SourceManager &SM, const LangOptions &LO) {
  StringRef Orig = Lexer::getSourceText(R, SM, LO);
  for (unsigned N = Orig.count('\n'); Lines < N; ++Lines)
    Out += '\n';
}

} // namespace

/// The printed text is parsed again in the compile: refused where that
/// would not give what the parser received (GeneratorMacros.cpp records
/// it): an expansion that uses __COUNTER__ (every later one would count
/// differently) or leaves a macro name unexpanded (`#define scale (scale
/// * 2)`: printed, `scale` would expand once more).
void Printer::refuseReparseHazard(const Stmt *St, CharSourceRange R) {
  if (!S.Rec)
    return;
  auto [FID, B] = SM.getDecomposedLoc(R.getBegin());
  const ExpansionRecorder::Expansion *X =
      S.Rec->reparseHazard(SM, FID, B, SM.getFileOffset(R.getEnd()));
  if (!X)
    return;
  fail(St,
       "cannot rewrite the expansion of macro '" + macroName(St) + "': " +
           (X->Counts ? "it uses __COUNTER__, and printed again every later "
                        "__COUNTER__ would count differently"
                      : "a macro name its expansion leaves unexpanded would "
                        "expand once more when printed again") +
           "; write that code outside the macro",
       Diag::MacroBody);
}

std::string Printer::printed(const Stmt *St,
                             const llvm::DenseMap<const Stmt *, std::string> *Pending,
                             const EditSet *Inner, bool *AllPlaced) {
  Ranges Copied;
  unsigned Lines = 0;
  std::string Out = printOneLine(St, *this, S, Pending, Inner, Copied, Lines);
  if (AllPlaced && Inner)
    *AllPlaced = allPlaced(*Inner, Copied);
  // As many lines as the text it replaces, and no `;` the user wrote
  // after it (`do { } while (0)` is printed with one).
  CharSourceRange R = placeRange(St);
  if (R.isValid())
    refuseReparseHazard(St, R);
  if (R.isValid()) {
    StringRef Orig = Lexer::getSourceText(R, SM, S.LO);
    if (!Out.empty() && Out.back() == ';' && !Orig.rtrim().ends_with(";"))
      Out.pop_back();
    keepLines(Out, Lines, R, SM, S.LO);
  }
  // An expression printed in place of another keeps its own parentheses
  // (not an initializer list: `({...})` would be a statement expression).
  if (isa<Expr>(St) && !isa<InitListExpr>(St))
    return "(" + Out + ")";
  return Out;
}

CharSourceRange Printer::headerExpansion(const Stmt *Loop) const {
  const auto *F = dyn_cast<ForStmt>(Loop);
  if (!F || !F->getBody())
    return {};
  SourceLocation B = F->getBeginLoc(), RP = F->getRParenLoc(), Start, End;
  if (!B.isMacroID() || !RP.isMacroID() ||
      !Lexer::isAtStartOfMacroExpansion(B, SM, S.LO, &Start) ||
      !Lexer::isAtEndOfMacroExpansion(RP, SM, S.LO, &End) || !Start.isFileID() ||
      !End.isFileID() || SM.getExpansionRange(B).getBegin() != SM.getExpansionRange(RP).getBegin())
    return {};
  // The body is the user's text after the expansion.
  CharSourceRange Body = fileRange(F->getBody());
  if (Body.isInvalid() || !SM.isBeforeInTranslationUnit(End, Body.getBegin()))
    return {};
  // The header's tokens end where the body's start, both in one
  // expansion (`EACH(x, h, body)`): then the header is no range of its
  // own.
  CharSourceRange H = CharSourceRange::getTokenRange(Start, End);
  if (Lexer::makeFileCharRange(H, SM, S.LO).isInvalid())
    return {};
  return H;
}

std::string Printer::printedHeader(const ForStmt *F,
                                   const llvm::DenseMap<const Stmt *, std::string> *Pending,
                                   const EditSet *Inner, bool *AllPlaced) {
  Ranges Copied;
  unsigned Lines = 0;
  auto part = [&](const Stmt *X) -> std::string {
    if (!X)
      return "";
    if (Pending)
      if (auto It = Pending->find(X); It != Pending->end())
        return It->second;
    std::string T = printOneLine(X, *this, S, Pending, Inner, Copied, Lines);
    return isa<Expr>(X) ? "(" + T + ")" : T;
  };
  std::string Init = part(F->getInit());
  if (Init.empty() || Init.back() != ';')
    Init += ";";
  std::string Out = "for (" + Init + " " + part(F->getCond()) + "; " + part(F->getInc()) + ")";
  if (AllPlaced && Inner)
    *AllPlaced = allPlaced(*Inner, Copied);
  CharSourceRange R = Lexer::makeFileCharRange(headerExpansion(F), SM, S.LO);
  if (R.isValid())
    refuseReparseHazard(F, R);
  keepLines(Out, Lines, R, SM, S.LO);
  return Out;
}

std::string Printer::macroName(const Stmt *E) const {
  SourceLocation L = SM.getExpansionLoc(E->getBeginLoc());
  return Lexer::getSourceText(CharSourceRange::getTokenRange(L, L), SM, S.LO).str();
}

CharSourceRange Printer::placeRange(const Stmt *St) const {
  CharSourceRange R = fileRange(St);
  if (R.isValid() || isa<Expr>(St))
    return R;
  // A statement that is a whole macro expansion but ends inside one of
  // its arguments (`EACH(x, h, if (c) n++;)`, the `for` ending at `n++`):
  // it starts the expansion, ends in it, and no other statement of its
  // block starts in it.
  SourceLocation B = St->getBeginLoc(), E = St->getEndLoc(), Start;
  if (!B.isMacroID() || !E.isMacroID() ||
      !Lexer::isAtStartOfMacroExpansion(B, SM, S.LO, &Start) || !Start.isFileID())
    return {};
  CharSourceRange X = SM.getExpansionRange(B);
  if (SM.getExpansionRange(E).getAsRange() != X.getAsRange() || X.getBegin() != Start)
    return {};
  auto Ps = S.Ctx.getParents(*St);
  if (const auto *CS = Ps.empty() ? nullptr : Ps[0].get<CompoundStmt>())
    for (const Stmt *Sib : CS->body())
      if (Sib != St && Sib->getBeginLoc().isMacroID() &&
          SM.getExpansionRange(Sib->getBeginLoc()).getAsRange() == X.getAsRange())
        return {};
  return Lexer::makeFileCharRange(X, SM, S.LO);
}

const Stmt *Printer::placeable(const Stmt *E, const Stmt *Top) {
  DynTypedNode N = DynTypedNode::create(*E);
  for (;;) {
    if (const Stmt *X = N.get<Stmt>()) {
      if (placeRange(X).isValid())
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
