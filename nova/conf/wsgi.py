"""[wsgi] options of the HTTP server nova-api and the all-in-one run, and shutdown timing."""

from oslo_config import cfg
from oslo_service import _options as service_options

GROUP = 'wsgi'

opts = [
    cfg.IntOpt('default_pool_size', default=100, min=1,
               help='Most connections served at once by one nova-api (or '
                    'each all-in-one endpoint): one thread each. Further '
                    'connections wait in the listen backlog until a thread '
                    'is free. Under uWSGI, gunicorn or mod_wsgi the server '
                    'decides instead (processes/threads).'),
    cfg.BoolOpt('keep_alive', default=True,
                help='Keep client connections open between requests (HTTP/1.1 '
                     'keep-alive). False closes each connection after one '
                     'response.'),
    cfg.IntOpt('client_socket_timeout', default=900, min=0,
               help='Seconds a client connection may stay idle between '
                    'requests, or stall while sending one, before it is '
                    'closed; 0 waits forever. Idle keep-alive connections '
                    'hold a thread of default_pool_size meanwhile.'),
]

# [DEFAULT] graceful_shutdown_timeout: oslo.service's own option object, so
# the name and meaning match every other OpenStack service.
shutdown_opts = [o for o in service_options.service_opts
                 if o.name == 'graceful_shutdown_timeout']


# Headers a browser on another origin may send and read: the [cors] defaults
# upstream Nova sets.
CORS_ALLOW_HEADERS = ['X-Auth-Token', 'X-Openstack-Request-Id', 'X-Identity-Status',
                      'X-Roles', 'X-Service-Catalog', 'X-User-Id', 'X-Tenant-Id',
                      'X-OpenStack-Nova-API-Version', 'OpenStack-API-Version']
CORS_EXPOSE_HEADERS = ['X-Auth-Token', 'X-Openstack-Request-Id', 'X-Subject-Token',
                       'X-Service-Token', 'X-OpenStack-Nova-API-Version',
                       'OpenStack-API-Version']
CORS_ALLOW_METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'PATCH']


def set_cors_defaults():
    from oslo_middleware import cors
    cors.set_defaults(allow_headers=CORS_ALLOW_HEADERS, expose_headers=CORS_EXPOSE_HEADERS,
                      allow_methods=CORS_ALLOW_METHODS)


def register_opts(conf):
    conf.register_opts(opts, group=GROUP)
    conf.register_opts(shutdown_opts)


def list_opts():
    return {GROUP: opts, 'DEFAULT': shutdown_opts}
