//===- Vocabulary.cpp - what the engine recognises ------------------------===//
//
// The matching functions of Vocabulary.h, over the names of Vocabulary.def.
//
//===----------------------------------------------------------------------===//
#include "Vocabulary.h"
#include "clang/AST/Attr.h"

using namespace clang;

namespace compactptr {

namespace {
StringRef nameOf(const FunctionDecl *FD) {
  return FD && FD->getIdentifier() ? FD->getName() : StringRef();
}
} // namespace

AllocFn allocFunction(const CallExpr *CE) {
  const FunctionDecl *FD = CE->getDirectCallee();
  StringRef N = nameOf(FD);
  if (N.empty())
    return AllocFn::None;
  if (hasAttribute(FD, "allocator"))
    return AllocFn::Allocator;
  if (hasAttribute(FD, "deallocator"))
    return AllocFn::Deallocator;
  // A program's own function called malloc is not libc's.
  if (FD->hasBody() && !FD->isInlined())
    return AllocFn::None;
  unsigned Args = CE->getNumArgs();
#define CP_ALLOC_FN(Kind, Name, NArgs)                                         \
  if (N == Name && Args == NArgs)                                              \
    return AllocFn::Kind;
#define CP_ALLOC_ALIAS CP_ALLOC_FN
#include "Vocabulary.def"
  return AllocFn::None;
}

bool isRuntimeFunction(const FunctionDecl *FD) {
  return nameOf(FD).starts_with(CP_RUNTIME_PREFIX);
}

StringRef byteCopyFunction(const FunctionDecl *FD) {
  StringRef N = nameOf(FD);
#define CP_BYTE_COPY_FN(Name)                                                  \
  if (N == Name)                                                               \
    return N;
#include "Vocabulary.def"
  return StringRef();
}

std::string annotationOf(StringRef Name) { return "compactptr::" + Name.str(); }

bool hasAttribute(const Decl *D, StringRef Name) {
  std::string A = annotationOf(Name);
  for (const Decl *R : D->redecls())
    for (const auto *X : R->specific_attrs<AnnotateAttr>())
      if (X->getAnnotation() == A)
        return true;
  return false;
}

/// FD is declared, not defined by the program: no body, or glibc's own
/// `extern inline` body (`__fortify_function read`, the inline bsearch).
static bool isLibraryFunction(const FunctionDecl *FD) {
  const FunctionDecl *Def = FD ? FD->getDefinition() : nullptr;
  return FD && (!Def || Def->hasAttr<GNUInlineAttr>() || Def->isInlineBuiltinDeclaration());
}

bool isBlockingFunction(const FunctionDecl *FD) {
  if (!isLibraryFunction(FD))
    return false;
  StringRef N = nameOf(FD);
#define CP_BLOCKING_FN(Name)                                                   \
  if (N == Name)                                                               \
    return true;
#include "Vocabulary.def"
  return false;
}

bool returnsTwice(const FunctionDecl *FD) {
  if (!FD)
    return false;
  if (FD->hasAttr<ReturnsTwiceAttr>())
    return true;
  StringRef N = nameOf(FD);
#define CP_RETURNS_TWICE_FN(Name)                                              \
  if (N == Name)                                                               \
    return true;
#include "Vocabulary.def"
  return false;
}

int keptArgument(const FunctionDecl *FD) {
  StringRef N = nameOf(FD);
#define CP_KEEPS_ARG_FN(Name, Arg)                                             \
  if (N == Name)                                                               \
    return Arg;
#include "Vocabulary.def"
  return -1;
}

int callbackArgument(const FunctionDecl *FD) {
  StringRef N = nameOf(FD);
#define CP_CALLBACK_FN(Name, Arg)                                              \
  if (N == Name)                                                               \
    return Arg;
#include "Vocabulary.def"
  return -1;
}

const Expr *resultArgument(const CallExpr *CE) {
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!isLibraryFunction(FD))
    return nullptr;
  StringRef N = nameOf(FD);
#define CP_RESULT_IN_ARG_FN(Name, Arg)                                         \
  if (N == Name)                                                               \
    return CE->getNumArgs() > (Arg) ? CE->getArg(Arg) : nullptr;
#include "Vocabulary.def"
  return nullptr;
}

bool isAlignedAllocator(const FunctionDecl *FD) {
  if (!FD || FD->hasBody())
    return false;
  StringRef N = nameOf(FD);
#define CP_ALIGNED_ALLOC_FN(Name)                                              \
  if (N == Name)                                                               \
    return true;
#include "Vocabulary.def"
  return false;
}

bool isSafepointFunction(const FunctionDecl *FD) {
  if (!FD)
    return false;
  if (hasAttribute(FD, "safepoint"))
    return true;
  StringRef N = nameOf(FD);
#define CP_SAFEPOINT_FN(Name)                                                  \
  if (N == Name)                                                               \
    return true;
#include "Vocabulary.def"
  return false;
}

ArrayShape stripArrays(QualType T) {
  ArrayShape S;
  if (T.isNull()) // e.g. the message of a _Static_assert in a function
    return S;
  QualType C = T.getCanonicalType();
  while (const auto *AT = dyn_cast<ArrayType>(C.getTypePtr())) {
    S.Array = true;
    if (const auto *CAT = dyn_cast<ConstantArrayType>(AT)) {
      uint64_t N = CAT->getSize().getZExtValue();
      S.Count *= N;
      S.Dims += "[" + std::to_string(N) + "]";
    } else {
      S.Variable = true;
    }
    C = AT->getElementType().getCanonicalType();
  }
  // Not an array: keep T's own spelling (typedef names print as written).
  S.Element = S.Array ? C : T;
  return S;
}

bool isUnnamedTag(QualType T) {
  const auto *TT = stripArrays(T).Element->getAs<TagType>();
  return TT && !TT->getDecl()->getIdentifier() &&
         !TT->getDecl()->getTypedefNameForAnonDecl();
}

} // namespace compactptr
