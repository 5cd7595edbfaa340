//===- Boxing.cpp - variables of compact type placed in the compact heap -===//
//
// In:  the Model (compact types, function classes) and the AST.
// Out: Model::Boxed: the variables of a compact struct type that live in
//      the compact heap behind their own name ("boxed"); their
//      declarations rewritten, the getters and initializer functions of
//      the ones with static storage.  The printers print every use of a
//      boxed variable V as the heap object (`(*cp__box_V)`), so `V.f`,
//      `&V`, `V = v` and `sizeof V` are what they are for any heap object.
//
// Why: a compact pointer holds the address of a heap object (in compact
//      mode a handle is stored for it), so `&V` of a value in wide layout
//      cannot be one.  C programs take such addresses all the time: a
//      global list or cache struct passed to functions by address, a
//      sentinel node (`#define NIL (&sentinel)`) stored into the nodes'
//      fields, a local header node whose address enters the heap.
//
// Which variables: a variable of compact struct type, or an array of them
//      with constant dimensions (not a parameter, not thread-local, not a
//      static local), whose address is used as a compact pointer in this
//      translation unit -- `&V`, `&V.member`, `&V[i]`, V or a member array
//      of V decayed -- or as a byte address (`void *`, `char *`) that a
//      call may turn back into a compact pointer (a thread's argument, a
//      visitor's context, also one of another file handed a callback of
//      this one: comesBackCompact) or that a function of the
//      program copies to or from a compact object (copiedAsObject: it is
//      handed a compact object as bytes, or a compact struct's size, too);
//      and every
//      global of compact struct type with external linkage, so that every
//      translation unit agrees on where it lives without seeing the
//      others' uses.
//
// How:
//   - an array is one heap array (cp_alloc_array) behind a pointer to the
//     array, `T (*cp__box_V)[N]`: `(*cp__box_V)[i]` indexes it, and in
//     compact layout it is read through `struct cp__c_T (*)[N]`, so sizeof
//     of the array and of an element agree in each layout;
//   - an automatic local: `T *cp__box_V __attribute__((cleanup(...))) =
//     <allocated, initialized>`: allocated where it is declared, freed when
//     its block ends; in a checked function its pointer is a frame root;
//   - static storage: `T *cp__box_V` (a root) replaces the declarator; a
//     getter `cp__box_get_V()` returns it, allocating and initializing the
//     object at its first use (cp__box_init_V, at the end of the file
//     that defines V: the pointer is set before the initializer is stored,
//     so an initializer may take V's own address or another boxed
//     variable's).  External linkage keeps both symbols external, so every
//     translation unit uses the same object.  A constructor calls the
//     getter before main, so that threads never race to the first use.
// A file-scope pointer whose initializer names a boxed variable (`static
// struct rb *root = NIL;`) gets it in a constructor of the file instead.
// Refused (errors at the user's text): a boxed variable's address in any
// other static initializer (run-time memory has no constant address), a
// declaration the rewrite cannot place (produced by a macro together with other
// declarators), an initializer of a boxed local that may reach a safepoint (in
// a checked function), the byte address of a variable that stays wide (a
// by-value parameter, a static or thread-local variable, a variable-length
// array: whyStaysWide) where it comes back as a compact pointer.
//
// Tests: test/rewrite/boxed-array.c, test/rewrite/root-descriptors.c,
//        test/threads/boxed-global-first-use.c,
//        test/rewrite/pointer-init-at-run-time.c,
//        test/rewrite/boxed-byte-copy.c, boxed-byte-address-kept.c,
//        test/idioms/forward-declared.test,
//        test/diagnostics/store-address-of-local.c, boxed-address.c,
//        static-local-comes-back.c, wide-variable-comes-back.c,
//        test/idioms/globals.test,
//        test/idioms/global-arrays.test.
//
//===----------------------------------------------------------------------===//
#include "Printer.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include <functional>
#include <optional>

using namespace clang;

