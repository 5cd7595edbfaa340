//===- Escapes.cpp - compact pointers kept where the switch cannot see ----===//
//
// In:  expressions of function bodies, from Safety.cpp's walk.
// Out: warnings (hazards, not refusals).  The switch moves every object
//      and translates every root; a pointer into the compact heap kept
//      anywhere else dangles after it.  These checks warn where the
//      plugin sees such a pointer made: a compact pointer kept as `void *`
//      (void-escape; also returned by a thread start routine, which
//      pthread_join hands over) and a `void *` from an unknown call turned into a
//      compact pointer (foreign-object: an object that is not in the
//      arena at all).  Addresses inside compact objects are Interior.cpp's.
//      A layout's size kept past the moment it is taken (layout-stored)
//      is stale after the switch the same way.
// Tests: test/diagnostics/foreign-object.c, test/diagnostics/libc-callbacks.c,
//      test/diagnostics/thread-return-value.c,
//      test/diagnostics/layout-stored.c.
//
//===----------------------------------------------------------------------===//
#include "Engine.h"
#include "Printer.h"
#include "Vocabulary.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

namespace compactptr {

/// E (an lvalue of a type that is not compact) lies inside a heap object
/// of compact type: `p->value`, `p->pos.x`, `p->vals[i]`.
bool insideCompactObject(const Model &M, const Expr *E) {
  for (;;) {
    E = E->IgnoreParens();
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
      const Expr *B = AS->getBase()->IgnoreParenImpCasts();
      if (!B->getType()->isArrayType())
        return false;
      E = B;
      continue;
    }
    const auto *ME = dyn_cast<MemberExpr>(E);
    if (!ME || !isa<FieldDecl>(ME->getMemberDecl()))
      return false;
    if (ME->isArrow())
      return M.pointeeOf(ME->getBase()->getType()) != nullptr;
    if (isCompactLocated(M, ME->getBase()))
      return true;
    E = ME->getBase();
  }
}

/// FD links to the runtime's Label (compactptr.h redeclares pthread_join
/// with the assembler name of cp_thread_join, unless
/// COMPACTPTR_NO_THREAD_HOOK).
static bool linksTo(const FunctionDecl *FD, StringRef Label) {
  return FD && llvm::any_of(FD->redecls(), [&](const FunctionDecl *R) {
           const auto *A = R->getAttr<AsmLabelAttr>();
           return A && A->getLabel() == Label;
         });
}

/// Fn is the runtime's Label in this TU: the runtime keeps what a thread
/// hands libc through it (a result until pthread_join, a key's value until
/// the thread ends) as a root, and gives back the translated copy.
static bool runtimeKeeps(Session &S, StringRef Fn, StringRef Label) {
  for (const NamedDecl *D :
       S.Ctx.getTranslationUnitDecl()->lookup(&S.Ctx.Idents.get(Fn)))
    if (linksTo(dyn_cast<FunctionDecl>(D), Label))
      return true;
  return false;
}
static bool runtimeKeepsResults(Session &S) {
  return runtimeKeeps(S, "pthread_join", "cp_thread_join");
}

/// The function A names: `f` or `&f` (through parentheses and casts).
static const FunctionDecl *namedFunction(const Expr *A) {
  A = A->IgnoreParenCasts();
  if (const auto *UO = dyn_cast<UnaryOperator>(A); UO && UO->getOpcode() == UO_AddrOf)
    A = UO->getSubExpr()->IgnoreParens();
  const auto *DR = dyn_cast<DeclRefExpr>(A);
  return DR ? dyn_cast<FunctionDecl>(DR->getDecl()) : nullptr;
}

/// FD is a thread's start routine: named as one in a call of this TU
/// (pthread_create's third argument).
static bool startsThread(Session &S, const FunctionDecl *FD) {
  if (!S.ThreadStarts) {
    struct Finder : RecursiveASTVisitor<Finder> {
      std::set<const FunctionDecl *> Found;
      bool VisitCallExpr(CallExpr *CE) {
        const FunctionDecl *Callee = CE->getDirectCallee();
        int Fn = Callee ? threadStartArgument(Callee) : -1;
        if (Fn < 0 || (unsigned)Fn >= CE->getNumArgs())
          return true;
        add(CE->getArg(Fn));
        return true;
      }
      // `f`, `&f`, or either of `c ? f : g`.
      void add(const Expr *A) {
        if (const auto *CO =
                dyn_cast<ConditionalOperator>(A->IgnoreParenCasts())) {
          add(CO->getTrueExpr());
          add(CO->getFalseExpr());
          return;
        }
        if (const FunctionDecl *F = namedFunction(A))
          Found.insert(F->getCanonicalDecl());
      }
    } F;
    F.TraverseDecl(S.Ctx.getTranslationUnitDecl());
    S.ThreadStarts = std::move(F.Found);
  }
  return FD && S.ThreadStarts->count(FD->getCanonicalDecl());
}

/// FD may be a thread's start routine in code this TU cannot see: of type
/// `void *(void *)`, and its address is an argument of a call to a
/// function without a body here (`fj_fork(sort_task, half)`, a pool's
/// submit, GLib's g_thread_new; or a list walker's accessor,
/// `walk_chain(top, next_of, ...)`, which the plugin cannot tell from
/// those).  The first function it is handed to (null for a call through
/// a pointer), or std::nullopt where FD is not handed so.
static std::optional<const FunctionDecl *>
mayStartThread(Session &S, const FunctionDecl *FD) {
  if (!S.MaybeThreadStarts) {
    struct Finder : RecursiveASTVisitor<Finder> {
      ASTContext &Ctx;
      std::map<const FunctionDecl *, const FunctionDecl *> Found;
      explicit Finder(ASTContext &Ctx) : Ctx(Ctx) {}
      bool VisitCallExpr(CallExpr *CE) {
        const FunctionDecl *Callee = CE->getDirectCallee();
        if (Callee && (Callee->hasBody() || threadStartArgument(Callee) >= 0))
          return true;
        for (const Expr *A : CE->arguments()) {
          const FunctionDecl *F = namedFunction(A);
          const auto *FT =
              F ? F->getType()->getAs<FunctionProtoType>() : nullptr;
          if (FT && FT->getNumParams() == 1 &&
              Ctx.hasSameType(FT->getReturnType(), Ctx.VoidPtrTy) &&
              Ctx.hasSameType(FT->getParamType(0), Ctx.VoidPtrTy))
            Found.emplace(F->getCanonicalDecl(), Callee);
        }
        return true;
      }
    } F(S.Ctx);
    F.TraverseDecl(S.Ctx.getTranslationUnitDecl());
    S.MaybeThreadStarts = std::move(F.Found);
  }
  auto It = FD ? S.MaybeThreadStarts->find(FD->getCanonicalDecl())
               : S.MaybeThreadStarts->end();
  if (It == S.MaybeThreadStarts->end())
    return std::nullopt;
  return It->second;
}

/// The function whose return statement returns E (through parentheses and
/// conversions), or null.
static const FunctionDecl *returnedFrom(ASTContext &Ctx, const Expr *E) {
  DynTypedNodeList Ps = Ctx.getParents(*E);
  if (Ps.empty() || !Ps[0].get<ReturnStmt>())
    return nullptr;
  for (Ps = Ctx.getParents(*Ps[0].get<ReturnStmt>()); !Ps.empty();
       Ps = Ctx.getParents(Ps[0]))
    if (const auto *FD = Ps[0].get<FunctionDecl>())
      return FD;
  return nullptr;
}

/// The argument a `__sync` builtin stores (`__sync_lock_test_and_set(&g,
/// p)`: p; a compare-and-swap's new value), or -1: the address it works
/// on is not kept (`__sync_fetch_and_add((int *)o, 1)`).
static int storedBuiltinArgument(const FunctionDecl *FD) {
  if (!FD || !FD->getIdentifier())
    return -1;
  StringRef N = FD->getName();
  if (N.starts_with("__sync_lock_test_and_set"))
    return 1;
  if (N.starts_with("__sync_val_compare_and_swap") ||
      N.starts_with("__sync_bool_compare_and_swap"))
    return 2;
  return -1;
}

/// The parent of a use of a value (Use, a parameter's reference) past the
/// conversions Through accepts; Use becomes the outermost of them.  The
/// result is the first parent that is no such conversion (a cast Through
/// rejects included), or null at the top of an expression.
static const Expr *
pastConversions(ASTContext &Ctx, const Expr *&Use,
                llvm::function_ref<bool(const CastExpr *)> Through) {
  const Expr *P = parentSkippingParens(Ctx, Use, &Use);
  while (const auto *C = dyn_cast_or_null<CastExpr>(P)) {
    if (!Through(C))
      return C;
    P = parentSkippingParens(Ctx, Use = C, &Use);
  }
  return P;
}

/// The functions of this file a call hands to function-pointer
/// parameters of its callee (`walk(l, find_cb, &f)`: `visit_fn f` is
/// find_cb), so that a call through such a parameter (`f(l, ctx)`) is
/// judged by what that function does with its argument.
using Callbacks = llvm::DenseMap<const ParmVarDecl *, const FunctionDecl *>;

/// Parameter I of FD (a definition) may be kept past the call.  Only uses
/// known to keep nothing count as such, through parentheses and pointer
/// conversions: reading through it (`->`, `*`, `[]`), comparing it, the
/// initializer of a local compact pointer (a root of FD's own), and a
/// call of libc that keeps nothing (`strcmp(a, b)`).  Anything else -- a
/// store, `&p`, a return, an atomic builtin, another function of the
/// program, `?:`, a comma, an initializer list -- may keep it.  A
/// comparator that only reads (`const struct sym *x = a; return x->id -
/// ...`) keeps nothing.  A call through a function-pointer parameter that
/// Bound names is judged by the function it names.
static bool mayBeKept(Session &S, const FunctionDecl *FD, const VarDecl *V,
                      unsigned Depth, const Callbacks *Bound = nullptr);

/// Parameter I of FD may be kept past the call Site (null: any call).
static bool paramMayBeKept(Session &S, const FunctionDecl *FD, unsigned I,
                           const CallExpr *Site = nullptr) {
  if (I >= FD->getNumParams())
    return true; // variadic: va_arg may take it anywhere
  Callbacks Bound;
  for (unsigned J = 0; Site && J < Site->getNumArgs() && J < FD->getNumParams();
       ++J) {
    const auto *DR =
        dyn_cast<DeclRefExpr>(Site->getArg(J)->IgnoreParenImpCasts());
    const auto *G = DR ? dyn_cast<FunctionDecl>(DR->getDecl()) : nullptr;
    const FunctionDecl *Def = G ? G->getDefinition() : nullptr;
    if (Def && Def->hasBody() && !S.isIgnoredLoc(Def->getLocation()))
      Bound[FD->getParamDecl(J)] = Def;
  }
  return mayBeKept(S, FD, FD->getParamDecl(I), 0, &Bound);
}

