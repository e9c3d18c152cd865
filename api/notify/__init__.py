"""Notifications: alerts sent by e-mail (SMTP) and to a remote syslog server as they appear and clear."""
