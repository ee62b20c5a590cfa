#include "common/codegen/llvm_codegen.h"

#include <llvm/Config/llvm-config.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <map>
#include <memory>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

#include "common/codegen/free_symbols.h"
#include "common/codegen/llvm_target_machine.h"
#include "common/ir/expr_functor.h"
#include "common/ir/expr_queries.h"
#include "common/ir/stmt_functor.h"
#include "common/ir/substitute.h"
#include "common/lower/arith.h"
#include "common/util/error.h"

namespace mrd::codegen {

using namespace ir;

namespace {

/// The target's -fast-math attributes as LLVM's flags: what TVM's CodeGenLLVM::SetFastMathFlags
/// gives its IRBuilder, so that every floating-point instruction the builder makes carries them.
llvm::FastMathFlags fast_math_flags(const FastMathFlags& f) {
  llvm::FastMathFlags out;
  if (f.fast) {
    out.setFast();
    return out;
  }
  out.setNoNaNs(f.nnan);
  out.setNoInfs(f.ninf);
  out.setNoSignedZeros(f.nsz);
  out.setAllowReciprocal(f.arcp);
  out.setAllowContract(f.contract);
  out.setAllowReassoc(f.reassoc);
  return out;
}

class LlvmEmitter : public ExprFunctor<llvm::Value*> {
 public:
  LlvmEmitter(const Target& target)
      : resolved_(llvm_target_machine(target)), module_(std::make_unique<llvm::Module>("mrd", ctx_)), b_(ctx_) {
    module_->setTargetTriple(resolved_.triple);
    module_->setDataLayout(resolved_.machine->createDataLayout());
    llvm::MDBuilder md(ctx_);
    very_likely_ = md.createBranchWeights(1 << 20, 1);
    tbaa_root_ = md.createTBAARoot("mrd-tbaa");
    b_.setFastMathFlags(fast_math_flags(target.fast_math));
  }

  std::string run(const PrimFunc& f) {
    std::vector<llvm::Type*> param_types;
    for (const Buffer& p : f.params) param_types.push_back(elem_type(p->dtype)->getPointerTo());
    llvm::Function* compute = llvm::Function::Create(
        llvm::FunctionType::get(i32(), param_types, false), llvm::Function::InternalLinkage, "mrd_compute",
        module_.get());
    compute->setCallingConv(llvm::CallingConv::Fast);
    compute->addFnAttr(llvm::Attribute::NoInline);
    set_target_attrs(compute);
    for (size_t i = 0; i < f.params.size(); ++i) {
      compute->addParamAttr(i, llvm::Attribute::NoAlias);
      compute->addParamAttr(i, llvm::Attribute::getWithAlignment(ctx_, llvm::Align(64)));
    }
    begin_function(compute);
    for (size_t i = 0; i < f.params.size(); ++i) buffers_[f.params[i].get()] = compute->getArg(i);
    if (f.body.defined()) in_region([&] { emit(f.body); });
    b_.CreateRet(b_.getInt32(0));
    end_function();

    // The exported entry: unpacks the argument array and calls the compute function.
    llvm::Type* i8pp = b_.getInt8PtrTy()->getPointerTo();
    llvm::Function* entry = llvm::Function::Create(llvm::FunctionType::get(i32(), {i8pp}, false),
                                                   llvm::Function::ExternalLinkage, "mrd_entry", module_.get());
    set_target_attrs(entry);
    entry->addParamAttr(0, llvm::Attribute::NoAlias);
    entry->addParamAttr(0, llvm::Attribute::NoCapture);
    b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", entry));
    std::vector<llvm::Value*> args;
    for (size_t i = 0; i < f.params.size(); ++i) {
      llvm::Value* slot = b_.CreateInBoundsGEP(b_.getInt8PtrTy(), entry->getArg(0), b_.getInt64(i));
      llvm::Value* data = b_.CreateAlignedLoad(b_.getInt8PtrTy(), slot, llvm::Align(8));
      args.push_back(b_.CreatePointerCast(data, param_types[i]));
    }
    llvm::CallInst* call = b_.CreateCall(compute, args);
    call->setCallingConv(llvm::CallingConv::Fast);
    b_.CreateRet(call);

    std::string err;
    llvm::raw_string_ostream es(err);
    MRD_CHECK(!llvm::verifyModule(*module_, &es), "emit_llvm: invalid module: ", es.str());
    std::string text;
    llvm::raw_string_ostream os(text);
    module_->print(os, nullptr);
    return os.str();
  }

 private:
  // --- common subexpressions ----------------------------------------------------------
  // Each pure expression (no memory read, no branch) is emitted once per region: a value
  // from an enclosing region dominates the inner ones, and a region's values are dropped when
  // it ends (a loop body, a branch, a let's body). What TVM's CommonSubexprElimTIR shares
  // arrives bound by lets (common_subexpr_elim), emitted where the lets are; this catches
  // what that pass leaves, and keeps the module LLVM must optimize small.
  struct CseEntry {
    Expr expr;
    llvm::Value* value;
  };
  using CseScope = std::unordered_map<size_t, std::vector<CseEntry>>;

  /// No memory read and no branch anywhere inside (memoized by node, like hash_).
  bool pure(const Expr& e) {
    auto it = pure_.find(e.get());
    if (it != pure_.end()) return it->second;
    bool p = true;
    switch (e->kind) {
      case ExprKind::BufferLoad:
      case ExprKind::Select:
      case ExprKind::TensorRead:
      case ExprKind::Reduce:
        p = false;
        break;
      default:
        if (const CallNode* c = e.as<CallNode>(); c && c->op == CallOp::IfThenElse) p = false;
        ir::for_each_operand(e, [&](const Expr& c) { p = p && pure(c); });
    }
    pure_[e.get()] = p;
    return p;
  }

  bool worth_sharing(const Expr& e) {
    switch (e->kind) {
      case ExprKind::IntImm:
      case ExprKind::FloatImm:
      case ExprKind::Var:
        return false;
      default:
        return pure(e);
    }
  }

