/* fast_tr16_test.c - the f32 block transposes of fast_tr16.c at every
 * instruction-set level this CPU runs: every element lands where the
 * definition d[c * ds + r] = s[r * ss + c] puts it (checked element by
 * element against that formula, not against another level), for sizes with
 * and without whole 16x16 blocks and edges on either side, and no byte
 * outside the destination's elements changes. */
#include "exec/fast.h"
#include "testing.h"

static void one(hlo_isa level, int64_t nr, int64_t nc, int64_t ss, int64_t ds) {
  hlo_fast_tr16_fn tr = hlo_fast_tr16(level);
  int64_t sn = nr * ss + 1, dn = nc * ds + 1;
  float *s = malloc(sizeof(float) * (size_t)sn), *d = malloc(sizeof(float) * (size_t)dn);
  if (!s || !d) {
    free(s);
    free(d);
    CHECK(!"out of memory");
    return;
  }
  for (int64_t i = 0; i < sn; i++) s[i] = (float)i + 0.5f;
  for (int64_t i = 0; i < dn; i++) d[i] = -1.0f;
  tr(d, ds, s, ss, nr, nc);
  int bad = 0;
  for (int64_t c = 0; c < nc; c++)
    for (int64_t r = 0; r < ds; r++) {
      float want = r < nr ? (float)(r * ss + c) + 0.5f : -1.0f; /* gap of the row: untouched */
      if (d[c * ds + r] != want && bad++ < 3)
        printf("fast_tr16_test.c: %s %lldx%lld ss %lld ds %lld: d[%lld][%lld] = %g, want %g\n",
               hlo_isa_name(level), (long long)nr, (long long)nc, (long long)ss, (long long)ds,
               (long long)c, (long long)r, (double)d[c * ds + r], (double)want);
    }
  if (d[dn - 1] != -1.0f) bad++;
  CHECK(bad == 0);
  free(s);
  free(d);
}

int main(void) {
  static const int64_t sizes[] = {1, 3, 15, 16, 17, 32, 37, 56};
  int levels = 0;
  for (hlo_isa l = HLO_ISA_BASELINE; l <= HLO_ISA_MAX; l++) {
    if (!hlo_isa_available(l, NULL)) continue;
    levels++;
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
      for (size_t j = 0; j < sizeof sizes / sizeof *sizes; j++) {
        int64_t nr = sizes[i], nc = sizes[j];
        one(l, nr, nc, nc, nr);         /* dense both ways */
        one(l, nr, nc, nc + 3, nr + 5); /* row gaps on both sides */
      }
  }
  CHECK(levels >= 1);
  TEST_MAIN_END("fast_tr16");
}
