"""Metadata paths to documents, with upstream's listing rules (and its 404s)."""

import posixpath

from nova.metadata import content as content_mod
from nova.metadata import versions


class PathNotFound(Exception):
    """No document or listing at this path."""


class PasswordPath:
    """The OpenStack password document: GET reads it, the guest POSTs it once."""


PASSWORD = PasswordPath()


def normalize(path):
    """``path`` as upstream reads it: rooted, '..' and repeated or trailing slashes gone."""
    return posixpath.normpath('/' + (path or '').lstrip('/'))


def listing(entries):
    return '\n'.join(entries).encode('utf-8'), content_mod.TEXT


def render_ec2(node):
    """A tree node as EC2 prints it: subtrees end in '/', or say their ``_name``."""
    if isinstance(node, dict):
        names = []
        for key in sorted(node):
            if key == '_name':
                continue
            value = node[key]
            if isinstance(value, dict):
                names.append(str(value['_name']) if '_name' in value else key + '/')
            else:
                names.append(key)
        return '\n'.join(names).encode('utf-8')
    if isinstance(node, list):
        return '\n'.join(str(item) for item in node).encode('utf-8')
    if isinstance(node, bytes):
        return node
    return str(node).encode('utf-8')


def _walk(node, names):
    for name in names:
        if not isinstance(node, dict) or name not in node or name == '_name':
            raise PathNotFound()
        node = node[name]
    return node


def resolve(content, path, today):
    """(body, content type) for ``path``, or PASSWORD; PathNotFound otherwise.

    ``content`` is the instance's InstanceContent; ``today`` (YYYY-MM-DD)
    hides OpenStack versions dated later. A path not under /openstack or
    /ec2 is an EC2 path (upstream reads /latest/meta-data as /ec2/latest/...).
    """
    tokens = normalize(path).split('/')[1:]
    if tokens[0] not in ('ec2', 'openstack'):
        tokens = ['ec2'] + ([] if tokens == [''] else tokens)
    if len(tokens) == 1:
        if tokens[0] == 'openstack':
            return listing(versions.openstack_listing(today))
        return listing(versions.ec2_listing())
    try:
        if tokens[0] == 'openstack':
            return _openstack(content, tokens[1:])
        return render_ec2(_walk(content.ec2_tree(tokens[1]), tokens[2:])), content_mod.TEXT
    except (versions.UnknownVersion, KeyError):
        raise PathNotFound() from None


def _openstack(content, tokens):
    if tokens[0] == 'content':
        # Injected files are on the config drive only; nothing to list here.
        if len(tokens) != 2 or tokens[1] not in content.content:
            raise PathNotFound()
        return content.content[tokens[1]], content_mod.TEXT
    if len(tokens) == 1:
        return listing(content.openstack_names(tokens[0]))
    name = '/'.join(tokens[1:])
    if name == content_mod.PASSWORD:
        if not versions.at_least(versions.openstack(tokens[0]), versions.GRIZZLY):
            raise PathNotFound()
        return PASSWORD
    return content.openstack_document(tokens[0], name)
