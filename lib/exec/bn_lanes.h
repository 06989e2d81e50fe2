/* bn_lanes.h - the summation order of batch-norm statistics, one place for
 * the reference (ref_solve.c) and the fast kernels (kern_bn.c) so that
 * they agree bit for bit.  A feature's elements lie in runs (the
 * dimensions after feature_index are contiguous); element i of each run
 * goes to double accumulator i mod BN_LANES, runs in order, and the lanes
 * are combined pairwise at the end.  Eight independent sums let the adds
 * run at the adder's throughput (and in vector registers) instead of
 * waiting on one another's latency, which had made batch norm the slowest
 * memory-bound step of a training run. */
#ifndef HLO_EXEC_BN_LANES_H
#define HLO_EXEC_BN_LANES_H

#define BN_LANES 8

static inline double bn_lanes_total(const double *acc) {
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

#endif