namespace compactptr {

const BoxedVar *boxedVar(const Model &M, const Expr *E) {
  if (M.Boxed.empty())
    return nullptr;
  const auto *DR = dyn_cast<DeclRefExpr>(E->IgnoreParens());
  const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
  if (!VD)
    return nullptr;
  auto It = M.Boxed.find(VD->getCanonicalDecl());
  return It == M.Boxed.end() ? nullptr : &It->second;
}

std::string boxUseText(const BoxedVar &B) {
  return B.Static ? "(*" + B.Getter + "())" : "(*" + B.Ptr + ")";
}

std::string whyStaysWide(const VarDecl *VD) {
  if (isa<ParmVarDecl>(VD))
    return "a parameter passed by value stays in wide layout; copy it into a "
           "local, which then lives in the compact heap";
  if (VD->getType()->isVariablyModifiedType())
    return "a variable-length array of compact structs stays in wide layout; "
           "allocate it with malloc(n * sizeof(...))";
  if (VD->getTLSKind() != VarDecl::TLS_None)
    return "a thread-local variable stays in wide layout; allocate it with "
           "malloc";
  if (VD->isStaticLocal())
    return "a static local stays in wide layout; declare it at file scope, "
           "where it lives in the compact heap";
  return "";
}

namespace {

/// The variable a member chain is rooted in: V for `V`, `V.a.b`,
/// `V.arr[i]`; else null.
const VarDecl *rootVar(const Expr *E) {
  for (;;) {
    E = E->IgnoreParens();
    if (const auto *ME = dyn_cast<MemberExpr>(E)) {
      if (ME->isArrow())
        return nullptr;
      E = ME->getBase();
      continue;
    }
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
      const auto *IC = dyn_cast<ImplicitCastExpr>(AS->getBase()->IgnoreParens());
      if (!IC || IC->getCastKind() != CK_ArrayToPointerDecay)
        return nullptr;
      E = IC->getSubExpr();
      continue;
    }
    const auto *DR = dyn_cast<DeclRefExpr>(E);
    return DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
  }
}

/// The dimensions of an array V can live in the heap with: constant
/// dimensions, the outermost one possibly unknown in a declaration
/// (`extern struct bucket table[];`).  False for a variable-length array.
bool boxedDims(const VarDecl *VD, std::string &Dims, uint64_t &Count) {
  QualType T = VD->getType().getCanonicalType();
  const auto *IA = dyn_cast<IncompleteArrayType>(T.getTypePtr());
  if (IA && !VD->isThisDeclarationADefinition())
    T = IA->getElementType().getCanonicalType();
  ArrayShape A = stripArrays(T);
  if (A.Variable)
    return false;
  Dims = (IA ? "[]" : "") + A.Dims;
  Count = IA ? 0 : A.Count;
  return true;
}

} // namespace

bool addressOfWideVariable(const Expr *E) {
  E = E->IgnoreParens();
  const Expr *Sub = nullptr;
  if (const auto *U = dyn_cast<UnaryOperator>(E);
      U && U->getOpcode() == UO_AddrOf)
    Sub = U->getSubExpr();
  else if (const auto *C = dyn_cast<ImplicitCastExpr>(E);
           C && C->getCastKind() == CK_ArrayToPointerDecay)
    Sub = C->getSubExpr();
  const VarDecl *VD = Sub ? rootVar(Sub) : nullptr;
  return VD && !whyStaysWide(VD).empty();
}

namespace {

/// V can live in the heap behind its name: one object of compact struct
/// type, or an array of them with constant dimensions.
bool boxable(Session &S, const VarDecl *VD) {
  std::string Dims;
  uint64_t Count;
  return whyStaysWide(VD).empty() && VD->getIdentifier() &&
         S.M.recordOf(stripArrays(VD->getType()).Element) &&
         boxedDims(VD, Dims, Count) && !S.isIgnoredLoc(VD->getLocation());
}

/// Finds the variables whose address is used as a compact pointer.
class Finder : public RecursiveASTVisitor<Finder> {
public:
  explicit Finder(Session &S) : S(S), M(S.M) {}
  std::set<const VarDecl *> Found;

  bool VisitUnaryOperator(UnaryOperator *E) {
    if (E->getOpcode() == UO_AddrOf && M.elementOf(E->getSubExpr()->getType()))
      consider(E, E->getSubExpr());
    return true;
  }
  bool VisitImplicitCastExpr(ImplicitCastExpr *E) {
    if (E->getCastKind() == CK_ArrayToPointerDecay &&
        M.recordOf(E->getType()->getPointeeType()) && !isSubscriptBase(E))
      consider(E, E->getSubExpr());
    return true;
  }

private:
  Session &S;
  const Model &M;

  const Expr *parentExpr(const Expr *E) {
    return parentSkippingParens(S.Ctx, E);
  }
  bool isSubscriptBase(const Expr *Decay) {
    const auto *AS = dyn_cast_or_null<ArraySubscriptExpr>(parentExpr(Decay));
    return AS && AS->getBase()->IgnoreParens() == Decay;
  }
  /// The variables (parameters, locals keeping a byte address) the
  /// current question has looked into: each once, so a question is a
  /// search of where the address flows, linear in the variables (without
  /// it, `b = a; c = b; a = c;` repeated made it cubic).
  std::set<const VarDecl *> Searched;

