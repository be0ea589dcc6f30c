"""Reading WSGI request bodies: exact Content-Length or chunked, detecting short bodies."""

CHUNK_SIZE = 64 * 1024


class IncompleteBody(Exception):
    """The client sent fewer bytes than it announced, or broken framing."""


def is_chunked(environ):
    return 'chunked' in environ.get('HTTP_TRANSFER_ENCODING', '').lower()


def content_length(environ):
    """The announced body length; None when absent, ValueError if garbage."""
    raw = environ.get('CONTENT_LENGTH') or ''
    if not raw.strip():
        return None
    length = int(raw)
    if length < 0:
        raise ValueError('negative Content-Length')
    return length


def iter_body(environ, chunk_size=CHUNK_SIZE):
    """Yield the request body in chunks; raise IncompleteBody if cut short.

    A server that decoded a chunked body says so (``wsgi.input_terminated``);
    otherwise the framing (length or chunked) is decoded here.
    """
    stream = environ['wsgi.input']
    if environ.get('wsgi.input_terminated'):
        # The server decoded the framing (nova's server, gunicorn): read to the end.
        return _iter_to_end(stream, chunk_size)
    if is_chunked(environ):
        return _iter_chunked(stream, chunk_size)
    # HTTP/1.1: a request with neither header has no body.
    return _iter_exact(stream, content_length(environ) or 0, chunk_size)


def _read_exact(stream, count):
    """Read exactly ``count`` bytes or raise IncompleteBody."""
    parts = []
    while count > 0:
        try:
            data = stream.read(count)
        except OSError as exc:
            raise IncompleteBody('connection lost: %s' % exc) from exc
        if not data:
            raise IncompleteBody('connection closed before the body ended')
        parts.append(data)
        count -= len(data)
    return b''.join(parts)


def _iter_exact(stream, remaining, chunk_size):
    while remaining > 0:
        data = _read_exact(stream, min(remaining, chunk_size))
        remaining -= len(data)
        yield data


def _iter_to_end(stream, chunk_size):
    while True:
        try:
            data = stream.read(chunk_size)
        except OSError as exc:
            raise IncompleteBody('connection lost: %s' % exc) from exc
        if not data:
            return
        yield data


def _read_line(stream):
    try:
        line = stream.readline(1024)
    except OSError as exc:
        raise IncompleteBody('connection lost: %s' % exc) from exc
    if not line.endswith(b'\n'):
        raise IncompleteBody('malformed chunked encoding')
    return line


def _iter_chunked(stream, chunk_size):
    while True:
        size_field = _read_line(stream).split(b';', 1)[0].strip()
        try:
            size = int(size_field, 16)
        except ValueError:
            raise IncompleteBody('malformed chunk size %r' % size_field)
        if size == 0:
            # Skip optional trailers up to the blank line ending the body.
            while _read_line(stream).strip():
                pass
            return
        yield from _iter_exact(stream, size, chunk_size)
        if _read_exact(stream, 2) != b'\r\n':
            raise IncompleteBody('malformed chunk terminator')


def read_body(environ, limit):
    """Return the whole body; ValueError if it is longer than ``limit``."""
    parts, total = [], 0
    for data in iter_body(environ):
        total += len(data)
        if total > limit:
            raise ValueError('request body larger than %d bytes' % limit)
        parts.append(data)
    return b''.join(parts)


def drain(environ, limit=16 * 1024 * 1024):
    """Consume an unread body so the client can read our error response.

    A server that answers without reading the body and then closes makes
    the client's send fail with a reset instead of showing the status.
    """
    total = 0
    try:
        for data in iter_body(environ):
            total += len(data)
            if total > limit:
                return
    except (IncompleteBody, ValueError):
        return
