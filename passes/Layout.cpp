//===- Layout.cpp - compact layouts, generated declarations, descriptors ==//
//
// In:  Model::Types (Analysis), checked by Safety.
// Out: per compact type, its fields in compact-layout order: handles
//      (cp_handle_t) for compact-pointer fields and handle arrays, the
//      compact layout of nested compact structs, every other field
//      unchanged; placed first fit in declaration order (each field at the
//      lowest aligned offset where it fits, in a hole an earlier field left
//      or at the end), which removes most padding; a run of consecutive
//      bit-fields is one field (bitRun).  The text of `struct
//      cp__c_T`, of the field-by-field converters between a heap object and
//      a wide value, and of the type descriptor.
// Why first fit: a field's offset depends only on the fields declared
//      before it.  Structs that share a common initial sequence (a "base"
//      struct whose fields open several "derived" ones) therefore place it
//      at the same compact offsets, and a struct's first field is at offset
//      0, so the casts C allows between such pointer types stay valid in
//      compact layout.  The rule depends on the type alone, so every
//      translation unit computes the same layout.
// Invariants: offsets and sizes in descriptors are computed by the C
//      compiler (offsetof/sizeof on the generated declarations), so the
//      descriptor always matches the code; the compact struct is aligned to
//      4 bytes and to the granule, so every object and array element has a
//      handle and its handle fields are aligned.
// Tests: test/rewrite/layout-reorder.c, test/rewrite/descriptor.c,
//      test/rewrite/nested-struct-field.c, test/rewrite/struct-copy.c,
//      test/rewrite/bit-fields.c.
//
//===----------------------------------------------------------------------===//
#include "Engine.h"
#include "clang/AST/Attr.h"
#include "clang/AST/PrettyPrinter.h"
#include "clang/AST/RecordLayout.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;

