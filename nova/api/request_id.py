"""x-openstack-request-id on every answer: oslo.middleware's RequestId, without its package."""

import re

import webob.dec
from oslo_context import context

# oslo.middleware's package imports every middleware it ships (jinja2,
# greenlet and bcrypt with them, about 3 MB) before any of its modules, and
# this one runs on every request. It behaves as ``oslo_middleware.request_id``
# does, as the unit tests check against it side by side: the same environ
# keys, the same inbound id format, the same response headers.
ENV_REQUEST_ID = 'openstack.request_id'
GLOBAL_REQ_ID = 'openstack.global_request_id'
HTTP_RESP_HEADER_REQUEST_ID = 'x-openstack-request-id'
INBOUND_HEADER = 'X-Openstack-Request-Id'
ID_FORMAT = (r'^req-[a-f0-9]{8}-[a-f0-9]{4}-'
             r'[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}$')


class RequestId:
    """A new request id in the environ and the answer; a valid inbound one becomes global."""

    # Also sent with the same id, as upstream's compute API sends
    # x-compute-request-id.
    compat_headers = []

    def __init__(self, application):
        self.application = application

    @webob.dec.wsgify
    def __call__(self, req):
        inbound = req.headers.get(INBOUND_HEADER, '')
        if re.match(ID_FORMAT, inbound):
            req.environ[GLOBAL_REQ_ID] = inbound
        req_id = context.generate_request_id()
        req.environ[ENV_REQUEST_ID] = req_id
        response = req.get_response(self.application)
        for header in [HTTP_RESP_HEADER_REQUEST_ID, *self.compat_headers]:
            if header not in response.headers:
                response.headers.add(header, req_id)
        return response
