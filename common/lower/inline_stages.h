// compute_inline: every computed stage's body gets the bodies of the inlined stages it reads
// substituted for the reads (recursively), as TVM's InjectInline.
#pragma once

#include "common/lower/lower_context.h"

namespace mrd::lower {

/// Fills ctx.bodies for every computed stage.
void inline_stages(LowerContext& ctx);

}  // namespace mrd::lower
