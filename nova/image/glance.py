"""Glance v2 client for the compute side: image metadata, verified downloads, uploads."""

import copy
import hashlib
import json
import logging
import os
import re
import tempfile
import urllib.parse

from oslo_config import cfg

from nova import exception, service_client

LOG = logging.getLogger(__name__)

GROUP = 'glance'
MIN_VERSION = '2.0'
MAX_VERSION = '2.latest'
PATCH_MEDIA_TYPE = 'application/openstack-images-v2.1-json-patch'

# Glance's base image attributes; everything else is a custom property.
CORE_ATTRIBUTES = ('id', 'name', 'status', 'visibility', 'protected',
                   'os_hidden', 'checksum', 'os_hash_algo', 'os_hash_value',
                   'owner', 'size', 'virtual_size', 'min_disk', 'min_ram',
                   'disk_format', 'container_format', 'created_at',
                   'updated_at', 'tags', 'direct_url', 'locations', 'stores')
# Hyperlinks in every Glance image body; meaningless outside the API.
LINK_ATTRIBUTES = ('self', 'file', 'schema')
# Attributes Glance computes itself; update() does not try to send them.
READ_ONLY_ATTRIBUTES = ('id', 'status', 'checksum', 'os_hash_algo',
                        'os_hash_value', 'size', 'virtual_size', 'created_at',
                        'updated_at', 'direct_url', 'locations',
                        'stores') + LINK_ATTRIBUTES
_INTEGER_ATTRIBUTES = ('min_disk', 'min_ram')


def image_dict_to_internal(image):
    """Glance v2 image -> nova's form: core fields plus a 'properties' dict."""
    internal = {key: image[key] for key in CORE_ATTRIBUTES if key in image}
    internal['properties'] = {
        key: value for key, value in image.items()
        if key not in CORE_ATTRIBUTES and key not in LINK_ATTRIBUTES}
    return internal


def _property_value(value):
    # Glance stores custom properties as strings only; booleans are spelt
    # the way Glance and nova's image property parsing expect.
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return 'true' if value else 'false'
    return str(value)


def internal_to_image_dict(meta):
    """Nova's form (or an already flat dict) -> a flat Glance v2 body."""
    flat = {}
    for key, value in meta.items():
        if key == 'properties' and isinstance(value, dict):
            continue
        flat[key] = value
    for key, value in (meta.get('properties') or {}).items():
        flat[key] = value
    return {key: (value if key in CORE_ATTRIBUTES else _property_value(value))
            for key, value in flat.items()}


def _pointer(name):
    return '/' + name.replace('~', '~0').replace('/', '~1')


def _error_message(response):
    """A readable message from a Glance error body (JSON, HTML or text)."""
    if response is None:
        return ''
    text = ''
    try:
        body = response.json()
    except ValueError:
        text = response.text or ''
    else:
        if isinstance(body, dict):
            error = body.get('error')
            text = (error.get('message') if isinstance(error, dict)
                    else body.get('message')) or json.dumps(body)
    # Glance's errors come from webob and carry HTML even in JSON.
    text = re.sub(r'<[^>]+>', ' ', text)
    return ' '.join(text.split())[:512]


def _translate_http_error(exc, image_id):
    status = exc.http_status
    message = _error_message(exc.response) or str(exc)
    if status in (404, 410) and image_id is not None:
        return exception.ImageNotFound(image_id=image_id)
    if status in (401, 403):
        return exception.Forbidden(message=message)
    if status == 409:
        return exception.Conflict(reason=message)
    if status is not None and 400 <= status < 500:
        return exception.Invalid(reason=message)
    return exception.ImageServiceError(reason='HTTP %s: %s'
                                       % (status, message))


class _Verifier:
    """Hashes streamed data and checks it against the image's metadata."""

    def __init__(self, image, content_md5=None):
        algo, expected = image.get('os_hash_algo'), image.get('os_hash_value')
        if not (algo and expected and algo in hashlib.algorithms_available):
            algo, expected = 'md5', image.get('checksum') or content_md5
        self.algo, self.expected = algo, expected
        self.expected_size = image.get('size')
        self.size = 0
        self._hash = (hashlib.new(algo, usedforsecurity=False)
                      if expected else None)

    def update(self, data):
        self.size += len(data)
        if self._hash is not None:
            self._hash.update(data)

    def problem(self):
        """None if the data matches, else why it does not."""
        if self.expected_size is not None and self.size != self.expected_size:
            return 'size %d != expected %d' % (self.size, self.expected_size)
        if self._hash is not None and self._hash.hexdigest() != self.expected:
            return '%s mismatch: %s != expected %s' % (
                self.algo, self._hash.hexdigest(), self.expected)
        return None


