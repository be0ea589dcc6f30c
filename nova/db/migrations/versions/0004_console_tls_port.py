"""Console auth tokens keep the SPICE TLS port (spice-direct token details, 2.99)."""

import sqlalchemy as sa
from alembic import op

revision = '0004_console_tls_port'
down_revision = '0003_migrations'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('console_auth_tokens', sa.Column('tls_port', sa.Integer(), nullable=True))


def downgrade():
    with op.batch_alter_table('console_auth_tokens') as batch:
        batch.drop_column('tls_port')
