/* pass_fusion.c - the fusion pass and its inverse (XLA's defuser) as
 * registry passes, over lib/fuse. */
#include "opt/opt_internal.h"

int opt_fusion(opt_ctx *x) { return hlo_fuse_module(x->m, NULL, NULL, x->d); }

int opt_defuser(opt_ctx *x) { return hlo_fuse_unfuse(x->m, x->d); }