namespace compactptr {
namespace {

/// A run of consecutive bit-fields as one Bytes field.  C places a
/// bit-field by its offset modulo its type's size, so the run keeps the
/// places its bits have in the wide layout if it starts at a boundary
/// aligned for every type in it, plus the bytes the wide layout has
/// between such a boundary and the run's first byte (BitsLead).  Then the
/// bytes the run spans are the same bits in both layouts, and copy as
/// bytes.  A bit-field never shares a byte with another kind of field,
/// so those bytes belong to the run alone.  None if the run has no named
/// field (its bits are padding).
std::optional<FieldInfo> bitRun(ASTContext &C, const RecordDecl *RD,
                                llvm::ArrayRef<const FieldDecl *> Run) {
  const ASTRecordLayout &RL = C.getASTRecordLayout(RD);
  FieldInfo F;
  F.K = FieldInfo::Bytes;
  uint64_t Begin = UINT64_MAX, End = 0, Align = 1;
  for (const FieldDecl *B : Run) {
    F.Bits.push_back(B);
    Align = std::max<uint64_t>(
        Align, C.getTypeAlignInChars(B->getType()).getQuantity());
    unsigned Width = B->getBitWidthValue(C);
    if (!Width)
      continue;
    uint64_t At = RL.getFieldOffset(B->getFieldIndex());
    Begin = std::min(Begin, At);
    End = std::max(End, At + Width);
    if (!F.FD && B->getIdentifier())
      F.FD = B;
  }
  if (!F.FD)
    return std::nullopt;
  F.BitsWide = Begin / 8;
  F.BitsLead = F.BitsWide % Align;
  F.BitsBytes = (End + 7) / 8 - F.BitsWide;
  F.CompactAlign = Align;
  F.CompactSize = (F.BitsLead + F.BitsBytes + Align - 1) / Align * Align;
  return F;
}

/// FD is the room member of its struct (roomMember) with no element in
/// the struct's size: a flexible array member, or a GNU zero-length array
/// last, which the compact struct declares as a flexible array member.
static bool emptyRoom(const FieldDecl *FD) {
  return roomMember(FD->getParent()) == FD && !isOneElementRoom(FD);
}

void layoutType(Session &S, CompactType &T) {
  if (T.LayoutDone)
    return;
  T.LayoutDone = true; // a by-value cycle is impossible in C
  ASTContext &C = S.Ctx;
  std::vector<const FieldDecl *> All(T.RD->field_begin(), T.RD->field_end());
  for (size_t I = 0; I < All.size(); ++I) {
    const FieldDecl *FD = All[I];
    if (FD->isBitField()) {
      size_t J = I;
      while (J < All.size() && All[J]->isBitField())
        ++J;
      if (std::optional<FieldInfo> F =
              bitRun(C, T.RD, llvm::ArrayRef(All).slice(I, J - I)))
        T.Fields.push_back(*F);
      I = J - 1;
      continue;
    }
    FieldInfo F;
    F.FD = FD;
    ArrayShape A = stripArrays(FD->getType());
    F.Count = A.Count;
    QualType E = A.Element;
    if (CompactType *P = S.M.pointeeOf(E)) {
      F.K = FieldInfo::Handle;
      F.Target = P->RD;
      F.CompactAlign = 4;
      // A flexible array member of compact pointers: handles at the end.
      F.Flex = emptyRoom(FD);
      F.CompactSize = F.Flex ? 0 : 4 * F.Count;
    } else if (CompactType *R = S.M.recordOf(E)) {
      layoutType(S, *R);
      F.K = FieldInfo::Struct;
      F.Target = R->RD;
      F.CompactAlign = R->CompactAlign;
      // A flexible array member of compact values: at the end.
      F.Flex = emptyRoom(FD);
      F.CompactSize = F.Flex ? 0 : R->CompactSize * F.Count;
    } else {
      F.K = FieldInfo::Bytes;
      F.SlotPointer = isSlotFieldType(S.M, FD);
      F.AddressPointer = isAddressFieldType(S.M, FD);
      F.CompactAlign = C.getDeclAlign(FD).getQuantity();
      // A flexible array member has no size: placed at the end.
      F.Flex = emptyRoom(FD);
      F.CompactSize =
          F.Flex ? 0 : C.getTypeSizeInChars(FD->getType()).getQuantity();
    }
    F.OneElementRoom = isOneElementRoom(FD);
    T.Fields.push_back(F);
  }
  // First fit in declaration order: each field goes to the lowest offset
  // aligned for it where it fits, in a hole an earlier field left or at
  // the end.  A field's offset depends only on the fields before it.
  std::vector<std::pair<uint64_t, uint64_t>> Used; // sorted [begin, end)
  uint64_t End = 0;
  unsigned Align = 1;
  for (FieldInfo &F : T.Fields) {
    uint64_t A = F.CompactAlign, At = 0;
    size_t I = 0;
    // A zero-length array, and the struct hack's one element, whose room
    // follows it: at the end.
    if (F.CompactSize == 0 || F.OneElementRoom) {
      At = (End + A - 1) / A * A;
      I = Used.size();
    } else {
      uint64_t Prev = 0;
      for (;; ++I) {
        uint64_t GapEnd = I < Used.size() ? Used[I].first : UINT64_MAX;
        At = (Prev + A - 1) / A * A;
        if (At + F.CompactSize <= GapEnd)
          break;
        Prev = Used[I].second;
      }
    }
    Used.insert(Used.begin() + I, {At, At + F.CompactSize});
    F.CompactOffset = At;
    End = std::max(End, At + F.CompactSize);
    Align = std::max(Align, F.CompactAlign);
  }
  // The generated struct lists the fields by offset; C's own layout of
  // that order puts each one where it was placed (no field fits lower).
  std::stable_sort(T.Fields.begin(), T.Fields.end(),
                   [](const FieldInfo &A, const FieldInfo &B) {
                     return A.CompactOffset < B.CompactOffset;
                   });
  // The compact struct is aligned to 4 bytes (the granule if larger), and
  // to what the struct itself asks (`struct __attribute__((aligned(16)))
  // v4`: SSE loads of its first field need it).
  Align = std::max({Align, 4u, T.RD->getMaxAlignment() / 8});
  T.CompactAlign = Align;
  T.CompactSize = (End + Align - 1) / Align * Align;
  // A member of handles or compact values starts at the struct's size, as
  // a member of pointers does natively: in the tail padding, its first
  // elements would be copied by `*q = *p` and cleared by `memset(p, 0,
  // sizeof *p)`.  Printed aligned to the struct (compactDeclText).
  if (!T.Fields.empty() && T.Fields.back().Flex &&
      T.Fields.back().K != FieldInfo::Bytes) {
    T.Fields.back().CompactAlign = Align;
    T.Fields.back().CompactOffset = T.CompactSize;
  }
}

std::string declText(const Session &S, QualType T, StringRef Name) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  T.getUnqualifiedType().print(OS, S.policy(), Name);
  return OS.str();
}

const CompactType &typeOf(const Session &S, const RecordDecl *RD) {
  return *S.M.ByDecl.lookup(cast<RecordDecl>(RD->getCanonicalDecl()));
}

/// Pointer-to-element type text of a handle field: "struct node *".
std::string handleElemText(const Session &S, const FieldInfo &F) {
  return S.typeText(stripArrays(F.FD->getType()).Element.getUnqualifiedType());
}

} // namespace

