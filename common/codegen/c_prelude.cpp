#include "common/codegen/c_prelude.h"

namespace mrd::codegen {

const char* const kCPrelude = R"(#include <stdint.h>
#include <stdlib.h>
#include <math.h>

#define MRD_DEF_FLOOR(T, S) \
  static inline T mrd_floordiv_##S(T a, T b) { T q = a / b; T r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q; } \
  static inline T mrd_floormod_##S(T a, T b) { T r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
MRD_DEF_FLOOR(int8_t, i8)
MRD_DEF_FLOOR(uint8_t, u8)
MRD_DEF_FLOOR(int16_t, i16)
MRD_DEF_FLOOR(uint16_t, u16)
MRD_DEF_FLOOR(int32_t, i32)
MRD_DEF_FLOOR(uint32_t, u32)
MRD_DEF_FLOOR(int64_t, i64)
#define MRD_DEF_MINMAX(T, S) \
  static inline T mrd_min_##S(T a, T b) { return a < b ? a : b; } \
  static inline T mrd_max_##S(T a, T b) { return a > b ? a : b; }
MRD_DEF_MINMAX(int8_t, i8)
MRD_DEF_MINMAX(uint8_t, u8)
MRD_DEF_MINMAX(int16_t, i16)
MRD_DEF_MINMAX(uint16_t, u16)
MRD_DEF_MINMAX(int32_t, i32)
MRD_DEF_MINMAX(uint32_t, u32)
MRD_DEF_MINMAX(int64_t, i64)
MRD_DEF_MINMAX(float, f32)
MRD_DEF_MINMAX(double, f64)
MRD_DEF_MINMAX(uint8_t, b)
static inline float mrd_sigmoid_f32(float x) { return 1.0f / (1.0f + expf(-x)); }
static inline double mrd_sigmoid_f64(double x) { return 1.0 / (1.0 + exp(-x)); }
static inline int8_t mrd_abs_i8(int8_t x) { return x < 0 ? (int8_t)-x : x; }
static inline uint8_t mrd_abs_u8(uint8_t x) { return x; }
static inline int16_t mrd_abs_i16(int16_t x) { return x < 0 ? (int16_t)-x : x; }
static inline uint16_t mrd_abs_u16(uint16_t x) { return x; }
static inline int32_t mrd_abs_i32(int32_t x) { return x < 0 ? -x : x; }
static inline uint32_t mrd_abs_u32(uint32_t x) { return x; }
static inline int64_t mrd_abs_i64(int64_t x) { return x < 0 ? -x : x; }
static inline void* mrd_alloc(size_t bytes) { return aligned_alloc(64, (bytes + 63) / 64 * 64); }
#define MRD_DEF_VEC(T, N, S) \
  typedef T mrd_##S __attribute__((vector_size(sizeof(T) * N))); \
  static inline mrd_##S mrd_ld_##S(const T* p) { mrd_##S r; __builtin_memcpy(&r, p, sizeof r); return r; } \
  static inline void mrd_st_##S(T* p, mrd_##S v) { __builtin_memcpy(p, &v, sizeof v); } \
  static inline mrd_##S mrd_bc_##S(T x) { return x - (mrd_##S){0}; }
MRD_DEF_VEC(float, 16, v16f) MRD_DEF_VEC(float, 8, v8f) MRD_DEF_VEC(float, 4, v4f) MRD_DEF_VEC(float, 2, v2f)
MRD_DEF_VEC(double, 8, v8d) MRD_DEF_VEC(double, 4, v4d) MRD_DEF_VEC(double, 2, v2d)
MRD_DEF_VEC(int32_t, 16, v16i) MRD_DEF_VEC(int32_t, 8, v8i) MRD_DEF_VEC(int32_t, 4, v4i) MRD_DEF_VEC(int32_t, 2, v2i)
MRD_DEF_VEC(int64_t, 8, v8l) MRD_DEF_VEC(int64_t, 4, v4l) MRD_DEF_VEC(int64_t, 2, v2l)
/* Lane-wise select on a comparison mask (all ones or all zeros per lane); min and max with the
   scalar helpers' semantics lane by lane. */
#define MRD_DEF_SEL(S, M) \
  static inline mrd_##S mrd_sel_##S(mrd_##M m, mrd_##S a, mrd_##S b) { return (mrd_##S)((m & (mrd_##M)a) | (~m & (mrd_##M)b)); } \
  static inline mrd_##S mrd_vmin_##S(mrd_##S a, mrd_##S b) { return mrd_sel_##S(a < b, a, b); } \
  static inline mrd_##S mrd_vmax_##S(mrd_##S a, mrd_##S b) { return mrd_sel_##S(a > b, a, b); }
MRD_DEF_SEL(v16f, v16i) MRD_DEF_SEL(v8f, v8i) MRD_DEF_SEL(v4f, v4i) MRD_DEF_SEL(v2f, v2i)
MRD_DEF_SEL(v8d, v8l) MRD_DEF_SEL(v4d, v4l) MRD_DEF_SEL(v2d, v2l)
MRD_DEF_SEL(v16i, v16i) MRD_DEF_SEL(v8i, v8i) MRD_DEF_SEL(v4i, v4i) MRD_DEF_SEL(v2i, v2i)
)";

}  // namespace mrd::codegen
