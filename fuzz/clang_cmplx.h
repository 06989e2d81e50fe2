/* clang_cmplx.h - force-included in the libFuzzer build only: clang 14
 * lacks __builtin_complex, so glibc's <complex.h> does not define CMPLX. */
#include <complex.h>
#ifndef CMPLX
#define CMPLX(x, y) (((union { double _Complex z; double d[2]; }){.d = {(x), (y)}}).z)
#endif
#ifndef CMPLXF
#define CMPLXF(x, y) (((union { float _Complex z; float d[2]; }){.d = {(x), (y)}}).z)
#endif
/* The library never uses the imaginary-unit macro I, while kernels name
 * variables I; with <complex.h> forced in, keep I free. */
#undef I
