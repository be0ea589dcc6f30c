"""Configuration options: one module per group, all registered on a ConfigOpts."""

import importlib
import os
import threading

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
    'neutron',
    'network',
    'libvirt',
    'rpc',
    'aio',
    'quota',
    'notifications',
    'consoles',
    'spice',
    'wsgi',
    'resize_shelve',
    'upgrade_levels',
    'key_manager',
    'metadata',
)


def modules():
    return [importlib.import_module('nova.conf.' + name) for name in _MODULES]


def register_all(conf):
    """Register every option group on ``conf`` (idempotent)."""
    for mod in modules():
        mod.register_opts(conf)
    return conf


# Groups whose keystoneauth options (session, auth, adapter) are registered
# only when something uses them: loading them imports keystoneauth1 (about
# 1.4 MB), which the all-in-one's default mode does without.
CLIENT_GROUPS = ('glance', 'cinder', 'neutron')
_client_lock = threading.Lock()


def client_opts_registered(conf, group):
    return 'endpoint_override' in conf[group]


def register_client_opts(conf, group):
    """Register ``group``'s keystoneauth options (idempotent; imports
    keystoneauth1). Values already parsed from the files apply at once."""
    with _client_lock:
        if not client_opts_registered(conf, group):
            importlib.import_module('nova.conf.' + group).register_client_opts(conf)


def set_outside_code(conf, group):
    """Whether ``group``'s options may be set outside the code: a section of
    a configuration file, or an ``OS_<GROUP>__<OPTION>`` environment variable
    (oslo.config reads those too)."""
    prefix = 'OS_%s__' % group.upper()
    return (group in conf.list_all_sections()
            or any(name.startswith(prefix) for name in os.environ))


def client_opts_configured(conf, group):
    """Whether ``group``'s keystoneauth options may be set: set outside the
    code, or registered already."""
    return client_opts_registered(conf, group) or set_outside_code(conf, group)


def new_config(args=None, default_config_files=None):
    """Build a fresh, fully registered ConfigOpts (tests use one each)."""
    conf = cfg.ConfigOpts()
    register_all(conf)
    conf(args or [], project='nova', default_config_files=default_config_files or [])
    return conf


CONF = register_all(cfg.CONF)
