"""Compute manager: rescue and unrescue, rolled back to a usable state on failure."""

import datetime
import logging

import oslo_messaging as messaging
from oslo_utils import timeutils

from nova import context as nova_context
from nova import exception, failpoint
from nova import vm_states as vs
from nova.compute import actions, block_device, manager_core
from nova.notifications import action as notify
from nova.objects import image_meta as image_meta_obj
from nova.objects import instance as instance_obj

LOG = logging.getLogger(__name__)


class RescueManager:
    """Rescue and unrescue, and the unrescue of rescues left past [DEFAULT] rescue_timeout."""

    target = manager_core.RPC_TARGET

    def __init__(self, core):
        self.core = core
        self.conf = core.conf
        self.conductor_db = core.conductor_db
        self.driver = core.driver
        self.host = core.host

    # An expected refusal: oslo.messaging answers it to the API without
    # logging a traceback on this host.
    @messaging.expected_exceptions(exception.Invalid)
    def validate_rescue(self, context, instance, rescue_image):
        """Raise exception.Invalid when this host cannot do this rescue."""
        check = getattr(self.driver, 'validate_rescue_request', None)
        if check is None:
            return
        # Refusals are nova.exception classes, so they reach the API as 400s.
        try:
            check(instance, image_meta_obj.ImageMeta.from_dict(rescue_image),
                  volume_backed=block_device.is_volume_backed(self.core.bdms(instance.uuid)))
        except exception.Invalid as exc:
            LOG.info('Rescue of %s refused: %s', instance.uuid, exc.format_message())
            raise

    @notify.instance_action('rescue', 'InstanceActionRescuePayload',
                            notify.rescue_extras)
    def rescue_instance(self, context, instance, rescue_image, rescue_password=None):
        with self.core.lock(instance.uuid):
            previous = instance.vm_state
            rescued = False
            try:
                with self.core.event(context, instance.uuid,
                                   'compute_rescue_instance', host=self.host):
                    failpoint.hit('rescue.before_driver')
                    self.driver.rescue(context, instance, None,
                                       image_meta_obj.ImageMeta.from_dict(rescue_image),
                                       rescue_password,
                                       self.core.block_device_info(context, instance))
                    failpoint.hit('rescue.after_driver')
                    rescued = True
                    # The state before the event's end, as upstream's
                    # wrap_instance_event: the server shows RESCUE one
                    # conductor round trip sooner.
                    self.core.set_state(instance, vs.RESCUED,
                                        launched_at=timeutils.utcnow().replace(microsecond=0))
            except Exception as exc:  # noqa: BLE001 - the driver restored the guest.
                if rescued:
                    raise
                LOG.exception('Rescue of %s failed; it keeps its previous state',
                              instance.uuid)
                actions.record_fault(self.conductor_db, instance.uuid, exc, host=self.host)
                self.core.set_state(instance, previous)

    @notify.instance_action('unrescue')
    def unrescue_instance(self, context, instance):
        with self.core.lock(instance.uuid):
            unrescued = False
            try:
                with self.core.event(context, instance.uuid,
                                   'compute_unrescue_instance', host=self.host):
                    self.driver.unrescue(context, instance)
                    failpoint.hit('unrescue.after_driver')
                    unrescued = True
                    self.core.set_state(instance, vs.ACTIVE)   # before the event's end
            except Exception as exc:  # noqa: BLE001 - still rescued, recorded.
                if unrescued:
                    raise
                LOG.exception('Unrescue of %s failed', instance.uuid)
                actions.record_fault(self.conductor_db, instance.uuid, exc, host=self.host)
                self.core.set_state(instance, vs.RESCUED)

    def poll_rescued_instances(self):
        """Unrescue instances rescued longer than [DEFAULT] rescue_timeout."""
        timeout = self.conf.rescue_timeout
        if timeout <= 0:
            return
        ctx = nova_context.get_admin_context()
        cutoff = timeutils.utcnow().replace(tzinfo=None) - datetime.timedelta(seconds=timeout)
        for row in self.conductor_db.instance_get_all({'host': self.host, 'vm_state': vs.RESCUED,
                                                       'task_state': None}):
            if row['launched_at'] and row['launched_at'] <= cutoff:
                try:
                    row = self.conductor_db.instance_update(row['uuid'],
                                                            {'task_state': vs.UNRESCUING},
                                                            expected_task_state=[None])
                except (exception.UnexpectedTaskStateError, exception.InstanceNotFound):
                    continue
                self.conductor_db.action_start(ctx, row['uuid'], 'unrescue')
                self.unrescue_instance(ctx, instance_obj.Instance.from_db(row))
