"""Instances keep their network info cache (one JSON list of ports), as upstream's cache."""

import sqlalchemy as sa
from alembic import op

revision = '0005_instance_network_info'
down_revision = '0004_console_tls_port'
branch_labels = None
depends_on = None


def upgrade():
    for table in ('instances', 'shadow_instances'):
        op.add_column(table, sa.Column('network_info', sa.Text(), nullable=True))


def downgrade():
    for table in ('shadow_instances', 'instances'):
        with op.batch_alter_table(table) as batch:
            batch.drop_column('network_info')
