#include "exec/fast.h"
bool hlo_fast_plan_dot(hlo_exec *e, plan_step *s) { (void)e; (void)s; return false; }
