# hlotools - GNU make build.  Sources are discovered, not listed:
#   lib/<stage>/*.c      -> libhlo (except *_test.c)
#   lib/<stage>/*_test.c -> one unit-test program each
#   cmd/hlo-*.c          -> one tool each, linked with cmd/common/*.c
# SAN=1 builds everything with ASan+UBSan into build-san/.
# ISA=generic builds the portable C kernels alone (no intrinsics, no target
# attributes) into build-generic/ (build-san-generic/ with SAN=1).

CC      ?= cc
PREFIX  ?= /usr/local
PYTHON  ?= /usr/bin/python3
# where `make install` puts the Python package (docs/python.md)
PYTHONDIR ?= $(PREFIX)/lib/python$(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])')/dist-packages
PKGS    := yaml-0.1 libcjson libcgraph libgvc zlib sleef openblas

ifeq ($(ISA),generic)
ISA_SUFFIX := -generic
ISA_CFLAGS := -DHLO_ISA_GENERIC
else ifneq ($(ISA),)
$(error ISA must be generic or unset)
endif

# MPI (hlo-run --mpi, docs/devices.md): built when pkg-config finds Open MPI;
# NO_MPI=1 leaves it out (into build-nompi/)
ifeq ($(NO_MPI),1)
ISA_SUFFIX := $(ISA_SUFFIX)-nompi
else
MPI_LIBS := $(shell pkg-config --libs ompi-c 2>/dev/null)
endif

ifeq ($(SAN),1)
BUILD   ?= build-san$(ISA_SUFFIX)
OPT     ?= -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
LDSAN   := -fsanitize=address,undefined
else
BUILD   ?= build$(ISA_SUFFIX)
OPT     ?= -O2 -g
LDSAN   :=
endif

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
WARN    := -Wall -Wextra -Werror -Wno-unused-parameter -Wshadow -Wstrict-prototypes -Wswitch
CFLAGS  += -std=c11 -D_GNU_SOURCE $(ISA_CFLAGS) $(OPT) $(WARN) -fPIC -fvisibility=hidden -Iinclude -Ilib $(PKG_CFLAGS)
LDLIBS  += $(PKG_LIBS) -lm
ifneq ($(MPI_LIBS),)
CFLAGS  += -DHLO_HAVE_MPI $(shell pkg-config --cflags ompi-c)
LDLIBS  += $(MPI_LIBS)
endif

