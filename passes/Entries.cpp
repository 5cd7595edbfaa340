//===- Entries.cpp - functions that code outside rewritten code may call --===//
//
// In:  switchable mode, a function the analysis found touching compact
//      objects (FC_Touches) that code outside may call (Walker.cpp, before
//      the function's form is written).
// Out: at the start of the body of every entry function -- one that code
//      outside rewritten code may call (external linkage, its address
//      taken, a constructor or destructor) and that touches compact
//      objects -- a test of cp__inside; from outside, the function comes
//      inside, calls itself, and goes back out (markEntry).
// Why: a thread outside rewritten code (cp__inside 0) counts as stopped
//      for the switch: a worker of a thread pool built in a file without
//      compact types, waiting for its next task; the main thread blocked
//      in that pool's pool_wait_idle(), called out of rewritten code with
//      its roots saved (isCallOut, SafepointCalls.cpp).  When such a
//      thread runs a task of this file, the task's function brings it
//      inside first -- waiting while a switch holds it -- and back out when
//      it returns.  Called from rewritten code, cp__enter is one
//      thread-local load.  Static functions that only this file's
//      functions call directly need nothing: their callers came inside.
// Tests: test/threads/own-file-waits.c, test/switchable/entries.c.
//
//===----------------------------------------------------------------------===//
#include "Engine.h"
#include "clang/AST/Attr.h"
#include "clang/AST/PrettyPrinter.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;

