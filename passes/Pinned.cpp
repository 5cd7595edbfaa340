//===- Pinned.cpp - structs that stay in place at the switch -------------===//
//
// In:  the records of the TU (Model::Records), switchable mode.
// Out: Model::Types, and Model::Pinned: the structs not annotated that
//      hold compact pointers (or a pinned struct by value) beside a
//      synchronization object (Vocabulary.def, CP_SYNC_TYPE) -- a work
//      queue's head next to its mutex and condition variable, a pool's
//      free list next to its lock.
// Why: a thread waits on such a mutex in the kernel, at its address.  A
//      compact object moves at the switch, so the waiter was stranded on
//      the old copy and the switch waited for it until the program
//      stopped.  A pinned struct keeps its native layout and its place:
//      pointers to it are native, its heap objects come from
//      cp_pinned_alloc (Allocation.cpp), the switch translates their
//      compact pointers in place as roots, and a blocking call on its
//      mutex hands the kernel no compact memory, so it is a native region.
//      Compaction is lost only on these few, large objects.
// Rules: annotated structs stay compact (the program asked for handles to
//      them: a mutex in one is warned, blocking-on-object).  A struct that
//      holds a compact struct by value (an intrusive list head), a union
//      hiding a compact pointer, is aligned above a page, packed, has no
//      name or is defined in a function is not pinned on its own account;
//      one that holds a pinned struct by value is pinned with it.  A
//      compact struct that holds a pinned one by value is refused
//      (pinned-member, TypeChecks.cpp): its copy at the switch would carry
//      the pinned one's pointers as bytes.  Pinning one struct changes
//      what is compact (a struct holding only a pointer to it is no longer
//      compact by inference), so the choice runs to a fixed point; it only
//      adds, and reads a struct's own definition and those of the types it
//      holds or points to, never other records of the file: every
//      translation unit that sees the same definitions chooses the same.
//      A pinned struct that begins with a compact struct's fields is
//      warned (pinned-prefix): read as the other through `void *` it
//      would give the wrong fields.
// Tests: test/rewrite/pinned-types.c, test/threads/queue-in-heap.c,
//      test/diagnostics/pinned-allocation.c, pinned-member.c,
//      pinned-prefix.c.
//
//===----------------------------------------------------------------------===//
#include "Engine.h"
#include "clang/AST/Attr.h"

using namespace clang;

