//===- Edits.cpp - the edit layer -----------------------------------------===//
//
// See Edits.h for the conflict rule.  Nothing else in the engine applies an
// edit to source text.
//
//===----------------------------------------------------------------------===//
#include "Edits.h"
#include <algorithm>

using namespace clang;

namespace compactptr {

bool EditSet::replace(const SourceManager &SM, CharSourceRange R,
                      std::string Text) {
  if (R.isInvalid() || !R.getBegin().isFileID() || !R.getEnd().isFileID())
    return false;
  auto [BF, BO] = SM.getDecomposedLoc(R.getBegin());
  auto [EF, EO] = SM.getDecomposedLoc(R.getEnd());
  if (BF != EF || EO < BO)
    return false;
  replace(BF, BO, EO, std::move(Text));
  return true;
}

void EditSet::replace(FileID FID, unsigned Begin, unsigned End, std::string Text) {
  Edit E;
  E.Offset = Begin;
  E.Length = End - Begin;
  E.Text = std::move(Text);
  E.Order = Counter++;
  Files[FID].push_back(std::move(E));
}

void EditSet::insert(FileID FID, unsigned Offset, std::string Text) {
  replace(FID, Offset, Offset, std::move(Text));
}

void EditSet::addUnique(FileID FID, const Edit &E) {
  auto &V = Files[FID];
  for (const Edit &X : V)
    if (X.Offset == E.Offset && X.Length == E.Length && X.Text == E.Text)
      return;
  Edit C = E;
  C.Order = Counter++;
  V.push_back(std::move(C));
}

Rendered EditSet::render(FileID FID, StringRef Buf, unsigned Begin,
                         unsigned End) const {
  Rendered R;
  std::vector<const Edit *> Es;
  if (auto It = Files.find(FID); It != Files.end())
    for (const Edit &E : It->second)
      if (E.Offset >= Begin && E.end() <= End)
        Es.push_back(&E);
  std::stable_sort(Es.begin(), Es.end(), [](const Edit *A, const Edit *B) {
    return A->Offset != B->Offset ? A->Offset < B->Offset : A->Order < B->Order;
  });
  unsigned Pos = Begin;
  const Edit *Prev = nullptr;
  for (const Edit *E : Es) {
    if (Prev && E->Length != 0 && E->Offset == Prev->Offset &&
        E->Length == Prev->Length && E->Text == Prev->Text)
      continue;
    if (E->Offset < Pos) {
      R.Ok = false;
      R.ConflictOffset = E->Offset;
      R.Text.clear();
      return R;
    }
    R.Text.append(Buf.data() + Pos, E->Offset - Pos);
    R.Text += E->Text;
    R.Applied.push_back({E->Offset, E->Length, (unsigned)E->Text.size()});
    Pos = E->end();
    Prev = E;
  }
  R.Text.append(Buf.data() + Pos, End - Pos);
  return R;
}

Rendered EditSet::render(const SourceManager &SM, FileID FID) const {
  StringRef Buf = SM.getBufferData(FID);
  return render(FID, Buf, 0, Buf.size());
}

const Edit *EditSet::outside(FileID FID, unsigned Begin, unsigned End) const {
  for (const auto &[F, V] : Files)
    for (const Edit &E : V)
      if (F != FID || E.Offset < Begin || E.end() > End)
        return &E;
  return nullptr;
}

EditSet EditSet::take(FileID FID, unsigned Begin, unsigned End) {
  EditSet Taken;
  auto It = Files.find(FID);
  if (It == Files.end())
    return Taken;
  std::vector<Edit> Keep;
  for (Edit &E : It->second) {
    bool Inside = E.Offset >= Begin && E.end() <= End &&
                  !(E.Length == 0 && (E.Offset == Begin || E.Offset == End));
    if (Inside)
      Taken.Files[FID].push_back(std::move(E));
    else
      Keep.push_back(std::move(E));
  }
  It->second = std::move(Keep);
  Taken.Counter = Counter;
  return Taken;
}

void EditSet::absorb(EditSet &&Other) {
  for (auto &[F, V] : Other.Files)
    for (Edit &E : V) {
      E.Order = Counter++;
      Files[F].push_back(std::move(E));
    }
  Other.Files.clear();
}

} // namespace compactptr
