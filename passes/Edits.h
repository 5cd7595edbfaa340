//===- Edits.h - the edit layer: one conflict rule, one way to render -----===//
//
// Every pass records its changes to the source as Edits in an EditSet, and
// every piece of rewritten text -- a whole file (Emit), a region versioned
// by mode, a compact body, an expression rebuilt from its rewritten
// children -- is produced by EditSet::render over a range of the original
// buffer.  Like clang::tooling::Replacements, the set is the only place
// where edits meet, and it has one conflict rule:
//
//   Edits apply in offset order; at one offset, in the order they were
//   added.  A replacement identical to the one applied just before it (same
//   range, same text: a macro argument expanded twice, a header included
//   twice) is applied once.  Any other edit that starts inside text already
//   replaced is a conflict, and the render fails (the caller reports it).
//
// Tests: test/rewrite/line-numbers.c, test/rewrite/header-types.c,
//        test/rewrite/macro-argument.c, test/switchable/*-versioning.c.
//
//===----------------------------------------------------------------------===//
#ifndef COMPACTPTR_EDITS_H
#define COMPACTPTR_EDITS_H

#include "clang/Basic/SourceLocation.h"
#include "clang/Basic/SourceManager.h"
#include <array>
#include <map>
#include <string>
#include <vector>

namespace compactptr {

/// Replace [Offset, Offset + Length) of a file by Text (Length 0: insert).
struct Edit {
  unsigned Offset = 0, Length = 0;
  std::string Text;
  unsigned Order = 0; ///< insertion order: the tie-break at one offset
  unsigned end() const { return Offset + Length; }
};

/// The result of rendering a range: the text, or the offset of the first
/// conflicting edit.
struct Rendered {
  bool Ok = true;
  unsigned ConflictOffset = 0;
  std::string Text;
  /// Per applied edit: {original offset, original length, new length}
  /// (RewrittenFile::mapOffset uses them).
  std::vector<std::array<unsigned, 3>> Applied;
};

class EditSet {
public:
  /// Replace a file character range.  False if the range is not in one
  /// file (a macro body): the caller reports a diagnostic.
  bool replace(const clang::SourceManager &SM, clang::CharSourceRange R,
               std::string Text);
  /// Replace [Begin, End) of FID.
  void replace(clang::FileID FID, unsigned Begin, unsigned End, std::string Text);
  void insert(clang::FileID FID, unsigned Offset, std::string Text);
  /// Add E to FID unless an identical edit is already there (a header
  /// included twice produces its edits twice).
  void addUnique(clang::FileID FID, const Edit &E);

  /// Buf[Begin, End) with every edit of FID inside it applied, by the rule
  /// above.  Edits of FID outside the range are left out (see outside()).
  Rendered render(clang::FileID FID, llvm::StringRef Buf, unsigned Begin,
                  unsigned End) const;
  /// Render the whole buffer of FID.
  Rendered render(const clang::SourceManager &SM, clang::FileID FID) const;
  /// The first edit not inside [Begin, End) of FID (or in another file),
  /// or null.
  const Edit *outside(clang::FileID FID, unsigned Begin, unsigned End) const;
  /// Remove and return the edits of FID inside [Begin, End), insertions at
  /// Begin and End excluded (they belong to the neighbours).
  EditSet take(clang::FileID FID, unsigned Begin, unsigned End);
  /// Move every edit of Other into this set (after the ones already here).
  void absorb(EditSet &&Other);

  const std::map<clang::FileID, std::vector<Edit>> &files() const { return Files; }
  void clear() { Files.clear(); }
  bool empty() const { return Files.empty(); }

private:
  std::map<clang::FileID, std::vector<Edit>> Files;
  unsigned Counter = 0;
};

} // namespace compactptr

#endif
