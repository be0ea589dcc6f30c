"""Nova-style compute service: an OpenStack Compute API v2.1 with a libvirt driver."""

# oslo.messaging imports oslo.service, whose default backend is eventlet. We
# use threads only, so select the threading backend before anything imports it.
import warnings

# futurist and oslo.utils probe for eventlet at import time (oslo.service
# depends on it); we never use it, so its deprecation notice is noise.
warnings.filterwarnings('ignore', message=r'\s*Eventlet is deprecated')
warnings.filterwarnings('ignore', message='eventletutils module is deprecated')

from oslo_service import backend as _oslo_service_backend  # noqa: E402

try:
    _oslo_service_backend.init_backend(_oslo_service_backend.BackendType.THREADING)
except _oslo_service_backend.exceptions.BackendAlreadySelected:
    pass