bool hasConstPart(QualType T) {
  T = T.getCanonicalType();
  if (T.isConstQualified())
    return true;
  if (const auto *AT = dyn_cast<ArrayType>(T.getTypePtr()))
    return hasConstPart(AT->getElementType());
  if (const auto *RT = T->getAs<RecordType>())
    for (const FieldDecl *FD : RT->getDecl()->fields())
      if (hasConstPart(FD->getType()))
        return true;
  return false;
}

void runLayout(Session &S) {
  for (auto &T : S.M.Types)
    layoutType(S, *T);
}

/// The converter's store of Value into the wide value's field N: an
/// assignment, or for a field that is or holds a const member (`const int
/// k;`, which C lets a struct's initializer set but no assignment) a copy
/// of its bytes.
static std::string setWide(const FieldInfo &F, const std::string &N,
                           const std::string &Value) {
  if (!hasConstPart(F.FD->getType()))
    return " cp__w." + N + " = " + Value + ";";
  return " { __typeof__(" + Value + ") cp__t = " + Value +
         "; __builtin_memcpy((void *)&cp__w." + N +
         ", &cp__t, sizeof cp__t); }";
}

/// A bit-field's type as its declaration spells it; an enumeration of
/// unnamed type (`enum { RED, BLACK } color : 1;`) by its integer type,
/// which places it alike (`__typeof__` cannot name a bit-field's type).
static std::string bitFieldType(const Session &S, const FieldDecl *FD) {
  QualType T = FD->getType();
  if (const auto *ET = T->getAs<EnumType>(); ET && isUnnamedTag(T))
    T = ET->getDecl()->getIntegerType();
  return declText(S, T, "");
}

/// The member holding a run of bit-fields: an anonymous struct aligned as
/// the run's boundary, whose marker array (named after the first field)
/// spans the lead bytes before the run's first one; the bit-fields follow,
/// unnamed ones and widths as declared.  `__extension__`: anonymous
/// structs and zero-length arrays are extensions before C11.
static std::string bitRunText(const Session &S, const FieldInfo &F) {
  std::string Out = " __extension__ struct __attribute__((aligned(" +
                    std::to_string(F.CompactAlign) + "))) { char cp__bits_" +
                    F.FD->getName().str() + "[" + std::to_string(F.BitsLead) +
                    "];";
  for (const FieldDecl *B : F.Bits)
    Out += " " + bitFieldType(S, B) +
           (B->getIdentifier() ? " " + B->getName().str() : "") + " : " +
           std::to_string(B->getBitWidthValue(S.Ctx)) + ";";
  return Out + " };";
}

