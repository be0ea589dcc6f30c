"""Object fingerprint test: a field change without a version bump fails here."""

import importlib
import pkgutil

from oslo_versionedobjects import fixture

import nova.objects
from nova.objects import base

# Change a hash only together with a VERSION bump (and its "# Version"
# comment) on that object. Print the current hashes with:
#   python -c "from nova.tests.unit.objects import test_objects as t; \
#              print(t.current_hashes())"
OBJECT_DATA = {
    'BlockDeviceMapping': '1.0-51a9df645a3b32d640f5b53be9aecfc4',
    'BlockDeviceMappingList': '1.0-6cf6fc8bc8ff8f8eeb8b5b3d3db6637f',
    'Flavor': '1.0-45755fbc11bff55543331d20dd276d20',
    'ImageMeta': '1.0-e281f5c93088b8ef178c07dd0deee2d8',
    'ImageMetaProps': '1.0-07d8cdd4b07c879d976e97c12e699ed2',
    'Instance': '1.3-718e05cd2f9e5664a43363ff6adfef17',
}



def registered_classes():
    """Every registered object (all of them may cross RPC): import each module first."""
    for module in pkgutil.iter_modules(nova.objects.__path__):
        importlib.import_module('nova.objects.' + module.name)
    # oslo.versionedobjects keeps one registry per process: os-vif's objects
    # (imported by nova.network.os_vif_util) are in it too.
    return {name: classes for name, classes in base.NovaObjectRegistry.obj_classes().items()
            if classes[0].OBJ_PROJECT_NAMESPACE == base.NovaObject.OBJ_PROJECT_NAMESPACE}


def _checker():
    return fixture.ObjectVersionChecker(registered_classes())


def current_hashes():
    return _checker().get_hashes()


def test_object_versions():
    expected, actual = _checker().test_hashes(OBJECT_DATA)
    assert expected == actual, (
        'Object fields changed: bump VERSION, add a "# Version" comment, '
        'then update OBJECT_DATA with the new hashes.')


def test_every_registered_object_is_pinned():
    assert set(OBJECT_DATA) == set(registered_classes())


def test_instance_network_info_is_dropped_for_older_receivers():
    from nova.objects import instance as instance_obj
    registered_classes()
    inst = instance_obj.Instance(uuid='6c1f3b2e-3f0b-4a59-9a53-0d2f9a7c1e11',
                                 network_info=[{'id': 'p1', 'network': {'subnets': []}}])
    assert inst.obj_to_primitive()['nova_object.data']['network_info'][0]['id'] == 'p1'
    older = inst.obj_to_primitive(target_version='1.1')['nova_object.data']
    assert 'network_info' not in older