  /// The value of e, shared with an identical expression emitted earlier in scope.
  llvm::Value* visit(const Expr& e) {
    if (cse_.empty() || !worth_sharing(e)) return ExprFunctor::visit(e);
    size_t h = hash_(e);
    for (auto scope = cse_.rbegin(); scope != cse_.rend(); ++scope) {
      auto it = scope->find(h);
      if (it == scope->end()) continue;
      for (const CseEntry& c : it->second) {
        if (lower::structural_equal(c.expr, e)) return c.value;
      }
    }
    llvm::Value* v = ExprFunctor::visit(e);
    cse_.back()[h].push_back({e, v});
    return v;
  }

  /// Runs fn in a region of its own for common subexpressions.
  template <typename Fn>
  void in_region(Fn&& fn) {
    cse_.emplace_back();
    fn();
    cse_.pop_back();
  }

  // --- types and functions ------------------------------------------------------------
  llvm::Type* i32() { return b_.getInt32Ty(); }

  llvm::Type* elem_type(DType t) {
    switch (t) {
      case DType::Bool: return b_.getInt1Ty();
      case DType::Int8:
      case DType::UInt8: return b_.getInt8Ty();
      case DType::Int16:
      case DType::UInt16: return b_.getInt16Ty();
      case DType::Int32:
      case DType::UInt32: return b_.getInt32Ty();
      case DType::Int64: return b_.getInt64Ty();
      case DType::Float32: return b_.getFloatTy();
      case DType::Float64: return b_.getDoubleTy();
    }
    return nullptr;
  }
  /// Bools are i1 in registers and i8 in memory.
  llvm::Type* memory_type(DType t) { return t == DType::Bool ? b_.getInt8Ty() : elem_type(t); }
  llvm::Type* value_type(DType t, int lanes) {
    llvm::Type* e = elem_type(t);
    return lanes > 1 ? llvm::FixedVectorType::get(e, lanes) : e;
  }

  void set_target_attrs(llvm::Function* fn) {
    fn->addFnAttr("target-cpu", resolved_.cpu);
    if (!resolved_.features.empty()) fn->addFnAttr("target-features", resolved_.features);
  }

  /// Per-function state: the entry block (for allocas) and the variables in scope.
  struct FunctionState {
    llvm::Function* fn = nullptr;
    llvm::BasicBlock* entry = nullptr;
    llvm::BasicBlock* body = nullptr;
    llvm::Value* error_slot = nullptr;  ///< i32* set to -1 when a heap allocation fails
  };

  void begin_function(llvm::Function* fn) {
    fn_ = FunctionState{};
    fn_.fn = fn;
    fn_.entry = llvm::BasicBlock::Create(ctx_, "entry", fn);
    fn_.body = llvm::BasicBlock::Create(ctx_, "body", fn);
    b_.SetInsertPoint(fn_.body);
  }
  void end_function() {
    llvm::IRBuilderBase::InsertPointGuard guard(b_);
    b_.SetInsertPoint(fn_.entry);
    b_.CreateBr(fn_.body);
  }
  llvm::AllocaInst* entry_alloca(llvm::Type* t, llvm::Value* count, unsigned align) {
    llvm::IRBuilder<> eb(fn_.entry, fn_.entry->begin());
    llvm::AllocaInst* a = eb.CreateAlloca(t, count);
    a->setAlignment(llvm::Align(align));
    return a;
  }

  llvm::Function* intrinsic(llvm::Intrinsic::ID id, llvm::Type* t) {
    return llvm::Intrinsic::getDeclaration(module_.get(), id, {t});
  }
  llvm::FunctionCallee runtime(const char* name, llvm::FunctionType* type) {
    return module_->getOrInsertFunction(name, type);
  }

  // --- statements ---------------------------------------------------------------------
  void emit(const Stmt& s) {
    switch (s->kind) {
      case StmtKind::For: return emit_for(s.as<ForNode>());
      case StmtKind::Allocate: return emit_allocate(s.as<AllocateNode>());
      case StmtKind::Store: return emit_store(s.as<StoreNode>());
      case StmtKind::IfThenElse: return emit_if(s.as<IfThenElseNode>());
      case StmtKind::Seq:
        for (const Stmt& x : s.as<SeqNode>()->stmts) emit(x);
        return;
      case StmtKind::Let: {
        const LetNode* op = s.as<LetNode>();
        const VarNode* v = op->var.as<VarNode>();
        vars_[v] = visit(op->value);
        // What the variable holds stays known, as TVM's codegen binds it in its analyzer:
        // its value (for the alignment of an access).
        let_values_[v] = ir::substitute(op->value, let_values_);
        in_region([&] { emit(op->body); });
        vars_.erase(v);
        let_values_.erase(v);
        return;
      }
    }
  }

  /// for (v = begin; v < end; ++v) body(v), as TVM's CreateSerialFor.
  void emit_loop(const VarNode* var, llvm::Value* begin, llvm::Value* end, const std::function<void()>& body) {
    llvm::BasicBlock* pre = b_.GetInsertBlock();
    llvm::BasicBlock* head = llvm::BasicBlock::Create(ctx_, "for_begin", fn_.fn);
    llvm::BasicBlock* loop = llvm::BasicBlock::Create(ctx_, "for_body", fn_.fn);
    llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "for_end", fn_.fn);
    b_.CreateBr(head);
    b_.SetInsertPoint(head);
    llvm::PHINode* phi = b_.CreatePHI(begin->getType(), 2);
    phi->addIncoming(begin, pre);
    // TVM weighs every loop test 2^20 : 1 for staying in the loop: block frequencies, and so
    // where the register allocator spills, follow from it (a conv2d state's inner loop spilled
    // its accumulators without it, at 1.45x TVM's cost).
    b_.CreateCondBr(b_.CreateICmpSLT(phi, end), loop, done, very_likely_);
    b_.SetInsertPoint(loop);
    vars_[var] = phi;
    in_region(body);
    vars_.erase(var);
    llvm::Value* next = b_.CreateNSWAdd(phi, llvm::ConstantInt::get(phi->getType(), 1));
    phi->addIncoming(next, b_.GetInsertBlock());
    b_.CreateBr(head);
    b_.SetInsertPoint(done);
  }

