"""`openstack server create --image-prop-override KEY=VALUE` (compute API 2.105)."""

from cliff import hooks
from openstack import resource
from openstack import utils as sdk_utils
from openstack.compute.v2 import server as sdk_server
from osc_lib import exceptions
from osc_lib.cli import parseractions

MIN_VERSION = '2.105'


class ServerWithOverrides(sdk_server.Server):
    """The SDK Server resource plus the 2.105 request field."""

    _max_microversion = MIN_VERSION
    image_props_override = resource.Body('image_props_override', type=dict)


class ImagePropOverrideHook(hooks.CommandHook):
    """Adds the option and puts the overrides into the create request body."""

    def get_parser(self, parser):
        parser.add_argument(
            '--image-prop-override', metavar='<key=value>', dest='image_prop_override',
            action=parseractions.KeyValueAction,
            help='Override an image property for this server only (repeat for several; '
                 'the value may itself contain "="). Requires compute API %s.'
                 % MIN_VERSION)
        return parser

    def get_epilog(self):
        return ''

    def before(self, parsed_args):
        overrides = getattr(parsed_args, 'image_prop_override', None)
        if not overrides:
            return parsed_args
        compute = self.cmd.app.client_manager.compute
        if not sdk_utils.supports_microversion(compute, MIN_VERSION):
            raise exceptions.CommandError(
                '--os-compute-api-version %s or greater is required to support the '
                '--image-prop-override option' % MIN_VERSION)

        def create_server(**attrs):
            # The stock Server resource drops unknown body keys; ours keeps them.
            return compute._create(ServerWithOverrides, image_props_override=dict(overrides),
                                   **attrs)
        compute.create_server = create_server
        return parsed_args

    def after(self, parsed_args, return_code):
        return return_code
