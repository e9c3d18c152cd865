"""Configuration backup and restore: the appliance's settings in one passphrase-encrypted file."""
