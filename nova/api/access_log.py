"""One access-log line per API request: method, path, status, length, time, request id."""

import logging
import time

from nova import context as nova_context

LOG = logging.getLogger('nova.api.access')


class AccessLog:
    """Outermost middleware: logs each request once its response body is sent.

    It also forgets the context a previous request left on this thread
    (keep-alive connections and server workers reuse threads), so a line
    logged before authentication never carries another request's ids.
    """

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        nova_context.clear_store()
        started = time.monotonic()
        seen = {'status': '-', 'length': None}

        def capture(status, headers, exc_info=None):
            seen['status'] = status.split(' ', 1)[0]
            for name, value in headers:
                if name.lower() == 'content-length':
                    seen['length'] = value
            return start_response(status, headers, exc_info)
        try:
            body = self.app(environ, capture)
        except BaseException:
            seen['status'] = '500'
            _log(environ, seen, 0, started)
            raise
        return _Body(body, environ, seen, started)


class _Body:
    """The response body, passed through; logs the request when closed."""

    def __init__(self, body, environ, seen, started):
        self.body = body
        self.environ = environ
        self.seen = seen
        self.started = started
        self.sent = 0

    def __iter__(self):
        for chunk in self.body:
            self.sent += len(chunk)
            yield chunk

    def close(self):
        try:
            if hasattr(self.body, 'close'):
                self.body.close()
        finally:
            _log(self.environ, self.seen, self.sent, self.started)


def _log(environ, seen, sent, started):
    path = environ.get('SCRIPT_NAME', '') + environ.get('PATH_INFO', '')
    if environ.get('QUERY_STRING'):
        path += '?' + environ['QUERY_STRING']
    LOG.info('%s "%s %s" status: %s len: %s time: %.4f request_id: %s '
             'global_request_id: %s',
             environ.get('REMOTE_ADDR', '-'), environ.get('REQUEST_METHOD', '-'), path,
             seen['status'], seen['length'] if seen['length'] is not None else sent,
             time.monotonic() - started, environ.get('openstack.request_id', '-'),
             environ.get('openstack.global_request_id') or '-')