  void emit_for(const ForNode* op) {
    const VarNode* v = op->var.as<VarNode>();
    if (op->for_kind == ForKind::Parallel) {
      emit_parallel(op);
    } else {
      llvm::Value* begin = visit(op->min);
      llvm::Value* end = b_.CreateNSWAdd(begin, visit(op->extent));
      emit_loop(v, begin, end, [&] { emit(op->body); });
    }
  }

  /// The body becomes a closure run by every thread of an OpenMP team; thread t of n takes
  /// iterations [t * step, min((t + 1) * step, extent)), step = ceil(extent / n).
  void emit_parallel(const ForNode* op) {
    FreeSymbols free = free_symbols(op->body, op->var.as<VarNode>());
    std::vector<llvm::Type*> fields = {b_.getInt32Ty()->getPointerTo()};  // the error slot
    std::vector<llvm::Value*> values;
    llvm::Value* error_slot = fn_.error_slot;
    if (!error_slot) {
      error_slot = entry_alloca(b_.getInt32Ty(), nullptr, 4);
      llvm::IRBuilder<> eb(fn_.entry);
      eb.CreateStore(eb.getInt32(0), error_slot);
      fn_.error_slot = error_slot;
    }
    values.push_back(error_slot);
    for (const VarNode* v : free.vars) {
      MRD_CHECK(vars_.count(v), "emit_llvm: unbound variable ", v->name);
      fields.push_back(vars_[v]->getType());
      values.push_back(vars_[v]);
    }
    for (const BufferNode* buf : free.buffers) {
      MRD_CHECK(buffers_.count(buf), "emit_llvm: buffer ", buf->name, " used outside its scope");
      fields.push_back(buffers_[buf]->getType());
      values.push_back(buffers_[buf]);
    }
    llvm::StructType* closure_type = llvm::StructType::create(ctx_, fields, "mrd_closure");
    llvm::Value* closure = entry_alloca(closure_type, nullptr, 8);
    for (size_t i = 0; i < values.size(); ++i) {
      b_.CreateStore(values[i], b_.CreateStructGEP(closure_type, closure, i));
    }
    llvm::Type* i8p = b_.getInt8PtrTy();
    llvm::Function* body_fn = llvm::Function::Create(llvm::FunctionType::get(b_.getVoidTy(), {i8p}, false),
                                                     llvm::Function::PrivateLinkage, "mrd_parallel_body",
                                                     module_.get());
    set_target_attrs(body_fn);
    body_fn->addFnAttr(llvm::Attribute::NoInline);  // a separate function, as TVM's lambda
    {
      // Emit the closure with its own function state and scope.
      FunctionState saved_fn = fn_;
      auto saved_vars = vars_;
      auto saved_buffers = buffers_;
      auto saved_cse = std::move(cse_);
      cse_.clear();
      cse_.emplace_back();
      llvm::IRBuilderBase::InsertPointGuard guard(b_);
      begin_function(body_fn);
      llvm::Value* data = b_.CreatePointerCast(body_fn->getArg(0), closure_type->getPointerTo());
      auto field = [&](size_t i) {
        return b_.CreateLoad(fields[i], b_.CreateStructGEP(closure_type, data, i));
      };
      fn_.error_slot = field(0);
      vars_.clear();
      buffers_.clear();
      size_t k = 1;
      for (const VarNode* v : free.vars) vars_[v] = field(k++);
      for (const BufferNode* buf : free.buffers) buffers_[buf] = field(k++);
      // Loop bounds: the extent and min are loop-invariant expressions of the free variables.
      llvm::Value* ext_in = visit(op->extent);
      llvm::Value* min_in = visit(op->min);
      llvm::FunctionType* int_fn = llvm::FunctionType::get(b_.getInt32Ty(), false);
      llvm::Value* tid = b_.CreateCall(runtime("omp_get_thread_num", int_fn));
      llvm::Value* nthreads = b_.CreateCall(runtime("omp_get_num_threads", int_fn));
      llvm::Type* it = ext_in->getType();
      tid = b_.CreateSExtOrTrunc(tid, it);
      nthreads = b_.CreateSExtOrTrunc(nthreads, it);
      llvm::Value* one = llvm::ConstantInt::get(it, 1);
      llvm::Value* step = b_.CreateSDiv(b_.CreateNSWSub(b_.CreateNSWAdd(ext_in, nthreads), one), nthreads);
      auto clamp = [&](llvm::Value* x) { return b_.CreateSelect(b_.CreateICmpSLT(x, ext_in), x, ext_in); };
      llvm::Value* begin = clamp(b_.CreateNSWMul(step, tid));
      llvm::Value* end = clamp(b_.CreateNSWMul(step, b_.CreateNSWAdd(tid, one)));
      const VarNode* v = op->var.as<VarNode>();
      Var offset_var("mrd_parallel_index", op->var->dtype);
      emit_loop(offset_var.as<VarNode>(), begin, end, [&] {
        vars_[v] = b_.CreateNSWAdd(vars_[offset_var.as<VarNode>()], min_in);
        emit(op->body);
        vars_.erase(v);
      });
      b_.CreateRetVoid();
      end_function();
      fn_ = saved_fn;
      vars_ = std::move(saved_vars);
      buffers_ = std::move(saved_buffers);
      cse_ = std::move(saved_cse);
    }
    // As TVMBackendParallelLaunch with one worker, a team of one is a plain call of the
    // closure: GOMP_parallel would still set up a team, about a microsecond per launch.
    llvm::Value* closure_arg = b_.CreatePointerCast(closure, i8p);
    llvm::FunctionType* int_fn = llvm::FunctionType::get(b_.getInt32Ty(), false);
    llvm::Value* alone = b_.CreateICmpSLE(b_.CreateCall(runtime("omp_get_max_threads", int_fn)),
                                          b_.getInt32(1));
    llvm::BasicBlock* call_bb = llvm::BasicBlock::Create(ctx_, "parallel_alone", fn_.fn);
    llvm::BasicBlock* team_bb = llvm::BasicBlock::Create(ctx_, "parallel_team", fn_.fn);
    llvm::BasicBlock* done_bb = llvm::BasicBlock::Create(ctx_, "parallel_done", fn_.fn);
    b_.CreateCondBr(alone, call_bb, team_bb);
    b_.SetInsertPoint(call_bb);
    b_.CreateCall(body_fn, {closure_arg});
    b_.CreateBr(done_bb);
    b_.SetInsertPoint(team_bb);
    llvm::FunctionType* launch_type = llvm::FunctionType::get(
        b_.getVoidTy(), {body_fn->getType(), i8p, b_.getInt32Ty(), b_.getInt32Ty()}, false);
    b_.CreateCall(runtime("GOMP_parallel", launch_type),
                  {body_fn, closure_arg, b_.getInt32(0), b_.getInt32(0)});
    b_.CreateBr(done_bb);
    b_.SetInsertPoint(done_bb);
    // A failed allocation in any thread ends the function with -1.
    llvm::Value* failed = b_.CreateICmpNE(b_.CreateLoad(b_.getInt32Ty(), error_slot), b_.getInt32(0));
    return_if(failed);
  }

