# warpcast - one Makefile for the library, the program, tests, fuzzers, bench.
#
#   make              build build/warpcast
#   make test         unit + golden + fuzz-replay tests (installs deps first)
#   make demo         build and predict the bundled example
#   make bench        reported speed figures (not timed tests)
#   make pgo          profile-guided build-pgo/warpcast (GCC, trained on synth)
#   make deps         install missing Debian packages (as root) or print how
#   make fuzz         libFuzzer binaries (clang)
#   make SAN=address,undefined test     sanitizer build (in build-san/)
#   make SAN=thread BUILD=build-tsan build-tsan/tests/test_sampler_trace
#                     threads checked (regions of a kernel on threads)
#   make CI=1 ...     adds -Werror
#   make bless        regenerate golden expectations after a deliberate change
#   make install PREFIX=/usr/local [DESTDIR=...]   program, library, headers,
#                     pkg-config file, data, man page;  make uninstall

CC      ?= cc
SAN     ?=
BUILD   ?= build$(if $(SAN),-san)$(if $(DEBUG),-debug)
PKGS    := gsl libzstd
DEB_PKGS := libgsl-dev libzstd-dev libpfm4-dev pkg-config zstd

WARN := -Wall -Wextra -Wshadow -Wconversion -Wstrict-prototypes \
        -Wmissing-prototypes -Wformat=2 -Wvla
OPT  ?= -O2 -g
CFLAGS_ALL := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(OPT) $(WARN) \
              $(if $(CI),-Werror) -MMD -MP \
              -Icommon -Iuarch -Imodel -Idetailed -Isampler -Icalib -Igen \
              -DWC_DATA_DIR='"$(abspath data)"' \
              $(shell pkg-config --cflags $(PKGS) 2>/dev/null) $(CFLAGS)
# libpfm4 is loaded with dlopen when a cycle counter is asked for
# (sampler/clock.c), so the program is linked against the loader only
PFM_LIB := $(if $(wildcard /usr/include/perfmon/pfmlib.h),-ldl,)
PFM_DEF := $(if $(wildcard /usr/include/perfmon/pfmlib.h),-DWC_HAVE_PFM=1,)
CFLAGS_ALL += $(PFM_DEF) -pthread
CFLAGS_ALL += $(if $(DEBUG)$(SAN),-DWC_CHECKS) # invariants of model results (common/wc_check.h)
LDLIBS_ALL := $(shell pkg-config --libs $(PKGS) 2>/dev/null) $(PFM_LIB) -lpthread -lm $(LDLIBS)
ifneq ($(SAN),)
CFLAGS_ALL += -fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=$(SAN)
endif

