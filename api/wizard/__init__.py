"""What the wizard offers from this machine: the OVAs it can deploy and the lab appliances that stand in
for the appliance VMs a simulated vCenter cannot run."""
