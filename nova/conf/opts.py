"""oslo-config-generator entry point: every option group of the service."""

import collections

from oslo_config import cfg


def list_opts():
    import nova.conf
    groups = collections.defaultdict(list)
    for mod in nova.conf.modules():
        for group, opts in mod.list_opts().items():
            groups[group].extend(opts)
    return sorted(groups.items())


def set_defaults(conf=None):
    import nova.conf
    from nova.conf import wsgi
    wsgi.set_cors_defaults()
    nova.conf.modules()[nova.conf._MODULES.index('database')].register_opts(conf or cfg.CONF)