namespace compactptr {

bool isEntry(const Session &S, const FunctionDecl *FD) {
  if (!S.Opts.switchable() || !FD->doesThisDeclarationHaveABody() ||
      isRuntimeFunction(FD))
    return false;
  const FunctionDecl *C = FD->getCanonicalDecl();
  auto It = S.M.Functions.find(C);
  if (It == S.M.Functions.end() || !(It->second & FC_Touches))
    return false;
  return FD->isExternallyVisible() || S.M.AddressTaken.count(C) ||
         FD->hasAttr<ConstructorAttr>() || FD->hasAttr<DestructorAttr>();
}

/// The weak symbol that tells rewritten code of other files that FD, which
/// they may call out of themselves (isCallOut), is an entry of a rewritten
/// file: they call it inside (`&cp__entry_f` is not null once linked),
/// saving the thread's way out and back in and FD's way in from outside
/// (a hot loop of calls to another file's lookup ran 1.44 times the
/// instructions of the build before calls out without it).  Weak: a
/// function of a header, defined in several files, defines it in each.
std::string entryMarker(const FunctionDecl *FD) {
  // Not for a weak definition: another file's strong one (code outside,
  // perhaps) may be the one the linker binds.  Hidden: a function of a
  // shared library may be interposed by the executable's own.
  if (!FD->isExternallyVisible() || FD->hasAttr<WeakAttr>() ||
      FD->hasAttr<WeakRefAttr>())
    return "";
  return " __attribute__((weak, visibility(\"hidden\"))) const char "
         "cp__entry_" +
         FD->getName().str() + " = 1;";
}

/// `RET NAME(T1 p1, ...)`: FD's return and parameter types as C spells
/// them, with FD's parameter names (Named) or none.
static std::string signature(const Session &S, const FunctionDecl *FD,
                             const std::string &Name, bool Named) {
  PrintingPolicy P = S.policy();
  std::string Params;
  for (const ParmVarDecl *Pm : FD->parameters()) {
    std::string One;
    llvm::raw_string_ostream OS(One);
    Pm->getType().print(OS, P, Named ? Pm->getName() : "");
    Params += (Params.empty() ? "" : ", ") + OS.str();
  }
  if (Params.empty())
    Params = "void";
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  FD->getReturnType().print(OS, P, Name + "(" + Params + ")");
  return OS.str();
}

/// The edits that make FD an entry.  From outside, FD calls
/// `f__outside`, which comes inside, calls FD again with the arguments it
/// was given (at its start FD has changed none; through a thunk that
/// cp__outside_run calls) and goes back out: the
/// function itself pays one thread-local compare and a jump that is a
/// tail call.  (A cleanup on every return, or the slow path written out
/// in the body, cost a recursive walk 2.3 and 1.8 times its instructions:
/// clang's tail-recursion elimination stopped, or six callee-saved
/// registers saved where two were.)  A declaration, not a statement: the
/// frames and dispatch that other passes put after it start with
/// declarations too (C89).  A function that cannot call itself so --
/// variadic, K&R-style, with an unnamed parameter or one of variably
/// modified type -- keeps the thread inside until it returns by a cleanup.
void markEntry(Session &S, const FunctionDecl *FD) {
  const auto *CS = cast<CompoundStmt>(FD->getBody());
  auto [FID, LB] = S.SM.getDecomposedLoc(CS->getLBracLoc());
  // A parameter of variably modified type (`int a[n][n]`) names another
  // in its type: f__outside's prototype, without names, cannot spell it.
  bool Named = llvm::all_of(FD->parameters(), [](const ParmVarDecl *P) {
    return P->getIdentifier() != nullptr &&
           !P->getType()->isVariablyModifiedType();
  });
  // A parameter of a type C cannot spell again in another prototype: a
  // va_list (`struct __va_list_tag *` would declare a new struct there),
  // an unnamed struct, a struct first declared in the parameter list.
  std::string Sig = signature(S, FD, "f", false);
  bool Spelled = Sig.find("__va_list_tag") == std::string::npos &&
                 Sig.find("(unnamed") == std::string::npos &&
                 Sig.find("(anonymous") == std::string::npos;
  for (const ParmVarDecl *P : FD->parameters())
    if (const RecordDecl *RD =
            P->getType()->getPointeeOrArrayElementType()->getAsRecordDecl())
      Spelled &= !RD->getDeclContext()->isFunctionOrMethod() &&
                 !isa<FunctionDecl>(RD->getLexicalDeclContext());
  if (FD->isVariadic() || !Named || !FD->hasPrototype() || !Spelled) {
    S.Edits.insert(
        FID, LB + 1,
        " int cp__entered __attribute__((cleanup(cp__exit), unused)) = "
        "cp__enter();");
    S.Edits.insert(FID, S.SM.getFileOffset(CS->getRBracLoc()) + 1,
                   entryMarker(FD));
    return;
  }
  std::string Name = FD->getName().str(), Out = Name + "__outside";
  std::string Args;
  for (const ParmVarDecl *P : FD->parameters())
    Args += (Args.empty() ? "" : ", ") + P->getName().str();
  bool Void = FD->getReturnType()->isVoidType();
  // Declared before FD's first declaration (so that its calls compile),
  // defined right after FD's closing brace, on that line.
  const SourceManager &SM = S.SM;
  unsigned DeclAt = SM.getFileOffset(SM.getExpansionLoc(FD->getBeginLoc()));
  SourceLocation First = SM.getExpansionLoc(FD->getFirstDecl()->getBeginLoc());
  const Decl *At = FD;
  // (Not a declaration in a block: `static` is no storage class there.)
  if (First.isFileID() && SM.getFileID(First) == FID &&
      FD->getFirstDecl()->getLexicalDeclContext()->isFileContext()) {
    DeclAt = SM.getFileOffset(First);
    At = FD->getFirstDecl();
  }
  S.Edits.insert(FID, beforeAttributes(SM, At, FID, DeclAt),
                 "static __attribute__((noinline, cold, unused)) " +
                     signature(S, FD, Out, false) + "; ");
  std::string Jump = Void ? "{ " + Out + "(" + Args + "); return; }"
                          : "return " + Out + "(" + Args + ");";
  S.Edits.insert(
      FID, LB + 1,
      " int cp__entered __attribute__((unused)) = __extension__({ if "
      "(cp__outside()) " +
          Jump + " 0; });");
  // After it: the arguments in a struct, a thunk that calls FD with them,
  // and f__outside, which runs the thunk through cp__outside_run (the
  // runtime comes inside around it).
  PrintingPolicy P = S.policy();
  std::string Tag = "cp__args_" + Name, Thunk = Name + "__thunk";
  std::string Members, Fill, Passed;
  unsigned I = 0;
  for (const ParmVarDecl *Pm : FD->parameters()) {
    std::string M = "a" + std::to_string(I++), One;
    llvm::raw_string_ostream OS(One);
    Pm->getType().getUnqualifiedType().print(OS, P, M);
    Members += OS.str() + "; ";
    Fill += "cp__c." + M + " = " + Pm->getName().str() + "; ";
    Passed += (Passed.empty() ? "" : ", ") + ("cp__c->" + M);
  }
  if (!Void) {
    std::string One;
    llvm::raw_string_ostream OS(One);
    FD->getReturnType().getUnqualifiedType().print(OS, P, "r");
    Members += OS.str() + "; ";
  }
  if (Members.empty())
    Members = "char unused; ";
  std::string Call = "(" + Name + ")(" + Passed + ")";
  unsigned End = SM.getFileOffset(CS->getRBracLoc()) + 1;
  S.Edits.insert(
      FID, End,
      " struct " + Tag + " { " + Members + "}; static void " + Thunk +
          "(void *cp__p) { struct " + Tag + " *cp__c = (struct " + Tag +
          " *)cp__p; " + (Void ? Call : "cp__c->r = " + Call) + "; } static " +
          signature(S, FD, Out, true) + " { struct " + Tag + " cp__c; " + Fill +
          "cp__outside_run(" + Thunk + ", &cp__c);" +
          (Void ? "" : " return cp__c.r;") + " }" + entryMarker(FD));
}

} // namespace compactptr
