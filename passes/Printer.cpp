//===- Printer.cpp - expressions printed in one form ----------------------===//
//
// In:  one expression of a function body or file-scope initializer.
// Out: its text in the printer's form.  Compact form rewrites:
//   - member access through compact pointers: plain fields in place, handle
//     reads decode, handle stores encode through cp__sth(&slot, v), so every
//     lvalue is evaluated once; NULL tests and handle comparisons compare
//     handles without decoding;
//   - `*p`, `p[i]`, pointer arithmetic and differences with the compact
//     stride (++, --, +=, -= through cp__padd(&slot, bytes, post));
//   - copies between heap objects and wide values through the generated
//     converters cp__load_T / cp__store_T;
//   - sizeof, _Alignof, offsetof of compact types and heap objects.
// Operators (unary, binary, pointer arithmetic) are printed in
// Operators.cpp.  Both forms rewrite allocation (Allocation.cpp).  A node whose own text
// is unchanged is spliced: the user's text with its rewritten children
// put in.
// Invariants: never half an expression: a node it cannot print is a
//      refusal at the user's location (Refusals), and the walker records
//      no edit for it.
// Tests: test/rewrite/*.c.
//
//===----------------------------------------------------------------------===//
#include "Printer.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/PrettyPrinter.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/Stack.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/raw_ostream.h"
#include <functional>

using namespace clang;

namespace compactptr {

void Refusals::fail(const Stmt *E, const std::string &Msg, Diag D) {
  SourceLocation L = E->getBeginLoc();
  if (const auto *X = dyn_cast<Expr>(E))
    L = X->getExprLoc();
  S.report(D, L, Msg, {CharSourceRange::getTokenRange(E->getSourceRange())});
}

bool Printer::dualCallee(const CallExpr *CE) const {
  const FunctionDecl *FD = CE->getDirectCallee();
  return FD && Duals.count(FD->getCanonicalDecl()) &&
         isa<DeclRefExpr>(CE->getCallee()->IgnoreParenImpCasts());
}

/// The line break at NL of Buf is escaped (`\` before it, CRLF too).
static bool continued(StringRef Buf, size_t NL) {
  if (NL > 0 && Buf[NL - 1] == '\r')
    --NL;
  return NL > 0 && Buf[NL - 1] == '\\';
}

/// The text of the logical line (backslash-newlines included) around
/// offset Off of Buf: a #define and its continuation lines.
static StringRef logicalLine(StringRef Buf, size_t Off) {
  // The line break before Off's line, then back over the lines that
  // continue into it.
  size_t B = Off ? Buf.rfind('\n', Off - 1) : StringRef::npos;
  while (B != StringRef::npos && continued(Buf, B))
    B = B ? Buf.rfind('\n', B - 1) : StringRef::npos;
  size_t E = Off;
  while ((E = Buf.find('\n', E)) != StringRef::npos && continued(Buf, E))
    ++E;
  return Buf.slice(B == StringRef::npos ? 0 : B + 1, E == StringRef::npos ? Buf.size() : E);
}

/// L lies in a macro argument that its macro (or a macro it is handed on
/// to) also stringifies: `#define SHOW(e) printf("%s = %d", #e, e)`,
/// assert's message.
static bool inStringifiedArgument(const SourceManager &SM, const LangOptions &LO,
                                  SourceLocation L) {
  while (L.isMacroID()) {
    if (!SM.isMacroArgExpansion(L)) {
      L = SM.getImmediateExpansionRange(L).getBegin();
      continue;
    }
    // Where the parameter stands in the macro's body, and its name.
    SourceLocation Use = SM.getSpellingLoc(SM.getImmediateExpansionRange(L).getBegin());
    StringRef Name = Lexer::getSourceText(CharSourceRange::getTokenRange(Use), SM, LO);
    auto [FID, Off] = SM.getDecomposedLoc(Use);
    bool Invalid = false;
    StringRef Buf = SM.getBufferData(FID, &Invalid);
    if (!Invalid && !Name.empty()) {
      StringRef Def = logicalLine(Buf, Off);
      for (size_t I = Def.find('#', 1); I != StringRef::npos; I = Def.find('#', I + 1)) {
        if (Def[I - 1] == '#' || (I + 1 < Def.size() && Def[I + 1] == '#'))
          continue; // `##` pastes
        StringRef After = Def.substr(I + 1).ltrim(" \t");
        if (After.starts_with(Name) &&
            (After.size() == Name.size() || !isAsciiIdentifierContinue(After[Name.size()])))
          return true;
      }
    }
    L = SM.getImmediateSpellingLoc(L);
  }
  return false;
}

CharSourceRange Printer::fileRange(const Stmt *E) const {
  // A macro argument the macro also stringifies has no text of its own to
  // rewrite: rewritten there, the string would spell the rewritten code
  // (`SHOW(n->v)` printed "(((struct cp__c_node *)(n))->v) = 7").  The
  // expansion is printed whole instead (Expansion.cpp), its string as the
  // macro made it.
  if (inStringifiedArgument(SM, S.LO, E->getBeginLoc()))
    return {};
  return Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(E->getSourceRange()), SM, S.LO);
}

std::string Printer::macroMessage(const Stmt *E) const {
  if (E->getBeginLoc().isMacroID())
    return "cannot rewrite this use of a compact type: it is produced by "
           "macro '" +
           macroName(E) +
           "', and no expression or statement of the function is a whole "
           "expansion of it: a macro that expands to several statements "
           "(`#define SET(p, x, y) (p)->a = x; (p)->b = y`) needs its body "
           "wrapped in `do { ... } while (0)`; a macro that produces the "
           "function itself, which is spelled out in place unless it holds "
           "a _Pragma, a __COUNTER__ or a macro name its expansion leaves "
           "unexpanded, or a directive lies between its arguments, needs "
           "the function written outside the macro";
  return "cannot rewrite this use of a compact type: it is produced by a "
         "macro expansion";
}

