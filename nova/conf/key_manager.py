"""[key_manager] options: where the compute host reads image signing certificates."""

from oslo_config import cfg

GROUP = 'key_manager'

key_manager_opts = [
    cfg.StrOpt('backend', default='file', choices=['file'],
               help='Key manager backend for image signature verification. '
                    '"file": PEM certificates in certificates_dir, named '
                    '<id>.pem (the id is what img_signature_certificate_uuid '
                    'and trusted_image_certificates name). A Barbican backend '
                    'is not offered.'),
    cfg.StrOpt('certificates_dir', default='$state_path/certificates',
               help='Directory of the file backend: one PEM certificate per '
                    'file, named <id>.pem.'),
]


def register_opts(conf):
    conf.register_opts(key_manager_opts, group=GROUP)


def list_opts():
    return {GROUP: key_manager_opts}