LIB_SRCS  := $(filter-out %_test.c,$(wildcard lib/*/*.c))
TEST_SRCS := $(wildcard lib/*/*_test.c)
CMD_SRCS  := $(wildcard cmd/hlo-*.c)
COMMON_SRCS := $(wildcard cmd/common/*.c)
LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
COMMON_OBJS := $(COMMON_SRCS:%.c=$(BUILD)/obj/%.o)
TOOLS     := $(CMD_SRCS:cmd/%.c=$(BUILD)/bin/%)
TOOLS     += $(BUILD)/bin/hlo
UNIT_TESTS := $(TEST_SRCS:lib/%.c=$(BUILD)/test/%)
MANPAGES  := $(wildcard man/man1/*.1)
HEADERS   := $(wildcard include/hlo/*.h include/hlo/*.def lib/*/*.h cmd/common/*.h)

.PHONY: all check unit bench demo install deps clean fuzz docs
.SECONDARY:
all: $(BUILD)/lib/libhlo.a $(BUILD)/lib/libhlo.so $(TOOLS) $(UNIT_TESTS) $(BUILD)/mpi-support

# "yes" or "no": whether this build has MPI (lit's "mpi" feature)
MPI_SUPPORT := $(if $(MPI_LIBS),yes,no)
$(BUILD)/mpi-support: FORCE
	@mkdir -p $(BUILD) && (echo $(MPI_SUPPORT) | cmp -s - $@ || echo $(MPI_SUPPORT) > $@)
.PHONY: FORCE
FORCE:

$(BUILD)/obj/%.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/lib/libhlo.a: $(LIB_OBJS)
	@mkdir -p $(dir $@)
	@echo "  AR      $@"
	@rm -f $@ && ar rcs $@ $^

$(BUILD)/lib/libhlo.so: $(LIB_OBJS)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	@$(CC) -shared -Wl,-soname,libhlo.so.0 $(LDSAN) -o $@ $^ $(LDLIBS)

$(BUILD)/bin/%: $(BUILD)/obj/cmd/%.o $(COMMON_OBJS) $(BUILD)/lib/libhlo.a
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	@$(CC) $(LDSAN) -o $@ $< $(COMMON_OBJS) $(BUILD)/lib/libhlo.a $(LDLIBS)

$(BUILD)/test/%: $(BUILD)/obj/lib/%.o $(BUILD)/lib/libhlo.a
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	@$(CC) $(LDSAN) -o $@ $< $(BUILD)/lib/libhlo.a $(LDLIBS)

# Every suite (unit, golden, corpus, numeric); ends with "N passed, N failed".
check: all
	@BUILD=$(BUILD) SAN=$(SAN) $(PYTHON) testdata/run_tests.py

unit: all
	@BUILD=$(BUILD) $(PYTHON) testdata/run_tests.py --unit-only

demo: all
	@echo '== hlo-fmt: canonical text'
	$(BUILD)/bin/hlo-fmt testdata/examples/mlp.hlo
	@echo '== hlo-verify'
	$(BUILD)/bin/hlo-verify testdata/examples/mlp.hlo
	@echo '== hlo-fuse: the dot with its bias and relu epilogue becomes one output fusion'
	$(BUILD)/bin/hlo-fuse --stats testdata/examples/mlp.hlo > /dev/null
	@echo '== hlo-run on random inputs (seed 1)'
	$(BUILD)/bin/hlo-run --random=1 testdata/examples/mlp.hlo

# docs/ops.md, the op index, is generated from the per-opcode tables of lib/;
# testdata/docs/ops_page.test fails when the checked-in page is stale.
docs:
	@$(PYTHON) docs/gen_ops.py

bench: all
	@BUILD=$(BUILD) $(PYTHON) testdata/bench.py

# ---- fuzzing (docs/robustness.md) ----------------------------------------
# fuzz/fuzz_<name>.c are libFuzzer targets.  `all` builds each also as a plain
# replay program ($(BUILD)/fuzz/fuzz_<name>, fuzz/replay_main.c) that the test
# suite runs on testdata/fuzz/<name>/; `make fuzz FUZZ_SECONDS=N` builds them
# with clang's libFuzzer+ASan+UBSan into build-fuzz/ and runs each N seconds.
FUZZ_SRCS := $(wildcard fuzz/fuzz_*.c)
REPLAYS   := $(FUZZ_SRCS:fuzz/%.c=$(BUILD)/fuzz/%)
FUZZ_SECONDS ?= 60
FUZZ_CC   ?= clang-14
FUZZ_SAN  := -fsanitize=address,undefined -fno-sanitize-recover=all
all: $(REPLAYS)

$(BUILD)/fuzz/%: fuzz/%.c fuzz/replay_main.c fuzz/fuzz.h $(COMMON_OBJS) $(BUILD)/lib/libhlo.a
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	@$(CC) $(CFLAGS) -Icmd $(LDSAN) -o $@ $< fuzz/replay_main.c $(COMMON_OBJS) $(BUILD)/lib/libhlo.a $(LDLIBS)

fuzz:
	@$(MAKE) --no-print-directory BUILD=build-fuzz CC=$(FUZZ_CC) WARN="-Wall -Wno-unused-parameter" \
	  OPT="-O1 -g -fno-omit-frame-pointer -include fuzz/clang_cmplx.h -fsanitize=fuzzer-no-link $(FUZZ_SAN)" \
	  LDSAN="$(FUZZ_SAN)" build-fuzz/lib/libhlo.a $(COMMON_SRCS:%.c=build-fuzz/obj/%.o)
	@for t in $(FUZZ_SRCS:fuzz/%.c=%); do mkdir -p build-fuzz/bin; echo "  FUZZ-LD build-fuzz/bin/$$t"; \
	  $(FUZZ_CC) -std=c11 -D_GNU_SOURCE -O1 -g -fsanitize=fuzzer $(FUZZ_SAN) -Iinclude -Ilib -Icmd \
	    $(PKG_CFLAGS) -o build-fuzz/bin/$$t fuzz/$$t.c $(COMMON_SRCS:%.c=build-fuzz/obj/%.o) \
	    build-fuzz/lib/libhlo.a $(LDLIBS) || exit 1; done
	@sh fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_SRCS:fuzz/fuzz_%.c=%)

deps:
	@BUILD=$(BUILD) sh .ci/deps.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include/hlo \
	  $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 755 $(TOOLS) $(DESTDIR)$(PREFIX)/bin
	install -m 644 $(BUILD)/lib/libhlo.a $(DESTDIR)$(PREFIX)/lib
	install -m 755 $(BUILD)/lib/libhlo.so $(DESTDIR)$(PREFIX)/lib/libhlo.so.0
	ln -sf libhlo.so.0 $(DESTDIR)$(PREFIX)/lib/libhlo.so
	install -m 644 include/hlo/*.h include/hlo/*.def $(DESTDIR)$(PREFIX)/include/hlo
	$(if $(MANPAGES),install -m 644 $(MANPAGES) $(DESTDIR)$(PREFIX)/share/man/man1)
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 644 cmd/completion/hlo.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/hlo
	for t in $(notdir $(filter $(BUILD)/bin/hlo-%,$(TOOLS))); do \
	  ln -sf hlo $(DESTDIR)$(PREFIX)/share/bash-completion/completions/$$t; done
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@PKGS@|$(PKGS)|' hlo.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/hlo.pc
	install -d $(DESTDIR)$(PYTHONDIR)/hlotools
	install -m 644 python/hlotools/*.py $(DESTDIR)$(PYTHONDIR)/hlotools
	echo 'LIBRARY = "$(PREFIX)/lib/libhlo.so.0"  # written by make install' > $(DESTDIR)$(PYTHONDIR)/hlotools/_config.py

clean:
	rm -rf build build-san build-fuzz build-generic build-san-generic