std::string Printer::original(const Stmt *E) {
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
  // An initializer list is no expression to parenthesize: `(List)({0, k})`
  // from a macro's `List n = { 0, k }` did not compile.
  if (isa<InitListExpr>(E))
    return OS.str();
  return "(" + OS.str() + ")";
}

/// The affected children of E whose text lies in [Begin, End) of FID;
/// through nodes of a macro body that need no rebuilding, their
/// descendants (macro arguments).
/// R's tokens are all in [Begin, End) of FID.
bool Printer::within(CharSourceRange R, FileID FID, unsigned Begin,
                     unsigned End) const {
  return R.isValid() && SM.getFileID(R.getBegin()) == FID &&
         SM.getFileOffset(R.getBegin()) >= Begin &&
         SM.getFileOffset(R.getEnd()) <= End;
}

bool Printer::collectParts(const Stmt *E, FileID FID, unsigned Begin, unsigned End,
                  EditSet &Parts) {
  for (const Stmt *C : E->children()) {
    if (!C || !affected(C))
      continue;
    CharSourceRange CR = fileRange(C);
    if (within(CR, FID, Begin, End)) {
      Parts.replace(FID, SM.getFileOffset(CR.getBegin()),
                    SM.getFileOffset(CR.getEnd()), text(C));
      continue;
    }
    // C's tokens are not all in [Begin, End): unless only its macro
    // arguments change, E is printed from the AST instead.
    if (needsRebuild(C) || !C->getBeginLoc().isMacroID())
      return false;
    if (!collectParts(C, FID, Begin, End, Parts))
      return false;
  }
  for (const Expr *T : boxedTypeofs(E))
    if (!boxedUses(T, FID, Begin, End, Parts))
      return false;
  return true;
}

/// text(C) is not just C's source with its children rewritten.
bool Printer::needsRebuild(const Stmt *C) {
  if (own(C))
    return true;
  // A sizeof or _Alignof of a compact type is printed anew (traitText):
  // inside a macro's parentheses (`#define NSZ (sizeof(struct node))`)
  // the copied text kept the wide size.
  if (const auto *U = dyn_cast<UnaryExprOrTypeTraitExpr>(C);
      U && compactTrait(U))
    return true;
  if (!compact())
    return false;
  if (const auto *IC = dyn_cast<ImplicitCastExpr>(C)) {
    const Expr *Sub = IC->getSubExpr();
    return (IC->getCastKind() == CK_LValueToRValue ||
            IC->getCastKind() == CK_ArrayToPointerDecay) &&
           (isHandleLValue(M, Sub) || isCompactLocated(M, Sub) ||
            isSlotDeref(M, Sub));
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(C))
    return BO->getOpcode() == BO_Assign &&
           (isHandleLValue(M, BO->getLHS()) || isCompactLocated(M, BO->getLHS()) ||
            isSlotDeref(M, BO->getLHS()));
  if (const auto *UO = dyn_cast<UnaryOperator>(C))
    return UO->getOpcode() == UO_AddrOf &&
           (isCompactLocated(M, UO->getSubExpr()) ||
            isHandleLValue(M, UO->getSubExpr()) || isSlotDeref(M, UO->getSubExpr()));
  return false;
}

/// The original text of E with each affected child replaced.
std::string Printer::splice(const Stmt *E) {
  CharSourceRange R = fileRange(E);
  if (R.isInvalid())
    return printed(E);
  auto [FID, Begin] = SM.getDecomposedLoc(R.getBegin());
  unsigned End = SM.getFileOffset(R.getEnd());
  EditSet Parts;
  if (!collectParts(E, FID, Begin, End, Parts))
    return printed(E);
  Rendered Out = Parts.render(FID, SM.getBufferData(FID), Begin, End);
  return Out.Ok ? Out.Text : printed(E);
}

Printer::Context::Context(Printer &P, const NameMap &Names, const SpillMap &Spills)
    : P(P) {
  SavedNames = std::move(P.Names);
  SavedSpills = std::move(P.Spills);
  SavedAffected = std::move(P.Affected);
  P.Names = Names;
  P.Spills = Spills;
  P.Affected.clear();
}

Printer::Context::~Context() {
  P.Names = std::move(SavedNames);
  P.Spills = std::move(SavedSpills);
  P.Affected = std::move(SavedAffected);
}

// ---- what needs rewriting ----------------------------------------------
bool Printer::affected(const Stmt *St) {
  if ((!Names.empty() && Names.count(St)) || spillOf(St))
    return true;
  auto It = Affected.find(St);
  if (It != Affected.end())
    return It->second;
  bool A = false;
  if (const auto *U = dyn_cast<UnaryExprOrTypeTraitExpr>(St)) {
    // Unevaluated operands are left alone, but a boxed variable has no
    // name of its own any more.
    A = compactTrait(U) ||
        (!U->isArgumentType() && mentionsBoxed(U->getArgumentExpr())) ||
        !boxedTypeofs(U).empty();
  } else {
    // `(__typeof__(v.first))x`, `__typeof__(v.first) f;` in a statement
    // expression: the type's text names v too.
    A = own(St) || !boxedTypeofs(St).empty();
    for (const Stmt *C : St->children())
      if (C && affected(C))
        A = true;
  }
  Affected[St] = A;
  return A;
}

/// The kept offset E reads (Pools.cpp), with the members its values may
/// be measured to, or null (not in wide builds, which have one layout).
const std::vector<MeasuredMember> *Printer::measuredRead(const Expr *E) const {
  const auto *IC = dyn_cast<ImplicitCastExpr>(E);
  if (!S.Opts.compactBodies() || M.MeasuredOffsets.empty() || !IC ||
      IC->getCastKind() != CK_LValueToRValue)
    return nullptr;
  if (auto It = M.MeasuredSteps.find(E); It != M.MeasuredSteps.end())
    return &It->second;
  const Expr *Sub = IC->getSubExpr()->IgnoreParens();
  const ValueDecl *V = nullptr;
  if (const auto *ME = dyn_cast<MemberExpr>(Sub))
    V = ME->getMemberDecl();
  else if (const auto *DR = dyn_cast<DeclRefExpr>(Sub))
    V = DR->getDecl();
  auto It = V ? M.MeasuredOffsets.find(V) : M.MeasuredOffsets.end();
  return It == M.MeasuredOffsets.end() ? nullptr : &It->second;
}

