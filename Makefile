# tilelife — the two commands: `make demo` and `make test`. Both install what is missing first.
BUILD     ?= build
BUILDTYPE ?= Release
CMAKE     ?= cmake
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)

# Debian 12 packages the build, the engines and the tests use.
DEB_PACKAGES := cmake ninja-build g++ make pkg-config ca-certificates \
  libcli11-dev zlib1g-dev libgtest-dev libbenchmark-dev \
  ocl-icd-opencl-dev opencl-c-headers opencl-clhpp-headers pocl-opencl-icd clinfo oclgrind \
  golly \
  libpng-dev libgif-dev libsdl2-dev libsdl2-ttf-dev fonts-dejavu-core xvfb xauth

.PHONY: deps configure build demo test clean

deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "deps: all Debian packages are installed"; exit 0; fi; \
	if [ "$$(id -u)" != 0 ]; then \
	  echo "deps: missing Debian packages:$$missing"; \
	  echo "deps: run 'sudo make deps' (or apt-get install them as root)"; exit 1; fi; \
	echo "deps: installing$$missing"; \
	export DEBIAN_FRONTEND=noninteractive; \
	apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing

$(BUILD)/build.ninja: CMakeLists.txt
	$(CMAKE) -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILDTYPE)

configure: deps
	$(CMAKE) -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILDTYPE)

build: configure
	$(CMAKE) --build $(BUILD) -j $(JOBS)

demo: build
	@bash scripts/demo.sh $(BUILD)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD)