  /// Returns -1 from the compute function (or marks the error slot in a closure) when cond.
  void return_if(llvm::Value* cond) {
    llvm::BasicBlock* fail = llvm::BasicBlock::Create(ctx_, "alloc_failed", fn_.fn);
    llvm::BasicBlock* ok = llvm::BasicBlock::Create(ctx_, "alloc_ok", fn_.fn);
    llvm::MDBuilder md(ctx_);
    b_.CreateCondBr(cond, fail, ok, md.createBranchWeights(1, 1 << 20));
    b_.SetInsertPoint(fail);
    if (fn_.fn->getReturnType()->isVoidTy()) {
      b_.CreateStore(b_.getInt32(-1), fn_.error_slot);
      b_.CreateRetVoid();
    } else {
      b_.CreateRet(b_.getInt32(-1));
    }
    b_.SetInsertPoint(ok);
  }

  /// TVM's LowerTVMBuiltin: a global-scope allocation under kMaxStackAllocaBytes is a stack
  /// slot of the function that runs it; every other one comes from the workspace
  /// (TVMBackendAllocWorkspace there, a call LLVM cannot see through) and goes back when its
  /// scope ends. A local-scope accumulator therefore stays memory, as in TVM's build, and is
  /// not split into registers.
  void emit_allocate(const AllocateNode* op) {
    const BufferNode* buf = op->buffer.get();
    int64_t elems = std::max<int64_t>(buf->num_elements(), 1);
    int64_t bytes = elems * dtype_bytes(buf->dtype);
    llvm::Type* t = memory_type(buf->dtype);
    if (buf->scope == MemScope::Global && bytes < kMaxStackAllocaBytes) {
      buffers_[buf] = entry_alloca(t, b_.getInt64(elems), 64);
      emit(op->body);
      buffers_.erase(buf);
      return;
    }
    llvm::Type* i8p = b_.getInt8PtrTy();
    llvm::FunctionType* alloc_type = llvm::FunctionType::get(i8p, {b_.getInt64Ty(), b_.getInt64Ty()}, false);
    llvm::FunctionType* free_type = llvm::FunctionType::get(b_.getVoidTy(), {i8p}, false);
    llvm::Value* raw = b_.CreateCall(alloc_type, workspace_hook(kWorkspaceAllocHook, "aligned_alloc", alloc_type),
                                     {b_.getInt64(64), b_.getInt64((bytes + 63) / 64 * 64)});
    return_if(b_.CreateICmpEQ(raw, llvm::ConstantPointerNull::get(llvm::cast<llvm::PointerType>(i8p))));
    buffers_[buf] = b_.CreatePointerCast(raw, t->getPointerTo());
    emit(op->body);
    buffers_.erase(buf);
    b_.CreateCall(free_type, workspace_hook(kWorkspaceFreeHook, "free", free_type), {raw});
  }

  /// The workspace function behind `hook`: a weak global holding `fallback`, loaded at each
  /// use, so that LLVM cannot tell which function it calls (as with TVM's
  /// __TVMBackendAllocWorkspace pointer) and treats the memory as any other.
  llvm::Value* workspace_hook(const char* hook, const char* fallback, llvm::FunctionType* type) {
    llvm::PointerType* fn_ptr = type->getPointerTo();
    llvm::GlobalVariable* g = module_->getGlobalVariable(hook);
    if (!g) {
      auto* target = llvm::cast<llvm::Constant>(runtime(fallback, type).getCallee());
      g = new llvm::GlobalVariable(*module_, fn_ptr, false, llvm::GlobalValue::WeakAnyLinkage, target, hook);
    }
    return b_.CreateLoad(fn_ptr, g);
  }

  void emit_if(const IfThenElseNode* op) {
    const CallNode* likely = op->cond.as<CallNode>();
    bool is_likely = likely && likely->op == CallOp::Likely;
    llvm::Value* cond = visit(op->cond);
    llvm::BasicBlock* then_bb = llvm::BasicBlock::Create(ctx_, "if_then", fn_.fn);
    llvm::BasicBlock* end_bb = llvm::BasicBlock::Create(ctx_, "if_end", fn_.fn);
    llvm::BasicBlock* else_bb = op->else_case.defined() ? llvm::BasicBlock::Create(ctx_, "if_else", fn_.fn) : end_bb;
    b_.CreateCondBr(cond, then_bb, else_bb, is_likely ? very_likely_ : nullptr);
    b_.SetInsertPoint(then_bb);
    in_region([&] { emit(op->then_case); });
    b_.CreateBr(end_bb);
    if (op->else_case.defined()) {
      b_.SetInsertPoint(else_bb);
      in_region([&] { emit(op->else_case); });
      b_.CreateBr(end_bb);
    }
    b_.SetInsertPoint(end_bb);
  }

  // --- memory -------------------------------------------------------------------------
  llvm::Value* buffer_ptr(const Buffer& buf) {
    auto it = buffers_.find(buf.get());
    MRD_CHECK(it != buffers_.end(), "emit_llvm: buffer ", buf->name, " used outside its scope");
    return it->second;
  }

