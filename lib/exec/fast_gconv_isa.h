/* fast_gconv_isa.h - inner loops of the direct grouped convolution, included
 * once per instruction set by fast_gconv.c with GC_TGT (function attribute)
 * and GC(name) (adds the type and ISA suffixes) defined, and once per element type with GT
 * (float/double) and GS (32/64).  One call computes a whole output plane of
 * one output feature (four for the f32 "n" variants) from the materialized
 * (padded, lhs-dilated) input planes of its group; W holds its weights at strides wci (input feature)
 * and wky (window row), window columns contiguous.  The sums are formed in the same order for every
 * ISA, so results do not depend on the CPU.  Not a public header. */

/* Output tile of up to GC_NT elements for windows wider than the output
 * (weight gradients): 8 partial sums per output over input features, window
 * rows and blocks of 8 window columns (contiguous thanks to the F phases),
 * combined pairwise at the end.  Every tile reads all of the weights (a
 * weight gradient's output gradient: the largest operand), so a tile takes
 * 16 outputs, a 3x3 window's nine at once. */
#define GC_NT 16
static GC_TGT void GC(wtile)(const gc_plan *p, const GT *P, const GT *W, int64_t wci, int64_t wky,
                             int64_t q0, int nt, GT *out) {
  GT s[GC_NT][8];
  int64_t base[GC_NT];
  memset(s, 0, sizeof s);
  wt_bases(p, q0, nt, base);
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

#if GS == 32
/* GC(wtile) for PN_NO output features at once (fast_gconv.c, gc_multi):
 * W[oo] holds feature oo's weights; each input run is loaded once for all
 * of them.  out holds PN_NO planes nacc apart.  Per output the partial sums
 * and their combination are GC(wtile)'s, so the bits are the same. */
static GC_TGT void GC(wtilen)(const gc_plan *p, const GT *P, const GT *const *W, int64_t wci,
                              int64_t wky, int64_t q0, int nt, GT *out, int64_t nacc) {
  wt_vec s[PN_NO][GC_NT];
  int64_t base[GC_NT];
  memset(s, 0, sizeof s);
  wt_bases(p, q0, nt, base);
  int64_t KX = p->KX, K8 = KX / 8 * 8;
  for (int64_t ci = 0; ci < p->Cig; ci++)
    for (int64_t ky = 0; ky < p->KY; ky++) {
      int64_t wo = ci * wci + ky * wky;
      const GT *w0 = W[0] + wo, *w1 = W[1] + wo, *w2 = W[2] + wo, *w3 = W[3] + wo;
      const GT *x0 = P + ci * p->plane + ky * p->ry * p->RP;
      for (int t = 0; t < nt; t++) {
        const GT *x = x0 + base[t];
        wt_vec a0 = s[0][t], a1 = s[1][t], a2 = s[2][t], a3 = s[3][t];
        for (int64_t kx = 0; kx < K8; kx += 8) {
          wt_vec xv, v0, v1, v2, v3;
          memcpy(&xv, x + kx, sizeof xv);
          memcpy(&v0, w0 + kx, sizeof v0);
          memcpy(&v1, w1 + kx, sizeof v1);
          memcpy(&v2, w2 + kx, sizeof v2);
          memcpy(&v3, w3 + kx, sizeof v3);
          a0 += xv * v0;
          a1 += xv * v1;
          a2 += xv * v2;
          a3 += xv * v3;
        }
        for (int64_t kx = K8; kx < KX; kx++) {
          GT xv = x[kx];
          a0[kx - K8] += xv * w0[kx];
          a1[kx - K8] += xv * w1[kx];
          a2[kx - K8] += xv * w2[kx];
          a3[kx - K8] += xv * w3[kx];
        }
        s[0][t] = a0;
        s[1][t] = a1;
        s[2][t] = a2;
        s[3][t] = a3;
      }
    }
  for (int o = 0; o < PN_NO; o++)
    for (int t = 0; t < nt; t++) {
      wt_vec u = s[o][t];
      out[o * nacc + t] = ((u[0] + u[1]) + (u[2] + u[3])) + ((u[4] + u[5]) + (u[6] + u[7]));
    }
}
#endif

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
/* One output column ox of row oy for the PN_NO features of GC(planen) (the
 * columns past its last whole vector): window rows off `live` and, in the
 * phased layout (cols NULL), window columns on holes are left out. */
static GC_TGT void GC(planen_col)(const gc_plan *p, const GT *P, const GT *Wp, const int64_t *cols,
                                  uint64_t live, int64_t oy, int64_t ox, GT *a, int64_t nacc) {
  GT s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  const GT *w = Wp;
  for (int64_t ci = 0; ci < p->Cig; ci++)
    for (int64_t ky = 0; ky < p->KY; ky++) {
      if (!(live >> ky & 1)) {
        w += p->KX * PN_NO;
        continue;
      }
      const GT *xr = P + ci * p->plane + (oy * p->sy + ky * p->ry) * p->RP;
      for (int64_t kx = 0; kx < p->KX; kx++, w += PN_NO) {
        GT x;
        if (cols) {
          x = xr[ox + cols[kx]];
        } else {
          int64_t c = ox + kx * p->rx;
          if ((c - p->plx) & 1) continue; /* a hole */
          x = xr[GC_COL(p, c)];
        }
        s0 += w[0] * x;
        s1 += w[1] * x;
        s2 += w[2] * x;
        s3 += w[3] * x;
      }
    }
  a[ox] = s0;
  a[nacc + ox] = s1;
  a[2 * nacc + ox] = s2;
  a[3 * nacc + ox] = s3;
}
#endif

#if GS == 32
/* GC(planen) on an lhs dilation of 2 at unit column stride (p->phased):
 * rows are stored in F = 2 phases, the input's columns all in phase
 * plx mod 2 and the holes in the other.  Output columns 2j and 2j + 1 are
 * computed apart, DWB values of j per vector: for each window column the
 * input sits under the even outputs or under the odd ones, read from one
 * phase contiguously, so the hole products are left out; the two vectors
 * are interleaved on the store.  Per output the sum runs over ci, ky, kx
 * from zero as in GC(planen), without its zero terms: the same bits. */
static GC_TGT void GC(planen_ph)(const gc_plan *p, const GT *P, const GT *Wp, GT *acc, int64_t nacc) {
  int64_t OY = p->OY, OX = p->OX, ap = p->apitch, RP = p->RP, KY = p->KY, KX = p->KX;
  int64_t Cig = p->Cig, rx = p->rx, plx = p->plx, OXV = OX / (2 * DWB) * (2 * DWB);
  for (int64_t oy = 0; oy < OY; oy++) {
    GT *a = acc + oy * ap;
    uint64_t live = row_mask(p, oy);
    for (int64_t ox = 0; ox < OXV; ox += 2 * DWB) {
      dw_vec e0 = {0}, e1 = {0}, e2 = {0}, e3 = {0}, o0 = {0}, o1 = {0}, o2 = {0}, o3 = {0};
      const GT *w = Wp;
      for (int64_t ci = 0; ci < Cig; ci++)
        for (int64_t ky = 0; ky < KY; ky++) {
          if (!(live >> ky & 1)) {
            w += KX * PN_NO;
            continue;
          }
          const GT *xr = P + ci * p->plane + (oy * p->sy + ky * p->ry) * RP + ox / 2;
          for (int64_t kx = 0; kx < KX; kx++, w += PN_NO) {
            int64_t c = kx * rx; /* column of output 0 */
            dw_vec x;
            if (((c - plx) & 1) == 0) { /* input under the even outputs */
              memcpy(&x, xr + GC_COL(p, c), sizeof x);
              e0 += w[0] * x;
              e1 += w[1] * x;
              e2 += w[2] * x;
              e3 += w[3] * x;
            } else {
              memcpy(&x, xr + GC_COL(p, c + 1), sizeof x);
              o0 += w[0] * x;
              o1 += w[1] * x;
              o2 += w[2] * x;
              o3 += w[3] * x;
            }
          }
        }
      /* interleaved: output 2j from the even sums, 2j + 1 from the odd */
      const dw_vec *ev[PN_NO] = {&e0, &e1, &e2, &e3}, *od[PN_NO] = {&o0, &o1, &o2, &o3};
      for (int f = 0; f < PN_NO; f++) {
        GT *d = a + f * nacc + ox;
        for (int i = 0; i < DWB; i++) {
          d[2 * i] = (*ev[f])[i];
          d[2 * i + 1] = (*od[f])[i];
        }
      }
    }
    for (int64_t ox = OXV; ox < OX; ox++) GC(planen_col)(p, P, Wp, NULL, live, oy, ox, a, nacc);
  }
}
#endif

#if GS == 32
/* PN_NO output features of a group at once (fast_gconv.c, gc_multi; 2-D,
 * not window-major): each input vector of DWB output columns is loaded once
 * and multiplied by PN_NO weights (Wp [ci][ky][kx][PN_NO], zero past the
 * block's last feature), the sums in registers; cols[kx] is window column
 * kx's offset in a materialized row.  acc holds PN_NO planes nacc apart.
 * Per output the sum runs over ci, ky, kx from zero, as in GC(plane), so
 * the two give the same bits.  Window rows that fall on rows of padding
 * or of lhs-dilation holes hold zeros and are skipped (row_mask): adding
 * an exact zero to a sum that starts at +0 changes no bit, and the
 * reference skips them too (an image layer's input gradient: half of the
 * products for stride 2). */
static GC_TGT void GC(planen)(const gc_plan *p, const GT *P, const GT *Wp, const int64_t *cols,
                              GT *acc, int64_t nacc) {
  if (p->phased) {
    GC(planen_ph)(p, P, Wp, acc, nacc);
    return;
  }
  int64_t OY = p->OY, OX = p->OX, ap = p->apitch, RP = p->RP, KY = p->KY, KX = p->KX;
  int64_t Cig = p->Cig, OXV = OX / DWB * DWB;
  for (int64_t oy = 0; oy < OY; oy++) {
    GT *a = acc + oy * ap;
    uint64_t live = row_mask(p, oy);
    for (int64_t ox = 0; ox < OXV; ox += DWB) {
      dw_vec v0 = {0}, v1 = {0}, v2 = {0}, v3 = {0};
      const GT *w = Wp;
      for (int64_t ci = 0; ci < Cig; ci++)
        for (int64_t ky = 0; ky < KY; ky++) {
          if (!(live >> ky & 1)) {
            w += KX * PN_NO;
            continue;
          }
          const GT *xr = P + ci * p->plane + (oy * p->sy + ky * p->ry) * RP + ox;
          for (int64_t kx = 0; kx < KX; kx++, w += PN_NO) {
            dw_vec x;
            memcpy(&x, xr + cols[kx], sizeof x);
            v0 += w[0] * x;
            v1 += w[1] * x;
            v2 += w[2] * x;
            v3 += w[3] * x;
          }
        }
      memcpy(a + ox, &v0, sizeof v0);
      memcpy(a + nacc + ox, &v1, sizeof v1);
      memcpy(a + 2 * nacc + ox, &v2, sizeof v2);
      memcpy(a + 3 * nacc + ox, &v3, sizeof v3);
    }
    for (int64_t ox = OXV; ox < OX; ox++) GC(planen_col)(p, P, Wp, cols, live, oy, ox, a, nacc);
  }
}
#endif

#if GS == 32
/* Depthwise, channel-blocked (fast_gconv.c, dw_item): X [PH][PW][DWB] and
 * K [KY][KX][DWB] hold DWB channels side by side, so every multiply-add is
 * one vector (dw_vec) over the channels whatever the plane's width; acc
 * [OY][OX][DWB] is added to.  With lhs dilation (ly or lx > 1) the window
 * positions that fall on holes of the dilated input are skipped (they hold
 * zero and add nothing, as in the reference); outputs ox = rho, rho + lx,
 * ... meet holes at the same window columns, so a tile takes up to DW_T of
 * them, lx apart, their sums in registers.  Per output and lane the sum
 * runs over the remaining ky, then kx, whatever the tile. */
#define DW_T 4
#define DW_LD(v, ptr) memcpy(&(v), (ptr), sizeof(dw_vec))
static GC_TGT void GC(dw)(const gc_plan *p, const GT *X, const GT *K, GT *acc) {
  int64_t OY = p->OY, OX = p->OX, KY = p->KY, KX = p->KX, PW = p->PW;
  int64_t sy = p->sy, sx = p->sx, ry = p->ry, rx = p->rx, ly = p->ly, lx = p->lx;
  int64_t dmy = ry % ly, dmx = rx % lx, xs = lx * sx * DWB, as = lx * DWB;
  for (int64_t oy = 0; oy < OY; oy++) {
    int64_t my0 = ((oy * sy - p->ply) % ly + ly) % ly; /* hole residue of row ky = 0 */
    for (int64_t rho = 0; rho < lx && rho < OX; rho++) {
      int64_t mx0 = ((rho * sx - p->plx) % lx + lx) % lx;
      for (int64_t ox = rho; ox < OX; ox += DW_T * lx) {
        int64_t nt = (OX - 1 - ox) / lx + 1;
        GT *a = acc + (oy * OX + ox) * DWB;
        dw_vec v0, v1 = {0}, v2 = {0}, v3 = {0};
        DW_LD(v0, a);
        if (nt > 1) DW_LD(v1, a + as);
        if (nt > 2) DW_LD(v2, a + 2 * as);
        if (nt > 3) DW_LD(v3, a + 3 * as);
        int64_t my = my0;
        for (int64_t ky = 0; ky < KY; ky++, my = my + dmy >= ly ? my + dmy - ly : my + dmy) {
          if (my) continue;
          const GT *xr = X + ((oy * sy + ky * ry) * PW + ox * sx) * DWB, *kr = K + ky * KX * DWB;
          int64_t mx = mx0;
          for (int64_t kx = 0; kx < KX; kx++, mx = mx + dmx >= lx ? mx + dmx - lx : mx + dmx) {
            if (mx) continue;
            const GT *x = xr + kx * rx * DWB;
            dw_vec k, x0, x1, x2, x3;
            DW_LD(k, kr + kx * DWB);
            DW_LD(x0, x);
            v0 += k * x0;
            if (nt >= DW_T) {
              DW_LD(x1, x + xs);
              DW_LD(x2, x + 2 * xs);
              DW_LD(x3, x + 3 * xs);
              v1 += k * x1;
              v2 += k * x2;
              v3 += k * x3;
            } else if (nt > 1) {
              DW_LD(x1, x + xs);
              v1 += k * x1;
              if (nt > 2) {
                DW_LD(x2, x + 2 * xs);
                v2 += k * x2;
              }
            }
          }
        }
        memcpy(a, &v0, sizeof v0);
        if (nt > 1) memcpy(a + as, &v1, sizeof v1);
        if (nt > 2) memcpy(a + 2 * as, &v2, sizeof v2);
        if (nt > 3) memcpy(a + 3 * as, &v3, sizeof v3);
      }
    }
  }
}
#undef DW_LD
#undef DW_T
#endif
