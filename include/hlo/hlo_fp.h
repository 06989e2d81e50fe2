/* hlo_fp.h - bit formats of every XLA floating-point element type: decoding
 * to double, correctly rounded encoding from double, XLA's literal text form
 * (and a shortest round-trip form), and the inverse parser.
 *
 * A value is always its raw bit pattern in the low bits of a uint64_t (the
 * literal storage of hlo_ir.h: f8/f4 one element per byte, f16/bf16 16 bits).
 * Semantics follow ml_dtypes (see docs/fp.md): "fn" = no infinity,
 * "fnuz" = also no negative zero and the single NaN 0x80, f8e8m0fnu =
 * unsigned powers of two with NaN 0xff and no zero, f4e2m1fn = no inf/NaN. */
#ifndef HLO_FP_H
#define HLO_FP_H

#include "hlo/hlo_core.h"
#include "hlo/hlo_types.h"

/* Room always sufficient for hlo_fp_format's output and NUL. */
#define HLO_FP_FMT_MAX 48

/* Decode a bit pattern of float type t (bits above the type's width are
 * ignored).  NaNs keep their sign; for a non-float t the result is NaN. */
HLO_API double hlo_fp_to_double(hlo_type t, uint64_t bits);

/* Encode v in float type t, rounding to nearest, ties to even, exactly as
 * ml_dtypes' non-saturating conversion does: overflow gives inf (IEEE-like
 * types), NaN (fn/fnuz/e8m0fnu) or the largest finite value (f4e2m1fn);
 * -0 becomes +0 in fnuz types; zero or negative values give NaN in
 * f8e8m0fnu.  NaN input gives the type's quiet NaN with v's sign where the
 * type has one (f32/f64 keep the payload as the C conversion does).
 * Returns 0 for a non-float t. */
HLO_API uint64_t hlo_fp_from_double(hlo_type t, double v);

/* Like hlo_fp_from_double but also reports whether a finite v overflowed
 * (its rounded magnitude exceeds the largest finite value of t). */
HLO_API uint64_t hlo_fp_from_double_ex(hlo_type t, double v, bool *overflow);

/* Fast exact conversions for the common 16-bit types (round to nearest even;
 * NaN becomes the canonical quiet NaN with the same sign, as Eigen does). */
HLO_API uint16_t hlo_f32_to_f16(float f);
HLO_API float hlo_f16_to_f32(uint16_t h);
HLO_API uint16_t hlo_f32_to_bf16(float f);
HLO_API float hlo_bf16_to_f32(uint16_t h);

/* Properties of float type t (0/false for non-float types). */
HLO_API int hlo_fp_max_digits10(hlo_type t); /* std::numeric_limits<T>::max_digits10 */
HLO_API bool hlo_fp_is_nan(hlo_type t, uint64_t bits);
HLO_API bool hlo_fp_is_inf(hlo_type t, uint64_t bits);

/* Write the text of one element of float type t into out (cap bytes,
 * always NUL-terminated when cap > 0).
 * shortest=false: XLA's RoundTripFpToString: f32 "%.6g" (f64 "%.15g") when
 *   that reads back to the same value, else "%.9g" ("%.17g"); every other
 *   type "%.<max_digits10>g" of the value as double.
 * shortest=true: the fewest "%.<p>g" digits that parse back to the same bits.
 * Both: infinities are "inf"/"-inf"; NaN is "nan"/"-nan" (by sign bit; the
 *   fnuz NaN 0x80 prints "-nan") followed, for types with IEEE NaNs, by
 *   "(0x<payload>)" when the mantissa bits differ from the quiet bit alone.
 * Returns the length written, or HLO_ERR if t is not a float type or the
 * text does not fit (cap >= HLO_FP_FMT_MAX always fits). */
HLO_API int hlo_fp_format(char *out, size_t cap, hlo_type t, uint64_t bits, bool shortest);

/* A complex element as XLA prints it: "(re, im)" with each part formatted
 * as by hlo_fp_format in the part type (f32 for c64, f64 for c128).
 * Needs at most 2 * HLO_FP_FMT_MAX + 4 bytes. */
HLO_API int hlo_fp_format_complex(char *out, size_t cap, hlo_type t, uint64_t re, uint64_t im,
                                  bool shortest);

/* Length of the longest prefix of s[0..n) that has the form of a float
 * literal as XLA's HLO lexer reads it (see hlo_fp_parse), 0 if none. */
HLO_API size_t hlo_fp_scan(const char *s, size_t n);

/* Parse exactly s[0..n) (not NUL-terminated) as a value of float type t:
 *   '-'? ( digits ('.' digits*)? | '.' digits ) ([eE] [+-]? digits)?
 *   '-'? 'inf'      '-'? 'nan' ( '(0x' hex ')' )?
 * (no '+' sign, no hex floats, no "infinity": XLA's lexer rejects them).
 * Decimals are rounded correctly to t.  Errors (HLO_ERR, *bits untouched):
 * malformed text; a finite value whose rounded magnitude overflows t (XLA:
 * "out of range for literal's primitive type"); inf for a type without
 * infinities; nan for f4e2m1fn; zero or negative for f8e8m0fnu; a payload
 * that is 0 or does not fit the type's mantissa (or any payload for a type
 * without IEEE NaNs); text longer than 1024 bytes.  *why (if not NULL) gets
 * a static message on error. */
HLO_API int hlo_fp_parse(const char *s, size_t n, hlo_type t, uint64_t *bits);
HLO_API int hlo_fp_parse_ex(const char *s, size_t n, hlo_type t, uint64_t *bits,
                            const char **why);

#endif
