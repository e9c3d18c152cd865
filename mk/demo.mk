# The newcomer's journey: `make demo`, then the wizard deploys a pool on the demo's lab appliance.
# Included by the Makefile (-include mk/*.mk).

.PHONY: demo-test

## demo-test: start `make demo` and, from what it prints alone, deploy, destroy and deploy again in the browser
demo-test: setup web ova
	ARCVSA_LAB_REQUIRED=1 $(PY) -m pytest -m lab -s tests/lab/test_demo.py

# The storage suite in the booted image runs after the newcomer's journey.
lab-test: demo-test
