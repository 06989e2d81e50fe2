"""Writes N random HLO modules random_<i>.hlo into DIR (seeded: the same
files every run).  Each module mixes what the passes of hlo-opt rewrite:
identities with constants 0 and 1, duplicated expressions, dead values,
tuples read back, calls, while loops of 0, 1 and 3 iterations, sorts with
unread operands, constant subexpressions, reshape/transpose pairs, slices
of slices, zero-sized values, elementwise ops of reshaped operands,
reduces over size-1 and zero-sized dimensions, and dots without
contracting dimensions or with zero-sized operands, and integer reduces
of reduces and of transposes, pred or-reduces of transposes."""
import random, sys

out, count = sys.argv[1], int(sys.argv[2])
S = "f32[4,6]"


def module(seed):
    r = random.Random(seed)
    lines, pool, n = [], ["p0", "p1"], [0]
    comps = []

    def new(text):
        n[0] += 1
        name = "v%d" % n[0]
        lines.append("  %s = %s" % (name, text))
        return name

    def pick():
        return r.choice(pool)

    comps.append("neg {\n  a = %s parameter(0)\n  ROOT n = %s negate(a)\n}\n" % (S, S))
    comps.append("lt {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  c = f32[] parameter(2)\n"
                 "  d = f32[] parameter(3)\n  ROOT l = pred[] compare(a, b), direction=LT\n}\n")
    for trips in (0, 1, 3):
        comps.append("cond%d {\n  p = (s32[], %s) parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n"
                     "  k = s32[] constant(%d)\n  ROOT c = pred[] compare(i, k), direction=LT\n}\n" % (trips, S, trips))
    comps.append("body {\n  p = (s32[], %s) parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n"
                 "  x = %s get-tuple-element(p), index=1\n  one = s32[] constant(1)\n  j = s32[] add(i, one)\n"
                 "  y = %s multiply(x, x)\n  ROOT t = (s32[], %s) tuple(j, y)\n}\n" % (S, S, S, S))
    comps.append("sum {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n")
    comps.append("max {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT m = f32[] maximum(a, b)\n}\n")
    comps.append("isum {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  ROOT s = s32[] add(a, b)\n}\n")
    comps.append("lor {\n  a = pred[] parameter(0)\n  b = pred[] parameter(1)\n  ROOT o = pred[] or(a, b)\n}\n")
    zero = new("f32[] constant(0)")
    one = new("f32[] constant(1)")
    z = new("%s broadcast(%s), dimensions={}" % (S, zero))
    o = new("%s broadcast(%s), dimensions={}" % (S, one))
    for _ in range(r.randint(6, 14)):
        k = r.randint(0, 19)
        a, b = pick(), pick()
        if k == 0:
            v = new("%s add(%s, %s)" % (S, a, r.choice([z, b])))
        elif k == 1:
            v = new("%s multiply(%s, %s)" % (S, r.choice([o, a]), b))
        elif k == 2:  # the same expression twice
            v1 = new("%s subtract(%s, %s)" % (S, a, b))
            v2 = new("%s subtract(%s, %s)" % (S, a, b))
            v = new("%s maximum(%s, %s)" % (S, v1, v2))
        elif k == 3:
            t = new("(%s, %s) tuple(%s, %s)" % (S, S, a, b))
            v = new("%s get-tuple-element(%s), index=%d" % (S, t, r.randint(0, 1)))
        elif k == 4:
            v = new("%s call(%s), to_apply=neg" % (S, a))
        elif k == 5:
            i0 = new("s32[] constant(0)")
            t = new("(s32[], %s) tuple(%s, %s)" % (S, i0, a))
            w = new("(s32[], %s) while(%s), condition=cond%d, body=body" % (S, t, r.choice([0, 1, 3])))
            v = new("%s get-tuple-element(%s), index=1" % (S, w))
        elif k == 6:
            s = new("(%s, %s) sort(%s, %s), dimensions={1}, to_apply=lt" % (S, S, a, b))
            v = new("%s get-tuple-element(%s), index=%d" % (S, s, r.randint(0, 1)))
        elif k == 7:
            c1 = new("%s constant({{1,2,3,4,5,6},{1,2,3,4,5,6},{0.5,1,2,4,8,16},{3,3,3,3,3,3}})" % S)
            c2 = new("%s exponential(%s)" % (S, c1))
            v = new("%s add(%s, %s)" % (S, a, c2))
        elif k == 8:
            t1 = new("f32[6,4] transpose(%s), dimensions={1,0}" % a)
            v = new("%s transpose(%s), dimensions={1,0}" % (S, t1))
        elif k == 9:
            r1 = new("f32[24] reshape(%s)" % a)
            r2 = new("f32[6,4] reshape(%s)" % r1)
            v = new("%s reshape(%s)" % (S, r2))
        elif k == 10:
            s1 = new("f32[4,4] slice(%s), slice={[0:4], [1:5]}" % a)
            s2 = new("f32[2,2] slice(%s), slice={[1:3], [0:4:2]}" % s1)
            bs = new("%s pad(%s, %s), padding=1_1x2_2" % (S, s2, zero))
            v = new("%s add(%s, %s)" % (S, b, bs))
        elif k == 11:
            e = new("f32[4,0] slice(%s), slice={[0:4], [0:0]}" % a)
            n1 = new("f32[4,0] negate(%s)" % e)
            v = new("%s concatenate(%s, %s), dimensions={1}" % (S, a, n1))
        elif k == 12:
            r1 = new("f32[24] reshape(%s)" % a)
            r2 = new("f32[24] reshape(%s)" % b)
            m = new("f32[24] multiply(%s, %s)" % (r1, r2))
            v = new("%s reshape(%s)" % (S, m))
        elif k == 13:
            new("%s negate(%s)" % (S, a))  # dead
            v = new("%s negate(%s)" % (S, a))
            v = new("%s negate(%s)" % (S, v))
        elif k == 15:  # a reduce that only reshapes, and one of no elements
            r1 = new("f32[4,1,6] reshape(%s)" % a)
            init, f = r.choice([(zero, "sum"), (new("f32[] constant(-inf)"), "max")])
            v = new("%s reduce(%s, %s), dimensions={1}, to_apply=%s" % (S, r1, init, f))
            e = new("f32[0,6] slice(%s), slice={[0:0], [0:6]}" % b)
            er = new("f32[6] reduce(%s, %s), dimensions={0}, to_apply=%s" % (e, init, f))
            v = new("%s maximum(%s, %s)" % (S, v, new("%s broadcast(%s), dimensions={1}" % (S, er))))
        elif k == 16:  # outer products, with and without a batch dimension
            u = new("f32[4] reshape(%s)" % new("f32[4,1] slice(%s), slice={[0:4], [2:3]}" % a))
            w = new("f32[6] reshape(%s)" % new("f32[1,6] slice(%s), slice={[1:2], [0:6]}" % b))
            if r.randint(0, 1):
                v = new("%s dot(%s, %s), lhs_contracting_dims={}, rhs_contracting_dims={}" % (S, u, w))
            else:  # over a contracting dimension of size 1
                u1, w1 = new("f32[4,1] reshape(%s)" % u), new("f32[1,6] reshape(%s)" % w)
                v = new("%s dot(%s, %s), lhs_contracting_dims={1}, rhs_contracting_dims={0}" % (S, u1, w1))
            bo = new("f32[4,6,6] dot(%s, %s), lhs_batch_dims={0}, rhs_batch_dims={0}, "
                     "lhs_contracting_dims={}, rhs_contracting_dims={}" % (v, b))
            v = new("%s reduce(%s, %s), dimensions={2}, to_apply=max" % (S, bo, new("f32[] constant(-inf)")))
        elif k == 17:  # a dot over a zero-sized contracting dimension
            e1 = new("f32[4,0] slice(%s), slice={[0:4], [0:0]}" % a)
            e2 = new("f32[0,6] slice(%s), slice={[0:0], [0:6]}" % b)
            v = new("%s add(%s, %s)" % (S, a, new("%s dot(%s, %s), lhs_contracting_dims={1}, rhs_contracting_dims={0}"
                                                  % (S, e1, e2))))
        elif k == 18:  # integer reduce of a reduce and of a transpose
            i = new("s32[4,6] convert(%s)" % new("%s multiply(%s, %s)" % (S, a, new("%s broadcast(%s), dimensions={}" % (S, new("f32[] constant(1000)"))))))
            i0 = new("s32[] constant(0)")
            r1 = new("s32[6] reduce(%s, %s), dimensions={0}, to_apply=isum" % (i, i0))
            r2 = new("s32[] reduce(%s, %s), dimensions={0}, to_apply=isum" % (r1, i0))
            t = new("s32[6,4] transpose(%s), dimensions={1,0}" % i)
            r3 = new("s32[4] reduce(%s, %s), dimensions={0}, to_apply=isum" % (t, i0))
            s3 = new("s32[4,6] add(%s, %s)" % (new("s32[4,6] broadcast(%s), dimensions={0}" % r3),
                                               new("s32[4,6] broadcast(%s), dimensions={}" % r2)))
            v = new("%s add(%s, %s)" % (S, b, new("%s convert(%s)" % (S, s3))))
        elif k == 19:  # pred or-reduce of a transpose
            pt = new("pred[6,4] transpose(%s), dimensions={1,0}" % new("pred[4,6] compare(%s, %s), direction=GT" % (a, b)))
            pr = new("pred[4] reduce(%s, %s), dimensions={0}, to_apply=lor" % (pt, new("pred[] constant(false)")))
            v = new("%s select(%s, %s, %s)" % (S, new("pred[4,6] broadcast(%s), dimensions={0}" % pr), a, b))
        else:
            v = new("%s select(%s, %s, %s)" % (S, new("pred[4,6] compare(%s, %s), direction=GT" % (a, b)), a, a))
        pool.append(v)
    outs = pool[-3:]
    lines.append("  ROOT out = (%s) tuple(%s)" % (", ".join([S] * len(outs)), ", ".join(outs)))
    head = "HloModule random_%d\n\n" % seed
    entry = "ENTRY main {\n  p0 = %s parameter(0)\n  p1 = %s parameter(1)\n%s\n}\n" % (S, S, "\n".join(lines))
    return head + "\n".join(comps) + "\n" + entry


for i in range(count):
    with open("%s/random_%d.hlo" % (out, i), "w") as f:
        f.write(module(i))
