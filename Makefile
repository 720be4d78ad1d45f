# tilelife — the two commands: `make demo` and `make test`. Both install what is missing first.
BUILD     ?= build
BUILDTYPE ?= Release
CMAKE     ?= cmake
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)

# Debian 12 packages the build, the engines and the tests use.
DEB_PACKAGES := cmake ninja-build g++ make pkg-config ca-certificates \
  libcli11-dev nlohmann-json3-dev zlib1g-dev libdeflate-dev libgtest-dev libbenchmark-dev \
  ocl-icd-opencl-dev opencl-c-headers opencl-clhpp-headers pocl-opencl-icd clinfo oclgrind \
  golly libopenmpi-dev openmpi-bin \
  libpng-dev libgif-dev libsdl2-dev libsdl2-ttf-dev fonts-dejavu-core xvfb xauth \
  python3-dev pybind11-dev python3-pybind11 python3-numpy python3-pytest python3-pip python3-setuptools python3-wheel \
  python3-jsonschema python3-matplotlib

.PHONY: deps configure build demo test clean fuzz fuzz-deps test-asan

# Installs the Debian packages named in $(1) that are missing (apt-get only when something is).
define install_missing
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "deps: all Debian packages are installed"; exit 0; fi; \
	if [ "$$(id -u)" != 0 ]; then \
	  echo "deps: missing Debian packages:$$missing"; \
	  echo "deps: run 'sudo make deps' (or apt-get install them as root)"; exit 1; fi; \
	echo "deps: installing$$missing"; \
	export DEBIAN_FRONTEND=noninteractive; \
	apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing
endef

deps:
	$(call install_missing,$(DEB_PACKAGES))

configure: deps
	$(CMAKE) -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILDTYPE)

build: configure
	$(CMAKE) --build $(BUILD) -j $(JOBS)

demo: build
	@bash scripts/demo.sh $(BUILD)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# AddressSanitizer + UndefinedBehaviorSanitizer build running the whole test suite, except:
# - the Oclgrind runs: oclgrind preloads its own runtime, which ASan refuses to follow (the kernels
#   they check run under ASan in the OpenCL suites anyway);
# - leak checking for every test that opens SDL's video (windows, viewer events, `view` through the
#   CLI, the viewer on hashlife): SDL's video drivers are dlopen'ed and unloaded, and what they
#   keep until exit is reported from an unknown module (ASan and UBSan still check those tests; the
#   docs test runs the documents' `view` commands headless);
#   likewise for the MPI tests, where Open MPI keeps what its unloaded plugins allocated.
# intercept_tls_get_addr=0: GCC 12's LeakSanitizer records blocks of dynamic TLS (PoCL's, LLVM's)
#   through __tls_get_addr and, in some processes, scans a bogus one at exit and crashes ("Tracer
#   caught signal 11", seen on a one-test GollyDiff run); without the records it scans no dynamic
#   TLS, whose owners' leaks are suppressed anyway (tests/asan/lsan.supp).
# - runs under `ulimit -v` (every Limits test whose name ends in AddressSpaceLimit, and
#   python.memory_limits): ASan maps terabytes of shadow memory at start, which no such
#   address-space limit leaves room for. A new test under `ulimit -v` keeps that name ending.
ASAN_EXCLUDE       := ^oclgrind|^Limits\..*AddressSpaceLimit$$|^python\.memory_limits
ASAN_NO_LEAK_CHECK := ^(Display/Window|Events\.|ViewerWindow\.|viewer_events_x11|NoDisplay\.|ViewMemory\.|ViewEngine\.|Cli\.ViewLoadsTheViewerModule|Engines/ViewerOnHashlife\.|mpi_engine_np|MpiCli\.|docs\.commands)
ASAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
test-asan: deps
	$(CMAKE) -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTILELIFE_BENCH=OFF \
	  -DCMAKE_CXX_FLAGS="$(ASAN_FLAGS)" -DCMAKE_C_FLAGS="$(ASAN_FLAGS)" \
	  -DCMAKE_EXE_LINKER_FLAGS="$(ASAN_FLAGS)"
	$(CMAKE) --build build-asan -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:intercept_tls_get_addr=0 UBSAN_OPTIONS=print_stacktrace=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/asan/lsan.supp ctest --output-on-failure -j $(JOBS) \
	  -E '$(ASAN_EXCLUDE)|$(ASAN_NO_LEAK_CHECK)'
	cd build-asan && ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS) -R '$(ASAN_NO_LEAK_CHECK)'

# libFuzzer: every reader and the rule parser, FUZZ_SECONDS each (crashes kept under tests/fuzz_regressions/).
FUZZ_SECONDS ?= 60
FUZZ_CLANG   ?= 16
fuzz-deps:
	$(call install_missing,clang-$(FUZZ_CLANG) libclang-rt-$(FUZZ_CLANG)-dev)

fuzz: deps fuzz-deps
	$(CMAKE) -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_C_COMPILER=clang-$(FUZZ_CLANG) -DCMAKE_CXX_COMPILER=clang++-$(FUZZ_CLANG) \
	  -DTILELIFE_FUZZ=ON -DTILELIFE_TESTS=OFF -DTILELIFE_BENCH=OFF -DTILELIFE_OPENCL=OFF \
	  -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer"
	$(CMAKE) --build build-fuzz -j $(JOBS) --target fuzzers
	bash fuzz/run.sh build-fuzz $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD) build-asan build-fuzz
