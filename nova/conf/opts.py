"""oslo-config-generator entry point: every option group of the service."""

import collections

from oslo_config import cfg


def list_opts():
    import nova.conf
    groups = collections.defaultdict(list)
    titled = {}  # groups defined with an OptGroup keep its help in the sample
    for mod in nova.conf.modules():
        for group, opts in mod.list_opts().items():
            name = getattr(group, 'name', group)
            if not isinstance(group, str):
                titled[name] = group
            groups[name].extend(opts)
    return [(titled.get(name, name), opts) for name, opts in sorted(groups.items())]


def set_defaults(conf=None):
    import nova.conf
    from nova.conf import wsgi
    wsgi.set_cors_defaults()
    nova.conf.modules()[nova.conf._MODULES.index('database')].register_opts(conf or cfg.CONF)
