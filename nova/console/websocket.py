"""RFC 6455 websockets, server side: the opening handshake and binary frames."""

import base64
import hashlib
import struct

_GUID = b'258EAFA5-E914-47DA-95CA-C5AB0DC85B11'

OP_CONT, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA
# A frame larger than this is a protocol error here: console traffic is small.
MAX_PAYLOAD = 16 * 1024 * 1024


class ProtocolError(Exception):
    pass


def accept_key(key):
    return base64.b64encode(hashlib.sha1(key.encode('ascii') + _GUID).digest()).decode()


def handshake_response(headers):
    """The 101 response for an upgrade request's headers (a case-insensitive
    mapping), or raise ProtocolError naming what is missing."""
    if 'websocket' not in headers.get('Upgrade', '').lower():
        raise ProtocolError('not a websocket upgrade request')
    key = headers.get('Sec-WebSocket-Key')
    if not key or len(base64.b64decode(key.encode(), validate=False)) != 16:
        raise ProtocolError('missing or malformed Sec-WebSocket-Key')
    if headers.get('Sec-WebSocket-Version', '13') != '13':
        raise ProtocolError('unsupported websocket version')
    lines = ['HTTP/1.1 101 Switching Protocols', 'Upgrade: websocket',
             'Connection: Upgrade', 'Sec-WebSocket-Accept: ' + accept_key(key)]
    offered = [p.strip() for p in headers.get('Sec-WebSocket-Protocol', '').split(',')
               if p.strip()]
    # noVNC and tempest offer "binary"; the frames here are always binary.
    if 'binary' in offered:
        lines.append('Sec-WebSocket-Protocol: binary')
    return ('\r\n'.join(lines) + '\r\n\r\n').encode('ascii')


def encode_frame(payload, opcode=OP_BINARY):
    """One final, unmasked frame (servers never mask)."""
    length = len(payload)
    head = bytes([0x80 | opcode])
    if length < 126:
        head += bytes([length])
    elif length < 65536:
        head += bytes([126]) + struct.pack('!H', length)
    else:
        head += bytes([127]) + struct.pack('!Q', length)
    return head + payload


class FrameReader:
    """Reads client frames from a socket-like ``recv``; unmasks them."""

    def __init__(self, recv):
        self._recv = recv
        self._buf = b''

    def _read(self, size):
        while len(self._buf) < size:
            chunk = self._recv(65536)
            if not chunk:
                raise EOFError('connection closed')
            self._buf += chunk
        data, self._buf = self._buf[:size], self._buf[size:]
        return data

    def read_frame(self):
        """(opcode, payload) of the next frame."""
        b1, b2 = self._read(2)
        opcode, masked, length = b1 & 0x0F, b2 & 0x80, b2 & 0x7F
        if length == 126:
            length = struct.unpack('!H', self._read(2))[0]
        elif length == 127:
            length = struct.unpack('!Q', self._read(8))[0]
        if length > MAX_PAYLOAD:
            raise ProtocolError('frame too large')
        if not masked:
            raise ProtocolError('client frames must be masked')
        mask = self._read(4)
        data = self._read(length)
        return opcode, unmask(data, mask)


def unmask(data, mask):
    # One big-integer XOR instead of a Python loop per byte.
    if not data:
        return b''
    length = len(data)
    key = (mask * (length // 4 + 1))[:length]
    return (int.from_bytes(data, 'big') ^ int.from_bytes(key, 'big')).to_bytes(length, 'big')