/// The address a step by the kept offset E reads starts from: P in `(char
/// *)P - E` or `(char *)P + E`, else null.
const Expr *Printer::stepStart(const Expr *E) const {
  const Expr *Up = parentSkippingParens(S.Ctx, E);
  while (Up && isa<ImplicitCastExpr>(Up))
    Up = parentSkippingParens(S.Ctx, Up);
  const auto *BO = dyn_cast_or_null<BinaryOperator>(Up);
  if (!BO || !BO->isAdditiveOp() || !BO->getType()->isPointerType())
    return nullptr;
  const Expr *P = BO->getLHS();
  return P->getType()->isPointerType() ? P : nullptr;
}

/// The node itself is rewritten (not only a descendant).
bool Printer::own(const Stmt *St) {
  if ((!Names.empty() && Names.count(St)) || spillOf(St))
    return true;
  if (const auto *E = dyn_cast<Expr>(St);
      E && (M.ThreadKept.count(E) || measuredRead(E)))
    return true;
  if (const auto *CE = dyn_cast<CallExpr>(St))
    return (CompactBodies && dualCallee(CE)) ||
           (allocFunction(CE) != AllocFn::None && allocShape(CE)) ||
           (S.Opts.switchable() && returnsTwice(CE->getDirectCallee())) ||
           hookAllocated(M, S.Ctx, CE) || hookFreed(M, S.Ctx, CE);
  if (const auto *DR = dyn_cast<DeclRefExpr>(St))
    return boxedVar(M, DR) != nullptr; // a variable in the heap, either form
  if (!compact())
    return false;
  if (const auto *ME = dyn_cast<MemberExpr>(St))
    return ME->isArrow() ? M.pointeeOf(ME->getBase()->getType()) != nullptr
                         : isCompactLocated(M, ME->getBase());
  if (const auto *UO = dyn_cast<UnaryOperator>(St)) {
    if (UO->getOpcode() == UO_Deref)
      return M.pointeeOf(UO->getSubExpr()->getType()) != nullptr ||
             isSlotPointer(M, UO->getSubExpr());
    if (UO->isIncrementDecrementOp())
      return M.pointeeOf(UO->getType()) != nullptr;
    return false;
  }
  if (const auto *AS = dyn_cast<ArraySubscriptExpr>(St))
    return (M.pointeeOf(AS->getBase()->getType()) && M.recordOf(AS->getType())) ||
           isHandleRootElement(M, AS);
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

bool Printer::compactTrait(const UnaryExprOrTypeTraitExpr *U) {
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
/// `struct cp__c_T *` for a pointer expression E to T, `const struct
/// cp__c_T *` if E points to const (the cast must not drop a qualifier).
std::string Printer::cptr(const CompactType *T, const Expr *E) {
  QualType P = E->getType();
  bool Const = P->isPointerType() && P->getPointeeType().isConstQualified();
  return (Const ? "const " : "") + ct(T) + " *";
}

std::string Printer::ct(const CompactType *T) {
  if (!T) { // a classification bug: refuse rather than crash
    S.report(Diag::Internal, SourceLocation(), "compactptr internal error: no compact type "
                              "for a rewritten expression");
    return "";
  }
  return T->compactSpelling();
}
/// The struct, union or enum without a name under T's pointers and arrays.
static const TagDecl *unnamedTag(QualType T) {
  while (!T.isNull()) {
    if (const auto *PT = T->getAs<PointerType>())
      T = PT->getPointeeType();
    else if (const ArrayType *AT = T->getAsArrayTypeUnsafe())
      T = AT->getElementType();
    else
      break;
  }
  const TagDecl *TD = T.isNull() ? nullptr : T->getAsTagDecl();
  return TD && !TD->getIdentifier() && !TD->getTypedefNameForAnonDecl() ? TD : nullptr;
}

std::string Printer::ty(QualType T, const Stmt *At) {
  if (At && unnamedTag(T))
    fail(At,
         "cannot rewrite this use of a compact object's member of unnamed type: "
         "the rewritten code must name the type '" + S.typeText(T) +
             "'; give the struct a tag (struct link { ... } link;)",
         Diag::UnnamedFieldType);
  return S.typeText(T);
}

/// T with each `__typeof__` whose operand names a boxed variable replaced
/// by the type it stands for, through pointers and arrays (printed from
/// the AST, the operand would keep the variable's name, which is gone).
QualType Printer::withoutBoxedTypeof(QualType T) const {
  if (M.Boxed.empty() || T.isNull())
    return T;
  ASTContext &Ctx = S.Ctx;
  Qualifiers Q = T.getLocalQualifiers();
  const Type *Ty = T.getTypePtr();
  if (const auto *TO = dyn_cast<TypeOfExprType>(Ty);
      TO && mentionsBoxed(TO->getUnderlyingExpr()))
    return Ctx.getQualifiedType(withoutBoxedTypeof(TO->desugar()), Q);
  if (const auto *PT = dyn_cast<ParenType>(Ty))
    return Ctx.getQualifiedType(withoutBoxedTypeof(PT->getInnerType()), Q);
  if (const auto *PT = dyn_cast<PointerType>(Ty))
    return Ctx.getQualifiedType(
        Ctx.getPointerType(withoutBoxedTypeof(PT->getPointeeType())), Q);
  if (const auto *AT = dyn_cast<ConstantArrayType>(Ty))
    return Ctx.getQualifiedType(
        Ctx.getConstantArrayType(withoutBoxedTypeof(AT->getElementType()),
                                 AT->getSize(), nullptr, AT->getSizeModifier(),
                                 AT->getIndexTypeCVRQualifiers()),
        Q);
  if (const auto *AT = dyn_cast<IncompleteArrayType>(Ty))
    return Ctx.getQualifiedType(
        Ctx.getIncompleteArrayType(withoutBoxedTypeof(AT->getElementType()),
                                   AT->getSizeModifier(),
                                   AT->getIndexTypeCVRQualifiers()),
        Q);
  // `__typeof__(x.first) (*fp_)(void)`: a function's result and parameters.
  if (const auto *FT = dyn_cast<FunctionProtoType>(Ty)) {
    SmallVector<QualType, 4> Params;
    for (QualType P : FT->getParamTypes())
      Params.push_back(withoutBoxedTypeof(P));
    return Ctx.getQualifiedType(
        Ctx.getFunctionType(withoutBoxedTypeof(FT->getReturnType()), Params,
                            FT->getExtProtoInfo()),
        Q);
  }
  if (const auto *FT = dyn_cast<FunctionNoProtoType>(Ty))
    return Ctx.getQualifiedType(
        Ctx.getFunctionNoProtoType(withoutBoxedTypeof(FT->getReturnType()),
                                   FT->getExtInfo()),
        Q);
  return T;
}

std::string Printer::declText(QualType T, StringRef Name) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  withoutBoxedTypeof(T).print(OS, S.policy(), Name);
  return OS.str();
}

/// Text of E as a plain C expression of E's type.  The printer recurses
/// once per level of the expression: a machine-made one (a sum of
/// thousands of terms) would overflow the stack, so each level runs where
/// clang's own recursion does, on a fresh thread's stack when this one is
/// nearly used up.
std::string Printer::text(const Stmt *St) {
  std::string Out;
  clang::runWithSufficientStackSpace([] {}, [&] { Out = textOf(St); });
  return Out;
}

std::string Printer::textOf(const Stmt *St) {
  if (StringRef N = substituted(St); !N.empty())
    return N.str();
  // What a thread hands libc (Escapes.cpp): a result, kept by the runtime
  // until its join, or a key's value, kept while the thread lives.
  if (const auto *E = dyn_cast<Expr>(St);
      E && M.ThreadKept.count(E) && ThreadKeptOpen != E) {
    const Expr *Outer = ThreadKeptOpen;
    ThreadKeptOpen = E;
    std::string T = textOf(St);
    ThreadKeptOpen = Outer;
    if (const Expr *Key = M.ThreadKept.lookup(E)) // a key's value
      return "cp_thread_specific(" + text(Key) + ", " + T + ")";
    return "cp_thread_result(" + T + ")";
  }
  // A read of an offset kept at run time that code steps by (Pools.cpp):
  // the offset, in the layout of the moment, of the member the value read
  // was measured to (a switch leaves a kept offset the compact layout's),
  // checked, since another file may set it by hand.  Compact-only code
  // has no wide layout (-1).
  if (const auto *E = dyn_cast<Expr>(St); E && MeasuredOpen != E) {
    if (const std::vector<MeasuredMember> *All = measuredRead(E)) {
      const Expr *Outer = MeasuredOpen;
      MeasuredOpen = E;
      std::string T = textOf(St);
      MeasuredOpen = Outer;
      // Only members whose compact struct and descriptor the file has
      // declared before the read can be named there (not by a generic
      // helper above the element types it serves).
      SourceLocation At = S.SM.getExpansionLoc(E->getBeginLoc());
      std::vector<MeasuredMember> Xs;
      for (const MeasuredMember &X : *All)
        if (S.SM.isBeforeInTranslationUnit(
                S.SM.getExpansionLoc(X.T->RD->getEndLoc()), At))
          Xs.push_back(X);
      auto Offsets = [&](const MeasuredMember &X) {
        const std::string F = X.F->getName().str();
        return "(long)__builtin_offsetof(" + ct(X.T) + ", " + F + "), " +
               (S.Opts.switchable() ? "(long)__builtin_offsetof(" +
                                          X.T->WideSpelling + ", " + F + ")"
                                    : std::string("-1L"));
      };
      std::string Pairs, Types, Names;
      for (const MeasuredMember &X : Xs) {
        Pairs += (Pairs.empty() ? "" : ", ") + Offsets(X);
        Types += (Types.empty() ? "&" : ", &") + X.T->DescName;
        Names += (Names.empty() ? "" : ", ") + X.T->WideSpelling + "." +
                 X.F->getName().str();
      }
      const std::string N = std::to_string(Xs.size());
      const Expr *From = stepStart(E);
      // A read that is no step (a test, a copy, a print) gets the offset
      // of the moment where the value is a member's, else the value as it
      // is (zero before the first measurement, say): only a step by it
      // must land on a member.
      // (Where a member's struct comes later, a value of its could pass for
      // another member's offset: a read that is no step keeps the value as
      // it is, and a step is refused.)
      if (!From)
        return Xs.size() < All->size()
                   ? T
                   : "cp__kept_offset_now((long)(" + T + "), " + N +
                         ", (const long[]){" + Pairs + "})";
      if (Xs.size() < All->size()) {
        auto Later = llvm::find_if(*All, [&](const MeasuredMember &X) {
          return !llvm::is_contained(Xs, X);
        });
        fail(E, "this step reads an offset kept at run time that may be "
                "the offset of member '" +
                    Later->F->getName().str() + "' of '" +
                    Later->T->WideSpelling +
                    "', which is defined after it: the step cannot name that "
                    "member's offsets here; define '" +
                    Later->T->WideSpelling + "' before this function");
        return T;
      }
      if (Xs.size() == 1)
        return "cp__measured_offset((long)(" + T + "), " + Offsets(Xs.front()) +
               ", &" + Xs.front().T->DescName + ", \"" +
               Xs.front().F->getName().str() + "\")";
      // Two members may have offsets the same number in different layouts
      // (24 compact in one type, 24 wide in another): the type of the
      // object the step starts from settles it, so that address goes too
      // where printing it twice does not evaluate anything twice.
      return "cp__measured_offset_of((long)(" + T + "), (const void *)(" +
             (!From->HasSideEffects(S.Ctx) ? textOf(From) : std::string("0")) +
             "), " + N + ", (const long[]){" + Pairs +
             "}, (cp_type_desc_t *const[]){" + Types + "}, \"" + Names + "\")";
    }
  }
  if (!affected(St))
    return original(St);
  const auto *E = dyn_cast<Expr>(St);
  if (!E)
    return splice(St);

  // An array in compact layout under a sizeof or _Alignof that is not
  // printed itself (a macro's body: `sizeof(a) / sizeof((a)[0])`): its
  // compact lvalue, so the trait measures what it measures outside macros.
  if (compact() && E->getType()->isArrayType() && isCompactLocated(M, E))
    if (isa_and_nonnull<UnaryExprOrTypeTraitExpr>(parentSkippingParens(S.Ctx, E, nullptr)))
      return clv(E);

  if (const auto *IC = dyn_cast<ImplicitCastExpr>(E)) {
    const Expr *Sub = IC->getSubExpr();
    if (compact() && IC->getCastKind() == CK_LValueToRValue) {
      if (isHandleLValue(M, Sub))
        return "((" + ty(IC->getType(), IC) + ")cp_decode(" + clv(Sub) + "))";
      if (CompactType *T = M.recordOf(Sub->getType()); T && isCompactLocated(M, Sub))
        return "cp__load_" + T->Name + "(" + caddr(Sub) + ")";
      if (isSlotDeref(M, Sub))
        return "((" + ty(IC->getType(), IC) + ")cp__slot_load(" + slotAddr(Sub) + "))";
    }
    if (compact() && IC->getCastKind() == CK_ArrayToPointerDecay &&
        isCompactLocated(M, Sub))
      return "((" + ty(IC->getType(), IC) + ")" + clv(Sub) + ")";
    return text(Sub);
  }

  // `(struct node **)malloc(..)` into a root array of handles: the
  // variable is a `cp_handle_t *` now, the written cast goes.
  if (const auto *C = dyn_cast<ExplicitCastExpr>(E))
    if (const auto *A = dyn_cast<CallExpr>(C->getSubExpr()->IgnoreParenCasts());
        A && M.HandleRootAllocs.count(A))
      return text(A);

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
    return compactTrait(U) ? traitText(U) : boxedOnly(U);

  if (const BoxedVar *B = boxedVar(M, E))
    return boxUseText(*B);

  if (const auto *OE = dyn_cast<OffsetOfExpr>(E))
    return offsetofText(OE);

  if (const auto *CE = dyn_cast<CallExpr>(E)) {
    if (const Spill *Sp = spillOf(CE))
      return spilledCall(CE, *Sp);
    return callText(CE);
  }

  return splice(E);
}

/// The handle lvalue At names, in the layout's text: the element, or the
/// decayed array indexed (`p->kids + i` is `p->kids[i]`'s address).
std::string Printer::handleText(const HandleAt &At) {
  if (At.Element)
    return clv(At.Element);
  std::string I;
  for (const Expr *Term : At.Index)
    I += (I.empty() ? "" : " + ") + text(Term);
  return clv(At.Array) + "[" + (I.empty() ? "0" : I) + "]";
}

/// memcpy/memmove between a run of handles and an array of native
/// pointers (`memcpy(q->kids, k, sizeof k)` with `struct quad *k[4]`): an
/// element at a time, each stored with its check or decoded; the value is
/// the destination, as the call's.
std::string Printer::nativeRunText(const HandleRun &Run) {
  std::string Count = Run.Count      ? "(size_t)(" + text(Run.Count) + ")"
                      : Run.Elements ? std::to_string(Run.Elements)
                                     : std::string("1");
  std::string Ptr = S.typeText(
      Run.Native->getType()->isArrayType()
          ? QualType(Run.Native->getType()->getArrayElementTypeNoTypeQual(), 0)
          : Run.Native->getType()->getPointeeType());
  std::string Loop = "for (size_t cp__i = 0; cp__i < cp__n; cp__i++) ";
  if (Run.Dst)
    return "__extension__({ cp_handle_t *cp__h = &" + handleText(Run.Dst) +
           "; " + Ptr + " const *cp__p = " + text(Run.Native) +
           "; size_t cp__n = " + Count + "; " + Loop +
           "cp__sth(&cp__h[cp__i], cp__p[cp__i]); (void *)cp__h; })";
  return "__extension__({ " + Ptr + " *cp__p = " + text(Run.Native) +
         "; const cp_handle_t *cp__h = &" + handleText(Run.Src) +
         "; size_t cp__n = " + Count + "; " + Loop + "cp__p[cp__i] = (" + Ptr +
         ")cp_decode(cp__h[cp__i]); (void *)cp__p; })";
}

std::string Printer::callText(const CallExpr *CE) {
  // `(cJSON *)hooks->allocate(sizeof(cJSON))`: the hook is malloc unless
  // the program installed its own (cp_hook_is_malloc); the callee has no
  // side effects, so naming it twice is the same.
  if (const CompactType *T = hookAllocated(M, S.Ctx, CE))
    return "(cp_hook_is_malloc((const void *)(" + text(CE->getCallee()) +
           ")) ? cp_alloc(&" + T->DescName + ") : " + splice(CE) + ")";
  // `hooks->deallocate(item)`: while the hook is free the runtime frees
  // the object -- also where another file installed libc's free, which
  // cannot -- through cp_free_any, which hands an object another hook
  // allocated (foreign) to libc.
  if (const Expr *P = hookFreed(M, S.Ctx, CE))
    return "(cp_hook_is_free((const void *)(" + text(CE->getCallee()) +
           ")) ? cp_free_any(" + text(P) + ") : " + splice(CE) + ")";
  if (allocFunction(CE) != AllocFn::None && allocShape(CE))
    return allocText(CE);
  // memset(p->kids, 0, sizeof p->kids): the handles and their size.
  if (const Expr *X = compact() ? handleArrayCleared(S.Ctx, M, CE) : nullptr)
    return "memset(&" + clv(X) + ", 0, sizeof(" + clv(X) + "))";
  // memmove(&x->kids[i + 1], &x->kids[i], n * sizeof x->kids[0]): n
  // handles of the compact layout (the wide text is the call as written).
  std::optional<HandleRun> Run =
      compact() ? handleRunMoved(S.Ctx, M, CE) : std::nullopt;
  if (Run && Run->Native)
    return nativeRunText(*Run);
  if (Run)
    return text(CE->getCallee()) + "(&" + handleText(Run->Dst) + ", " +
           (Run->Src ? "&" + handleText(Run->Src) : std::string("0")) + ", " +
           (Run->Count      ? "(" + text(Run->Count) + ") * "
            : Run->Elements ? std::to_string(Run->Elements) + " * "
                            : std::string()) +
           "sizeof(" + handleText(Run->Dst) + "))";
  if (CompactBodies && dualCallee(CE)) {
    // A compact body calls a dual function's compact body directly.
    std::string Out = CE->getDirectCallee()->getName().str() + "__cp(";
    for (unsigned I = 0; I < CE->getNumArgs(); ++I)
      Out += (I ? ", " : "") + text(CE->getArg(I));
    return Out + ")";
  }
  if (S.Opts.switchable() && returnsTwice(CE->getDirectCallee()))
    return returnsTwiceText(CE);
  return splice(CE);
}

/// setjmp (sigsetjmp, getcontext, vfork) in switchable mode: a longjmp back
/// to it skips the exits of the functions it leaves, so their shadow-stack
/// frames would stay on the thread's chain (the switch would then walk
/// dead stack memory) and the compact bodies among them would stay counted
/// (every later safepoint would defer).  Both are as they were when the
/// call first returned: its caller's, which the jump comes back to.  A jump
/// out of a native region (a cancelled thread's cleanup handler, a signal
/// handler's siglongjmp) leaves the region too; cp__jump_landed says why
/// that is done before anything else.
std::string Printer::returnsTwiceText(const CallExpr *CE) {
  return "__extension__({ cp_frame_t *cp__jt = cp__frame_top; unsigned cp__jd "
         "= "
         "cp__compact_depth, cp__jn = cp__native_nest; __auto_type cp__jr = " +
         splice(CE) + "; cp__jump_landed(cp__jt, cp__jd, cp__jn); cp__jr; })";
}

/// The non-blocking form of a lock call (pthread_mutex_lock ->
/// pthread_mutex_trylock), or "".
static StringRef tryLockOf(const CallExpr *CE) {
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!FD || !FD->getIdentifier() || CE->getNumArgs() != 1)
    return "";
  return llvm::StringSwitch<StringRef>(FD->getName())
      .Case("pthread_mutex_lock", "pthread_mutex_trylock")
      .Case("pthread_rwlock_rdlock", "pthread_rwlock_tryrdlock")
      .Case("pthread_rwlock_wrlock", "pthread_rwlock_trywrlock")
      .Case("pthread_spin_lock", "pthread_spin_trylock")
      .Default("");
}

