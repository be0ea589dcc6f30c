"""Migrations: one row per resize or migration of an instance, as upstream records them."""

import sqlalchemy as sa
from alembic import op

revision = '0003_migrations'
down_revision = '0003_console_auth_tokens'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'migrations',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('uuid', sa.String(length=36), nullable=False),
        sa.Column('instance_uuid', sa.String(length=36), nullable=False),
        sa.Column('source_compute', sa.String(length=255), nullable=True),
        sa.Column('dest_compute', sa.String(length=255), nullable=True),
        sa.Column('source_node', sa.String(length=255), nullable=True),
        sa.Column('dest_node', sa.String(length=255), nullable=True),
        sa.Column('dest_host', sa.String(length=255), nullable=True),
        sa.Column('status', sa.String(length=255), nullable=True),
        sa.Column('migration_type', sa.String(length=255), nullable=True),
        sa.Column('hidden', sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column('old_instance_type_id', sa.Integer(), nullable=True),
        sa.Column('new_instance_type_id', sa.Integer(), nullable=True),
        sa.Column('old_flavor', sa.Text(), nullable=True),
        sa.Column('new_flavor', sa.Text(), nullable=True),
        sa.Column('user_id', sa.String(length=255), nullable=True),
        sa.Column('project_id', sa.String(length=255), nullable=True),
        sa.Column('created_at', sa.DateTime(), nullable=True),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
        sa.Column('deleted_at', sa.DateTime(), nullable=True),
        sa.Column('deleted', sa.Integer(), nullable=False, server_default='0'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('uuid', name='uniq_migrations0uuid'),
    )
    op.create_index('migrations_instance_uuid_and_status_idx', 'migrations',
                    ['deleted', 'instance_uuid', 'status'])