/// The function of this file a call through a function-pointer parameter
/// reaches at the call being judged (`f(l, ctx)`, `(*f)(l, ctx)`), or null.
static const FunctionDecl *boundCallee(const CallExpr *CE,
                                       const Callbacks *Bound) {
  if (!Bound)
    return nullptr;
  const Expr *C = CE->getCallee()->IgnoreParenImpCasts();
  if (const auto *UO = dyn_cast<UnaryOperator>(C);
      UO && UO->getOpcode() == UO_Deref)
    C = UO->getSubExpr()->IgnoreParenImpCasts();
  const auto *DR = dyn_cast<DeclRefExpr>(C);
  const auto *PV = DR ? dyn_cast<ParmVarDecl>(DR->getDecl()) : nullptr;
  return PV ? Bound->lookup(PV) : nullptr;
}

/// A local copy of V of a plain pointer type (`void *d = data;`, `d =
/// data;`): a root of its own while FD holds it (Interior.cpp), kept only
/// where it is kept.  (A compact pointer local is a root of its type.)
static const VarDecl *localCopy(Session &S, const Expr *Use, const Expr *P) {
  ASTContext &Ctx = S.Ctx;
  const VarDecl *To = nullptr;
  if (!P) {
    for (const DynTypedNode &N : Ctx.getParents(*Use))
      To = N.get<VarDecl>();
  } else if (const auto *BO = dyn_cast<BinaryOperator>(P);
             BO && BO->getOpcode() == BO_Assign &&
             BO->getRHS()->IgnoreParenImpCasts() ==
                 Use->IgnoreParenImpCasts()) {
    To = localVariable(BO->getLHS());
  }
  // (One a macro declares, or a `register` one, is no root: Interior.cpp.)
  return To && To->hasLocalStorage() && !To->isStaticLocal() &&
                 To->getLocation().isFileID() &&
                 To->getStorageClass() != SC_Register &&
                 To->getType()->isPointerType() && !S.M.pointeeOf(To->getType())
             ? To
             : nullptr;
}

static bool mayBeKept(Session &S, const FunctionDecl *FD, const VarDecl *V,
                      unsigned Depth, const Callbacks *Bound) {
  ASTContext &Ctx = S.Ctx;
  return anyReferenceTo(
      FD->getBody(), V, [&](const DeclRefExpr *DR) {
        const Expr *Use = DR;
        const Expr *P = pastConversions(Ctx, Use, [](const CastExpr *C) {
          return C->getCastKind() == CK_LValueToRValue ||
                 C->getCastKind() == CK_NoOp || C->getType()->isPointerType();
        });
        // `if (p)` reads it; `(uintptr_t)p` makes a number of it, which
        // is the integer-cast warning's (paramMadeInteger), not a root.
        if (const auto *C = dyn_cast_or_null<CastExpr>(P))
          return C->getCastKind() != CK_PointerToBoolean &&
                 C->getCastKind() != CK_PointerToIntegral;
        if (const VarDecl *To = localCopy(S, Use, P);
            To && To != V && Depth < 3)
          return mayBeKept(S, FD, To, Depth + 1, Bound);
        if (!P) {
          for (const DynTypedNode &N : Ctx.getParents(*Use))
            if (const auto *VD = N.get<VarDecl>())
              return !(VD->hasLocalStorage() && !VD->isStaticLocal() &&
                       S.M.pointeeOf(VD->getType()));
          return true;
        }
        if (const auto *ME = dyn_cast<MemberExpr>(P))
          return ME->getBase()->IgnoreParens() != Use->IgnoreParens();
        if (const auto *UO = dyn_cast<UnaryOperator>(P))
          return UO->getOpcode() != UO_Deref && UO->getOpcode() != UO_LNot;
        if (const auto *AS = dyn_cast<ArraySubscriptExpr>(P))
          return AS->getBase()->IgnoreParens() != Use->IgnoreParens();
        if (const auto *BO = dyn_cast<BinaryOperator>(P)) {
          // Assigned (a copy's `q = p`): its old value is not kept.
          if (BO->getOpcode() == BO_Assign &&
              BO->getLHS()->IgnoreParens() == DR)
            return false;
          // Stored into an untyped field of a compact object (a generic
          // list's `l->data = data`): the switch moves it there.
          if (BO->getOpcode() == BO_Assign &&
              BO->getRHS()->IgnoreParenImpCasts() ==
                  Use->IgnoreParenImpCasts() &&
              inAddressField(S.M, BO->getLHS()))
            return false;
          return !BO->isComparisonOp() && !BO->isLogicalOp();
        }
        if (const auto *CE = dyn_cast<CallExpr>(P)) {
          const FunctionDecl *Callee = CE->getDirectCallee();
          if (CE->getCallee()->IgnoreParenImpCasts() == Use)
            return true;
          // Through a function-pointer parameter the call being judged
          // hands a function of this file: that function's use decides.
          if (const FunctionDecl *G =
                  !Callee ? boundCallee(CE, Bound) : nullptr) {
            unsigned Arg = argumentIndex(CE, Use);
            return G->isVariadic() || Arg >= G->getNumParams() || Depth >= 3 ||
                   mayBeKept(S, G, G->getParamDecl(Arg), Depth + 1);
          }
          if (!Callee)
            return true;
          bool Library =
              Callee->getBuiltinID() ||
              llvm::any_of(Callee->redecls(), [&](const FunctionDecl *R) {
                return S.SM.isInSystemHeader(
                    S.SM.getExpansionLoc(R->getLocation()));
              });
          int Kept = keptArgument(Callee);
          if (Kept < 0)
            Kept = storedBuiltinArgument(Callee);
          // A function of this file: kept where its parameter is (a tree's
          // add that hands the value to the constructor storing it in an
          // untyped field of a compact node), three calls deep.  Held
          // there across a safepoint, the parameter is a root
          // (Interior.cpp).
          const FunctionDecl *Def = Callee->getDefinition();
          unsigned Arg = argumentIndex(CE, Use);
          // Handed to itself (a tree's recursive insert): its other uses
          // say.
          if (Def == FD && Arg < FD->getNumParams() &&
              FD->getParamDecl(Arg) == V)
            return false;
          if (!Library && Def && Def->hasBody() && Depth < 3 &&
              Arg < Def->getNumParams() && !Def->isVariadic())
            return mayBeKept(S, Def, Def->getParamDecl(Arg), Depth + 1);
          return !Library || (Kept >= 0 && Arg == (unsigned)Kept);
        }
        return true;
      });
}

/// FD makes its parameter P an integer (a set's hash of the address,
/// `(uintptr_t)p >> 3`), itself or through functions of the file it hands
/// P to, three calls deep.
static bool paramMadeInteger(Session &S, const FunctionDecl *FD,
                             const VarDecl *P, unsigned Depth) {
  return anyReferenceTo(FD->getBody(), P, [&](const DeclRefExpr *DR) {
    const Expr *Cur = DR;
    const Expr *Up = parentSkippingParens(S.Ctx, DR, &Cur);
    while (const auto *C = dyn_cast_or_null<CastExpr>(Up)) {
      if (C->getCastKind() == CK_PointerToIntegral)
        return true;
      Up = parentSkippingParens(S.Ctx, C, &Cur);
    }
    // Through a local copy (`const void *q = p;`).
    if (const VarDecl *To = localCopy(S, Cur, Up); To && To != P && Depth < 3)
      return paramMadeInteger(S, FD, To, Depth + 1);
    const auto *CE = dyn_cast_or_null<CallExpr>(Up);
    const FunctionDecl *G = CE ? CE->getDirectCallee() : nullptr;
    G = G ? G->getDefinition() : nullptr;
    if (!G || !G->hasBody() || Depth >= 3 || G->isVariadic())
      return false;
    unsigned I = argumentIndex(CE, Cur);
    return I < G->getNumParams() && !(G == FD && G->getParamDecl(I) == P) &&
           paramMadeInteger(S, G, G->getParamDecl(I), Depth + 1);
  });
}

/// Where a compact pointer that code keeps as `void *` is kept for the
/// switch to see it: a field or root array of its type, or an untyped
/// field of a compact struct (CP_FIELD_ADDRESS), as a thread pool's task
/// struct is once declared CP_COMPACT.
static const char *const KeepAdvice =
    "keep it in a field or a root array of its own type, or in a 'void *' "
    "field of a CP_COMPACT struct, which the switch moves (declare the "
    "struct that keeps it, a pool's task, CP_COMPACT)";

/// Parameter I of FD (a definition) is kept past the call for certain:
/// stored into memory that is not a local of FD (`seen[i] = p`, `ctx->data
/// = p`, a static), handed to a libc function that keeps it (tsearch's
/// key), or passed to a function of this file that keeps it so, a few
/// calls deep.  What an explicit cast to `void *` does not excuse.
static bool paramStored(Session &S, const FunctionDecl *FD, unsigned I,
                        unsigned Depth) {
  if (I >= FD->getNumParams() || !FD->hasBody())
    return false;
  ASTContext &Ctx = S.Ctx;
  return anyReferenceTo(
      FD->getBody(), FD->getParamDecl(I), [&](const DeclRefExpr *DR) {
        const Expr *Use = DR;
        const Expr *P = pastConversions(Ctx, Use, [](const CastExpr *C) {
          return C->getCastKind() == CK_LValueToRValue ||
                 C->getCastKind() == CK_NoOp || C->getCastKind() == CK_BitCast;
        });
        if (isa_and_nonnull<CastExpr>(P))
          return false;
        if (!P) { // an initializer: of a static or global
          for (const DynTypedNode &N : Ctx.getParents(*Use))
            if (const auto *VD = N.get<VarDecl>())
              return !VD->hasLocalStorage();
          return false;
        }
        if (const auto *BO = dyn_cast<BinaryOperator>(P)) {
          if (BO->getOpcode() != BO_Assign ||
              BO->getRHS()->IgnoreParens() != Use->IgnoreParens())
            return false;
          // Into FD's own locals (a struct of context, a work stack) it
          // lives no longer than the call; into an untyped field of a
          // compact object, the switch moves it.
          return !localStorage(BO->getLHS()) &&
                 !inAddressField(S.M, BO->getLHS());
        }
        if (const auto *CE = dyn_cast<CallExpr>(P)) {
          const FunctionDecl *Callee = CE->getDirectCallee();
          if (!Callee || CE->getCallee()->IgnoreParenImpCasts() == Use)
            return false;
          unsigned At = argumentIndex(CE, Use);
          int Kept = keptArgument(Callee);
          if (Kept < 0)
            Kept = storedBuiltinArgument(Callee);
          if (Kept >= 0)
            return At == (unsigned)Kept;
          const FunctionDecl *Def = Callee->getDefinition();
          return Def && Def != FD && Depth > 0 &&
                 paramStored(S, Def, At, Depth - 1);
        }
        return false;
      });
}

