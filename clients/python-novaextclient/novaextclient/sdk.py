"""openstacksdk support for image property overrides (compute API 2.105 and 2.106).

Usage, with any openstacksdk connection (``conn.compute`` is its compute proxy)::

    import openstack
    from novaextclient import sdk as novaext

    conn = openstack.connect(cloud='mycloud')
    server = novaext.create_server(
        conn.compute, name='web-1', image_id=image.id, flavor_id=flavor.id,
        networks='none',
        image_props_override={'hw_disk_bus': 'sata', 'hw_rng_model': 'virtio'})
    server = novaext.get_server(conn.compute, server.id)
    server.image_props_override        # what the request gave (2.105)
    server.effective_image_properties  # the image's properties merged with them (2.98)
    novaext.rescue_server(conn.compute, server, image=rescue_image.id,
                          image_props_override={'hw_rescue_bus': 'usb'})

The calls negotiate the microversion (the highest both sides support, or the
version the connection is pinned to) and raise ``MicroversionNotSupported``
before sending anything when the field needs a newer one.
"""

import re

from keystoneauth1 import discover
from openstack import exceptions, resource, utils
from openstack.compute.v2 import server as sdk_server

IMAGE_PROPERTIES = '2.98'
IMAGE_PROPS_OVERRIDE = '2.105'
RESCUE_PROPS_OVERRIDE = '2.106'
MAX_MICROVERSION = RESCUE_PROPS_OVERRIDE

# What the service's request schema accepts; checked here so that a typo
# fails before anything is sent.
_KEY = re.compile(r'^[a-zA-Z0-9_:.\-]{1,255}$')
MAX_VALUE_LENGTH = 255
# The keys of a server's "image" object besides "properties".
_SERVER_IMAGE_KEYS = ('id', 'links')


class MicroversionNotSupported(exceptions.SDKException):
    """The field needs a compute API microversion this session cannot use."""


class Server(sdk_server.Server):
    """The SDK's Server plus this service's ``image_props_override`` field."""

    _max_microversion = MAX_MICROVERSION

    #: The overrides given when the server was created (2.105); {} for none.
    image_props_override = resource.Body('image_props_override', type=dict)

    @property
    def effective_image_properties(self):
        """The image's properties merged with the overrides (None before 2.98)."""
        image = self.image
        if not image or image.get('properties') is None:
            return None
        # The SDK's Image resource files every key it does not know (here the
        # server image's "links") under properties too: take them out again.
        return {k: v for k, v in image['properties'].items() if k not in _SERVER_IMAGE_KEYS}

    def rescue(self, session, admin_pass=None, image=None, image_props_override=None):
        """Rescue the server; the overrides apply to this rescue only (2.106).

        Returns the rescue password from the response (None if the service
        does not return one).
        """
        body = {'rescue': {}}
        if admin_pass is not None:
            body['rescue']['adminPass'] = admin_pass
        if image is not None:
            body['rescue']['rescue_image_ref'] = resource.Resource._get_id(image)
        if image_props_override:
            require_microversion(session, RESCUE_PROPS_OVERRIDE, 'image_props_override on rescue')
            body['rescue']['image_props_override'] = validate_overrides(image_props_override)
        response = self._action(session, body)
        try:
            return (response.json() or {}).get('adminPass')
        except ValueError:
            return None


def validate_overrides(overrides):
    """A plain dict of the overrides, or ValueError naming the bad entry."""
    if not isinstance(overrides, dict):
        raise ValueError('image_props_override must be a dict of property names to '
                         'string values, not %s' % type(overrides).__name__)
    for key, value in overrides.items():
        if not isinstance(key, str) or not _KEY.match(key):
            raise ValueError('image_props_override: %r is not a valid property name '
                             '(letters, digits and _ : . - only, at most 255)' % (key,))
        if not isinstance(value, str):
            raise ValueError('image_props_override: the value of %s must be a string, '
                             'not %s' % (key, type(value).__name__))
        if len(value) > MAX_VALUE_LENGTH:
            raise ValueError('image_props_override: the value of %s is longer than %d '
                             'characters' % (key, MAX_VALUE_LENGTH))
    return dict(overrides)


def supports(compute, microversion):
    """True when this session may use ``microversion`` (server max and any pin)."""
    return utils.supports_microversion(compute, microversion)


def require_microversion(compute, microversion, what):
    """Raise MicroversionNotSupported unless ``microversion`` can be used."""
    if supports(compute, microversion):
        return
    pinned = getattr(compute, 'default_microversion', None)
    if pinned and _newer(microversion, pinned):
        why = 'the compute API version is pinned to %s' % pinned
    else:
        why = 'the compute service supports up to %s' % (server_max(compute) or 'unknown')
    raise MicroversionNotSupported('%s requires compute API %s or greater (%s)'
                                   % (what, microversion, why))


def _newer(a, b):
    return discover.normalize_version_number(a) > discover.normalize_version_number(b)


def server_max(compute):
    """The compute service's maximum microversion as a string, or None."""
    data = compute.get_endpoint_data()
    if data is None or not data.max_microversion:
        return None
    return discover.version_to_string(data.max_microversion)


def create_server(compute, image_props_override=None, **attrs):
    """Create a server; ``image_props_override`` needs compute API 2.105.

    ``attrs`` are those of the SDK's ``create_server`` (name, image_id,
    flavor_id, networks, block_device_mapping ...).
    """
    if image_props_override:
        require_microversion(compute, IMAGE_PROPS_OVERRIDE, 'image_props_override')
        attrs['image_props_override'] = validate_overrides(image_props_override)
    return compute._create(Server, **attrs)


def get_server(compute, server):
    """The server (ID or Server) with its overrides and effective properties."""
    return compute._get(Server, server)


def servers(compute, details=True, **query):
    """Servers with their overrides (details=True), as the SDK's ``servers``."""
    base_path = '/servers/detail' if details else None
    return compute._list(Server, base_path=base_path, **query)


def rescue_server(compute, server, admin_pass=None, image=None, image_props_override=None):
    """Rescue ``server``; ``image_props_override`` (2.106) applies to this rescue only.

    Returns the rescue password when the service returns one.
    """
    # A stock Server (e.g. from find_server) becomes ours by its id.
    res = compute._get_resource(Server, resource.Resource._get_id(server))
    return res.rescue(compute, admin_pass=admin_pass, image=image,
                      image_props_override=image_props_override)