/// A flexible array member of handles or compact values, aligned as its
/// struct (also to a granule larger than that), so that it starts at the
/// struct's size, past the tail padding (layoutType).
static std::string flexAlign(const FieldInfo &F) {
  std::string A = std::to_string(F.CompactAlign);
  return " __attribute__((aligned(CP_GRANULE > " + A + " ? CP_GRANULE : " + A +
         ")))";
}

std::string compactDeclText(const Session &S, const CompactType &T) {
  std::string Out = "struct " + T.CompactTag + " {";
  for (const FieldInfo &F : T.Fields) {
    std::string Dims = stripArrays(F.FD->getType()).Dims;
    std::string Name = F.FD->getName().str();
    switch (F.K) {
    case FieldInfo::Handle:
      Out +=
          " cp_handle_t " + Name + (F.Flex ? "[]" + flexAlign(F) : Dims) + ";";
      break;
    case FieldInfo::Struct:
      Out += " " + typeOf(S, F.Target).compactSpelling() + " " + Name +
             (F.Flex ? "[]" + flexAlign(F) : Dims) + ";";
      break;
    case FieldInfo::Bytes:
      if (!F.Bits.empty()) {
        Out += bitRunText(S, F);
        break;
      }
      // A field of unnamed type (`enum { LEAF, INNER } kind;`) has no
      // spelling of its own: take it from the wide type's field.
      if (isUnnamedTag(F.FD->getType()))
        Out += " __typeof__(((" + T.WideSpelling + " *)0)->" + Name + ") " + Name;
      else
        Out += " " + declText(S, F.FD->getType(), Name);
      if (F.FD->hasAttr<AlignedAttr>())
        Out += " __attribute__((aligned(" + std::to_string(F.CompactAlign) + ")))";
      Out += ";";
      break;
    }
  }
  Out += " } __attribute__((aligned(CP_GRANULE > 4 ? CP_GRANULE : 4)))";
  if (unsigned Own = T.RD->getMaxAlignment() / 8; Own > 4)
    Out += " __attribute__((aligned(" + std::to_string(Own) + ")))";
  Out += ";";
  Out += " static cp_type_desc_t " + T.DescName + ";";
  if (!S.Opts.compactBodies())
    return Out;

  // Converters between a heap object (compact layout) and a wide value.
  // A value stored whole may hold links never set (C allows copying it),
  // so its pointers are encoded without the check that stops the program
  // (cp__encode_member); a store of one pointer keeps the check.
  const std::string W = T.WideSpelling, CT = T.compactSpelling();
  std::string Load = " static __inline__ __attribute__((unused)) " + W + " cp__load_" + T.Name + "(const " +
                     CT + " *cp__c) { " + W + " cp__w;";
  std::string Store = " static __inline__ __attribute__((unused)) " + W + " cp__store_" + T.Name + "(" +
                      CT + " *cp__c, " + W + " cp__w) {";
  for (const FieldInfo &F : T.Fields) {
    std::string N = F.FD->getName().str();
    bool IsArray = F.FD->getType()->isArrayType();
    if (F.Flex)
      continue; // as C's own struct copy, the fields before it only
    switch (F.K) {
    case FieldInfo::Bytes:
      if (!F.Bits.empty()) {
        // The run's bytes, as the switch copies them (a const bit-field
        // has no assignment, and none has an address).
        std::string At = " + __builtin_offsetof(" + CT + ", cp__bits_" + N +
                         ") + " + std::to_string(F.BitsLead);
        std::string Wv =
            "(char *)(void *)&cp__w + " + std::to_string(F.BitsWide);
        std::string Len = std::to_string(F.BitsBytes);
        Load += " __builtin_memcpy(" + Wv +
                ", (const char *)(const void *)cp__c" + At + ", " + Len + ");";
        Store += " __builtin_memcpy((char *)(void *)cp__c" + At + ", " + Wv +
                 ", " + Len + ");";
        break;
      }
      if (IsArray) {
        Load += " __builtin_memcpy((void *)&cp__w." + N + ", &cp__c->" + N +
                ", sizeof cp__w." + N + ");";
        Store += " __builtin_memcpy((void *)&cp__c->" + N + ", &cp__w." + N +
                 ", sizeof cp__w." + N + ");";
      } else {
        Load += setWide(F, N, "cp__c->" + N);
        Store += hasConstPart(F.FD->getType())
                     ? " __builtin_memcpy((void *)&cp__c->" + N + ", &cp__w." +
                           N + ", sizeof cp__w." + N + ");"
                     : " cp__c->" + N + " = cp__w." + N + ";";
      }
      break;
    case FieldInfo::Handle: {
      std::string PT = handleElemText(S, F);
      if (!IsArray) {
        Load += setWide(F, N, "(" + PT + ")cp_decode(cp__c->" + N + ")");
        Store += " cp__c->" + N + " = cp__encode_member(cp__w." + N + ");";
      } else {
        std::string Cnt = std::to_string(F.Count);
        Load += " { unsigned long cp__i; for (cp__i = 0; cp__i < " + Cnt + "; cp__i++) ((" +
                PT + " *)(void *)&cp__w." + N + ")[cp__i] = (" + PT +
                ")cp_decode(((const cp_handle_t *)(const void *)&cp__c->" + N +
                ")[cp__i]); }";
        Store += " { unsigned long cp__i; for (cp__i = 0; cp__i < " + Cnt +
                 "; cp__i++) ((cp_handle_t *)(void *)&cp__c->" + N +
                 ")[cp__i] = cp__encode_member(((" + PT + " *)(void *)&cp__w." +
                 N + ")[cp__i]); }";
      }
      break;
    }
    case FieldInfo::Struct: {
      const CompactType &R = typeOf(S, F.Target);
      if (!IsArray) {
        Load += setWide(F, N, "cp__load_" + R.Name + "(&cp__c->" + N + ")");
        Store += " cp__store_" + R.Name + "(&cp__c->" + N + ", cp__w." + N + ");";
      } else {
        std::string Cnt = std::to_string(F.Count);
        Load += " { unsigned long cp__i; for (cp__i = 0; cp__i < " + Cnt + "; cp__i++) ((" +
                R.WideSpelling + " *)(void *)&cp__w." + N + ")[cp__i] = cp__load_" +
                R.Name + "(&((const " + R.compactSpelling() +
                " *)(const void *)&cp__c->" + N + ")[cp__i]); }";
        Store += " { unsigned long cp__i; for (cp__i = 0; cp__i < " + Cnt +
                 "; cp__i++) cp__store_" + R.Name + "(&((" + R.compactSpelling() +
                 " *)(void *)&cp__c->" + N + ")[cp__i], ((" + R.WideSpelling +
                 " *)(void *)&cp__w." + N + ")[cp__i]); }";
      }
      break;
    }
    }
  }
  Load += " return cp__w; }";
  Store += " return cp__w; }";
  return Out + Load + Store;
}

