"""The metadata API's queries on real SQLite: instances by fixed IP, the one-time password."""

import copy
import threading

from nova.db import api as db_api
from nova.metadata import password
from nova.tests.unit.metadata import test_network_data as nd


def _instance(db, network_info=None, **values):
    base = dict(project_id='p1', user_id='u1', vm_state='active', display_name='vm',
                created_at=db_api._now(), network_info=network_info)
    base.update(values)
    return db.instance_create(base)


def test_instances_by_fixed_ip(db):
    inst = _instance(db, nd.NETWORK_INFO)
    _instance(db, [])
    _instance(db, None)
    assert db.instance_uuids_by_fixed_ip('10.77.0.41') == [inst['uuid']]
    assert db.instance_uuids_by_fixed_ip('192.168.5.10') == [inst['uuid']]
    assert db.instance_uuids_by_fixed_ip('fd00:5:0::f816:3eff:fe44:5566') == [inst['uuid']]
    # Whole addresses only; floating IPs, DNS servers and gateways are not the guest's.
    for other in ('10.77.0.4', '10.77.0.4', '172.24.4.7', '10.77.0.53', '10.77.0.1',
                  '10.77.0.411', 'not-an-ip', '', None, '10.77.0.%'):
        assert db.instance_uuids_by_fixed_ip(other) == [], other


def test_instance_holds_fixed_ip(db):
    inst = _instance(db, nd.NETWORK_INFO)
    assert db.instance_holds_fixed_ip(inst['uuid'], '10.77.0.41')
    assert not db.instance_holds_fixed_ip(inst['uuid'], '172.24.4.7')    # floating
    assert not db.instance_holds_fixed_ip(inst['uuid'], 'bogus')
    assert not db.instance_holds_fixed_ip('no-such-uuid', '10.77.0.41')
    db.instance_destroy(inst['uuid'])
    assert not db.instance_holds_fixed_ip(inst['uuid'], '10.77.0.41')


def test_deleted_instances_and_overlaps(db):
    first = _instance(db, nd.NETWORK_INFO)
    second = _instance(db, copy.deepcopy(nd.NETWORK_INFO), project_id='p2')
    assert sorted(db.instance_uuids_by_fixed_ip('10.77.0.41')) == sorted(
        [first['uuid'], second['uuid']])
    db.instance_destroy(second['uuid'])
    assert db.instance_uuids_by_fixed_ip('10.77.0.41') == [first['uuid']]


def test_password_is_set_once(db):
    inst = _instance(db, system_metadata={'image_min_ram': '0'})
    chunks = password.to_chunks('x' * 600)
    assert db.instance_password_set_once(inst['uuid'], chunks) is True
    sysmeta = db.instance_get(inst['uuid'])['system_metadata']
    assert sysmeta['image_min_ram'] == '0'
    assert password.extract(sysmeta) == 'x' * 600
    assert [len(sysmeta[k]) for k in password.KEYS] == [255, 255, 90, 0]
    assert db.instance_password_set_once(inst['uuid'], password.to_chunks('y')) is False
    assert password.extract(db.instance_get(inst['uuid'])['system_metadata']) == 'x' * 600
    assert db.instance_password_set_once('no-such-uuid', chunks) is None


def test_concurrent_posts_store_one_password(db):
    inst = _instance(db)
    results = []
    barrier = threading.Barrier(4)

    def post(text):
        barrier.wait()
        results.append((text, db.instance_password_set_once(inst['uuid'],
                                                            password.to_chunks(text))))
    threads = [threading.Thread(target=post, args=('pw%d' % i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    winners = [text for text, stored in results if stored]
    assert len(winners) == 1
    assert password.extract(db.instance_get(inst['uuid'])['system_metadata']) == winners[0]
