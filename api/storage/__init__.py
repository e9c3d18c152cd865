"""The storage part of the api: disks, pools and datasets of the appliance it runs on (appliance.control)."""
