"""Calibration: desktop-density ramps and SAN checks run on this appliance, kept with every step's figures."""
