"""[quota] options: default limits of every project, and the per-request server cap."""

from oslo_config import cfg

GROUP = 'quota'

# (option, resource it limits, default); -1 means unlimited, as upstream.
LIMIT_DEFAULTS = (
    ('instances', 'instances', 10, 'Servers a project may have.'),
    ('cores', 'cores', 20, 'Virtual CPUs a project\'s servers may use.'),
    ('ram', 'ram', 50 * 1024, 'MiB of RAM a project\'s servers may use.'),
    ('metadata_items', 'metadata_items', 128, 'Metadata items one server may carry.'),
    ('injected_files', 'injected_files', 5,
     'Files injected at boot (personality); shown before microversion 2.57.'),
    ('injected_file_content_bytes', 'injected_file_content_bytes', 10 * 1024,
     'Bytes of one injected file; shown before microversion 2.57.'),
    ('injected_file_path_length', 'injected_file_path_bytes', 255,
     'Length of an injected file path; shown before microversion 2.57.'),
    ('key_pairs', 'key_pairs', 100, 'Key pairs a user may have.'),
    ('server_groups', 'server_groups', 10, 'Server groups a project may have.'),
    ('server_group_members', 'server_group_members', 10,
     'Servers one server group may hold.'),
)

opts = [cfg.IntOpt(name, default=default, min=-1,
                   help=text + ' -1 means unlimited. Quota classes (the "default" '
                               'class) and per-project or per-user limits set through '
                               'the API override this default.')
        for name, _resource, default, text in LIMIT_DEFAULTS] + [
    cfg.IntOpt('max_instances_per_request', default=100, min=1,
               help='Most servers one create request may make, even when the '
                    'instances quota is unlimited: max_count is lowered to it and a '
                    'larger min_count is refused with 400. Bounds the rows one '
                    'request writes.'),
]


def register_opts(conf):
    conf.register_opts(opts, group=GROUP)


def list_opts():
    return {GROUP: opts}
