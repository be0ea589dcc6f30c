"""Every image property and validated extra spec has a row; the docs table is the registry's."""

import os

from nova.compute import extra_specs
from nova.objects import image_meta
from nova.virt import property_registry as reg
from nova.virt import property_table

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__))))))


def test_every_image_property_has_a_row():
    missing = sorted(set(image_meta.ImageMetaProps.fields) - set(reg.BY_KIND['image']))
    assert missing == [], 'give these ImageMetaProps fields a row in property_registry'
    assert sorted(set(reg.BY_KIND['image']) - set(image_meta.ImageMetaProps.fields)) == []


def test_every_validated_extra_spec_has_a_row():
    # The validator's keys and patterns are the registry's, one to one.
    validated = {key for key, _rule in extra_specs._REGISTRY}
    assert sorted(validated - set(reg.BY_KIND['flavor'])) == []
    assert sorted(set(reg.BY_KIND['flavor']) - validated) == []


def test_rows_are_complete():
    for row in reg.ROWS:
        assert row.status in reg.STATUSES, row
        assert row.does, row
        if row.status == reg.HONOURED:
            assert row.tests, '%s is honoured: say how it is tested' % row.name


def test_the_docs_table_is_generated_from_the_registry():
    with open(os.path.join(ROOT, property_table.PAGE)) as f:
        assert f.read() == property_table.render(), 'run tools/gen-property-table.py'


def test_refused_keys_fail_with_their_reason():
    import pytest

    from nova import exception
    with pytest.raises(exception.Invalid, match='accel:device_profile is not supported.*Cyborg'):
        reg.check_refused({'accel:device_profile': 'gpu'}, {})
    with pytest.raises(exception.Invalid, match='quota:memory_limit'):
        reg.check_refused({'quota:memory_limit': '10'}, {})
    reg.check_refused({'hw:cpu_policy': 'dedicated', 'unknown:key': 'x'}, {})
