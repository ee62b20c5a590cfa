#include "common/codegen/llvm_target_machine.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/ADT/Triple.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetOptions.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "common/util/error.h"

namespace mrd::codegen {

namespace {

std::string host_features() {
  llvm::StringMap<bool> features;
  std::string out;
  if (!llvm::sys::getHostCPUFeatures(features)) return out;
  std::map<std::string, bool> sorted;
  for (const auto& f : features) sorted[f.getKey().str()] = f.getValue();
  for (const auto& [name, on] : sorted) {
    out += (out.empty() ? "" : ",") + std::string(on ? "+" : "-") + name;
  }
  return out;
}

}  // namespace

ResolvedLlvmTarget llvm_target_machine(const Target& target) {
  static std::once_flag init;
  std::call_once(init, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  ResolvedLlvmTarget r;
  r.triple = target.mtriple.empty() ? llvm::sys::getDefaultTargetTriple() : target.mtriple;
  if (target.mcpu.empty()) {
    // Without -mcpu: the host CPU with the features it has.
    r.cpu = llvm::sys::getHostCPUName().str();
    r.features = host_features();
    if (!target.mattr.empty()) r.features += (r.features.empty() ? "" : ",") + target.mattr;
  } else {
    r.cpu = target.mcpu;
    r.features = target.mattr;
  }
  r.opt_level = std::clamp(target.opt_level, 0, 3);
  static constexpr llvm::CodeGenOpt::Level kLevels[] = {
      llvm::CodeGenOpt::None, llvm::CodeGenOpt::Less, llvm::CodeGenOpt::Default,
      llvm::CodeGenOpt::Aggressive};

  static std::mutex mu;
  static std::map<std::tuple<std::string, std::string, std::string, int>,
                  std::unique_ptr<llvm::TargetMachine>>
      machines;
  std::lock_guard<std::mutex> lock(mu);
  auto& tm = machines[{r.triple, r.cpu, r.features, r.opt_level}];
  if (!tm) {
    // Each kernel is loaded and run in this process, so its code must be this machine's:
    // architecture, system, ABI and object format (TVM's build of another's fails to link here).
    const llvm::Triple wanted(llvm::Triple::normalize(r.triple)),
        host(llvm::sys::getDefaultTargetTriple());
    MRD_USER_CHECK(wanted.getArch() == host.getArch() && wanted.getOS() == host.getOS() &&
                       wanted.getObjectFormat() == host.getObjectFormat() &&
                       (wanted.getEnvironment() == host.getEnvironment() ||
                        wanted.getEnvironment() == llvm::Triple::UnknownEnvironment),
                   "-mtriple=", r.triple.substr(0, 64),
                   " builds code that cannot run on this machine (", host.str(),
                   "): measurerd runs each kernel on the host CPU");
    std::string error;
    const llvm::Target* t = llvm::TargetRegistry::lookupTarget(r.triple, error);
    MRD_USER_CHECK(t != nullptr, "LLVM cannot build for -mtriple=", r.triple.substr(0, 64), ": ", error);
    if (!target.mcpu.empty()) {
      // As TVM's LLVMTargetInfo: a -mcpu LLVM does not know for the triple is an error. LLVM
      // itself would only warn, build for a subtarget without 64-bit mode, and abort.
      std::unique_ptr<llvm::MCSubtargetInfo> known(t->createMCSubtargetInfo(r.triple, "", ""));
      MRD_USER_CHECK(known != nullptr && known->isCPUStringValid(r.cpu),
                     "LLVM cpu architecture `-mcpu=", r.cpu.substr(0, 64),
                     "` is not valid in `-mtriple=", r.triple.substr(0, 64), "`");
    }
    llvm::TargetOptions opt;
    opt.AllowFPOpFusion = llvm::FPOpFusion::Fast;
    opt.UnsafeFPMath = false;
    opt.NoInfsFPMath = false;
    opt.NoNaNsFPMath = true;
    opt.FloatABIType = llvm::FloatABI::Hard;
    tm.reset(t->createTargetMachine(r.triple, r.cpu, r.features, opt, llvm::Reloc::PIC_, llvm::None,
                                    kLevels[r.opt_level]));
    MRD_USER_CHECK(tm != nullptr, "LLVM cannot make a target machine for -mcpu=", r.cpu.substr(0, 64));
  }
  r.machine = tm.get();
  return r;
}

}  // namespace mrd::codegen