  /// Alignment in bytes of an access at `index` (elements) of a 64-byte-aligned buffer:
  /// the largest power of two dividing every coefficient and the constant of its linear form.
  unsigned alignment(const Expr& index, DType t, int lanes) {
    unsigned elem = static_cast<unsigned>(dtype_bytes(t));
    lower::LinearForm f = lower::to_linear(let_values_.empty() ? index : ir::substitute(index, let_values_));
    uint64_t g = static_cast<uint64_t>(f.constant < 0 ? -f.constant : f.constant);
    for (const auto& term : f.terms) {
      uint64_t c = static_cast<uint64_t>(term.second < 0 ? -term.second : term.second);
      g = std::gcd(g, c);
    }
    uint64_t align = 64;
    if (g != 0) {
      uint64_t bytes = g * elem;
      align = 1;
      while (align < 64 && bytes % (align * 2) == 0) align *= 2;
    }
    (void)lanes;
    return static_cast<unsigned>(std::max<uint64_t>(align, elem));
  }

  llvm::Value* element_ptr(const Buffer& buf, llvm::Value* index) {
    llvm::Value* idx = b_.CreateSExt(index, b_.getInt64Ty());
    return b_.CreateInBoundsGEP(memory_type(buf->dtype), buffer_ptr(buf), idx);
  }

  llvm::MDNode* tbaa(const Buffer& buf) {
    llvm::MDNode*& tag = tbaa_[buf.get()];
    if (!tag) {
      llvm::MDBuilder md(ctx_);
      llvm::MDNode* type = md.createTBAAScalarTypeNode(str_cat("buffer", tbaa_.size()), tbaa_root_);
      tag = md.createTBAAStructTagNode(type, type, 0);
    }
    return tag;
  }
  template <typename Access>
  Access* tagged(Access* access, const Buffer& buf) {
    access->setMetadata(llvm::LLVMContext::MD_tbaa, tbaa(buf));
    return access;
  }

  llvm::Value* load_scalar(const Buffer& buf, llvm::Value* index, unsigned align) {
    llvm::Value* v = tagged(b_.CreateAlignedLoad(memory_type(buf->dtype), element_ptr(buf, index), llvm::Align(align)), buf);
    return buf->dtype == DType::Bool ? b_.CreateICmpNE(v, b_.getInt8(0)) : v;
  }
  void store_scalar(const Buffer& buf, llvm::Value* index, llvm::Value* value, unsigned align) {
    if (buf->dtype == DType::Bool) value = b_.CreateZExt(value, b_.getInt8Ty());
    tagged(b_.CreateAlignedStore(value, element_ptr(buf, index), llvm::Align(align)), buf);
  }

  static const RampNode* contiguous_ramp(const Expr& index) {
    const RampNode* r = index.as<RampNode>();
    if (!r) return nullptr;
    const int64_t* s = as_const_int(r->stride);
    return s && *s == 1 ? r : nullptr;
  }

  llvm::Value* visit_(const BufferLoadNode* op, const Expr& self) override {
    MRD_CHECK(op->indices.size() == 1, "emit_llvm: storage must be flattened");
    const Expr& index = op->indices[0];
    if (self->lanes == 1) return load_scalar(op->buffer, visit(index), alignment(index, op->dtype, 1));
    if (const RampNode* r = contiguous_ramp(index); r && op->dtype != DType::Bool) {
      llvm::Type* vt = value_type(op->dtype, self->lanes);
      llvm::Value* ptr = b_.CreatePointerCast(element_ptr(op->buffer, visit(r->base)), vt->getPointerTo());
      return tagged(b_.CreateAlignedLoad(vt, ptr, llvm::Align(alignment(r->base, op->dtype, self->lanes))), op->buffer);
    }
    if (const BroadcastNode* bc = index.as<BroadcastNode>()) {
      llvm::Value* v = load_scalar(op->buffer, visit(bc->value), alignment(bc->value, op->dtype, 1));
      return b_.CreateVectorSplat(self->lanes, v);
    }
    std::vector<llvm::Value*> idx = lane_indices(index);
    llvm::Value* out = llvm::UndefValue::get(value_type(op->dtype, self->lanes));
    for (int l = 0; l < self->lanes; ++l) {
      llvm::Value* v = load_scalar(op->buffer, idx[l], dtype_bytes(op->dtype));
      out = b_.CreateInsertElement(out, v, l);
    }
    return out;
  }

  /// The index of each lane of a vector access that is not one contiguous load or store, as
  /// TVM's CodeGenLLVM::Scalarize makes them: base + stride * lane for a ramp (scalar
  /// arithmetic, which LLVM can merge into wide loads and shuffles), else the lanes of the
  /// index vector.
  std::vector<llvm::Value*> lane_indices(const Expr& index) {
    std::vector<llvm::Value*> out;
    if (const RampNode* r = index.as<RampNode>()) {
      llvm::Value* base = visit(r->base);
      llvm::Value* stride = visit(r->stride);
      for (int l = 0; l < index->lanes; ++l) {
        out.push_back(l == 0 ? base
                             : b_.CreateNSWAdd(base, b_.CreateNSWMul(stride, llvm::ConstantInt::get(stride->getType(), l))));
      }
      return out;
    }
    llvm::Value* idx = visit(index);
    for (int l = 0; l < index->lanes; ++l) out.push_back(b_.CreateExtractElement(idx, l));
    return out;
  }

  void emit_store(const StoreNode* op) {
    MRD_CHECK(op->indices.size() == 1, "emit_llvm: storage must be flattened");
    const Expr& index = op->indices[0];
    llvm::Value* value = visit(op->value);
    int lanes = op->value->lanes;
    if (lanes == 1) return store_scalar(op->buffer, visit(index), value, alignment(index, op->buffer->dtype, 1));
    if (const RampNode* r = contiguous_ramp(index); r && op->buffer->dtype != DType::Bool) {
      llvm::Value* ptr = b_.CreatePointerCast(element_ptr(op->buffer, visit(r->base)), value->getType()->getPointerTo());
      tagged(b_.CreateAlignedStore(value, ptr, llvm::Align(alignment(r->base, op->buffer->dtype, lanes))), op->buffer);
      return;
    }
    std::vector<llvm::Value*> idx = lane_indices(index);
    for (int l = 0; l < lanes; ++l) {
      store_scalar(op->buffer, idx[l], b_.CreateExtractElement(value, l), dtype_bytes(op->buffer->dtype));
    }
  }

