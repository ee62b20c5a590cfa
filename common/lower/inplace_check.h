// TVM's InplaceOpVerifier: may a statement that reads `src` for the last time and writes `dst`
// for the first time write dst into src's memory? Yes when every store to dst has the form
// dst[index] = f(src[index], ...): dst is never read, every read of src sits in the value of
// a store to dst at that store's very index (with the value's type), and no read is nested
// in an index; `s` is a store, a loop or a conditional (as TVM's Check: a Let never qualifies). As in TVM, the caller answers for each location of dst being written once.
#pragma once

#include "common/ir/stmt.h"

namespace mrd::lower {

bool writes_in_place(const ir::Stmt& s, const ir::BufferNode* dst, const ir::BufferNode* src);

}  // namespace mrd::lower
