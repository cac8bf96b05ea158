# commtime — build, run, test, install.
#
# User flags (CFLAGS, LDFLAGS) stay apart from the flags the build needs
# (ALL_CFLAGS).  GSL comes from pkg-config; Debian's libcsv ships no .pc file,
# so LIBCSV_LIBS can be overridden from the command line or config.mak.

PREFIX   ?= /usr/local
BINDIR   ?= $(PREFIX)/bin
SHAREDIR ?= $(PREFIX)/share/commtime
MANDIR   ?= $(PREFIX)/share/man/man1
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/site-functions

CC       ?= cc
CFLAGS   ?= -O2 -g
LDFLAGS  ?=
PKG_CONFIG ?= pkg-config

-include config.mak

GSL_CFLAGS  ?= $(shell $(PKG_CONFIG) --cflags gsl 2>/dev/null)
GSL_LIBS    ?= $(shell $(PKG_CONFIG) --libs gsl 2>/dev/null || echo -lgsl -lgslcblas -lm)
LIBCSV_LIBS ?= -lcsv
# The streaming JSON parser (libyajl) and gzip (zlib) for traces.
YAJL_CFLAGS ?= $(shell $(PKG_CONFIG) --cflags yajl 2>/dev/null)
YAJL_LIBS   ?= $(shell $(PKG_CONFIG) --libs yajl 2>/dev/null || echo -lyajl)
ZLIB_CFLAGS ?= $(shell $(PKG_CONFIG) --cflags zlib 2>/dev/null)
ZLIB_LIBS   ?= $(shell $(PKG_CONFIG) --libs zlib 2>/dev/null || echo -lz)
# Asked once: a "?=" variable would run pkg-config again at every use,
# hundreds of times a build.  A value given on the command line still wins.
GSL_CFLAGS  := $(GSL_CFLAGS)
GSL_LIBS    := $(GSL_LIBS)
YAJL_CFLAGS := $(YAJL_CFLAGS)
YAJL_LIBS   := $(YAJL_LIBS)
ZLIB_CFLAGS := $(ZLIB_CFLAGS)
ZLIB_LIBS   := $(ZLIB_LIBS)

ALL_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wshadow \
	-Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter \
	-pthread -DCOMMTIME_VERSION='"0.1"' $(GSL_CFLAGS) $(YAJL_CFLAGS) $(ZLIB_CFLAGS) -MMD -MP $(CFLAGS)
LIBS = $(GSL_LIBS) $(LIBCSV_LIBS) $(YAJL_LIBS) $(ZLIB_LIBS) -lm -pthread

# GSL, libcsv, yajl and zlib are linked from their static archives where
# the compiler finds them (Debian's -dev packages ship them; yajl's is
# libyajl_s.a), so the loader maps libc and libm alone: a run starts in
# about 3 ms of CPU instead of 5, and the test suite runs commtime some
# 1 800 times.  Where an archive is missing the -l stays as it was;
# LINK_STATIC=no links them all shared.  libc and libm stay shared.
LINK_STATIC ?= yes
ifeq ($(LINK_STATIC),yes)
# (the compiler is asked once for the directories it links from)
lib_dirs := $(subst :, ,$(shell $(CC) -print-search-dirs 2>/dev/null | sed -n 's/^libraries: =//p'))
static_a = $(firstword $(foreach a,$(2),$(wildcard $(addsuffix /$(a),$(lib_dirs:%/=%)))) $(1))
static_libs = $(foreach w,$(1),$(if $(filter -lgsl -lgslcblas -lcsv -lz,$(w)),$(call static_a,$(w),lib$(w:-l%=%).a),$(if $(filter -lyajl,$(w)),$(call static_a,$(w),libyajl.a libyajl_s.a),$(w))))
LIBS := $(call static_libs,$(LIBS))
endif

ifneq ($(V),1)
Q_CC = @echo '  CC    ' $@;
Q_LD = @echo '  LD    ' $@;
endif