/// How this translation unit uses a slot-pointer field (CP_SLOT_USE_*).
static std::string slotUse(const Model &M, const FieldDecl *FD) {
  if (M.SlotFields.count(FD))
    return "CP_SLOT_USE_HANDLES";
  return M.SlotFieldsRead.count(FD) ? "CP_SLOT_USE_NATIVE" : "CP_SLOT_USE_NONE";
}

std::string descriptorText(const Session &S, const CompactType &T) {
  const std::string W = T.WideSpelling, CT = T.compactSpelling();
  std::string Out = "static const cp_field_desc_t cp__fields_" + T.Name + "[] = {\n";
  size_t Entries = T.Fields.size();
  for (const FieldInfo &F : T.Fields) {
    std::string N = F.FD->getName().str();
    if (!F.Bits.empty()) {
      // offsetof cannot name a bit-field: the run's marker, and its place
      // in the wide layout from clang's own layout of the struct.
      Out += "  {\"" + N + "\", __builtin_offsetof(" + CT + ", cp__bits_" + N +
             ") + " + std::to_string(F.BitsLead) + ", " +
             std::to_string(F.BitsWide) + ", CP_FIELD_BYTES, 1, " +
             std::to_string(F.BitsBytes) + ", 0},\n";
      continue;
    }
    Out += "  {\"" + N + "\", __builtin_offsetof(" + CT + ", " + N +
           "), __builtin_offsetof(" + W + ", " + N + "), ";
    std::string Cnt = std::to_string(F.Count);
    switch (F.K) {
    case FieldInfo::Bytes:
      if (F.Flex)
        Out += "CP_FIELD_FLEX, CP_FIELD_BYTES, sizeof(((" + W + " *)0)->" + N +
               "[0]), 0},\n";
      else if (F.SlotPointer)
        Out += "CP_FIELD_SLOT, " + Cnt + ", " + slotUse(S.M, F.FD) + ", 0},\n";
      else if (F.AddressPointer)
        Out += "CP_FIELD_ADDRESS, " + Cnt + ", 0, 0},\n";
      else
        Out += "CP_FIELD_BYTES, " + Cnt + ", sizeof(((" + W + " *)0)->" + N +
               "), 0},\n";
      break;
    case FieldInfo::Handle:
      if (F.Flex)
        Out += "CP_FIELD_FLEX, CP_FIELD_HANDLE, sizeof(void *), &" +
               typeOf(S, F.Target).DescName + "},\n";
      else
        Out += "CP_FIELD_HANDLE, " + Cnt + ", 0, &" +
               typeOf(S, F.Target).DescName + "},\n";
      break;
    case FieldInfo::Struct:
      if (F.Flex)
        Out += "CP_FIELD_FLEX, CP_FIELD_STRUCT, sizeof(" +
               typeOf(S, F.Target).WideSpelling + "), &" +
               typeOf(S, F.Target).DescName + "},\n";
      else
        Out += "CP_FIELD_STRUCT, " + Cnt + ", 0, &" +
               typeOf(S, F.Target).DescName + "},\n";
      break;
    }
    if (F.OneElementRoom) {
      // The struct hack's room: its first element is a field as any other
      // (a variable of the type holds it), the rest a flexible array
      // member that starts at the second.
      ++Entries;
      Out += "  {\"" + N + "\", __builtin_offsetof(" + CT + ", " + N +
             "[1]), __builtin_offsetof(" + W + ", " + N +
             "[1]), CP_FIELD_FLEX, ";
      switch (F.K) {
      case FieldInfo::Bytes:
        Out += "CP_FIELD_BYTES, sizeof(((" + W + " *)0)->" + N + "[0]), 0},\n";
        break;
      case FieldInfo::Handle:
        Out += "CP_FIELD_HANDLE, sizeof(void *), &" +
               typeOf(S, F.Target).DescName + "},\n";
        break;
      case FieldInfo::Struct:
        Out += "CP_FIELD_STRUCT, sizeof(" + typeOf(S, F.Target).WideSpelling +
               "), &" + typeOf(S, F.Target).DescName + "},\n";
        break;
      }
    }
  }
  Out += "};\n";
  Out += "static cp_type_desc_t " + T.DescName +
         " = {CP_ABI_VERSION, "
         "CP_GRANULE_SHIFT, " +
         std::string(S.Opts.buildFlag()) + ", \"" + T.Name + "\", sizeof(" +
         CT + "), __alignof__(" + CT + "), sizeof(" + W + "), __alignof__(" +
         W + "), " + std::to_string(Entries) + ", cp__fields_" + T.Name +
         ", &cp__module, 0};\n";
  Out += "CP_REGISTER_TYPE(" + T.DescName + ");\n";
  if (!T.IntegerCastSites.empty()) {
    // The records themselves go in the section (a pair of pointers each).
    Out += "static const cp_cast_site_t cp__casts_" + T.Name +
           "[] __attribute__((section(\"compactptr_casts\"), used, aligned(8))) = {";
    for (const std::string &Site : T.IntegerCastSites) {
      Out += "{&" + T.DescName + ", \"";
      for (char C : Site) {
        if (C == '"' || C == '\\')
          Out += '\\';
        Out += C;
      }
      Out += "\"}, ";
    }
    Out += "};\n";
  }
  return Out;
}

