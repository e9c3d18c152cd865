"""arcvsa benchmarks: SAN offload, latency and desktop density, side by side against the alternatives."""
