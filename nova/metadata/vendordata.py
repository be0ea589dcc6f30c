"""Vendor data: upstream's StaticJSON (a file) and DynamicJSON (REST services) providers."""

import http.client
import json
import logging
import ssl
import urllib.parse

LOG = logging.getLogger(__name__)

STATIC = 'StaticJSON'
DYNAMIC = 'DynamicJSON'
PROVIDERS = (STATIC, DYNAMIC)


class VendorDataUnavailable(Exception):
    """A dynamic vendor data service failed and failures are fatal."""


def static_json(path):
    """The JSON object in ``path``; {} when unset, unreadable or not an object (logged)."""
    if not path:
        return {}
    try:
        with open(path, 'rb') as handle:
            data = json.load(handle)
    except (OSError, ValueError) as exc:
        LOG.warning('vendor data file %s ([api] vendordata_jsonfile_path) is not '
                    'usable: %s', path, exc)
        return {}
    if not isinstance(data, dict):
        LOG.warning('vendor data file %s holds no JSON object', path)
        return {}
    return data


def _request_body(instance):
    # The fields upstream's DynamicJSON sends, under its names.
    return {'project-id': getattr(instance, 'project_id', None),
            'instance-id': instance.uuid,
            'image-id': getattr(instance, 'image_ref', None),
            'user-data': getattr(instance, 'user_data', None),
            'hostname': getattr(instance, 'hostname', None),
            'metadata': dict(getattr(instance, 'metadata', None) or {}),
            'boot-roles': (getattr(instance, 'system_metadata', None) or {}).get(
                'boot_roles', '')}


class DynamicJSON:
    """POSTs the instance's facts to each ``name@url`` target; the answers, by name."""

    def __init__(self, targets, connect_timeout=5, read_timeout=5, failure_fatal=False,
                 ssl_certfile=None):
        self.targets = targets
        self.connect_timeout = connect_timeout
        # 0 waits as long as the service takes.
        self.read_timeout = read_timeout or None
        self.failure_fatal = failure_fatal
        self.ssl_certfile = ssl_certfile or None

    def get(self, instance):
        answers = {}
        for target in self.targets:
            name, sep, url = target.partition('@')
            if not sep or not name:
                LOG.warning('vendor data target %r has no name (name@url); skipped', target)
                continue
            if name in answers:
                LOG.warning('vendor data target name %r is used twice; the second is '
                            'skipped', name)
                continue
            answers[name] = self._fetch(name, url, instance)
        return answers

    def _fetch(self, name, url, instance):
        try:
            return self._post(url, json.dumps(_request_body(instance)).encode())
        except (OSError, ValueError, http.client.HTTPException) as exc:
            LOG.warning('vendor data service %s at %s failed for instance %s: %s',
                        name, url, instance.uuid, exc)
            if self.failure_fatal:
                raise VendorDataUnavailable('vendor data service %s failed: %s'
                                            % (name, exc)) from exc
            return {}

    def _post(self, url, body):
        parts = urllib.parse.urlsplit(url)
        if parts.scheme == 'https':
            context = ssl.create_default_context(cafile=self.ssl_certfile)
            conn = http.client.HTTPSConnection(parts.hostname, parts.port,
                                               timeout=self.connect_timeout, context=context)
        elif parts.scheme == 'http':
            conn = http.client.HTTPConnection(parts.hostname, parts.port,
                                              timeout=self.connect_timeout)
        else:
            raise ValueError('not an http(s) URL')
        try:
            conn.connect()
            conn.sock.settimeout(self.read_timeout)
            path = (parts.path or '/') + ('?' + parts.query if parts.query else '')
            conn.request('POST', path, body=body, headers={
                'Content-Type': 'application/json', 'Accept': 'application/json',
                'User-Agent': 'openstack-nova-vendordata'})
            resp = conn.getresponse()
            data = resp.read()
        finally:
            conn.close()
        if resp.status >= 400:
            raise ValueError('HTTP %d' % resp.status)
        return json.loads(data) if data.strip() else {}


class VendorData:
    """The providers ``[api] vendordata_providers`` names, asked once per build."""

    def __init__(self, providers=(STATIC,), jsonfile_path=None, dynamic=None):
        self.providers = tuple(providers)
        self.jsonfile_path = jsonfile_path
        self.dynamic = dynamic

    def collect(self, instance):
        """(vendor_data.json or None when StaticJSON is off, vendor_data2.json)."""
        static = static_json(self.jsonfile_path) if STATIC in self.providers else None
        merged = {}
        for provider in self.providers:
            if provider == STATIC:
                merged['static'] = static
            elif provider == DYNAMIC and self.dynamic is not None:
                for key, value in self.dynamic.get(instance).items():
                    if key in merged:
                        LOG.warning('vendor data key %r is given twice; the first is kept',
                                    key)
                        continue
                    merged[key] = value
        return static, merged