# The core is every src/*.c: it never talks to the user.  main.c, the
# option layer and the commands, in src/cmd/, form the thin CLI on top of it.
CLI_SRC  = $(wildcard src/cmd/*.c)
CORE_SRC = $(wildcard src/*.c)
CORE_OBJ = $(CORE_SRC:.c=.o)
CLI_OBJ  = $(CLI_SRC:.c=.o)
UNIT_SRC = $(wildcard tests/unit/test_*.c)
UNIT_OBJ = $(UNIT_SRC:.c=.o) tests/unit/harness.o

all: commtime tests/unit/run-unit completions

# Shell completions, written from the option tables of the binary.
COMPLETIONS = completion/commtime.bash completion/_commtime
completions: $(COMPLETIONS)
$(COMPLETIONS): commtime completion/gen.sh
	@sh completion/gen.sh ./commtime completion

commtime: $(CLI_OBJ) $(CORE_OBJ)
	$(Q_LD)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) $(LIBS)

# The unit tests are the functions "void test_*(void)" of tests/unit/test_*.c.
tests/unit/list.h: $(UNIT_SRC)
	@sed -n 's/^void \(test_[a-z0-9_]*\)(void)$$/T(\1)/p' $(UNIT_SRC) > $@+ && mv $@+ $@

tests/unit/harness.o: tests/unit/list.h

# Test functions are found by name, not declared in a header.  The
# additions here and below are private: a target's variables pass to its
# prerequisites otherwise, and src/.flags would record them whenever a
# test's object reached it first, then differ on the next build of the
# binary and rebuild every object (make install in t-install did, each
# time: most of make check's CPU).
$(UNIT_OBJ): private ALL_CFLAGS += -Wno-missing-prototypes -Itests/unit

tests/unit/run-unit: $(UNIT_OBJ) $(CORE_OBJ)
	$(Q_LD)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) $(LIBS)

# Objects are rebuilt when the flags change (PREFIX, CC, sanitizers), so
# 'make install PREFIX=/opt' never installs a binary that looks for its
# presets elsewhere.
src/.flags: FORCE
	@echo '$(CC) $(ALL_CFLAGS)' | cmp -s - $@ || echo '$(CC) $(ALL_CFLAGS)' > $@

$(CORE_OBJ) $(CLI_OBJ) $(UNIT_OBJ): src/.flags

# The programs are linked again when the libraries or the link flags change
# (LINK_STATIC, LDFLAGS).
src/.ldflags: FORCE
	@echo '$(LDFLAGS) $(LIBS)' | cmp -s - $@ || echo '$(LDFLAGS) $(LIBS)' > $@
commtime tests/unit/run-unit tools/errband-gen: src/.ldflags

# Only the preset reader (and its unit test) knows where the presets are
# installed, so only its object is rebuilt when PREFIX or SHAREDIR changes.
SHAREDIR_OBJ = src/preset.o tests/unit/test_preset.o
$(SHAREDIR_OBJ): private ALL_CFLAGS += -DCOMMTIME_SHAREDIR='"$(SHAREDIR)"'
$(SHAREDIR_OBJ): src/.sharedir
src/.sharedir: FORCE
	@echo '$(SHAREDIR)' | cmp -s - $@ || echo '$(SHAREDIR)' > $@

%.o: %.c
	$(Q_CC)$(CC) $(ALL_CFLAGS) -Isrc -c -o $@ $<

# deps installs what the build and tests need when it can (root and apt-get),
# and otherwise prints the exact command.
deps:
	@sh tests/deps.sh

# run builds what it runs (and the completions, for ./commtime), not the
# unit-test runner or the errband generator, which check builds.
run: deps
	@$(MAKE) --no-print-directory commtime completions
	./commtime

# The build before the tests runs on every core unless make was given -j.
CHECK_JOBS = $(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(shell nproc 2>/dev/null || echo 2))
check: deps
	@$(MAKE) --no-print-directory $(CHECK_JOBS) all tools/errband-gen
	@sh tests/run.sh

# The whole suite built with clang's AddressSanitizer and
# UndefinedBehaviorSanitizer.  Any report, leaks included, aborts the
# program (status 134, a crash to tests/run.sh) and fails its test.  The
# objects are removed before and after, so a plain build never links
# sanitized objects (run make again afterwards).
SAN_FLAGS = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
asan:
	$(MAKE) clean
	$(MAKE) CC=clang CFLAGS='$(SAN_FLAGS)' LDFLAGS='-fsanitize=address,undefined' all tools/errband-gen
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:abort_on_error=1 \
		sh tests/run.sh; st=$$?; $(MAKE) clean; exit $$st

# commtime-probe (probe/): MPI collectives timed over a size sweep, written
# as nccl-tests tables.  Built with mpicc, never linked into commtime;
# deps.sh probe installs Open MPI when it can, else says what to install.
MPICC ?= mpicc
probe:
	@sh tests/deps.sh probe
	@$(MAKE) --no-print-directory commtime-probe

# probe-run: the probe on NP local ranks (default 2), its table in PROBE_OUT
# (default my.txt), PROBE_ARGS passed on (-e 64K ...).  Open MPI refuses to
# start as root without --allow-run-as-root, which it gets when run as root.
NP ?= 2
PROBE_OUT ?= my.txt
probe-run: probe
	@root=; [ "$$(id -u)" = 0 ] && root=--allow-run-as-root; \
	mpirun $$root --oversubscribe -np $(NP) ./commtime-probe $(PROBE_ARGS) > $(PROBE_OUT) && \
	echo "probe: wrote $(PROBE_OUT) (commtime fit $(PROBE_OUT))"

commtime-probe: probe/commtime-probe.c
	@command -v $(MPICC) >/dev/null 2>&1 || { echo "make probe needs $(MPICC): apt-get install openmpi-bin libopenmpi-dev" >&2; exit 1; }
	$(Q_LD)$(MPICC) -O2 -g -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra $(LDFLAGS) -o $@ $<

# Rewrite the expected outputs (golden files, the examples of models/*.md
# and README.md, the man page's option lists) from the built binary and
# show the diff to review; WHAT is golden, models, readme, man or all.
WHAT ?= all
regen: commtime
	@sh tests/regen.sh $(WHAT)

figures: all
	@sh plots/make-figures.sh

# Speed and memory against the seed's Python script and plain C loops
# (bench/run.sh); how long search takes, workload by GPU count
# (bench/search-time.sh); published runs against the step (bench/step-check.sh,
# bench/foundry-check.py, bench/mlperf-check.py, bench/nemo-check.py,
# bench/dgxc-check.py) and the expected step's pool, left out source by source
# (bench/step-pool.py), with the four checks as sources beside it (bench/step-all.py),
# and where the pool's layouts rank in search (bench/search-within.py).
# Not tests, never part of check.
bench: all
	@sh bench/run.sh
	@sh bench/search-time.sh
	@sh bench/step-check.sh
	@python3 bench/step-pool.py check
	@python3 bench/foundry-check.py
	@python3 bench/mlperf-check.py
	@python3 bench/nemo-check.py
	@python3 bench/dgxc-check.py
	@python3 bench/step-all.py
	@python3 bench/search-within.py

# The stated error of NCCL's model (src/errband_table.c), drawn by
# tools/errband-gen from the rows of bench/accuracy.sh; review the diff.
# The generator is built only for this and for check (t-errband), never by all.
tools/errband-gen: tools/errband_gen.o $(CORE_OBJ)
	$(Q_LD)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) $(LIBS)
tools/errband_gen.o: src/.flags

errband: all tools/errband-gen
	@ACCURACY_TMP=tests/tmp/errband sh bench/accuracy.sh >/dev/null
	@tools/errband-gen tests/tmp/errband/rows >src/errband_table.c+ && \
		mv src/errband_table.c+ src/errband_table.c
	@$(MAKE) --no-print-directory all
	@git diff --stat -- src/errband_table.c 2>/dev/null || :

# The held-out accuracy of the system models on the real nccl-tests logs of
# tests/data/nccl (bench/accuracy.sh; not a test, never part of check).
accuracy: all tools/errband-gen
	@sh bench/accuracy.sh

# NCCL's model on public results of machines in none of the tests (bench/heldout/).
heldout: all
	@sh bench/heldout.sh

install: commtime $(COMPLETIONS)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SHAREDIR)/presets $(DESTDIR)$(MANDIR)
	install -d $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	install -m 755 commtime $(DESTDIR)$(BINDIR)/commtime
	install -m 644 presets/*.preset $(DESTDIR)$(SHAREDIR)/presets/
	install -m 644 presets/*.topo $(DESTDIR)$(SHAREDIR)/presets/
	install -m 644 commtime.1 $(DESTDIR)$(MANDIR)/commtime.1
	install -m 644 completion/commtime.bash $(DESTDIR)$(BASHCOMPDIR)/commtime
	install -m 644 completion/_commtime $(DESTDIR)$(ZSHCOMPDIR)/_commtime

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/commtime $(DESTDIR)$(MANDIR)/commtime.1
	rm -f $(DESTDIR)$(BASHCOMPDIR)/commtime $(DESTDIR)$(ZSHCOMPDIR)/_commtime
	rm -rf $(DESTDIR)$(SHAREDIR)

clean:
	rm -f commtime commtime-probe tools/errband-gen tools/*.o tools/*.d bench/*.o bench/*.d tests/unit/run-unit tests/unit/list.h src/.flags src/.ldflags src/.sharedir src/*.o src/*.d src/cmd/*.o src/cmd/*.d tests/unit/*.o tests/unit/*.d
	rm -rf tests/tmp

.PHONY: probe probe-run all deps run check asan figures bench accuracy heldout errband install uninstall clean FORCE


# ---- memory checking and fuzzing ----
#
# valgrind: the suite with every commtime run under valgrind (memcheck,
# leaks included); tests/valgrind-commtime.sh logs each run in
# tests/tmp/valgrind-PID.log, and any non-empty log fails the target.
valgrind: all
	@VALGRIND=$$(command -v valgrind) || { echo "make valgrind needs valgrind" >&2; exit 1; }; \
	export VALGRIND; \
	COMMTIME='$(CURDIR)/tests/valgrind-commtime.sh' sh tests/run.sh; st=$$?; \
	logs=$$(find tests/tmp -maxdepth 1 -name 'valgrind-*.log' -size +0 2>/dev/null); \
	if [ -n "$$logs" ]; then cat $$logs; echo "valgrind reported errors: $$logs"; exit 1; fi; \
	exit $$st

# fuzz: libFuzzer targets (clang) of the units parser, the list parser,
# the preset reader and writer, the measurement readers, the gnuplot
# script's quoting, the regime keys, the workload reader, the system
# and GPU readers, the topology and trace readers, each run
# FUZZ_SECONDS; a crash is saved as
# tests/tmp/fuzz/NAME/crash-*.  New inputs go to tests/tmp/fuzz/NAME/new;
# copy the ones worth keeping into tests/fuzz/NAME/corpus.
# Each target links only the core files it reads: tests/fuzz/closure.sh
# follows its symbols through the plain build's objects, and those files
# are compiled once, sanitized, under tests/tmp/fuzz/obj (shared by the
# targets that read them).
# fuzz-short: every target for FUZZ_RUNS inputs (the corpus first), the
# run CI makes; fuzz-regress: every corpus file once through the targets.
FUZZ_SECONDS ?= 60
FUZZ_RUNS ?= 4000
FUZZ_TARGETS = units list preset nccllog csv nccljson mpilog gpquote presetw regime workload topo trace system
FUZZ_CC ?= clang
FUZZ_BASE = -std=c11 -D_POSIX_C_SOURCE=200809L -Isrc $(GSL_CFLAGS)
FUZZ_SAN = -g -O1 -fno-sanitize-recover=all $(FUZZ_BASE)
FUZZ_FLAGS = -fsanitize=fuzzer,address,undefined $(FUZZ_SAN)
FUZZ_BIN = $(FUZZ_TARGETS:%=tests/tmp/fuzz/fuzz-%)

tests/tmp/fuzz/obj/%.o: src/%.c $(wildcard src/*.h)
	@mkdir -p $(@D)
	$(Q_CC)$(FUZZ_CC) -fsanitize=fuzzer-no-link,address,undefined $(FUZZ_SAN) -c -o $@ $<

.SECONDEXPANSION:
tests/tmp/fuzz/fuzz-%: tests/fuzz/$$*/fuzz_$$*.c $(CORE_OBJ) $(wildcard src/*.h) tests/fuzz/closure.sh
	@mkdir -p $(@D)
	@$(CC) $(FUZZ_BASE) -c -o $@.plain.o $<
	@objs=$$(sh tests/fuzz/closure.sh $@.plain.o | sed 's|^src/|tests/tmp/fuzz/obj/|; s|\.c$$|.o|'); \
	rm -f $@.plain.o; \
	$(MAKE) --no-print-directory $$objs && \
	echo "  LD     $@ ($$(echo $$objs | wc -w) core files)" && \
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $< $$objs $(LIBS)

fuzz: $(FUZZ_BIN)
	@for t in $(FUZZ_TARGETS); do \
		mkdir -p tests/tmp/fuzz/$$t/new || exit 1; \
		echo "fuzz $$t: $(FUZZ_SECONDS) s"; \
		tests/tmp/fuzz/fuzz-$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
			-print_final_stats=1 -artifact_prefix=tests/tmp/fuzz/$$t/ \
			tests/tmp/fuzz/$$t/new tests/fuzz/$$t/corpus 2>tests/tmp/fuzz/$$t/log || \
			{ tail -40 tests/tmp/fuzz/$$t/log; exit 1; }; \
		grep -E '^stat::number_of_executed_units|^Done' tests/tmp/fuzz/$$t/log; \
	done

fuzz-short: $(FUZZ_BIN)
	@for t in $(FUZZ_TARGETS); do \
		rm -rf tests/tmp/fuzz/$$t/short && mkdir -p tests/tmp/fuzz/$$t/short || exit 1; \
		tests/tmp/fuzz/fuzz-$$t -runs=$(FUZZ_RUNS) -seed=1 -timeout=10 -rss_limit_mb=2048 \
			-print_final_stats=1 -artifact_prefix=tests/tmp/fuzz/$$t/ \
			tests/tmp/fuzz/$$t/short tests/fuzz/$$t/corpus 2>tests/tmp/fuzz/$$t/short.log || \
			{ tail -40 tests/tmp/fuzz/$$t/short.log; exit 1; }; \
		echo "fuzz-short $$t: $$(sed -n 's/^stat::number_of_executed_units: *//p' \
			tests/tmp/fuzz/$$t/short.log) inputs, $$(ls tests/fuzz/$$t/corpus | wc -l) in the corpus, no reports"; \
	done

fuzz-regress: $(FUZZ_BIN)
	@for t in $(FUZZ_TARGETS); do \
		mkdir -p tests/tmp/fuzz/$$t || exit 1; \
		tests/tmp/fuzz/fuzz-$$t -runs=0 tests/fuzz/$$t/corpus \
			2>tests/tmp/fuzz/$$t/regress.log || { tail -40 tests/tmp/fuzz/$$t/regress.log; exit 1; }; \
		echo "fuzz-regress $$t: $$(ls tests/fuzz/$$t/corpus | wc -l) inputs, no reports"; \
	done

.PHONY: valgrind fuzz fuzz-short fuzz-regress

-include $(wildcard src/*.d src/cmd/*.d tests/unit/*.d bench/*.d)
