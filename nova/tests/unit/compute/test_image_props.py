"""Boot-time overrides: checked, merged and parsed once, with the errors in a user's order."""

import pytest

from nova import conf as nova_conf
from nova import exception
from nova.compute import image_props
from nova.objects import image_meta

IMAGE = {'id': 'i', 'min_disk': 1, 'properties': {
    'hw_disk_bus': 'scsi', 'architecture': 'x86_64', 'os_distro': 'cirros',
    'hw_numa_nodes': '2', 'hw_numa_cpus.0': '0', 'hw_numa_cpus.1': '1',
    'hw_numa_mem.0': '256', 'hw_numa_mem.1': '256'}}


@pytest.fixture
def conf():
    return nova_conf.new_config()


def test_overrides_replace_the_image_value_under_either_name(conf):
    result = image_props.apply_checked(conf, IMAGE, {'hw_architecture': 'i686',
                                                     'hw_os_command_line': 'quiet'})
    props = result.image['properties']
    # The image stored its value under the legacy name: the override replaces it.
    assert 'architecture' not in props
    assert props['hw_architecture'] == 'i686' and props['os_command_line'] == 'quiet'
    assert props['os_distro'] == 'cirros' and props['hw_disk_bus'] == 'scsi'
    assert result.overrides == {'hw_architecture': 'i686', 'os_command_line': 'quiet'}
    # What the checks after the merge read, parsed once from the merged properties.
    assert result.props.hw_architecture == 'i686' and result.props.os_command_line == 'quiet'
    assert result.props.hw_disk_bus == 'scsi' and result.props.hw_numa_nodes == 2
    assert result.image['min_disk'] == 1 and IMAGE['properties']['architecture'] == 'x86_64'


def test_one_numa_override_drops_the_image_topology(conf):
    result = image_props.apply_checked(conf, IMAGE, {'hw_numa_nodes': '1'})
    assert {k for k in result.image['properties'] if k.startswith('hw_numa')} == \
        {'hw_numa_nodes'}
    assert result.props.hw_numa_nodes == 1 and not result.props.obj_attr_is_set('hw_numa_cpus')


def test_no_overrides_keep_the_image(conf):
    result = image_props.apply_checked(conf, IMAGE, None)
    assert result.image == IMAGE and result.overrides == {}
    assert result.props.hw_architecture == 'x86_64'


def test_the_properties_are_parsed_once(conf, monkeypatch):
    parses = []
    real = image_meta.ImageMetaProps.from_dict.__func__

    def counted(cls, props, strict=False):
        parses.append(dict(props))
        return real(cls, props, strict=strict)
    monkeypatch.setattr(image_meta.ImageMetaProps, 'from_dict', classmethod(counted))
    image_props.apply_checked(conf, IMAGE, {'hw_disk_bus': 'virtio'})
    assert len(parses) == 1


@pytest.mark.parametrize('overrides,needle', [
    # Named as the user sent them, alias or not.
    ({'hw_os_command_line': 'a\nb'}, 'hw_os_command_line'),
    ({'architecture': 'no-such-arch'}, 'architecture'),
    ({'no_such_prop': 'x'}, 'no_such_prop'),
    ({'hw_numa_nodes': 2}, 'hw_numa_nodes'),
    ({'hw_numa_nodes': '2', 'hw_numa_cpus.1': '0'}, 'hw_numa_cpus.1'),
])
def test_a_bad_override_is_400_naming_its_key(conf, overrides, needle):
    with pytest.raises(exception.InvalidImageProperty) as caught:
        image_props.apply_checked(conf, IMAGE, overrides)
    assert needle in caught.value.format_message()


def test_unknown_image_properties_stay_and_are_not_judged(conf):
    image = {'properties': {'custom_thing': 'x', 'hw_numa_cpus.3': 'junk'}}
    result = image_props.apply_checked(conf, image, {'hw_disk_bus': 'virtio'})
    assert result.image['properties']['custom_thing'] == 'x'


def test_checks_come_in_the_order_a_user_sees_them(conf):
    conf.set_override('image_props_override_max_keys', 1, group='api')
    with pytest.raises(image_props.TooManyOverrides):
        image_props.apply_checked(conf, IMAGE, {'img_signature': 1, 'hw_disk_bus': 'x'})
    conf.clear_override('image_props_override_max_keys', group='api')
    # A value that is not a string is a 400 before the deny list's 403.
    with pytest.raises(exception.InvalidImageProperty):
        image_props.apply_checked(conf, IMAGE, {'img_signature': 1})
    with pytest.raises(image_props.ImagePropertyOverrideForbidden) as caught:
        image_props.apply_checked(conf, IMAGE, {'img_signature': 'abc'})
    assert caught.value.code == 403
    # Lists match the given and the canonical name.
    conf.set_override('image_props_override_allowlist', ['hw_disk_bus', 'os_command_line'],
                      group='api')
    image_props.apply_checked(conf, IMAGE, {'hw_os_command_line': 'quiet'})
    with pytest.raises(image_props.ImagePropertyOverrideForbidden):
        image_props.apply_checked(conf, IMAGE, {'hw_architecture': 'i686'})


def test_accepted_overrides_are_reapplied_without_the_user_checks():
    # A rebuild re-applies what create accepted, whatever the lists say now.
    result = image_props.apply_accepted(IMAGE, {'img_signature': 'abc', 'hw_disk_bus': 'ide'})
    assert result.image['properties']['img_signature'] == 'abc'
    assert result.props.hw_disk_bus == 'ide'
