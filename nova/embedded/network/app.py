"""WSGI entry point, composition root and the one route table of the embedded Neutron API."""

import logging
import os
import re
import uuid

import webob.dec

from nova.embedded.network import (
    binding,
    common,
    discovery,
    errors,
    events,
    networks,
    ports,
    quotas,
    secgroups,
    store,
    subnets,
)

LOG = logging.getLogger(__name__)

_ID = r'(?P<%s>[^/]+)'


class EmbeddedNetworkAPI:
    """The embedded network service: its parts, and the WSGI application over them.

    ``notifier`` (an ``events.PortEventNotifier``) receives the port events Neutron
    sends Nova; ``bridge_name`` goes into every binding's ``vif_details``.
    """

    def __init__(self, data_dir, settings=None, notifier=None, bridge_name='br-aio'):
        self.settings = settings or networks.NetworkSettings()
        self.store = store.NetworkStore(os.path.join(data_dir, 'network.sqlite'))
        self.changes = events.ChangeFeed()
        self.quota_engine = quotas.NetworkQuotaEngine(self.store)
        self.quotas = quotas.QuotasResource(self.quota_engine)
        self.security_groups = secgroups.SecurityGroupsResource(self.store, self.quota_engine,
                                                           self.changes)
        self.networks = networks.NetworksResource(self.store, self.quota_engine,
                                             self.security_groups, self.changes,
                                             self.settings)
        self.subnets = subnets.SubnetsResource(self.store, self.quota_engine, self.networks,
                                          self.changes)
        self.binder = binding.PortBinder(bridge_name)
        self.ports = ports.PortsResource(self.store, self.quota_engine, self.networks,
                                         self.security_groups, self.binder, self.changes,
                                         notifier, self.settings)
        self._routes = self._route_table()

    def _route_table(self):
        """(path pattern, {method: handler}); paths below /v2.0."""
        sg, quota = self.security_groups, self.quotas
        table = (
            ('/extensions', {'GET': discovery.list_extensions}),
            ('/extensions/' + _ID % 'alias', {'GET': discovery.show_extension}),
            ('/networks', {'GET': self.networks.list, 'POST': self.networks.create}),
            ('/networks/' + _ID % 'network_id',
             {'GET': self.networks.show, 'PUT': self.networks.update,
              'DELETE': self.networks.delete}),
            ('/subnets', {'GET': self.subnets.list, 'POST': self.subnets.create}),
            ('/subnets/' + _ID % 'subnet_id',
             {'GET': self.subnets.show, 'PUT': self.subnets.update,
              'DELETE': self.subnets.delete}),
            ('/subnetpools', {'GET': discovery.list_subnetpools}),
            ('/floatingips', {'GET': discovery.list_floatingips}),
            ('/subnetpools/' + _ID % 'pool_id', {'GET': discovery.show_subnetpool}),
            ('/ports', {'GET': self.ports.list, 'POST': self.ports.create}),
            ('/ports/' + _ID % 'port_id',
             {'GET': self.ports.show, 'PUT': self.ports.update, 'DELETE': self.ports.delete}),
            ('/security-groups', {'GET': sg.list_groups, 'POST': sg.create_group}),
            ('/security-groups/' + _ID % 'group_id',
             {'GET': sg.show_group, 'PUT': sg.update_group, 'DELETE': sg.delete_group}),
            ('/security-group-rules', {'GET': sg.list_rules, 'POST': sg.create_rule}),
            ('/security-group-rules/' + _ID % 'rule_id',
             {'GET': sg.show_rule, 'DELETE': sg.delete_rule}),
            ('/quotas', {'GET': quota.list}),
            ('/quotas/(?:project|tenant)', {'GET': quota.caller_project}),
            ('/quotas/' + _ID % 'project_id' + '/default', {'GET': quota.defaults}),
            ('/quotas/' + _ID % 'project_id' + '/details', {'GET': quota.details}),
            ('/quotas/' + _ID % 'project_id',
             {'GET': quota.show, 'PUT': quota.update, 'DELETE': quota.delete}),
        )
        return tuple((re.compile('^/v2.0%s$' % path), methods) for path, methods in table)

    def _find(self, path):
        if path in ('', '/'):
            return {'GET': discovery.list_versions}, {}
        if path in ('/v2.0', '/v2.0/'):
            return {'GET': discovery.show_v2}, {}
        # Neutron takes a format suffix on every resource path.
        path = path.rstrip('/')
        if path.endswith('.json'):
            path = path[:-len('.json')]
        for pattern, methods in self._routes:
            match = pattern.match(path)
            if match:
                return methods, match.groupdict()
        raise errors.NeutronNotFound('The resource could not be found.')

    @staticmethod
    def _caller(req):
        # The deployment's auth wrapper (nova.api.auth.protect) put the
        # validated identity there; identity headers from clients never count.
        ctx = req.environ.get('nova.context')
        if ctx is None or not ctx.project_id:
            raise errors.NeutronUnauthorized('The request you have made requires authentication.')
        return common.NetworkCaller(project_id=ctx.project_id, user_id=ctx.user_id,
                             is_admin=bool(ctx.is_admin))

    def _dispatch(self, req):
        methods, kwargs = self._find(req.path_info)
        handler = methods.get(req.method)
        if handler is None:
            raise errors.NeutronMethodNotAllowed(
                'The method %s is not allowed for this resource.' % req.method,
                headers={'Allow': ', '.join(sorted(methods))})
        if handler not in (discovery.list_versions,):
            req.caller = self._caller(req)
        if req.method == 'DELETE' and req.content_length:
            raise errors.NeutronBadRequest('Request body is not supported in DELETE.')
        return handler(req, **kwargs)

    @webob.dec.wsgify(RequestClass=common.NeutronRequest)
    def __call__(self, req):
        # The request id middleware's, when it runs in front (all-in-one).
        request_id = req.environ.get('openstack.request_id') or 'req-' + str(uuid.uuid4())
        headers = {'x-openstack-request-id': request_id}
        try:
            resp = self._dispatch(req)
        except errors.NeutronAPIError as exc:
            resp = common.json_response(errors.fault_body(exc), status=exc.code)
            headers.update(exc.headers)
        except UnicodeDecodeError:
            # A path or query string whose percent-escapes are not UTF-8.
            exc = errors.NeutronBadRequest('The request path or query string is not valid UTF-8.')
            resp = common.json_response(errors.fault_body(exc), status=400)
        except Exception:
            LOG.exception('%s %s failed', req.method, req.path)
            exc = errors.NeutronAPIError('Request Failed: internal server error while '
                                         'processing your request.')
            resp = common.json_response(errors.fault_body(exc), status=500)
        resp.headers.update(headers)
        return resp

    def close(self):
        self.store.close()


def make_app(data_dir, settings=None, notifier=None, bridge_name='br-aio'):
    """Build the embedded network endpoint storing its records under ``data_dir``."""
    return EmbeddedNetworkAPI(data_dir, settings, notifier, bridge_name)
