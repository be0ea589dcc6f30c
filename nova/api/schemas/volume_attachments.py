"""Request schemas of /servers/{id}/os-volume_attachments."""

import copy

from nova.api.schemas import types

attach_v2_1 = {
    'type': 'object',
    'properties': {'volumeAttachment': {
        'type': 'object',
        'properties': {'volumeId': types.uuid,
                       'device': {'type': ['string', 'null'],
                                  'pattern': '(^/dev/x{0,1}[a-z]{0,1}d{0,1})([a-z]+)[0-9]*$'}},
        'required': ['volumeId'], 'additionalProperties': False}},
    'required': ['volumeAttachment'], 'additionalProperties': False,
}
# 2.49: tag.
attach_v2_49 = copy.deepcopy(attach_v2_1)
attach_v2_49['properties']['volumeAttachment']['properties']['tag'] = types.tag
# 2.79: delete_on_termination.
attach_v2_79 = copy.deepcopy(attach_v2_49)
attach_v2_79['properties']['volumeAttachment']['properties'][
    'delete_on_termination'] = {'type': 'boolean'}

# The update body before 2.85 (a swap): the new volume only.
update_v2_1 = copy.deepcopy(attach_v2_1)
del update_v2_1['properties']['volumeAttachment']['properties']['device']

# 2.85: the update body; every shown field may be sent back, only
# delete_on_termination changes.
update_v2_85 = copy.deepcopy(attach_v2_79)
del update_v2_85['properties']['volumeAttachment']['properties']['tag']
update_v2_85['properties']['volumeAttachment']['properties'].update(
    {'id': {}, 'serverId': {}, 'device': {}, 'tag': {}})
