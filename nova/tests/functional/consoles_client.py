"""Console test helpers: the remote-consoles call and a minimal websocket client."""

import base64
import os
import socket
import struct
import urllib.parse


def remote_console(cloud, sid, protocol, type_, version='2.6', **kwargs):
    """The URL of a new remote console, its protocol and type checked."""
    status, _h, body = cloud.request('POST', '/servers/%s/remote-consoles' % sid, {
        'remote_console': {'protocol': protocol, 'type': type_}}, version=version, **kwargs)
    assert status == 200, body
    assert body['remote_console']['protocol'] == protocol
    assert body['remote_console']['type'] == type_
    return body['remote_console']['url']


class WebSocketClient:
    def __init__(self, url, timeout=20):
        parts = urllib.parse.urlsplit(url)
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=timeout)
        query = urllib.parse.parse_qs(parts.query)
        # noVNC URLs carry the websocket path in "path"; serial URLs the token itself.
        target = '/' + query['path'][0] if 'path' in query else \
            (parts.path or '/') + '?' + parts.query
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(('GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\n'
                           'Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n'
                           'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: binary\r\n\r\n'
                           % (target, parts.netloc, key)).encode())
        data = b''
        while b'\r\n\r\n' not in data:
            chunk = self.sock.recv(4096)
            if not chunk:
                break
            data += chunk
        head, _sep, self.buf = data.partition(b'\r\n\r\n')
        self.status_line = head.split(b'\r\n')[0].decode()
        self.status = int(self.status_line.split()[1])

    def _read(self, size):
        while len(self.buf) < size:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError('closed')
            self.buf += chunk
        data, self.buf = self.buf[:size], self.buf[size:]
        return data

    def recv(self):
        """(opcode, payload) of the next server frame."""
        b1, b2 = self._read(2)
        assert not b2 & 0x80, 'servers must not mask'
        length = b2 & 0x7F
        if length == 126:
            length = struct.unpack('!H', self._read(2))[0]
        elif length == 127:
            length = struct.unpack('!Q', self._read(8))[0]
        return b1 & 0x0F, self._read(length)

    def recv_data(self):
        opcode, payload = self.recv()
        assert opcode == 2, opcode
        return payload

    def send(self, payload, opcode=2):
        mask = os.urandom(4)
        length = len(payload)
        head = bytes([0x80 | opcode])
        if length < 126:
            head += bytes([0x80 | length])
        else:
            head += bytes([0x80 | 126]) + struct.pack('!H', length)
        self.sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def close(self):
        self.sock.close()