std::string pinnedDescriptorText(const Session &S, const CompactType &T) {
  // One layout: the compact offsets are the wide ones.  Only what the
  // switch translates is listed: compact pointers, and pinned or compact
  // structs held by value (their own lists; a compact one in its wide
  // layout, which is all a root's visit reads).
  const std::string &W = T.WideSpelling;
  std::string Fields;
  unsigned N = 0;
  for (const FieldDecl *FD : T.RD->fields()) {
    ArrayShape A = stripArrays(FD->getType());
    QualType E = A.Element;
    if (const auto *AT = E->getAs<AtomicType>())
      E = AT->getValueType();
    // Kind, then the entry's `size` and `target`.
    std::string Kind, Size = "0", Target = "0";
    if (CompactType *P = S.M.pointeeOf(E))
      Kind = "CP_FIELD_HANDLE", Target = "&" + P->DescName;
    else if (isSlotFieldType(S.M, FD))
      Kind = "CP_FIELD_SLOT", Size = slotUse(S.M, FD);
    else if (isAddressFieldType(S.M, FD))
      Kind = "CP_FIELD_ADDRESS";
    else if (CompactType *P = S.M.pinnedOf(E))
      Kind = "CP_FIELD_STRUCT", Target = "&" + P->DescName;
    else if (CompactType *P = S.M.recordOf(E)) // read at its wide offsets
      Kind = "CP_FIELD_STRUCT", Target = "&" + P->DescName;
    if (Kind.empty() || FD->isBitField() || !A.Count || FD->getName().empty())
      continue;
    std::string Off =
        "__builtin_offsetof(" + W + ", " + FD->getName().str() + ")";
    Fields += "  {\"" + FD->getName().str() + "\", " + Off + ", " + Off + ", " +
              Kind + ", " + std::to_string(A.Count) + ", " + Size + ", " +
              Target + "},\n";
    ++N;
  }
  std::string Out;
  if (N)
    Out += "static const cp_field_desc_t cp__fields_" + T.Name + "[] = {\n" +
           Fields + "};\n";
  std::string Size =
      "((sizeof(" + W + ") + CP_GRANULE - 1) / CP_GRANULE * CP_GRANULE)";
  std::string Align =
      "(__alignof__(" + W + ") > 4 ? __alignof__(" + W + ") : 4)";
  Out += "static cp_type_desc_t " + T.DescName +
         " = {CP_ABI_VERSION, "
         "CP_GRANULE_SHIFT, " +
         std::string(S.Opts.buildFlag()) + ", \"" + T.Name + "\", " + Size +
         ", " + Align + ", sizeof(" + W + "), __alignof__(" + W + "), " +
         std::to_string(N) + ", " +
         (N ? "cp__fields_" + T.Name : std::string("0")) +
         ", &cp__module, 0};\n";
  Out += "CP_REGISTER_TYPE(" + T.DescName + ");\n";
  return Out;
}

} // namespace compactptr
