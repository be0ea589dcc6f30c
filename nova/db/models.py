"""SQLAlchemy models: the schema the alembic migrations build."""

from sqlalchemy import (
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import declarative_base

from nova.db import shadow

BASE = declarative_base()


class ServiceRecord(BASE):
    __tablename__ = 'services'
    __table_args__ = (UniqueConstraint('host', 'binary', name='uniq_services0host0binary'),)
    id = Column(Integer, primary_key=True, autoincrement=True)
    uuid = Column(String(36), unique=True)
    host = Column(String(255), nullable=False)
    binary = Column(String(255), nullable=False)
    topic = Column(String(255))
    disabled = Column(Boolean, nullable=False, default=False)
    disabled_reason = Column(String(255))
    forced_down = Column(Boolean, nullable=False, default=False)
    last_seen_up = Column(DateTime)
    # nova.version.SERVICE_VERSION of the code that last heartbeat (nova-status).
    version = Column(Integer)
    created_at = Column(DateTime)
    updated_at = Column(DateTime)


class ComputeNodeRecord(BASE):
    """One hypervisor: capacity, usage and the ratios claims are checked against."""

    __tablename__ = 'compute_nodes'
    id = Column(Integer, primary_key=True, autoincrement=True)
    uuid = Column(String(36), nullable=False, unique=True)
    host = Column(String(255), nullable=False, unique=True)
    hypervisor_hostname = Column(String(255), nullable=False)
    hypervisor_type = Column(String(255))
    hypervisor_version = Column(Integer)
    vcpus = Column(Integer, nullable=False, default=0)
    memory_mb = Column(Integer, nullable=False, default=0)
    local_gb = Column(Integer, nullable=False, default=0)
    vcpus_used = Column(Integer, nullable=False, default=0)
    memory_mb_used = Column(Integer, nullable=False, default=0)
    local_gb_used = Column(Integer, nullable=False, default=0)
    cpu_allocation_ratio = Column(Float, nullable=False, default=4.0)
    ram_allocation_ratio = Column(Float, nullable=False, default=1.0)
    disk_allocation_ratio = Column(Float, nullable=False, default=1.0)
    reserved_memory_mb = Column(Integer, nullable=False, default=0)
    reserved_disk_mb = Column(Integer, nullable=False, default=0)
    capabilities = Column(Text)
    created_at = Column(DateTime)
    updated_at = Column(DateTime)


class FlavorRecord(BASE):
    __tablename__ = 'flavors'
    id = Column(Integer, primary_key=True, autoincrement=True)
    flavorid = Column(String(255), nullable=False, unique=True)
    name = Column(String(255), nullable=False, unique=True)
    vcpus = Column(Integer, nullable=False)
    memory_mb = Column(Integer, nullable=False)
    root_gb = Column(Integer, nullable=False, default=0)
    ephemeral_gb = Column(Integer, nullable=False, default=0)
    swap = Column(Integer, nullable=False, default=0)
    rxtx_factor = Column(Float, nullable=False, default=1.0)
    is_public = Column(Boolean, nullable=False, default=True)
    disabled = Column(Boolean, nullable=False, default=False)
    description = Column(Text)
    extra_specs = Column(Text, nullable=False, default='{}')
    created_at = Column(DateTime)
    updated_at = Column(DateTime)


class InstanceRecord(BASE):
    """A server; small dict-like attributes are JSON text so a list is one query."""

    __tablename__ = 'instances'
    __table_args__ = (
        Index('instances_project_id_deleted_idx', 'project_id', 'deleted', 'created_at'),
        Index('instances_host_deleted_idx', 'host', 'deleted'),
    )
    id = Column(Integer, primary_key=True, autoincrement=True)
    uuid = Column(String(36), nullable=False, unique=True)
    name = Column(String(255))
    project_id = Column(String(255))
    user_id = Column(String(255))
    display_name = Column(String(255))
    display_description = Column(Text)
    hostname = Column(String(255))
    host = Column(String(255))
    node = Column(String(255))
    vm_state = Column(String(255))
    task_state = Column(String(255))
    power_state = Column(Integer, nullable=False, default=0)
    image_ref = Column(String(255))
    kernel_id = Column(String(255))
    ramdisk_id = Column(String(255))
    flavor = Column(Text)
    vcpus = Column(Integer)
    memory_mb = Column(Integer)
    root_gb = Column(Integer)
    ephemeral_gb = Column(Integer)
    key_name = Column(String(255))
    # The key pair as it was at boot ({name, type, public_key}); the key pair
    # itself may be deleted later, the guest keeps what it was given.
    key_data = Column(Text)
    user_data = Column(Text)
    config_drive = Column(String(255))
    availability_zone = Column(String(255))
    access_ip_v4 = Column(String(39))
    access_ip_v6 = Column(String(39))
    root_device_name = Column(String(255))
    launch_index = Column(Integer, nullable=False, default=0)
    reservation_id = Column(String(255))
    progress = Column(Integer, nullable=False, default=0)
    locked = Column(Boolean, nullable=False, default=False)
    locked_by = Column(String(255))
    locked_reason = Column(Text)
    metadata_ = Column('metadata', Text, nullable=False, default='{}')
    system_metadata = Column(Text, nullable=False, default='{}')
    tags = Column(Text, nullable=False, default='[]')
    image_props_override = Column(Text)
    # JSON list: the network info cache (one entry per port), upstream's format.
    network_info = Column(Text)
    # JSON object: the guest NUMA cells as the compute host placed them (topology API).
    numa_topology = Column(Text)
    # JSON list: the tagged devices as the guest sees them (meta_data.json "devices").
    device_metadata = Column(Text)
    launched_at = Column(DateTime)
    terminated_at = Column(DateTime)
    created_at = Column(DateTime, nullable=False)
    updated_at = Column(DateTime)
    deleted_at = Column(DateTime)
    deleted = Column(Integer, nullable=False, default=0)


class InstanceFaultRecord(BASE):
    __tablename__ = 'instance_faults'
    id = Column(Integer, primary_key=True, autoincrement=True)
    instance_uuid = Column(String(36), ForeignKey('instances.uuid'), nullable=False, index=True)
    code = Column(Integer, nullable=False)
    message = Column(String(255))
    details = Column(Text)
    host = Column(String(255))
    created_at = Column(DateTime, nullable=False)


class InstanceActionRecord(BASE):
    __tablename__ = 'instance_actions'
    id = Column(Integer, primary_key=True, autoincrement=True)
    instance_uuid = Column(String(36), ForeignKey('instances.uuid'), nullable=False, index=True)
    action = Column(String(255), nullable=False)
    request_id = Column(String(255), index=True)
    user_id = Column(String(255))
    project_id = Column(String(255))
    message = Column(String(255))
    start_time = Column(DateTime)
    finish_time = Column(DateTime)
    created_at = Column(DateTime)
    updated_at = Column(DateTime)


class InstanceActionEventRecord(BASE):
    __tablename__ = 'instance_actions_events'
    id = Column(Integer, primary_key=True, autoincrement=True)
    action_id = Column(Integer, ForeignKey('instance_actions.id'), nullable=False, index=True)
    event = Column(String(255), nullable=False)
    result = Column(String(255))
    traceback = Column(Text)
    host = Column(String(255))
    details = Column(Text)
    start_time = Column(DateTime)
    finish_time = Column(DateTime)


class BlockDeviceMappingRecord(BASE):
    __tablename__ = 'block_device_mapping'
    id = Column(Integer, primary_key=True, autoincrement=True)
    uuid = Column(String(36), nullable=False, unique=True)
    instance_uuid = Column(String(36), ForeignKey('instances.uuid'), nullable=False, index=True)
    source_type = Column(String(255), nullable=False)
    destination_type = Column(String(255), nullable=False)
    device_name = Column(String(255))
    device_type = Column(String(255))
    disk_bus = Column(String(255))
    boot_index = Column(Integer)
    delete_on_termination = Column(Boolean, nullable=False, default=False)
    guest_format = Column(String(255))
    image_id = Column(String(36))
    volume_id = Column(String(36))
    snapshot_id = Column(String(36))
    volume_size = Column(Integer)
    volume_type = Column(String(255))
    attachment_id = Column(String(36))
    connection_info = Column(Text)
    tag = Column(String(255))
    created_at = Column(DateTime)
    updated_at = Column(DateTime)


class KeyPairRecord(BASE):
    """An SSH or x509 public key owned by one user; names are unique per user."""

    __tablename__ = 'key_pairs'
    __table_args__ = (UniqueConstraint('user_id', 'name', name='uniq_key_pairs0user_id0name'),)
    id = Column(Integer, primary_key=True, autoincrement=True)
    name = Column(String(255), nullable=False)
    user_id = Column(String(255), nullable=False)
    fingerprint = Column(String(255))
    public_key = Column(Text)
    type = Column(String(16), nullable=False, default='ssh')
    created_at = Column(DateTime)
    updated_at = Column(DateTime)


class FlavorProjectRecord(BASE):
    """A project allowed to use a private flavor."""

    __tablename__ = 'flavor_projects'
    __table_args__ = (UniqueConstraint('flavor_id', 'project_id',
                                       name='uniq_flavor_projects0flavor_id0project_id'),)
    id = Column(Integer, primary_key=True, autoincrement=True)
    flavor_id = Column(Integer, ForeignKey('flavors.id', ondelete='CASCADE'), nullable=False)
    project_id = Column(String(255), nullable=False)
    created_at = Column(DateTime)


class AggregateRecord(BASE):
    """A named group of hosts; availability_zone metadata makes it a zone."""

    __tablename__ = 'aggregates'
    id = Column(Integer, primary_key=True, autoincrement=True)
    uuid = Column(String(36), nullable=False, unique=True)
    name = Column(String(255), nullable=False, unique=True)
    created_at = Column(DateTime)
    updated_at = Column(DateTime)


class AggregateHostRecord(BASE):
    __tablename__ = 'aggregate_hosts'
    __table_args__ = (UniqueConstraint('host', 'aggregate_id',
                                       name='uniq_aggregate_hosts0host0aggregate_id'),)
    id = Column(Integer, primary_key=True, autoincrement=True)
    host = Column(String(255), nullable=False)
    aggregate_id = Column(Integer, ForeignKey('aggregates.id', ondelete='CASCADE'),
                          nullable=False, index=True)
    created_at = Column(DateTime)


class AggregateMetadataRecord(BASE):
    __tablename__ = 'aggregate_metadata'
    __table_args__ = (UniqueConstraint('aggregate_id', 'key',
                                       name='uniq_aggregate_metadata0aggregate_id0key'),)
    id = Column(Integer, primary_key=True, autoincrement=True)
    aggregate_id = Column(Integer, ForeignKey('aggregates.id', ondelete='CASCADE'),
                          nullable=False, index=True)
    key = Column(String(255), nullable=False)
    value = Column(String(255), nullable=False)
    created_at = Column(DateTime)


class QuotaRecord(BASE):
    """A project's own limit for one resource (absent: the class default applies)."""

    __tablename__ = 'quotas'
    __table_args__ = (UniqueConstraint('project_id', 'resource',
                                       name='uniq_quotas0project_id0resource'),)
    id = Column(Integer, primary_key=True, autoincrement=True)
    project_id = Column(String(255), nullable=False)
    resource = Column(String(255), nullable=False)
    hard_limit = Column(Integer, nullable=False)
    created_at = Column(DateTime)
    updated_at = Column(DateTime)


class ProjectUserQuotaRecord(BASE):
    """One user's limit inside a project (absent: the project's limit applies)."""

    __tablename__ = 'project_user_quotas'
    __table_args__ = (UniqueConstraint('project_id', 'user_id', 'resource',
                                       name='uniq_project_user_quotas0project0user0resource'),)
    id = Column(Integer, primary_key=True, autoincrement=True)
    project_id = Column(String(255), nullable=False)
    user_id = Column(String(255), nullable=False)
    resource = Column(String(255), nullable=False)
    hard_limit = Column(Integer, nullable=False)
    created_at = Column(DateTime)
    updated_at = Column(DateTime)


class QuotaClassRecord(BASE):
    """A quota class's limit; the "default" class overrides the configured defaults."""

    __tablename__ = 'quota_classes'
    __table_args__ = (UniqueConstraint('class_name', 'resource',
                                       name='uniq_quota_classes0class_name0resource'),)
    id = Column(Integer, primary_key=True, autoincrement=True)
    class_name = Column(String(255), nullable=False)
    resource = Column(String(255), nullable=False)
    hard_limit = Column(Integer, nullable=False)
    created_at = Column(DateTime)
    updated_at = Column(DateTime)


class QuotaLockRecord(BASE):
    """One row per project, locked (FOR UPDATE) while a quota check and its insert run."""

    __tablename__ = 'quota_locks'
    project_id = Column(String(255), primary_key=True)


class InstanceGroupRecord(BASE):
    """A server group; its policy and rules live in instance_group_policy."""

    __tablename__ = 'instance_groups'
    __table_args__ = (Index('instance_groups_project_id_idx', 'project_id'),)
    id = Column(Integer, primary_key=True, autoincrement=True)
    uuid = Column(String(36), nullable=False, unique=True)
    name = Column(String(255))
    project_id = Column(String(255))
    user_id = Column(String(255))
    created_at = Column(DateTime)
    updated_at = Column(DateTime)


class InstanceGroupPolicyRecord(BASE):
    __tablename__ = 'instance_group_policy'
    id = Column(Integer, primary_key=True, autoincrement=True)
    group_id = Column(Integer, ForeignKey('instance_groups.id', ondelete='CASCADE'),
                      nullable=False, index=True)
    policy = Column(String(255), nullable=False)
    rules = Column(Text)


class InstanceGroupMemberRecord(BASE):
    __tablename__ = 'instance_group_member'
    __table_args__ = (UniqueConstraint('group_id', 'instance_uuid',
                                       name='uniq_instance_group_member0group0instance'),)
    id = Column(Integer, primary_key=True, autoincrement=True)
    group_id = Column(Integer, ForeignKey('instance_groups.id', ondelete='CASCADE'),
                      nullable=False, index=True)
    instance_uuid = Column(String(36), nullable=False, index=True)
    created_at = Column(DateTime)


class ConsoleAuthTokenRecord(BASE):
    """A console URL's token (only its hash is kept), bound to one guest console."""

    __tablename__ = 'console_auth_tokens'
    __table_args__ = (
        UniqueConstraint('token_hash', name='uniq_console_auth_tokens0token_hash'),
        Index('console_auth_tokens_instance_uuid_idx', 'instance_uuid'),
        Index('console_auth_tokens_expires_idx', 'expires'),
    )
    id = Column(Integer, primary_key=True, autoincrement=True)
    token_hash = Column(String(255), nullable=False)
    console_type = Column(String(255), nullable=False)
    host = Column(String(255), nullable=False)
    port = Column(Integer, nullable=False)
    tls_port = Column(Integer)          # SPICE with TLS only
    internal_access_path = Column(String(255))
    instance_uuid = Column(String(36), nullable=False)
    access_url_base = Column(String(255))
    expires = Column(Integer, nullable=False)
    created_at = Column(DateTime)
    updated_at = Column(DateTime)


class MigrationRecord(BASE):
    """A resize or migration of one instance (upstream's migrations table, flavors inline)."""

    __tablename__ = 'migrations'
    __table_args__ = (Index('migrations_instance_uuid_and_status_idx', 'deleted',
                            'instance_uuid', 'status'),)
    id = Column(Integer, primary_key=True, autoincrement=True)
    uuid = Column(String(36), nullable=False, unique=True)
    instance_uuid = Column(String(36), nullable=False)
    source_compute = Column(String(255))
    dest_compute = Column(String(255))
    source_node = Column(String(255))
    dest_node = Column(String(255))
    dest_host = Column(String(255))
    status = Column(String(255))
    migration_type = Column(String(255))
    hidden = Column(Boolean, nullable=False, default=False)
    old_instance_type_id = Column(Integer)
    new_instance_type_id = Column(Integer)
    # The flavors themselves (JSON): a revert needs the old one even if deleted since.
    old_flavor = Column(Text)
    new_flavor = Column(Text)
    user_id = Column(String(255))
    project_id = Column(String(255))
    created_at = Column(DateTime)
    updated_at = Column(DateTime)
    deleted_at = Column(DateTime)
    deleted = Column(Integer, nullable=False, default=0)


# {name: (table, its shadow_ table)} for the tables archived with a deleted
# instance; the shadow tables join BASE.metadata, which the migrations build.
SHADOW_TABLES = shadow.add_shadow_tables(BASE.metadata)
