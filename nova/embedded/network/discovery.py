"""Version documents (GET /, GET /v2.0/) and the extension list of the embedded network service."""

import typing

from nova.embedded.network import errors
from nova.embedded.network.common import json_response


class NeutronExtension(typing.NamedTuple):
    alias: str
    name: str
    description: str
    updated: str


# What this endpoint implements, under Neutron's aliases: clients (Nova's
# Neutron client, openstacksdk) switch behaviour on these.
EXTENSIONS = (
    NeutronExtension('binding', 'Port Binding',
              'Expose port bindings of a virtual port to external application',
              '2014-02-03T10:00:00-00:00'),
    NeutronExtension('port-security', 'Port Security', 'Provides port security',
              '2012-07-23T10:00:00-00:00'),
    NeutronExtension('security-group', 'security-group', 'The security groups extension.',
              '2012-10-05T10:00:00-00:00'),
    NeutronExtension('external-net', 'Neutron external network',
              'Adds external network attribute to network resource.',
              '2013-01-14T10:00:00-00:00'),
    NeutronExtension('quotas', 'Quota management support',
              'Expose functions for quotas management per project',
              '2012-07-29T10:00:00-00:00'),
    NeutronExtension('quota_details', 'Quota details management support',
              'Expose functions for quotas usage statistics per project',
              '2017-02-10T10:00:00-00:00'),
    NeutronExtension('dns-integration', 'DNS Integration', 'Provides integration with DNS.',
              '2015-08-15T18:00:00-00:00'),
    NeutronExtension('net-mtu', 'Network MTU', 'Provides MTU attribute for a network resource.',
              '2015-03-25T10:00:00-00:00'),
    NeutronExtension('net-mtu-writable', 'Network MTU (writable)',
              'Provides a writable MTU attribute for a network resource.',
              '2017-07-12T00:00:00-00:00'),
    NeutronExtension('standard-attr-description', 'standard-attr-description',
              'NeutronExtension to add descriptions to standard attributes',
              '2016-02-10T10:00:00-00:00'),
    NeutronExtension('standard-attr-timestamp', 'Resource timestamps',
              'Adds created_at and updated_at fields to all Neutron resources '
              'that have Neutron standard attributes.', '2016-09-12T10:00:00-00:00'),
    NeutronExtension('standard-attr-revisions', 'Resource revision numbers',
              'This extension will display the revision number of neutron resources.',
              '2016-04-11T10:00:00-00:00'),
    NeutronExtension('project-id', 'project_id field enabled',
              'NeutronExtension that indicates that project_id field is enabled.',
              '2016-09-09T09:09:09-09:09'),
    NeutronExtension('pagination', 'Pagination support',
              'NeutronExtension that indicates that pagination is enabled.',
              '2016-06-12T00:00:00-00:00'),
    NeutronExtension('sorting', 'Sorting support',
              'NeutronExtension that indicates that sorting is enabled.',
              '2016-06-12T00:00:00-00:00'),
    NeutronExtension('filter-validation', 'Filter parameters validation',
              'Provides validation on filter parameters.', '2018-07-04T10:00:00-00:00'),
    NeutronExtension('empty-string-filtering', 'Empty String Filtering NeutronExtension',
              'Allow filtering by attributes with empty string value',
              '2018-05-01T10:00:00-00:00'),
    NeutronExtension('ip-substring-filtering', 'IP address substring filtering',
              'Provides IP address substring filtering when listing ports',
              '2017-11-28T09:00:00-00:00'),
)
ALIASES = frozenset(ext.alias for ext in EXTENSIONS)


def _extension_body(ext):
    return {'name': ext.name, 'alias': ext.alias, 'description': ext.description,
            'updated': ext.updated, 'links': []}


def _base(req):
    return req.host_url + req.script_name


def list_versions(req):
    """GET /: the one version, v2.0, as Neutron lists it."""
    return json_response({'versions': [{
        'id': 'v2.0', 'status': 'CURRENT',
        'links': [{'rel': 'self', 'href': _base(req) + '/v2.0/'}]}]})


def show_v2(req):
    """GET /v2.0/: the core collections."""
    base = _base(req) + '/v2.0/'
    return json_response({'resources': [
        {'name': name, 'collection': collection,
         'links': [{'rel': 'self', 'href': base + collection}]}
        for name, collection in (('network', 'networks'), ('subnet', 'subnets'),
                                 ('subnetpool', 'subnetpools'), ('port', 'ports'))]})


def list_extensions(req):
    return json_response({'extensions': [_extension_body(e) for e in EXTENSIONS]})


def show_extension(req, alias):
    for ext in EXTENSIONS:
        if ext.alias == alias:
            return json_response({'extension': _extension_body(ext)})
    raise errors.NeutronNotFound('NeutronExtension with alias %s does not exist' % alias)


def list_subnetpools(req):
    """GET /v2.0/subnetpools: there are none (subnets take an explicit CIDR here)."""
    return json_response({'subnetpools': []})


def show_subnetpool(req, pool_id):
    raise errors.not_found('SubnetPoolNotFound', 'Subnet pool %s could not be found.' % pool_id)


def list_floatingips(req):
    """GET /v2.0/floatingips: there are none (no routers here; the host reaches the
    guests at their fixed IPs). Served, empty, for clients that look them up."""
    return json_response({'floatingips': []})
