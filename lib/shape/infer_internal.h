/* infer_internal.h - the context and helpers shared by the per-group shape
 * inference files (infer_*.c).  Not a public header. */
#ifndef HLO_INFER_INTERNAL_H
#define HLO_INFER_INTERNAL_H

#include "hlo/hlo_shape_infer.h"
#include "hlo/hlo_text.h" /* hlo_shape_str */

typedef struct infer_ctx {
  const hlo_instruction *in;
  hlo_arena *a;
  hlo_diags *d;
  const hlo_src *src;
  hlo_shape *out;
} infer_ctx;

/* Record "%name: msg" at the instruction; returns HLO_ERR. */
int sx_fail(infer_ctx *c, const char *fmt, ...) HLO_PRINTF(2, 3);
/* Operand i's shape (callers have checked the operand count). */
const hlo_shape *sx_op(const infer_ctx *c, int i);
/* Shape text for messages (never NULL; "?" when out of memory). */
const char *sx_str(infer_ctx *c, const hlo_shape *s);
/* Scratch array of n elements in the result arena (NULL on failure);
 * used instead of variable-length arrays sized by operand counts. */
#define SX_TMP(c, n, T) ((T *)hlo_arena_array((c)->a, (size_t)(n) ? (size_t)(n) : 1, sizeof(T)))
/* Result setters: each returns HLO_OK or HLO_ERR (allocation failure). */
int sx_array(infer_ctx *c, hlo_type t, int rank, const int64_t *dims);
int sx_copy(infer_ctx *c, const hlo_shape *s);
int sx_scalar(infer_ctx *c, hlo_type t);
int sx_token(infer_ctx *c);
/* A tuple result of n shapes (copied). */
int sx_tuple(infer_ctx *c, int n, const hlo_shape *const *elems);
/* The declared shape, or an error if it was omitted. */
int sx_declared(infer_ctx *c);
/* Operand i must be an array, not a tuple, token or buffer (XLA's
 * ExpectArray); error naming `what`. */
int sx_need_array(infer_ctx *c, int i, const char *what);
/* The same where XLA also takes a buffer b(...) (Shape::IsArray). */
int sx_need_array_or_buffer(infer_ctx *c, int i, const char *what);
/* The declared element type if the shape was written and is an array,
 * else dflt. */
hlo_type sx_declared_type(const infer_ctx *c, hlo_type dflt);
bool sx_same_type_fp(hlo_type a, hlo_type b); /* equal, or both floating */
bool sx_same_dims(const hlo_shape *a, const hlo_shape *b); /* rank and sizes */
bool sx_is_signed(hlo_type t);                /* signed int or float */
bool sx_is_complex(hlo_type t);
hlo_type sx_complex_component(hlo_type t);
/* Dimension list attribute checks: every entry in [0, rank). */
int sx_dims_in_range(infer_ctx *c, const char *what, const int64_t *v, int n, int rank);
int sx_dims_unique(infer_ctx *c, const char *what, const int64_t *v, int n);
/* Mark result dimension `od` dynamic if dimension `sd` of src is (bounded
 * or unbounded dynamic dimensions keep their marker through the op). */
int sx_keep_dynamic(infer_ctx *c, int od, const hlo_shape *src, int sd);
/* Output size of one windowed dimension; -1 on invalid parameters. */
int64_t sx_window_out(int64_t n, const hlo_window_dim *w);
/* The root shape of called computation k of the instruction, or NULL with an
 * error recorded. */
const hlo_shape *sx_called_root(infer_ctx *c, int k, const char *what);
/* Number of devices per replica group (from explicit or iota groups), or 0
 * if the groups are empty / unknown. */
int64_t sx_group_size(const hlo_instruction *in);

/* Per-group entry points, dispatched from infer.c. */
int hlo_shape_infer_unary(infer_ctx *c);
int hlo_shape_infer_binary(infer_ctx *c);
int hlo_shape_infer_compare(infer_ctx *c);
int hlo_shape_infer_select(infer_ctx *c);
int hlo_shape_infer_clamp(infer_ctx *c);
int hlo_shape_infer_convert(infer_ctx *c);
int hlo_shape_infer_bitcast_convert(infer_ctx *c);
int hlo_shape_infer_stochastic_convert(infer_ctx *c);
int hlo_shape_infer_reduce_precision(infer_ctx *c);

