"""[api] options: authentication, limits and request validation of the compute API."""

from oslo_config import cfg

GROUP = 'api'

# Properties that stay under the image owner's control: signatures, ownership,
# block device mappings and the image's identity must not be forged at boot.
DEFAULT_OVERRIDE_DENYLIST = [
    'img_signature', 'img_signature_hash_method', 'img_signature_key_type',
    'img_signature_certificate_uuid', 'img_owner_id', 'owner_id',
    'img_block_device_mapping', 'img_bdm_v2', 'img_root_device_name',
    'img_hv_type', 'hypervisor_type', 'img_hv_requested_version',
    'hypervisor_version_requires', 'trait:*', 'traits_required',
]

opts = [
    cfg.StrOpt('auth_strategy', default='keystone',
               choices=[('keystone', 'Use keystonemiddleware to validate '
                         'tokens ([keystone_authtoken] options).'),
                        ('noauth2', 'No identity service: the token '
                         '"user:project" names the caller (the user "admin" '
                         'is an administrator); for testing and the '
                         'all-in-one only.')],
               help='How API requests are authenticated. The all-in-one '
                    'applies the same decision to its embedded image and '
                    'volume endpoints; identity headers sent by clients are '
                    'always ignored.'),
    cfg.IntOpt('max_limit', default=1000, min=1,
               help='Maximum number of items a collection request returns.'),
    cfg.BoolOpt('enable_instance_password', default=True,
                help='Return the admin password in create/rebuild/rescue '
                     'responses.'),
    cfg.ListOpt('image_props_override_allowlist', default=[],
                help='Image properties a user may override at boot '
                     '(microversion 2.105) or rescue (2.106). Empty means '
                     'every valid image property not in the deny list. '
                     'Entries may end with "*" to match a prefix.'),
    cfg.ListOpt('image_props_override_denylist',
                default=DEFAULT_OVERRIDE_DENYLIST,
                help='Image properties that may never be overridden; the '
                     'deny list wins over the allow list. Keep it in step '
                     'with the image service\'s protected properties. '
                     'Entries may end with "*" to match a prefix.'),
    cfg.IntOpt('image_props_override_max_keys', default=64, min=1,
               help='Maximum number of keys in one image_props_override.'),
    cfg.StrOpt('compute_link_prefix',
               help='Base URL used in links of compute API responses instead '
                    'of the request host URL.'),
]


# Listen options of the standalone nova-api process.
listen_opts = [
    cfg.HostAddressOpt('api_listen', default='0.0.0.0',
                       help='Address nova-api listens on.'),
    cfg.PortOpt('api_listen_port', default=8774, help='Port nova-api listens on.'),
]


def register_opts(conf):
    conf.register_opts(opts, group=GROUP)
    conf.register_opts(listen_opts)
    # [oslo_policy] (policy_file...) must exist before the enforcer is built,
    # so config files and tests can set it.
    from oslo_policy import opts as policy_opts
    policy_opts.set_defaults(conf)


def list_opts():
    return {GROUP: opts, 'DEFAULT': listen_opts}
