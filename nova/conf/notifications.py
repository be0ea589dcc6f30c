"""[notifications] options: which notification formats are emitted and where."""

from oslo_config import cfg

_HELP = ('Instance actions emit notifications through oslo.messaging; the transport '
         'and driver are set in [oslo_messaging_notifications] (no driver: none are sent).')
group = cfg.OptGroup('notifications', title='Notifications options', help=_HELP)

opts = [
    cfg.StrOpt('notification_format', default='unversioned',
               choices=[('both', 'legacy unversioned and versioned notifications'),
                        ('versioned', 'only versioned notifications'),
                        ('unversioned', 'only legacy unversioned notifications')],
               help='Which notification format is emitted. Versioned notifications go '
                    'to versioned_notifications_topics, legacy ones to '
                    '[oslo_messaging_notifications] topics.'),
    cfg.ListOpt('versioned_notifications_topics', default=['versioned_notifications'],
                help='Topics the versioned notifications are sent to.'),
    cfg.BoolOpt('bdms_in_notifications', default=False,
                help='Include the volumes of an instance (block_devices) in the '
                     'versioned notification payloads; costs one query per notification.'),
]


def register_opts(conf):
    # A group object per ConfigOpts: a shared one would share overrides too.
    conf.register_group(cfg.OptGroup('notifications', title=group.title, help=_HELP))
    conf.register_opts(opts, group='notifications')


def list_opts():
    return {group: opts}
