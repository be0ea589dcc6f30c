"""Server groups: instance_groups, their policy/rules and their members."""

import sqlalchemy as sa
from alembic import op

revision = '0002_apiservers'
down_revision = '0002_quotas'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'instance_groups',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('uuid', sa.String(length=36), nullable=False),
        sa.Column('name', sa.String(length=255), nullable=True),
        sa.Column('project_id', sa.String(length=255), nullable=True),
        sa.Column('user_id', sa.String(length=255), nullable=True),
        sa.Column('created_at', sa.DateTime(), nullable=True),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('uuid'),
    )
    op.create_index('instance_groups_project_id_idx', 'instance_groups', ['project_id'])
    op.create_table(
        'instance_group_policy',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('group_id', sa.Integer(), nullable=False),
        sa.Column('policy', sa.String(length=255), nullable=False),
        sa.Column('rules', sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(['group_id'], ['instance_groups.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_instance_group_policy_group_id', 'instance_group_policy',
                    ['group_id'])
    op.create_table(
        'instance_group_member',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('group_id', sa.Integer(), nullable=False),
        sa.Column('instance_uuid', sa.String(length=36), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(['group_id'], ['instance_groups.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('group_id', 'instance_uuid',
                            name='uniq_instance_group_member0group0instance'),
    )
    op.create_index('ix_instance_group_member_group_id', 'instance_group_member',
                    ['group_id'])
    op.create_index('ix_instance_group_member_instance_uuid', 'instance_group_member',
                    ['instance_uuid'])


def downgrade():
    op.drop_table('instance_group_member')
    op.drop_table('instance_group_policy')
    op.drop_table('instance_groups')
