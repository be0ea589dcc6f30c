"""Response bodies in Cinder v3's wire format: versions, volumes, snapshots, attachments, types."""

from nova.embedded.volume import microversion as mv

DOCS_LINK = {'rel': 'describedby', 'type': 'text/html',
             'href': 'https://docs.openstack.org/'}


def versions(application_url):
    """The version document of GET / (300) and GET /v3/ (200)."""
    return {'versions': [{
        'id': 'v3.0',
        'status': 'CURRENT',
        'version': mv.to_string(mv.MAX_VERSION),
        'min_version': mv.to_string(mv.MIN_VERSION),
        'updated': mv.UPDATED,
        'links': [dict(DOCS_LINK),
                  {'rel': 'self',
                   'href': application_url.rstrip('/') + '/v3/'}],
        'media-types': [{
            'base': 'application/json',
            'type': 'application/vnd.openstack.volume+json;version=3'}],
    }]}


def _links(req, project_id, collection, record_id):
    base = req.application_url.rstrip('/')
    return [
        {'href': '%s/v3/%s/%s/%s' % (base, project_id, collection, record_id),
         'rel': 'self'},
        {'href': '%s/%s/%s/%s' % (base, project_id, collection, record_id),
         'rel': 'bookmark'},
    ]


def collection(req, key, items, next_href=None, count=None):
    """A list body: items, a 'next' link when more remain, count if asked."""
    body = {key: items}
    if next_href:
        body[key + '_links'] = [{'href': next_href, 'rel': 'next'}]
    if count is not None:
        body['count'] = count
    return body


# -- volumes ------------------------------------------------------------------

def _volume_attachment(attachment):
    # Cinder reuses the volume id as the entry's 'id'.
    return {
        'id': attachment['volume_id'],
        'attachment_id': attachment['id'],
        'volume_id': attachment['volume_id'],
        'server_id': attachment['instance_uuid'],
        'host_name': attachment['attached_host'],
        'device': attachment['mountpoint'],
        'attached_at': attachment['attach_time'],
    }


def volume_summary(req, volume):
    return {'id': volume['id'], 'name': volume['name'],
            'links': _links(req, volume['project_id'], 'volumes',
                            volume['id'])}


def volume(req, volume, attachments, host, extended=True):
    """A volume as Cinder shows it at the request's microversion.

    ``extended`` adds what Cinder's API extensions add to show and detail
    (tenant, host and migration attributes, image metadata) but not to the
    create and update responses. Only completed attachments are listed.
    """
    version, admin = req.version, req.caller.is_admin
    view = {
        'id': volume['id'],
        'name': volume['name'],
        'description': volume['description'],
        'status': volume['status'],
        'size': volume['size'],
        'availability_zone': volume['availability_zone'],
        'bootable': 'true' if volume['bootable'] else 'false',
        'encrypted': False,
        'multiattach': bool(volume.get('multiattach')),
        'attachments': [_volume_attachment(a) for a in attachments
                        if a['status'] == 'attached'],
        'created_at': volume['created_at'],
        'updated_at': volume['updated_at'],
        'volume_type': volume['volume_type'],
        'snapshot_id': volume['snapshot_id'],
        'source_volid': volume['source_volid'],
        'metadata': dict(volume['metadata']),
        'user_id': volume['user_id'],
        'replication_status': None,
        'consistencygroup_id': None,
        'migration_status': volume.get('migration_status'),
        'links': _links(req, volume['project_id'], 'volumes', volume['id']),
    }
    if version >= mv.GROUP_VOLUME:
        view['group_id'] = None
    if version >= mv.VOLUME_DETAIL_PROVIDER_ID and admin:
        view['provider_id'] = None
    if version >= mv.SHARED_TARGETS:
        # One file per volume: nothing is shared, hosts need no lock.
        view['service_uuid'] = None
        view['shared_targets'] = False
    if version >= mv.CLUSTER_NAME and admin:
        view['cluster_name'] = None
    if version >= mv.VOLUME_TYPE_ID:
        view['volume_type_id'] = volume['volume_type_id']
    if version >= mv.CONSUMES_QUOTA:
        view['consumes_quota'] = True
    if extended:
        view['os-vol-tenant-attr:tenant_id'] = volume['project_id']
        if volume['volume_image_metadata']:
            view['volume_image_metadata'] = dict(
                volume['volume_image_metadata'])
        if admin:
            view['os-vol-host-attr:host'] = host
            view['os-vol-mig-status-attr:migstat'] = volume.get('migration_status')
            view['os-vol-mig-status-attr:name_id'] = None
    return view


# -- snapshots ----------------------------------------------------------------

def snapshot(req, snapshot, detail=True):
    version = req.version
    view = {
        'id': snapshot['id'],
        'name': snapshot['name'],
        'description': snapshot['description'],
        'status': snapshot['status'],
        'size': snapshot['size'],
        'volume_id': snapshot['volume_id'],
        'metadata': dict(snapshot['metadata']),
        'created_at': snapshot['created_at'],
        'updated_at': snapshot['updated_at'],
    }
    if version >= mv.GROUP_SNAPSHOTS:
        view['group_snapshot_id'] = None
    if version >= mv.SNAPSHOT_LIST_USER_ID:
        view['user_id'] = snapshot['user_id']
    if version >= mv.CONSUMES_QUOTA:
        view['consumes_quota'] = True
    if detail:
        view['os-extended-snapshot-attributes:progress'] = snapshot['progress']
        view['os-extended-snapshot-attributes:project_id'] = (
            snapshot['project_id'])
    return view


# -- attachments --------------------------------------------------------------

def attachment_summary(attachment):
    return {'id': attachment['id'], 'status': attachment['status'],
            'instance': attachment['instance_uuid'],
            'volume_id': attachment['volume_id']}


def attachment(attachment):
    view = attachment_summary(attachment)
    view.update(
        # Cinder sends '' rather than null for times not reached yet.
        attached_at=attachment['attach_time'] or '',
        detached_at=attachment['detach_time'] or '',
        attach_mode=attachment['attach_mode'],
        connection_info=attachment['connection_info'])
    return view


# -- volume types -------------------------------------------------------------

def volume_type(vtype, extra_specs):
    """A type as Cinder shows it; ``extra_specs`` as the caller may see them."""
    return {'id': vtype['id'], 'name': vtype['name'],
            'description': vtype['description'], 'is_public': vtype['is_public'],
            'os-volume-type-access:is_public': vtype['is_public'],
            'extra_specs': extra_specs, 'qos_specs_id': None}
