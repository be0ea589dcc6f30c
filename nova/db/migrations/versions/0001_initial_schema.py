"""Initial schema: services, compute nodes, flavors, instances, actions, faults, BDMs."""

import sqlalchemy as sa
from alembic import op

revision = '0001_initial'
down_revision = None
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('compute_nodes',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('host', sa.String(length=255), nullable=False),
    sa.Column('hypervisor_hostname', sa.String(length=255), nullable=False),
    sa.Column('hypervisor_type', sa.String(length=255), nullable=True),
    sa.Column('hypervisor_version', sa.Integer(), nullable=True),
    sa.Column('vcpus', sa.Integer(), nullable=False),
    sa.Column('memory_mb', sa.Integer(), nullable=False),
    sa.Column('local_gb', sa.Integer(), nullable=False),
    sa.Column('vcpus_used', sa.Integer(), nullable=False),
    sa.Column('memory_mb_used', sa.Integer(), nullable=False),
    sa.Column('local_gb_used', sa.Integer(), nullable=False),
    sa.Column('cpu_allocation_ratio', sa.Float(), nullable=False),
    sa.Column('ram_allocation_ratio', sa.Float(), nullable=False),
    sa.Column('disk_allocation_ratio', sa.Float(), nullable=False),
    sa.Column('reserved_memory_mb', sa.Integer(), nullable=False),
    sa.Column('reserved_disk_mb', sa.Integer(), nullable=False),
    sa.Column('capabilities', sa.Text(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('host'),
    sa.UniqueConstraint('uuid')
    )
    op.create_table('flavors',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('flavorid', sa.String(length=255), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=False),
    sa.Column('vcpus', sa.Integer(), nullable=False),
    sa.Column('memory_mb', sa.Integer(), nullable=False),
    sa.Column('root_gb', sa.Integer(), nullable=False),
    sa.Column('ephemeral_gb', sa.Integer(), nullable=False),
    sa.Column('swap', sa.Integer(), nullable=False),
    sa.Column('rxtx_factor', sa.Float(), nullable=False),
    sa.Column('is_public', sa.Boolean(), nullable=False),
    sa.Column('disabled', sa.Boolean(), nullable=False),
    sa.Column('description', sa.Text(), nullable=True),
    sa.Column('extra_specs', sa.Text(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('flavorid'),
    sa.UniqueConstraint('name')
    )
    op.create_table('instances',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=True),
    sa.Column('project_id', sa.String(length=255), nullable=True),
    sa.Column('user_id', sa.String(length=255), nullable=True),
    sa.Column('display_name', sa.String(length=255), nullable=True),
    sa.Column('display_description', sa.Text(), nullable=True),
    sa.Column('hostname', sa.String(length=255), nullable=True),
    sa.Column('host', sa.String(length=255), nullable=True),
    sa.Column('node', sa.String(length=255), nullable=True),
    sa.Column('vm_state', sa.String(length=255), nullable=True),
    sa.Column('task_state', sa.String(length=255), nullable=True),
    sa.Column('power_state', sa.Integer(), nullable=False),
    sa.Column('image_ref', sa.String(length=255), nullable=True),
    sa.Column('kernel_id', sa.String(length=255), nullable=True),
    sa.Column('ramdisk_id', sa.String(length=255), nullable=True),
    sa.Column('flavor', sa.Text(), nullable=True),
    sa.Column('vcpus', sa.Integer(), nullable=True),
    sa.Column('memory_mb', sa.Integer(), nullable=True),
    sa.Column('root_gb', sa.Integer(), nullable=True),
    sa.Column('ephemeral_gb', sa.Integer(), nullable=True),
    sa.Column('key_name', sa.String(length=255), nullable=True),
    sa.Column('user_data', sa.Text(), nullable=True),
    sa.Column('config_drive', sa.String(length=255), nullable=True),
    sa.Column('availability_zone', sa.String(length=255), nullable=True),
    sa.Column('access_ip_v4', sa.String(length=39), nullable=True),
    sa.Column('access_ip_v6', sa.String(length=39), nullable=True),
    sa.Column('root_device_name', sa.String(length=255), nullable=True),
    sa.Column('launch_index', sa.Integer(), nullable=False),
    sa.Column('reservation_id', sa.String(length=255), nullable=True),
    sa.Column('progress', sa.Integer(), nullable=False),
    sa.Column('locked', sa.Boolean(), nullable=False),
    sa.Column('locked_by', sa.String(length=255), nullable=True),
    sa.Column('locked_reason', sa.Text(), nullable=True),
    sa.Column('metadata', sa.Text(), nullable=False),
    sa.Column('system_metadata', sa.Text(), nullable=False),
    sa.Column('tags', sa.Text(), nullable=False),
    sa.Column('image_props_override', sa.Text(), nullable=True),
    sa.Column('launched_at', sa.DateTime(), nullable=True),
    sa.Column('terminated_at', sa.DateTime(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.Column('deleted_at', sa.DateTime(), nullable=True),
    sa.Column('deleted', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('uuid')
    )
    with op.batch_alter_table('instances', schema=None) as batch_op:
        batch_op.create_index('instances_host_deleted_idx', ['host', 'deleted'], unique=False)
        batch_op.create_index('instances_project_id_deleted_idx', ['project_id', 'deleted', 'created_at'], unique=False)

    op.create_table('services',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('host', sa.String(length=255), nullable=False),
    sa.Column('binary', sa.String(length=255), nullable=False),
    sa.Column('topic', sa.String(length=255), nullable=True),
    sa.Column('disabled', sa.Boolean(), nullable=False),
    sa.Column('disabled_reason', sa.String(length=255), nullable=True),
    sa.Column('forced_down', sa.Boolean(), nullable=False),
    sa.Column('last_seen_up', sa.DateTime(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('host', 'binary', name='uniq_services0host0binary')
    )
    op.create_table('block_device_mapping',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('instance_uuid', sa.String(length=36), nullable=False),
    sa.Column('source_type', sa.String(length=255), nullable=False),
    sa.Column('destination_type', sa.String(length=255), nullable=False),
    sa.Column('device_name', sa.String(length=255), nullable=True),
    sa.Column('device_type', sa.String(length=255), nullable=True),
    sa.Column('disk_bus', sa.String(length=255), nullable=True),
    sa.Column('boot_index', sa.Integer(), nullable=True),
    sa.Column('delete_on_termination', sa.Boolean(), nullable=False),
    sa.Column('guest_format', sa.String(length=255), nullable=True),
    sa.Column('image_id', sa.String(length=36), nullable=True),
    sa.Column('volume_id', sa.String(length=36), nullable=True),
    sa.Column('snapshot_id', sa.String(length=36), nullable=True),
    sa.Column('volume_size', sa.Integer(), nullable=True),
    sa.Column('volume_type', sa.String(length=255), nullable=True),
    sa.Column('attachment_id', sa.String(length=36), nullable=True),
    sa.Column('connection_info', sa.Text(), nullable=True),
    sa.Column('tag', sa.String(length=255), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['instance_uuid'], ['instances.uuid'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('uuid')
    )
    with op.batch_alter_table('block_device_mapping', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_block_device_mapping_instance_uuid'), ['instance_uuid'], unique=False)

    op.create_table('instance_actions',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('instance_uuid', sa.String(length=36), nullable=False),
    sa.Column('action', sa.String(length=255), nullable=False),
    sa.Column('request_id', sa.String(length=255), nullable=True),
    sa.Column('user_id', sa.String(length=255), nullable=True),
    sa.Column('project_id', sa.String(length=255), nullable=True),
    sa.Column('message', sa.String(length=255), nullable=True),
    sa.Column('start_time', sa.DateTime(), nullable=True),
    sa.Column('finish_time', sa.DateTime(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['instance_uuid'], ['instances.uuid'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('instance_actions', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_instance_actions_instance_uuid'), ['instance_uuid'], unique=False)
        batch_op.create_index(batch_op.f('ix_instance_actions_request_id'), ['request_id'], unique=False)

    op.create_table('instance_faults',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('instance_uuid', sa.String(length=36), nullable=False),
    sa.Column('code', sa.Integer(), nullable=False),
    sa.Column('message', sa.String(length=255), nullable=True),
    sa.Column('details', sa.Text(), nullable=True),
    sa.Column('host', sa.String(length=255), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['instance_uuid'], ['instances.uuid'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('instance_faults', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_instance_faults_instance_uuid'), ['instance_uuid'], unique=False)

    op.create_table('instance_actions_events',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('action_id', sa.Integer(), nullable=False),
    sa.Column('event', sa.String(length=255), nullable=False),
    sa.Column('result', sa.String(length=255), nullable=True),
    sa.Column('traceback', sa.Text(), nullable=True),
    sa.Column('host', sa.String(length=255), nullable=True),
    sa.Column('details', sa.Text(), nullable=True),
    sa.Column('start_time', sa.DateTime(), nullable=True),
    sa.Column('finish_time', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['action_id'], ['instance_actions.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('instance_actions_events', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_instance_actions_events_action_id'), ['action_id'], unique=False)