/// A call that may reach a safepoint, between the saving and the reading
/// back of the roots live across it.
std::string Printer::spilledCall(const CallExpr *CE, const Spill &Sp) {
  std::string Id = std::to_string(Sp.Id);
  if (allocFunction(CE) != AllocFn::None && allocShape(CE))
    return allocText(CE, &Sp);
  if (const FunctionDecl *G = CE->getDirectCallee();
      G && G->getName() == "cp_safepoint" && CE->getNumArgs() == 0)
    return "__extension__({ if (cp__safepoint_due()) { " + Sp.block() + " " +
           Sp.slow("2", "0", "0", "cp_safepoint_slow()") + "; " + Sp.Restore + " } })";
  std::string Pre, Call;
  if (Sp.ArgTemps) {
    Call = text(CE->getCallee()) + "(";
    const FunctionDecl *FD = CE->getDirectCallee();
    for (unsigned I = 0; I < CE->getNumArgs(); ++I) {
      std::string A = "cp__a" + Id + "_" + std::to_string(I);
      // A null pointer constant (`pthread_join(t, 0)`) takes the libc
      // parameter's pointer type (as `0` it would be an int); anything
      // else keeps its own type, converted at the call as before (a
      // transparent-union parameter, glibc's __SOCKADDR_ARG, converts only
      // there).
      const Expr *Arg = CE->getArg(I);
      QualType PT = FD && I < FD->getNumParams() ? FD->getParamDecl(I)->getType() : QualType();
      if ((Sp.Native || Sp.CallOut) && !PT.isNull() && PT->isPointerType() &&
          Arg->isNullPointerConstant(S.Ctx, Expr::NPC_ValueDependentIsNotNull))
        Pre += declText(PT, A) + " = " + text(Arg) + "; ";
      else
        Pre += "__auto_type " + A + " = " + text(CE->getArg(I)) + "; ";
      Call += (I ? ", " : "") + A;
    }
    Call += ")";
  } else {
    Call = callText(CE);
  }
  // Declarations first (C89); the saving is part of the call's expression.
  // (Nothing to save at the exit of a native region: the roots are in
  // their slots already.)
  std::string Saving = Sp.Save.empty() ? "" : Sp.Save + ", ";
  std::string R = "cp__r" + Id;
  // A lock is taken without blocking first: only when it is held does the
  // thread save its roots and wait in a native region (an uncontended lock
  // costs a trylock, as natively).
  if (StringRef Try = tryLockOf(CE); Sp.Native && Sp.ArgTemps && !Try.empty()) {
    std::string TryCall = Try.str() + Call.substr(Call.find('('));
    return "__extension__({ " + Pre + "int " + R + " = " + TryCall + "; if (" + R +
           " != 0) { " + Sp.Decls + " (void)(" + Saving + "cp_native_enter()); " + R + " = " +
           Call + "; cp_native_leave(); " + Sp.Restore + " } " + R + "; })";
  }
  // A blocking call runs in a native region: the switch may run while it
  // blocks, and cp_native_leave waits for it to finish.
  std::string Leave;
  if (Sp.Native) {
    Saving += "cp_native_enter(), ";
    Leave = "cp_native_leave(); ";
  } else if (Sp.CallOut) {
    // Another file's function that is an entry of a rewritten file (its
    // weak marker is linked in: Entries.cpp) is rewritten code itself:
    // called inside.
    const FunctionDecl *G = CE->getDirectCallee();
    if (G && !localDefinition(S, CE) && G->getIdentifier()) {
      std::string Marker = "cp__entry_" + G->getName().str();
      Pre = "extern __attribute__((weak)) const char " + Marker + "; " + Pre;
      Saving += "(!&" + Marker + " ? cp__call_out() : (void)0), ";
      Leave = "if (!&" + Marker + ") cp__call_back(); ";
    } else {
      Saving += "cp__call_out(), ";
      Leave = "cp__call_back(); ";
    }
  }
  if (CE->getType()->isVoidType())
    return "__extension__({ " + Pre + Sp.Decls + " (void)(" + Saving + Call + "); " + Leave +
           Sp.Restore + " })";
  return "__extension__({ " + Pre + Sp.Decls + " __auto_type " + R + " = (" + Saving +
         Call + "); " + Leave + Sp.Restore + " " + R + "; })";
}

