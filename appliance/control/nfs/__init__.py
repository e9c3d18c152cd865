"""NFS exports of datastores: one model, two backends (nfs-ganesha over DBus, the kernel server)."""
