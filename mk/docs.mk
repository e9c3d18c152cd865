# The deploy guide's generated commands. Included by the Makefile (-include mk/*.mk).
#
#   make deploy-docs        rewrite the ovftool, govc and PowerCLI deploys in docs/deploy.md
#   make deploy-docs-check  fail when they are stale (the unit tests, which `make test` and `make check`
#                           run, fail the same way: tests/unit/test_ovf_deploy_docs.py)

DEPLOY_DOC := docs/deploy.md

.PHONY: deploy-docs deploy-docs-check

## deploy-docs: regenerate the ovftool, govc and PowerCLI deploy commands in docs/deploy.md from ovf/properties.yaml
deploy-docs: .venv/.synced
	$(PY) -m ovf deploy-docs --doc $(DEPLOY_DOC)

## deploy-docs-check: fail when the deploy commands in docs/deploy.md are stale
deploy-docs-check: .venv/.synced
	$(PY) -m ovf deploy-docs --check --doc $(DEPLOY_DOC)