  void consider(const Expr *Addr, const Expr *Sub) {
    Searched.clear();
    const VarDecl *VD = rootVar(Sub);
    // A variable that stays wide is refused where its address becomes a
    // compact pointer directly (Safety.cpp), and here where it comes back.
    std::string Wide = VD && S.M.recordOf(stripArrays(VD->getType()).Element) &&
                               !S.isIgnoredLoc(Addr->getExprLoc())
                           ? whyStaysWide(VD)
                           : std::string();
    bool Boxable = VD && boxable(S, VD);
    if (Wide.empty() && !Boxable)
      return;
    // A byte address is the value's bytes, in the layout they are in
    // (memset, fwrite, a hash of the bytes).  Unless it comes back as a
    // compact pointer, and is then read in the compact layout: a thread's
    // argument (`pthread_create(&t, 0, work, &arg)`, `work` reading it as
    // a `struct targ *`), a visitor's context.
    const auto *CE = dyn_cast_or_null<CastExpr>(parentExpr(Addr));
    bool ByteAddress = CE && CE->getType()->isPointerType() && !M.pointeeOf(CE->getType());
    bool ComesBack = ByteAddress && (comesBackCompact(CE, 0) || copiedAsObject(CE) ||
                                     keptAndComesBack(CE, 0));
    if (!Wide.empty() && ComesBack)
      S.report(Diag::NonHeapAddress, Addr->getExprLoc(),
               "the address of " + variableKind(VD).str() + " " +
                   quoted(VD->getName()) +
                   " may be turned back into a compact pointer by the code it "
                   "is handed to, but " +
                   Wide,
               {CharSourceRange::getTokenRange(Addr->getSourceRange())});
    if (Boxable && (!ByteAddress || ComesBack))
      Found.insert(VD->getCanonicalDecl());
  }

  /// The byte address E is handed to a function of the program together
  /// with a compact object as bytes or the size of a compact struct or of
  /// a heap object (`copy_bytes(a, &tmp, sizeof(struct item))`, a
  /// vector's push; not `hash(&key, sizeof key)`, all wide): the
  /// callee copies between them, so the value must be in the layout the
  /// object and the size are in -- a heap object.  libc's own copies
  /// are memcpy-value's (Safety.cpp).
  bool copiedAsObject(const Expr *E) {
    const CallExpr *Call = callTakingPointer(S.Ctx, E);
    const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
    if (!Call || (FD && S.SM.isInSystemHeader(S.SM.getExpansionLoc(FD->getLocation()))))
      return false;
    for (const Expr *A : Call->arguments()) {
      if (A->IgnoreParens() == E->IgnoreParens())
        continue;
      if (A->getType()->isPointerType() && !M.pointeeOf(A->getType()) &&
          M.pointeeOf(A->IgnoreParenCasts()->getType()))
        return true;
      // A type's size, or a heap object's, is the layout's; a value's own
      // (`sizeof tmp`) is the wide one its bytes are in.
      if (layoutDependentTrait(M, A))
        return true;
    }
    return false;
  }

  /// The byte address E is an argument of a call that may turn it back
  /// into a compact pointer: a function of this translation unit that
  /// converts the parameter to one or hands it on to such a function, a
  /// call through a function pointer (anything), a thread's start routine
  /// or a libc callback (qsort's comparator) that does.
  bool comesBackCompact(const Expr *E, unsigned Depth) {
    const CallExpr *Call = callTakingPointer(S.Ctx, E);
    if (!Call || Depth > 16)
      return false;
    unsigned I = argumentIndex(Call, E);
    if (I == Call->getNumArgs())
      return false; // the callee itself
    const FunctionDecl *FD = Call->getDirectCallee();
    if (!FD)
      return true;
    int Fn = threadStartArgument(FD);
    if (Fn < 0)
      Fn = callbackArgument(FD);
    if (Fn >= 0) {
      const FunctionDecl *Cb = functionNamed(Call->getNumArgs() > unsigned(Fn)
                                                 ? Call->getArg(Fn)
                                                 : nullptr);
      if (!Cb)
        return true;
      for (const ParmVarDecl *PV : Cb->parameters())
        if (paramComesBack(Cb, PV, Depth))
          return true;
      return false;
    }
    const FunctionDecl *Def = FD->getDefinition();
    if (!Def || !Def->hasBody())
      return !isLibraryFunction(FD) && callsBack(Call, Depth);
    if (I >= Def->getNumParams())
      return false;
    return paramComesBack(Def, Def->getParamDecl(I), Depth);
  }

  /// A call of a function of another file (its body unseen) that is also
  /// handed a function of this file turning a byte parameter back into a
  /// compact pointer: a visitor (`visit_all(list, keep, &ctx)`) that
  /// hands it the context.  One that is handed no such function is taken
  /// for a byte helper (`write_all(fd, &rec, sizeof rec)`, a hash): the
  /// value stays wide, its bytes and size the native ones.
  bool callsBack(const CallExpr *Call, unsigned Depth) {
    for (const Expr *A : Call->arguments())
      if (const FunctionDecl *Cb = functionNamed(A))
        for (const ParmVarDecl *PV : Cb->parameters())
          if (PV->getType()->isPointerType() && !M.pointeeOf(PV->getType()) &&
              paramComesBack(Cb, PV, Depth))
            return true;
    return false;
  }

  /// FD is a builtin, the runtime's, or declared in a system header.
  bool isLibraryFunction(const FunctionDecl *FD) {
    return FD->getBuiltinID() || isRuntimeFunction(FD) ||
           llvm::any_of(FD->redecls(), [&](const FunctionDecl *R) {
             return S.SM.isInSystemHeader(S.SM.getExpansionLoc(R->getLocation()));
           });
  }

