"""Read-only metadata definitions of the embedded image endpoint, generated from ImageMetaProps.

Glance ships namespaces describing the image properties Nova reads; here they
are built from the compute service's own typed property model, so what they
list is exactly what the compute service accepts (types and allowed values).
"""

import functools

import webob.exc
from oslo_versionedobjects import fields as ovo_fields

from nova.embedded.image import access, handlers
from nova.objects import fields_base, image_meta

# When these definitions came to be: they change only with the property model.
_CREATED = '2026-01-01T00:00:00Z'
# namespace -> (display name, property prefix, description)
NAMESPACES = {
    'OS::Compute::Hardware': ('Virtual hardware', 'hw_',
                              'How the guest\'s virtual hardware is shaped (hw_*).'),
    'OS::Compute::ImageHandling': ('Image handling', 'img_',
                                   'How the compute host handles the image (img_*).'),
    'OS::Compute::GuestOS': ('Guest operating system', 'os_',
                             'What the guest operating system needs (os_*).'),
}
RESOURCE_TYPES = (('OS::Glance::Image', None), ('OS::Cinder::Volume', 'image'))
_NS_SCHEMA = '/v2/schemas/metadefs/namespace'


def _property(name, field):
    kind = field.AUTO_TYPE if hasattr(field, 'AUTO_TYPE') else field
    body = {'title': name}
    if isinstance(kind, ovo_fields.Integer):
        body['type'] = 'integer'
    elif isinstance(kind, (ovo_fields.Boolean, fields_base.FlexibleBoolean)):
        body['type'] = 'boolean'
    elif isinstance(kind, ovo_fields.List):
        body.update(type='array', items={'type': 'string'})
    else:
        body['type'] = 'string'
        valid = getattr(kind, '_valid_values', None)
        if valid:
            body['enum'] = list(valid)
    return body


@functools.lru_cache(maxsize=None)
def _properties(prefix):
    return {name: _property(name, field)
            for name, field in sorted(image_meta.ImageMetaProps.fields.items())
            if name.startswith(prefix)}


def _associations():
    return [dict({'name': name, 'created_at': _CREATED},
                 **({'properties_target': target} if target else {}))
            for name, target in RESOURCE_TYPES]


def _namespace(name, detail):
    display, prefix, description = NAMESPACES[name]
    body = {'namespace': name, 'display_name': display, 'description': description,
            'visibility': 'public', 'protected': True, 'owner': 'admin',
            'created_at': _CREATED, 'updated_at': _CREATED, 'schema': _NS_SCHEMA,
            'self': '/v2/metadefs/namespaces/' + name,
            'resource_type_associations': _associations()}
    if detail:
        body['properties'] = _properties(prefix)
    return body


def _known(namespace):
    if namespace not in NAMESPACES:
        raise webob.exc.HTTPNotFound(
            explanation='Metadata definition namespace=%s was not found.' % namespace)


def list_namespaces(api, req):
    access.caller(req)
    wanted = {t for value in req.GET.getall('resource_types') for t in value.split(',')}
    names = [n for n in sorted(NAMESPACES)
             if not wanted or wanted & {name for name, _t in RESOURCE_TYPES}]
    return handlers.json_response({'namespaces': [_namespace(n, False) for n in names],
                                   'first': '/v2/metadefs/namespaces',
                                   'schema': '/v2/schemas/metadefs/namespaces'})


def show_namespace(api, req, namespace):
    access.caller(req)
    _known(namespace)
    return handlers.json_response(_namespace(namespace, True))


def list_properties(api, req, namespace):
    access.caller(req)
    _known(namespace)
    return handlers.json_response({'properties': _properties(NAMESPACES[namespace][1])})


def show_property(api, req, namespace, name):
    access.caller(req)
    _known(namespace)
    prop = _properties(NAMESPACES[namespace][1]).get(name)
    if prop is None:
        raise webob.exc.HTTPNotFound(
            explanation='Metadata definition property=%s not found in namespace=%s.'
                        % (name, namespace))
    return handlers.json_response(dict(prop, name=name))


def list_objects(api, req, namespace):
    access.caller(req)
    _known(namespace)
    return handlers.json_response({'objects': [], 'schema': 'v2/schemas/metadefs/objects'})


def show_object(api, req, namespace, name):
    access.caller(req)
    _known(namespace)
    raise webob.exc.HTTPNotFound(
        explanation='Metadata definition object=%s not found in namespace=%s.'
                    % (name, namespace))


def list_tags(api, req, namespace):
    access.caller(req)
    _known(namespace)
    return handlers.json_response({'tags': []})


def list_resource_types(api, req):
    access.caller(req)
    return handlers.json_response({'resource_types': [
        {'name': name, 'created_at': _CREATED, 'updated_at': _CREATED}
        for name, _target in RESOURCE_TYPES]})


def namespace_resource_types(api, req, namespace):
    access.caller(req)
    _known(namespace)
    return handlers.json_response({'resource_type_associations': _associations()})


def read_only(api, req, **_ids):
    """Every change to the definitions: refused, as Glance's policy refuses it."""
    access.caller(req)
    raise access.forbidden('modify_metadef_namespace' if req.method != 'POST'
                           else 'add_metadef_namespace')
