#include "common/measure/llvm_compiler.h"

#include <llvm/ADT/SmallVector.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Analysis/TargetTransformInfo.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/IPO.h>
#include <llvm/Transforms/IPO/PassManagerBuilder.h>

#include <spdlog/spdlog.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>

#include "common/codegen/llvm_codegen.h"
#include "common/codegen/llvm_target_machine.h"
#include "common/util/error.h"

namespace mrd::measure {

namespace {

CompileOutcome failed(std::string message) {
  CompileOutcome out;
  out.status = CompileOutcome::Status::Failed;
  out.message = std::move(message);
  return out;
}

/// TVM's CodeGenLLVM::Optimize for LLVM < 16: the pipeline of the target machine's level.
void optimize(llvm::Module& module, llvm::TargetMachine& tm, int opt_level) {
  llvm::legacy::FunctionPassManager fpass(&module);
  llvm::legacy::PassManager mpass;
  mpass.add(llvm::createTargetTransformInfoWrapperPass(tm.getTargetIRAnalysis()));
  fpass.add(llvm::createTargetTransformInfoWrapperPass(tm.getTargetIRAnalysis()));
  llvm::PassManagerBuilder builder;
  builder.OptLevel = static_cast<unsigned>(opt_level);
  builder.SizeLevel = 0;
  builder.Inliner = llvm::createFunctionInliningPass(builder.OptLevel, 0, false);
  builder.LoopVectorize = true;
  builder.SLPVectorize = true;
  tm.adjustPassManager(builder);
  builder.populateFunctionPassManager(fpass);
  builder.populateModulePassManager(mpass);
  fpass.doInitialization();
  for (llvm::Function& f : module) fpass.run(f);
  fpass.doFinalization();
  mpass.run(module);
}

// A target machine is not safe to use from two threads at once.
std::mutex g_emit_mu;

// One LLVM context per thread, reused by its compiles (a context is not safe to share between
// threads), and replaced after kContextUses modules: what a module uniques in it (types,
// constants, metadata) stays until the context goes.
constexpr int kContextUses = 256;

llvm::LLVMContext& reused_context() {
  thread_local std::unique_ptr<llvm::LLVMContext> ctx;
  thread_local int uses = 0;
  if (!ctx || ++uses > kContextUses) {
    ctx = std::make_unique<llvm::LLVMContext>();
    uses = 1;
  }
  return *ctx;
}

}  // namespace

LlvmCompiler::LlvmCompiler(const codegen::Target& target, bool link_shared)
    : target_(target), link_shared_(link_shared) {
  codegen::ResolvedLlvmTarget r = codegen::llvm_target_machine(target_);
  identity_ = str_cat(link_shared_ ? "shared object" : "object", "\nLLVM ", codegen::llvm_version(),
                      "\n", r.triple, "\n", r.cpu, "\n", r.features, "\nO", r.opt_level,
                      " loop+slp vectorize, fp-contract fast, no-nans\n", linker_.identity());
}

std::string LlvmCompiler::identity() const { return identity_; }

CompileOutcome LlvmCompiler::compile(const CompileRequest& request) {
  auto start = std::chrono::steady_clock::now();
  auto lap = [last = start]() mutable {
    auto now = std::chrono::steady_clock::now();
    double ms = std::chrono::duration<double, std::milli>(now - last).count();
    last = now;
    return ms;
  };
  try {
    codegen::ResolvedLlvmTarget r = codegen::llvm_target_machine(target_);
    llvm::LLVMContext& ctx = reused_context();
    llvm::SMDiagnostic diag;
    std::unique_ptr<llvm::Module> module = llvm::parseIRFile(request.source_path, diag, ctx);
    if (!module) {
      std::string msg;
      llvm::raw_string_ostream os(msg);
      diag.print("kernel.ll", os);
      return failed(str_cat("LLVM could not read the module: ", os.str()));
    }
    std::string verify;
    llvm::raw_string_ostream vs(verify);
    if (llvm::verifyModule(*module, &vs)) return failed(str_cat("invalid LLVM module: ", vs.str()));

    double parse_ms = lap(), optimize_ms = 0, emit_ms = 0;
    llvm::SmallVector<char, 0> object;
    {
      std::lock_guard<std::mutex> lock(g_emit_mu);
      optimize(*module, *r.machine, r.opt_level);
      optimize_ms = lap();
      llvm::raw_svector_ostream os(object);
      llvm::legacy::PassManager emit;
      llvm::TargetLibraryInfoImpl tli(llvm::Triple(module->getTargetTriple()));
      emit.add(new llvm::TargetLibraryInfoWrapperPass(tli));
      if (r.machine->addPassesToEmitFile(emit, os, nullptr, llvm::CGFT_ObjectFile)) {
        return failed("LLVM cannot emit an object file for this target");
      }
      emit.run(*module);
      emit_ms = lap();
    }
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed > request.timeout_seconds) {
      CompileOutcome out;
      out.status = CompileOutcome::Status::TimedOut;
      out.message = str_cat("LLVM code generation passed the build timeout of ", request.timeout_seconds, " s");
      return out;
    }
    std::string object_path = link_shared_ ? request.output_path + ".o" : request.output_path;
    {
      std::ofstream f(object_path, std::ios::binary);
      f.write(object.data(), static_cast<std::streamsize>(object.size()));
      if (!f) return failed(str_cat("cannot write ", object_path));
    }
    CompileOutcome out;
    if (link_shared_) {
      out = linker_.link(object_path, request.output_path, true, request.timeout_seconds - elapsed);
      std::error_code ec;
      std::filesystem::remove(object_path, ec);
    }
    spdlog::debug("llvm: read {:.1f} ms, optimize {:.1f} ms, emit {:.1f} ms, link {:.1f} ms", parse_ms, optimize_ms,
                  emit_ms, lap());
    return out;
  } catch (const std::exception& e) {
    return failed(e.what());
  }
}

}  // namespace mrd::measure