LIB_SRC := $(wildcard common/*.c uarch/*.c model/*.c detailed/*.c sampler/*.c calib/*.c)
GEN_SRC := $(wildcard gen/*.c)
CLI_SRC := $(wildcard cli/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/%.o)
GEN_OBJ := $(GEN_SRC:%.c=$(BUILD)/%.o)
LIB     := $(BUILD)/libwarpcast.a
PROG    := $(BUILD)/warpcast

UNIT_SRC  := $(wildcard tests/unit/test_*.c)
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
FUZZ_SRC  := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_REPLAY := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/tests/replay_%)
BENCH_SRC := $(wildcard tests/bench/bench_*.c)
BENCH_BIN := $(BENCH_SRC:tests/bench/%.c=$(BUILD)/tests/%)

.PHONY: all test demo bench deps clean fuzz fuzz-models pgo bless unit golden fuzz-replay check-deps hwkit-compile \
        study install uninstall
all: $(PROG)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c $< -o $@

$(LIB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# C++ names demangled by the C++ runtime's __cxa_demangle when the compiler
# has libstdc++ (the program only; the library keeps raw names)
CXXRT := $(if $(filter /%,$(shell $(CC) -print-file-name=libstdc++.so 2>/dev/null)),-lstdc++,)
$(BUILD)/cli/demangle.o: CFLAGS_ALL += $(if $(CXXRT),-DWC_HAVE_CXA_DEMANGLE=1)

$(PROG): $(CLI_OBJ) $(GEN_OBJ) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJ) $(GEN_OBJ) $(LIB) $(LDLIBS_ALL) $(CXXRT)

$(BUILD)/tests/test_%: tests/unit/test_%.c $(GEN_OBJ) $(LIB) tests/unit/check.h tests/unit/synth_fixture.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itests/unit $(LDFLAGS) -o $@ $< $(GEN_OBJ) $(LIB) $(LDLIBS_ALL)

$(BUILD)/tests/replay_%: tests/fuzz/%.c tests/fuzz/replay.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $< tests/fuzz/replay.c $(LIB) $(LDLIBS_ALL)

# the models target generates its traces: it links the generator too
$(BUILD)/tests/replay_fuzz_models: tests/fuzz/fuzz_models.c tests/fuzz/replay.c $(GEN_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $< tests/fuzz/replay.c $(GEN_OBJ) $(LIB) $(LDLIBS_ALL)

$(BUILD)/tests/bench_%: tests/bench/bench_%.c $(GEN_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $< $(GEN_OBJ) $(LIB) $(LDLIBS_ALL)

# ---- dependencies -----------------------------------------------------------
deps:
	@missing=""; for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
	  echo "installing:$$missing"; \
	  (apt-get install -y --no-install-recommends $$missing || \
	   (apt-get update && apt-get install -y --no-install-recommends $$missing)) >/dev/null || exit 1; \
	else \
	  echo "missing Debian packages:$$missing"; \
	  echo "run: sudo apt-get install -y$$missing"; exit 1; \
	fi

# ---- tests --------------------------------------------------------------------
unit: $(UNIT_BIN)
	@fail=0; for t in $(UNIT_BIN); do \
	  if ! $$t; then echo "FAIL $$t"; fail=1; fi; \
	done; exit $$fail

golden: $(PROG)
	@WARPCAST=$(PROG) tests/golden/run.sh && WARPCAST=$(PROG) tests/golden/tcache_names.sh

fuzz-replay: $(FUZZ_REPLAY)
	@fail=0; for r in $(FUZZ_REPLAY); do \
	  n=$${r##*/replay_fuzz_}; \
	  if ! $$r tests/fuzz/corpus/$$n; then echo "FAIL $$r"; fail=1; fi; \
	done; exit $$fail

hwkit-compile:
	@if command -v nvcc >/dev/null 2>&1 && [ -f calib/hw/Makefile ]; then \
	  $(MAKE) --no-print-directory -C calib/hw compile-check; \
	else echo "hwkit: nvcc not found, compile check skipped"; fi

# sweep / merge / report / install end to end (GNU parallel and Chromium
# optional: skipped with a notice when absent)
study: $(PROG) $(LIB)
	@WARPCAST=$(PROG) tests/study/run.sh
	@WARPCAST=$(PROG) BUILD=$(BUILD) SAN=$(SAN) tests/study/install.sh

test: deps
	@$(MAKE) --no-print-directory all unit golden fuzz-replay study hwkit-compile
	@echo "all tests passed"

bless: $(PROG)
	@WARPCAST=$(PROG) tests/golden/run.sh --bless $(CASES)

