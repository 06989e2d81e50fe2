/* pbtxt.h - the subset of protobuf text format that XLA's literal files and
 * HLO snapshots use, parsed into a tree of fields without a schema: the
 * reader of each message (pblit.c) gives the fields their meaning.
 * Internal to lib/io. */
#ifndef HLO_PBTXT_H
#define HLO_PBTXT_H

#include <stdbool.h>
#include <stddef.h>

#include "hlo/hlo_core.h"
#include "hlo/hlo_pbtxt.h"

typedef struct pb_node pb_node;
struct pb_node {
  const char *name;  /* field name */
  size_t off;        /* byte offset of the field name in the source */
  bool is_msg;       /* a message { ... } (children) or a scalar */
  pb_node *child;    /* message fields, in order */
  pb_node *next;     /* the next field of the parent */
  /* scalars: the value text; for strings the decoded bytes (adjacent
   * strings joined), for numbers and identifiers the token itself */
  bool is_string;
  const char *val;
  size_t len;
  size_t voff;       /* byte offset of the value */
};

/* message -> (field [',' | ';'])*
 * field   -> NAME ':'? '{' message '}' | NAME ':'? '<' message '>'
 *          | NAME ':' scalar | NAME ':' '[' (scalar (',' scalar)*)? ']'
 * scalar  -> NUMBER | IDENT | STRING+
 * '#' starts a comment.  A list is expanded into one field per element.
 * Returns the fields of the whole text (NULL for an empty text, *ok true),
 * allocated in a; errors go to d with their offsets (*ok false). */
pb_node *pb_parse(hlo_arena *a, const hlo_src *src, hlo_diags *d, bool *ok);

/* Readers of pblit.c shared with pbmodule.c: a LiteralProto, a
 * PrimitiveType (name or number), an integer in [lo, hi], a bool. */
int pb_read_literal(hlo_arena *a, const hlo_src *src, hlo_diags *d, const pb_node *n, hlo_pb_literal *out);
int pb_read_prim_type(const hlo_src *src, hlo_diags *d, const pb_node *n, hlo_type *t);
int pb_read_int(const hlo_src *src, hlo_diags *d, const pb_node *n, int64_t lo, int64_t hi, int64_t *out);
int pb_read_bool(const hlo_src *src, hlo_diags *d, const pb_node *n, bool *out);

#endif