  // --- expressions --------------------------------------------------------------------
  llvm::Value* visit_(const IntImmNode* op, const Expr&) override {
    return llvm::ConstantInt::get(elem_type(op->dtype), op->value, true);
  }
  llvm::Value* visit_(const FloatImmNode* op, const Expr&) override {
    return llvm::ConstantFP::get(elem_type(op->dtype), op->value);
  }
  llvm::Value* visit_(const VarNode* op, const Expr&) override {
    auto it = vars_.find(op);
    MRD_CHECK(it != vars_.end(), "emit_llvm: unbound variable ", op->name);
    return it->second;
  }
  llvm::Value* visit_(const RampNode* op, const Expr& self) override {
    llvm::Value* base = b_.CreateVectorSplat(self->lanes, visit(op->base));
    llvm::Value* stride = b_.CreateVectorSplat(self->lanes, visit(op->stride));
    std::vector<llvm::Constant*> steps;
    llvm::Type* t = elem_type(op->dtype);
    for (int l = 0; l < self->lanes; ++l) steps.push_back(llvm::ConstantInt::get(t, l));
    return b_.CreateNSWAdd(base, b_.CreateNSWMul(stride, llvm::ConstantVector::get(steps)));
  }
  llvm::Value* visit_(const BroadcastNode* op, const Expr& self) override {
    return b_.CreateVectorSplat(self->lanes, visit(op->value));
  }

  /// Whether TVM's build emits the right operand of `op` first. Its visitors of Add, Sub, Mul,
  /// the ordering comparisons, And and Or (and of the bitwise calls, and Select's operands) make
  /// both values as arguments of one call, which TVM's x86-64 build (GCC) evaluates right to
  /// left; Div, Mod, Min, Max, EQ and NE make a, then b, in two statements. The order of the
  /// loads it gives decides some of LLVM's loop-vectorization choices (an int8 conv2d state whose
  /// accumulation loop TVM's build leaves scalar, 2.6x slower than vectorized), so it is kept.
  static bool right_operand_first(BinaryOp op) {
    switch (op) {
      case BinaryOp::Add: case BinaryOp::Sub: case BinaryOp::Mul: case BinaryOp::LT:
      case BinaryOp::LE: case BinaryOp::GT: case BinaryOp::GE: case BinaryOp::And:
      case BinaryOp::Or:
        return true;
      default:
        return false;
    }
  }

  /// The operands of `op`, emitted in the order TVM's build emits them.
  std::pair<llvm::Value*, llvm::Value*> operands(const BinaryNode* op) {
    if (right_operand_first(op->op)) {
      llvm::Value* b = visit(op->b);
      return {visit(op->a), b};
    }
    llvm::Value* a = visit(op->a);
    return {a, visit(op->b)};
  }

  llvm::Value* visit_(const BinaryNode* op, const Expr& self) override {
    DType t = op->a->dtype;
    if (op->op == BinaryOp::And || op->op == BinaryOp::Or) {
      auto [a, b] = operands(op);
      return op->op == BinaryOp::And ? b_.CreateAnd(a, b) : b_.CreateOr(a, b);
    }
    if (is_float(t)) return float_binary(op);
    MRD_CHECK(op->op != BinaryOp::FloorDiv && op->op != BinaryOp::FloorMod,
              "floordiv/floormod reached the LLVM printer (lower_floor_div_mod lowers them in the LLVM tail)");
    auto [a, b] = operands(op);
    // As TVM's CreateAdd & co.: nsw for signed integers of 32 bits and more, nuw for unsigned
    // ones, wrapping arithmetic below 32 bits.
    const bool wraps = t == DType::Bool || dtype_bytes(t) < 4;
    const bool u = is_unsigned(t);
    switch (op->op) {
      case BinaryOp::Add: return b_.CreateAdd(a, b, "", !wraps && u, !wraps && !u);
      case BinaryOp::Sub: return b_.CreateSub(a, b, "", !wraps && u, !wraps && !u);
      case BinaryOp::Mul: return b_.CreateMul(a, b, "", !wraps && u, !wraps && !u);
      case BinaryOp::Div: return u ? b_.CreateUDiv(a, b) : b_.CreateSDiv(a, b);
      case BinaryOp::Mod: return u ? b_.CreateURem(a, b) : b_.CreateSRem(a, b);
      case BinaryOp::Min:
        return b_.CreateSelect(u ? b_.CreateICmpULT(a, b) : b_.CreateICmpSLT(a, b), a, b);
      case BinaryOp::Max:
        return b_.CreateSelect(u ? b_.CreateICmpUGT(a, b) : b_.CreateICmpSGT(a, b), a, b);
      case BinaryOp::EQ: return b_.CreateICmpEQ(a, b);
      case BinaryOp::NE: return b_.CreateICmpNE(a, b);
      case BinaryOp::LT: return u ? b_.CreateICmpULT(a, b) : b_.CreateICmpSLT(a, b);
      case BinaryOp::LE: return u ? b_.CreateICmpULE(a, b) : b_.CreateICmpSLE(a, b);
      case BinaryOp::GT: return u ? b_.CreateICmpUGT(a, b) : b_.CreateICmpSGT(a, b);
      case BinaryOp::GE: return u ? b_.CreateICmpUGE(a, b) : b_.CreateICmpSGE(a, b);
      default: break;
    }
    throw InternalError("emit_llvm: unexpected integer operator");
  }

