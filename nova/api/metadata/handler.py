"""The metadata API's WSGI application: identify the instance, then answer the path."""

import logging

import webob
from oslo_utils import timeutils

from nova import exception
from nova.api import access_log, request_id
from nova.api.metadata import lookup
from nova.api.metadata.requester import Refused
from nova.metadata import content as content_mod
from nova.metadata import password, vendordata, versions

LOG = logging.getLogger(__name__)

# Every answer names its charset: Neutron's metadata agent fails (and the
# guest gets a 502) on a response without one.
CHARSET = 'UTF-8'
_REASONS = {400: 'Bad Request', 403: 'Forbidden', 404: 'Not Found', 409: 'Conflict',
            500: 'Internal Server Error', 503: 'Service Unavailable'}


def text_response(status, body, content_type=content_mod.TEXT):
    resp = webob.Response(status=status)
    resp.body = body if isinstance(body, bytes) else body.encode('utf-8')
    # Set by hand: webob leaves the charset off application/json.
    resp.headers['Content-Type'] = '%s; charset=%s' % (content_type, CHARSET)
    return resp


def error_response(status, message):
    # webob's plain-text error shape, which upstream's answers have.
    return text_response(status, '%d %s\n\n%s\n' % (status, _REASONS[status], message))


class MetadataApp:
    """Serves the OpenStack (/openstack/...) and EC2 (/, /<version>/...) formats.

    ``requesters`` (a RequesterCheck) says which instance asks; ``source``
    (a MetadataSource) builds or recalls its content. Only statuses Neutron's
    agent passes on are used: 200, 400, 403, 404, 409, 500 and 503.
    """

    def __init__(self, requesters, source, today=None):
        self.requesters = requesters
        self.source = source
        self.today = today or (lambda: timeutils.utcnow().strftime('%Y-%m-%d'))

    def __call__(self, environ, start_response):
        req = webob.Request(environ)
        try:
            resp = self._answer(req)
        except Refused as exc:
            resp = error_response(exc.status, exc.message)
        except lookup.PathNotFound:
            resp = error_response(404, 'The resource could not be found.')
        except vendordata.VendorDataUnavailable as exc:
            resp = error_response(503, str(exc))
        except Exception:  # noqa: BLE001 - the guest gets a sentence, the log the rest.
            LOG.exception('Metadata request %s %s failed', req.method,
                          environ.get('PATH_INFO'))
            resp = error_response(500, 'An unknown error has occurred. Please try your '
                                       'request again.')
        return resp(environ, start_response)

    def _answer(self, req):
        try:
            path = req.path_info
        except UnicodeError:
            raise Refused(400, 'The request path is not valid UTF-8.') from None
        if req.method not in ('GET', 'HEAD', 'POST'):
            raise Refused(400, 'Method %s is not supported here.' % req.method[:20])
        if lookup.normalize(path) == '/':
            # The EC2 version list, as upstream answers it to anyone.
            return text_response(200, *lookup.listing(versions.ec2_listing()))
        requester = self.requesters.identify(req)
        content = self._content(requester)
        found = lookup.resolve(content, path, self.today())
        if found is lookup.PASSWORD:
            return self._password(req, content)
        if req.method == 'POST':
            raise Refused(400, 'Only the password is posted.')
        body, content_type = found
        return text_response(200, body, content_type)

    def _content(self, requester):
        instance_id = requester.instance_id
        if instance_id is None:
            if not requester.address:
                raise Refused(400, 'The requester\'s address is unknown.')
            instance_id = self.source.instance_by_address(requester.address)
            if instance_id is None:
                LOG.info('No instance has address %s', requester.address)
                raise lookup.PathNotFound()
        try:
            content = self.source.content(instance_id, requester.address)
        except exception.Invalid as exc:
            LOG.error('Metadata of instance %s cannot be built: %s', instance_id,
                      exc.format_message())
            raise
        if content is None:
            LOG.info('Metadata requested for instance %s, which does not exist',
                     instance_id)
            raise lookup.PathNotFound()
        if requester.project_id is not None and content.project_id != requester.project_id:
            # The proxy says another project asks: answer as if it did not exist.
            LOG.warning('Metadata of instance %s refused: the request names project %s',
                        instance_id, requester.project_id)
            raise lookup.PathNotFound()
        return content

    def _password(self, req, content):
        if req.method != 'POST':
            return text_response(200, content.password or '')
        if content.password:
            raise Refused(409, 'A password is set already.')
        if (req.content_length or 0) > password.MAX_SIZE:
            raise Refused(400, 'Request is too large.')
        body = req.body_file.read(password.MAX_SIZE + 1)
        if len(body) > password.MAX_SIZE:
            raise Refused(400, 'Request is too large.')
        try:
            text = body.decode('utf-8')
        except UnicodeDecodeError:
            raise Refused(400, 'The password is not UTF-8 text.') from None
        stored = self.source.save_password(content.uuid, text)
        if stored is None:
            raise lookup.PathNotFound()
        if not stored:
            raise Refused(409, 'A password is set already.')
        return text_response(200, b'')


def build_app(requesters, source):
    """The metadata API with the compute API's request ids and access log.

    Outermost first: the access log (one line per request, with the request
    id), the request id (x-openstack-request-id on every answer), the app.
    """
    app = MetadataApp(requesters, source)
    return access_log.AccessLog(request_id.RequestId(app))
