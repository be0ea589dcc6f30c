"""[spice] options: SPICE graphics for guests, the spice-html5 proxy and spice-direct URLs."""

from oslo_config import cfg

GROUP = 'spice'

opts = [
    cfg.BoolOpt('enabled', default=False,
                help='Give each guest a SPICE graphics device (besides VNC when '
                     '[vnc] enabled is also set) and serve the "spice-html5" '
                     'and "spice-direct" consoles. Guests defined before the '
                     'change get it when they are next rebuilt, resized or '
                     'migrated.'),
    cfg.BoolOpt('agent_enabled', default=True,
                help='Give SPICE guests the spicevmc channel the SPICE guest '
                     'agent (spice-vdagent) talks through: clipboard sharing, '
                     'client mouse mode and display resizing.'),
    cfg.HostAddressOpt('server_listen', default='127.0.0.1',
                       help="Address the guests' SPICE servers listen on (on "
                            'the compute host).'),
    cfg.HostAddressOpt('server_proxyclient_address', default='127.0.0.1',
                       help='Address of the compute host the spice-html5 proxy '
                            '(and, for spice-direct consoles, a native SPICE '
                            "proxy) connects to, to reach the guests' SPICE "
                            'servers.'),
    cfg.URIOpt('html5proxy_base_url',
               default='http://127.0.0.1:6082/spice_auto.html',
               help='Public URL of the spice-html5 page; console URLs handed '
                    'to users are this plus "?token=<token>".'),
    cfg.HostAddressOpt('html5proxy_host', default='0.0.0.0',
                       help='Address nova-spicehtml5proxy listens on.'),
    cfg.PortOpt('html5proxy_port', default=6082,
                help='Port nova-spicehtml5proxy listens on. 0 picks a free port '
                     '(the all-in-one then rewrites html5proxy_base_url).'),
    cfg.URIOpt('spice_direct_proxy_base_url',
               default='http://127.0.0.1:13002/nova',
               help='Public URL of a native SPICE protocol proxy (such as '
                    'Kerbside) for "spice-direct" consoles (microversion '
                    '2.99); console URLs handed to users are this plus '
                    '"?token=<token>". The proxy looks the token up with GET '
                    '/os-console-auth-tokens/{token} (an administrator call) '
                    "to learn the guest's SPICE host and port. This service "
                    'runs no such proxy itself.'),
]


def register_opts(conf):
    conf.register_opts(opts, group=GROUP)


def list_opts():
    return {GROUP: opts}
