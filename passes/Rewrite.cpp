//===- Rewrite.cpp - compact bodies ---------------------------------------===//
//
// In:  the Model (Analysis, Layout) and every function body and file-scope
//      initializer outside system headers.
// Out: edits: each outermost affected expression is replaced once by text
//      built from its subexpressions (untouched leaves are copied from the
//      source, or printed from the AST when they come from a macro body).
//
// The compact body form (compact-only mode) rewrites:
//   - member access through compact pointers: plain fields in place, handle
//     reads decode, handle stores encode through cp__sth(&slot, v), so every
//     lvalue is evaluated once; NULL tests and handle comparisons compare
//     handles without decoding;
//   - `*p`, `p[i]`, pointer arithmetic and differences with the compact
//     stride (++, --, +=, -= through cp__padd(&slot, bytes, post));
//   - copies between heap objects and wide values through the generated
//     converters cp__load_T / cp__store_T;
//   - sizeof, _Alignof, offsetof of compact types and heap objects.
// Every mode rewrites malloc/calloc/realloc/free of compact types into the
// typed runtime calls and heap arrays of compact pointers into root arrays.
// A new function form (dual, checked) adds a `Form` to BodyRewriter and
// chooses per function; the expression rules stay.
//
// Invariants: never emits a partial rewrite (errors clear all edits in
//      Engine.cpp); anything it cannot rewrite is an error at the user's
//      location.
// Tests: test/rewrite/*.c, test/plugin/*.c.
//
//===----------------------------------------------------------------------===//
#include "Engine.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/PrettyPrinter.h"
#include "clang/Lex/Lexer.h"
#include "llvm/Support/raw_ostream.h"
#include <set>

using namespace clang;

namespace compactptr {
namespace {

enum class AllocFn { None, Malloc, Calloc, Realloc, Free };

AllocFn allocFunction(const CallExpr *CE) {
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!FD || !FD->getIdentifier())
    return AllocFn::None;
  StringRef N = FD->getName();
  // A program's own function called malloc is not libc's.
  if (FD->hasBody() && !FD->isInlined())
    return AllocFn::None;
  if (N == "malloc" && CE->getNumArgs() == 1)
    return AllocFn::Malloc;
  if (N == "calloc" && CE->getNumArgs() == 2)
    return AllocFn::Calloc;
  if (N == "realloc" && CE->getNumArgs() == 2)
    return AllocFn::Realloc;
  if (N == "free" && CE->getNumArgs() == 1)
    return AllocFn::Free;
  return AllocFn::None;
}

/// `sizeof(T)`, `n * sizeof(T)`, `sizeof(T) * n`.
struct SizeShape {
  bool Ok = false;
  QualType Elem;
  const Expr *Count = nullptr; ///< null: one element
};

SizeShape sizeShape(const Expr *E) {
  SizeShape R;
  E = E->IgnoreParenImpCasts();
  if (const auto *U = dyn_cast<UnaryExprOrTypeTraitExpr>(E)) {
    if (U->getKind() == UETT_SizeOf) {
      R.Ok = true;
      R.Elem = U->getTypeOfArgument();
    }
    return R;
  }
  if (const auto *B = dyn_cast<BinaryOperator>(E)) {
    if (B->getOpcode() != BO_Mul)
      return R;
    SizeShape L = sizeShape(B->getLHS()), Rt = sizeShape(B->getRHS());
    if (L.Ok && !L.Count) {
      L.Count = B->getRHS();
      return L;
    }
    if (Rt.Ok && !Rt.Count) {
      Rt.Count = B->getLHS();
      return Rt;
    }
  }
  return R;
}

/// The body a function gets.  Compact-only mode gives every function the
/// Compact form, wide mode the Wide form (allocation only).  The switchable
/// mode adds Dual (a compact clone `f__cp` plus the wide original with a
/// dispatch) and Checked (each operation picks its layout by mode): both
/// reuse the expression rules below through `compact()`.
enum class Form { Compact, Wide };

class BodyRewriter {
public:
  explicit BodyRewriter(Session &S) : S(S), M(S.M), SM(S.SM) {}

  void rewriteFunction(const FunctionDecl *FD) {
    TheForm = formFor(FD);
    Affected.clear();
    walk(FD->getBody());
  }
  void rewriteInit(const Expr *E) {
    TheForm = S.Opts.compactBodies() ? Form::Compact : Form::Wide;
    Affected.clear();
    top(E, false);
  }

private:
  Session &S;
  const Model &M;
  const SourceManager &SM;
  Form TheForm = Form::Compact;
  llvm::DenseMap<const Stmt *, bool> Affected;
  std::set<std::pair<unsigned, std::string>> Reported;

