"""Client side of the conductor RPC API."""

import oslo_messaging as messaging

from nova import rpc

TOPIC = 'conductor'


class ConductorAPI:
    """Version history:

    * 1.0 - Initial version: build_instances.
    * 1.1 - unshelve_instance (schedule a shelved-offloaded server again).
    """

    VERSION = '1.1'

    def __init__(self, conf):
        self.client = rpc.get_client(conf, TOPIC, self.VERSION)

    def build_instances(self, context, instances, image, request_spec):
        cctxt = self.client.prepare(version='1.0')
        cctxt.cast(context, 'build_instances', instances=instances, image=image,
                   request_spec=request_spec)

    def unshelve_instance(self, context, instance, request_spec):
        cctxt = self.client.prepare(version='1.1')
        cctxt.cast(context, 'unshelve_instance', instance=instance,
                   request_spec=request_spec)


def target():
    return messaging.Target(topic=TOPIC, version=ConductorAPI.VERSION)
