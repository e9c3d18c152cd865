"""OVF descriptor, vApp properties and OVA packing."""
