/* spin.h - the short wait before sleeping that the device group (devices.c)
 * and the communicator (comm.c) use: watch a counter that every wake-up
 * bumps for a few microseconds, yielding the core between looks, so that a
 * wake-up coming soon costs no sleep and no futex; after that the caller
 * sleeps on its condition variable.  The budget is short because the
 * devices may outnumber the cores: a waiter must not hold a core long from
 * the device it waits for. */
#ifndef HLO_EXEC_SPIN_H
#define HLO_EXEC_SPIN_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>

enum { HLO_SPIN_NS = 20000 };

/* Whether *x differs from old within HLO_SPIN_NS nanoseconds. */
static inline bool hlo_spin_changed(const atomic_uint *x, unsigned old) {
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (unsigned i = 1;; i++) {
    if (atomic_load_explicit(x, memory_order_acquire) != old) return true;
    if (i % 8 == 0) {
      clock_gettime(CLOCK_MONOTONIC, &t);
      if ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) > HLO_SPIN_NS) return false;
    }
    sched_yield();
  }
}

/* Wait, mu held, until *x is no longer old: a short spin with mu released,
 * then cv until the absolute deadline (none when NULL).  ETIMEDOUT or 0;
 * may return early: the caller rechecks its condition. */
static inline int hlo_spin_wait(pthread_mutex_t *mu, pthread_cond_t *cv, const atomic_uint *x,
                                unsigned old, const struct timespec *deadline) {
  pthread_mutex_unlock(mu);
  bool changed = hlo_spin_changed(x, old);
  pthread_mutex_lock(mu);
  if (changed || atomic_load(x) != old) return 0;
  return deadline ? pthread_cond_timedwait(cv, mu, deadline) : pthread_cond_wait(cv, mu);
}

#endif
