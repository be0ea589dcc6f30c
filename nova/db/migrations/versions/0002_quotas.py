"""Quotas: per-project, per-user and per-class limits, and the per-project lock rows."""

import sqlalchemy as sa
from alembic import op

revision = '0002_quotas'
down_revision = '0002_apiadmin'
branch_labels = None
depends_on = None


def _limit_table(name, scope_columns, unique_name):
    op.create_table(
        name,
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        *[sa.Column(col, sa.String(length=255), nullable=False) for col in scope_columns],
        sa.Column('resource', sa.String(length=255), nullable=False),
        sa.Column('hard_limit', sa.Integer(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=True),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint(*scope_columns, 'resource', name=unique_name),
    )


def upgrade():
    _limit_table('quotas', ['project_id'], 'uniq_quotas0project_id0resource')
    _limit_table('project_user_quotas', ['project_id', 'user_id'],
                 'uniq_project_user_quotas0project0user0resource')
    _limit_table('quota_classes', ['class_name'], 'uniq_quota_classes0class_name0resource')
    op.create_table('quota_locks',
                    sa.Column('project_id', sa.String(length=255), nullable=False),
                    sa.PrimaryKeyConstraint('project_id'))


def downgrade():
    for name in ('quota_locks', 'quota_classes', 'project_user_quotas', 'quotas'):
        op.drop_table(name)
