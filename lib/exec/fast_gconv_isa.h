/* fast_gconv_isa.h - inner loops of the direct grouped convolution, included
 * once per instruction set by fast_gconv.c with GC_TGT (function attribute)
 * and GC(name) (adds the type and ISA suffixes) defined, and once per element type with GT
 * (float/double) and GS (32/64).  One call computes a whole output plane of
 * one output feature from the materialized (padded, lhs-dilated) input
 * planes of its group; W holds its weights at strides wci (input feature)
 * and wky (window row), window columns contiguous.  The sums are formed in the same order for every
 * ISA, so results do not depend on the CPU.  Not a public header. */

/* Address of column c in a materialized row. */
#define GC_COL(p, c) ((c) % (p)->F * (p)->PWF + (c) / (p)->F)

/* Output tile of up to GC_NT elements for windows wider than the output
 * (weight gradients): 8 partial sums per output over input features, window
 * rows and blocks of 8 window columns (contiguous thanks to the F phases),
 * combined pairwise at the end. */
#define GC_NT 8
static GC_TGT void GC(wtile)(const gc_plan *p, const GT *P, const GT *W, int64_t wci, int64_t wky,
                             int64_t q0, int nt, GT *out) {
  GT s[GC_NT][8];
  int64_t base[GC_NT];
  memset(s, 0, sizeof s);
  for (int t = 0; t < nt; t++) {
    int64_t q = q0 + t, oy = q / p->OX, ox = q % p->OX;
    base[t] = oy * p->sy * p->RP + GC_COL(p, ox * p->sx);
  }
  int64_t KX = p->KX, K8 = KX / 8 * 8;
  for (int64_t ci = 0; ci < p->Cig; ci++)
    for (int64_t ky = 0; ky < p->KY; ky++) {
      const GT *w = W + ci * wci + ky * wky;
      const GT *x0 = P + ci * p->plane + ky * p->ry * p->RP;
      for (int t = 0; t < nt; t++) {
        const GT *x = x0 + base[t];
        GT *st = s[t];
        for (int64_t kx = 0; kx < K8; kx += 8)
          for (int j = 0; j < 8; j++) st[j] += x[kx + j] * w[kx + j];
        for (int64_t kx = K8; kx < KX; kx++) st[kx - K8] += x[kx] * w[kx];
      }
    }
  for (int t = 0; t < nt; t++)
    out[t] = ((s[t][0] + s[t][1]) + (s[t][2] + s[t][3])) + ((s[t][4] + s[t][5]) + (s[t][6] + s[t][7]));
}

static GC_TGT void GC(plane)(const gc_plan *p, const GT *P, const GT *W, int64_t wci, int64_t wky,
                             GT *acc) {
  int64_t OY = p->OY, OX = p->OX, ap = p->apitch, RP = p->RP;
  if (p->window_major) {
    /* ap == OX: the outputs are q = oy * OX + ox */
    for (int64_t q0 = 0; q0 < OY * OX; q0 += GC_NT) {
      int nt = OY * OX - q0 < GC_NT ? (int)(OY * OX - q0) : GC_NT;
      GC(wtile)(p, P, W, wci, wky, q0, nt, acc + q0);
    }
    return;
  }
  memset(acc, 0, sizeof(GT) * (size_t)(OY * ap));
  for (int64_t ci = 0; ci < p->Cig; ci++) {
    const GT *Pc = P + ci * p->plane, *Wc = W + ci * wci;
    if (p->sx == 1 && p->sy == 1) {
      /* unit stride (F == 1): the output plane with row pitch PW is one
       * long line; columns past OX are scratch */
      int64_t n = (OY - 1) * RP + OX;
      for (int64_t ky = 0; ky < p->KY; ky++)
        for (int64_t kx = 0; kx < p->KX; kx++) {
          GT w = Wc[ky * wky + kx];
          const GT *x = Pc + ky * p->ry * RP + kx * p->rx;
          for (int64_t t = 0; t < n; t++) acc[t] += w * x[t];
        }
    } else {
      /* strided: output columns step through one phase (F == sx) */
      for (int64_t ky = 0; ky < p->KY; ky++)
        for (int64_t kx = 0; kx < p->KX; kx++) {
          GT w = Wc[ky * wky + kx];
          int64_t col = GC_COL(p, kx * p->rx);
          for (int64_t oy = 0; oy < OY; oy++) {
            const GT *x = Pc + (oy * p->sy + ky * p->ry) * RP + col;
            GT *a = acc + oy * ap;
            for (int64_t ox = 0; ox < OX; ox++) a[ox] += w * x[ox];
          }
        }
    }
  }
}

#if GS == 32
/* Depthwise, channel-blocked (fast_gconv.c, dw_item): X [PH][PW][DWB] and
 * K [KY][KX][DWB] hold DWB channels side by side, so every multiply-add is
 * one vector over the channels whatever the plane's width; acc
 * [OY][OX][DWB] is added to.  Outputs go in tiles of up to 4 along a row,
 * their sums in registers; per output and lane the sum runs over ky, then
 * kx, whatever the tile. */
#define DW_T 4
static GC_TGT void GC(dw)(const gc_plan *p, const GT *X, const GT *K, GT *acc) {
  int64_t OY = p->OY, OX = p->OX, KY = p->KY, KX = p->KX, PW = p->PW;
  int64_t sy = p->sy, sxb = p->sx * DWB, ry = p->ry, rx = p->rx;
  for (int64_t oy = 0; oy < OY; oy++)
    for (int64_t ox = 0; ox < OX; ox += DW_T) {
      GT *a = acc + (oy * OX + ox) * DWB;
      if (OX - ox >= DW_T) {
        GT v[DW_T][DWB];
        memcpy(v, a, sizeof v);
        for (int64_t ky = 0; ky < KY; ky++) {
          const GT *xr = X + ((oy * sy + ky * ry) * PW) * DWB + ox * sxb, *kr = K + ky * KX * DWB;
          for (int64_t kx = 0; kx < KX; kx++) {
            const GT *k = kr + kx * DWB, *x = xr + kx * rx * DWB;
            for (int t = 0; t < DW_T; t++)
              for (int l = 0; l < DWB; l++) v[t][l] += k[l] * x[t * sxb + l];
          }
        }
        memcpy(a, v, sizeof v);
        continue;
      }
      for (int64_t t = 0; t < OX - ox; t++) {
        GT v[DWB];
        memcpy(v, a + t * DWB, sizeof v);
        for (int64_t ky = 0; ky < KY; ky++) {
          const GT *xr = X + ((oy * sy + ky * ry) * PW) * DWB + (ox + t) * sxb, *kr = K + ky * KX * DWB;
          for (int64_t kx = 0; kx < KX; kx++)
            for (int l = 0; l < DWB; l++) v[l] += kr[kx * DWB + l] * xr[kx * rx * DWB + l];
        }
        memcpy(a + t * DWB, v, sizeof v);
      }
    }
}
#undef DW_T
#endif
