# Entry points. `make run` and `make test` are the README's two set-up commands.
BUILD_DIR ?= build
SANITIZE_DIR ?= build-sanitize
BUILD_TYPE ?= Release
WERROR ?= ON
JOBS ?= $(shell nproc)
SCENARIO ?= scenarios/raw/hopper-pingpong.json

.PHONY: setup configure build run test bench validate validate-on-request reference update-golden clean sanitize-build sanitize format

setup:
	./scripts/setup.sh

configure: setup
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DTORSIM_WERROR=$(WERROR)

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

run: build
	./$(BUILD_DIR)/torsim run $(SCENARIO) --out $(BUILD_DIR)/out/default

# Every test of the normal build, then the unit and command-line tests again under ASan + UBSan
# and the fuzzers for their fixed number of inputs (docs/hardening.md).
test: build sanitize-build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) --timeout 1800
	cd $(SANITIZE_DIR) && ctest --output-on-failure -j $(JOBS) --timeout 1800 -L 'unit|fuzz'

# The sanitizer and fuzz tree: clang, AddressSanitizer + UndefinedBehaviorSanitizer (any report
# aborts), libFuzzer targets; -O1 keeps its build and its tests short.
sanitize-build: setup
	cmake -S . -B $(SANITIZE_DIR) -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" -DTORSIM_SANITIZE=ON -DTORSIM_FUZZ=ON -DTORSIM_WERROR=$(WERROR)
	cmake --build $(SANITIZE_DIR) -j $(JOBS)

sanitize: sanitize-build
	cd $(SANITIZE_DIR) && ctest --output-on-failure -j $(JOBS) --timeout 1800 -L 'unit|fuzz'

bench: build
	./$(BUILD_DIR)/torsim bench

# The full validation report (docs/validation/) and the statuses CI guards (validation/status.json).
# The claims whose reduced-scale robustness CI checks (tests/CMakeLists.txt), comma-separated.
QUICK_ROBUSTNESS_CLAIMS = $(shell sed -n 's/^set(QUICK_ROBUSTNESS_CLAIMS \(.*\))$$/\1/p' tests/CMakeLists.txt | tr ' ' ',')
validate: build
	./$(BUILD_DIR)/torsim validate --record-status validation/status.json
	./$(BUILD_DIR)/torsim validate --quick --no-plots --report $(BUILD_DIR)/validation-quick --record-status validation/status.json
	./$(BUILD_DIR)/torsim validate --quick --sensitivity --no-plots --only $(QUICK_ROBUSTNESS_CLAIMS) --report $(BUILD_DIR)/validation-quick --record-status validation/status.json

# The claims whose full-scale robustness costs hours of CPU (validation/claims.json's
# sensitivity.on_request), each varied by a run that names it into docs/validation/on-request/<claim>/
# (`make validate-on-request ON_REQUEST_CLAIMS=C2` recomputes one); `make validate` then quotes it
# for each claim whose curves that run reproduced value for value.
ON_REQUEST_CLAIMS ?= $(shell python3 -c "import json; print(' '.join(c['id'] for c in json.load(open('validation/claims.json'))['claims'] if c.get('sensitivity', {}).get('on_request')))")
validate-on-request: build
	for claim in $(ON_REQUEST_CLAIMS); do \
	  ./$(BUILD_DIR)/torsim validate --only $$claim --jobs $(JOBS) --report docs/validation/on-request/$$claim --record-status validation/status.json || exit $$?; \
	done

# Generated from the parameter tables: the scenario reference and the JSON Schemas (a test fails
# when they are stale).
reference: build
	./$(BUILD_DIR)/torsim reference --out docs/scenario-reference.md
	./$(BUILD_DIR)/torsim schema --out docs/schema/scenario.schema.json
	./$(BUILD_DIR)/torsim schema --machine --out docs/schema/machine.schema.json
	python3 tests/cli/bad_input_catalogue.py > docs/bad-input.md

# Rewrites the golden outputs; REASON is appended to validation/CHANGELOG.md.
update-golden: build
	python3 tests/regression/golden.py update ./$(BUILD_DIR)/torsim --reason "$(REASON)"

# Applies .clang-format to every C++ source (CTest `format` checks it).
format:
	python3 scripts/check_format.py . --fix

clean:
	rm -rf $(BUILD_DIR) $(SANITIZE_DIR)
