#include "common/measure/object_loader.h"

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>

#include <mutex>
#include <stdexcept>

#include "common/util/error.h"

namespace mrd::measure {

namespace {

std::string message(llvm::Error e) { return llvm::toString(std::move(e)); }

class JitObject : public LoadedObject {
 public:
  JitObject(std::unique_ptr<llvm::orc::LLJIT> jit, void* entry) : jit_(std::move(jit)), entry_(entry) {}
  void* entry() const override { return entry_; }
  void* find(const char* name) const override {
    auto sym = jit_->lookup(name);
    if (!sym) {
      llvm::consumeError(sym.takeError());
      return nullptr;
    }
    return reinterpret_cast<void*>(static_cast<uintptr_t>(sym->getAddress()));
  }

 private:
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  void* entry_;
};

}  // namespace

std::unique_ptr<LoadedObject> load_object(const std::string& path, const char* entry_name) {
  static std::once_flag init;
  std::call_once(init, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit) throw std::runtime_error(str_cat("cannot start the JIT: ", message(jit.takeError())));
  auto& dylib = (*jit)->getMainJITDylib();
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess((*jit)->getDataLayout().getGlobalPrefix());
  if (!process) throw std::runtime_error(str_cat("cannot search this process's symbols: ", message(process.takeError())));
  dylib.addGenerator(std::move(*process));
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) throw std::runtime_error(str_cat("cannot read ", path, ": ", buffer.getError().message()));
  if (llvm::Error e = (*jit)->addObjectFile(std::move(*buffer))) {
    throw std::runtime_error(str_cat("cannot load ", path, ": ", message(std::move(e))));
  }
  auto sym = (*jit)->lookup(entry_name);
  if (!sym) throw std::runtime_error(str_cat(path, " has no ", entry_name, ": ", message(sym.takeError())));
  void* entry = reinterpret_cast<void*>(static_cast<uintptr_t>(sym->getAddress()));
  return std::make_unique<JitObject>(std::move(*jit), entry);
}

}  // namespace mrd::measure
