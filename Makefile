# Thin wrapper over CMake presets; see README.md. `make demo` and `make test` do all set-up.
JOBS ?= $(shell nproc)
FUZZ_SECONDS ?= 20

.PHONY: all build demo test test-default test-asan test-fuzz deps deps-demo bench clean

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

test-asan:
	cmake --preset asan >/dev/null
	cmake --build --preset asan -j $(JOBS)
	ctest --preset asan -j $(JOBS)

test-fuzz:
	cmake --preset fuzz >/dev/null
	cmake --build --preset fuzz -j $(JOBS)
	tests/fuzz/run-fuzzers.sh $(FUZZ_SECONDS)

bench: build
	@for b in build/bin/bench_*; do echo "== $$b"; $$b; done

clean:
	rm -rf build build-debug build-asan build-fuzz
