"""The console websocket proxies: check the token, then relay bytes to the guest's console."""

import html
import http.cookies
import http.server
import logging
import socket
import socketserver
import threading
import urllib.parse

from nova import exception
from nova.console import tokens
from nova.console import websocket as ws

LOG = logging.getLogger(__name__)

# What GET of a console URL (not an upgrade) answers on the noVNC proxy: a
# page that connects the websocket with the token of its own URL.
NOVNC_PAGE = """<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>noVNC console</title></head>
<body>
<p>Console of %(title)s through the noVNC websocket proxy.</p>
<pre id="status">connecting...</pre>
<script>
  // The noVNC client speaks RFB over the websocket at this page's "path"
  // parameter; this page only shows the server's RFB greeting.
  var params = new URLSearchParams(window.location.search);
  var path = params.get('path') || ('?token=' + (params.get('token') || ''));
  var scheme = window.location.protocol === 'https:' ? 'wss://' : 'ws://';
  var sock = new WebSocket(scheme + window.location.host + '/' + path, ['binary']);
  sock.binaryType = 'arraybuffer';
  sock.onmessage = function (ev) {
    document.getElementById('status').textContent =
      new TextDecoder().decode(new Uint8Array(ev.data)).trim();
    sock.close();
  };
  sock.onclose = function () { };
</script>
</body>
</html>
"""


# What GET of a spice-html5 console URL answers: a page that opens the
# websocket with its URL's token and shows the SPICE server's link reply.
SPICE_PAGE = """<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>SPICE console</title></head>
<body>
<p>Console of %(title)s through the spice-html5 websocket proxy.</p>
<pre id="status">connecting...</pre>
<script>
  // A spice-html5 client speaks SPICE over the websocket of this page's
  // token; this page sends the main channel's SpiceLinkMess and shows
  // whether the guest's SPICE server answered.
  var params = new URLSearchParams(window.location.search);
  var scheme = window.location.protocol === 'https:' ? 'wss://' : 'ws://';
  var sock = new WebSocket(scheme + window.location.host + '/?token=' +
                           encodeURIComponent(params.get('token') || ''), ['binary']);
  sock.binaryType = 'arraybuffer';
  sock.onopen = function () {
    var buf = new DataView(new ArrayBuffer(42));
    [0x52, 0x45, 0x44, 0x51].forEach(function (b, i) { buf.setUint8(i, b); });
    buf.setUint32(4, 2, true); buf.setUint32(8, 2, true); buf.setUint32(12, 26, true);
    buf.setUint8(20, 1); buf.setUint32(22, 1, true); buf.setUint32(26, 1, true);
    buf.setUint32(30, 18, true); buf.setUint32(34, 11, true); buf.setUint32(38, 9, true);
    sock.send(buf.buffer);
  };
  sock.onmessage = function (ev) {
    var magic = new TextDecoder().decode(new Uint8Array(ev.data).slice(0, 4));
    document.getElementById('status').textContent =
      magic === 'REDQ' ? 'SPICE server answered' : 'unexpected reply';
    sock.close();
  };
</script>
</body>
</html>
"""

# console type -> (paths of its page, the page)
_PAGES = {
    'novnc': (('/', '/vnc.html', '/vnc_auto.html', '/vnc_lite.html'), NOVNC_PAGE),
    'spice-html5': (('/', '/spice.html', '/spice_auto.html'), SPICE_PAGE),
}


def token_from_request(path, headers):
    """The token from ?token=, else ?path=?token=..., else the "token" cookie (noVNC)."""
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(path).query)
    token = query.get('token', [''])[0]
    if not token and 'path' in query:
        inner = urllib.parse.urlsplit(query['path'][0]).query
        token = urllib.parse.parse_qs(inner).get('token', [''])[0]
    if not token:
        raw = headers.get('Cookie')
        if raw:
            for part in raw.split(';'):
                cookie = http.cookies.SimpleCookie()
                try:
                    cookie.load(part.strip())
                except http.cookies.CookieError:
                    continue
                if 'token' in cookie:
                    token = cookie['token'].value
    return token


def origin_allowed(headers, allowed_origins=()):
    """A browser's websocket must come from a page of the proxy's own host (or
    an allowed one): another site cannot open consoles with a stolen URL."""
    origin = headers.get('Origin')
    if not origin:
        return True         # not a browser (tempest, websocket libraries)
    origin_host = urllib.parse.urlsplit(origin).hostname
    host = urllib.parse.urlsplit('//' + headers.get('Host', '')).hostname
    return origin_host is not None and (origin_host == host
                                        or origin_host in allowed_origins)