  /// The function a callback argument names (`work`, `&work`), with its
  /// body, or null.
  static const FunctionDecl *functionNamed(const Expr *E) {
    if (!E)
      return nullptr;
    E = E->IgnoreParenCasts();
    if (const auto *UO = dyn_cast<UnaryOperator>(E); UO && UO->getOpcode() == UO_AddrOf)
      E = UO->getSubExpr()->IgnoreParens();
    const auto *DR = dyn_cast<DeclRefExpr>(E);
    const auto *FD = DR ? dyn_cast<FunctionDecl>(DR->getDecl()) : nullptr;
    const FunctionDecl *Def = FD ? FD->getDefinition() : nullptr;
    return Def && Def->hasBody() ? Def : nullptr;
  }

  /// The byte address E, through conversions to other pointer types, is
  /// kept in a local pointer variable (`void *arg = &o;`, `arg = &o;`, as
  /// pthread_cleanup_push's expansion keeps its argument) whose value may
  /// come back as a compact pointer (paramComesBack, on that variable).
  bool keptAndComesBack(const Expr *E, unsigned Depth) {
    const Expr *P;
    if (Depth > 16 || !upThroughPointerCasts(S.Ctx, E, P))
      return false;
    const VarDecl *V = nullptr;
    if (const auto *BO = dyn_cast_or_null<BinaryOperator>(P);
        BO && BO->getOpcode() == BO_Assign && BO->getRHS()->IgnoreParens() == E) {
      const auto *DR = dyn_cast<DeclRefExpr>(BO->getLHS()->IgnoreParens());
      V = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
    } else if (!P) {
      // An initializer: the declaration is the parent of E's parentheses
      // (`void *__cancel_arg = (arg);`).
      const Expr *Top = E;
      (void)parentSkippingParens(S.Ctx, E, &Top);
      for (const DynTypedNode &N : S.Ctx.getParents(*Top))
        if (const auto *VD = N.get<VarDecl>(); VD && VD->getInit() &&
                                              VD->getInit()->IgnoreParens() == E)
          V = VD;
    }
    if (!V || !V->hasLocalStorage() || !V->getType()->isPointerType())
      return false;
    const auto *Def = dyn_cast<FunctionDecl>(V->getDeclContext());
    return Def && Def->hasBody() && paramComesBack(Def, V, Depth + 1);
  }

  /// Def converts variable PV (a parameter, or a local keeping a byte
  /// address) to a compact pointer, hands it to a call that may
  /// (comesBackCompact), or keeps it in a local that does.
  bool paramComesBack(const FunctionDecl *Def, const VarDecl *PV, unsigned Depth) {
    if (!Searched.insert(PV).second)
      return false; // looked into already: it said no, or it is on the way
    return anyReferenceTo(Def->getBody(), PV, [&](const DeclRefExpr *DR) {
      const Expr *Use = DR;
      for (const Expr *Up = parentExpr(Use); const auto *C = dyn_cast_or_null<CastExpr>(Up);
           Up = parentExpr(Use)) {
        if (M.pointeeOf(C->getType()))
          return true;
        Use = C;
      }
      return comesBackCompact(Use, Depth + 1) || keptAndComesBack(DR, Depth + 1);
    });
  }
};

/// Function bodies that declare a boxed local (they allocate).
class LocalUses : public RecursiveASTVisitor<LocalUses> {
public:
  explicit LocalUses(const Model &M) : M(M) {}
  bool Declares = false;
  bool VisitVarDecl(VarDecl *VD) {
    if (VD->hasLocalStorage() && M.Boxed.count(VD->getCanonicalDecl()))
      Declares = true;
    return true;
  }

private:
  const Model &M;
};

/// Static initializers that take a boxed variable's address: refused.
class StaticInits : public RecursiveASTVisitor<StaticInits> {
public:
  StaticInits(Session &S, const VarDecl *Owner) : S(S), Owner(Owner) {}
  bool VisitDeclRefExpr(DeclRefExpr *DR) {
    const BoxedVar *B = boxedVar(S.M, DR);
    if (!B)
      return true;
    S.report(Diag::BoxedAddress, DR->getExprLoc(),
             "'" + DR->getDecl()->getName().str() +
                 "' lives in the compact heap (its address is used as a "
                 "compact pointer), so the static initializer of '" +
                 Owner->getName().str() +
                 "' cannot refer to it; assign it at run time",
             {CharSourceRange::getTokenRange(DR->getSourceRange())});
    return true;
  }

private:
  Session &S;
  const VarDecl *Owner;
};

} // namespace

