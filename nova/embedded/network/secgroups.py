"""Security groups and their rules: the per-project 'default' group, CRUD, Neutron's checks."""

import uuid

from nova.embedded.network import (
    access,
    attributes,
    common,
    errors,
    listing,
    sgrules,
    store,
    views,
)

DEFAULT_NAME = 'default'


def _not_found(group_id):
    return errors.not_found('SecurityGroupNotFound', 'Security group %s does not exist'
                            % group_id)


def _rule_not_found(rule_id):
    return errors.not_found('SecurityGroupRuleNotFound',
                            'Security group rule %s does not exist' % rule_id)


class SecurityGroupsResource:
    """/v2.0/security-groups and /v2.0/security-group-rules."""

    def __init__(self, records, quotas, changes):
        self._store = records
        self._quotas = quotas
        self._changes = changes

    # -- the default group -------------------------------------------------------

    def default_id(self, project_id):
        for group in self._store.list(store.SECURITY_GROUPS):
            if group['project_id'] == project_id and group.get('_default'):
                return group['id']
        return None

    def ensure_default(self, project_id):
        """The project's 'default' group, made (with Neutron's rules) on first use."""
        with self._store.transaction():
            found = self.default_id(project_id)
            if found is not None:
                return found
            group = self._new_group(project_id, DEFAULT_NAME,
                                    'Default security group', default=True)
            self._changes.publish(store.SECURITY_GROUPS)
            return group['id']

    def _new_group(self, project_id, name, description, default=False):
        group = self._store.put(store.SECURITY_GROUPS, {
            'id': str(uuid.uuid4()), 'name': name, 'description': description,
            'project_id': project_id, 'stateful': True, 'shared': False,
            '_default': default})
        templates = sgrules.DEFAULT_GROUP_RULES if default else sgrules.OTHER_GROUP_RULES
        for direction, ethertype, from_self in templates:
            self._store.put(store.RULES, self._rule_record({
                'security_group_id': group['id'], 'direction': direction,
                'ethertype': ethertype, 'protocol': None, 'port_range_min': None,
                'port_range_max': None, 'remote_ip_prefix': None,
                'remote_group_id': group['id'] if from_self else None,
                'description': '', 'project_id': project_id}, default))
        return group

    @staticmethod
    def _rule_record(rule, in_default):
        return dict(rule, id=str(uuid.uuid4()), remote_address_group_id=None,
                    normalized_cidr=sgrules.normalized_cidr(rule['remote_ip_prefix']),
                    belongs_to_default_sg=in_default)

    # -- views -------------------------------------------------------------------

    def _rules_of(self, group_id):
        return [r for r in self._store.list(store.RULES) if r['security_group_id'] == group_id]

    def _group_view(self, req, group):
        rules = [views.public(r, 'security_group_rule', req.caller)
                 for r in self._rules_of(group['id'])]
        return views.public(group, 'security_group', req.caller,
                            extra={'security_group_rules': rules})

    def visible_group(self, caller, group_id):
        group = self._store.get(store.SECURITY_GROUPS, group_id)
        if group is None or not access.owns(caller, group):
            raise _not_found(group_id)
        return group

    # -- groups ------------------------------------------------------------------

    def list_groups(self, req):
        self.ensure_default(req.GET.get('project_id') or req.GET.get('tenant_id')
                            or req.caller.project_id)
        items = [self._group_view(req, g) for g in self._store.list(store.SECURITY_GROUPS)
                 if access.owns(req.caller, g)]
        return common.json_response(listing.list_response(
            req, 'security_groups', items, attributes.SECURITY_GROUP,
            listing.filters_of(req, attributes.SECURITY_GROUP)))

    def show_group(self, req, group_id):
        self.ensure_default(req.caller.project_id)
        group = self.visible_group(req.caller, group_id)
        return common.json_response({'security_group': listing.select_fields(
            self._group_view(req, group), listing.fields_of(req))})

    def _check_name(self, name):
        if isinstance(name, str) and name.lower() == DEFAULT_NAME:
            raise errors.NeutronConflict('Default security group already exists.',
                                         kind='SecurityGroupDefaultAlreadyExists')

    def create_group(self, req):
        items, bulk = attributes.prepare(req.caller, 'security_group',
                                         common.read_json(req), True)
        made = []
        for item in items:
            self._check_name(item['name'])
        for project_id in {i['project_id'] for i in items}:
            self.ensure_default(project_id)
        with self._store.transaction():
            for item in items:
                self._quotas.check(item['project_id'], security_group=1,
                                   security_group_rule=len(sgrules.OTHER_GROUP_RULES))
                made.append(self._new_group(item['project_id'], item['name'],
                                            item['description']))
        self._changes.publish(store.SECURITY_GROUPS)
        bodies = [self._group_view(req, g) for g in made]
        if bulk:
            return common.json_response({'security_groups': bodies}, status=201)
        return common.json_response({'security_group': bodies[0]}, status=201)

    def update_group(self, req, group_id):
        items, _bulk = attributes.prepare(req.caller, 'security_group',
                                          common.read_json(req), False)
        changes = items[0]
        with self._store.transaction():
            group = self.visible_group(req.caller, group_id)
            if group.get('_default') and 'name' in changes:
                raise errors.NeutronConflict('Updating default security group not allowed.',
                                             kind='SecurityGroupCannotUpdateDefault')
            if 'name' in changes:
                self._check_name(changes['name'])
            group = self._store.update(store.SECURITY_GROUPS, group_id, **changes)
        return common.json_response({'security_group': self._group_view(req, group)})

    def delete_group(self, req, group_id):
        with self._store.transaction():
            group = self.visible_group(req.caller, group_id)
            if any(group_id in (p.get('security_groups') or [])
                   for p in self._store.list(store.PORTS)):
                raise errors.NeutronConflict('Security Group %s in use.' % group_id,
                                             kind='SecurityGroupInUse')
            if group.get('_default') and not req.caller.is_admin:
                raise errors.NeutronConflict('Insufficient rights for removing default '
                                             'security group.',
                                             kind='SecurityGroupCannotRemoveDefault')
            for rule in self._store.list(store.RULES):
                if group_id in (rule['security_group_id'], rule.get('remote_group_id')):
                    self._store.remove(store.RULES, rule['id'])
            self._store.remove(store.SECURITY_GROUPS, group_id)
        self._changes.publish(store.SECURITY_GROUPS)
        return common.empty_response()

    # -- rules -------------------------------------------------------------------

    def list_rules(self, req):
        items = []
        for rule in self._store.list(store.RULES):
            group = self._store.get(store.SECURITY_GROUPS, rule['security_group_id'])
            if access.rule_visible(req.caller, rule, group):
                items.append(views.public(rule, 'security_group_rule', req.caller))
        return common.json_response(listing.list_response(
            req, 'security_group_rules', items, attributes.SECURITY_GROUP_RULE,
            listing.filters_of(req, attributes.SECURITY_GROUP_RULE)))

    def _visible_rule(self, caller, rule_id):
        rule = self._store.get(store.RULES, rule_id)
        group = rule and self._store.get(store.SECURITY_GROUPS, rule['security_group_id'])
        if rule is None or not access.rule_visible(caller, rule, group):
            raise _rule_not_found(rule_id)
        return rule

    def show_rule(self, req, rule_id):
        rule = self._visible_rule(req.caller, rule_id)
        return common.json_response({'security_group_rule': listing.select_fields(
            views.public(rule, 'security_group_rule', req.caller), listing.fields_of(req))})

    def create_rule(self, req):
        items, bulk = attributes.prepare(req.caller, 'security_group_rule',
                                         common.read_json(req), True)
        for item in items:
            sgrules.normalize(item)
        made = []
        with self._store.transaction():
            seen = set()
            for item in items:
                group = self.visible_group(req.caller, item['security_group_id'])
                if item.get('remote_group_id'):
                    self.visible_group(req.caller, item['remote_group_id'])
                rule_key = sgrules.key(item)
                if rule_key in seen:
                    raise errors.NeutronConflict('Duplicate Security Group Rule in POST.',
                                                 kind='DuplicateSecurityGroupRuleInPost')
                seen.add(rule_key)
                for existing in self._rules_of(group['id']):
                    if sgrules.key(existing) == rule_key:
                        raise errors.NeutronConflict('Security group rule already exists. Rule '
                                                     'id is %s.' % existing['id'],
                                                     kind='SecurityGroupRuleExists')
                item.pop('tenant_id', None)
                self._quotas.check(item['project_id'], security_group_rule=1)
                made.append(self._store.put(store.RULES, self._rule_record(
                    item, bool(group.get('_default')))))
        self._changes.publish(store.RULES)
        bodies = [views.public(r, 'security_group_rule', req.caller) for r in made]
        if bulk:
            return common.json_response({'security_group_rules': bodies}, status=201)
        return common.json_response({'security_group_rule': bodies[0]}, status=201)

    def delete_rule(self, req, rule_id):
        with self._store.transaction():
            rule = self._visible_rule(req.caller, rule_id)
            self._store.remove(store.RULES, rule['id'])
        self._changes.publish(store.RULES)
        return common.empty_response()
