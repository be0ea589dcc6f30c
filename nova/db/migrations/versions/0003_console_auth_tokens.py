"""Console auth tokens: one row per issued console URL, found by the token's hash."""

import sqlalchemy as sa
from alembic import op

revision = '0003_console_auth_tokens'
down_revision = '0003_shadow_tables'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'console_auth_tokens',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('token_hash', sa.String(length=255), nullable=False),
        sa.Column('console_type', sa.String(length=255), nullable=False),
        sa.Column('host', sa.String(length=255), nullable=False),
        sa.Column('port', sa.Integer(), nullable=False),
        sa.Column('internal_access_path', sa.String(length=255), nullable=True),
        sa.Column('instance_uuid', sa.String(length=36), nullable=False),
        sa.Column('access_url_base', sa.String(length=255), nullable=True),
        sa.Column('expires', sa.Integer(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=True),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('token_hash', name='uniq_console_auth_tokens0token_hash'),
    )
    op.create_index('console_auth_tokens_instance_uuid_idx', 'console_auth_tokens',
                    ['instance_uuid'])
    op.create_index('console_auth_tokens_expires_idx', 'console_auth_tokens', ['expires'])


def downgrade():
    op.drop_table('console_auth_tokens')
