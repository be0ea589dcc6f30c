"""cliff hooks: --image-prop-override on server create/rescue; overrides in show/list.

The create and rescue hooks replace ``create_server``/``rescue_server`` on the
command's own compute proxy object (not on the SDK's classes) for the one
command that runs, and ``after()`` fails loudly if openstackclient did not call
the replacement, so a client release that stops going through those calls can
never silently drop the overrides. The tests check the exact request bodies.
"""

import argparse

from cliff import hooks
from osc_lib import exceptions
from osc_lib.cli import format_columns

from novaextclient import sdk

OVERRIDE_OPTION = '--image-prop-override'
# Column names: show (sorted with the others) and list --long.
SHOW_OVERRIDES = 'image_props_override'
SHOW_EFFECTIVE = 'image_properties'
LIST_OVERRIDES = 'Image Props Override'
LIST_EFFECTIVE = 'Image Properties'
# Up to this many rows, list --long fetches servers one by one; above, in one listing.
_ONE_BY_ONE = 20


class OverrideAction(argparse.Action):
    """KEY=VALUE into a dict; refuses malformed input before anything is sent."""

    def __call__(self, parser, namespace, values, option_string=None):
        overrides = getattr(namespace, self.dest, None) or {}
        key, sep, value = values.partition('=')
        if not sep:
            raise argparse.ArgumentError(self, "expected KEY=VALUE, got %r" % values)
        if key in overrides and overrides[key] != value:
            raise argparse.ArgumentError(self, '%s given twice with different values' % key)
        try:
            sdk.validate_overrides({key: value})
        except ValueError as err:
            raise argparse.ArgumentError(self, str(err)) from None
        overrides[key] = value
        setattr(namespace, self.dest, overrides)


def add_override_option(parser, version, what):
    parser.add_argument(
        OVERRIDE_OPTION, metavar='<key=value>', dest='image_prop_override',
        action=OverrideAction,
        help='Override an image property for %s (repeat for several; the value may '
             'itself contain "="). Requires compute API %s or greater.' % (what, version))
    return parser


class _Hook(hooks.CommandHook):
    """A hook that changes nothing unless a subclass says so."""

    def get_parser(self, parser):
        return parser

    def get_epilog(self):
        return ''

    def before(self, parsed_args):
        return parsed_args

    def after(self, parsed_args, return_code):
        return return_code

    @property
    def compute(self):
        return self.cmd.app.client_manager.compute

    def _require(self, version, what):
        try:
            sdk.require_microversion(self.compute, version, what)
        except sdk.MicroversionNotSupported as err:
            raise exceptions.CommandError(str(err)) from None


class _ReplacingHook(_Hook):
    """Routes one proxy call through novaextclient.sdk and proves it happened."""

    version = None
    call = None
    what = None

    def __init__(self, command):
        super().__init__(command)
        self.sent = False

    def get_parser(self, parser):
        return add_override_option(parser, self.version, self.what)

    def before(self, parsed_args):
        overrides = getattr(parsed_args, 'image_prop_override', None)
        # The interactive shell reuses the proxy: never let one command's
        # replacement (left by a command that failed early) reach the next.
        self._restore()
        if overrides:
            self._require(self.version, OVERRIDE_OPTION)
            replacement = self._replacement(self.compute, dict(overrides))

            def once(*args, **kwargs):
                self._restore()
                self.sent = True
                return replacement(*args, **kwargs)
            once.novaext_replacement = True
            setattr(self.compute, self.call, once)
        return parsed_args

    def _restore(self):
        """Back to the proxy's own method if ours is still installed."""
        compute = self.compute
        if getattr(vars(compute).get(self.call), 'novaext_replacement', False):
            delattr(compute, self.call)

    def _replacement(self, compute, overrides):
        raise NotImplementedError

    def _check_sent(self, parsed_args):
        if getattr(parsed_args, 'image_prop_override', None) and not self.sent:
            raise exceptions.CommandError(
                'openstackclient did not call %s, so %s was NOT applied: this version of '
                'python-novaextclient does not support this openstackclient release'
                % (self.call, OVERRIDE_OPTION))


