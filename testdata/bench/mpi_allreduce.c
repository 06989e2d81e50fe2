/* mpi_allreduce.c - the baseline of the all-reduce benchmark of `make
 * bench` (not part of libhlo): MPI_Allreduce of a float sum called
 * directly, for each byte size given, best of REPS runs after a warm-up.
 * Run as `mpirun -np 4 mpi_allreduce REPS BYTES...`; rank 0 prints one line
 * per size: "BYTES SECONDS". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int reps = argc > 1 ? atoi(argv[1]) : 5;
  for (int a = 2; a < argc; a++) {
    long long bytes = atoll(argv[a]);
    int n = (int)(bytes / 4);
    float *in = malloc(sizeof(float) * (size_t)(n + 1)), *out = malloc(sizeof(float) * (size_t)(n + 1));
    if (!in || !out) MPI_Abort(MPI_COMM_WORLD, 2);
    for (int i = 0; i < n; i++) in[i] = (float)(i % 7) * 0.5f + (float)rank;
    double best = 1e30;
    for (int r = 0; r <= reps; r++) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t = MPI_Wtime();
      MPI_Allreduce(in, out, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      double dt = MPI_Wtime() - t, worst;
      MPI_Allreduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      if (r > 0 && worst < best) best = worst;
    }
    if (rank == 0) printf("%lld %.9f\n", bytes, best);
    free(in);
    free(out);
  }
  MPI_Finalize();
  return 0;
}