void runBoxing(Session &S) {
  Model &M = S.M;
  Finder F(S);
  F.TraverseDecl(S.Ctx.getTranslationUnitDecl());
  std::set<const VarDecl *> Vars = F.Found;
  // Globals with external linkage: boxed whatever this TU does with them.
  for (const Decl *D : S.Ctx.getTranslationUnitDecl()->decls())
    if (const auto *VD = dyn_cast<VarDecl>(D))
      if (VD->hasExternalStorage() || VD->isExternallyVisible())
        if (boxable(S, VD))
          Vars.insert(VD->getCanonicalDecl());
  for (const VarDecl *VD : Vars) {
    BoxedVar B;
    B.T = M.recordOf(stripArrays(VD->getType()).Element);
    // The dimensions of a declaration of V that has them (an earlier
    // `extern T V[];` has none).
    const VarDecl *Sized = VD;
    for (const VarDecl *R : VD->redecls())
      if (!isa<IncompleteArrayType>(R->getType().getCanonicalType().getTypePtr()))
        Sized = R;
    boxedDims(Sized, B.Dims, B.Count);
    B.Static = VD->hasGlobalStorage();
    std::string N = VD->getName().str();
    B.Ptr = "cp__box_" + N;
    B.Getter = "cp__box_get_" + N;
    B.Init = "cp__box_init_" + N;
    M.Boxed[VD] = B;
  }
  if (M.Boxed.empty())
    return;
  for (auto &[FD, Cls] : M.Functions) {
    const FunctionDecl *Def = FD->getDefinition();
    if (!Def)
      continue;
    LocalUses U(M);
    U.TraverseStmt(Def->getBody());
    if (U.Declares)
      Cls |= FC_LayoutDependent;
  }
}

// ---- rewriting --------------------------------------------------------------

namespace {

/// The declarator that replaces V's: the pointer (a root) to the heap
/// object, `*cp__box_V`, or `(*cp__box_V)[8]` for an array.
std::string declaratorText(const BoxedVar &B) {
  return B.Dims.empty() ? "*" + B.Ptr : "(*" + B.Ptr + ")" + B.Dims;
}

/// The allocation of V's heap object: zeroed, in the current mode's layout.
std::string allocText(const BoxedVar &B) {
  if (B.Dims.empty())
    return "cp_alloc(&" + B.T->DescName + ")";
  return "cp_alloc_array(&" + B.T->DescName + ", " + std::to_string(B.Count) + ")";
}

/// Blank lines that keep the line count of Text's replacement.
std::string newlinesOf(StringRef Text) {
  return std::string(Text.count('\n'), '\n');
}

/// Replace V's declarator (the name up to the end of its initializer) by
/// Text; if that range is not in the file (a macro produced the
/// declaration) and V is alone in its declaration, the whole declaration
/// is printed instead: `<storage> T` + Text.  False after an error.
bool replaceDeclarator(Session &S, EditSet &Out, const VarDecl *VD,
                       const std::string &Text) {
  const SourceManager &SM = S.SM;
  CharSourceRange R = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(VD->getLocation(), VD->getEndLoc()), SM, S.LO);
  if (R.isValid() && Out.replace(SM, R, Text + newlinesOf(Lexer::getSourceText(R, SM, S.LO))))
    return true;
  // The whole declaration, if V is its only declarator.
  CharSourceRange All = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(VD->getOuterLocStart(), VD->getEndLoc()), SM, S.LO);
  const Decl *Next = VD->getNextDeclInContext();
  bool Alone = !Next || Next->getBeginLoc() != VD->getBeginLoc();
  if (All.isValid() && Alone) {
    std::string Storage = VD->getStorageClass() == SC_Static   ? "static "
                          : VD->getStorageClass() == SC_Extern ? "extern "
                                                               : "";
    std::string T = Storage + S.typeText(stripArrays(VD->getType()).Element) + " " + Text;
    if (Out.replace(SM, All, T + newlinesOf(Lexer::getSourceText(All, SM, S.LO))))
      return true;
  }
  S.report(Diag::MacroBody, VD->getLocation(),
           "cannot place '" + VD->getName().str() +
               "' in the compact heap: its declaration comes from a macro "
               "together with other declarators; declare it on its own",
           {CharSourceRange::getTokenRange(VD->getSourceRange())});
  return false;
}

/// The initializer of V as a value of V's type, printed by P.
std::string initValue(Printer &P, const VarDecl *VD) {
  const Expr *Init = VD->getInit();
  std::string T = P.text(Init);
  if (isa<InitListExpr>(Init->IgnoreParens()))
    return "(" + P.ty(VD->getType().getUnqualifiedType()) + ")" + T;
  return T;
}

