/* comm_impl.h - the communicator's fields, shared by comm.c (rendezvous)
 * and devices.c (the device group that runs one thread per device). */
#ifndef HLO_EXEC_COMM_IMPL_H
#define HLO_EXEC_COMM_IMPL_H

#include <pthread.h>

#include "hlo/hlo_exec.h"

typedef struct hlo_rdv hlo_rdv;
struct hlo_comm {
  const hlo_allocator *alloc;
  int replicas, partitions;
  int *assignment;        /* device id by logical device */
  double timeout;         /* seconds */
  pthread_mutex_t mu;
  pthread_cond_t cv;      /* any change of a meeting or of `aborted` */
  hlo_rdv *meetings;      /* open meetings */
  bool aborted;
  int first_failed;       /* logical device that failed first, -1 none */
};

/* Record that device failed (the first one is kept) and stop every wait. */
void hlo_comm_fail(hlo_comm *c, int device);
/* Drop meetings left by a failed run and clear the failure (no device may
 * be running). */
void hlo_comm_reset(hlo_comm *c);

#endif
