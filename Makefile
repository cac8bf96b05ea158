# commtime — build, run, test, install.
#
# User flags (CFLAGS, LDFLAGS) stay apart from the flags the build needs
# (ALL_CFLAGS).  GSL comes from pkg-config; Debian's libcsv ships no .pc file,
# so LIBCSV_LIBS can be overridden from the command line or config.mak.

PREFIX   ?= /usr/local
BINDIR   ?= $(PREFIX)/bin
SHAREDIR ?= $(PREFIX)/share/commtime
MANDIR   ?= $(PREFIX)/share/man/man1

CC       ?= cc
CFLAGS   ?= -O2 -g
LDFLAGS  ?=
PKG_CONFIG ?= pkg-config

-include config.mak

GSL_CFLAGS  ?= $(shell $(PKG_CONFIG) --cflags gsl 2>/dev/null)
GSL_LIBS    ?= $(shell $(PKG_CONFIG) --libs gsl 2>/dev/null || echo -lgsl -lgslcblas -lm)
LIBCSV_LIBS ?= -lcsv

ALL_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wshadow \
	-Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter \
	-DCOMMTIME_VERSION='"0.1"' -DCOMMTIME_SHAREDIR='"$(SHAREDIR)"' $(GSL_CFLAGS) -MMD -MP $(CFLAGS)
LIBS = $(GSL_LIBS) $(LIBCSV_LIBS) -lm

ifneq ($(V),1)
Q_CC = @echo '  CC    ' $@;
Q_LD = @echo '  LD    ' $@;
endif

# The core is every src/*.c that does not talk to the user; main.c and the
# commands (cmd_*.c) form the thin CLI on top of it.
CLI_SRC  = src/main.c src/cli.c $(wildcard src/cmd_*.c)
CORE_SRC = $(filter-out $(CLI_SRC),$(wildcard src/*.c))
CORE_OBJ = $(CORE_SRC:.c=.o)
CLI_OBJ  = $(CLI_SRC:.c=.o)
UNIT_SRC = $(wildcard tests/unit/test_*.c)
UNIT_OBJ = $(UNIT_SRC:.c=.o) tests/unit/harness.o

all: commtime tests/unit/run-unit

commtime: $(CLI_OBJ) $(CORE_OBJ)
	$(Q_LD)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

# The unit tests are the functions "void test_*(void)" of tests/unit/test_*.c.
tests/unit/list.h: $(UNIT_SRC)
	@sed -n 's/^void \(test_[a-z0-9_]*\)(void)$$/T(\1)/p' $(UNIT_SRC) > $@+ && mv $@+ $@

tests/unit/harness.o: tests/unit/list.h

# Test functions are found by name, not declared in a header.
$(UNIT_OBJ): ALL_CFLAGS += -Wno-missing-prototypes -Itests/unit

tests/unit/run-unit: $(UNIT_OBJ) $(CORE_OBJ)
	$(Q_LD)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

# Objects are rebuilt when the flags change (PREFIX, CC, sanitizers), so
# 'make install PREFIX=/opt' never installs a binary that looks for its
# presets elsewhere.
src/.flags: FORCE
	@echo '$(CC) $(ALL_CFLAGS)' | cmp -s - $@ || echo '$(CC) $(ALL_CFLAGS)' > $@

$(CORE_OBJ) $(CLI_OBJ) $(UNIT_OBJ): src/.flags

%.o: %.c
	$(Q_CC)$(CC) $(ALL_CFLAGS) -Isrc -c -o $@ $<

# deps installs what the build and tests need when it can (root and apt-get),
# and otherwise prints the exact command.
deps:
	@sh tests/deps.sh

run: deps
	@$(MAKE) --no-print-directory all
	./commtime

check: deps
	@$(MAKE) --no-print-directory all
	@sh tests/run.sh

asan:
	$(MAKE) clean
	$(MAKE) CC=clang CFLAGS='-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all' LDFLAGS='-fsanitize=address,undefined' all

figures: all
	@sh plots/make-figures.sh

bench: all
	@sh bench/run.sh

install: commtime
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SHAREDIR)/presets $(DESTDIR)$(MANDIR)
	install -m 755 commtime $(DESTDIR)$(BINDIR)/commtime
	install -m 644 presets/*.preset $(DESTDIR)$(SHAREDIR)/presets/
	install -m 644 commtime.1 $(DESTDIR)$(MANDIR)/commtime.1

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/commtime $(DESTDIR)$(MANDIR)/commtime.1
	rm -rf $(DESTDIR)$(SHAREDIR)

clean:
	rm -f commtime tests/unit/run-unit tests/unit/list.h src/.flags src/*.o src/*.d tests/unit/*.o tests/unit/*.d
	rm -rf tests/tmp

.PHONY: all deps run check asan figures bench install uninstall clean FORCE

-include $(wildcard src/*.d tests/unit/*.d)