/// The variable whose bytes E hands over and hold a compact pointer (`&p`,
/// an array of compact pointers `ptrs` or its address, `&m` of a struct
/// that holds one), through casts; null if E is anything else.
static const VarDecl *pointerVariable(const Model &M, const Expr *E) {
  E = E->IgnoreParenCasts();
  bool Address = false;
  if (const auto *UO = dyn_cast<UnaryOperator>(E);
      UO && UO->getOpcode() == UO_AddrOf) {
    E = UO->getSubExpr()->IgnoreParens();
    Address = true;
  }
  const auto *DR = dyn_cast<DeclRefExpr>(E);
  const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
  // Without `&`, only an array hands over its own bytes (a pointer hands
  // over what it points to).
  if (!VD || (!Address && !VD->getType()->isArrayType()))
    return nullptr;
  ArrayShape A = stripArrays(VD->getType());
  return !A.Variable && (M.pointeeOf(A.Element) || M.elementOf(A.Element))
             ? VD
             : nullptr;
}

/// A byte copy (memcpy's kind) whose destination is a local of the
/// function making it: a temporary (a swap's buffer) that lives no longer
/// than the call.
static bool copiesIntoLocal(const CallExpr *CE) {
  const FunctionDecl *F = CE->getDirectCallee();
  if (!F || byteCopyFunction(F, nullptr).empty() || CE->getNumArgs() < 2)
    return false;
  const Expr *D =
      CE->getArg(bytesOutArgument(F) == 0 ? 1 : 0)->IgnoreParenCasts();
  if (const auto *UO = dyn_cast<UnaryOperator>(D);
      UO && UO->getOpcode() == UO_AddrOf)
    D = UO->getSubExpr();
  return localStorage(D) != nullptr;
}

/// Parameter I of FD (a definition) reaches, through casts, the argument
/// of a libc function that copies its bytes out (memcpy's source, write's
/// buffer), or of a function of this file that does, a few calls deep; the
/// library function's name, or "".
static std::string paramBytesOut(Session &S, const FunctionDecl *FD, unsigned I,
                                 unsigned Depth) {
  if (I >= FD->getNumParams() || !FD->hasBody())
    return "";
  std::string Found;
  anyReferenceTo(
      FD->getBody(), FD->getParamDecl(I), [&](const DeclRefExpr *DR) {
        const Expr *Use = DR;
        const Expr *P =
            pastConversions(S.Ctx, Use, [](const CastExpr *) { return true; });
        const auto *CE = dyn_cast_or_null<CallExpr>(P);
        const FunctionDecl *Callee = CE ? CE->getDirectCallee() : nullptr;
        if (!Callee || CE->getCallee()->IgnoreParenImpCasts() == Use)
          return false;
        unsigned At = argumentIndex(CE, Use);
        int Out = bytesOutArgument(Callee);
        if (Out >= 0) {
          if (At != (unsigned)Out || copiesIntoLocal(CE))
            return false;
          Found = Callee->getName().str();
          return true;
        }
        const FunctionDecl *Def = Callee->getDefinition();
        if (!Def || Def == FD || Depth == 0)
          return false;
        Found = paramBytesOut(S, Def, At, Depth - 1);
        return !Found.empty();
      });
  return Found;
}

/// The void-escape message: a compact pointer to T, Where it is kept, and
/// Advice.  A struct that is compact only because it holds a compact
/// pointer surprises a reader who never annotated it: it says why it is
/// one.
static std::string keptNoRoot(const CompactType *T, const std::string &Where,
                              const std::string &Advice) {
  std::string Why = T->Annotated ? ""
                                 : " (compact by inference: it holds a "
                                   "pointer to a compact type)";
  return "a compact pointer to " + quoted(T->WideSpelling) + Why + " " + Where +
         "; kept there, it is no root, and after the switch it points into "
         "the released arena (" +
         Advice + ")";
}

/// The compact type a `void *` local of Body is ever set from (`void *key
/// = (void *)n;`, `key = n;`), or null.
static CompactType *compactSetInto(Session &S, const Stmt *Body,
                                   const VarDecl *V) {
  auto from = [&](const Expr *E) {
    return E ? S.M.pointeeOf(E->IgnoreParenCasts()->getType()) : nullptr;
  };
  if (CompactType *T = from(V->getInit()))
    return T;
  CompactType *Found = nullptr;
  anyReferenceTo(Body, V, [&](const DeclRefExpr *DR) {
    for (const DynTypedNode &N : S.Ctx.getParents(*DR))
      if (const auto *B = N.get<BinaryOperator>();
          B && B->getOpcode() == BO_Assign && B->getLHS()->IgnoreParens() == DR)
        Found = from(B->getRHS());
    return Found != nullptr;
  });
  return Found;
}

/// Switchable: a `void *` local set from a compact pointer, handed to a
/// function of this file that stores its argument, or to libc that keeps
/// it (`void *key = (void *)n; remember(key);`): the same hazard as
/// handing over the compact pointer itself (an identity set of `void *`
/// gave wrong answers after the switch, unwarned).
void checkVoidLocalEscape(Session &S, const CallExpr *CE,
                          const FunctionDecl *Caller) {
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!S.Opts.switchable() || !FD || !Caller || !Caller->hasBody())
    return;
  const FunctionDecl *Def = FD->getDefinition();
  int Kept = keptArgument(FD);
  for (unsigned I = 0; I < CE->getNumArgs(); ++I) {
    const auto *DR = dyn_cast<DeclRefExpr>(CE->getArg(I)->IgnoreParenCasts());
    const auto *V = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
    if (!V || !V->hasLocalStorage() || isa<ParmVarDecl>(V) ||
        !V->getType()->isVoidPointerType())
      continue;
    bool Keeps = (Kept >= 0 && (unsigned)Kept == I) ||
                 (Def && Def->hasBody() && paramStored(S, Def, I, 3));
    if (!Keeps)
      continue;
    CompactType *T = compactSetInto(S, Caller->getBody(), V);
    if (!T)
      continue;
    S.report(Diag::VoidEscape, CE->getArg(I)->getExprLoc(),
             keptNoRoot(T,
                        "held in the 'void *' local " + quoted(V->getName()) +
                            " is passed to " + quoted(FD->getName()) +
                            ", which keeps it",
                        KeepAdvice),
             {tokRange(CE->getArg(I)->getSourceRange())});
  }
}

/// Switchable: the bytes of a compact pointer variable copied where the
/// switch does not see them -- into a byte buffer (`memcpy(buf, &p, sizeof
/// p)`, also through a function of this file: a FIFO of elements of any
/// size), to a file, pipe or socket (`write(fd, &p, sizeof p)`) -- or read
/// into one from there (`read(fd, &m, sizeof m)`): such a copy is no root,
/// and one made before the switch points into the released arena after it
/// (a byte FIFO of task pointers stopped the program with exit 70, with no
/// warning).  A copy between two compact pointer variables is fine.
void checkPointerBytes(Session &S, const CallExpr *CE) {
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!S.Opts.switchable() || !FD)
    return;
  // The bytes of a heap object of compact type copied into memory of
  // another type (`memcpy(buf, r, sizeof *r + r->len)`, `fwrite(r, ...)`):
  // they are its layout of the moment, and copied back after the switch
  // they are read in the other one (a saved record restored: SIGSEGV).
  auto objectBytesOut = [&](const CallExpr *C, unsigned Dest) {
    int Out = bytesOutArgument(FD);
    const Expr *Src = C->getArg(Out)->IgnoreParenCasts();
    CompactType *T = S.M.pointeeOf(Src->getType());
    bool ToFile = byteCopyFunction(FD, nullptr).empty();
    if (!T || (!ToFile && Dest < C->getNumArgs() &&
               S.M.recordOf(C->getArg(Dest)
                                ->IgnoreParenCasts()
                                ->getType()
                                ->getPointeeType()) == T))
      return;
    S.report(Diag::VoidEscape, Src->getExprLoc(),
             "the bytes of a " + quoted(T->WideSpelling) + " object are " +
                 (ToFile ? "written by " + quoted(FD->getName()) +
                               " to a file, pipe or socket"
                         : "copied by " + quoted(FD->getName()) +
                               " into memory of another type") +
                 ": they are its compact layout, handles and all, and read "
                 "back after the switch they would be taken for the wide "
                 "one (copy it into a " +
                 quoted(T->WideSpelling) + " object, or field by field)",
             {tokRange(Src->getSourceRange())});
  };
  auto report = [&](const Expr *A, const VarDecl *V, const std::string &What) {
    bool Ptr = S.M.pointeeOf(stripArrays(V->getType()).Element) != nullptr;
    S.report(Diag::VoidEscape, A->getExprLoc(),
             "the bytes of " + std::string(Ptr ? "compact pointer " : "") +
                 quoted(V->getName()) +
                 (Ptr ? "" : ", which holds a compact pointer,") + " " + What +
                 "; such a copy is no root, and one made before the switch "
                 "points into the released arena after it (keep compact "
                 "pointers in variables, fields or root arrays of their own "
                 "type, or hand over an index)",
             {tokRange(A->getSourceRange())});
  };
  if (int In = bytesInArgument(FD);
      In >= 0 && (unsigned)In < CE->getNumArgs()) {
    if (const VarDecl *V = pointerVariable(S.M, CE->getArg(In)))
      report(CE->getArg(In), V,
             "are read by " + quoted(FD->getName()) +
                 " from a file, pipe or socket");
    return;
  }
  if (int Out = bytesOutArgument(FD); Out >= 0) {
    if ((unsigned)Out >= CE->getNumArgs())
      return;
    const VarDecl *V = pointerVariable(S.M, CE->getArg(Out));
    // memcpy(&q, &p, sizeof p), into a root array or an array of compact
    // pointers: into memory typed as compact pointers, which the switch
    // sees.
    unsigned Dest = Out == 0 ? 1 : 0;
    auto typedDest = [&]() {
      if (!byteCopyFunction(FD, nullptr).size() || Dest >= CE->getNumArgs())
        return false;
      QualType T = CE->getArg(Dest)->IgnoreParenCasts()->getType();
      if (T->isArrayType())
        T = S.Ctx.getArrayDecayedType(T);
      return T->isPointerType() &&
             S.M.pointeeOf(stripArrays(T->getPointeeType()).Element);
    };
    if (!V && !typedDest() && !copiesIntoLocal(CE))
      objectBytesOut(CE, Dest);
    if (!V || typedDest() || copiesIntoLocal(CE))
      return;
    bool ToFile = !byteCopyFunction(FD, nullptr).size() &&
                  FD->getName() != "mempcpy" &&
                  FD->getName() != "__builtin_mempcpy";
    report(CE->getArg(Out), V,
           ToFile ? "are written by " + quoted(FD->getName()) +
                        " to a file, pipe or socket"
                  : "are copied by " + quoted(FD->getName()) +
                        " into memory the switch does not see");
    return;
  }
  const FunctionDecl *Def = FD->getDefinition();
  if (!Def || !Def->hasBody() || S.SM.isInSystemHeader(Def->getLocation()))
    return;
  for (unsigned I = 0; I < CE->getNumArgs(); ++I)
    if (const VarDecl *V = pointerVariable(S.M, CE->getArg(I)))
      if (std::string Lib = paramBytesOut(S, Def, I, 3); !Lib.empty())
        report(CE->getArg(I), V,
               "are handed to " + quoted(FD->getName()) +
                   ", which copies "
                   "them out with " +
                   quoted(Lib));
}

