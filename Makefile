# Entry points. `make run` and `make test` are the README's two set-up commands.
BUILD_DIR ?= build
BUILD_TYPE ?= Release
WERROR ?= ON
JOBS ?= $(shell nproc)
SCENARIO ?= scenarios/raw/hopper-pingpong.json

.PHONY: setup configure build run test unit bench clean

setup:
	./scripts/setup.sh

configure: setup
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DTORSIM_WERROR=$(WERROR)

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

run: build
	./$(BUILD_DIR)/torsim run $(SCENARIO) --out $(BUILD_DIR)/out/default

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) --timeout 1800

bench: build
	./$(BUILD_DIR)/torsim bench

clean:
	rm -rf $(BUILD_DIR)
