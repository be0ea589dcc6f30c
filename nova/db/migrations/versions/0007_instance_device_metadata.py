"""Instances keep their tagged devices as the guest sees them (the metadata "devices" list)."""

import sqlalchemy as sa
from alembic import op

revision = '0007_instance_device_metadata'
down_revision = '0006_instance_numa_topology'
branch_labels = None
depends_on = None


def upgrade():
    for table in ('instances', 'shadow_instances'):
        op.add_column(table, sa.Column('device_metadata', sa.Text(), nullable=True))


def downgrade():
    for table in ('shadow_instances', 'instances'):
        with op.batch_alter_table(table) as batch:
            batch.drop_column('device_metadata')
