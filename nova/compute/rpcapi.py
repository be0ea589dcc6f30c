"""Client side of the compute RPC API: calls go to the instance's host."""

from nova import rpc

TOPIC = 'compute'


class ComputeAPI:
    """Version history:

    * 1.0 - Initial version: build_and_run_instance, terminate_instance.
    """

    VERSION = '1.0'

    def __init__(self, conf):
        self.conf = conf
        self.client = rpc.get_client(conf, TOPIC, self.VERSION)

    def _prepare(self, host, version='1.0'):
        return self.client.prepare(server=host, version=version)

    def build_and_run_instance(self, context, instance, host, image, request_spec,
                               admin_password=None):
        self._prepare(host).cast(context, 'build_and_run_instance', instance=instance,
                                 image=image, request_spec=request_spec,
                                 admin_password=admin_password)

    def terminate_instance(self, context, instance, host):
        self._prepare(host).cast(context, 'terminate_instance', instance=instance)