/// The `__cancel_arg` of a glibc pthread_cleanup_push that E initializes,
/// when a nested one hides it (so it is no root: FrameSlots.cpp), or null.
static const VarDecl *hiddenCleanupArg(ASTContext &Ctx, const Expr *E) {
  for (const DynTypedNode &N : Ctx.getParents(*E))
    if (const auto *VD = N.get<VarDecl>();
        VD && isCleanupArgument(VD) && cleanupArgHidden(Ctx, VD))
      return VD;
  return nullptr;
}

/// The call of a libc function that keeps its struct argument (hsearch's
/// ENTRY) whose argument is the value E, through parentheses and implicit
/// conversions; null where E is no such argument, or the action is FIND.
/// E's parent through parentheses and implicit conversions (null at a
/// statement or declaration); At, the outermost of them.
static const Expr *useOf(Session &S, const Expr *E, const Expr *&At) {
  At = E;
  const Expr *P = parentSkippingParens(S.Ctx, E, &At);
  while (isa_and_nonnull<ImplicitCastExpr>(P))
    P = parentSkippingParens(S.Ctx, At = P, &At);
  return P;
}

static const CallExpr *keepingCall(Session &S, const Expr *E) {
  const Expr *At;
  const Expr *P = useOf(S, E, At);
  // Or its address (`epoll_ctl(ep, op, fd, &ev)`: the kernel keeps a copy
  // of the struct it points to).
  if (const auto *UO = dyn_cast_or_null<UnaryOperator>(P);
      UO && UO->getOpcode() == UO_AddrOf) {
    E = UO;
    P = useOf(S, E, At);
  }
  const auto *CE = dyn_cast_or_null<CallExpr>(P);
  const FunctionDecl *FD = CE ? CE->getDirectCallee() : nullptr;
  int K = keptArgument(FD);
  // (An array decays on its way in: `epoll_ctl(ep, op, fd, evs)`.)
  if (K < 0 || (unsigned)K >= CE->getNumArgs() ||
      CE->getArg(K)->IgnoreParenImpCasts() != E->IgnoreParenImpCasts())
    return nullptr;
  // hsearch(e, FIND) looks the key up and keeps nothing; nor does
  // epoll_ctl(ep, EPOLL_CTL_DEL, fd, &ev).
  if (FD->getName().starts_with("hsearch") && CE->getNumArgs() > 1)
    if (auto A = CE->getArg(1)->getIntegerConstantExpr(S.Ctx); A && *A == 0)
      return nullptr;
  if (FD->getName() == "epoll_ctl" && CE->getNumArgs() > 1)
    if (auto A = CE->getArg(1)->getIntegerConstantExpr(S.Ctx); A && *A == 2)
      return nullptr; // EPOLL_CTL_DEL
  return CE;
}

static const CallExpr *keptLocal(Session &S, const VarDecl *V, unsigned Depth);
static const CallExpr *keptValue(Session &S, const Expr *E,
                                 const FunctionDecl *FD, unsigned Depth);

/// A call of FD, a function of the file, whose result (a struct built
/// from its parameters: `make_entry(name, p)`) reaches a keeping call:
/// directly, or through a local of the caller.
static const CallExpr *keptResult(Session &S, const FunctionDecl *FD,
                                  unsigned Depth) {
  struct Calls : RecursiveASTVisitor<Calls> {
    Session &S;
    const FunctionDecl *FD, *In = nullptr;
    unsigned Depth;
    const CallExpr *Found = nullptr;
    Calls(Session &S, const FunctionDecl *FD, unsigned Depth)
        : S(S), FD(FD), Depth(Depth) {}
    bool TraverseFunctionDecl(FunctionDecl *D) {
      const FunctionDecl *Outer = In;
      In = D;
      bool Go = RecursiveASTVisitor::TraverseFunctionDecl(D);
      In = Outer;
      return Go;
    }
    bool VisitCallExpr(CallExpr *CE) {
      const FunctionDecl *G = CE->getDirectCallee();
      if (G && G->getCanonicalDecl() == FD->getCanonicalDecl())
        Found = keptValue(S, CE, In, Depth + 1);
      return !Found;
    }
  } C(S, FD, Depth);
  C.TraverseDecl(S.Ctx.getTranslationUnitDecl());
  return C.Found;
}

/// The keeping call that a local pointer holding the address Addr (`struct
/// epoll_event *evp = &ev;`, or assigned it) is handed to, or null.
static const CallExpr *keptThroughPointer(Session &S, const UnaryOperator *Addr,
                                          const FunctionDecl *FD) {
  const Expr *At;
  const Expr *P = useOf(S, Addr, At);
  const VarDecl *W = nullptr;
  if (const auto *BO = dyn_cast_or_null<BinaryOperator>(P);
      BO && BO->getOpcode() == BO_Assign && BO->getRHS()->IgnoreParens() == At)
    W = localStorage(BO->getLHS());
  if (!P)
    if (auto Ps = S.Ctx.getParents(*At); !Ps.empty())
      W = Ps[0].get<VarDecl>();
  if (!W || !W->hasLocalStorage() || !W->getType()->isPointerType() || !FD ||
      !FD->hasBody())
    return nullptr;
  const CallExpr *Found = nullptr;
  anyReferenceTo(FD->getBody(), W, [&](const DeclRefExpr *DR) {
    Found = keepingCall(S, DR);
    return Found != nullptr;
  });
  return Found;
}

/// Where the struct value E (a local's, a compound literal, a call's
/// result) goes: to a keeping call directly, into another local that goes
/// there, to a parameter of a function of the file that does (a wrapper
/// `put(e)`), or out as the function's result; a few steps deep.
static const CallExpr *keptValue(Session &S, const Expr *E,
                                 const FunctionDecl *FD, unsigned Depth) {
  if (const CallExpr *CE = keepingCall(S, E))
    return CE;
  if (Depth >= 3)
    return nullptr;
  const Expr *At;
  const Expr *P = useOf(S, E, At);
  if (const auto *CE = dyn_cast_or_null<CallExpr>(P)) {
    const FunctionDecl *G = CE->getDirectCallee();
    const FunctionDecl *Def = G ? G->getDefinition() : nullptr;
    unsigned I = argumentIndex(CE, At);
    return Def && Def->hasBody() && I < Def->getNumParams()
               ? keptLocal(S, Def->getParamDecl(I), Depth + 1)
               : nullptr;
  }
  if (const auto *BO = dyn_cast_or_null<BinaryOperator>(P)) {
    const VarDecl *W =
        BO->getOpcode() == BO_Assign && BO->getRHS()->IgnoreParens() == At
            ? localStorage(BO->getLHS())
            : nullptr;
    return W ? keptLocal(S, W, Depth + 1) : nullptr;
  }
  if (const auto *UO = dyn_cast_or_null<UnaryOperator>(P);
      UO && UO->getOpcode() == UO_AddrOf)
    return keptThroughPointer(S, UO, FD);
  if (P)
    return nullptr;
  auto Ps = S.Ctx.getParents(*At);
  if (Ps.empty())
    return nullptr;
  if (const auto *W = Ps[0].get<VarDecl>())
    return keptLocal(S, W, Depth + 1);
  if (Ps[0].get<ReturnStmt>() && FD)
    return keptResult(S, FD, Depth);
  return nullptr;
}

/// A local struct (or array of them, or a struct holding one) that some
/// use hands, whole or in part (`arr[i]`, `w.e`), to a keeping call.
static const CallExpr *keptLocal(Session &S, const VarDecl *V, unsigned Depth) {
  QualType T = V->getType();
  if (!V->hasLocalStorage() || !(T->isRecordType() || T->isArrayType()))
    return nullptr;
  const auto *FD =
      dyn_cast_or_null<FunctionDecl>(V->getParentFunctionOrMethod());
  const CallExpr *Found = nullptr;
  if (FD && FD->hasBody())
    anyReferenceTo(FD->getBody(), V, [&](const DeclRefExpr *DR) {
      // Up to the whole value the reference is part of: `arr[0]`, `w.e`.
      const Expr *E = DR;
      for (const Expr *Cur = E, *P; (P = parentSkippingParens(S.Ctx, E, &Cur));
           E = P) {
        const auto *ME = dyn_cast<MemberExpr>(P);
        const auto *AS = dyn_cast<ArraySubscriptExpr>(P);
        const auto *IC = dyn_cast<ImplicitCastExpr>(P);
        if (!(ME && !ME->isArrow()) &&
            !(AS && AS->getBase()->IgnoreParens() == E) &&
            !(IC && IC->getCastKind() == CK_ArrayToPointerDecay))
          break;
      }
      Found = keptValue(S, E, FD, Depth);
      return Found != nullptr;
    });
  return Found;
}

/// The libc call that keeps a struct value in whose member the `void *`
/// at Cur (P its parent) is stored -- hsearch's ENTRY: `hsearch((ENTRY){
/// name, p }, ENTER)`, `ENTRY e = { name, p }; hsearch(e, ENTER)`, `e.data
/// = p`, a copy of such a local, an array element, a struct holding one,
/// a function's result built so -- or null.  A local counts where any use
/// of it reaches such a call (the flow is not followed: `e.data = NULL`
/// before the call still counts).
static const CallExpr *structKeptByLibc(Session &S, const Expr *Cur,
                                        const Expr *P) {
  const FunctionDecl *FD = enclosingFunction(S.Ctx, Cur);
  // (A designated initializer's parent is its syntactic form.)
  if (isa_and_nonnull<InitListExpr, DesignatedInitExpr>(P)) {
    const Expr *Top = P;
    for (const Expr *Up; isa_and_nonnull<InitListExpr, DesignatedInitExpr>(
             Up = parentSkippingParens(S.Ctx, Top, &Top));)
      Top = Up;
    const Expr *Q = parentSkippingParens(S.Ctx, Top, &Top);
    if (const auto *CL = dyn_cast_or_null<CompoundLiteralExpr>(Q))
      return keptValue(S, CL, FD, 0);
    if (Q)
      return nullptr;
    auto Ps = S.Ctx.getParents(*Top);
    const auto *V = Ps.empty() ? nullptr : Ps[0].get<VarDecl>();
    return V ? keptLocal(S, V, 0) : nullptr;
  }
  const auto *BO = dyn_cast_or_null<BinaryOperator>(P);
  if (BO && BO->getOpcode() == BO_Assign &&
      BO->getRHS()->IgnoreParens() == Cur &&
      isa<MemberExpr>(BO->getLHS()->IgnoreParenImpCasts()))
    if (const VarDecl *V = localStorage(BO->getLHS()))
      return keptLocal(S, V, 0);
  return nullptr;
}