  llvm::Value* float_binary(const BinaryNode* op) {
    if (op->op == BinaryOp::Add) {
      // TVM's LowerIntrin: a + b*c and a*b + c become fma (llvm.fmuladd), the right operand first.
      const BinaryNode* mb = op->b.as<BinaryNode>();
      const BinaryNode* ma = op->a.as<BinaryNode>();
      if (mb && mb->op == BinaryOp::Mul) return fmuladd(mb->a, mb->b, op->a);
      if (ma && ma->op == BinaryOp::Mul) return fmuladd(ma->a, ma->b, op->b);
    }
    auto [a, b] = operands(op);
    switch (op->op) {
      case BinaryOp::Add: return b_.CreateFAdd(a, b);
      case BinaryOp::Sub: return b_.CreateFSub(a, b);
      case BinaryOp::Mul: return b_.CreateFMul(a, b);
      case BinaryOp::Div: return b_.CreateFDiv(a, b);
      case BinaryOp::Mod: return b_.CreateFRem(a, b);
      case BinaryOp::Min: return b_.CreateSelect(b_.CreateFCmpOLT(a, b), a, b);
      case BinaryOp::Max: return b_.CreateSelect(b_.CreateFCmpOGT(a, b), a, b);
      case BinaryOp::EQ: return b_.CreateFCmpOEQ(a, b);
      case BinaryOp::NE: return b_.CreateFCmpONE(a, b);
      case BinaryOp::LT: return b_.CreateFCmpOLT(a, b);
      case BinaryOp::LE: return b_.CreateFCmpOLE(a, b);
      case BinaryOp::GT: return b_.CreateFCmpOGT(a, b);
      case BinaryOp::GE: return b_.CreateFCmpOGE(a, b);
      default: break;
    }
    throw InternalError("emit_llvm: unexpected float operator");
  }

  llvm::Value* fmuladd(const Expr& a, const Expr& b, const Expr& c) {
    llvm::Value* x = visit(a);
    llvm::Value* y = visit(b);
    llvm::Value* z = visit(c);
    return b_.CreateCall(intrinsic(llvm::Intrinsic::fmuladd, x->getType()), {x, y, z});
  }

  llvm::Value* visit_(const NotNode* op, const Expr&) override { return b_.CreateNot(visit(op->a)); }

  /// A select evaluates both sides unless one reads memory (the IR's select may guard a read).
  llvm::Value* visit_(const SelectNode* op, const Expr& self) override {
    if (self->lanes == 1 && (has_load(op->t) || has_load(op->f))) return lazy_select(op->cond, op->t, op->f);
    // TVM's CreateSelect(MakeValue(cond), MakeValue(t), MakeValue(f)): right to left, as above.
    llvm::Value* f = visit(op->f);
    llvm::Value* t = visit(op->t);
    return b_.CreateSelect(visit(op->cond), t, f);
  }

  llvm::Value* lazy_select(const Expr& cond, const Expr& t, const Expr& f) {
    llvm::Value* c = visit(cond);
    if (c->getType()->isVectorTy()) return b_.CreateSelect(c, visit(t), visit(f));
    llvm::BasicBlock* then_bb = llvm::BasicBlock::Create(ctx_, "select_then", fn_.fn);
    llvm::BasicBlock* else_bb = llvm::BasicBlock::Create(ctx_, "select_else", fn_.fn);
    llvm::BasicBlock* end_bb = llvm::BasicBlock::Create(ctx_, "select_end", fn_.fn);
    b_.CreateCondBr(c, then_bb, else_bb);
    b_.SetInsertPoint(then_bb);
    llvm::Value* tv = nullptr;
    in_region([&] { tv = visit(t); });
    llvm::BasicBlock* then_end = b_.GetInsertBlock();
    b_.CreateBr(end_bb);
    b_.SetInsertPoint(else_bb);
    llvm::Value* fv = nullptr;
    in_region([&] { fv = visit(f); });
    llvm::BasicBlock* else_end = b_.GetInsertBlock();
    b_.CreateBr(end_bb);
    b_.SetInsertPoint(end_bb);
    llvm::PHINode* phi = b_.CreatePHI(tv->getType(), 2);
    phi->addIncoming(tv, then_end);
    phi->addIncoming(fv, else_end);
    return phi;
  }

  llvm::Value* visit_(const CastNode* op, const Expr&) override {
    llvm::Value* v = visit(op->value);
    DType from = op->value->dtype, to = op->dtype;
    llvm::Type* t = value_type(to, op->lanes);
    if (to == DType::Bool) {
      return is_float(from) ? b_.CreateFCmpUNE(v, llvm::Constant::getNullValue(v->getType()))
                            : b_.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
    }
    // As TVM's CreateCast: the source's signedness widens an integer, the target's converts
    // from a float.
    if (from == DType::Bool) return is_float(to) ? b_.CreateUIToFP(v, t) : b_.CreateZExt(v, t);
    if (is_float(from) && is_float(to)) return b_.CreateFPCast(v, t);
    if (is_float(from)) return is_unsigned(to) ? b_.CreateFPToUI(v, t) : b_.CreateFPToSI(v, t);
    if (is_float(to)) return is_unsigned(from) ? b_.CreateUIToFP(v, t) : b_.CreateSIToFP(v, t);
    return b_.CreateIntCast(v, t, !is_unsigned(from));
  }

  llvm::Value* unary_intrinsic(llvm::Intrinsic::ID id, llvm::Value* x) {
    return b_.CreateCall(intrinsic(id, x->getType()), {x});
  }
  llvm::Value* fconst(llvm::Type* t, double v) { return llvm::ConstantFP::get(t, v); }