/// Stores V's initializer into the new object `cp__b`, in P's form.
/// Stores the elements of an array's initializer list that are not zero
/// (the heap array is allocated zeroed) into `cp__b`, element by element
/// at their flat index, in P's form.
void storeElements(Printer &P, const BoxedVar &B, const Expr *E, QualType T,
                   uint64_t &Index, std::string &Out) {
  E = E ? E->IgnoreParens() : nullptr;
  const auto *AT = dyn_cast<ConstantArrayType>(T.getCanonicalType().getTypePtr());
  uint64_t Leaves = AT ? stripArrays(T).Count : 1;
  if (!E || isa<ImplicitValueInitExpr>(E)) {
    Index += Leaves;
    return;
  }
  if (AT) {
    const auto *IL = dyn_cast<InitListExpr>(E);
    if (!IL) {
      P.fail(E, "cannot place this array in the compact heap: its "
                "initializer is not a list of its elements");
      return;
    }
    QualType ElemT = AT->getElementType();
    uint64_t N = AT->getSize().getZExtValue();
    for (uint64_t I = 0; I < N; ++I)
      storeElements(P, B, I < IL->getNumInits() ? IL->getInit(I) : IL->getArrayFiller(),
                    ElemT, Index, Out);
    return;
  }
  std::string V = P.text(E);
  if (isa<InitListExpr>(E)) {
    // A list C made by brace elision (`struct s a[2] = {0}` sets a[0]
    // from the bare `0`) has no braces of its own in the text.
    if (StringRef(V).ltrim().starts_with("{"))
      V = "(" + P.ty(T.getUnqualifiedType()) + ")" + V;
    else
      V = "(" + P.ty(T.getUnqualifiedType()) + "){" + V + "}";
  }
  std::string I = std::to_string(Index++);
  if (P.form() == Form::Compact)
    Out += " cp__store_" + B.T->Name + "(&((" + B.T->compactSpelling() +
           " *)(void *)cp__b)[" + I + "], " + V + ");";
  else
    Out += " ((" + P.ty(T.getUnqualifiedType()) + " *)(void *)cp__b)[" + I + "] = " + V + ";";
}

std::string storeInit(Printer &P, const VarDecl *VD, const BoxedVar &B) {
  if (!B.Dims.empty()) {
    std::string Out;
    uint64_t Index = 0;
    storeElements(P, B, VD->getInit(), VD->getType(), Index, Out);
    return "__extension__({" + Out + " (void)0; })";
  }
  std::string V = initValue(P, VD);
  if (P.form() == Form::Compact)
    return "cp__store_" + B.T->Name + "((" + B.T->compactSpelling() +
           " *)(void *)cp__b, " + V + ")";
  // A const member (C lets an initializer set it, no assignment): bytes.
  if (hasConstPart(VD->getType()))
    return "__extension__({ __typeof__(*cp__b) cp__v = " + V +
           "; __builtin_memcpy((void *)cp__b, &cp__v, sizeof cp__v); })";
  return "*cp__b = " + V;
}

} // namespace

bool namesItself(const VarDecl *VD) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const VarDecl *VD;
    bool Found = false;
    bool VisitDeclRefExpr(DeclRefExpr *DR) {
      Found |= DR->getDecl() == VD;
      return !Found;
    }
  } F;
  F.VD = VD;
  F.TraverseStmt(const_cast<Expr *>(VD->getInit()));
  return F.Found;
}

std::string boxLocalText(Session &S, const VarDecl *VD, Printer *C, Printer *W,
                         StringRef First) {
  const BoxedVar &B = S.M.Boxed.find(VD->getCanonicalDecl())->second;
  std::string T = B.pointerType(
      S.typeText(stripArrays(VD->getType().getUnqualifiedType()).Element));
  std::string Alloc = "(" + T + ")" + allocText(B);
  std::string Value = Alloc;
  if (VD->getInit()) {
    std::string Store;
    if (C && W)
      Store = "if (cp_is_compact()) " + storeInit(*C, VD, B) + "; else " +
              storeInit(*W, VD, B) + ";";
    else
      Store = storeInit(C ? *C : *W, VD, B) + ";";
    // An initializer that names the variable itself (`struct jobq q =
    // TAILQ_HEAD_INITIALIZER(q);`, `{ NULL, &q.head }`) reads the pointer
    // to the object it initializes: set it first (it is in scope in its
    // own initializer, as C scopes a declarator).
    std::string Early = namesItself(VD) ? B.Ptr + " = cp__b; " : "";
    Value = "({ " + First.str() + T + " cp__b = " + Alloc + "; " + Early +
            Store + " cp__b; })";
  }
  return declaratorText(B) + " __attribute__((cleanup(cp__box_free))) = " + Value;
}

bool rewriteBoxedLocal(Session &S, EditSet &Out, const VarDecl *VD,
                       const std::string &Text) {
  return replaceDeclarator(S, Out, VD, Text);
}

namespace {
/// Static locals whose initializer names a boxed variable: refused too.
class StaticLocalInits : public RecursiveASTVisitor<StaticLocalInits> {
public:
  explicit StaticLocalInits(Session &S) : S(S) {}
  bool VisitVarDecl(VarDecl *VD) {
    if (VD->isStaticLocal() && VD->getInit() && !S.isIgnoredLoc(VD->getLocation()))
      StaticInits(S, VD).TraverseStmt(VD->getInit());
    return true;
  }

private:
  Session &S;
};
} // namespace