def _unlink(path):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


class GlanceClient(service_client.ServiceClient):
    """Calls Glance v2 as the caller in each RequestContext."""

    GROUP = GROUP
    RETRIES_OPTION = 'num_retries'

    # -- plumbing -------------------------------------------------------

    def _noauth(self):
        try:
            return self._conf.api.auth_strategy == 'noauth2'
        except (cfg.NoSuchOptError, cfg.NoSuchGroupError):
            return False

    def _as_caller(self, context):
        """``context`` with a token that names its caller to the image service.

        Image calls always act as a caller, never anonymously nor as this
        service: the image service shows each project only its own, shared
        and public images. With Keystone that is the user's token (as
        upstream). With noauth2 the token is ``user:project``; a context
        that carries none (built from an instance or by a periodic task)
        gets one from its user and project (a project alone acts as the
        user of the same name, as a noauth token without ':' does), and an
        admin context without a user acts as the noauth administrator.
        """
        if context is None or context.auth_token or not self._noauth():
            return context
        user = context.user_id or ('admin' if context.is_admin
                                   else context.project_id)
        if user is None:
            return context
        acting = copy.copy(context)
        acting.auth_token = '%s:%s' % (user, context.project_id or user)
        return acting

    def _transport(self, context, retries=None):
        return super()._transport(self._as_caller(context), retries,
                                  min_version=MIN_VERSION, max_version=MAX_VERSION)

    def _direct_kwargs(self):
        # The embedded endpoint serves v2 only, at /v2: nothing to discover.
        return {'version_path': 'v2'}

    def _call(self, context, method, path, image_id=None, retries=None,
              **kwargs):
        """One request to ``path`` under the versioned endpoint."""
        headers = kwargs.pop('headers', {})
        headers.setdefault('Accept', 'application/json')
        transport = self._transport(context, retries)
        try:
            url = transport.versioned_endpoint().rstrip('/') + path
            return transport.request(url, method, headers=headers, **kwargs)
        except service_client.StatusError as exc:
            raise _translate_http_error(exc, image_id) from exc
        except service_client.RequestFailed as exc:
            raise exception.ImageServiceError(
                reason='%s %s: %s' % (method, path, exc)) from exc

    def endpoint(self, context):
        """The image service's root URL without its version, for links."""
        url = self._transport(context, 0).versioned_endpoint().rstrip('/')
        return re.sub(r'/v\d+(\.\d+)?$', '', url)

    @staticmethod
    def _image_path(image_id, sub=''):
        path = '/images/%s' % urllib.parse.quote(str(image_id), safe='')
        return path + ('/' + sub if sub else '')

    # -- metadata -------------------------------------------------------

    def show(self, context, image_id):
        """The Glance v2 image dict (custom properties at top level)."""
        return self._call(context, 'GET', self._image_path(image_id),
                          image_id=image_id).json()

    def list(self, context, page_size=None, **filters):
        """Every image matching Glance query ``filters``, following 'next'.

        A list value is sent as a repeated parameter (e.g. tag=a&tag=b).
        """
        params = [(k, v) for k, value in filters.items()
                  for v in (value if isinstance(value, (list, tuple))
                            else [value])]
        if page_size:
            params.append(('limit', page_size))
        images = []
        while True:
            body = self._call(context, 'GET', '/images',
                              params=params).json()
            images.extend(body.get('images', []))
            next_link = body.get('next')
            if not next_link or not body.get('images'):
                return images
            # 'next' is rooted at the server ('/v2/images?...'); only its
            # query matters, which also survives endpoints under a prefix.
            params = urllib.parse.parse_qsl(
                urllib.parse.urlsplit(next_link).query,
                keep_blank_values=True)

    def create(self, context, meta):
        """Register an image (status 'queued'); returns the Glance dict.

        ``meta`` may be flat Glance attributes or nova's internal form
        with a 'properties' dict; custom property values become strings.
        """
        return self._call(context, 'POST', '/images',
                          json=internal_to_image_dict(meta)).json()

    def update(self, context, image_id, changes, remove=()):
        """Set attributes/properties and remove properties (JSON patch).

        Read-only attributes in ``changes`` (id, status, checksum, size,
        ...) are ignored, so a whole image dict can be passed back.
        Removing a property the image does not have is not an error.
        """
        flat = internal_to_image_dict(changes)
        ops = [{'op': 'add', 'path': _pointer(key), 'value': value}
               for key, value in flat.items()
               if key not in READ_ONLY_ATTRIBUTES]
        if remove:
            current = self.show(context, image_id)
            ops += [{'op': 'remove', 'path': _pointer(key)}
                    for key in remove if key in current]
        if not ops:
            return self.show(context, image_id)
        return self._call(
            context, 'PATCH', self._image_path(image_id), image_id=image_id,
            data=json.dumps(ops),
            headers={'Content-Type': PATCH_MEDIA_TYPE}).json()

    def delete(self, context, image_id):
        self._call(context, 'DELETE', self._image_path(image_id),
                   image_id=image_id)

    # -- data -----------------------------------------------------------

    def upload(self, context, image_id, src_path):
        """Upload the file at ``src_path`` as the image's data."""
        size = os.path.getsize(src_path)
        headers = {'Content-Type': 'application/octet-stream',
                   # The server checks it: a resent, half-read stream
                   # can never pass as a complete image.
                   'X-OpenStack-Image-Size': str(size)}
        for attempt in range(self._retries + 1):
            try:
                with open(src_path, 'rb') as data:
                    # keystoneauth must not retry on its own: it would
                    # resend a partly consumed file. Each try reopens it.
                    self._call(context, 'PUT',
                               self._image_path(image_id, 'file'),
                               image_id=image_id, retries=0, data=data,
                               headers=dict(headers),
                               status_code_retries=0)
                return
            except exception.ImageServiceError:
                if attempt == self._retries:
                    raise
                LOG.warning('Upload of image %s failed; retrying (%d/%d)',
                            image_id, attempt + 1, self._retries)

    def download(self, context, image_id, dest_path):
        """Fetch image data to ``dest_path``, verified; returns the image.

        Data lands in a temporary file beside ``dest_path`` and is renamed
        into place only once its size and hash match the image metadata;
        on any failure nothing is left behind.
        """
        image = self.show(context, image_id)
        if image.get('status') != 'active':
            raise exception.ImageUnacceptable(
                image_id=image_id,
                reason='status is %s, not active' % image.get('status'))
        for attempt in range(self._retries + 1):
            try:
                self._download_once(context, image, dest_path)
                return image
            except _TransferError as exc:
                if attempt == self._retries:
                    raise exception.ImageServiceError(
                        reason='downloading image %s: %s' % (image_id, exc))
                LOG.warning('Download of image %s failed (%s); retrying '
                            '(%d/%d)', image_id, exc, attempt + 1,
                            self._retries)

    def _download_once(self, context, image, dest_path):
        image_id = image['id']
        resp = self._call(context, 'GET', self._image_path(image_id, 'file'),
                          image_id=image_id, stream=True,
                          headers={'Accept': 'application/octet-stream'})
        with resp:
            if resp.status_code == 204:
                raise exception.ImageUnacceptable(
                    image_id=image_id, reason='Image has no associated data')
            verifier = _Verifier(image, resp.headers.get('Content-MD5'))
            tmp_path = self._write_temp(resp, verifier, dest_path)
        problem = verifier.problem()
        if problem:
            _unlink(tmp_path)
            raise exception.ImageServiceError(
                reason='image %s data failed verification: %s'
                       % (image_id, problem))
        os.replace(tmp_path, dest_path)

    def _write_temp(self, resp, verifier, dest_path):
        directory, name = os.path.split(os.path.abspath(dest_path))
        fd, tmp_path = tempfile.mkstemp(prefix='.%s.' % name, suffix='.part',
                                        dir=directory)
        chunk_size = self._conf[GROUP].download_chunk_size
        try:
            with os.fdopen(fd, 'wb') as fp:
                for data in resp.iter_content(chunk_size=chunk_size):
                    verifier.update(data)
                    fp.write(data)
                fp.flush()
                os.fsync(fp.fileno())
        except service_client.TransferFailed as exc:
            _unlink(tmp_path)
            raise _TransferError(exc) from exc
        except BaseException:
            _unlink(tmp_path)
            raise
        return tmp_path


class _TransferError(Exception):
    """The connection failed while image data was streaming."""


API = GlanceClient
