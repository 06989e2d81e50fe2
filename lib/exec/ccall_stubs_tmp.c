#include "exec/ccall.h"
int hlo_ccall_prep_conv(hlo_exec *e, plan_step *s, const char *t) { return HLO_PLAN_ERR(e, s->in, "%s todo", t); }
int hlo_ccall_prep_threefry(hlo_exec *e, plan_step *s, const char *t) { return HLO_PLAN_ERR(e, s->in, "%s todo", t); }
int hlo_ccall_prep_spmd(hlo_exec *e, plan_step *s, const char *t) { return HLO_PLAN_ERR(e, s->in, "%s todo", t); }
int hlo_ccall_prep_act(hlo_exec *e, plan_step *s, const char *t) { return HLO_PLAN_ERR(e, s->in, "%s todo", t); }
