"""The embedded image and volume endpoints alone, for the split-services compatibility run.

nova-aio serves them in its own process; with nova-api, nova-conductor and nova-compute as
separate processes (tools/run-compat.sh, NOVA_COMPAT_TOPOLOGY=split) this script serves the
same two endpoints, keystone-protected, on [aio] image_port and volume_port:

    python tools/compat_endpoints.py --config-file nova.conf [--config-file ...]
"""

import os
import sys

import nova.conf
from nova import wsgi_server
from nova.api import auth
from nova.cmd import aio, common


@common.clean_exit
def main(argv=None):
    conf = nova.conf.CONF
    aio.set_aio_defaults(conf)
    common.parse_args(argv, conf=conf)
    aio.register_keystone_opts(conf)
    os.makedirs(conf.state_path, exist_ok=True)
    endpoints = aio.AllInOne(conf)
    from nova.embedded.image import app as image_app
    image = auth.protect(image_app.make_app(os.path.join(conf.state_path, 'images')),
                         conf, aio.IMAGE_PUBLIC_PATHS)
    server, _t, image_url = wsgi_server.serve_in_thread(image, conf.aio.listen,
                                                        conf.aio.image_port)
    endpoints.servers.append(server)
    aio._point_client(conf, 'glance', image_url)
    endpoints._start_volume_endpoint(conf)
    common.wait_for_signal(endpoints.stop, ready=lambda: print(
        'compat endpoints ready: image %s, volume %s' % (image_url, endpoints.urls['volume']),
        flush=True))


if __name__ == '__main__':
    sys.exit(main())
