"""The websocket framing and handshake, and where the proxies find the token."""

import os
import struct

import pytest

from nova.console import proxy
from nova.console import websocket as ws


def _masked(payload, opcode=ws.OP_BINARY):
    mask = os.urandom(4)
    length = len(payload)
    if length < 126:
        head = bytes([0x80 | opcode, 0x80 | length])
    elif length < 65536:
        head = bytes([0x80 | opcode, 0x80 | 126]) + struct.pack('!H', length)
    else:
        head = bytes([0x80 | opcode, 0x80 | 127]) + struct.pack('!Q', length)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def _reader(data, chunk=3):
    stream = [data[i:i + chunk] for i in range(0, len(data), chunk)]
    return ws.FrameReader(lambda _n: stream.pop(0) if stream else b'')


@pytest.mark.parametrize('size', [0, 1, 125, 126, 65535, 65536])
def test_frames_of_every_length_class_round_trip(size):
    payload = os.urandom(size)
    reader = _reader(_masked(payload) + _masked(b'next', ws.OP_TEXT), chunk=4096)
    assert reader.read_frame() == (ws.OP_BINARY, payload)
    assert reader.read_frame() == (ws.OP_TEXT, b'next')
    with pytest.raises(EOFError):
        reader.read_frame()


def test_server_frames_are_unmasked_with_the_right_length():
    assert ws.encode_frame(b'abc') == b'\x82\x03abc'
    assert ws.encode_frame(b'x' * 300)[:4] == b'\x82\x7e\x01\x2c'
    assert ws.encode_frame(b'x' * 70000)[:2] == b'\x82\x7f'


def test_unmasked_client_frames_are_refused():
    with pytest.raises(ws.ProtocolError):
        _reader(b'\x82\x03abc').read_frame()


def test_handshake_accept_key_of_rfc6455():
    headers = {'Upgrade': 'websocket', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
               'Sec-WebSocket-Protocol': 'base64, binary'}
    text = ws.handshake_response(headers).decode()
    assert text.startswith('HTTP/1.1 101 Switching Protocols\r\n')
    assert 'Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n' in text
    assert 'Sec-WebSocket-Protocol: binary\r\n' in text
    for bad in ({'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ=='},
                {'Upgrade': 'websocket'},
                {'Upgrade': 'websocket', 'Sec-WebSocket-Key': 'c2hvcnQ='}):
        with pytest.raises(ws.ProtocolError):
            ws.handshake_response(bad)


@pytest.mark.parametrize('path,cookie,token', [
    ('/?token=abc', None, 'abc'),
    ('/websockify?token=abc', None, 'abc'),
    ('/vnc_auto.html?path=%3Ftoken%3Dabc', None, 'abc'),
    ('/websockify', 'other=1; token=abc', 'abc'),
    ('/websockify', 'path=%3Ftoken%3Dxyz', ''),
    ('/', None, ''),
])
def test_token_from_query_path_or_cookie(path, cookie, token):
    headers = {'Cookie': cookie} if cookie else {}
    assert proxy.token_from_request(path, headers) == token


def test_base_url_with_port():
    assert proxy.base_url_with_port('http://127.0.0.1:6080/vnc_auto.html', 41234) == \
        'http://127.0.0.1:41234/vnc_auto.html'
    assert proxy.base_url_with_port('ws://[::1]:6083/', 5) == 'ws://[::1]:5/'


@pytest.mark.parametrize('origin,host,allowed,ok', [
    (None, '127.0.0.1:6080', (), True),
    ('http://127.0.0.1:6080', '127.0.0.1:6080', (), True),
    ('https://console.example.com', 'console.example.com:443', (), True),
    ('http://evil.example.com', '127.0.0.1:6080', (), False),
    ('http://dash.example.com', '127.0.0.1:6080', ('dash.example.com',), True),
    ('null', '127.0.0.1:6080', (), False),
])
def test_origin_check(origin, host, allowed, ok):
    headers = {'Host': host}
    if origin is not None:
        headers['Origin'] = origin
    assert proxy.origin_allowed(headers, allowed) is ok