/// `(uint8_t *)n + 1` (n a compact pointer): a tag in the low bits of a
/// compact address (crit-bit trees tell leaves from nodes so), and n's
/// type; else null.
static CompactType *taggedCompact(const Model &M, ASTContext &Ctx,
                                  const Expr *E) {
  const auto *BO = dyn_cast<BinaryOperator>(E->IgnoreParenImpCasts());
  if (!BO || !BO->isAdditiveOp() || !isBytePointer(BO->getType()))
    return nullptr;
  const Expr *Ptr = BO->getLHS(), *K = BO->getRHS();
  if (!Ptr->getType()->isPointerType())
    std::swap(Ptr, K);
  const auto *C = dyn_cast<ExplicitCastExpr>(Ptr->IgnoreParens());
  if (!C || !isTagStep(K, Ctx))
    return nullptr;
  return M.pointeeOf(C->getSubExpr()->IgnoreParenImpCasts()->getType());
}

void checkTaggedEscape(Session &S, const CastExpr *E) {
  if (!S.Opts.switchable() || E->getCastKind() != CK_BitCast ||
      !E->getType()->isVoidPointerType())
    return;
  CompactType *T = taggedCompact(S.M, S.Ctx, E->getSubExpr());
  const Expr *Cur = E;
  const auto *BO =
      dyn_cast_or_null<BinaryOperator>(parentSkippingParens(S.Ctx, E, &Cur));
  if (!T || !BO || BO->getOpcode() != BO_Assign ||
      BO->getRHS()->IgnoreParens() != Cur->IgnoreParens() ||
      localStorage(BO->getLHS()) || inAddressField(S.M, BO->getLHS()) ||
      landsInAddressField(S.Ctx, S.M, BO->getLHS()))
    return;
  S.report(Diag::VoidEscape, E->getExprLoc(),
           "a compact pointer to " + quoted(T->WideSpelling) +
               " with a tag in its low bits is stored into memory as 'void *'; "
               "kept there, it is no root, and after the switch it points into "
               "the released arena (" +
               KeepAdvice + ")",
           {tokRange(E->getSourceRange())});
}

/// LHS is an untyped field of a struct or union held inside a compact
/// object (`e->v.val`), whose type is not compact, so the switch does not
/// move it: what to do instead, or "".
static std::string nestedAddressAdvice(const Model &M, const Expr *LHS) {
  const auto *ME = dyn_cast<MemberExpr>(LHS->IgnoreParenImpCasts());
  const auto *F = ME ? dyn_cast<FieldDecl>(ME->getMemberDecl()) : nullptr;
  const Expr *Base = ME ? ME->getBase()->IgnoreParenImpCasts() : nullptr;
  const auto *Holder = dyn_cast_or_null<MemberExpr>(Base);
  if (!F || ME->isArrow() || !Holder || !F->getType()->isPointerType() ||
      M.pointeeOf(F->getType()) ||
      !(Holder->isArrow() ? M.pointeeOf(Holder->getBase()->getType()) != nullptr
                          : isCompactLocated(M, Holder->getBase())))
    return "";
  const RecordDecl *In = F->getParent();
  std::string Field = quoted(F->getName()),
              Member = quoted(Holder->getMemberDecl()->getName());
  if (In->isUnion())
    return Field + " is in union " + Member +
           " of a compact object, whose bytes may be another member's, so "
           "the switch does not move it; make " +
           Field + " a field of the compact struct itself";
  return Field + " is in member " + Member +
         " of a compact object, whose struct is not CP_COMPACT, so the "
         "switch does not move it; declare that struct CP_COMPACT too "
         "(`struct CP_COMPACT { ... } " +
         Holder->getMemberDecl()->getName().str() +
         ";` for an unnamed one), or make " + Field +
         " a field of the compact struct itself";
}

/// Switchable: a compact pointer handed to a function of the program as
/// `void *` (`vec_push(&v, node)`) or stored into memory as one
/// (`slots[i] = node`).  A generic container keeps it where the switch
/// cannot see it: after the switch it points into the released arena.
/// Calls to libc, the runtime and system headers (but for the arguments
/// libc keeps: tsearch's key), locals of type `void *` and the address of
/// a variable that stays wide (a parameter: wide bytes, no compact
/// pointer) are not flagged.  An explicit cast (`add((void *)n)`) says the
/// code knows, but only where the plugin cannot see the pointer kept: it
/// is flagged where it is stored into memory, handed to a libc function
/// that keeps it, or to a function of this file whose body stores it (an
/// identity set of `void *` compared after the switch gave wrong answers,
/// silently).
void checkVoidEscape(Session &S, const CastExpr *E) {
  const Model &M = S.M;
  bool Explicit = isa<ExplicitCastExpr>(E);
  if (!S.Opts.switchable() || E->getCastKind() != CK_BitCast ||
      !E->getType()->isVoidPointerType() ||
      !M.pointeeOf(E->getSubExpr()->IgnoreParenImpCasts()->getType()) ||
      addressOfWideVariable(E->getSubExpr()->IgnoreParenImpCasts()))
    return;
  const Expr *Cur = E;
  const Expr *P = parentSkippingParens(S.Ctx, E, &Cur);
  std::string Where;
  // Where a library keeps it (tsearch's tree), no field or root array of
  // the program's can hold it instead.
  std::string Advice =
      std::string(KeepAdvice) + ", or cast explicitly if it is not kept";
  const char *LibcAdvice =
      "keep such pointers in a structure of the program's own (a tree or "
      "table of compact type) instead, or build the program compact-only "
      "(--cp-mode=compact-only), which never switches";
  if (const CallExpr *Keeper = structKeptByLibc(S, Cur, P)) {
    const FunctionDecl *FD = Keeper->getDirectCallee();
    QualType ST =
        Keeper->getArg(keptArgument(FD))->IgnoreParenImpCasts()->getType();
    bool ByAddress = ST->isPointerType();
    if (ByAddress)
      ST = ST->getPointeeType();
    Where = "is stored as 'void *' in " + quoted(ST.getAsString()) +
            (ByAddress ? " whose address is handed to " : " handed to ") +
            quoted(FD->getName()) + " on line " +
            std::to_string(S.SM.getExpansionLineNumber(Keeper->getBeginLoc())) +
            ", which keeps it after it returns";
    Advice = LibcAdvice;
    Explicit = false; // a cast does not change what libc keeps
  } else if (const auto *CE = dyn_cast_or_null<CallExpr>(P)) {
    const FunctionDecl *FD = CE->getDirectCallee();
    if (CE->getCallee()->IgnoreParenImpCasts() == Cur)
      return;
    // cJSON's `hooks.deallocate(item)`: freed by the runtime while the
    // hook is free; another hook frees its own, foreign, objects (their
    // allocation was warned).
    if (hookFreed(M, S.Ctx, CE))
      return;
    // Any declaration in a system header counts: compactptr.h redeclares
    // pthread_create, whose argument the runtime keeps as a root.
    bool System =
        FD &&
        (FD->getBuiltinID() || isRuntimeFunction(FD) ||
         allocFunction(CE) != AllocFn::None ||
         llvm::any_of(FD->redecls(), [&](const FunctionDecl *R) {
           return S.Ctx.getSourceManager().isInSystemHeader(R->getLocation());
         }));
    int Kept = keptArgument(FD);
    if (Kept < 0)
      Kept = storedBuiltinArgument(FD);
    bool Keeps = Kept >= 0 && (unsigned)Kept < CE->getNumArgs() &&
                 CE->getArg(Kept)->IgnoreParens() == Cur;
    // pthread_exit's argument is the thread's result: where pthread_join
    // is the runtime's, the runtime keeps it as a root until the join.
    if (Keeps && FD && FD->getName() == "pthread_exit" &&
        runtimeKeepsResults(S)) {
      S.M.ThreadKept[E] = nullptr;
      return;
    }
    // pthread_setspecific's value, where pthread_getspecific is the
    // runtime's: kept as a root while the thread lives (the key is
    // evaluated again for it: one without side effects only).
    if (Keeps && FD && FD->getName() == "pthread_setspecific" &&
        CE->getNumArgs() == 2 && !CE->getArg(0)->HasSideEffects(S.Ctx) &&
        runtimeKeeps(S, "pthread_getspecific", "cp_thread_getspecific")) {
      S.M.ThreadKept[E] = CE->getArg(0);
      return;
    }
    if (System && !Keeps)
      return;
    // A function of this file that keeps nothing (a comparator called
    // directly) cannot leave it where the switch does not see it; through
    // an explicit cast, only one that stores it is flagged.
    const FunctionDecl *Def = FD ? FD->getDefinition() : nullptr;
    // Made an integer there (an identity set hashed by address): the
    // number is the compact address's, which the switch changes under it;
    // a root or an untyped field would not help, so say that instead.
    if (!System && Def && Def->hasBody() &&
        argumentIndex(CE, Cur) < Def->getNumParams() &&
        paramMadeInteger(S, Def, Def->getParamDecl(argumentIndex(CE, Cur)),
                         0)) {
      CompactType *T =
          M.pointeeOf(E->getSubExpr()->IgnoreParenImpCasts()->getType());
      S.report(Diag::IntegerCast, E->getExprLoc(),
               "a compact pointer" +
                   (T ? " to " + quoted(T->WideSpelling) : std::string()) +
                   " is passed as 'void *' to " +
                   (FD->getIdentifier() ? quoted(FD->getName())
                                        : std::string("this call")) +
                   ", which makes the address an integer (a hash, an order "
                   "by address); the switch gives every object another "
                   "address, so a number kept from before it (a bucket "
                   "index) no longer matches the object; hash or order by "
                   "a key stored in the object instead",
               {tokRange(E->getSourceRange())});
      // (Kept elsewhere too, it is warned below as well.)
    }
    if (!System && Def && Def->hasBody() &&
        !(Explicit ? paramStored(S, Def, argumentIndex(CE, Cur), 3)
                   : paramMayBeKept(S, Def, argumentIndex(CE, Cur), CE)))
      return;
    if (Explicit && !System && !(Def && Def->hasBody()))
      return; // the cast says the code knows what the callee does
    if (System && Keeps)
      Advice = LibcAdvice;
    Where = "is passed as 'void *' to " +
            (FD && FD->getIdentifier() ? quoted(FD->getName()) : std::string("this call")) +
            (Keeps ? ", which keeps it after it returns" : "");
  } else if (const auto *BO = dyn_cast_or_null<BinaryOperator>(P)) {
    if (BO->getOpcode() != BO_Assign ||
        BO->getRHS()->IgnoreParens() != Cur->IgnoreParens())
      return;
    // A local `void *`, or an element or member of a local (a work stack
    // of `void *`): not flagged, as locals of type `void *` are not.
    if (localStorage(BO->getLHS()))
      return;
    // An untyped address field of a compact object: the switch moves it.
    if (inAddressField(S.M, BO->getLHS()) ||
        landsInAddressField(S.Ctx, S.M, BO->getLHS()))
      return;
    Where = "is stored into memory as 'void *'";
    // Into a `void *` of a struct or union held inside a compact object
    // (Redis's `union { void *val; ... } v`): the advice to keep it in a
    // compact struct's `void *` field would send the user where it is.
    if (std::string Nested = nestedAddressAdvice(S.M, BO->getLHS());
        !Nested.empty())
      Advice = Nested;
  } else if (const VarDecl *Arg = P ? nullptr : hiddenCleanupArg(S.Ctx, Cur)) {
    (void)Arg;
    Where =
        "is handed to pthread_cleanup_push, which keeps it until its handler "
        "runs, and the pthread_cleanup_push nested inside hides where it is "
        "kept";
    Advice = "hand the outer handler an index, or the address of a global or "
             "thread-local compact pointer that holds it, or nest no "
             "pthread_cleanup_push inside";
  } else if (const FunctionDecl *FD = P ? nullptr : returnedFrom(S.Ctx, Cur);
             FD && (startsThread(S, FD) || mayStartThread(S, FD))) {
    // A start routine this TU starts: the runtime keeps its result until
    // the join, where pthread_join is the runtime's (as pthread_exit's
    // argument, above).  One whose address goes to code of another file
    // (a fork-join helper's) may be started there, whose join is libc's:
    // flagged, unless a cast says that code runs no thread with it.
    bool Here = startsThread(S, FD), Keeps = runtimeKeepsResults(S);
    std::optional<const FunctionDecl *> HandedTo = mayStartThread(S, FD);
    bool Elsewhere = HandedTo && !Explicit;
    if (Here && Keeps) {
      S.M.ThreadKept[E] = nullptr;
      if (!Elsewhere)
        return;
    }
    if (Here && !Keeps) {
      // pthread_join hands it to the joiner from memory of libc's own.
      Where = "is returned as 'void *' by thread start routine " +
              quoted(FD->getName()) +
              ", and pthread_join hands it over from memory the switch does "
              "not see";
    } else if (Elsewhere) {
      // The callee is not pthread_create (that is startsThread): it may
      // start a thread with it (a fork-join helper) or call it itself (a
      // list walker's accessor); either way the result goes where the
      // plugin does not see it kept.  The message says that much only.
      const FunctionDecl *To = *HandedTo;
      Where = "is returned as 'void *' by " + quoted(FD->getName()) +
              ", whose address goes to " +
              (To && To->getIdentifier()
                   ? quoted(To->getName()) + ", code of another file"
                   : std::string("code of another file")) +
              ": the result goes to code the plugin does not see";
      Advice = "keep the code that holds the result in this file, or hand "
               "it over in a field or a root of its own type; for a thread, "
               "start it with pthread_create here: the runtime keeps the "
               "results of the start routines it sees; a cast to 'void *' "
               "at the return says that code keeps nothing";
    } else {
      return;
    }
  } else {
    return;
  }
  CompactType *T =
      M.pointeeOf(E->getSubExpr()->IgnoreParenImpCasts()->getType());
  if (Explicit)
    Advice = std::string(KeepAdvice) +
             ": the cast does not keep the switch from releasing what it "
             "points to";
  S.report(Diag::VoidEscape, E->getExprLoc(), keptNoRoot(T, Where, Advice),
           {tokRange(E->getSourceRange())});
}

