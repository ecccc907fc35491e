# Thin wrapper over CMake presets; see README.md. `make demo` and `make test` do all set-up.
JOBS ?= $(shell nproc)
FUZZ_SECONDS ?= 20

.PHONY: all configure build build-asan demo test test-default test-asan test-fuzz deps deps-demo bench clean tidy-seed

all: build

deps:
	@scripts/install-deps.sh --for test

deps-demo:
	@scripts/install-deps.sh --for demo

# The configure step runs every time (a few seconds when nothing changed): a tool installed since the last one
# (make demo installs fewer packages than make test) must be found, and CMake searches again for every tool
# it cached as NOTFOUND only when it configures. The Windows parts and their tests depend on those tools.
configure:
	cmake --preset default >/dev/null

build: configure
	cmake --build --preset default -j $(JOBS)

# The main job on its defaults: a synthetic scene upscaled by the open NGX core (out/demo/), with and without
# its refinement network (off by default elsewhere: docs/network.md). Builds only
# what the demo runs (the `demo` build preset: d4r, libd4rcuda, libd4r_ngx), not the tests.
demo: deps-demo configure
	cmake --build --preset demo -j $(JOBS)
	build/bin/d4r demo --out out/demo --network on

test: deps
	$(MAKE) test-default
	$(MAKE) test-asan
	$(MAKE) test-fuzz

# After each ctest run, scripts/check-skips.sh fails on every skipped test that its CMakeLists.txt does not
# allow with d4r_allow_skip (ctest counts a skip as passed); the asan run must also hold every unit test of the
# default run (scripts/check-unit-tests.sh).
test-default: build
	@rm -f build/ctest-junit.xml
	ctest --preset default -j $(JOBS) --output-junit $(CURDIR)/build/ctest-junit.xml; rc=$$?; \
	scripts/check-skips.sh build || rc=1; exit $$rc

# The asan preset (clang-19, -O0, ASan + UBSan) builds the unit tests and the libFuzzer targets once;
# make test runs both from it. For long fuzzing runs the fuzz preset builds the fuzzers at -O1:
#   cmake --preset fuzz && cmake --build --preset fuzz && tests/fuzz/run-fuzzers.sh --build build-fuzz 600
build-asan:
	cmake --preset asan >/dev/null
	cmake --build --preset asan -j $(JOBS)

test-asan: build-asan
	@rm -f build-asan/ctest-junit.xml
	ctest --preset asan -j $(JOBS) --output-junit $(CURDIR)/build-asan/ctest-junit.xml; rc=$$?; \
	scripts/check-skips.sh build-asan || rc=1; \
	scripts/check-unit-tests.sh build build-asan || rc=1; exit $$rc

test-fuzz: build-asan
	tests/fuzz/run-fuzzers.sh --build build-asan $(FUZZ_SECONDS)

# Records the clang-tidy seed (tests/core/tidy-clean.txt: the keys of a clean run of the whole tree), so that a
# fresh clone (CI) checks only the files changed since. Fast after `make test` (every clean file is cached).
tidy-seed: build
	scripts/check-tidy.sh --record-seed build

bench: build
	@for b in build/bin/bench_*; do echo "== $$b"; $$b; done

clean:
	rm -rf build build-debug build-asan build-fuzz