class ConsoleProxyHandler(http.server.BaseHTTPRequestHandler):
    """One client connection: an HTTP GET, upgraded to a websocket when asked."""

    protocol_version = 'HTTP/1.1'
    server_version = 'nova-console-proxy'
    # A websocket handshake that stalls must not pin a thread for ever.
    timeout = 60

    def log_message(self, format, *args):
        LOG.debug('%s - %s', self.address_string(), format % args)

    def _plain(self, code, text):
        body = (text + '\n').encode('utf-8')
        self.send_response(code)
        self.send_header('Content-Type', 'text/plain; charset=utf-8')
        self.send_header('Content-Length', str(len(body)))
        self.send_header('Connection', 'close')
        self.end_headers()
        self.wfile.write(body)
        self.close_connection = True

    def _refuse(self, code):
        # No body: a websocket client reads whatever follows the headers as
        # frames, so a refusal must end with the headers and the close.
        self.send_response(code)
        self.send_header('Content-Length', '0')
        self.send_header('Connection', 'close')
        self.end_headers()
        self.close_connection = True

    def do_GET(self):
        if 'websocket' not in self.headers.get('Upgrade', '').lower():
            return self._page()
        if not origin_allowed(self.headers, self.server.allowed_origins):
            LOG.info('%s console refused: origin %r not allowed', self.server.console_type,
                     self.headers.get('Origin'))
            return self._refuse(403)
        token = token_from_request(self.path, self.headers)
        try:
            row = tokens.validate(self.server.db, token, self.server.console_type)
        except exception.InvalidToken:
            LOG.info('%s console refused: invalid or expired token',
                     self.server.console_type)
            return self._refuse(403)
        if self.server.is_current is not None and not self.server.is_current(row):
            return self._refuse(403)
        try:
            target = socket.create_connection((row['host'], row['port']), timeout=10)
        except OSError as exc:
            LOG.warning('console of %s at %s:%s unreachable: %s', row['instance_uuid'],
                        row['host'], row['port'], exc)
            return self._refuse(502)
        try:
            try:
                response = ws.handshake_response(self.headers)
            except ws.ProtocolError as exc:
                LOG.info("console upgrade refused: %s", exc)
                return self._refuse(400)
            self.wfile.write(response)
            self.wfile.flush()
            LOG.info('%s console of %s opened', self.server.console_type,
                     row['instance_uuid'])
            target.settimeout(None)
            self.connection.settimeout(None)
            relay(self.connection, self.rfile, target)
        finally:
            target.close()
            self.close_connection = True

    def _page(self):
        if self.server.console_type not in _PAGES:
            return self._plain(400, 'This is a websocket endpoint: connect with a '
                                    'websocket client and the console URL\'s token.')
        paths, page = _PAGES[self.server.console_type]
        path = urllib.parse.urlsplit(self.path).path
        if path not in paths:
            return self._plain(404, 'Not found.')
        body = (page % {'title': html.escape('the server')}).encode('utf-8')
        self.send_response(200)
        self.send_header('Content-Type', 'text/html; charset=utf-8')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def relay(client, client_rfile, target):
    """Move bytes both ways until either side closes: websocket frames on the
    client side, a plain byte stream on the guest console's side."""
    done = threading.Event()
    send_lock = threading.Lock()

    def to_client(data, opcode=ws.OP_BINARY):
        with send_lock:
            client.sendall(ws.encode_frame(data, opcode))

    def guest_to_client():
        try:
            while True:
                data = target.recv(65536)
                if not data:
                    break
                to_client(data)
        except OSError:
            pass
        finally:
            done.set()
            _shutdown(client)

    pump = threading.Thread(target=guest_to_client, daemon=True, name='console-relay')
    pump.start()
    # Frames read through the handler's buffered reader: it may already hold
    # bytes the client sent right after its upgrade request.
    reader = ws.FrameReader(client_rfile.read1)
    try:
        while not done.is_set():
            opcode, payload = reader.read_frame()
            if opcode in (ws.OP_BINARY, ws.OP_TEXT, ws.OP_CONT):
                target.sendall(payload)
            elif opcode == ws.OP_PING:
                to_client(payload, ws.OP_PONG)
            elif opcode == ws.OP_CLOSE:
                to_client(payload[:2], ws.OP_CLOSE)
                break
    except (EOFError, OSError, ws.ProtocolError):
        pass
    finally:
        _shutdown(target)
        pump.join(5)


def _shutdown(sock):
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


class ConsoleProxyServer(socketserver.ThreadingMixIn, http.server.HTTPServer):
    """A threaded proxy for one console type ('novnc', 'spice-html5' or 'serial')."""

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64

    def __init__(self, address, db, console_type, allowed_origins=(), is_current=None):
        self.db = db
        # is_current(row): the instance's host still has that console there.
        self.is_current = is_current
        self.console_type = console_type
        self.allowed_origins = tuple(allowed_origins)
        if ':' in address[0]:
            self.address_family = socket.AF_INET6
        try:
            super().__init__(address, ConsoleProxyHandler)
        except OSError as exc:
            raise OSError(exc.errno, 'cannot listen on %s:%s: %s'
                          % (address[0], address[1], exc.strerror or exc)) from None

    @property
    def port(self):
        return self.server_address[1]

    def stop(self, timeout=None):
        """Stop listening; open console sessions end with their connections."""
        self.shutdown()
        self.server_close()


def serve_in_thread(db, console_type, host, port, allowed_origins=(), is_current=None):
    """Start a proxy; returns (server, thread). ``port`` 0 picks a free port."""
    server = ConsoleProxyServer((host, port), db, console_type, allowed_origins, is_current)
    thread = threading.Thread(target=server.serve_forever, daemon=True,
                              name='%s-proxy' % console_type)
    thread.start()
    return server, thread


def base_url_with_port(url, port):
    """``url`` with its port replaced (for proxies bound to port 0)."""
    parts = urllib.parse.urlsplit(url)
    netloc = '%s:%d' % (parts.hostname if ':' not in (parts.hostname or '')
                        else '[%s]' % parts.hostname, port)
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))