namespace compactptr {
namespace {

using RecordSet = std::set<const RecordDecl *>;

const RecordDecl *canonical(const RecordDecl *RD) {
  return cast<RecordDecl>(RD->getCanonicalDecl());
}

/// RD, a record held by value, holds a compact pointer somewhere its
/// descriptor could not say (a union member, a plain nested struct).
bool hidesCompactPointer(const Session &S, const RecordDecl *RD) {
  const RecordDecl *Def = RD->getDefinition();
  if (!Def)
    return false;
  for (const FieldDecl *FD : Def->fields()) {
    QualType E = stripArrays(FD->getType()).Element;
    if (const auto *AT = E->getAs<AtomicType>())
      E = AT->getValueType();
    if (S.M.pointeeOf(E))
      return true;
    if (const RecordDecl *R = valueRecord(FD); R && hidesCompactPointer(S, R))
      return true;
  }
  return false;
}

/// A struct that may be pinned at all: not annotated (the program asked
/// for handles to it), with a name and at file scope (for its
/// descriptor), aligned to at most a page (the runtime's limit) and not
/// packed, and with no union, plain struct or anonymous member hiding a
/// compact pointer (its descriptor could not say where).
bool eligible(const Session &S, const CompactType &T, const RecordSet &Pinned) {
  if (T.Annotated || T.Name.empty() || !T.RD->isStruct() ||
      T.RD->getParentFunctionOrMethod() || T.RD->hasAttr<PackedAttr>() ||
      T.RD->hasAttr<MaxFieldAlignmentAttr>() ||
      S.Ctx.getTypeAlignInChars(S.Ctx.getRecordType(T.RD)).getQuantity() > 4096)
    return false;
  // An anonymous member has no name for the descriptor to give.
  for (const FieldDecl *FD : T.RD->fields())
    if (const RecordDecl *R = valueRecord(FD);
        R &&
        (FD->getName().empty() ||
         (!Pinned.count(R) &&
          !S.M.recordOf(stripArrays(FD->getType()).Element))) &&
        hidesCompactPointer(S, R))
      return false;
  return true;
}

/// T is pinned: it holds a pinned struct by value (and so its mutex), or
/// it holds a synchronization object and compact pointers but no compact
/// struct by value (whose address inside it would be a compact pointer:
/// an intrusive list head stays compact, as before).
bool pinned(const Session &S, const CompactType &T, const RecordSet &Pinned) {
  bool HoldsCompactValue = false;
  for (const FieldDecl *FD : T.RD->fields()) {
    if (Pinned.count(valueRecord(FD)))
      return true;
    HoldsCompactValue |=
        S.M.recordOf(stripArrays(FD->getType()).Element) != nullptr;
  }
  return !HoldsCompactValue && !syncObjectIn(S.Ctx.getRecordType(T.RD)).empty();
}

/// The pinned records that hold a compact pointer, or a kept one by value:
/// the others hold nothing the switch translates and stay plain structs.
RecordSet keepHolders(const Session &S, const RecordSet &Pinned) {
  RecordSet Kept;
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (const RecordDecl *RD : Pinned) {
      if (Kept.count(RD))
        continue;
      for (const FieldDecl *FD : RD->getDefinition()->fields()) {
        QualType E = stripArrays(FD->getType()).Element;
        if (const auto *AT = E->getAs<AtomicType>())
          E = AT->getValueType();
        if (S.M.pointeeOf(E) || S.M.recordOf(E) ||
            Kept.count(valueRecord(FD))) {
          Kept.insert(RD);
          Changed = true;
          break;
        }
      }
    }
  }
  return Kept;
}

/// The first compact struct that begins with the same fields as pinned P,
/// a compact pointer among them (C's common initial sequence, laid out
/// differently in the two), else null.
const CompactType *comparablePrefix(const Session &S, const CompactType &P) {
  for (const auto &C : S.M.Types) {
    bool Pointer = false;
    auto A = P.RD->field_begin(), AE = P.RD->field_end();
    auto B = C->RD->getDefinition()->field_begin(),
         BE = C->RD->getDefinition()->field_end();
    for (; A != AE && B != BE; ++A, ++B) {
      if (!S.Ctx.hasSameType(A->getType(), B->getType()) ||
          A->isBitField() != B->isBitField())
        break;
      Pointer |= S.M.pointeeOf(stripArrays(A->getType()).Element) != nullptr;
    }
    if (Pointer)
      return C.get();
  }
  return nullptr;
}

} // namespace

void warnPinnedPrefixes(Session &S) {
  for (const auto &P : S.M.Pinned)
    if (const CompactType *C = comparablePrefix(S, *P);
        C && !S.isIgnoredLoc(P->RD->getLocation()))
      S.report(Diag::PinnedPrefix, P->RD->getLocation(),
               quoted(P->WideSpelling) + " is pinned (it holds a '" + P->Sync +
                   "' beside compact pointers) and begins with the same "
                   "fields as compact " +
                   quoted(C->WideSpelling) +
                   ", laid out differently: code that reads one through a "
                   "pointer to the other (through 'void *') reads the wrong "
                   "fields; annotate " +
                   quoted(P->WideSpelling) +
                   " CP_COMPACT if it is used that way");
}

void choosePinnedTypes(Session &S) {
  // Pinning only adds: a struct leaves the compact types when it is
  // pinned, and a struct holding it by value follows.
  RecordSet Pinned;
  for (bool Grew = true; Grew;) {
    inferCompactTypes(S, Pinned);
    Grew = false;
    for (const auto &T : S.M.Types)
      if (eligible(S, *T, Pinned) && pinned(S, *T, Pinned))
        Grew |= Pinned.insert(canonical(T->RD)).second;
  }
  // The others are plain structs: nothing is compact through them.
  RecordSet Kept = keepHolders(S, Pinned);
  if (Kept.size() != Pinned.size())
    inferCompactTypes(S, Kept);
  for (const RecordDecl *RD : S.M.Records) {
    if (!Kept.count(canonical(RD)) || S.M.PinnedByDecl.count(canonical(RD)))
      continue;
    std::unique_ptr<CompactType> T = namedType(RD);
    T->Sync = syncObjectIn(S.Ctx.getRecordType(RD)).str();
    S.M.PinnedByDecl[canonical(RD)] = T.get();
    S.M.Pinned.push_back(std::move(T));
  }
}

} // namespace compactptr
