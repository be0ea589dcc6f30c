"""Handlers of the version documents (GET /, GET /v3/), extensions, limits and quota sets."""

from nova.embedded.volume import views
from nova.embedded.volume.common import json_response


def list_versions(api, req):
    """GET /: 300 Multiple Choices, as Cinder answers unversioned requests."""
    return json_response(views.versions(req.application_url), status=300)


def show_v3(api, req):
    """GET /v3/: the same document with 200."""
    return json_response(views.versions(req.application_url))


def _usage(api, project_id):
    """What a project holds here: volumes, snapshots and their GiB."""
    volumes = [v for v in api.manager.store.list('volumes') if v['project_id'] == project_id]
    snapshots = [s for s in api.manager.store.list('snapshots')
                 if s.get('project_id') == project_id]
    gigabytes = (sum(int(v.get('size') or 0) for v in volumes)
                 + sum(int(s.get('size') or 0) for s in snapshots))
    return {'volumes': len(volumes), 'snapshots': len(snapshots), 'gigabytes': gigabytes,
            'backups': 0, 'backup_gigabytes': 0, 'groups': 0, 'per_volume_gigabytes': 0}


def show_limits(api, req):
    """GET /v3/{project_id}/limits: no volume quotas here (-1), usage counted live.

    openstackclient's ``limits show`` and ``quota show`` ask every endpoint
    they know, so the all-in-one's volume endpoint answers in Cinder's shape.
    """
    used = _usage(api, req.caller.project_id)
    absolute = {name: -1 for name in ('maxTotalVolumes', 'maxTotalSnapshots',
                                      'maxTotalVolumeGigabytes', 'maxTotalBackups',
                                      'maxTotalBackupGigabytes')}
    absolute.update(totalVolumesUsed=used['volumes'], totalSnapshotsUsed=used['snapshots'],
                    totalGigabytesUsed=used['gigabytes'], totalBackupsUsed=0,
                    totalBackupGigabytesUsed=0)
    return json_response({'limits': {'rate': [], 'absolute': absolute}})


def show_quota_set(api, req, target_project):
    """GET /v3/{project_id}/os-quota-sets/{target}[?usage=true]: all unlimited.

    Nothing here enforces volume quotas, so any caller may read them.
    """
    used = _usage(api, target_project)
    detail = req.GET.get('usage', '').lower() in ('1', 'true', 'yes', 'on')
    body = {'id': target_project}
    for name, in_use in used.items():
        body[name] = ({'limit': -1, 'in_use': in_use, 'reserved': 0, 'allocated': 0}
                      if detail else -1)
    return json_response({'quota_set': body})


def show_quota_defaults(api, req, target_project):
    return json_response({'quota_set': dict(
        {name: -1 for name in _usage(api, target_project)}, id=target_project)})


# The Cinder API extensions whose attributes and actions this endpoint serves:
# (alias, name, description).
EXTENSIONS = (
    ('os-vol-tenant-attr', 'VolumeTenantAttribute', "A volume's project as an attribute."),
    ('os-vol-host-attr', 'VolumeHostAttribute', "A volume's host as an attribute."),
    ('os-vol-mig-status-attr', 'VolumeMigStatusAttribute',
     "A volume's migration status as an attribute."),
    ('os-vol-image-meta', 'VolumeImageMetadata',
     'The image metadata of a volume made from an image.'),
    ('os-extended-snapshot-attributes', 'ExtendedSnapshotAttributes',
     "A snapshot's progress and project as attributes."),
    ('os-volume-actions', 'VolumeActions', 'Volume actions (attach, detach, extend...).'),
    ('os-admin-actions', 'AdminActions', 'Administrator actions (reset status...).'),
    ('os-snapshot-actions', 'SnapshotActions', 'Snapshot status updates.'),
    ('os-types-manage', 'TypesManage', 'Volume type management.'),
    ('os-types-extra-specs', 'TypesExtraSpecs', 'Volume type extra specs.'),
    ('os-quota-sets', 'Quotas', 'Quota sets (read).'),
)
_UPDATED = '2026-01-01T00:00:00+00:00'


def list_extensions(api, req):
    """GET /v3/{project_id}/extensions, in Cinder's format."""
    return json_response({'extensions': [
        {'alias': alias, 'name': name, 'description': description, 'links': [],
         'updated': _UPDATED} for alias, name, description in EXTENSIONS]})
