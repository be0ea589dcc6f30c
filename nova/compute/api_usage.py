"""Compute API: simple tenant usage and the instance usage audit log."""

import collections
import datetime

from oslo_utils import timeutils

from nova import vm_states as vs


def hours_for(instance, start, stop):
    """Hours of ``instance`` inside [start, stop], as upstream bills them."""
    launched, terminated = instance['launched_at'], instance['terminated_at']
    if launched is None or launched > stop or (terminated and terminated < start):
        return 0
    end = min(stop, terminated) if terminated else stop
    return (end - max(launched, start)).total_seconds() / 3600.0


def _server_usage(instance, start, stop, now):
    flavor = instance['flavor'] or {}
    ended = instance['terminated_at']
    state = 'terminated' if ended else instance['vm_state']
    if instance['vm_state'] == vs.DELETED and not ended:
        state = 'terminated'
    uptime = ((ended or now) - instance['launched_at']).total_seconds()
    return {
        'instance_id': instance['uuid'], 'name': instance['display_name'],
        'tenant_id': instance['project_id'], 'hours': hours_for(instance, start, stop),
        'flavor': flavor.get('name', ''), 'memory_mb': flavor.get('memory_mb', 0),
        'local_gb': flavor.get('root_gb', 0) + flavor.get('ephemeral_gb', 0),
        'vcpus': flavor.get('vcpus', 0), 'started_at': instance['launched_at'],
        'ended_at': ended, 'state': state, 'uptime': int(uptime),
    }


def last_completed_audit_period(before=None):
    """(begin, end) of the last whole month before ``before``, upstream's default unit."""
    before = before or timeutils.utcnow()
    end = datetime.datetime(before.year, before.month, 1)
    previous = end - datetime.timedelta(days=1)
    return datetime.datetime(previous.year, previous.month, 1), end


class UsageAPI:
    """os-simple-tenant-usage and os-instance_usage_audit_log."""

    def __init__(self, db):
        self._db = db

    def tenant_usages(self, context, start, stop, project_id=None, detailed=False,
                      limit=None, marker=None):
        """([per-project summary], [server usage]) for the window, oldest servers first."""
        rows = self._db.instances_active_in_window(start, stop, project_id=project_id,
                                                   limit=limit, marker=marker)
        now = timeutils.utcnow()
        summaries = collections.OrderedDict()
        servers = []
        for row in rows:
            usage = _server_usage(row, start, stop, now)
            servers.append(usage)
            summary = summaries.setdefault(usage['tenant_id'], {
                'tenant_id': usage['tenant_id'], 'total_local_gb_usage': 0,
                'total_vcpus_usage': 0, 'total_memory_mb_usage': 0, 'total_hours': 0,
                'start': start, 'stop': stop})
            summary['total_local_gb_usage'] += usage['local_gb'] * usage['hours']
            summary['total_vcpus_usage'] += usage['vcpus'] * usage['hours']
            summary['total_memory_mb_usage'] += usage['memory_mb'] * usage['hours']
            summary['total_hours'] += usage['hours']
            if detailed:
                summary.setdefault('server_usages', []).append(usage)
        return list(summaries.values()), servers

    def usage_audit_log(self, context, before=None):
        """The audit of the last completed period. This service runs no usage audit
        task, so every compute host is reported as not run, as upstream does then."""
        begin, end = last_completed_audit_period(before)
        hosts = sorted({s['host'] for s in self._db.service_get_all(binary='nova-compute')})
        return {
            'period_beginning': str(begin), 'period_ending': str(end),
            'num_hosts': len(hosts), 'num_hosts_done': 0, 'num_hosts_running': 0,
            'num_hosts_not_run': len(hosts), 'hosts_not_run': hosts,
            'total_instances': 0, 'total_errors': 0,
            'overall_status': '%s hosts done. 0 errors.' % (
                'ALL' if not hosts else '0 of %d' % len(hosts)),
            'log': {},
        }
