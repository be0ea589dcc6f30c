"""Shadow tables for archived deleted instances; services report their version."""

import sqlalchemy as sa
from alembic import op

revision = '0003_shadow_tables'
down_revision = '0002_apiservers'
branch_labels = None
depends_on = None

# Copied from the live tables at this revision: a later migration that adds a
# column to one of them adds it to its shadow table too.
TABLES = {'instances': ('uuid', 'deleted_at'), 'instance_faults': ('instance_uuid',),
          'instance_actions': ('instance_uuid',), 'instance_actions_events': ('action_id',),
          'block_device_mapping': ('instance_uuid',)}


def upgrade():
    inspector = sa.inspect(op.get_bind())
    for name, indexed in TABLES.items():
        columns = [sa.Column(c['name'], c['type'], nullable=True)
                   for c in inspector.get_columns(name)]
        op.create_table('shadow_' + name, *columns)
        for col in indexed:
            op.create_index('shadow_%s_%s_idx' % (name, col), 'shadow_' + name, [col])
    op.add_column('services', sa.Column('version', sa.Integer(), nullable=True))


def downgrade():
    op.drop_column('services', 'version')
    for name in TABLES:
        op.drop_table('shadow_' + name)
