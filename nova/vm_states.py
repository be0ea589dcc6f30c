"""Instance vm_state and task_state values (upstream's strings)."""

ACTIVE = 'active'
BUILDING = 'building'
PAUSED = 'paused'
SUSPENDED = 'suspended'
STOPPED = 'stopped'
RESCUED = 'rescued'
RESIZED = 'resized'
SOFT_DELETED = 'soft-delete'
DELETED = 'deleted'
ERROR = 'error'
SHELVED = 'shelved'
SHELVED_OFFLOADED = 'shelved_offloaded'

# task states
SCHEDULING = 'scheduling'
BLOCK_DEVICE_MAPPING = 'block_device_mapping'
NETWORKING = 'networking'
SPAWNING = 'spawning'
DELETING = 'deleting'
POWERING_OFF = 'powering-off'
POWERING_ON = 'powering-on'
REBOOTING = 'rebooting'
REBOOTING_HARD = 'rebooting_hard'
RESCUING = 'rescuing'
UNRESCUING = 'unrescuing'
SOFT_DELETING = 'soft-deleting'
RESTORING = 'restoring'
IMAGE_BACKUP = 'image_backup'

# status (API) -> vm_state filter values
STATUS_TO_VM_STATES = {
    'ACTIVE': [ACTIVE], 'BUILD': [BUILDING], 'SHUTOFF': [STOPPED], 'PAUSED': [PAUSED],
    'SUSPENDED': [SUSPENDED], 'RESCUE': [RESCUED], 'ERROR': [ERROR], 'DELETED': [DELETED],
    'SOFT_DELETED': [SOFT_DELETED], 'SHELVED': [SHELVED],
    'SHELVED_OFFLOADED': [SHELVED_OFFLOADED], 'VERIFY_RESIZE': [RESIZED],
    'REBOOT': [ACTIVE], 'HARD_REBOOT': [ACTIVE], 'REBUILD': [ACTIVE, STOPPED, ERROR],
    'RESIZE': [ACTIVE, STOPPED], 'MIGRATING': [ACTIVE, PAUSED], 'PASSWORD': [ACTIVE],
    'REVERT_RESIZE': [RESIZED],
}
