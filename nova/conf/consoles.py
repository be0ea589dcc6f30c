"""[vnc], [serial_console] and [consoleauth] options: guest consoles and their proxies."""

from oslo_config import cfg

vnc_opts = [
    cfg.BoolOpt('enabled', default=True,
                help='Give each guest a VNC graphics device and serve VNC '
                     'consoles through nova-novncproxy.'),
    cfg.HostAddressOpt('server_listen', default='127.0.0.1',
                       help='Address the guests\' VNC servers listen on (on '
                            'the compute host).'),
    cfg.HostAddressOpt('server_proxyclient_address', default='127.0.0.1',
                       help='Address of the compute host the VNC proxy '
                            'connects to, to reach the guests\' VNC servers.'),
    cfg.URIOpt('novncproxy_base_url',
               default='http://127.0.0.1:6080/vnc_auto.html',
               help='Public URL of the noVNC page; console URLs handed to '
                    'users are this plus "?path=%3Ftoken%3D<token>".'),
    cfg.HostAddressOpt('novncproxy_host', default='0.0.0.0',
                       help='Address nova-novncproxy listens on.'),
    cfg.PortOpt('novncproxy_port', default=6080,
                help='Port nova-novncproxy listens on. 0 picks a free port '
                     '(the all-in-one then rewrites novncproxy_base_url).'),
]

serial_opts = [
    cfg.BoolOpt('enabled', default=False,
                help='Give each guest a serial port on a TCP port of the '
                     'compute host and serve serial consoles through '
                     'nova-serialproxy. The console log keeps working.'),
    cfg.StrOpt('port_range', default='10000:20000',
               regex=r'^\d+:\d+$',
               help='Range of TCP ports (MIN:MAX) the guests\' serial '
                    'consoles are given.'),
    cfg.URIOpt('base_url', default='ws://127.0.0.1:6083/',
               help='Public URL of nova-serialproxy; console URLs handed to '
                    'users are this plus "?token=<token>".'),
    cfg.HostAddressOpt('proxyclient_address', default='127.0.0.1',
                       help='Address of the compute host the serial console '
                            'listens on and the serial proxy connects to.'),
    cfg.HostAddressOpt('serialproxy_host', default='0.0.0.0',
                       help='Address nova-serialproxy listens on.'),
    cfg.PortOpt('serialproxy_port', default=6083,
                help='Port nova-serialproxy listens on. 0 picks a free port '
                     '(the all-in-one then rewrites base_url).'),
]

consoleauth_opts = [
    cfg.IntOpt('token_ttl', default=600, min=0,
               help='Seconds a console token stays valid.'),
]

console_opts = [
    cfg.ListOpt('allowed_origins', default=[],
                help='Host names, besides the one the console proxy is reached '
                     'at, that pages opening a console websocket may come '
                     'from (the Origin header); other origins are refused.'),
]

GROUPS = {'vnc': vnc_opts, 'serial_console': serial_opts,
          'consoleauth': consoleauth_opts, 'console': console_opts}


def register_opts(conf):
    for group, opts in GROUPS.items():
        conf.register_opts(opts, group=group)


def list_opts():
    return dict(GROUPS)
