"""Cinder v3 client for the compute side: volumes, snapshots and the attachments API."""

import copy
import json
import logging
import re
import time
import urllib.parse

from nova import exception, service_client

LOG = logging.getLogger(__name__)

GROUP = 'cinder'
# Microversions this client asks for. Attachments need 3.44 for
# os-complete (Queens and later); 3.54 only when an attach mode is given.
BASE_VERSION = '3.0'
ATTACH_VERSION = '3.44'
ATTACH_MODE_VERSION = '3.54'
# os-reimage: write an image over a volume (rebuild of a volume-backed server).
REIMAGE_VERSION = '3.68'
# Catalog entries may still carry keystone's URL templates.
_PROJECT_TEMPLATES = ('%(project_id)s', '$(project_id)s', '%(tenant_id)s',
                      '$(tenant_id)s')
_VERSION_SEGMENT = re.compile(r'^v\d+(\.\d+)?$')
_POLL_START, _POLL_MAX = 0.05, 2.0


def volume_api_url(endpoint, project_id):
    """The project-scoped Cinder v3 base URL for a configured or catalog URL.

    http://h:8776 and http://h:8776/v3 get /v3/<project> (resp. /<project>)
    appended; http://h/volume/v3/<project> (a catalog entry) is kept. With
    no project id known the URL stays project-less, which Cinder accepts
    since microversion 3.67.
    """
    url = endpoint.strip()
    for template in _PROJECT_TEMPLATES:
        url = url.replace(template, project_id or '')
    parts = urllib.parse.urlsplit(url)
    segments = [s for s in parts.path.split('/') if s]
    index = next((i for i, s in enumerate(segments)
                  if _VERSION_SEGMENT.match(s)), None)
    if index is None:
        segments.append('v3')
    elif segments[index].split('.')[0] != 'v3':
        raise exception.VolumeServiceError(
            reason='endpoint %s is not a Cinder v3 endpoint' % endpoint)
    else:
        # Whatever follows the version (the project) is kept as given.
        segments[index] = 'v3'
    if segments[-1] == 'v3' and project_id:
        segments.append(project_id)
    return urllib.parse.urlunsplit(
        (parts.scheme, parts.netloc, '/' + '/'.join(segments), '', ''))


def _field(instance, name):
    """A field of an Instance object or an instance row."""
    if isinstance(instance, dict):
        return instance.get(name)
    return getattr(instance, name, None)


def _error_message(response):
    """Cinder's message from a fault body ({"badRequest": {"message": ..}})."""
    if response is None:
        return ''
    try:
        body = response.json()
    except ValueError:
        text = re.sub(r'<[^>]+>', ' ', response.text or '')
    else:
        text = ''
        if isinstance(body, dict):
            for value in body.values():
                if isinstance(value, dict) and value.get('message'):
                    text = str(value['message'])
                    break
            else:
                text = json.dumps(body)
    return ' '.join(text.split())[:512]


def _translate_http_error(exc, not_found, microversion):
    status = exc.http_status
    message = _error_message(exc.response) or str(exc)
    if status == 404 and not_found is not None:
        return not_found()
    if status in (400, 404, 409):
        # A 404 here is about something the request referred to (a
        # snapshot or volume type), so it is the caller's input at fault.
        # Cinder's message already says what was invalid; no prefix.
        return exception.InvalidVolume(message, reason=message)
    if status in (401, 403):
        return exception.Forbidden(message=message)
    if status == 406:
        return exception.VolumeServiceError(
            reason='the volume service does not support microversion %s: %s'
                   % (microversion, message))
    return exception.VolumeServiceError(reason='HTTP %s: %s'
                                        % (status, message))


