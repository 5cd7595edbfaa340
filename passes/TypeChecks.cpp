//===- TypeChecks.cpp - the safety gate for compact types -----------------===//
//
// In:  the Model from Analysis (compact types, records that hold them).
// Out: diagnostics only: an error for every type the rewrite cannot lay
//      out (unions holding compact pointers or values, unnamed, empty,
//      packed or local compact types, or ones a macro defines and goes on
//      after; bit-fields with an alignment of their own, variable-length
//      array fields, a struct ending in a flexible array member as a
//      member, anonymous members, volatile or _Atomic compact pointers). Errors
//      here stop the pipeline before any use is checked (Session::TypeErrors).
//      The uses of compact types in function bodies are checked in Safety.cpp.
// Tests: test/diagnostics/*.c (one file per reason).
//
//===----------------------------------------------------------------------===//
#include "Engine.h"
#include "clang/AST/Attr.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace compactptr {
namespace {

/// Strip arrays from a type (canonical).
QualType elementType(QualType T) {
  return stripArrays(T).Element.getCanonicalType();
}

/// Switchable: field FD of a compact struct embeds E, a struct that is
/// not compact and links to its own kind (`struct hlist_node { struct
/// hlist_node *next, **pprev; }`, a `list_head`): its links point inside
/// compact objects, and as plain pointers the switch moves the objects
/// without translating them (the program stopped at its first use of a
/// link after the switch, exit 70).  Declared compact too, the link's
/// pointers become handles the switch translates.
void checkEmbeddedLink(Session &S, const FieldDecl *FD, QualType E,
                       const std::string &Who) {
  const auto *RT = E->getAs<RecordType>();
  if (!RT || S.M.recordOf(E) || !RT->getDecl()->getDefinition())
    return;
  const RecordDecl *Link = RT->getDecl()->getDefinition();
  QualType Self = S.Ctx.getRecordType(Link).getCanonicalType();
  bool Links = llvm::any_of(Link->fields(), [&](const FieldDecl *F) {
    QualType T = F->getType().getCanonicalType();
    for (int Depth = 0; Depth < 2 && T->isPointerType(); ++Depth) {
      T = T->getPointeeType().getCanonicalType().getUnqualifiedType();
      if (T == Self)
        return true;
    }
    return false;
  });
  if (!Links)
    return;
  std::string Name = quoted(S.typeText(E));
  // A header the program does not own (uthash.h's UT_hash_handle): a
  // declaration of the tag before the #include carries the attribute to
  // the definition, which clang merges.
  std::string Where;
  if (const IdentifierInfo *Tag = Link->getIdentifier();
      Tag && !S.SM.isInMainFile(S.SM.getExpansionLoc(Link->getLocation())))
    Where = " (where a header defines it, a declaration before the "
            "#include does: `struct CP_COMPACT " +
            Tag->getName().str() + ";`)";
  S.report(
      Diag::InteriorEscape, FD->getLocation(),
      "field " + quoted(FD->getName()) + " of compact type " + Who +
          " embeds " + Name +
          ", which links objects by addresses inside them; as plain pointers "
          "they "
          "are not translated when the switch to wide mode moves the objects: "
          "declare " +
          Name + " CP_COMPACT too (its links become handles)" + Where +
          ", or build the program compact-only, which never switches",
      {tokRange(FD->getSourceRange())});
}

/// Type-level refusals, per record.
void checkRecord(Session &S, const RecordDecl *RD) {
  const Model &M = S.M;
  if (RD->isUnion()) {
    // A struct keeps every member: code that reads a member other than
    // the one it last stored (a list threaded through the pointers it will
    // later hold) reads something else then.
    const std::string PunAdvice =
        "a program that reads one member through another (type punning) "
        "needs the variants kept apart instead";
    for (const Decl *D : RD->redecls())
      for (const auto *A : D->specific_attrs<AnnotateAttr>())
        if (A->getAnnotation() == annotationOf("compact"))
          S.report(Diag::Union, A->getLocation(), "'compact' applies to structs, not unions",
                  {tokRange(A->getRange())});
    for (const FieldDecl *FD : RD->fields()) {
      QualType E = elementType(FD->getType());
      if (CompactType *T = M.pointeeOf(E))
        S.report(
            Diag::Union, FD->getLocation(),
            "union member " + quoted(FD->getName()) +
                " holds a compact pointer to " + quoted(T->WideSpelling) +
                "; compact pointers cannot live in unions (make the union a "
                "struct, one field per member, or give each variant a "
                "compact struct of its own; " +
                PunAdvice + ")",
            {tokRange(FD->getSourceRange())});
      else if (CompactType *P = M.pinnedOf(E))
        S.report(
            Diag::Union, FD->getLocation(),
            "union member " + quoted(FD->getName()) + " holds " +
                quoted(P->WideSpelling) +
                ", which keeps compact pointers "
                "beside a '" +
                P->Sync +
                "' (pinned, translated in place at "
                "the switch); compact pointers cannot live in unions (make "
                "the union a struct, or pad with an aligned attribute)",
            {tokRange(FD->getSourceRange())});
      else if (CompactType *T = M.recordOf(E))
        S.report(Diag::Union, FD->getLocation(),
                 "union member " + quoted(FD->getName()) + " holds " +
                     (T->Name.empty()
                          ? std::string("a struct with compact pointers")
                          : "compact type " + quoted(T->WideSpelling)) +
                     "; compact types cannot live in unions (make the union a "
                     "struct, one field per member, or give each variant a "
                     "compact struct of its own; " +
                     PunAdvice + ")",
                 {tokRange(FD->getSourceRange())});
    }
    return;
  }
  CompactType *T = M.ByDecl.lookup(cast<RecordDecl>(RD->getCanonicalDecl()));
  if (!T)
    return;
  std::string Who = T->Name.empty() ? std::string("anonymous struct")
                                    : quoted(T->WideSpelling);
  if (T->Name.empty()) {
    // Inside a union it is refused already, with the way out there.
    if (const auto *U = dyn_cast<RecordDecl>(RD->getParent()); U && U->isUnion())
      return;
    S.report(Diag::UnsupportedType, RD->getLocation(),
            "compact type needs a name: give the struct a tag or a typedef");
    return;
  }
  if (RD->field_empty()) {
    S.report(Diag::UnsupportedType, RD->getLocation(), "compact type " + Who + " has no fields");
    return;
  }
  // A pinned struct inside a compact one would move with it, its compact
  // pointers copied as bytes (Pinned.cpp).
  for (const FieldDecl *FD : RD->fields())
    if (CompactType *P = M.pinnedOf(elementType(FD->getType())))
      S.report(Diag::PinnedMember, FD->getLocation(),
               "compact type " + Who + " holds " + quoted(P->WideSpelling) +
                   " by value, which stays in place at the switch (pinned: it "
                   "holds a '" +
                   P->Sync +
                   "' beside compact pointers); hold it "
                   "through a pointer, or annotate " +
                   quoted(P->WideSpelling) +
                   " CP_COMPACT to make it compact (a wait on its '" + P->Sync +
                   "' then holds a switch up)",
               {tokRange(FD->getSourceRange())});
  if (RD->hasAttr<PackedAttr>() || RD->hasAttr<MaxFieldAlignmentAttr>() ||
      S.Ctx.getLangOpts().PackStruct)
    S.report(Diag::Packed, RD->getLocation(),
             "compact type " + Who +
                 " is packed; compact types cannot be packed (remove "
                 "__attribute__((packed)), #pragma pack or -fpack-struct)",
             {tokRange(RD->getSourceRange())});
  const DeclContext *DC = RD->getLexicalDeclContext();
  // A struct defined inside another struct has file scope in C; its
  // declarations go after the outermost enclosing struct (Emit.cpp).
  if (DC->isFunctionOrMethod())
    S.report(Diag::LocalType, RD->getLocation(),
            "compact type " + Who +
                " is defined inside a function; define it at file scope");
  // Its declarations go after the declaration that ends the outermost
  // enclosing struct (Emit.cpp).  A struct a macro defines is fine where
  // its closing brace is the macro's last token (<sys/queue.h>'s
  // TAILQ_HEAD(name, type); inside a struct, TAILQ_ENTRY(type) field;):
  // the declaration ends after the expansion, in the user's text; or the
  // last but one, before the `;` that ends the declaration.  A macro
  // that goes on after the struct may use it before its compact layout.
  const RecordDecl *Outer = RD;
  while (const auto *P = dyn_cast<RecordDecl>(Outer->getLexicalDeclContext()))
    Outer = P;
  SourceLocation OuterEnd = Outer->getBraceRange().getEnd();
  bool Semi;
  if (OuterEnd.isMacroID() && !structEndsExpansion(S.SM, S.LO, OuterEnd, Semi))
    S.report(Diag::MacroBody, RD->getLocation(), "compact type " + Who +
                                   " is defined by a macro that goes on after "
                                   "the struct; the rewrite cannot place its "
                                   "compact layout");
  for (const FieldDecl *FD : RD->fields()) {
    auto FR = tokRange(FD->getSourceRange());
    QualType E = elementType(FD->getType());
    // A run of bit-fields keeps its bits' places relative to a boundary
    // aligned for it (Layout.cpp), which an alignment of its own would move.
    // Microsoft's rules (ms_struct, -mms-bitfields) place bit-fields by
    // other rules than the ones the run keeps.
    if (FD->isBitField() && RD->isMsStruct(S.Ctx)) {
      S.report(Diag::BitField, FD->getLocation(),
               "bit-field " + quoted(FD->getName()) + " in compact type " +
                   Who +
                   " is laid out by Microsoft's rules (ms_struct, "
                   "-mms-bitfields), which is not supported; use the "
                   "target's own layout",
               {FR});
      continue;
    }
    if (FD->isBitField() && FD->hasAttr<AlignedAttr>()) {
      S.report(Diag::BitField, FD->getLocation(),
               "bit-field " + quoted(FD->getName()) + " in compact type " +
                   Who +
                   " has an alignment of its own, which is not supported; "
                   "remove the aligned attribute",
               {FR});
      continue;
    }
    if (FD->hasAttr<PackedAttr>())
      S.report(Diag::Packed, FD->getLocation(),
              "packed field " + quoted(FD->getName()) + " in compact type " +
                  Who + " is not supported",
              {FR});
    // A struct that ends in a flexible array member as the last member (a
    // GNU extension): its room would be the outer object's.  So for a
    // compact struct with the struct hack's last member, whose descriptor
    // gives it room too (roomMember).
    if (const auto *RT =
            stripArrays(FD->getType()).Element->getAs<RecordType>();
        RT && (RT->getDecl()->hasFlexibleArrayMember() ||
               (S.M.recordOf(QualType(RT, 0)) && roomMember(RT->getDecl())))) {
      S.report(
          Diag::FlexibleArray, FD->getLocation(),
          "member " + quoted(FD->getName()) + " of compact type " + Who +
              (RT->getDecl()->hasFlexibleArrayMember()
                   ? std::string(" is a struct with a flexible array member")
                   : " is a compact struct whose last member " +
                         quoted(roomMember(RT->getDecl())->getName()) +
                         " is taken for a flexible array member (the "
                         "struct hack)") +
              ", which is not supported; put the flexible array member in " +
              Who + " itself",
          {FR});
      continue;
    }
    // A flexible array member whose elements are arrays of compact
    // pointers or structs (`struct node *kids[][2];`): its room is counted
    // per element, not per row.
    if (const ArrayType *AT = FD->getType()->getAsArrayTypeUnsafe();
        AT && FD->getType()->isIncompleteArrayType() &&
        AT->getElementType()->isArrayType() &&
        (S.M.pointeeOf(stripArrays(FD->getType()).Element) ||
         S.M.recordOf(stripArrays(FD->getType()).Element))) {
      S.report(Diag::FlexibleArray, FD->getLocation(),
               "flexible array member " + quoted(FD->getName()) +
                   " in compact type " + Who +
                   " has rows of compact pointers or structs, which is not "
                   "supported; make each row a struct (struct row { ... "
                   "cells[N]; } " +
                   FD->getName().str() + "[];)",
               {FR});
      continue;
    }
    if (FD->getType()->isVariableArrayType()) {
      S.report(Diag::UnsupportedType, FD->getLocation(), "variable-length array field " +
                                     quoted(FD->getName()) + " is not supported",
              {FR});
      continue;
    }
    // A named field of unnamed type is fine: Layout spells its type
    // through the field and Analysis names a nested compact struct after
    // it.  An anonymous member has no name to spell it by.
    if (FD->getName().empty() && !FD->isBitField()) {
      S.report(Diag::UnnamedFieldType, FD->getLocation(),
              "anonymous struct or union member in compact type " + Who +
                  " is not supported; give the member a name",
              {FR});
      continue;
    }
    if (S.Opts.switchable())
      checkEmbeddedLink(S, FD, E, Who);
    if (M.pointeeOf(E) && (E.isVolatileQualified() || E->isAtomicType()))
      S.report(Diag::UnsupportedType, FD->getLocation(),
              "volatile or _Atomic compact pointer " + quoted(FD->getName()) +
                  " is not supported",
              {FR});
    if (E->isAtomicType() && M.pointeeOf(E->getAs<AtomicType>()->getValueType()))
      S.report(Diag::UnsupportedType, FD->getLocation(),
               "_Atomic compact pointer " + quoted(FD->getName()) +
                   " is not supported: the field holds a 32-bit handle, which "
                   "the C11 atomic operations on it would load, store and "
                   "compare as a 64-bit pointer; make it a plain pointer "
                   "guarded by a lock (a lock-free list may keep its head, "
                   "a global or a local, _Atomic)",
               {FR});
    // An _Atomic struct has a layout of its own (clang may pad it to a
    // power of two and reach it through libatomic), which the compact
    // and wide layouts of its type do not describe: it built, and the
    // switch left its pointers compact.
    if (E->isAtomicType() && M.recordOf(E->getAs<AtomicType>()->getValueType()))
      S.report(Diag::UnsupportedType, FD->getLocation(),
              "_Atomic field " + quoted(FD->getName()) + " of compact type " +
                  quoted(E->getAs<AtomicType>()->getValueType().getAsString()) +
                  " is not supported; make the field a plain struct and "
                  "guard it with a lock",
              {FR});
  }
}

} // namespace

void runTypeChecks(Session &S) {
  for (const RecordDecl *RD : S.M.Records)
    checkRecord(S, RD);
  warnPinnedPrefixes(S);
}

} // namespace compactptr
