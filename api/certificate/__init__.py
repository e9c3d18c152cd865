"""The api's own TLS certificate: what is installed, and putting an administrator's one in its place."""
