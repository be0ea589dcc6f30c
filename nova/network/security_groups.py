"""Security groups in Neutron: by name or id, on a server's ports, and the proxy API's CRUD.

Groups and rules are answered in upstream's internal "nova" format, which the
os-security-groups views render: a group is ``{id, name, description,
project_id, rules}``; a rule ``{id, parent_group_id, protocol, from_port,
to_port, group_id, cidr}`` (ingress rules only, as upstream shows them).
"""

import logging

import netaddr
from oslo_utils import uuidutils

from nova import exception
from nova.network import networks as net_lookups

LOG = logging.getLogger(__name__)

DEFAULT = 'default'
# Device ids per ports query: keeps the URL short, as upstream batches them.
_BATCH = 150


def to_nova_rule(rule):
    """A Neutron rule in upstream's nova format."""
    protocol = rule.get('protocol')
    low, high = rule.get('port_range_min'), rule.get('port_range_max')
    if protocol and low is None and high is None:
        low, high = (1, 65535) if protocol.upper() in ('TCP', 'UDP') else (-1, -1)
    return {'id': rule['id'], 'parent_group_id': rule['security_group_id'],
            'protocol': protocol, 'from_port': low, 'to_port': high,
            'group_id': rule.get('remote_group_id'), 'cidr': rule.get('remote_ip_prefix')}


def to_nova_group(group):
    return {'id': group['id'], 'name': group['name'],
            'description': group.get('description'), 'project_id': group.get('tenant_id'),
            'rules': [to_nova_rule(r) for r in group.get('security_group_rules') or ()
                      if r.get('direction') == 'ingress']}


def _as_int(value, protocol):
    try:
        return int(value)
    except (TypeError, ValueError) as exc:
        if protocol == 'ICMP':
            raise exception.Invalid(
                reason='Type and Code must be integers for ICMP protocol type') from exc
        raise exception.Invalid(reason='To and From ports must be integers') from exc


def neutron_rule(parent_group_id, ip_protocol=None, from_port=None, to_port=None,
                 cidr=None, group_id=None):
    """A proxy API rule (os-security-group-rules' body) as Neutron's, checked
    as upstream checks it (InvalidIpProtocol, InvalidPortRange, InvalidCidr)."""
    rule = {'direction': 'ingress', 'security_group_id': parent_group_id,
            'remote_group_id': group_id, 'remote_ip_prefix': None, 'ethertype': 'IPv4'}
    if cidr and not group_id:
        try:
            if '/' not in str(cidr):
                raise ValueError('no prefix length')
            network = netaddr.IPNetwork(cidr)
        except (netaddr.AddrFormatError, ValueError, TypeError) as exc:
            raise exception.InvalidCidr(cidr=cidr) from exc
        # As given (host bits kept), as upstream sends it to Neutron.
        rule['remote_ip_prefix'] = str(cidr)
        rule['ethertype'] = 'IPv6' if network.version == 6 else 'IPv4'
    if ip_protocol is None or from_port is None or to_port is None:
        if cidr and not group_id:
            raise exception.Invalid(reason='Not enough parameters to build a valid rule.')
        rule['protocol'] = None
        return rule
    protocol = str(ip_protocol).upper()
    low, high = _as_int(from_port, protocol), _as_int(to_port, protocol)
    if protocol not in ('TCP', 'UDP', 'ICMP'):
        raise exception.InvalidIpProtocol(protocol=ip_protocol)
    if protocol in ('TCP', 'UDP'):
        if low > high:
            raise exception.InvalidPortRange(from_port=low, to_port=high,
                                             msg='Former value cannot be greater than the '
                                                 'later')
        if low < 1 or high > 65535:
            raise exception.InvalidPortRange(from_port=low, to_port=high,
                                             msg='Valid %s ports should be between 1-65535'
                                                 % protocol)
    elif not (-1 <= low <= 255 and -1 <= high <= 255):
        raise exception.InvalidPortRange(from_port=low, to_port=high,
                                         msg='For ICMP, the type:code must be valid')
    rule['protocol'] = str(ip_protocol).lower()
    if low != -1:
        rule['port_range_min'] = low
    if high != -1:
        rule['port_range_max'] = high
    return rule