/// Text of E in a truth-value context: handles compare without decode.
std::string Printer::boolText(const Expr *E) {
  const Expr *X = E->IgnoreParens();
  if (const auto *IC = dyn_cast<ImplicitCastExpr>(X))
    if (compact() && IC->getCastKind() == CK_LValueToRValue &&
        isHandleLValue(M, IC->getSubExpr()))
      return "(" + clv(IC->getSubExpr()) + " != 0)";
  return text(E);
}

/// A handle read: `(h)` if E is the rvalue of a handle field.
const Expr *Printer::handleRead(const Expr *E) {
  const Expr *X = E->IgnoreParens();
  if (const auto *IC = dyn_cast<ImplicitCastExpr>(X))
    if (IC->getCastKind() == CK_LValueToRValue && isHandleLValue(M, IC->getSubExpr()))
      return IC->getSubExpr();
  return nullptr;
}

/// Compact lvalue text: an lvalue in compact layout for a compact-located
/// object, a handle slot (cp_handle_t) or a plain field of one.
std::string Printer::clv(const Expr *E) {
  E = E->IgnoreParens();
  if (const auto *UO = dyn_cast<UnaryOperator>(E);
      UO && UO->getOpcode() == UO_Deref) {
    CompactType *T = M.pointeeOf(UO->getSubExpr()->getType());
    return "(*(" + cptr(T, UO->getSubExpr()) + ")(" + text(UO->getSubExpr()) + "))";
  }
  if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
    // An element of a root array that holds handles: the variable is a
    // `cp_handle_t *` now.
    if (isHandleRootElement(M, AS))
      return "(" + text(AS->getBase()) + "[" + text(AS->getIdx()) + "])";
    const Expr *B = AS->getBase()->IgnoreParens();
    if (const auto *IC = dyn_cast<ImplicitCastExpr>(B))
      if (IC->getCastKind() == CK_ArrayToPointerDecay &&
          (isCompactLocated(M, IC->getSubExpr()) || isHandleArray(M, IC->getSubExpr())))
        return "(" + clv(IC->getSubExpr()) + "[" + text(AS->getIdx()) + "])";
    CompactType *T = M.pointeeOf(AS->getBase()->getType());
    return "(((" + cptr(T, AS->getBase()) + ")(" + text(AS->getBase()) + "))[" +
           text(AS->getIdx()) + "])";
  }
  if (const BoxedVar *B = boxedVar(M, E))
    return "(*(" + B->pointerType(ct(B->T)) + ")(" +
           (B->Static ? B->Getter + "()" : B->Ptr) + "))";
  if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    if (!ME->isArrow() && !isCompactLocated(M, ME->getBase())) {
      fail(E, "this use of a compact type cannot be rewritten");
      return "";
    }
    std::string N = ME->getMemberDecl()->getName().str();
    if (ME->isArrow()) {
      CompactType *T = M.pointeeOf(ME->getBase()->getType());
      return "(((" + cptr(T, ME->getBase()) + ")(" + text(ME->getBase()) + "))->" + N + ")";
    }
    return "(" + clv(ME->getBase()) + "." + N + ")";
  }
  fail(E, "internal: no compact lvalue for this expression");
  return "";
}

