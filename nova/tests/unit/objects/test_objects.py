"""Object fingerprint test: a field change without a version bump fails here."""

from oslo_versionedobjects import fixture

from nova.objects import image_meta

# Change a hash only together with a VERSION bump (and its "# Version"
# comment) on that object. Print the current hashes with:
#   python -c "from nova.tests.unit.objects import test_objects as t; \
#              print(t.current_hashes())"
OBJECT_DATA = {
    'ImageMeta': '1.0-e281f5c93088b8ef178c07dd0deee2d8',
    'ImageMetaProps': '1.0-07d8cdd4b07c879d976e97c12e699ed2',
}

CHECKED_CLASSES = (image_meta.ImageMeta, image_meta.ImageMetaProps)


def _checker():
    return fixture.ObjectVersionChecker(
        {cls.obj_name(): [cls] for cls in CHECKED_CLASSES})


def current_hashes():
    return _checker().get_hashes()


def test_object_versions():
    expected, actual = _checker().test_hashes(OBJECT_DATA)
    assert expected == actual, (
        'Object fields changed: bump VERSION, add a "# Version" comment, '
        'then update OBJECT_DATA with the new hashes.')


def test_every_checked_object_is_pinned():
    assert set(OBJECT_DATA) == {cls.obj_name() for cls in CHECKED_CLASSES}
