//===- Vocabulary.h - what the engine recognises, in one place ------------===//
//
// Every name the engine matches (allocation, byte-copy and safepoint
// functions, attribute spellings) comes from Vocabulary.def, which
// compactptr-advise includes too; every walk over array types goes through
// stripArrays.  A pass that needs "is this an allocation" or "the element
// type" asks here, so the answer is the same everywhere.
// Tests: test/rewrite/malloc-forms.c, test/rewrite/knr-malloc.c,
//        test/plugin/attribute-spellings.c, test/diagnostics/*.c.
//
//===----------------------------------------------------------------------===//
#ifndef COMPACTPTR_VOCABULARY_H
#define COMPACTPTR_VOCABULARY_H

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include <string>

namespace compactptr {

/// The libc allocation function a call names (Vocabulary.def).
enum class AllocFn {
  None,
#define CP_ALLOC_FN(Kind, Name, Args) Kind,
#include "Vocabulary.def"
  /// A program's own function declared CP_ALLOCATOR / CP_DEALLOCATOR: the
  /// size is whichever argument is sizeof(T) or n * sizeof(T); the object
  /// freed is the first pointer argument.
  Allocator,
  Deallocator,
};

/// The allocation function CE calls: libc's (declared, not defined in this
/// TU unless inline), with its own argument count, or a function declared
/// CP_ALLOCATOR or CP_DEALLOCATOR; else None.
AllocFn allocFunction(const clang::CallExpr *CE);

/// A call to a runtime function ("cp_..."): its results are arena objects.
bool isRuntimeFunction(const clang::FunctionDecl *FD);

/// memcpy, memcmp and friends (Vocabulary.def): FD's name, or "" if not
/// one; *Compares (when given) says whether it compares rather than copies.
llvm::StringRef byteCopyFunction(const clang::FunctionDecl *FD, bool *Compares = nullptr);

/// The AnnotateAttr text the attribute `Name` ("compact", "safepoint")
/// leaves on a declaration: "compactptr::compact".
std::string annotationOf(llvm::StringRef Name);

/// A declaration of D carries the attribute `Name`.
bool hasAttribute(const clang::Decl *D, llvm::StringRef Name);

/// FD is a safepoint by declaration: `CP_SAFEPOINT` on any of its
/// declarations, or a runtime safepoint function (Vocabulary.def).
bool isSafepointFunction(const clang::FunctionDecl *FD);

/// FD is a libc function that may block for long (Vocabulary.def):
/// declared, not defined by the program (glibc's own inline definitions,
/// as _FORTIFY_SOURCE makes them, count as declared).
bool isBlockingFunction(const clang::FunctionDecl *FD);

/// FD is a call a thread makes while it waits in a loop for another
/// (sched_yield, _mm_pause: Vocabulary.def).
bool isSpinHint(const clang::FunctionDecl *FD);
/// T is, or holds by value (through arrays, structs and unions), a
/// synchronization object of a system header (CP_SYNC_TYPE): the name of
/// the first one found, else "".
llvm::StringRef syncObjectIn(clang::QualType T);

/// FD may return a second time (clang's returns_twice, or setjmp's kind by
/// name: Vocabulary.def).
bool returnsTwice(const clang::FunctionDecl *FD);
/// The pointer argument a libc function keeps after it returns, or -1.
int keptArgument(const clang::FunctionDecl *FD);
/// The argument whose bytes library function FD copies elsewhere
/// (memcpy's source, write's buffer), or -1.
int bytesOutArgument(const clang::FunctionDecl *FD);
/// The argument library function FD fills from a file, pipe or socket
/// (read's buffer), or -1.
int bytesInArgument(const clang::FunctionDecl *FD);
/// FD's result is a pointer libc kept (pthread_getspecific's), not memory
/// it allocates.
bool returnsKept(const clang::FunctionDecl *FD);
/// The function argument a libc function calls back, or -1.
int callbackArgument(const clang::FunctionDecl *FD);
/// pthread_create and the like (Vocabulary.def): the argument that is the
/// thread's start routine, or -1.
int threadStartArgument(const clang::FunctionDecl *FD);
/// A __sync or __atomic builtin (Vocabulary.def) that is a call.
bool isAtomicBuiltin(const clang::FunctionDecl *FD);
/// FD runs code on a stack of its own (makecontext, swapcontext).
bool switchesStacks(const clang::FunctionDecl *FD);

/// The argument CE's result points into, if CE calls a libc function
/// whose result always does (Vocabulary.def: bsearch's array, strchr's
/// string); else null.
const clang::Expr *resultArgument(const clang::CallExpr *CE);

/// FD is one of libc's aligned allocation functions (Vocabulary.def):
/// declared by the system, not defined by the program.
bool isAlignedAllocator(const clang::FunctionDecl *FD);

/// A type with its array layers removed.
struct ArrayShape {
  clang::QualType Element;  ///< canonical element type (T itself if T is
                            ///< not an array)
  uint64_t Count = 1;       ///< product of the constant dimensions
  std::string Dims;         ///< "[2][3]" for constant arrays
  bool Variable = false;    ///< some dimension is not a constant
  bool Array = false;       ///< T was an array at all
};
/// Strip every array layer of T (constant, incomplete or variable).
ArrayShape stripArrays(clang::QualType T);
/// T, through arrays, is a struct, union or enum with neither a tag nor a
/// typedef name: C code cannot spell it.
bool isUnnamedTag(clang::QualType T);

} // namespace compactptr

#endif
