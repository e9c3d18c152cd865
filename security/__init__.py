"""The security suite's report (issue 8): `make security` prints and saves what tests/security measured."""
