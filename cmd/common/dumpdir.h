/* dumpdir.h - the HLO modules of an XLA dump folder (what
 * XLA_FLAGS=--xla_dump_to=DIR --xla_dump_hlo_as_text writes): which files
 * hold module text, their module number, name and compilation stage, and
 * the --module/--stage picks every tool shares. */
#ifndef HLO_DUMPDIR_H
#define HLO_DUMPDIR_H

#include <stdbool.h>

/* One module text file of a dump folder.  XLA names it
 * [TIMESTAMP.]module_NNNN[.NAME].STAGE.txt, STAGE being
 * before_optimizations, [PLATFORM_]after_optimizations, or a pass dump
 * STEP.PIPELINE.after_PASS.before_PASS (or STEP.PASS.STEP_NAME). */
typedef struct dump_entry {
  char *path;  /* DIR/FILE */
  char *file;  /* FILE (points into path) */
  int number;  /* NNNN */
  char *name;  /* from the file's HloModule line */
  char *stage; /* the part of the file name after NAME, without .txt */
  char *pass;  /* pass dumps: the pass just run; else NULL */
  int rank;    /* 0 before, 1 pass dump, 2 after optimizations, 3 other */
  int step;    /* pass dumps: STEP */
} dump_entry;

typedef struct dump_list {
  dump_entry *v;
  int n;
} dump_list;

/* Scan directory dir for module text files (files whose name has XLA's
 * dump form and whose text starts with "HloModule"; buffer assignments,
 * memory reports, LLVM IR and the like are skipped), sorted by module
 * number and then by stage (before, pass dumps in step order, after).
 * Returns 0, or -1 with errno set when dir cannot be read. */
int dump_scan(const char *dir, dump_list *out);
void dump_list_release(dump_list *l);

/* Whether e is chosen by --module PICK (a number, or a glob over the
 * module name; NULL picks all) and --stage PICK (a glob over the whole
 * stage, its kind before_optimizations/after_optimizations, or the pass
 * name of a pass dump; NULL picks all). */
bool dump_matches(const dump_entry *e, const char *module_pick, const char *stage_pick);

/* The module name of a file whose text starts (after blanks and //
 * comments) with "HloModule NAME", malloc'd; NULL otherwise or on failure. */
char *dump_module_name(const char *path);

/* Whether path names a directory. */
bool dump_is_dir(const char *path);

#endif