std::string Printer::caddr(const Expr *E) { return "(&" + clv(E) + ")"; }

static void typeofOperandsOf(const Stmt *St,
                             SmallVectorImpl<const Expr *> &All);

/// St names a boxed variable somewhere (unevaluated operands included,
/// and the operands of the `__typeof__`s in the types it spells: a cast
/// to `__typeof__(h.first)` inside a sizeof).
bool Printer::mentionsBoxed(const Stmt *St) const {
  if (!St || M.Boxed.empty())
    return false;
  if (const auto *E = dyn_cast<Expr>(St); E && boxedVar(M, E))
    return true;
  for (const Stmt *C : St->children())
    if (mentionsBoxed(C))
      return true;
  SmallVector<const Expr *, 2> Typeofs;
  typeofOperandsOf(St, Typeofs);
  return llvm::any_of(Typeofs, [&](const Expr *T) { return mentionsBoxed(T); });
}

namespace {
/// The operands of the `__typeof__`s inside a type as written.
struct TypeofOperands : RecursiveASTVisitor<TypeofOperands> {
  llvm::SmallVectorImpl<const Expr *> &Out;
  explicit TypeofOperands(llvm::SmallVectorImpl<const Expr *> &Out)
      : Out(Out) {}
  bool TraverseTypeOfExprTypeLoc(TypeOfExprTypeLoc TL) {
    Out.push_back(TL.getUnderlyingExpr());
    return true;
  }
  void add(const TypeSourceInfo *TSI) {
    if (TSI)
      TraverseTypeLoc(TSI->getTypeLoc());
  }
  void add(const Decl *D) {
    if (const auto *DD = dyn_cast<DeclaratorDecl>(D))
      add(DD->getTypeSourceInfo());
    else if (const auto *TD = dyn_cast<TypedefNameDecl>(D))
      add(TD->getTypeSourceInfo());
  }
};
} // namespace