/// The variable a store's left side names directly, or null (memory: a
/// field, an element, a dereference).
static const VarDecl *storedVariable(const Expr *L) {
  const auto *DR = dyn_cast<DeclRefExpr>(L->IgnoreParenImpCasts());
  return DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
}

/// A local of a function that cannot reach a safepoint holds the size
/// only while no switch can run: its value is right wherever it is read.
static bool keptAcrossSafepoints(const Session &S, const VarDecl *V) {
  if (!V || !V->isLocalVarDeclOrParm() || V->isStaticLocal())
    return true;
  const auto *FD = dyn_cast_or_null<FunctionDecl>(V->getParentFunctionOrMethod());
  auto It = FD ? S.M.Functions.find(FD->getCanonicalDecl()) : S.M.Functions.end();
  return It == S.M.Functions.end() ||
         (It->second & (FC_Safepoint | FC_Allocates | FC_Opaque)) != 0;
}

/// The result of call CE becomes a compact pointer (through casts): an
/// allocation wrapper handed the object's size (`xmalloc(sizeof *p)`),
/// which the allocation checks follow.  A constructor of a container
/// (`vec_new(sizeof(struct item))`) returns something else.
static bool becomesCompactPointer(const Session &S, const CallExpr *CE) {
  const Expr *Cur = CE;
  for (const Expr *P; (P = parentSkippingParens(S.Ctx, Cur, &Cur)) && isa<CastExpr>(P);
       Cur = P)
    if (S.M.pointeeOf(P->getType()))
      return true;
  // `struct item *p = xmalloc(sizeof *p);` and `p = xmalloc(..)`.
  auto Ps = S.Ctx.getParents(*Cur);
  if (const auto *V = Ps.empty() ? nullptr : Ps[0].get<VarDecl>())
    return S.M.pointeeOf(V->getType()) != nullptr;
  const auto *BO = dyn_cast_or_null<BinaryOperator>(parentSkippingParens(S.Ctx, Cur));
  return BO && BO->getOpcode() == BO_Assign && S.M.pointeeOf(BO->getLHS()->getType());
}

static std::string layoutKeptWhere(Session &S, const Expr *E, unsigned Depth,
                                   const VarDecl *From);

/// V, a local of a function that cannot reach a safepoint, holds a layout
/// value: where a read of it ends up kept (`size_t n = sizeof *p;
/// pool_init(&pl, n);`), as the tail of the warning's sentence, or "".
/// Reads are followed a few locals deep, and only those after the store
/// in the text (the flow is not followed: a local given another value on
/// the way still counts).
static std::string followLocal(Session &S, const VarDecl *V, unsigned Depth,
                               SourceLocation After) {
  struct Reads : RecursiveASTVisitor<Reads> {
    const VarDecl *V;
    llvm::SmallVector<const ImplicitCastExpr *, 4> Found;
    bool VisitImplicitCastExpr(ImplicitCastExpr *ICE) {
      const auto *DR = dyn_cast<DeclRefExpr>(ICE->getSubExpr()->IgnoreParens());
      if (ICE->getCastKind() == CK_LValueToRValue && DR && DR->getDecl() == V)
        Found.push_back(ICE);
      return true;
    }
  } R;
  R.V = V;
  const auto *FD = dyn_cast_or_null<FunctionDecl>(V->getParentFunctionOrMethod());
  if (Depth >= 3 || !FD || !FD->hasBody())
    return "";
  R.TraverseStmt(FD->getBody());
  for (const ImplicitCastExpr *Read : R.Found)
    if (!S.SM.isBeforeInTranslationUnit(S.SM.getExpansionLoc(Read->getBeginLoc()),
                                        S.SM.getExpansionLoc(After)))
      if (std::string W = layoutKeptWhere(S, Read, Depth + 1, V); !W.empty())
        return quoted(V->getName()) + ", which " + W;
  return "";
}

/// Where the layout value E (a sizeof or offsetof, or a read of a local
/// holding one) is kept past the moment it was taken, as the tail of the
/// warning's sentence, or "" where it is used at once.  Follows it
/// through arithmetic, casts and conditionals to what consumes it; a
/// comparison or an index uses it at once.  From: the local E reads, whose
/// store back into itself (`n = n + 1`) is not followed again.
static std::string layoutKeptWhere(Session &S, const Expr *E, unsigned Depth,
                                   const VarDecl *From) {
  const Expr *Cur = E;
  for (;;) {
    const Expr *P = parentSkippingParens(S.Ctx, Cur, &Cur);
    if (!P) {
      // A declaration's initializer: a local's (a static one is refused
      // as a layout-constant already).
      auto Ps = S.Ctx.getParents(*Cur);
      const auto *V = Ps.empty() ? nullptr : Ps[0].get<VarDecl>();
      if (!V || V->hasGlobalStorage() || onlyFlexAllocationSize(S.Ctx, V))
        return "";
      if (!keptAcrossSafepoints(S, V)) {
        std::string W = followLocal(S, V, Depth, V->getLocation());
        return W.empty() ? "" : "initializes " + W;
      }
      return "initializes " + quoted(V->getName());
    }
    if (isa<CastExpr>(P) && P->getType()->isIntegerType()) {
      Cur = P;
      continue;
    }
    if (const auto *CO = dyn_cast<ConditionalOperator>(P)) {
      if (CO->getCond()->IgnoreParens() == Cur)
        return "";
      Cur = P;
      continue;
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(P)) {
      if (BO->isMultiplicativeOp() || BO->isAdditiveOp() || BO->isShiftOp() ||
          BO->isBitwiseOp()) {
        Cur = P;
        continue;
      }
      // `total += sizeof *p` keeps a sum of sizes as `total = sizeof *p`
      // keeps one (a memory count printed after the switch added compact
      // and wide sizes, unwarned); `bump += sizeof *p` steps a pointer
      // (refused where the pointer becomes an object).
      bool Adds = (BO->getOpcode() == BO_AddAssign ||
                   BO->getOpcode() == BO_SubAssign) &&
                  BO->getLHS()->getType()->isIntegerType();
      if ((BO->getOpcode() != BO_Assign && !Adds) ||
          BO->getRHS()->IgnoreParens() != Cur->IgnoreParens())
        return "";
      const VarDecl *V = storedVariable(BO->getLHS());
      if (V && V == From)
        return "";
      const std::string Kept = !Adds ? "is stored in "
                               : BO->getOpcode() == BO_SubAssign
                                   ? "is subtracted from "
                                   : "is added to ";
      const std::string Sum =
          Adds ? " (a total kept across the switch adds sizes of both "
                 "layouts: count the objects instead)"
               : "";
      if (V && !keptAcrossSafepoints(S, V)) {
        std::string W = followLocal(S, V, Depth, BO->getBeginLoc());
        return W.empty() ? "" : Kept + W + Sum;
      }
      return (V ? Kept + quoted(V->getName())
                : Kept + (Adds ? "a total in memory" : "memory")) +
             Sum;
    }
    if (isa<InitListExpr>(P)) {
      // A static aggregate's initializer is a layout-constant error.
      const Expr *Top = P;
      while (const Expr *Up = parentSkippingParens(S.Ctx, Top, &Top))
        Top = Up;
      auto Ps = S.Ctx.getParents(*Top);
      const auto *V = Ps.empty() ? nullptr : Ps[0].get<VarDecl>();
      if (V && (V->hasGlobalStorage() || !keptAcrossSafepoints(S, V)))
        return "";
      return "initializes an aggregate";
    }
    if (const auto *CE = dyn_cast<CallExpr>(P)) {
      // libc and the runtime use a size during the call; a function of
      // the program may keep it (a container's element size).  One that
      // returns a pointer is an allocation wrapper (xmalloc(sizeof *p)),
      // whose result the allocation checks follow.
      const FunctionDecl *FD = CE->getDirectCallee();
      // A size helper that multiplies or adds (st_mult, st_add): its
      // result is the size.
      std::optional<std::pair<unsigned, unsigned>> H = productHelper(FD);
      if (!H)
        H = sumHelper(FD);
      if (H && H->first < CE->getNumArgs() && H->second < CE->getNumArgs() &&
          (CE->getArg(H->first) == Cur || CE->getArg(H->second) == Cur)) {
        Cur = P;
        continue;
      }
      if (CE->getCallee()->IgnoreParenImpCasts() == Cur ||
          (FD && (S.SM.isInSystemHeader(S.SM.getExpansionLoc(FD->getLocation())) ||
                  isRuntimeFunction(FD) || allocFunction(CE) != AllocFn::None)) ||
          becomesCompactPointer(S, CE))
        return "";
      // A pool's set-up (`pool_init(&pool, sizeof(struct node), 64)`)
      // whose kept size only the pool's own code reads, which never runs
      // for the compact objects.
      if (isQuietPoolSetUp(S.M, S.Ctx, CE, Cur))
        return "";
      return FD ? "is handed to " + quoted(FD->getName()) + ", which may keep it"
                : "is handed to a function through a pointer, which may keep it";
    }
    return "";
  }
}

