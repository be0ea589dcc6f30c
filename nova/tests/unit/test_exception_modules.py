"""The exceptions defined outside nova/exception.py are its own, also across RPC."""

import subprocess
import sys

import pytest
from oslo_messaging._drivers import common as rpc_common

from nova import exception, exception_network, rpc


def _network_classes():
    return [cls for cls in vars(exception_network).values()
            if isinstance(cls, type) and issubclass(cls, exception.NovaException)
            and cls.__name__ not in ('Conflict', 'Forbidden', 'Invalid', 'NotFound',
                                     'NovaException', 'QuotaError')]


def test_every_network_exception_is_a_name_of_nova_exception():
    classes = _network_classes()
    assert len(classes) > 50
    for cls in classes:
        assert cls.__module__ == 'nova.exception'
        assert getattr(exception, cls.__name__) is cls


@pytest.mark.parametrize('exc', [exception.PortNotFound(port_id='p-1'),
                                 exception.Invalid(reason='no free name on the rescue bus')],
                         ids=['network', 'base'])
def test_an_exception_raised_by_a_host_reaches_the_caller_as_itself(exc):
    try:
        raise exc
    except exception.NovaException:
        wire = rpc_common.serialize_remote_exception(sys.exc_info())
    back = rpc_common.deserialize_remote_exception(wire, rpc.ALLOWED_EXMODS)
    assert isinstance(back, type(exc)) and back.code == exc.code
    assert str(back).startswith(str(exc)) and type(exc).__module__ == 'nova.exception'


def test_either_module_may_be_imported_first():
    code = ('import nova.exception_network; from nova import exception; '
            'print(exception.FloatingIpNotFound.__module__, exception.Invalid.code)')
    out = subprocess.run([sys.executable, '-c', code], check=True, capture_output=True,
                         text=True).stdout.split()
    assert out == ['nova.exception', '400']