SmallVector<const Expr *, 2> Printer::boxedTypeofs(const Decl *D) const {
  SmallVector<const Expr *, 2> All;
  if (!M.Boxed.empty() && D)
    TypeofOperands(All).add(D);
  llvm::erase_if(All, [&](const Expr *E) { return !mentionsBoxed(E); });
  return All;
}

/// The operands of the `__typeof__`s in the types St spells.
static void typeofOperandsOf(const Stmt *St,
                             SmallVectorImpl<const Expr *> &All) {
  TypeofOperands V(All);
  if (const auto *C = dyn_cast<ExplicitCastExpr>(St))
    V.add(C->getTypeInfoAsWritten());
  else if (const auto *U = dyn_cast<UnaryExprOrTypeTraitExpr>(St);
           U && U->isArgumentType())
    V.add(U->getArgumentTypeInfo());
  else if (const auto *CL = dyn_cast<CompoundLiteralExpr>(St))
    V.add(CL->getTypeSourceInfo());
  else if (const auto *VA = dyn_cast<VAArgExpr>(St))
    V.add(VA->getWrittenTypeInfo());
  else if (const auto *OE = dyn_cast<OffsetOfExpr>(St))
    V.add(OE->getTypeSourceInfo());
  else if (const auto *DS = dyn_cast<DeclStmt>(St))
    for (const Decl *D : DS->decls())
      V.add(D);
}

