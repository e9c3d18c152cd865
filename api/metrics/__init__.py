"""Storage metrics: a sampler of cumulative counters, their store, and rates computed when serving."""
