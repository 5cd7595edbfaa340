//===- Vocabulary.cpp - what the engine recognises ------------------------===//
//
// The matching functions of Vocabulary.h, over the names of Vocabulary.def.
//
//===----------------------------------------------------------------------===//
#include "Vocabulary.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"

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

StringRef byteCopyFunction(const FunctionDecl *FD, bool *Compares) {
  StringRef N = nameOf(FD);
#define CP_BYTE_COPY_FN(Name, Cmp)                                             \
  if (N == Name) {                                                             \
    if (Compares)                                                              \
      *Compares = Cmp;                                                         \
    return N;                                                                  \
  }
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

bool isSpinHint(const FunctionDecl *FD) {
  // _mm_pause is a static inline function of a system header, the pause
  // builtin has no declaration of its own: by name, libc's or not.
  if (!FD || !(isLibraryFunction(FD) || FD->getBuiltinID() ||
               FD->getASTContext().getSourceManager().isInSystemHeader(
                   FD->getLocation())))
    return false;
  StringRef N = nameOf(FD);
#define CP_SPIN_HINT_FN(Name)                                                  \
  if (N == Name)                                                               \
    return true;
#include "Vocabulary.def"
  return false;
}

StringRef syncObjectIn(QualType T) {
  for (QualType Q = T; !Q.isNull();) {
    if (const auto *AT = Q->getAsArrayTypeUnsafe()) {
      Q = AT->getElementType();
      continue;
    }
    if (const auto *TT = Q->getAs<TypedefType>()) {
      const TypedefNameDecl *TD = TT->getDecl();
      StringRef N = TD->getName();
      if (TD->getASTContext().getSourceManager().isInSystemHeader(
              TD->getLocation())) {
#define CP_SYNC_TYPE(Name)                                                     \
  if (N == Name)                                                               \
    return Name;
#include "Vocabulary.def"
      }
      Q = TT->desugar();
      continue;
    }
    break;
  }
  const auto *RT =
      T.getCanonicalType()->getBaseElementTypeUnsafe()->getAs<RecordType>();
  if (!RT || !RT->getDecl()->getDefinition())
    return "";
  for (const FieldDecl *FD : RT->getDecl()->getDefinition()->fields())
    if (StringRef N = syncObjectIn(FD->getType()); !N.empty())
      return N;
  return "";
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

namespace {
struct NamedArg {
  const char *Name;
  int Arg;
};
constexpr NamedArg KeptArgs[] = {
#define CP_KEEPS_ARG_FN(Name, Arg) {Name, Arg},
#include "Vocabulary.def"
};
constexpr NamedArg Callbacks[] = {
#define CP_CALLBACK_FN(Name, Arg) {Name, Arg},
#include "Vocabulary.def"
};
constexpr NamedArg BytesOut[] = {
#define CP_BYTES_OUT_FN(Name, Arg) {Name, Arg},
#include "Vocabulary.def"
};
constexpr NamedArg BytesIn[] = {
#define CP_BYTES_IN_FN(Name, Arg) {Name, Arg},
#include "Vocabulary.def"
};
constexpr NamedArg ThreadStarts[] = {
#define CP_THREAD_START_FN(Name, Arg) {Name, Arg},
#include "Vocabulary.def"
};
constexpr const char *StackSwitches[] = {
#define CP_STACK_SWITCH_FN(Name) Name,
#include "Vocabulary.def"
};

/// The argument Table gives for library function FD, or -1.
int argumentIn(ArrayRef<NamedArg> Table, const FunctionDecl *FD) {
  if (!isLibraryFunction(FD))
    return -1;
  StringRef N = nameOf(FD);
  for (const NamedArg &E : Table)
    if (N == E.Name)
      return E.Arg;
  return -1;
}
} // namespace

int keptArgument(const FunctionDecl *FD) { return argumentIn(KeptArgs, FD); }
int bytesOutArgument(const FunctionDecl *FD) {
  return argumentIn(BytesOut, FD);
}
int bytesInArgument(const FunctionDecl *FD) { return argumentIn(BytesIn, FD); }

bool returnsKept(const FunctionDecl *FD) {
  if (!isLibraryFunction(FD))
    return false;
  StringRef N = nameOf(FD);
#define CP_RETURNS_KEPT_FN(Name)                                               \
  if (N == Name)                                                               \
    return true;
#include "Vocabulary.def"
  return false;
}
int callbackArgument(const FunctionDecl *FD) { return argumentIn(Callbacks, FD); }
int threadStartArgument(const FunctionDecl *FD) { return argumentIn(ThreadStarts, FD); }

bool isAtomicBuiltin(const FunctionDecl *FD) {
  if (!FD || !FD->getBuiltinID())
    return false;
  StringRef N = nameOf(FD);
#define CP_ATOMIC_BUILTIN(Prefix)                                              \
  if (N.starts_with(Prefix))                                                   \
    return true;
#include "Vocabulary.def"
  return false;
}

bool switchesStacks(const FunctionDecl *FD) {
  return isLibraryFunction(FD) && llvm::is_contained(StackSwitches, nameOf(FD));
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