/// The ` = <init>` of a file-scope pointer whose initializer names a boxed
/// variable (a red-black tree's `static struct rb *root = NIL;`, NIL the
/// sentinel's address), as offsets in the main file; that address exists
/// only at run time.  None if VD is no such pointer or its initializer is
/// not in the main file's text (the caller then refuses it).
static std::optional<std::pair<unsigned, unsigned>>
runTimeInit(const Session &S, const VarDecl *VD) {
  const SourceManager &SM = S.SM;
  const Expr *Init = VD->getInit();
  // A compact pointer (a root, which the switch translates; another
  // pointer type would keep the address where the switch does not look),
  // assignable, at file scope; its initializer the address of a boxed
  // variable or of its first element (`&nil`, `NIL`, `states`), the same
  // in every layout: nothing another check would have to see.  (An
  // element past the first, `&states[2]`, lies at a layout's stride.)
  if (!Init || S.M.Boxed.empty() || !S.M.pointeeOf(VD->getType()) ||
      VD->getType().isConstQualified() || !VD->isFileVarDecl() ||
      VD->getTLSKind() != VarDecl::TLS_None ||
      S.M.Boxed.count(VD->getCanonicalDecl()))
    return std::nullopt;
  const Expr *A = Init->IgnoreParenImpCasts();
  if (const auto *C = dyn_cast<CStyleCastExpr>(A);
      C && S.M.pointeeOf(C->getType()))
    A = C->getSubExpr()->IgnoreParenImpCasts();
  if (const auto *UO = dyn_cast<UnaryOperator>(A);
      UO && UO->getOpcode() == UO_AddrOf)
    A = UO->getSubExpr()->IgnoreParens();
  if (!boxedVar(S.M, A))
    return std::nullopt;
  SourceLocation NameEnd = VD->getLocation(),
                 End = SM.getExpansionRange(Init->getEndLoc()).getEnd();
  FileID Main = SM.getMainFileID();
  if (!NameEnd.isFileID() || SM.getFileID(NameEnd) != Main ||
      SM.getFileID(End) != Main)
    return std::nullopt;
  unsigned From =
      SM.getFileOffset(Lexer::getLocForEndOfToken(NameEnd, 0, SM, S.LO));
  unsigned To = SM.getFileOffset(Lexer::getLocForEndOfToken(End, 0, SM, S.LO));
  if (To <= From ||
      !SM.getBufferData(Main).substr(From, To - From).ltrim().starts_with("="))
    return std::nullopt;
  return std::make_pair(From, To);
}

bool initializedAtRunTime(const Session &S, const VarDecl *VD) {
  return runTimeInit(S, VD).has_value();
}

/// Moves such an initializer into a constructor of the file (the getter
/// allocates the variable it names if that one's constructor has not run
/// yet).
static void moveInitToConstructor(Session &S, Printer &Wide,
                                  const VarDecl *VD) {
  const SourceManager &SM = S.SM;
  auto [From, To] = *runTimeInit(S, VD);
  FileID Main = SM.getMainFileID();
  StringRef Old = SM.getBufferData(Main).substr(From, To - From);
  S.Edits.replace(SM,
                  CharSourceRange::getCharRange(SM.getComposedLoc(Main, From),
                                                SM.getComposedLoc(Main, To)),
                  std::string(Old.count('\n'), '\n'));
  std::string N = VD->getName().str();
  S.Edits.insert(
      Main, SM.getBufferData(Main).size(),
      "\n/* compactptr: '" + N +
          "' is initialized with the address of a "
          "variable in the compact heap, before main */\n"
          // Before the program's own constructors (default priority).
          "static __attribute__((constructor(101), used)) void cp__init_" +
          N + "(void) { " + N + " = " + Wide.text(VD->getInit()) + "; }\n");
}