  Form formFor(const FunctionDecl *) const {
    return S.Opts.compactBodies() ? Form::Compact : Form::Wide;
  }
  bool compact() const { return TheForm == Form::Compact; }

  void fail(const Stmt *E, const std::string &Msg) {
    SourceLocation L = E->getBeginLoc();
    if (const auto *X = dyn_cast<Expr>(E))
      L = X->getExprLoc();
    if (!Reported.insert({L.getRawEncoding(), Msg}).second) {
      ++S.Errors;
      return;
    }
    S.error(L, Msg, {CharSourceRange::getTokenRange(E->getSourceRange())});
  }

  // ---- statements ----------------------------------------------------------
  void walk(const Stmt *St) {
    if (!St)
      return;
    if (const auto *E = dyn_cast<Expr>(St)) {
      top(E, false);
      return;
    }
    if (const auto *I = dyn_cast<IfStmt>(St)) {
      walk(I->getInit());
      walk(I->getConditionVariableDeclStmt());
      top(I->getCond(), true);
      walk(I->getThen());
      walk(I->getElse());
      return;
    }
    if (const auto *W = dyn_cast<WhileStmt>(St)) {
      top(W->getCond(), true);
      walk(W->getBody());
      return;
    }
    if (const auto *D = dyn_cast<DoStmt>(St)) {
      walk(D->getBody());
      top(D->getCond(), true);
      return;
    }
    if (const auto *F = dyn_cast<ForStmt>(St)) {
      walk(F->getInit());
      top(F->getCond(), true);
      top(F->getInc(), false);
      walk(F->getBody());
      return;
    }
    if (const auto *DS = dyn_cast<DeclStmt>(St)) {
      std::string Roots;
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D)) {
          if (const Expr *Init = VD->getInit())
            top(Init, false);
          if (VD->isStaticLocal())
            Roots += rootDescText(S, VD, " ");
        }
      // Static locals' root descriptors follow their declaration, on its line.
      SourceLocation End = DS->getEndLoc();
      if (!Roots.empty() && End.isFileID()) {
        auto [FID, Off] = SM.getDecomposedLoc(End);
        S.Edits.insert(FID, Off + 1, " " + Roots);
      }
      return;
    }
    for (const Stmt *C : St->children())
      walk(C);
  }

  /// Replace a maximal affected expression.
  void top(const Expr *E, bool BoolCtx) {
    if (!E || !affected(E))
      return;
    unsigned Before = S.Errors;
    std::string T = BoolCtx ? boolText(E) : text(E);
    if (S.Errors != Before)
      return;
    CharSourceRange R = fileRange(E);
    if (!S.Edits.replace(SM, R, T))
      fail(E, macroMessage(E));
  }

  // ---- source text -------------------------------------------------------
  CharSourceRange fileRange(const Stmt *E) const {
    return Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(E->getSourceRange()), SM, S.LO);
  }

  std::string macroMessage(const Stmt *E) const {
    SourceLocation L = E->getBeginLoc();
    if (L.isMacroID()) {
      StringRef Name = Lexer::getImmediateMacroNameForDiagnostics(L, SM, S.LO);
      if (!Name.empty())
        return "cannot rewrite this use of a compact type: it is produced by "
               "macro '" + Name.str() +
               "'; write the access outside the macro or make it a function";
    }
    return "cannot rewrite this use of a compact type: it is produced by a "
           "macro expansion";
  }

  std::string original(const Stmt *E) {
    CharSourceRange R = fileRange(E);
    if (R.isValid()) {
      bool Invalid = false;
      StringRef T = Lexer::getSourceText(R, SM, S.LO, &Invalid);
      if (!Invalid)
        return T.str();
    }
    std::string Out;
    llvm::raw_string_ostream OS(Out);
    PrintingPolicy P(S.LO);
    P.SuppressTagKeyword = false;
    E->printPretty(OS, nullptr, P);
    return "(" + OS.str() + ")";
  }

  struct Part {
    unsigned B, E;
    std::string T;
  };

  /// The affected children of E whose text lies in [Begin, End) of FID;
  /// through nodes of a macro body that need no rebuilding, their
  /// descendants (macro arguments).
  bool collectParts(const Stmt *E, FileID FID, unsigned Begin, unsigned End,
                    std::vector<Part> &Parts) {
    for (const Stmt *C : E->children()) {
      if (!C || !affected(C))
        continue;
      CharSourceRange CR = fileRange(C);
      bool Inside = CR.isValid() && SM.getFileID(CR.getBegin()) == FID &&
                    SM.getFileOffset(CR.getBegin()) >= Begin &&
                    SM.getFileOffset(CR.getEnd()) <= End;
      if (Inside) {
        Parts.push_back({SM.getFileOffset(CR.getBegin()),
                         SM.getFileOffset(CR.getEnd()), text(C)});
        continue;
      }
      if (needsRebuild(C) || !C->getBeginLoc().isMacroID()) {
        fail(C, macroMessage(C));
        return false;
      }
      if (!collectParts(C, FID, Begin, End, Parts))
        return false;
    }
    return true;
  }

  /// text(C) is not just C's source with its children rewritten.
  bool needsRebuild(const Stmt *C) {
    if (own(C))
      return true;
    if (!compact())
      return false;
    if (const auto *IC = dyn_cast<ImplicitCastExpr>(C)) {
      const Expr *Sub = IC->getSubExpr();
      return (IC->getCastKind() == CK_LValueToRValue ||
              IC->getCastKind() == CK_ArrayToPointerDecay) &&
             (isHandleLValue(M, Sub) || isCompactLocated(M, Sub));
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(C))
      return BO->getOpcode() == BO_Assign &&
             (isHandleLValue(M, BO->getLHS()) || isCompactLocated(M, BO->getLHS()));
    if (const auto *UO = dyn_cast<UnaryOperator>(C))
      return UO->getOpcode() == UO_AddrOf && isCompactLocated(M, UO->getSubExpr());
    return false;
  }

  /// The original text of E with each affected child replaced.
  std::string splice(const Stmt *E) {
    CharSourceRange R = fileRange(E);
    if (R.isInvalid()) {
      fail(E, macroMessage(E));
      return "";
    }
    auto [FID, Begin] = SM.getDecomposedLoc(R.getBegin());
    unsigned End = SM.getFileOffset(R.getEnd());
    std::vector<Part> Parts;
    if (!collectParts(E, FID, Begin, End, Parts))
      return "";
    std::sort(Parts.begin(), Parts.end(),
              [](const Part &A, const Part &B) { return A.B < B.B; });
    StringRef Buf = SM.getBufferData(FID);
    std::string Out;
    unsigned Pos = Begin;
    for (size_t I = 0; I < Parts.size(); ++I) {
      const Part &P = Parts[I];
      if (P.B < Pos) {
        // The same macro argument expanded twice: identical text.
        if (I > 0 && P.B == Parts[I - 1].B && P.E == Parts[I - 1].E &&
            P.T == Parts[I - 1].T)
          continue;
        fail(E, macroMessage(E));
        return "";
      }
      Out += Buf.substr(Pos, P.B - Pos).str();
      Out += P.T;
      Pos = P.E;
    }
    Out += Buf.substr(Pos, End - Pos).str();
    return Out;
  }

  // ---- what needs rewriting ----------------------------------------------
  bool affected(const Stmt *St) {
    auto It = Affected.find(St);
    if (It != Affected.end())
      return It->second;
    bool A = false;
    if (const auto *U = dyn_cast<UnaryExprOrTypeTraitExpr>(St)) {
      A = compactTrait(U); // unevaluated operands are left alone
    } else {
      A = own(St);
      for (const Stmt *C : St->children())
        if (C && affected(C))
          A = true;
    }
    Affected[St] = A;
    return A;
  }

  /// The node itself is rewritten (not only a descendant).
  bool own(const Stmt *St) {
    if (const auto *CE = dyn_cast<CallExpr>(St))
      return allocFunction(CE) != AllocFn::None && allocShape(CE);
    if (!compact())
      return false;
    if (const auto *ME = dyn_cast<MemberExpr>(St))
      return ME->isArrow() ? M.pointeeOf(ME->getBase()->getType()) != nullptr
                           : isCompactLocated(M, ME->getBase());
    if (const auto *UO = dyn_cast<UnaryOperator>(St)) {
      if (UO->getOpcode() == UO_Deref)
        return M.pointeeOf(UO->getSubExpr()->getType()) != nullptr;
      if (UO->isIncrementDecrementOp())
        return M.pointeeOf(UO->getType()) != nullptr;
      return false;
    }
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(St))
      return M.pointeeOf(AS->getBase()->getType()) && M.recordOf(AS->getType());
    if (const auto *BO = dyn_cast<BinaryOperator>(St)) {
      switch (BO->getOpcode()) {
      case BO_Add:
      case BO_Sub:
      case BO_AddAssign:
      case BO_SubAssign:
        return M.pointeeOf(BO->getLHS()->getType()) ||
               M.pointeeOf(BO->getRHS()->getType());
      default:
        return false;
      }
    }
    if (const auto *OE = dyn_cast<OffsetOfExpr>(St))
      return M.recordOf(OE->getTypeSourceInfo()->getType()) != nullptr;
    return false;
  }

  bool compactTrait(const UnaryExprOrTypeTraitExpr *U) {
    if (!compact())
      return false;
    if (U->getKind() != UETT_SizeOf && U->getKind() != UETT_AlignOf &&
        U->getKind() != UETT_PreferredAlignOf)
      return false;
    if (U->isArgumentType())
      return M.elementOf(U->getArgumentType()) != nullptr;
    return isCompactLocated(M, U->getArgumentExpr());
  }

  // ---- text ----------------------------------------------------------------
  std::string ct(const CompactType *T) {
    if (!T) { // a classification bug: refuse rather than crash
      ++S.Errors;
      S.error(SourceLocation(), "compactptr internal error: no compact type "
                                "for a rewritten expression");
      return "";
    }
    return T->compactSpelling();
  }
  std::string ty(QualType T) { return S.typeText(T); }

  /// Text of E as a plain C expression of E's type.
  std::string text(const Stmt *St) {
    if (!affected(St))
      return original(St);
    const auto *E = dyn_cast<Expr>(St);
    if (!E)
      return splice(St);

    if (const auto *IC = dyn_cast<ImplicitCastExpr>(E)) {
      const Expr *Sub = IC->getSubExpr();
      if (compact() && IC->getCastKind() == CK_LValueToRValue) {
        if (isHandleLValue(M, Sub))
          return "((" + ty(IC->getType()) + ")cp_decode(" + clv(Sub) + "))";
        if (CompactType *T = M.recordOf(Sub->getType()); T && isCompactLocated(M, Sub))
          return "cp__load_" + T->Name + "(" + caddr(Sub) + ")";
      }
      if (compact() && IC->getCastKind() == CK_ArrayToPointerDecay &&
          isCompactLocated(M, Sub))
        return "((" + ty(IC->getType()) + ")" + clv(Sub) + ")";
      return text(Sub);
    }

    if (const auto *ME = dyn_cast<MemberExpr>(E)) {
      if (compact() && own(ME)) {
        if (isHandleLValue(M, ME) || isHandleArray(M, ME) || isCompactLocated(M, ME)) {
          fail(ME, "this use of handle field '" +
                       ME->getMemberDecl()->getName().str() +
                       "' cannot be rewritten; read it into a local first");
          return "";
        }
        return clv(ME);
      }
      return splice(ME);
    }

    if (const auto *UO = dyn_cast<UnaryOperator>(E))
      return unaryText(UO);
    if (const auto *BO = dyn_cast<BinaryOperator>(E))
      return binaryText(BO);
    if (const auto *CO = dyn_cast<ConditionalOperator>(E))
      return "(" + boolText(CO->getCond()) + " ? " + text(CO->getTrueExpr()) +
             " : " + text(CO->getFalseExpr()) + ")";

    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
      if (compact() && (isCompactLocated(M, AS) || isHandleLValue(M, AS))) {
        fail(AS, "this use of a heap object of compact type cannot be "
                 "rewritten; copy it into a local first");
        return "";
      }
      return splice(AS);
    }

    if (const auto *U = dyn_cast<UnaryExprOrTypeTraitExpr>(E))
      return traitText(U);

    if (const auto *OE = dyn_cast<OffsetOfExpr>(E))
      return offsetofText(OE);

    if (const auto *CE = dyn_cast<CallExpr>(E))
      if (allocFunction(CE) != AllocFn::None && allocShape(CE))
        return allocText(CE);

    return splice(E);
  }

  /// Text of E in a truth-value context: handles compare without decode.
  std::string boolText(const Expr *E) {
    const Expr *X = E->IgnoreParens();
    if (const auto *IC = dyn_cast<ImplicitCastExpr>(X))
      if (compact() && IC->getCastKind() == CK_LValueToRValue &&
          isHandleLValue(M, IC->getSubExpr()))
        return "(" + clv(IC->getSubExpr()) + " != 0)";
    return text(E);
  }

  /// A handle read: `(h)` if E is the rvalue of a handle field.
  const Expr *handleRead(const Expr *E) {
    const Expr *X = E->IgnoreParens();
    if (const auto *IC = dyn_cast<ImplicitCastExpr>(X))
      if (IC->getCastKind() == CK_LValueToRValue && isHandleLValue(M, IC->getSubExpr()))
        return IC->getSubExpr();
    return nullptr;
  }

  /// Compact lvalue text: an lvalue in compact layout for a compact-located
  /// object, a handle slot (cp_handle_t) or a plain field of one.
  std::string clv(const Expr *E) {
    E = E->IgnoreParens();
    if (const auto *UO = dyn_cast<UnaryOperator>(E);
        UO && UO->getOpcode() == UO_Deref) {
      CompactType *T = M.pointeeOf(UO->getSubExpr()->getType());
      return "(*(" + ct(T) + " *)(" + text(UO->getSubExpr()) + "))";
    }
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
      const Expr *B = AS->getBase()->IgnoreParens();
      if (const auto *IC = dyn_cast<ImplicitCastExpr>(B))
        if (IC->getCastKind() == CK_ArrayToPointerDecay &&
            (isCompactLocated(M, IC->getSubExpr()) || isHandleArray(M, IC->getSubExpr())))
          return "(" + clv(IC->getSubExpr()) + "[" + text(AS->getIdx()) + "])";
      CompactType *T = M.pointeeOf(AS->getBase()->getType());
      return "(((" + ct(T) + " *)(" + text(AS->getBase()) + "))[" +
             text(AS->getIdx()) + "])";
    }
    if (const auto *ME = dyn_cast<MemberExpr>(E)) {
      if (!ME->isArrow() && !isCompactLocated(M, ME->getBase())) {
        fail(E, "this use of a compact type cannot be rewritten");
        return "";
      }
      std::string N = ME->getMemberDecl()->getName().str();
      if (ME->isArrow()) {
        CompactType *T = M.pointeeOf(ME->getBase()->getType());
        return "(((" + ct(T) + " *)(" + text(ME->getBase()) + "))->" + N + ")";
      }
      return "(" + clv(ME->getBase()) + "." + N + ")";
    }
    fail(E, "internal: no compact lvalue for this expression");
    return "";
  }

  std::string caddr(const Expr *E) { return "(&" + clv(E) + ")"; }

  std::string unaryText(const UnaryOperator *UO) {
    const Expr *Sub = UO->getSubExpr();
    switch (UO->getOpcode()) {
    case UO_Deref:
      if (compact() && M.pointeeOf(Sub->getType())) {
        fail(UO, "this use of a heap object of compact type cannot be "
                 "rewritten; copy it into a local first");
        return "";
      }
      break;
    case UO_AddrOf:
      if (compact() && isCompactLocated(M, Sub))
        return "((" + ty(UO->getType()) + ")" + caddr(Sub) + ")";
      if (compact() && (isHandleLValue(M, Sub) || isHandleArray(M, Sub))) {
        fail(UO, "the address of a handle field cannot be taken");
        return "";
      }
      break;
    case UO_LNot:
      return "(!" + boolText(Sub) + ")";
    case UO_PreInc:
    case UO_PreDec:
    case UO_PostInc:
    case UO_PostDec:
      if (CompactType *T = compact() ? M.pointeeOf(UO->getType()) : nullptr) {
        bool Post = UO->isPostfix();
        std::string D = UO->isIncrementOp() ? "" : "-";
        std::string Call =
            isHandleLValue(M, Sub)
                ? "cp__hadd(&" + clv(Sub) + ", "
                : "cp__padd(&(" + text(Sub) + "), ";
        Call += D + "(long)sizeof(" + ct(T) + "), " + (Post ? "1" : "0") + ")";
        if (isStatementLevel(UO))
          return Call;
        return "((" + ty(UO->getType()) + ")" + Call + ")";
      }
      break;
    default:
      break;
    }
    return splice(UO);
  }

  std::string binaryText(const BinaryOperator *BO) {
    const Expr *L = BO->getLHS(), *R = BO->getRHS();
    if (!compact())
      return splice(BO);
    switch (BO->getOpcode()) {
    case BO_Assign:
      if (isHandleLValue(M, L)) {
        if (isStatementLevel(BO))
          return "cp__sth(&" + clv(L) + ", " + text(R) + ")";
        return "((" + ty(L->getType()) + ")cp__sth(&" + clv(L) + ", " + text(R) + "))";
      }
      if (CompactType *T = M.recordOf(L->getType()); T && isCompactLocated(M, L)) {
        // Heap object = heap object of the same type: copy the compact bytes.
        if (CompactType *RT = M.recordOf(R->getType()); RT == T) {
          const Expr *RX = R->IgnoreParens();
          if (const auto *IC = dyn_cast<ImplicitCastExpr>(RX))
            if (IC->getCastKind() == CK_LValueToRValue &&
                isCompactLocated(M, IC->getSubExpr()) && isStatementLevel(BO))
              return "(void)(" + clv(L) + " = " + clv(IC->getSubExpr()) + ")";
        }
        return "cp__store_" + T->Name + "(" + caddr(L) + ", " + text(R) + ")";
      }
      break;
    case BO_AddAssign:
    case BO_SubAssign:
      if (CompactType *T = M.pointeeOf(L->getType())) {
        std::string D = BO->getOpcode() == BO_AddAssign ? "" : "-";
        std::string Call = isHandleLValue(M, L) ? "cp__hadd(&" + clv(L) + ", "
                                                : "cp__padd(&(" + text(L) + "), ";
        Call += D + "(long)(" + text(R) + ") * (long)sizeof(" + ct(T) + "), 0)";
        if (isStatementLevel(BO))
          return Call;
        return "((" + ty(L->getType()) + ")" + Call + ")";
      }
      break;
    case BO_Add:
    case BO_Sub: {
      CompactType *LT = M.pointeeOf(L->getType()), *RT = M.pointeeOf(R->getType());
      if (LT && RT)
        return "((" + ct(LT) + " *)(" + text(L) + ") - (" + ct(RT) + " *)(" +
               text(R) + "))";
      if (LT)
        return "((" + ty(BO->getType()) + ")((" + ct(LT) + " *)(" + text(L) +
               ") " + (BO->getOpcode() == BO_Add ? "+" : "-") + " (" + text(R) + ")))";
      if (RT)
        return "((" + ty(BO->getType()) + ")((" + text(L) + ") + (" + ct(RT) +
               " *)(" + text(R) + ")))";
      break;
    }
    case BO_EQ:
    case BO_NE: {
      std::string Op = BO->getOpcode() == BO_EQ ? " == " : " != ";
      const Expr *HL = handleRead(L), *HR = handleRead(R);
      auto isNull = [&](const Expr *X) {
        return X->isNullPointerConstant(S.Ctx, Expr::NPC_ValueDependentIsNotNull) !=
               Expr::NPCK_NotNull;
      };
      // Directly inside if (...) / while (...): no extra parentheses, which
      // -Wparentheses-equality would flag.
      std::string O = isStatementLevel(BO) ? "" : "(", C = O.empty() ? "" : ")";
      if (HL && HR)
        return O + clv(HL) + Op + clv(HR) + C;
      if (HL && isNull(R))
        return O + clv(HL) + Op + "0" + C;
      if (HR && isNull(L))
        return O + "0" + Op + clv(HR) + C;
      break;
    }
    case BO_LAnd:
    case BO_LOr:
      return "(" + boolText(L) + (BO->getOpcode() == BO_LAnd ? " && " : " || ") +
             boolText(R) + ")";
    default:
      break;
    }
    return splice(BO);
  }

  /// E is a full expression whose value is discarded or only tested
  /// (expression statement, for-increment, condition), so its type may
  /// change from `T *` to `void *` and it needs no extra parentheses.
  bool isStatementLevel(const Expr *E) {
    auto Ps = S.Ctx.getParents(*E);
    if (Ps.empty())
      return false;
    const Stmt *P = Ps[0].get<Stmt>();
    return P && !isa<Expr>(P) && !isa<ReturnStmt>(P);
  }

  std::string traitText(const UnaryExprOrTypeTraitExpr *U) {
    std::string Kw = U->getKind() == UETT_SizeOf ? "sizeof"
                     : U->getKind() == UETT_AlignOf ? "_Alignof"
                                                     : "__alignof__";
    if (U->isArgumentType()) {
      QualType T = U->getArgumentType();
      if (CompactType *C = M.recordOf(T))
        return Kw + "(" + ct(C) + ")";
      // An array of compact structs: count * compact size.
      uint64_t N = 1;
      QualType E = T.getCanonicalType();
      while (const auto *CAT = dyn_cast<ConstantArrayType>(E.getTypePtr())) {
        N *= CAT->getSize().getZExtValue();
        E = CAT->getElementType().getCanonicalType();
      }
      CompactType *C = M.recordOf(E);
      if (!C || E == T.getCanonicalType()) {
        fail(U, "cannot rewrite this sizeof of a compact type");
        return "";
      }
      if (Kw == "sizeof")
        return "((unsigned long)" + std::to_string(N) + " * sizeof(" + ct(C) + "))";
      return Kw + "(" + ct(C) + ")";
    }
    return Kw + "(" + clv(U->getArgumentExpr()) + ")";
  }

  std::string offsetofText(const OffsetOfExpr *OE) {
    CompactType *T = M.recordOf(OE->getTypeSourceInfo()->getType());
    std::string Out = "__builtin_offsetof(" + ct(T) + ", ";
    for (unsigned I = 0; I < OE->getNumComponents(); ++I) {
      const OffsetOfNode &N = OE->getComponent(I);
      switch (N.getKind()) {
      case OffsetOfNode::Field:
        if (I)
          Out += ".";
        Out += N.getField()->getName().str();
        break;
      case OffsetOfNode::Identifier:
        if (I)
          Out += ".";
        Out += N.getFieldName()->getName().str();
        break;
      case OffsetOfNode::Array:
        Out += "[" + text(OE->getIndexExpr(N.getArrayExprIndex())) + "]";
        break;
      case OffsetOfNode::Base:
        break;
      }
    }
    return Out + ")";
  }

  // ---- allocation ----------------------------------------------------------
  /// The pointer type the allocation result is converted to (through
  /// parentheses and casts), or the call's own type.
  QualType destinationType(const Expr *Call) {
    const Expr *Cur = Call;
    QualType T = Call->getType();
    for (;;) {
      auto Ps = S.Ctx.getParents(*Cur);
      if (Ps.empty())
        return T;
      const Expr *P = Ps[0].get<Expr>();
      if (!P)
        return T;
      if (isa<ParenExpr>(P)) {
        Cur = P;
        continue;
      }
      if (const auto *C = dyn_cast<CastExpr>(P)) {
        if (!C->getType()->isPointerType())
          return T;
        T = C->getType();
        Cur = P;
        continue;
      }
      return T;
    }
  }

  /// A compact pointer to pointer: `struct node **`.
  CompactType *rootPointee(QualType T) {
    if (!T->isPointerType())
      return nullptr;
    return M.pointeeOf(T->getPointeeType());
  }

  /// The call allocates or frees compact objects or root arrays.
  bool allocShape(const CallExpr *CE) {
    switch (allocFunction(CE)) {
    case AllocFn::Free: {
      QualType A = CE->getArg(0)->IgnoreParenImpCasts()->getType();
      return M.pointeeOf(A) || rootPointee(A);
    }
    case AllocFn::Malloc:
    case AllocFn::Calloc:
    case AllocFn::Realloc: {
      QualType D = destinationType(CE);
      if (M.pointeeOf(D) || rootPointee(D))
        return true;
      if (allocFunction(CE) == AllocFn::Realloc) {
        QualType A = CE->getArg(0)->IgnoreParenImpCasts()->getType();
        if (M.pointeeOf(A) || rootPointee(A))
          return true;
      }
      SizeShape Sh = sizeFor(CE);
      return Sh.Ok && (M.recordOf(Sh.Elem) || rootPointee(QualType(
                           S.Ctx.getPointerType(Sh.Elem))));
    }
    case AllocFn::None:
      return false;
    }
    return false;
  }

  SizeShape sizeFor(const CallExpr *CE) {
    switch (allocFunction(CE)) {
    case AllocFn::Malloc:
      return sizeShape(CE->getArg(0));
    case AllocFn::Realloc:
      return sizeShape(CE->getArg(1));
    case AllocFn::Calloc: {
      SizeShape A = sizeShape(CE->getArg(1));
      if (A.Ok && !A.Count) {
        A.Count = CE->getArg(0);
        return A;
      }
      SizeShape B = sizeShape(CE->getArg(0));
      if (B.Ok && !B.Count) {
        B.Count = CE->getArg(1);
        return B;
      }
      return SizeShape();
    }
    default:
      return SizeShape();
    }
  }

  std::string countText(const SizeShape &Sh, const CallExpr *CE) {
    if (!Sh.Count)
      return "1";
    return "(unsigned long)(" + text(Sh.Count) + ")";
  }

  std::string allocText(const CallExpr *CE) {
    AllocFn F = allocFunction(CE);
    if (F == AllocFn::Free) {
      const Expr *A = CE->getArg(0);
      QualType AT = A->IgnoreParenImpCasts()->getType();
      if (M.pointeeOf(AT))
        return "cp_free(" + text(A) + ")";
      return "cp_root_array_free((void **)(" + text(A) + "))";
    }
    QualType D = destinationType(CE);
    SizeShape Sh = sizeFor(CE);
    CompactType *DT = M.pointeeOf(D), *DR = rootPointee(D);
    if (F == AllocFn::Realloc && !DT && !DR) {
      QualType A = CE->getArg(0)->IgnoreParenImpCasts()->getType();
      DT = M.pointeeOf(A);
      DR = rootPointee(A);
    }
    CompactType *ST = Sh.Ok ? M.recordOf(Sh.Elem) : nullptr;
    CompactType *SR = Sh.Ok && Sh.Elem->isPointerType() ? M.pointeeOf(Sh.Elem) : nullptr;
    const Expr *SizeArg = CE->getArg(F == AllocFn::Realloc ? 1 : 0);
    if (F == AllocFn::Calloc && !Sh.Ok)
      SizeArg = CE->getArg(1);

    if (DT && !ST) {
      std::vector<FixItHint> Fix;
      if (F == AllocFn::Malloc && SR == nullptr)
        if (const auto *U = dyn_cast<UnaryExprOrTypeTraitExpr>(SizeArg->IgnoreParenImpCasts()))
          Fix.push_back(FixItHint::CreateReplacement(
              CharSourceRange::getTokenRange(U->getSourceRange()),
              "sizeof(" + DT->WideSpelling + ")"));
      S.error(SizeArg->getExprLoc(),
              "allocation of compact type '" + DT->WideSpelling +
                  "' must have its size expressed as sizeof(" + DT->WideSpelling +
                  ") or n * sizeof(" + DT->WideSpelling + ")",
              {CharSourceRange::getTokenRange(SizeArg->getSourceRange())}, Fix);
      return "";
    }
    if (DT && ST && DT != ST) {
      fail(CE, "allocation of '" + ST->WideSpelling + "' is converted to '" +
                   ty(D) + "'");
      return "";
    }
    if (DR && !SR) {
      S.error(SizeArg->getExprLoc(),
              "allocation of an array of compact pointers must have its size "
              "expressed as n * sizeof(" + DR->WideSpelling + " *)",
              {CharSourceRange::getTokenRange(SizeArg->getSourceRange())});
      return "";
    }
    if (ST) {
      std::string Desc = "&" + ST->DescName;
      if (F == AllocFn::Realloc)
        return "cp_realloc_array(" + Desc + ", " + text(CE->getArg(0)) + ", " +
               countText(Sh, CE) + ")";
      if (!Sh.Count)
        return "cp_alloc(" + Desc + ")";
      return "cp_alloc_array(" + Desc + ", " + countText(Sh, CE) + ")";
    }
    if (SR) {
      if (F == AllocFn::Realloc)
        return "((void *)cp_root_array_realloc((void **)(" + text(CE->getArg(0)) +
               "), " + countText(Sh, CE) + "))";
      return "((void *)cp_root_array_alloc(" + countText(Sh, CE) + "))";
    }
    return splice(CE);
  }
};

} // namespace

void runRewrite(Session &S) {
  BodyRewriter R(S);
  for (const Decl *D : S.Ctx.getTranslationUnitDecl()->decls()) {
    if (S.isIgnoredLoc(D->getLocation()))
      continue;
    if (const auto *FD = dyn_cast<FunctionDecl>(D)) {
      if (FD->doesThisDeclarationHaveABody())
        R.rewriteFunction(FD);
    } else if (const auto *VD = dyn_cast<VarDecl>(D)) {
      if (const Expr *Init = VD->getInit())
        R.rewriteInit(Init);
    }
  }
}

} // namespace compactptr
