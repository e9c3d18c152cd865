# Mutation testing. Included by the Makefile (-include mk/*.mk).
#
#   make mutation              every module of tests/mutation/modules.toml: the validators that guard a
#        command line, the plan/diff/ownership/destroy code, the sizing calculator and profiles, the
#        ganesha/knfsd/LIO renderers and the first-boot model. Prints a score per module and the
#        surviving mutants; writes tests/mutation/results.json (committed: the current figures).
#        Fails when a module is under its group's target or an equivalent listed no longer exists.
#   make mutation-validators   the validators group only (a few minutes), run by `make test`: a
#        weakened name-rule test fails CI.
#   MUTATION_JOBS=n            children at once (default: one per core).
#
# Before resolving an issue that touches these modules, run `make mutation`.

MUTATION_JOBS ?= $(shell nproc)

.PHONY: mutation mutation-validators

## mutation: mutation testing of validators, plans, sizing and renderers (table, tests/mutation/results.json)
mutation: .venv/.synced
	$(PY) -m tools.mutation --check --jobs $(MUTATION_JOBS) --json tests/mutation/results.json

## mutation-validators: the validators' mutation run alone (part of make test; minutes)
mutation-validators: .venv/.synced
	$(PY) -m tools.mutation --check --jobs $(MUTATION_JOBS) --group validators --json var/mutation/validators.json
