"""Configuration options: one module per group, all registered on a ConfigOpts."""

import importlib

from oslo_config import cfg

# Each module listed here defines register_opts(conf) and list_opts().
_MODULES = (
    'paths',
    'api',
    'compute',
    'lifecycle',
    'conductor',
    'database',
    'glance',
    'cinder',
    'libvirt',
    'rpc',
    'aio',
    'quota',
    'notifications',
    'consoles',
    'wsgi',
    'resize_shelve',
    'upgrade_levels',
    'key_manager',
)


def modules():
    return [importlib.import_module('nova.conf.' + name) for name in _MODULES]


def register_all(conf):
    """Register every option group on ``conf`` (idempotent)."""
    for mod in modules():
        mod.register_opts(conf)
    return conf


def new_config(args=None, default_config_files=None):
    """Build a fresh, fully registered ConfigOpts (tests use one each)."""
    conf = cfg.ConfigOpts()
    register_all(conf)
    conf(args or [], project='nova', default_config_files=default_config_files or [])
    return conf


CONF = register_all(cfg.CONF)