  llvm::Value* visit_(const CallNode* op, const Expr& self) override {
    switch (op->op) {
      case CallOp::IfThenElse: return lazy_select(op->args[0], op->args[1], op->args[2]);
      case CallOp::Likely: return visit(op->args[0]);
      default: break;
    }
    // The bitwise calls and shifts: TVM's CreateAnd(MakeValue(args[0]), MakeValue(args[1])) & co.,
    // the second argument first (right_operand_first).
    const bool bitwise_binary = is_integer_call(op->op) && call_op_arity(op->op) == 2;
    llvm::Value* y = bitwise_binary ? visit(op->args[1]) : nullptr;
    llvm::Value* x = visit(op->args[0]);
    llvm::Type* t = x->getType();
    switch (op->op) {
      case CallOp::Exp: return unary_intrinsic(llvm::Intrinsic::exp, x);
      case CallOp::Log: return unary_intrinsic(llvm::Intrinsic::log, x);
      case CallOp::Sqrt: return unary_intrinsic(llvm::Intrinsic::sqrt, x);
      case CallOp::Fabs:
        if (is_unsigned(op->dtype)) return x;
        if (is_int(op->dtype)) {
          llvm::Value* negative = b_.CreateICmpSLT(x, llvm::Constant::getNullValue(t));
          return b_.CreateSelect(negative, b_.CreateNeg(x), x);
        }
        return unary_intrinsic(llvm::Intrinsic::fabs, x);
      case CallOp::Floor: return unary_intrinsic(llvm::Intrinsic::floor, x);
      case CallOp::Ceil: return unary_intrinsic(llvm::Intrinsic::ceil, x);
      case CallOp::Trunc: return unary_intrinsic(llvm::Intrinsic::trunc, x);
      case CallOp::Round: return unary_intrinsic(llvm::Intrinsic::round, x);
      case CallOp::Rsqrt: return b_.CreateFDiv(fconst(t, 1.0), unary_intrinsic(llvm::Intrinsic::sqrt, x));
      case CallOp::Sin: return unary_intrinsic(llvm::Intrinsic::sin, x);
      case CallOp::Cos: return unary_intrinsic(llvm::Intrinsic::cos, x);
      case CallOp::Exp2: return unary_intrinsic(llvm::Intrinsic::exp2, x);
      case CallOp::Log2: return unary_intrinsic(llvm::Intrinsic::log2, x);
      case CallOp::Log10: return unary_intrinsic(llvm::Intrinsic::log10, x);
      case CallOp::IsNan: return b_.CreateFCmpUNO(x, x);  // TVM's isnan: unordered with itself
      case CallOp::BitwiseNot: return b_.CreateNot(x);
      case CallOp::BitwiseAnd: return b_.CreateAnd(x, y);
      case CallOp::BitwiseOr: return b_.CreateOr(x, y);
      case CallOp::BitwiseXor: return b_.CreateXor(x, y);
      case CallOp::ShiftLeft: return b_.CreateShl(x, y);
      case CallOp::ShiftRight:
        // As TVM's codegen: arithmetic for signed types, logical for unsigned ones.
        return is_unsigned(op->dtype) ? b_.CreateLShr(x, y) : b_.CreateAShr(x, y);
      case CallOp::Erf: {
        // TVM's llvm rule: the C library's erff / erf (vectorize_loop scalarizes a loop of it).
        MRD_CHECK(!t->isVectorTy(), "emit_llvm: a vector erf reached code generation");
        const char* name = t->isFloatTy() ? "erff" : "erf";
        return b_.CreateCall(runtime(name, llvm::FunctionType::get(t, {t}, false)), {x});
      }
      case CallOp::Pow: {
        llvm::Value* y = visit(op->args[1]);
        return b_.CreateCall(intrinsic(llvm::Intrinsic::pow, t), {x, y});
      }
      case CallOp::Sigmoid: {
        // 1 / (1 + exp(-x))
        llvm::Value* e = unary_intrinsic(llvm::Intrinsic::exp, b_.CreateFNeg(x));
        return b_.CreateFDiv(fconst(t, 1.0), b_.CreateFAdd(fconst(t, 1.0), e));
      }
      case CallOp::Tanh: {
        // TVM's llvm rule: x >= 0 ? (1 - e^-2x) / (1 + e^-2x) : (e^2x - 1) / (e^2x + 1).
        llvm::Value* en = unary_intrinsic(llvm::Intrinsic::exp, b_.CreateFMul(fconst(t, -2.0), x));
        llvm::Value* ep = unary_intrinsic(llvm::Intrinsic::exp, b_.CreateFMul(fconst(t, 2.0), x));
        llvm::Value* pos = b_.CreateFDiv(b_.CreateFSub(fconst(t, 1.0), en), b_.CreateFAdd(fconst(t, 1.0), en));
        llvm::Value* neg = b_.CreateFDiv(b_.CreateFSub(ep, fconst(t, 1.0)), b_.CreateFAdd(ep, fconst(t, 1.0)));
        return b_.CreateSelect(b_.CreateFCmpOGE(x, llvm::Constant::getNullValue(t)), pos, neg);
      }
      default: break;
    }
    throw InternalError("emit_llvm: unexpected call");
  }

  llvm::Value* visit_(const TensorReadNode*, const Expr&) override {
    throw InternalError("emit_llvm: a tensor read reached code generation");
  }
  llvm::Value* visit_(const ReduceNode*, const Expr&) override {
    throw InternalError("emit_llvm: a reduction reached code generation");
  }

  ResolvedLlvmTarget resolved_;
  llvm::LLVMContext ctx_;
  std::unique_ptr<llvm::Module> module_;
  llvm::IRBuilder<> b_;
  llvm::MDNode* very_likely_ = nullptr;
  llvm::MDNode* tbaa_root_ = nullptr;
  /// One TBAA type per buffer, as TVM's: accesses to different buffers never alias, which
  /// survives the loads of buffer pointers from a parallel closure (noalias does not).
  std::unordered_map<const BufferNode*, llvm::MDNode*> tbaa_;
  FunctionState fn_;
  std::unordered_map<const VarNode*, llvm::Value*> vars_;
  std::unordered_map<const BufferNode*, llvm::Value*> buffers_;
  ir::VarMap let_values_;  // the value of each let variable in scope, in loop variables
  std::vector<CseScope> cse_;
  lower::StructuralHasher hash_;  // the CSE tables' keys
  std::unordered_map<const ExprNode*, bool> pure_;
};

}  // namespace

std::string emit_llvm(const PrimFunc& f, const Target& target) {
  MRD_CHECK(target.kind == TargetKind::LLVM, "emit_llvm: target kind ", target_kind_name(target.kind));
  LlvmEmitter emitter(target);
  return emitter.run(f);
}

std::string llvm_version() { return LLVM_VERSION_STRING; }

}  // namespace mrd::codegen
