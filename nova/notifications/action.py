"""The compute manager's notification decorator: start, then end or error, per action."""

import contextvars
import functools
import inspect
import logging

from oslo_utils import timeutils

from nova import exception
from nova.notifications import notifier as notifier_mod
from nova.objects import instance as instance_obj

LOG = logging.getLogger(__name__)

# The failure a decorated method recorded as a fault (it does not re-raise).
_FAULT = contextvars.ContextVar('nova_notification_fault', default=None)

# power_action(action=...) -> the event upstream names it.
POWER_EVENTS = {'stop': 'power_off', 'start': 'power_on', 'reboot_soft': 'reboot',
                'reboot_hard': 'reboot', 'pause': 'pause', 'unpause': 'unpause',
                'suspend': 'suspend', 'resume': 'resume'}


def fault_recorded(exc):
    """Called where a fault is stored: the running action ends in ``.error``."""
    box = _FAULT.get()
    if box is not None and not box:
        box.append(exc)


def power_event(args):
    return POWER_EVENTS[args['action']]


def rescue_extras(core, args):
    image = args.get('rescue_image') or {}
    return {'rescue_image_ref': image.get('id')}


def snapshot_extras(core, args):
    return {'snapshot_image_id': args['image_id']}


def volume_extras(core, args):
    if args.get('volume_id'):
        return {'volume_id': args['volume_id']}
    bdm = next((b for b in core.bdms(args['instance'].uuid)
                if b['uuid'] == args.get('bdm_uuid')), None)
    return {'volume_id': bdm['volume_id'] if bdm else None}


def _current(core, instance, deleted):
    """The instance as it is now (a delete leaves a soft-deleted row)."""
    try:
        return instance_obj.Instance.from_db(
            core.conductor_db.instance_get(instance.uuid, read_deleted=deleted))
    except exception.InstanceNotFound:
        # Gone for good: report it as deleted, as upstream's delete.end does.
        now = timeutils.utcnow()
        gone = instance.obj_clone()
        for key, value in dict(vm_state='deleted', task_state=None, power_state=0,
                               terminated_at=now, deleted_at=now).items():
            setattr(gone, key, value)
        return gone
    except Exception:  # noqa: BLE001 - report what we know.
        LOG.exception('Could not reload instance %s for its notification', instance.uuid)
        return instance


def instance_action(event, kind='InstanceActionPayload', extras=None):
    """Decorate a method ``(self, context, instance, ...)`` of a compute manager family.

    The family holds the manager's shared core as ``self.core``
    (``nova.compute.manager_core``): the notifier comes from its conf and
    host, the instance and its mappings are read through its conductor proxy.
    ``event`` is the upstream event name (or a function of the call's
    arguments), ``kind`` the payload class and ``extras(core, args)`` its
    own fields. A failure the method records as a fault (or raises) makes
    the last notification ``instance.<event>.error`` with the exception.
    """
    def decorate(fn):
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def wrapper(self, context, instance, *args, **kwargs):
            core = self.core
            notifier = notifier_mod.get(core.conf, core.host)
            if not notifier.enabled:
                return fn(self, context, instance, *args, **kwargs)
            call = signature.bind(self, context, instance, *args, **kwargs).arguments
            name = event(call) if callable(event) else event
            extra = extras(core, call) if extras else {}
            bdms = (lambda: core.bdms(instance.uuid)) if notifier.bdms_in_notifications \
                else (lambda: None)
            notifier.instance_action(context, name, 'start', instance, kind, bdms=bdms(),
                                     **extra)
            box = []
            token = _FAULT.set(box)
            try:
                result = fn(self, context, instance, *args, **kwargs)
            except Exception as exc:
                notifier.instance_action(context, name, 'error',
                                         _current(core, instance, name == 'delete'),
                                         kind, fault=exc, bdms=bdms(), **extra)
                raise
            finally:
                _FAULT.reset(token)
            now = _current(core, instance, name == 'delete')
            if box:
                notifier.instance_action(context, name, 'error', now, kind, fault=box[0],
                                         bdms=bdms(), **extra)
            else:
                notifier.instance_action(context, name, 'end', now, kind, bdms=bdms(),
                                         **extra)
            return result
        return wrapper
    return decorate
