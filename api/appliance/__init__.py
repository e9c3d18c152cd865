"""The appliance this api runs on: its build, its role and what first boot made of its OVF properties."""
