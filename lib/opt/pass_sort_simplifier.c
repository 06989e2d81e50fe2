#include "opt/opt_internal.h"
int opt_sort_simplifier(opt_ctx *x) { (void)x; return 0; }
