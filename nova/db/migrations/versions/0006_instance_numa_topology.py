"""Instances keep the NUMA topology their compute host placed them with (one JSON object)."""

import sqlalchemy as sa
from alembic import op

revision = '0006_instance_numa_topology'
down_revision = '0005_instance_network_info'
branch_labels = None
depends_on = None


def upgrade():
    for table in ('instances', 'shadow_instances'):
        op.add_column(table, sa.Column('numa_topology', sa.Text(), nullable=True))


def downgrade():
    for table in ('shadow_instances', 'instances'):
        with op.batch_alter_table(table) as batch:
            batch.drop_column('numa_topology')
