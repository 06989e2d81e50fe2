#include "opt/opt_internal.h"
int opt_constant_folding(opt_ctx *x) { (void)x; return 0; }