class CinderClient(service_client.ServiceClient):
    """Calls Cinder v3 as the caller in each RequestContext.

    Every method returns Cinder's JSON object (the value under 'volume',
    'snapshot' or 'attachment') and raises VolumeNotFound (or its
    attachment/snapshot subclasses) for a 404, InvalidVolume for a
    rejected request and VolumeServiceError (503) when the service cannot
    be reached or fails.
    """

    GROUP = GROUP
    RETRIES_OPTION = 'http_retries'

    # -- identity -------------------------------------------------------

    def context_for(self, context, instance):
        """The identity of volume calls made on behalf of ``instance``.

        They act in the server's project whoever asked (an admin acting on
        another project's server, a periodic task): the owner's own request
        keeps its token, as upstream. Otherwise, with noauth2 a token for
        the instance's ``user:project``; with Keystone the service user of
        the [cinder] options (an admin in Cinder's eyes, so it may act on
        the project's volumes), or the caller's token when none is set.
        """
        project_id = _field(instance, 'project_id')
        if context.auth_token and context.project_id == project_id:
            return context
        if self._conf.api.auth_strategy == 'noauth2':
            from nova import context as nova_context
            user_id = _field(instance, 'user_id') or project_id
            return nova_context.RequestContext(
                user_id=user_id, project_id=project_id, roles=['reader', 'member'],
                auth_token='%s:%s' % (user_id, project_id),
                request_id=context.request_id,
                global_request_id=context.global_request_id, overwrite=False)
        if self._service_auth is None:
            return context
        admin = context.elevated()
        # No token and no project: calls go out as the service user, in its
        # own project's URL (Cinder refuses a URL naming another project).
        admin.auth_token, admin.project_id = None, None
        return admin

    # -- plumbing -------------------------------------------------------

    def _direct_kwargs(self):
        # keystoneauth names Cinder "volume" in the microversion header.
        return {'microversion_service': 'volume'}

    def _base_url(self, transport, context):
        endpoint = transport.endpoint()
        project_id = getattr(context, 'project_id', None)
        if not project_id and self._service_auth is not None:
            project_id = transport.project_id()
        return volume_api_url(endpoint, project_id)

    def _call(self, context, method, path, microversion=BASE_VERSION,
              not_found=None, **kwargs):
        """One request to ``path`` under the project's v3 URL."""
        transport = self._transport(context)
        try:
            url = self._base_url(transport, context) + path
            return transport.request(url, method, microversion=microversion,
                                     headers={'Accept': 'application/json'},
                                     **kwargs)
        except service_client.StatusError as exc:
            raise _translate_http_error(exc, not_found,
                                        microversion) from exc
        except service_client.RequestFailed as exc:
            raise exception.VolumeServiceError(
                reason='%s %s: %s' % (method, path, exc)) from exc

    @staticmethod
    def _path(collection, ident=None, sub=None):
        path = '/' + collection
        if ident is not None:
            path += '/' + urllib.parse.quote(str(ident), safe='')
        return path + ('/' + sub if sub else '')

    def _wait(self, fetch, ident, statuses, timeout, what):
        statuses = (statuses,) if isinstance(statuses, str) else tuple(statuses)
        if timeout is None:
            timeout = self._conf[GROUP].volume_wait_timeout
        deadline = time.monotonic() + timeout
        delay = _POLL_START
        while True:
            obj = fetch(ident)
            status = obj.get('status')
            if status in statuses:
                return obj
            if status and status.startswith('error'):
                raise exception.VolumeNotReady(
                    volume_id=ident,
                    reason='%s status is %s, expected %s'
                           % (what, status, ' or '.join(statuses)))
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise exception.VolumeNotReady(
                    volume_id=ident,
                    reason='%s still %s after %s seconds, expected %s'
                           % (what, status, timeout, ' or '.join(statuses)))
            time.sleep(min(delay, remaining))
            delay = min(delay * 2, _POLL_MAX)

    # -- volumes --------------------------------------------------------

    def get(self, context, volume_id):
        return self._call(
            context, 'GET', self._path('volumes', volume_id),
            not_found=lambda: exception.VolumeNotFound(volume_id=volume_id),
        ).json()['volume']

    def create(self, context, size, name, image_id=None, snapshot_id=None,
               volume_type=None, description=None, metadata=None,
               availability_zone=None):
        """Ask for a volume; it starts 'creating' (see wait_for_status)."""
        body = {'size': size, 'name': name}
        optional = {'imageRef': image_id, 'snapshot_id': snapshot_id,
                    'volume_type': volume_type, 'description': description,
                    'metadata': metadata,
                    'availability_zone': availability_zone}
        body.update((k, v) for k, v in optional.items() if v is not None)
        return self._call(context, 'POST', '/volumes',
                          json={'volume': body}).json()['volume']

    def list(self, context):
        """The caller's volumes, with details."""
        return self._call(context, 'GET', '/volumes/detail').json()['volumes']

    def wait_for_status(self, context, volume_id, statuses, timeout=None):
        """Poll until the volume's status is one of ``statuses``.

        Raises VolumeNotReady when it lands in an error status or
        ``timeout`` seconds ([cinder] volume_wait_timeout by default) pass.
        """
        return self._wait(lambda ident: self.get(context, ident), volume_id,
                          statuses, timeout, 'volume')

    def reimage(self, context, volume_id, image_id, reimage_reserved=False):
        """Write an image over the volume (3.68); it is 'downloading' meanwhile."""
        self._call(context, 'POST', self._path('volumes', volume_id, 'action'),
                   microversion=REIMAGE_VERSION,
                   json={'os-reimage': {'image_id': image_id,
                                        'reimage_reserved': reimage_reserved}},
                   not_found=lambda: exception.VolumeNotFound(volume_id=volume_id))

    def delete(self, context, volume_id):
        self._call(
            context, 'DELETE', self._path('volumes', volume_id),
            not_found=lambda: exception.VolumeNotFound(volume_id=volume_id))

    # -- attachments ----------------------------------------------------

    @staticmethod
    def _connector(connector, mountpoint):
        if connector is None:
            return None
        connector = copy.deepcopy(connector)
        if mountpoint:
            # Cinder records the device the guest sees from here.
            connector['mountpoint'] = mountpoint
        return connector

    def attachment_create(self, context, volume_id, instance_uuid,
                          connector=None, mountpoint=None, mode=None):
        """Reserve the volume for an instance (and connect, with a connector).

        Returns the attachment; it has connection_info only when a
        connector was given.
        """
        body = {'volume_uuid': volume_id, 'instance_uuid': instance_uuid,
                'connector': self._connector(connector, mountpoint)}
        microversion = ATTACH_VERSION
        if mode:
            body['mode'] = mode
            microversion = ATTACH_MODE_VERSION
        return self._call(
            context, 'POST', '/attachments', microversion=microversion,
            json={'attachment': body},
            not_found=lambda: exception.VolumeNotFound(volume_id=volume_id),
        ).json()['attachment']

    def _attachment_not_found(self, attachment_id):
        return lambda: exception.VolumeAttachmentNotFound(
            attachment_id=attachment_id)

    def attachment_get(self, context, attachment_id):
        return self._call(
            context, 'GET', self._path('attachments', attachment_id),
            microversion=ATTACH_VERSION,
            not_found=self._attachment_not_found(attachment_id),
        ).json()['attachment']

    def attachment_list(self, context, instance_uuid):
        """Every attachment of the server (summary: id, status, volume_id)."""
        return self._call(
            context, 'GET', '/attachments', microversion=ATTACH_VERSION,
            params={'instance_id': instance_uuid}).json()['attachments']

    def attachment_update(self, context, attachment_id, connector,
                          mountpoint=None):
        """Give Cinder the host's connector; returns the attachment with
        its connection_info."""
        body = {'connector': self._connector(connector, mountpoint)}
        return self._call(
            context, 'PUT', self._path('attachments', attachment_id),
            microversion=ATTACH_VERSION, json={'attachment': body},
            not_found=self._attachment_not_found(attachment_id),
        ).json()['attachment']

    def attachment_complete(self, context, attachment_id):
        """The host connected the volume: it becomes in-use."""
        self._call(context, 'POST',
                   self._path('attachments', attachment_id, 'action'),
                   microversion=ATTACH_VERSION, json={'os-complete': None},
                   not_found=self._attachment_not_found(attachment_id))

    def attachment_delete(self, context, attachment_id):
        """Drop the attachment; the volume is available once none is left."""
        self._call(context, 'DELETE',
                   self._path('attachments', attachment_id),
                   microversion=ATTACH_VERSION,
                   not_found=self._attachment_not_found(attachment_id))

    # -- snapshots ------------------------------------------------------

    def create_snapshot(self, context, volume_id, name, description=None,
                        force=False):
        """Snapshot a volume; ``force`` is needed while it is in-use."""
        body = {'volume_id': volume_id, 'name': name, 'force': force}
        if description is not None:
            body['description'] = description
        return self._call(
            context, 'POST', '/snapshots', json={'snapshot': body},
            not_found=lambda: exception.VolumeNotFound(volume_id=volume_id),
        ).json()['snapshot']

    def list_snapshots(self, context):
        """The caller's volume snapshots, with details."""
        return self._call(context, 'GET', '/snapshots/detail').json()['snapshots']

    def _snapshot_not_found(self, snapshot_id):
        return lambda: exception.VolumeSnapshotNotFound(
            snapshot_id=snapshot_id)

    def get_snapshot(self, context, snapshot_id):
        return self._call(
            context, 'GET', self._path('snapshots', snapshot_id),
            not_found=self._snapshot_not_found(snapshot_id),
        ).json()['snapshot']

    def wait_for_snapshot_status(self, context, snapshot_id, statuses,
                                 timeout=None):
        return self._wait(lambda ident: self.get_snapshot(context, ident),
                          snapshot_id, statuses, timeout, 'snapshot')

    def delete_snapshot(self, context, snapshot_id):
        self._call(context, 'DELETE', self._path('snapshots', snapshot_id),
                   not_found=self._snapshot_not_found(snapshot_id))

    def update_snapshot_status(self, context, snapshot_id, status, progress=None):
        """Cinder's os-update_snapshot_status, as the assisted snapshot flow sends it."""
        body = {'status': status}
        if progress is not None:
            body['progress'] = progress
        self._call(context, 'POST', self._path('snapshots', snapshot_id, 'action'),
                   json={'os-update_snapshot_status': body},
                   not_found=self._snapshot_not_found(snapshot_id))


API = CinderClient
