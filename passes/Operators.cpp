//===- Operators.cpp - unary and binary operators printed in one form -----===//
//
// Part of the printer (Printer.h).  In compact form: `*p`, `&`, `++`/`--`
// and compound assignments on handle slots (cp__hadd, cp__padd: the
// lvalue evaluated once), stores into handle fields (cp__sth), pointer
// arithmetic and differences with the compact stride, handle comparisons
// without decoding, copies between heap objects and wide values through
// the converters; loads and stores through pointers that may point at a
// handle slot (cp__slot_load/store).  A node whose own text is unchanged is
// spliced (Printer.cpp).
// Tests: test/rewrite/pointer-arithmetic.c, test/rewrite/lvalue-evaluated-once.c,
//        test/rewrite/null-test-no-decode.c, test/rewrite/struct-copy.c,
//        test/rewrite/slot-pointer.c.
//
//===----------------------------------------------------------------------===//
#include "Printer.h"

using namespace clang;

namespace compactptr {

/// The slot address of a slot dereference `*pp`: the text of pp.
std::string Printer::slotAddr(const Expr *Deref) {
  const auto *UO = cast<UnaryOperator>(Deref->IgnoreParens());
  return text(UO->getSubExpr());
}

/// The compact type whose object holds the handle field E names:
/// `p->next`, `p->kids[i]`, `p->inner.next` (the inner struct's type).
const CompactType *Printer::fieldHolder(const Expr *E) {
  E = E->IgnoreParens();
  if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E))
    E = AS->getBase()->IgnoreParenImpCasts();
  const auto *ME = dyn_cast<MemberExpr>(E);
  if (!ME)
    return nullptr;
  QualType B = ME->getBase()->getType();
  return ME->isArrow() ? M.pointeeOf(B) : M.recordOf(B);
}

/// The object under the fields E names is a null pointer constant:
/// `&((struct node *)0)->next`, offsetof by hand, a constant expression
/// that a static initializer may need (compact-only code takes the
/// compact layout's offset).
static bool nullBased(ASTContext &Ctx, const Expr *E) {
  for (E = E->IgnoreParens();;) {
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E))
      E = AS->getBase()->IgnoreParenImpCasts();
    else if (const auto *ME = dyn_cast<MemberExpr>(E))
      E = ME->getBase()->IgnoreParens();
    else
      return E->IgnoreParenCasts()->isNullPointerConstant(
          Ctx, Expr::NPC_ValueDependentIsNotNull);
  }
}

std::string Printer::unaryText(const UnaryOperator *UO) {
  const Expr *Sub = UO->getSubExpr();
  switch (UO->getOpcode()) {
  case UO_Deref:
    if (compact() && M.pointeeOf(Sub->getType())) {
      fail(UO, "this use of a heap object of compact type cannot be "
               "rewritten; copy it into a local first");
      return "";
    }
    if (compact() && isSlotPointer(M, Sub)) {
      fail(UO, "this use of a slot that may be a handle field cannot be "
               "rewritten; read it into a local first");
      return "";
    }
    break;
  case UO_AddrOf:
    if (compact() && isCompactLocated(M, Sub))
      return "((" + ty(UO->getType(), UO) + ")" + caddr(Sub) + ")";
    if (compact() && isHandleLValue(M, Sub)) {
      // A pointer to the handle slot itself (Slots.cpp follows it).  A
      // field's slot is checked to lie in the arena: an object a hook or
      // another file's wrapper allocated is outside, where
      // cp__slot_load/store would take its 4-byte field for an 8-byte
      // native slot; the runtime stops there instead (cp__foreign_slot).
      std::string Slot = caddr(Sub);
      if (const CompactType *T =
              isHandleRootElement(M, Sub) || nullBased(S.Ctx, Sub)
                  ? nullptr
                  : fieldHolder(Sub))
        Slot = "cp__handle_slot(" + Slot + ", &" + T->DescName + ")";
      return "((" + ty(UO->getType(), UO) + ")" + Slot + ")";
    }
    if (compact() && isSlotDeref(M, Sub))
      return "(" + slotAddr(Sub) + ")";
    if (compact() && isHandleArray(M, Sub)) {
      fail(UO, "the address of a handle array field cannot be taken");
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
      return "((" + ty(UO->getType(), UO) + ")" + Call + ")";
    }
    break;
  default:
    break;
  }
  return splice(UO);
}

std::string Printer::binaryText(const BinaryOperator *BO) {
  const Expr *L = BO->getLHS(), *R = BO->getRHS();
  if (!compact())
    return splice(BO);
  switch (BO->getOpcode()) {
  case BO_Assign:
    if (isSlotDeref(M, L)) {
      std::string Call = "cp__slot_store(" + slotAddr(L) + ", " + text(R) + ")";
      if (isValueDiscarded(BO))
        return Call;
      return "((" + ty(L->getType(), L) + ")" + Call + ")";
    }
    if (isHandleLValue(M, L)) {
      // A value known to come from the arena skips the encode's range
      // check (Provenance.cpp).
      std::string Store = (isKnownCompact(S, R) ? "cp__sth_known(&" : "cp__sth(&") +
                          clv(L) + ", " + text(R) + ")";
      if (isValueDiscarded(BO))
        return Store;
      return "((" + ty(L->getType(), L) + ")" + Store + ")";
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
      return "((" + ty(L->getType(), L) + ")" + Call + ")";
    }
    break;
  case BO_Add:
  case BO_Sub: {
    CompactType *LT = M.pointeeOf(L->getType()), *RT = M.pointeeOf(R->getType());
    if (LT && RT)
      return "((" + cptr(LT, L) + ")(" + text(L) + ") - (" + cptr(RT, R) + ")(" +
             text(R) + "))";
    if (LT)
      return "((" + ty(BO->getType(), BO) + ")((" + cptr(LT, L) + ")(" + text(L) +
             ") " + (BO->getOpcode() == BO_Add ? "+" : "-") + " (" + text(R) + ")))";
    if (RT)
      return "((" + ty(BO->getType(), BO) + ")((" + text(L) + ") + (" + cptr(RT, R) +
             ")(" + text(R) + ")))";
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

} // namespace compactptr
