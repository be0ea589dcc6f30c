"""Functional tests: the real services, SQLite/PostgreSQL/MariaDB, RabbitMQ, libvirtd and QEMU."""