SmallVector<const Expr *, 2> Printer::boxedTypeofs(const Stmt *St) const {
  SmallVector<const Expr *, 2> All;
  if (!M.Boxed.empty() && St)
    typeofOperandsOf(St, All);
  llvm::erase_if(All, [&](const Expr *E) { return !mentionsBoxed(E); });
  return All;
}

/// Parts replaces each use of a boxed variable in St (its tokens within
/// [Begin, End) of FID, a macro's argument too) with the heap object's.
bool Printer::boxedUses(const Stmt *St, FileID FID, unsigned Begin,
                        unsigned End, EditSet &Parts) {
  if (!St)
    return true;
  if (const auto *E = dyn_cast<Expr>(St))
    if (const BoxedVar *B = boxedVar(M, E)) {
      CharSourceRange R = fileRange(E);
      if (!within(R, FID, Begin, End))
        return false;
      Parts.replace(FID, SM.getFileOffset(R.getBegin()),
                    SM.getFileOffset(R.getEnd()), boxUseText(*B));
      return true;
    }
  for (const Stmt *C : St->children())
    if (!boxedUses(C, FID, Begin, End, Parts))
      return false;
  for (const Expr *T : boxedTypeofs(St))
    if (!boxedUses(T, FID, Begin, End, Parts))
      return false;
  return true;
}

std::string Printer::boxedOnly(const Stmt *St) {
  CharSourceRange R = fileRange(St);
  if (R.isInvalid())
    return printed(St);
  auto [FID, Begin] = SM.getDecomposedLoc(R.getBegin());
  unsigned End = SM.getFileOffset(R.getEnd());
  EditSet Parts;
  if (!boxedUses(St, FID, Begin, End, Parts))
    return printed(St);
  Rendered Out = Parts.render(FID, SM.getBufferData(FID), Begin, End);
  return Out.Ok ? Out.Text : printed(St);
}

/// E is a full expression whose value is discarded or only tested
/// (expression statement, for-increment, condition), so its type may
/// change from `T *` to `void *` and it needs no extra parentheses.
bool Printer::isStatementLevel(const Expr *E) {
  auto Ps = S.Ctx.getParents(*E);
  if (Ps.empty())
    return false;
  const Stmt *P = Ps[0].get<Stmt>();
  return P && !isa<Expr>(P) && !isa<ReturnStmt>(P);
}

bool Printer::isValueDiscarded(const Expr *E) {
  if (isStatementLevel(E))
    return true;
  // Up through parentheses: the left of a comma, the right of one whose
  // value is discarded, or cast to void (`(p->key = k, p->next = n, p)`,
  // as initializing macros write).
  const Stmt *X = E;
  for (;;) {
    auto Ps = S.Ctx.getParents(*X);
    const Stmt *P = Ps.empty() ? nullptr : Ps[0].get<Stmt>();
    if (const auto *PE = dyn_cast_or_null<ParenExpr>(P)) {
      X = PE;
      continue;
    }
    if (const auto *BO = dyn_cast_or_null<BinaryOperator>(P); BO && BO->getOpcode() == BO_Comma)
      return BO->getLHS() == X || isValueDiscarded(BO); // the right: as the comma
    if (const auto *CE = dyn_cast_or_null<CStyleCastExpr>(P))
      return CE->getType()->isVoidType();
    return false;
  }
}

std::string Printer::traitText(const UnaryExprOrTypeTraitExpr *U) {
  std::string Kw = U->getKind() == UETT_SizeOf ? "sizeof"
                   : U->getKind() == UETT_AlignOf ? "_Alignof"
                                                   : "__alignof__";
  if (U->isArgumentType()) {
    QualType T = U->getArgumentType();
    if (CompactType *C = M.recordOf(T))
      return Kw + "(" + ct(C) + ")";
    // An array of compact structs: count * compact size.
    ArrayShape A = stripArrays(T);
    uint64_t N = A.Count;
    CompactType *C = M.recordOf(A.Element);
    if (!C || !A.Array || A.Variable) {
      fail(U, "cannot rewrite this sizeof of a compact type");
      return "";
    }
    if (Kw == "sizeof")
      return "((unsigned long)" + std::to_string(N) + " * sizeof(" + ct(C) + "))";
    return Kw + "(" + ct(C) + ")";
  }
  return Kw + "(" + clv(U->getArgumentExpr()) + ")";
}

std::string Printer::offsetofText(const OffsetOfExpr *OE) {
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

} // namespace compactptr