static void reportLayoutStored(Session &S, const Expr *Trait,
                               const CompactType *T, const std::string &Where);

/// Switchable: a sizeof or offsetof of compact type T kept where it
/// outlives the layout it was taken in (layoutKeptWhere).  A sizeof waits
/// for the layout: a type the layout makes no smaller (`{ long key; struct
/// node *next; }`, 16 bytes both ways) keeps its size.
void checkLayoutStored(Session &S, const Expr *Trait, const CompactType *T) {
  if (!S.Opts.switchable() || S.isIgnoredLoc(Trait->getExprLoc()))
    return;
  std::string Where = layoutKeptWhere(S, Trait, 0, nullptr);
  if (Where.empty())
    return;
  // Held, offsetofs too, so the warnings keep the order of the text.
  S.HeldLayoutStored.push_back({Trait, T, Where});
}

void reportHeldLayoutStored(Session &S) {
  for (const Session::HeldTrait &H : S.HeldLayoutStored)
    if (!isa<UnaryExprOrTypeTraitExpr>(H.Trait) ||
        cast<UnaryExprOrTypeTraitExpr>(H.Trait)->getKind() != UETT_SizeOf ||
        !H.T->LayoutDone ||
        H.T->CompactSize !=
            (uint64_t)S.Ctx.getTypeSizeInChars(S.Ctx.getRecordType(H.T->RD))
                .getQuantity())
      reportLayoutStored(S, H.Trait, H.T, H.Where);
  S.HeldLayoutStored.clear();
}

static void reportLayoutStored(Session &S, const Expr *Trait,
                               const CompactType *T, const std::string &Where) {
  S.report(Diag::LayoutStored, Trait->getExprLoc(),
           "this " +
               std::string(isa<OffsetOfExpr>(Trait) ? "offsetof" : "sizeof") +
               " of compact type " + quoted(T->WideSpelling) +
               (T->Annotated ? ""
                             : " (compact by inference: it holds a "
                               "pointer to a compact type)") +
               " " + Where +
               ": it is the value in the layout of the moment, and after the "
               "switch the objects have their wide layout, so a copy or a "
               "step sized by it then goes wrong; take it where it is used "
               "(sizeof *p, offsetof(...) in the expression)",
           {tokRange(Trait->getSourceRange())});
}

/// The function of this file argument E names (`f`, `&f`) when it may
/// reach a safepoint (it allocates a compact object, or calls what does),
/// else null.
static const FunctionDecl *safepointCallback(const Session &S, const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (const auto *UO = dyn_cast<UnaryOperator>(E);
      UO && UO->getOpcode() == UO_AddrOf)
    E = UO->getSubExpr()->IgnoreParens();
  const auto *DR = dyn_cast<DeclRefExpr>(E);
  const auto *Cb = DR ? dyn_cast<FunctionDecl>(DR->getDecl()) : nullptr;
  return Cb && reachesSafepoint(S.M, Cb) ? Cb : nullptr;
}

bool reachesSafepoint(const Model &M, const FunctionDecl *F) {
  auto It = M.Functions.find(F->getCanonicalDecl());
  return It != M.Functions.end() && (It->second & FC_Safepoint);
}

std::string reachesSafepointText(const FunctionDecl *F) {
  return quoted(F->getName()) + " may reach a safepoint (it allocates compact "
                                "objects, or calls what does)";
}

/// Switchable: a function of the program that may reach a safepoint,
/// handed to a libc function that calls it back (qsort's comparator that
/// allocates a compact object).  libc holds copies of the pointers it was
/// given meanwhile (qsort's temporary buffer, its element pointers), which
/// no frame registers: a switch in the callback leaves them pointing into
/// the released arena.
void checkCallbackSafepoint(Session &S, const CallExpr *CE) {
  const FunctionDecl *FD = CE->getDirectCallee();
  int A = S.Opts.switchable() ? callbackArgument(FD) : -1;
  if (A < 0 || (unsigned)A >= CE->getNumArgs())
    return;
  const FunctionDecl *Cb = safepointCallback(S, CE->getArg(A));
  if (!Cb)
    return;
  S.report(Diag::CallbackSafepoint, CE->getArg(A)->getExprLoc(),
           reachesSafepointText(Cb) + ", and " + quoted(FD->getName()) +
               " calls it back while it holds copies of the pointers it was "
               "given, which are no roots: a switch there leaves them pointing "
               "into the released arena; allocate before or after the call",
           {tokRange(CE->getArg(A)->getSourceRange())});
}

/// Switchable: a function of the program that may reach a safepoint,
/// handed to a function of another file that calls it back (a generic
/// walk's visitor that allocates).  That file sees no allocation in the
/// walk: there it is dual, and its compact body holds off a switch that
/// becomes due in the callback; once the arena runs out the program stops
/// (a trial's walker: exit 70, and the same code in one file ran).
/// CP_SAFEPOINT on the declaration both files see makes the walk checked.
void checkCallbackElsewhere(Session &S, const CallExpr *CE) {
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!S.Opts.switchable() || !FD || FD->hasBody() ||
      hasAttribute(FD, "safepoint") || isRuntimeFunction(FD) ||
      callbackArgument(FD) >= 0 ||
      S.SM.isInSystemHeader(S.SM.getExpansionLoc(FD->getLocation())) ||
      S.isIgnoredLoc(CE->getExprLoc()) ||
      // A file whose functions take no compact type is not rewritten:
      // the callback is entered from outside, under no compact body.
      !usesCompactType(S.M, FD))
    return;
  for (unsigned I = 0; I < CE->getNumArgs() && I < FD->getNumParams(); ++I) {
    if (!FD->getParamDecl(I)->getType()->isFunctionPointerType())
      continue;
    const FunctionDecl *Cb = safepointCallback(S, CE->getArg(I));
    if (!Cb)
      continue;
    S.report(Diag::CallbackSafepoint, CE->getArg(I)->getExprLoc(),
             reachesSafepointText(Cb) + ", and " + quoted(FD->getName()) +
                 ", a function of another file, may call it back: that file "
                 "sees no safepoint in " +
                 quoted(FD->getName()) +
                 ", so a switch due during such a callback waits until it "
                 "returns, and should the arena run out first the program "
                 "stops; declare " +
                 quoted(FD->getName()) +
                 " CP_SAFEPOINT where both files see it",
             {tokRange(CE->getArg(I)->getSourceRange())});
  }
}

/// V names a local of Def that a `void *` or byte pointer was converted
/// into (`struct node *n = p;` with p a `void *` parameter): what it holds
/// may be any memory.
static bool fromBytes(const FunctionDecl *Def, const Expr *V) {
  const auto *DR = dyn_cast<DeclRefExpr>(V);
  const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
  if (!VD || isa<ParmVarDecl>(VD) || !VD->hasLocalStorage())
    return false;
  auto Bytes = [](const Expr *X) {
    const auto *C = X ? dyn_cast<CastExpr>(X->IgnoreParens()) : nullptr;
    return C && isBytePointer(C->getSubExpr()->getType());
  };
  if (Bytes(VD->getInit()))
    return true;
  bool Found = false;
  std::function<void(const Stmt *)> Walk = [&](const Stmt *St) {
    if (!St || Found)
      return;
    if (const auto *BO = dyn_cast<BinaryOperator>(St);
        BO && BO->getOpcode() == BO_Assign && Bytes(BO->getRHS()))
      if (const auto *L = dyn_cast<DeclRefExpr>(BO->getLHS()->IgnoreParens());
          L && L->getDecl() == VD)
        Found = true;
    for (const Stmt *C : St->children())
      Walk(C);
  };
  Walk(Def->getBody());
  return Found;
}

