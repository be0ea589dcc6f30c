"""Key pairs, flavor access, host aggregates; service uuids and instance key data."""

import uuid

import sqlalchemy as sa
from alembic import op

revision = '0002_apiadmin'
down_revision = '0001_initial'
branch_labels = None
depends_on = None


def upgrade():
    _service_uuids()
    with op.batch_alter_table('instances') as batch:
        batch.add_column(sa.Column('key_data', sa.Text(), nullable=True))
    _key_pairs_and_flavor_projects()
    _aggregates()


def _service_uuids():
    with op.batch_alter_table('services') as batch:
        batch.add_column(sa.Column('uuid', sa.String(length=36), nullable=True))
        batch.create_unique_constraint('uniq_services0uuid', ['uuid'])
    # Services registered before this revision get their uuid now (2.53 ids).
    services = sa.table('services', sa.column('id', sa.Integer),
                        sa.column('uuid', sa.String))
    conn = op.get_bind()
    for row in conn.execute(sa.select(services.c.id).where(services.c.uuid.is_(None))):
        conn.execute(services.update().where(services.c.id == row.id)
                     .values(uuid=str(uuid.uuid4())))


def _key_pairs_and_flavor_projects():
    op.create_table(
        'key_pairs',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('name', sa.String(length=255), nullable=False),
        sa.Column('user_id', sa.String(length=255), nullable=False),
        sa.Column('fingerprint', sa.String(length=255), nullable=True),
        sa.Column('public_key', sa.Text(), nullable=True),
        sa.Column('type', sa.String(length=16), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=True),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('user_id', 'name', name='uniq_key_pairs0user_id0name'))
    op.create_table(
        'flavor_projects',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('flavor_id', sa.Integer(), nullable=False),
        sa.Column('project_id', sa.String(length=255), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(['flavor_id'], ['flavors.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('flavor_id', 'project_id',
                            name='uniq_flavor_projects0flavor_id0project_id'))


def _aggregates():
    op.create_table(
        'aggregates',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('uuid', sa.String(length=36), nullable=False),
        sa.Column('name', sa.String(length=255), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=True),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('name'),
        sa.UniqueConstraint('uuid'))
    op.create_table(
        'aggregate_hosts',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('host', sa.String(length=255), nullable=False),
        sa.Column('aggregate_id', sa.Integer(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(['aggregate_id'], ['aggregates.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('host', 'aggregate_id',
                            name='uniq_aggregate_hosts0host0aggregate_id'))
    op.create_index('ix_aggregate_hosts_aggregate_id', 'aggregate_hosts', ['aggregate_id'])
    op.create_table(
        'aggregate_metadata',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('aggregate_id', sa.Integer(), nullable=False),
        sa.Column('key', sa.String(length=255), nullable=False),
        sa.Column('value', sa.String(length=255), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(['aggregate_id'], ['aggregates.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('aggregate_id', 'key',
                            name='uniq_aggregate_metadata0aggregate_id0key'))
    op.create_index('ix_aggregate_metadata_aggregate_id', 'aggregate_metadata',
                    ['aggregate_id'])


def downgrade():
    for table in ('aggregate_metadata', 'aggregate_hosts', 'aggregates', 'flavor_projects',
                  'key_pairs'):
        op.drop_table(table)
    with op.batch_alter_table('instances') as batch:
        batch.drop_column('key_data')
    with op.batch_alter_table('services') as batch:
        batch.drop_constraint('uniq_services0uuid', type_='unique')
        batch.drop_column('uuid')
