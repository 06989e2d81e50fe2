"""The HLO text of one SGD step of a two-layer MLP (x[B,4] -> relu(x w1 +
b1) w2, loss mean((o - y)^2), learning rate 0.1), shared by the tests
(spmd_models.py) and `make bench`: mlp(B, grads, header, ...) with LOCAL
(one device: the gradients as computed) or ALLRED (data parallel: the
gradients all-reduced over the replicas).  The feature sizes are
parameters so that the benchmark can make it larger."""
import numpy as np

MLP_BODY = """
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY step {
  x = f32[B,4] parameter(0)
  y = f32[B,2] parameter(1)
  w1 = f32[4,8] parameter(2)
  b1 = f32[8] parameter(3)
  w2 = f32[8,2] parameter(4)
  xw = f32[B,8] dot(x, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[B,8] broadcast(b1), dimensions={1}
  z = f32[B,8] add(xw, bb)
  zero = f32[] constant(0)
  zeros = f32[B,8] broadcast(zero), dimensions={}
  h = f32[B,8] maximum(z, zeros)
  o = f32[B,2] dot(h, w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  e = f32[B,2] subtract(o, y)
  scale = f32[] constant(SCALE)
  sc = f32[B,2] broadcast(scale), dimensions={}
  do = f32[B,2] multiply(e, sc)
  gw2l = f32[8,2] dot(h, do), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  dh = f32[B,8] dot(do, w2), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  pos = pred[B,8] compare(z, zeros), direction=GT
  dz = f32[B,8] select(pos, dh, zeros)
  gw1l = f32[4,8] dot(x, dz), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  gb1l = f32[8] reduce(dz, zero), dimensions={0}, to_apply=add
GRADS
  lr = f32[] constant(0.1)
  l48 = f32[4,8] broadcast(lr), dimensions={}
  l8 = f32[8] broadcast(lr), dimensions={}
  l82 = f32[8,2] broadcast(lr), dimensions={}
  u1 = f32[4,8] multiply(gw1, l48)
  u2 = f32[8] multiply(gb1, l8)
  u3 = f32[8,2] multiply(gw2, l82)
  nw1 = f32[4,8] subtract(w1, u1)
  nb1 = f32[8] subtract(b1, u2)
  nw2 = f32[8,2] subtract(w2, u3)
  ROOT t = (f32[4,8], f32[8], f32[8,2]) tuple(nw1, nb1, nw2)
}
"""
LOCAL = """  gw1 = f32[4,8] copy(gw1l)
  gb1 = f32[8] copy(gb1l)
  gw2 = f32[8,2] copy(gw2l)"""
ALLRED = """  gw1 = f32[4,8] all-reduce(gw1l), replica_groups={}, to_apply=add
  gb1 = f32[8] all-reduce(gb1l), replica_groups={}, to_apply=add
  gw2 = f32[8,2] all-reduce(gw2l), replica_groups={}, to_apply=add"""


def mlp(batch, grads, header, global_batch=None, features=4, hidden=8, outputs=2):
    """The step for a batch of `batch` rows; the loss averages over
    global_batch rows (default batch)."""
    scale = repr(float(np.float32(2.0 / ((global_batch or batch) * outputs))))
    text = header + MLP_BODY.replace("SCALE", scale).replace("GRADS", grads)
    for name, v in (("B", batch), ("4", features), ("8", hidden), ("2", outputs)):
        text = text.replace("[%s," % name, "[@%d," % v).replace(",%s]" % name, ",@%d]" % v).replace(
            "[%s]" % name, "[@%d]" % v)
    return text.replace("@", "")
