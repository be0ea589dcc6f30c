"""oslo.messaging notifiers for the legacy and the versioned formats of one service."""

import logging
import threading
import weakref

import oslo_messaging as messaging

from nova.notifications import payloads

LOG = logging.getLogger(__name__)

# Legacy event names that differ from the versioned ones (upstream's).
_LEGACY_NAMES = {'volume_attach': 'volume.attach', 'volume_detach': 'volume.detach'}


class Notifier:
    """Sends instance-action notifications in the configured format(s)."""

    def __init__(self, conf, host, binary='nova-compute'):
        self.host = host
        drivers = [d for d in conf.oslo_messaging_notifications.driver if d != 'noop']
        fmt = conf.notifications.notification_format
        self.send_legacy = bool(drivers) and fmt in ('unversioned', 'both')
        self.send_versioned = bool(drivers) and fmt in ('versioned', 'both')
        self.versioned_topics = list(conf.notifications.versioned_notifications_topics)
        self.bdms_in_notifications = conf.notifications.bdms_in_notifications
        self.transport = None
        if not self.enabled:
            return
        self.transport = messaging.get_notification_transport(conf)
        self.legacy = messaging.Notifier(
            self.transport, publisher_id='%s.%s' % (binary.split('-')[-1], host),
            driver=None if self.send_legacy else 'noop')
        self.versioned = messaging.Notifier(
            self.transport, publisher_id='%s:%s' % (binary, host),
            topics=self.versioned_topics, driver=None if self.send_versioned else 'noop')

    @property
    def enabled(self):
        return self.send_legacy or self.send_versioned

    def instance_action(self, context, event, phase, instance, kind='InstanceActionPayload',
                        fault=None, bdms=None, **extra):
        """instance.<event>.<phase> (versioned) and compute.instance.<event>.<phase>."""
        ctx = context.to_dict() if hasattr(context, 'to_dict') else {}
        priority = 'error' if phase == 'error' else 'info'
        try:
            if self.send_versioned:
                payload = payloads.action(context, instance, kind, fault=fault, bdms=bdms,
                                          **extra)
                getattr(self.versioned, priority)(
                    ctx, 'instance.%s.%s' % (event, phase), payload)
            if self.send_legacy:
                legacy = payloads.legacy(context, instance, fault=fault, **extra)
                getattr(self.legacy, priority)(
                    ctx, 'compute.instance.%s.%s' % (_LEGACY_NAMES.get(event, event), phase),
                    legacy)
        except Exception:  # noqa: BLE001 - a notification must never fail the action.
            LOG.exception('Could not send the %s.%s notification', event, phase)

    def cleanup(self):
        if self.transport is not None:
            self.transport.cleanup()
            self.transport = None


_NOTIFIERS = {}
_GUARD = threading.Lock()


def get(conf, host, binary='nova-compute'):
    """One notifier per (configuration, host, binary), built on first use."""
    key = (id(conf), host, binary)
    with _GUARD:
        ref, notifier = _NOTIFIERS.get(key, (None, None))
        # A freed ConfigOpts' id can be reused by a new one: check identity.
        if ref is None or ref() is not conf:
            notifier = Notifier(conf, host, binary)
            _NOTIFIERS[key] = (weakref.ref(conf), notifier)
        return notifier


def cleanup(conf):
    """Close the notification transports built for ``conf``."""
    with _GUARD:
        for key in [k for k in _NOTIFIERS if k[0] == id(conf)]:
            _NOTIFIERS.pop(key)[1].cleanup()