/// FD, defined in this file, returns nothing but compact pointers to T
/// (or null) as its `void *`: a thread's start routine called directly
/// (a fork-join recursion), a callback, a wrapper of an allocation the
/// plugin routes to the runtime.  Its result is an arena object.
static bool returnsOnly(const Session &S, const FunctionDecl *FD,
                        const CompactType *T, unsigned Depth = 0) {
  const Model &M = S.M;
  const FunctionDecl *Def = FD ? FD->getDefinition() : nullptr;
  if (!Def || !Def->getBody())
    return false;
  ASTContext &Ctx = Def->getASTContext();
  // A value that is null, a T, or what an untyped field of a compact
  // object holds (a map's `return e ? e->value : NULL;`: an arena object
  // kept there is moved by the switch), also through a function of the
  // file that returns only such values.
  std::set<const VarDecl *> Seen;
  std::function<bool(const Expr *)> Stored = [&](const Expr *V) {
    if (V->IgnoreParenImpCasts()->isNullPointerConstant(
            Ctx, Expr::NPC_ValueDependentIsNotNull))
      return true;
    V = V->IgnoreParenCasts(); // `return (void *)l;`
    if (M.pointeeOf(V->getType()) == T && !fromBytes(Def, V))
      return true;
    if (const auto *CO = dyn_cast<AbstractConditionalOperator>(V))
      return Stored(CO->getTrueExpr()) && Stored(CO->getFalseExpr());
    if (inAddressField(M, V))
      return true;
    // A local every value of which is such a value (a list's pop that
    // reads the cell's data into a local before it frees the cell).
    if (const VarDecl *L = localVariable(V);
        L && !isa<ParmVarDecl>(L) && !L->getType()->isArrayType()) {
      if (!Seen.insert(L).second)
        return true; // a cycle: its other values decide
      bool All = !L->getInit() || Stored(L->getInit()), Addr = false;
      std::function<void(const Stmt *)> Uses = [&](const Stmt *St) {
        if (!St || !All)
          return;
        if (const auto *BO = dyn_cast<BinaryOperator>(St);
            BO && BO->isAssignmentOp() && localVariable(BO->getLHS()) == L)
          All = BO->getOpcode() == BO_Assign && Stored(BO->getRHS());
        if (const auto *UO = dyn_cast<UnaryOperator>(St);
            UO && UO->getOpcode() == UO_AddrOf &&
            localVariable(UO->getSubExpr()) == L)
          Addr = true;
        for (const Stmt *C : St->children())
          Uses(C);
      };
      Uses(Def->getBody());
      return All && !Addr;
    }
    // (`return pool_alloc(p);`, `return malloc(sizeof(struct node));`:
    // rewritten to the runtime's allocation of a T.)
    if (const auto *CE = dyn_cast<CallExpr>(V); CE && allocatedType(S, CE) == T)
      return true;
    if (const auto *CE = dyn_cast<CallExpr>(V);
        CE && Depth < 2 && CE->getType()->isPointerType() &&
        CE->getDirectCallee())
      return returnsOnly(S, CE->getDirectCallee(), T, Depth + 1);
    return false;
  };
  bool Any = false, Other = false;
  std::function<void(const Stmt *)> Walk = [&](const Stmt *St) {
    if (!St || Other)
      return;
    if (const auto *R = dyn_cast<ReturnStmt>(St)) {
      const Expr *V = R->getRetValue();
      if (!V)
        return;
      if (V->IgnoreParenImpCasts()->isNullPointerConstant(
              Ctx, Expr::NPC_ValueDependentIsNotNull))
        return;
      Any = true;
      Other |= !Stored(V);
      return;
    }
    for (const Stmt *C : St->children())
      Walk(C);
  };
  Walk(Def->getBody());
  return Any && !Other;
}

const CompactType *hookAllocated(const Model &M, ASTContext &Ctx,
                                 const CallExpr *CE) {
  if (CE->getDirectCallee() || CE->getNumArgs() != 1 ||
      CE->getCallee()->HasSideEffects(Ctx))
    return nullptr;
  SizeShape Sh = sizeShape(CE->getArg(0));
  if (!Sh.Ok || !Sh.Counts.empty() || Sh.Flex)
    return nullptr;
  const CompactType *T = M.recordOf(Sh.Elem);
  const auto *Cast = dyn_cast_or_null<CastExpr>(parentSkippingParens(Ctx, CE));
  if (!T || !Cast || Cast->getCastKind() != CK_BitCast ||
      M.pointeeOf(Cast->getType()) != T)
    return nullptr;
  return T;
}

/// F is given `free` in this translation unit: assigned it (cJSON's
/// `global_hooks.deallocate = free;`) or initialized with it in a
/// struct's braces (`{malloc, free, realloc}`).  What tells a free hook
/// from a callback of the same type (a walker's `visit(void *)`).
static bool givenFree(ASTContext &Ctx, const FieldDecl *F) {
  auto IsFree = [](const Expr *E) {
    const auto *DR = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    const auto *FD = DR ? dyn_cast<FunctionDecl>(DR->getDecl()) : nullptr;
    return FD && FD->getIdentifier() && FD->getName() == "free";
  };
  auto Gives = [&](const Stmt *St) {
    if (const auto *BO = dyn_cast<BinaryOperator>(St);
        BO && BO->getOpcode() == BO_Assign) {
      const auto *ME = dyn_cast<MemberExpr>(BO->getLHS()->IgnoreParens());
      return ME && ME->getMemberDecl() == F && IsFree(BO->getRHS());
    }
    const auto *IL = dyn_cast<InitListExpr>(St);
    return IL && IL->getType()->getAsRecordDecl() == F->getParent() &&
           F->getFieldIndex() < IL->getNumInits() &&
           IsFree(IL->getInit(F->getFieldIndex()));
  };
  return anyNodeInUnit(Ctx, Gives);
}

const Expr *hookFreed(const Model &M, ASTContext &Ctx, const CallExpr *CE) {
  if (CE->getDirectCallee() || CE->getNumArgs() != 1 ||
      !CE->getType()->isVoidType() || CE->getCallee()->HasSideEffects(Ctx))
    return nullptr;
  const auto *Cast = dyn_cast<ImplicitCastExpr>(CE->getArg(0)->IgnoreParens());
  if (!Cast || Cast->getCastKind() != CK_BitCast ||
      !Cast->getType()->isVoidPointerType() ||
      !M.pointeeOf(Cast->getSubExpr()->getType()))
    return nullptr;
  const auto *ME = dyn_cast<MemberExpr>(CE->getCallee()->IgnoreParenImpCasts());
  const auto *F = ME ? dyn_cast<FieldDecl>(ME->getMemberDecl()) : nullptr;
  if (!F)
    return nullptr;
  auto [It, New] = M.FreeHooks.try_emplace(F, false);
  if (New)
    It->second = givenFree(Ctx, F);
  return It->second ? Cast->getSubExpr() : nullptr;
}

/// `struct node *p = mk();` where mk returns `void *`: if mk allocated
/// the object itself (`return calloc(1, 64);`) it lives in libc's heap,
/// not the arena, and the first compact access corrupts memory.  Only
/// malloc/calloc/realloc written where the compact type is known are
/// rewritten, so any other call's `void *` becoming a compact pointer is
/// suspect; an explicit cast says the object came from the arena, unless
/// the call is handed the type's size: then it allocates one (an
/// allocation hook, `(struct item *)hooks.allocate(sizeof(struct item))`,
/// or a wrapper in another file), and the switch stops on it.
void checkForeignObject(Session &S, const CastExpr *E) {
  const Model &M = S.M;
  if (E->getCastKind() != CK_BitCast)
    return;
  CompactType *ToT = M.pointeeOf(E->getType());
  // A pinned object the program allocates itself is never registered:
  // the switch would not translate its compact pointers.  Only a call
  // handed the type's size says so; any other `void *` may be one the
  // runtime allocated (a table's lookup, a thread's argument).
  CompactType *Pinned = ToT ? nullptr : M.pinnedPointee(E->getType());
  if (Pinned)
    ToT = Pinned;
  QualType From = E->getSubExpr()->getType();
  if (!ToT || !From->isPointerType() ||
      !From->getPointeeType()->isVoidType())
    return;
  const auto *CE = dyn_cast<CallExpr>(E->getSubExpr()->IgnoreParens());
  if (!CE)
    return;
  const FunctionDecl *FD = CE->getDirectCallee();
  // libc's aligned allocators are refused for compact objects (Safety.cpp).
  if (allocFunction(CE) != AllocFn::None || isRuntimeFunction(FD) || isAlignedAllocator(FD))
    return;
  // pthread_getspecific gives back what pthread_setspecific was handed:
  // where that was a compact pointer, void-escape said so there.
  if (returnsKept(FD))
    return;
  // bsearch over an array of compact objects finds one of them.
  if (const Expr *In = resultArgument(CE); In && M.pointeeOf(In->IgnoreParenImpCasts()->getType()))
    return;
  // memset and memcpy return the memory they are handed: no allocation.
  bool Sized = (!FD || byteCopyFunction(FD).empty()) &&
               llvm::any_of(CE->arguments(), [&](const Expr *A) {
                 SizeShape Sh = sizeShape(A);
                 return Sh.Ok && (Pinned ? M.pinnedOf(Sh.Elem)
                                         : M.recordOf(Sh.Elem)) == ToT;
               });
  StringRef N = FD && FD->getIdentifier() ? FD->getName() : "";
  std::string Who = N.empty() ? "this call" : quoted(N);
  if (Pinned) {
    if (Sized)
      S.report(Diag::ForeignObject, E->getExprLoc(),
               Who + " is handed the size of " + quoted(ToT->WideSpelling) +
                   " (pinned: it holds a '" + ToT->Sync +
                   "' and compact pointers) and its result becomes a "
                   "pointer to one: it allocates the object where the "
                   "runtime does not see it, so the switch would not "
                   "translate its compact pointers; " +
                   (N.empty() ? std::string("")
                              : "declare " + Who + " CP_ALLOCATOR, or ") +
                   "call malloc(sizeof(" + ToT->WideSpelling +
                   ")) where the type is known",
               {tokRange(CE->getSourceRange())});
    return;
  }
  if (Sized && hookAllocated(M, S.Ctx, CE) == ToT) {
    S.report(
        Diag::ForeignObject, E->getExprLoc(),
        "this allocation hook is handed the size of " +
            quoted(ToT->WideSpelling) +
            " and its result becomes a compact pointer to one: while the hook "
            "is malloc the object comes from the compact heap, but any other "
            "function allocates it outside, where a compact field cannot hold "
            "it and the switch cannot move it (the runtime stops there); call "
            "malloc(sizeof(" +
            ToT->WideSpelling +
            ")) here to allocate with "
            "any hook",
        {tokRange(CE->getSourceRange())});
    return;
  }
  if (Sized) {
    std::string Fix = "call malloc(sizeof(" + ToT->WideSpelling + ")) where the type is known";
    if (!N.empty())
      Fix = "declare " + Who + " CP_ALLOCATOR, or " + Fix;
    S.report(Diag::ForeignObject, E->getExprLoc(),
             Who + " is handed the size of " + quoted(ToT->WideSpelling) +
                 " and its result becomes a compact pointer to one: it "
                 "allocates the object outside the compact heap, where a "
                 "compact field cannot hold it and the switch cannot move "
                 "it (the runtime stops there); " + Fix,
             {tokRange(CE->getSourceRange())});
    return;
  }
  if (isa<ExplicitCastExpr>(E) || returnsOnly(S, FD, ToT))
    return;
  S.report(Diag::ForeignObject, E->getExprLoc(),
           "the 'void *' returned by " + Who +
               " becomes a compact pointer to " + quoted(ToT->WideSpelling) +
               ", and the plugin cannot see that it is an object of the "
               "compact arena: if " +
               Who +
               " allocates it, it is not (allocate it with "
               "malloc(sizeof(" +
               ToT->WideSpelling +
               ")) where the type is known); cast the result if it is an "
               "arena object stored as 'void *'",
           {tokRange(CE->getSourceRange())});
}

} // namespace compactptr
