//===- Attributes.cpp - the `compact` and `safepoint` attributes ----------===//
//
// Registers the attributes with Clang's ParsedAttrInfo registry, so that
// `__has_attribute(compact)` is 1 wherever the engine is loaded (the plugin
// or compactptr-rewrite).  Spellings: `__attribute__((compact))` and
// `[[compactptr::compact]]` on struct definitions; `safepoint` likewise on
// functions.  The attribute is recorded as an AnnotateAttr that Analysis
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

/// `compact`: on a struct (or union, to diagnose it later) definition.
struct CompactAttrInfo : public ParsedAttrInfo {
  CompactAttrInfo() {
    OptArgs = 0;
    static constexpr Spelling S[] = {
        {ParsedAttr::AS_GNU, "compact"},
        {ParsedAttr::AS_C23, "compactptr::compact"},
        {ParsedAttr::AS_CXX11, "compactptr::compact"}};
    Spellings = S;
  }
  bool diagAppertainsToDecl(Sema &S, const ParsedAttr &Attr,
                            const Decl *D) const override {
    if (!isa<RecordDecl>(D)) {
      S.Diag(Attr.getLoc(), diag::warn_attribute_wrong_decl_type_str)
          << Attr << Attr.isRegularKeywordAttribute() << "structs";
      return false;
    }
    return true;
  }
  AttrHandling handleDeclAttribute(Sema &S, Decl *D,
                                   const ParsedAttr &Attr) const override {
    D->addAttr(AnnotateAttr::Create(S.Context, "compactptr::compact", nullptr,
                                    0, Attr.getRange()));
    return AttributeApplied;
  }
};

/// `safepoint`: on a function declaration (the switchable form uses it).
struct SafepointAttrInfo : public ParsedAttrInfo {
  SafepointAttrInfo() {
    OptArgs = 0;
    static constexpr Spelling S[] = {
        {ParsedAttr::AS_GNU, "safepoint"},
        {ParsedAttr::AS_C23, "compactptr::safepoint"},
        {ParsedAttr::AS_CXX11, "compactptr::safepoint"}};
    Spellings = S;
  }
  bool diagAppertainsToDecl(Sema &S, const ParsedAttr &Attr,
                            const Decl *D) const override {
    if (!isa<FunctionDecl>(D)) {
      S.Diag(Attr.getLoc(), diag::warn_attribute_wrong_decl_type_str)
          << Attr << Attr.isRegularKeywordAttribute() << "functions";
      return false;
    }
    return true;
  }
  AttrHandling handleDeclAttribute(Sema &S, Decl *D,
                                   const ParsedAttr &Attr) const override {
    D->addAttr(AnnotateAttr::Create(S.Context, "compactptr::safepoint", nullptr,
                                    0, Attr.getRange()));
    return AttributeApplied;
  }
};

} // namespace

static ParsedAttrInfoRegistry::Add<CompactAttrInfo>
    X("compact", "a struct whose pointers are stored as 32-bit handles");
static ParsedAttrInfoRegistry::Add<SafepointAttrInfo>
    Y("safepoint", "a function that may run the switch to wide mode");

namespace compactptr {
/// Referenced by the front ends so the linker keeps this file.
int attributesAnchor() { return 0; }
} // namespace compactptr