# ---- install ------------------------------------------------------------------
# PREFIX/bin/warpcast finds its data in PREFIX/share/warpcast (relative to the
# program; $$WARPCAST_DATA overrides), so the prefix can be moved.
PREFIX  ?= /usr/local
DESTDIR ?=
P := $(DESTDIR)$(PREFIX)
PUB_HDR := common/wc.h common/wc_base.h common/wc_inst.h common/wc_config.h \
           common/wc_trace.h common/wc_json.h $(wildcard common/keys*.def) $(wildcard uarch/*.h) model/im.h detailed/dm.h \
           sampler/smp.h
DATA_FILES := $(shell find data -type f 2>/dev/null)

# remade on every install: it holds PREFIX
$(BUILD)/warpcast.pc: Makefile FORCE
	@mkdir -p $(dir $@)
	@printf '%s\n' 'prefix=$(PREFIX)' 'exec_prefix=$${prefix}' \
	  'libdir=$${exec_prefix}/lib' 'includedir=$${prefix}/include' \
	  'datadir=$${prefix}/share/warpcast' '' 'Name: warpcast' \
	  'Description: GPU kernel cycle prediction (interval, detailed and hybrid models)' \
	  'Version: 0.1.0' 'Requires.private: $(PKGS)' \
	  'Cflags: -I$${includedir}/warpcast' 'Libs: -L$${libdir} -lwarpcast' \
	  'Libs.private: $(PFM_LIB) -lpthread -lm' > $@

install: $(PROG) $(LIB) $(BUILD)/warpcast.pc
	install -d $(P)/bin $(P)/lib/pkgconfig $(P)/include/warpcast \
	  $(P)/share/warpcast $(P)/share/man/man1
	install -m 755 $(PROG) $(P)/bin/warpcast
	install -m 644 $(LIB) $(P)/lib/libwarpcast.a
	install -m 644 $(BUILD)/warpcast.pc $(P)/lib/pkgconfig/warpcast.pc
	install -m 644 $(PUB_HDR) $(P)/include/warpcast/
	@for f in $(DATA_FILES); do \
	  install -D -m 644 $$f $(P)/share/warpcast/$${f#data/} || exit 1; done
	install -m 644 docs/warpcast.1 $(P)/share/man/man1/warpcast.1

uninstall:
	rm -f $(P)/bin/warpcast $(P)/lib/libwarpcast.a $(P)/lib/pkgconfig/warpcast.pc \
	  $(P)/share/man/man1/warpcast.1
	rm -rf $(P)/include/warpcast $(P)/share/warpcast

# ---- demo / bench / fuzz --------------------------------------------------------
demo: deps
	@$(MAKE) --no-print-directory all
	@$(PROG) synth --kind mixed --sass --out $(BUILD)/demo-trace --quiet
	$(PROG) info $(BUILD)/demo-trace
	$(PROG) predict $(BUILD)/demo-trace
	$(PROG) ubench data/ubench/listing1-r10-r12.sass

bench: $(PROG) $(BENCH_BIN)
	@for b in $(BENCH_BIN); do $$b || exit 1; done

# A profile-guided build (GCC): the program trained on the project's own
# synthetic kernels (tests/bench/pgo-train.sh), same results as the plain
# build (tests/bench/ident.sh), faster (docs/user-guide.md, "Speed").
PGO_DIR ?= build-pgo
pgo: deps
	@$(CC) -v 2>&1 | grep -q "^gcc version" || \
	  { echo "pgo: needs GCC ($(CC) is not GCC)"; exit 2; }
	rm -rf $(PGO_DIR)
	@$(MAKE) --no-print-directory BUILD=$(PGO_DIR) \
	  OPT="$(OPT) -fprofile-generate -fprofile-update=prefer-atomic" \
	  LDFLAGS="$(LDFLAGS) -fprofile-generate" $(PGO_DIR)/warpcast
	tests/bench/pgo-train.sh $(PGO_DIR)/warpcast $(PGO_DIR)/train
	find $(PGO_DIR) -name '*.o' -delete
	rm -rf $(PGO_DIR)/warpcast $(PGO_DIR)/libwarpcast.a $(PGO_DIR)/train
	@$(MAKE) --no-print-directory BUILD=$(PGO_DIR) \
	  OPT="$(OPT) -fprofile-use -fprofile-partial-training -fprofile-correction -Wno-missing-profile" \
	  $(PGO_DIR)/warpcast
	@echo "pgo: $(PGO_DIR)/warpcast"

fuzz-models:
	@$(MAKE) --no-print-directory fuzz FUZZ_SRC=tests/fuzz/fuzz_models.c

fuzz:
	@mkdir -p $(BUILD)/fuzz
	@for f in $(FUZZ_SRC); do n=$$(basename $$f .c); \
	  clang -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -DWC_CHECKS -g -O1 -fsanitize=fuzzer,address,undefined -Icommon -Iuarch -Imodel -Idetailed -Isampler -Icalib -Igen \
	    -DWC_DATA_DIR='"$(abspath data)"' $$(pkg-config --cflags $(PKGS)) $(PFM_DEF) \
	    -o $(BUILD)/fuzz/$$n $$f $(LIB_SRC) $(GEN_SRC) $(LDLIBS_ALL) || exit 1; \
	  echo "built $(BUILD)/fuzz/$$n (run: $(BUILD)/fuzz/$$n tests/fuzz/corpus/$${n#fuzz_})"; done

clean:
	rm -rf build build-san build-pgo

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(GEN_OBJ:.o=.d)

FORCE:
.PHONY: FORCE
