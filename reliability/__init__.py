"""Reliability tests of the appliance in the lab (issue 8): power cuts and NFS server restarts."""
