"""The support bundle: one archive with what a support engineer asks for first, secrets redacted."""
