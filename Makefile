# Thin wrapper over CMake presets; see README.md. `make demo` and `make test` do all set-up.
JOBS ?= $(shell nproc)
FUZZ_SECONDS ?= 20

.PHONY: all build build-asan demo test test-default test-asan test-fuzz deps deps-demo bench clean

all: build

deps:
	@scripts/install-deps.sh --for test

deps-demo:
	@scripts/install-deps.sh --for demo

build/build.ninja: CMakeLists.txt CMakePresets.json
	cmake --preset default >/dev/null

build: build/build.ninja
	cmake --build --preset default -j $(JOBS)

# The main job on its defaults: a synthetic scene upscaled by the open NGX core (out/demo/). Builds only
# what the demo runs (the `demo` build preset: d4r, libd4rcuda, libd4r_ngx), not the tests.
demo: deps-demo build/build.ninja
	cmake --build --preset demo -j $(JOBS)
	build/bin/d4r demo --out out/demo

test: deps
	$(MAKE) test-default
	$(MAKE) test-asan
	$(MAKE) test-fuzz

test-default: build
	ctest --preset default -j $(JOBS)

# The asan preset (clang-19, -O0, ASan + UBSan) builds the unit tests and the libFuzzer targets once;
# make test runs both from it. For long fuzzing runs the fuzz preset builds the fuzzers at -O1:
#   cmake --preset fuzz && cmake --build --preset fuzz && tests/fuzz/run-fuzzers.sh --build build-fuzz 600
build-asan:
	cmake --preset asan >/dev/null
	cmake --build --preset asan -j $(JOBS)

test-asan: build-asan
	ctest --preset asan -j $(JOBS)

test-fuzz: build-asan
	tests/fuzz/run-fuzzers.sh --build build-asan $(FUZZ_SECONDS)

bench: build
	@for b in build/bin/bench_*; do echo "== $$b"; $$b; done

clean:
	rm -rf build build-debug build-asan build-fuzz
