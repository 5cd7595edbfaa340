//===- Attributes.cpp - the compactptr attributes -------------------------===//
//
// Registers the attributes with Clang's ParsedAttrInfo registry, so that
// `__has_attribute(compact)` is 1 wherever the engine is loaded (the plugin
// or compactptr-rewrite).  Spellings: `__attribute__((compact))` and
// `[[compactptr::compact]]` on struct definitions; `safepoint`,
// `allocator` and `deallocator` likewise on functions.  The attribute is recorded as an AnnotateAttr that Analysis
// reads.  Tests: test/plugin/attribute-spellings.c,
// test/diagnostics/attribute-misplaced.c.
//
//===----------------------------------------------------------------------===//
#include "Engine.h"
#include "clang/AST/Attr.h"
#include "clang/Basic/ParsedAttrInfo.h"
#include "clang/Sema/ParsedAttr.h"
#include "clang/Sema/Sema.h"

using namespace clang;

namespace {

/// One row per attribute of Vocabulary.def: its three spellings and the
/// declarations it applies to ("structs": records, to diagnose unions
/// later; "functions").
struct AttrDesc {
  const char *Name;
  const char *Applies;
  ParsedAttrInfo::Spelling Spellings[3];
};
constexpr AttrDesc Attrs[] = {
#define CP_ATTRIBUTE(Id, Name, Applies)                                        \
  {Name, Applies,                                                              \
   {{ParsedAttr::AS_GNU, Name},                                                \
    {ParsedAttr::AS_C23, "compactptr::" Name},                                 \
    {ParsedAttr::AS_CXX11, "compactptr::" Name}}},
#include "Vocabulary.def"
};

/// The attribute of row I, recorded as an AnnotateAttr that the passes
/// read through compactptr::hasAttribute.
template <unsigned I> struct AttrInfo : public ParsedAttrInfo {
  AttrInfo() {
    OptArgs = 0;
    Spellings = Attrs[I].Spellings;
  }
  bool diagAppertainsToDecl(Sema &S, const ParsedAttr &Attr,
                            const Decl *D) const override {
    bool Structs = StringRef(Attrs[I].Applies) == "structs";
    if (Structs ? isa<RecordDecl>(D) : isa<FunctionDecl>(D))
      return true;
    S.Diag(Attr.getLoc(), diag::warn_attribute_wrong_decl_type_str)
        << Attr << Attr.isRegularKeywordAttribute() << Attrs[I].Applies;
    return false;
  }
  AttrHandling handleDeclAttribute(Sema &S, Decl *D,
                                   const ParsedAttr &Attr) const override {
    D->addAttr(AnnotateAttr::Create(S.Context,
                                    compactptr::annotationOf(Attrs[I].Name),
                                    nullptr, 0, Attr.getRange()));
    return AttributeApplied;
  }
};

} // namespace

static ParsedAttrInfoRegistry::Add<AttrInfo<0>>
    X("compact", "a struct whose pointers are stored as 32-bit handles");
static ParsedAttrInfoRegistry::Add<AttrInfo<1>>
    Y("safepoint", "a function that may run the switch to wide mode");
static ParsedAttrInfoRegistry::Add<AttrInfo<2>>
    Z("allocator", "a pool: its allocations of compact objects go to the runtime");
static ParsedAttrInfoRegistry::Add<AttrInfo<3>>
    W("deallocator", "a pool's free: its frees of compact objects go to the runtime");
static_assert(sizeof(Attrs) / sizeof(Attrs[0]) == 4,
              "register every attribute of Vocabulary.def");

namespace compactptr {
/// Referenced by the front ends so the linker keeps this file.
int attributesAnchor() { return 0; }
} // namespace compactptr