int hlo_shape_infer_reshape(infer_ctx *c);
int hlo_shape_infer_dynamic_reshape(infer_ctx *c);
int hlo_shape_infer_transpose(infer_ctx *c);
int hlo_shape_infer_broadcast(infer_ctx *c);
int hlo_shape_infer_slice(infer_ctx *c);
int hlo_shape_infer_dynamic_slice(infer_ctx *c);
int hlo_shape_infer_dynamic_update_slice(infer_ctx *c);
int hlo_shape_infer_pad(infer_ctx *c);
int hlo_shape_infer_concatenate(infer_ctx *c);
int hlo_shape_infer_reverse(infer_ctx *c);
int hlo_shape_infer_iota(infer_ctx *c);
int hlo_shape_infer_gather(infer_ctx *c);
int hlo_shape_infer_scatter(infer_ctx *c);

int hlo_shape_infer_reduce(infer_ctx *c);
int hlo_shape_infer_reduce_window(infer_ctx *c);
int hlo_shape_infer_select_and_scatter(infer_ctx *c);
int hlo_shape_infer_sort(infer_ctx *c);
int hlo_shape_infer_topk(infer_ctx *c);
int hlo_shape_infer_batch_norm(infer_ctx *c);

int hlo_shape_infer_dot(infer_ctx *c);
int hlo_shape_infer_ragged_dot(infer_ctx *c);
int hlo_shape_infer_scaled_dot(infer_ctx *c);
int hlo_shape_infer_convolution(infer_ctx *c);
int hlo_shape_infer_fft(infer_ctx *c);
int hlo_shape_infer_triangular_solve(infer_ctx *c);
int hlo_shape_infer_cholesky(infer_ctx *c);

int hlo_shape_infer_same_as_operands(infer_ctx *c);
int hlo_shape_infer_all_to_all(infer_ctx *c);
int hlo_shape_infer_all_gather(infer_ctx *c);
int hlo_shape_infer_all_gather_start(infer_ctx *c);
int hlo_shape_infer_reduce_scatter(infer_ctx *c);
int hlo_shape_infer_all_reduce_done(infer_ctx *c);
int hlo_shape_infer_async_result(infer_ctx *c);
int hlo_shape_infer_ragged_all_to_all(infer_ctx *c);
int hlo_shape_infer_collective_permute(infer_ctx *c);
int hlo_shape_infer_collective_permute_start(infer_ctx *c);
int hlo_shape_infer_send(infer_ctx *c);
int hlo_shape_infer_send_done(infer_ctx *c);
int hlo_shape_infer_recv(infer_ctx *c);
int hlo_shape_infer_recv_done(infer_ctx *c);
int hlo_shape_infer_infeed(infer_ctx *c);
int hlo_shape_infer_outfeed(infer_ctx *c);
int hlo_shape_infer_after_all(infer_ctx *c);
int hlo_shape_infer_copy_start(infer_ctx *c);
int hlo_shape_infer_copy_done(infer_ctx *c);
int hlo_shape_infer_async_start(infer_ctx *c);
int hlo_shape_infer_async_update(infer_ctx *c);
int hlo_shape_infer_async_done(infer_ctx *c);
int hlo_shape_infer_while(infer_ctx *c);
int hlo_shape_infer_conditional(infer_ctx *c);
int hlo_shape_infer_call(infer_ctx *c);
int hlo_shape_infer_map(infer_ctx *c);
int hlo_shape_infer_declared(infer_ctx *c);
int hlo_shape_infer_constant(infer_ctx *c);
int hlo_shape_infer_tuple(infer_ctx *c);
int hlo_shape_infer_get_tuple_element(infer_ctx *c);
int hlo_shape_infer_get_dimension_size(infer_ctx *c);
int hlo_shape_infer_set_dimension_size(infer_ctx *c);
int hlo_shape_infer_add_dependency(infer_ctx *c);
int hlo_shape_infer_id(infer_ctx *c);
int hlo_shape_infer_rng_get_and_update_state(infer_ctx *c);
int hlo_shape_infer_rng_bit_generator(infer_ctx *c);

#endif
