"""[glance] options: how the compute service reaches the image service (Glance v2)."""

from oslo_config import cfg

GROUP = 'glance'
SERVICE_TYPE = 'image'

GROUP_HELP = ("Configuration options for the Image service. Requests carry "
              "the caller's token; the endpoint comes from the service "
              "catalog or from endpoint_override (the all-in-one sets it to "
              "its embedded image endpoint and needs no [glance] "
              "credentials).")

glance_opts = [
    cfg.IntOpt('num_retries', default=3, min=0,
               help='How many times to retry an image service call whose '
                    'connection failed (download, upload and metadata '
                    'calls alike). 0 disables retries. Used unless the '
                    'keystoneauth connect_retries option is set.'),
    cfg.IntOpt('download_chunk_size', default=1024 * 1024, min=4096,
               help='Bytes read from the image service and written to '
                    'disk at a time while downloading image data. Larger '
                    'values use more memory and fewer system calls.'),
    cfg.BoolOpt('verify_glance_signatures', default=False,
                help='Verify the signature of every image the compute host '
                     'downloads into its image cache. The image must carry '
                     'img_signature, img_signature_hash_method, '
                     'img_signature_key_type and img_signature_certificate_uuid, '
                     'and its data must verify against the public key of that '
                     'certificate, read from the [key_manager] backend. A '
                     'failure fails the build and leaves no cached file.'),
    cfg.BoolOpt('enable_certificate_validation', default=False,
                help='With verify_glance_signatures, also require the signing '
                     'certificate to be valid now and to chain to one of the '
                     "server's trusted certificates (trusted_image_certificates, "
                     'microversion 2.63, or default_trusted_certificate_ids).'),
    cfg.ListOpt('default_trusted_certificate_ids', default=[],
                help='Certificate ids (key manager ids) a server trusts when its '
                     'create or rebuild request names none. Used only when both '
                     'verify_glance_signatures and enable_certificate_validation '
                     'are on.'),
]


def register_opts(conf):
    # A fresh OptGroup per ConfigOpts: oslo.config copies a registered group
    # shallowly, so a shared one would leak overrides between instances.
    conf.register_group(cfg.OptGroup(GROUP, title='Glance options',
                                     help=GROUP_HELP))
    conf.register_opts(glance_opts, group=GROUP)


def register_client_opts(conf):
    """The keystoneauth options (session, auth, adapter): registered by
    nova.conf.register_client_opts when used, as they import keystoneauth1."""
    from nova import ksa_utils
    ksa_utils.register_opts(conf, GROUP, SERVICE_TYPE)


def list_opts():
    from nova import ksa_utils
    return {GROUP: glance_opts + ksa_utils.list_opts(SERVICE_TYPE)}