void rewriteBoxedGlobals(Session &S, Printer &Compact, Printer &Wide) {
  const SourceManager &SM = S.SM;
  if (!S.M.Boxed.empty())
    StaticLocalInits(S).TraverseDecl(S.Ctx.getTranslationUnitDecl());
  // The getter is declared after the variable's first file-scope
  // declaration; a function that only a block-scope `extern` lets name it
  // would call the getter before that.
  for (const auto &[V, B] : S.M.Boxed)
    if (B.Static)
      for (const VarDecl *R : V->redecls())
        if (R->isLocalExternDecl() && !S.isIgnoredLoc(R->getLocation()))
          S.report(Diag::BoxedAddress, R->getLocation(),
                   "cannot place '" + R->getName().str() +
                       "' in the compact heap through this block-scope "
                       "extern declaration; declare it at file scope, before "
                       "this function",
                   {CharSourceRange::getTokenRange(R->getSourceRange())});
  std::set<const VarDecl *> GetterDone, InitDone;
  FileID Main = SM.getMainFileID();
  StringRef MainBuf = SM.getBufferData(Main);
  for (const Decl *D : S.Ctx.getTranslationUnitDecl()->decls()) {
    const auto *VD = dyn_cast<VarDecl>(D);
    if (!VD || S.isIgnoredLoc(VD->getLocation()))
      continue;
    auto It = S.M.Boxed.find(VD->getCanonicalDecl());
    if (It == S.M.Boxed.end()) {
      if (initializedAtRunTime(S, VD))
        moveInitToConstructor(S, Wide, VD);
      else if (VD->getInit())
        StaticInits(S, VD).TraverseStmt(const_cast<Expr *>(VD->getInit()));
      continue;
    }
    const BoxedVar &B = It->second;
    bool Internal = !VD->isExternallyVisible();
    std::string T = S.typeText(stripArrays(VD->getType().getUnqualifiedType()).Element);
    std::string Link = Internal ? "static " : "";
    // The declarator: a pointer (a root) instead of the object.
    if (!replaceDeclarator(S, S.Edits, VD, declaratorText(B)))
      continue;
    // The getter, once per translation unit, after the first declaration.
    if (GetterDone.insert(VD->getCanonicalDecl()).second) {
      // After the `;` that ends the declaration (the last declarator of
      // its group: declarators of one group share their start).
      const Decl *Last = VD;
      for (const Decl *N = VD->getNextDeclInContext();
           N && N->getBeginLoc() == VD->getBeginLoc(); N = N->getNextDeclInContext())
        Last = N;
      SourceLocation End = SM.getExpansionRange(Last->getEndLoc()).getEnd();
      SourceLocation After = Lexer::findLocationAfterToken(End, tok::semi, SM, S.LO, false);
      if (After.isInvalid()) {
        S.report(Diag::MacroBody, VD->getLocation(),
                 "cannot place '" + VD->getName().str() +
                     "' in the compact heap: the end of its declaration is "
                     "not in the file");
        continue;
      }
      auto [FID, Off] = SM.getDecomposedLoc(After);
      std::string PT = "__typeof__(" + B.Ptr + ")";
      S.Edits.insert(FID, Off,
                     " " + Link + PT + " " + B.Init + "(void); static __inline__ "
                     "__attribute__((unused)) " + PT + " " + B.Getter +
                         "(void) { " + PT + " cp__p = " + B.Ptr +
                         "; return __builtin_expect(cp__p != 0, 1) ? cp__p : " +
                         B.Init + "(); }");
    }
    // The initializer function, where V is defined: the declaration with
    // the initializer, not a tentative definition before it (`static T V;`
    // then `static T V = {...};`).
    const VarDecl *Def = VD->getDefinition();
    if (!Def)
      Def = VD->getActingDefinition();
    if (VD != Def || !InitDone.insert(VD->getCanonicalDecl()).second)
      continue;
    if (SM.getFileID(SM.getExpansionLoc(VD->getLocation())) != Main) {
      S.report(Diag::BoxedAddress, VD->getLocation(),
               "cannot place '" + VD->getName().str() +
                   "' in the compact heap: it is defined in a header; define "
                   "it in one source file and declare it extern in the header");
      continue;
    }
    // Only addresses of static objects appear in a static initializer, so
    // storing it after the pointer is set is safe even when it takes V's
    // own address.  The boxed variables it names are allocated after V's
    // pointer is set (so two that name each other -- `extern T b; T a =
    // {&b}; T b = {&a};` -- each find the other's object, or the one being
    // initialized, instead of recursing), and before the store, so that
    // nothing allocates between the test of the mode and the store in
    // switchable mode.  cp_alloc never runs the switch (only a safepoint
    // does), so cp__b stays V's object throughout.
    std::string Pre, Store;
    if (const Expr *Init = VD->getInit()) {
      std::set<std::string> Named;
      std::function<void(const Stmt *)> Scan = [&](const Stmt *X) {
        if (!X)
          return;
        if (const auto *E = dyn_cast<Expr>(X))
          if (const BoxedVar *O = boxedVar(S.M, E); O && O != &B)
            if (Named.insert(O->Getter).second)
              Pre += " (void)" + O->Getter + "();";
        for (const Stmt *C : X->children())
          Scan(C);
      };
      Scan(Init);
      unsigned Before = S.Errors;
      if (S.Opts.switchable())
        Store = " if (cp_is_compact()) " + storeInit(Compact, VD, B) + "; else " +
                storeInit(Wide, VD, B) + ";";
      else
        Store = " " + storeInit(S.Opts.compactOnly() ? Compact : Wide, VD, B) + ";";
      if (S.Errors != Before)
        continue;
    }
    PresumedLoc PL = SM.getPresumedLoc(SM.getExpansionLoc(VD->getLocation()), false);
    std::string Where = PL.isValid() ? lineDirective(PL.getLine(), PL.getFilename()) : "";
    S.Edits.insert(
        Main, MainBuf.size(),
        "\n/* compactptr: '" + VD->getName().str() +
            "' lives in the compact heap, allocated at its first use */\n" +
            Where + Link + "__typeof__(" + B.Ptr + ") " + B.Init + "(void) { " +
            B.pointerType(T) + " cp__b = (" + B.pointerType(T) + ")" +
            allocText(B) + "; " + B.Ptr + " = cp__b;" + Pre + Store +
            " return cp__b; }\n" +
            // Before main too, so that threads find it allocated:
            // two first uses at once would each allocate one and
            // keep writing to their own.  The getter stays for
            // uses in other constructors, which may run earlier.
            "static __attribute__((constructor, used)) void cp__box_ctor_" +
            VD->getName().str() + "(void) { (void)" + B.Getter + "(); }\n");
  }
}

} // namespace compactptr
