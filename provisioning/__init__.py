"""vSphere provisioning through pyVmomi: sessions, inventory, and plan → apply / destroy of a deployment
(appliance fleet, NFS datastores, desktop pools), plus the Horizon REST client."""