class NeutronSecurityGroups:
    """Security group calls with the caller's token (Neutron's policy decides)."""

    def __init__(self, client):
        self._client = client

    # -- by name or id ---------------------------------------------------------

    def find_id(self, context, name_or_id, project_id=None):
        """The id of the group named (or of that id) ``name_or_id``.

        A name is looked up among ``project_id``'s groups (the caller's by
        default) and the shared ones; two matches: NoUniqueMatch (409); none:
        SecurityGroupNotFound (404).
        """
        project_id = project_id or context.project_id
        if uuidutils.is_uuid_like(name_or_id):
            found = self._client.list(context, 'security-groups', id=name_or_id, fields='id')
            if found:
                return found[0]['id']
        found = self._client.list(context, 'security-groups', name=name_or_id,
                                  tenant_id=project_id, fields='id')
        if not found:
            try:
                found = self._client.list(context, 'security-groups', name=name_or_id,
                                          shared=True, fields='id')
            except exception.Invalid:
                # A Neutron without shared security groups refuses the filter.
                found = []
        ids = list(dict.fromkeys(g['id'] for g in found))
        if len(ids) > 1:
            raise exception.NoUniqueMatch(
                "Multiple security_group matches found for name '%s', use an ID to be "
                "more specific." % name_or_id)
        if not ids:
            raise exception.SecurityGroupNotFound(
                "Unable to find security_group with name or id '%s'" % name_or_id)
        return ids[0]

    def validate_for_create(self, context, names):
        """A server create's security_groups before the 202: their ids, 'default'
        kept as is. SecurityGroupNotFoundForProject (400), NoUniqueMatch (409)."""
        out = []
        for name in names or ():
            if name == DEFAULT:
                out.append(name)
                continue
            try:
                out.append(self.find_id(context, name))
            except exception.SecurityGroupNotFound as exc:
                raise exception.SecurityGroupNotFoundForProject(
                    project_id=context.project_id, security_group_id=name) from exc
        return out

    def resolve_for_instance(self, context, project_id, names):
        """Ids for a new port's security_groups; [] lets Neutron apply the
        project's default group (upstream sends none for ['default'])."""
        names = list(names or ())
        if not names or names == [DEFAULT]:
            return []
        return list(dict.fromkeys(self.find_id(context, name, project_id) for name in names))

    # -- on a server's ports ---------------------------------------------------

    def _server_ports(self, context, instance):
        ports = self._client.instance_ports(context, instance, admin=False)
        if not ports:
            raise exception.SecurityGroupNotFound(
                'instance_id %s could not be found as device id on any ports'
                % net_lookups.instance_field(instance, 'uuid'))
        return ports

    def _missing(self, context, name):
        return exception.SecurityGroupNotFound(
            'Security group %(name)s is not found for project %(project)s'
            % {'name': name, 'project': context.project_id})

    def add_to_instance(self, context, instance, name):
        """addSecurityGroup: the group on every port of the server."""
        try:
            group_id = self.find_id(context, name)
        except exception.SecurityGroupNotFound as exc:
            raise self._missing(context, name) from exc
        for port in self._server_ports(context, instance):
            has_ip = port.get('fixed_ips') or port.get('ip_allocation') == 'deferred'
            if not (has_ip and port.get('port_security_enabled', True)):
                raise exception.SecurityGroupCannotBeApplied()
            groups = list(port.get('security_groups') or ())
            if group_id in groups:
                continue
            self._client.update_port(
                context, port['id'], {'security_groups': groups + [group_id]}, admin=False,
                errors={400: lambda msg: exception.SecurityGroupCannotBeApplied(msg)})

    def remove_from_instance(self, context, instance, name):
        """removeSecurityGroup: off every port that has it; none has it: 404."""
        try:
            group_id = self.find_id(context, name)
        except exception.SecurityGroupNotFound as exc:
            raise self._missing(context, name) from exc
        found = False
        for port in self._server_ports(context, instance):
            groups = list(port.get('security_groups') or ())
            if group_id not in groups:
                continue
            groups.remove(group_id)
            self._client.update_port(context, port['id'], {'security_groups': groups},
                                     admin=False)
            found = True
        if not found:
            raise exception.SecurityGroupNotFound(
                'Security group %(name)s not associated with the instance %(instance)s'
                % {'name': name, 'instance': net_lookups.instance_field(instance, 'uuid')})

    def instances_security_groups(self, context, instances, detailed=False):
        """{server uuid: [{'name': ...}] (or nova-format groups with
        ``detailed``)}, from one ports query per 150 servers and one groups query."""
        uuids = [net_lookups.instance_field(i, 'uuid') for i in instances]
        ports = []
        for start in range(0, len(uuids), _BATCH):
            ports += self._client.list(context, 'ports', device_id=uuids[start:start + _BATCH],
                                       fields=['device_id', 'security_groups'])
        group_ids = list(dict.fromkeys(g for p in ports for g in p.get('security_groups') or ()))
        groups = {g['id']: g for g in (self._client.list(context, 'security-groups',
                                                         id=group_ids) if group_ids else ())}
        out = {uuid: [] for uuid in uuids}
        seen = {uuid: set() for uuid in uuids}
        for port in ports:
            for group_id in port.get('security_groups') or ():
                group = groups.get(group_id)
                if group is None or group_id in seen[port['device_id']]:
                    continue
                seen[port['device_id']].add(group_id)
                out[port['device_id']].append(
                    to_nova_group(group) if detailed else {'name': group['name']})
        return out

    def instance_security_groups(self, context, instance, detailed=False):
        return self.instances_security_groups(context, [instance], detailed)[
            net_lookups.instance_field(instance, 'uuid')]

    # -- the proxy API (os-security-groups, os-security-group-rules) -----------

    def list(self, context, project_id=None):
        return [to_nova_group(g) for g in self._client.list(
            context, 'security-groups', tenant_id=project_id or context.project_id)]

    def get(self, context, group_id):
        return to_nova_group(self._client.show(
            context, 'security-groups', 'security_group', group_id,
            not_found=lambda: exception.SecurityGroupNotFound(security_group_id=group_id)))

    def create(self, context, name, description):
        body = {'security_group': {'name': name, 'description': description}}
        return to_nova_group(self._client.call(
            context, 'POST', '/security-groups', json=body, errors={
                'OverQuota': lambda _msg: exception.SecurityGroupLimitExceeded(),
                400: lambda msg: exception.Invalid(reason=msg),
            })['security_group'])

    def update(self, context, group_id, name, description):
        body = {'security_group': {'name': name, 'description': description}}
        return to_nova_group(self._client.call(
            context, 'PUT', self._client.path('security-groups', group_id), json=body,
            errors={404: lambda _msg: exception.SecurityGroupNotFound(
                security_group_id=group_id)})['security_group'])

    def destroy(self, context, group_id):
        self._client.call(context, 'DELETE', self._client.path('security-groups', group_id),
                          errors={404: lambda _msg: exception.SecurityGroupNotFound(
                                      security_group_id=group_id),
                                  409: lambda msg: exception.Invalid(reason=msg)})

    def add_rules(self, context, group_id, rules):
        """Create Neutron rules (neutron_rule()'s dicts); nova-format answers."""
        created = self._client.call(
            context, 'POST', '/security-group-rules',
            json={'security_group_rules': list(rules)},
            errors={404: lambda _msg: exception.SecurityGroupNotFound(
                        security_group_id=group_id),
                    'SecurityGroupRuleExists': lambda msg: exception.SecurityGroupRuleExists(
                        rule=msg),
                    'OverQuota': lambda _msg: exception.SecurityGroupLimitExceeded(),
                    409: lambda msg: exception.SecurityGroupLimitExceeded(msg),
                    400: lambda msg: exception.Invalid(reason=msg)})
        return [to_nova_rule(r) for r in created['security_group_rules']]

    def get_rule(self, context, rule_id):
        return to_nova_rule(self._client.show(
            context, 'security-group-rules', 'security_group_rule', rule_id,
            not_found=lambda: exception.SecurityGroupNotFound(
                'Rule (%s) not found' % rule_id)))

    def remove_rule(self, context, rule_id):
        self._client.call(context, 'DELETE',
                          self._client.path('security-group-rules', rule_id),
                          errors={404: lambda _msg: exception.SecurityGroupNotFound(
                              'Rule (%s) not found' % rule_id)})
