"""Prometheus: the text exposition of the appliance's metrics and the scrape tokens that may read it."""