class ServerCreateHook(_ReplacingHook):
    """``openstack server create --image-prop-override KEY=VALUE`` (2.105)."""

    version = sdk.IMAGE_PROPS_OVERRIDE
    call = 'create_server'
    what = 'this server only'

    def _replacement(self, compute, overrides):
        def create_server(**attrs):
            return sdk.create_server(compute, image_props_override=overrides, **attrs)
        return create_server

    def after(self, parsed_args, return_code):
        self._restore()
        self._check_sent(parsed_args)
        return add_show_columns(self.compute, return_code)


class ServerRescueHook(_ReplacingHook):
    """``openstack server rescue --image-prop-override KEY=VALUE`` (2.106)."""

    version = sdk.RESCUE_PROPS_OVERRIDE
    call = 'rescue_server'
    what = 'this rescue only'

    def _replacement(self, compute, overrides):
        def rescue_server(server, admin_pass=None, image=None):
            return sdk.rescue_server(compute, server, admin_pass=admin_pass, image=image,
                                     image_props_override=overrides)
        return rescue_server

    def after(self, parsed_args, return_code):
        self._restore()
        self._check_sent(parsed_args)
        return return_code


class ServerShowHook(_Hook):
    """``openstack server show``: adds the overrides and the effective properties."""

    def after(self, parsed_args, return_code):
        if getattr(parsed_args, 'diagnostics', False):
            return return_code
        return add_show_columns(self.compute, return_code)


class ServerListHook(_Hook):
    """``openstack server list --long``: the same two columns."""

    def after(self, parsed_args, return_code):
        if not getattr(parsed_args, 'long', False):
            return return_code
        columns, rows = return_code
        extra = _extra_columns(self.compute, LIST_EFFECTIVE, LIST_OVERRIDES)
        if not extra or 'ID' not in columns:
            return return_code
        rows = [tuple(row) for row in rows]
        ids = [row[list(columns).index('ID')] for row in rows]
        servers = _fetch(self.compute, ids, getattr(parsed_args, 'all_projects', False))
        rows = [row + tuple(_cell(servers.get(sid), attr) for attr in extra.values())
                for sid, row in zip(ids, rows)]
        return tuple(columns) + tuple(extra), rows


def _extra_columns(compute, effective, overrides):
    """{column name: attribute} of what this session's microversion can show."""
    extra = {}
    if sdk.supports(compute, sdk.IMAGE_PROPERTIES):
        extra[effective] = 'effective_image_properties'
    if sdk.supports(compute, sdk.IMAGE_PROPS_OVERRIDE):
        extra[overrides] = 'image_props_override'
    return extra


def _cell(server, attr):
    value = getattr(server, attr, None) if server is not None else None
    return format_columns.DictColumn(value or {})


def add_show_columns(compute, output):
    """(columns, data) of a ShowOne plus the two fields, sorted like the rest."""
    columns, data = output
    extra = _extra_columns(compute, SHOW_EFFECTIVE, SHOW_OVERRIDES)
    if not extra or 'id' not in columns:
        return output
    info = dict(zip(columns, data))
    server = sdk.get_server(compute, info['id'])
    for name, attr in extra.items():
        info[name] = _cell(server, attr)
    return tuple(zip(*sorted(info.items())))


def _fetch(compute, ids, all_projects):
    """{id: Server} for the listed ids, in as few requests as is sensible."""
    found = {}
    if len(ids) > _ONE_BY_ONE:
        wanted = set(ids)
        query = {'all_projects': True} if all_projects else {}
        for server in sdk.servers(compute, **query):
            if server.id in wanted:
                found[server.id] = server
    for sid in ids:
        if sid not in found:
            try:
                found[sid] = sdk.get_server(compute, sid)
            except Exception:  # noqa: BLE001 - e.g. deleted meanwhile: leave the cell empty.
                found[sid] = None
    return found
