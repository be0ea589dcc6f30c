"""Nova-style compute service: an OpenStack Compute API v2.1 with a libvirt driver."""

# oslo.messaging imports oslo.service, whose default backend is eventlet. We
# use threads only, so select the threading backend before anything imports it.
from oslo_service import backend as _oslo_service_backend

try:
    _oslo_service_backend.init_backend(_oslo_service_backend.BackendType.THREADING)
except _oslo_service_backend.exceptions.BackendAlreadySelected:
    pass
