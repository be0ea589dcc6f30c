"""The statements built once (nova.db.statements) on SQLite."""

from nova.db import statements
from nova.tests.unit.db import statement_checks


def test_compare_and_swap_shapes(db):
    statement_checks.check_compare_and_swap_shapes(db)


def test_action_events_and_owners(db):
    statement_checks.check_action_events_and_owners(db)


def test_a_shape_is_built_once():
    from nova.db import instances
    first = statements.select_by(instances.INSTANCES, ('uuid',))
    assert statements.select_by(instances.INSTANCES, ('uuid',)) is first
    assert statements.params({'uuid': 'u'}, {'vm_state': 'active'}) == {
        'w_uuid': 'u', 'v_vm_state': 'active'}


def test_claim_is_one_transaction(db):
    statement_checks.check_claim_is_one_transaction(db)
