# Entry points. `make run` and `make test` are the README's two set-up commands.
BUILD_DIR ?= build
BUILD_TYPE ?= Release
WERROR ?= ON
JOBS ?= $(shell nproc)
SCENARIO ?= scenarios/raw/hopper-pingpong.json

.PHONY: setup configure build run test bench validate reference update-golden clean

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

# The full validation report (docs/validation/) and the statuses CI guards (validation/status.json).
validate: build
	./$(BUILD_DIR)/torsim validate --record-status validation/status.json
	./$(BUILD_DIR)/torsim validate --quick --no-plots --report $(BUILD_DIR)/validation-quick --record-status validation/status.json

# Generated from the parameter tables: the scenario reference and the JSON Schemas (a test fails
# when they are stale).
reference: build
	./$(BUILD_DIR)/torsim reference --out docs/scenario-reference.md
	./$(BUILD_DIR)/torsim schema --out docs/schema/scenario.schema.json
	./$(BUILD_DIR)/torsim schema --machine --out docs/schema/machine.schema.json

# Rewrites the golden outputs; REASON is appended to validation/CHANGELOG.md.
update-golden: build
	python3 tests/regression/golden.py update ./$(BUILD_DIR)/torsim --reason "$(REASON)"

clean:
	rm -rf $(BUILD_DIR)
