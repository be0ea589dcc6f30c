"""The all-in-one's footprint: what it imports at start and how many RPC threads it keeps."""

import subprocess
import sys

from nova import conf as nova_conf
from nova.cmd import aio


def _conf(tmp_path, text=''):
    path = tmp_path / 'nova.conf'
    path.write_text('[DEFAULT]\nstate_path = %s\n%s' % (tmp_path, text))
    conf = nova_conf.new_config()
    aio.set_aio_defaults(conf)
    conf(['--config-file', str(path)])
    return conf


def test_rpc_worker_threads_are_capped_by_default(tmp_path):
    assert _conf(tmp_path).executor_thread_pool_size == aio.AIO_EXECUTOR_THREADS == 16


def test_operator_sets_rpc_worker_threads(tmp_path):
    conf = _conf(tmp_path, 'executor_thread_pool_size = 40\n')
    assert conf.executor_thread_pool_size == 40


def test_image_download_chunks_are_small_by_default(tmp_path):
    assert _conf(tmp_path).glance.download_chunk_size == aio.AIO_DOWNLOAD_CHUNK_SIZE == 65536
    conf = _conf(tmp_path, '[glance]\ndownload_chunk_size = 1048576\n')
    assert conf.glance.download_chunk_size == 1048576


def test_start_imports_no_broker_driver_and_no_cryptography():
    # A fresh interpreter: what importing the services and registering every
    # option brings in (kombu/amqp/yaml for RabbitMQ, cryptography for keys).
    code = ('import sys; from nova import conf, wiring; from nova.cmd import aio; '
            'c = conf.new_config(); '
            "print(sorted({m.split('.')[0] for m in sys.modules} & "
            "{'kombu', 'amqp', 'cryptography'}))")
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == '[]', out.stdout + out.stderr


def test_rabbit_options_still_reach_a_rabbit_transport(tmp_path):
    # Registered by the driver when a transport loads it, as oslo.messaging does.
    import oslo_messaging as messaging
    conf = _conf(tmp_path, '[oslo_messaging_rabbit]\nheartbeat_timeout_threshold = 17\n')
    transport = messaging.get_rpc_transport(conf, url='rabbit://u:p@127.0.0.1:1/')
    try:
        assert conf.oslo_messaging_rabbit.heartbeat_timeout_threshold == 17
    finally:
        transport.cleanup()


def _fresh(code):
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         check=True)
    return out.stdout.strip()


def test_start_imports_no_postgresql_dialect():
    # Loaded by SQLAlchemy when the connection is PostgreSQL; the flavor
    # filter needs its JSON type only then.
    code = ('import sys; from nova import conf, wiring; from nova.cmd import aio; '
            'from nova.virt.libvirt import driver; c = conf.new_config(); '
            'print("sqlalchemy.dialects.postgresql" in sys.modules)')
    assert _fresh(code) == 'False'


def test_start_imports_no_keystoneauth():
    # The image and volume clients load keystoneauth1 (with its discovery and
    # os-service-types) only on their keystoneauth path; registering every
    # option and building the clients does not.
    code = ('import sys; from nova import conf, wiring; from nova.cmd import aio; '
            'c = conf.new_config(); aio.set_aio_defaults(c); '
            'from nova.image import glance; from nova.volume import cinder; '
            'print(sorted({m.split(".")[0] for m in sys.modules} & '
            '{"keystoneauth1", "os_service_types"}))')
    assert _fresh(code) == '[]'


def test_keystoneauth_options_listed_and_registered_on_use(tmp_path):
    from nova.conf import opts
    listed = {getattr(group, 'name', group): {opt.dest for opt in group_opts}
              for group, group_opts in opts.list_opts()}
    assert {'endpoint_override', 'auth_type', 'cafile', 'timeout'} <= listed['glance']
    assert {'endpoint_override', 'auth_section', 'region_name'} <= listed['cinder']
    conf = _conf(tmp_path, '[glance]\nendpoint_override = http://image.example.org\n'
                           'timeout = 42\n')
    assert not nova_conf.client_opts_registered(conf, 'glance')
    assert nova_conf.client_opts_configured(conf, 'glance')
    assert not nova_conf.client_opts_configured(conf, 'cinder')
    nova_conf.register_client_opts(conf, 'glance')
    nova_conf.register_client_opts(conf, 'glance')   # idempotent
    assert conf.glance.endpoint_override == 'http://image.example.org'
    assert conf.glance.timeout == 42


def test_policy_checks_import_no_requests():
    # oslo.policy would import its http: check (and requests) with the first
    # rule parsed; ours use no plug-in check, so nothing imports it.
    code = ('import sys; from nova import conf, wiring, context, policy; '
            'from nova.cmd import aio; c = conf.new_config(); '
            'e = policy.get_enforcer(); '
            'ctx = context.RequestContext(user_id="u", project_id="p", roles=["member"]); '
            'e.decide("os_compute_api:servers:create", {"project_id": "p"}, '
            'ctx.to_policy_values()); '
            'print(sorted({m.split(".")[0] for m in sys.modules} & {"requests", "urllib3"}))')
    assert _fresh(code) == '[]'


def test_policy_http_check_still_loaded_when_a_rule_uses_it():
    from oslo_policy import _parser

    from nova.policies import rule_checks
    checks = rule_checks.LazyRuleChecks()
    assert {'http', 'https'} <= set(checks) and 'role' not in checks
    check = _parser.parse_rule('http://127.0.0.1:1/check')
    assert type(check).__name__ == 'HttpCheck'


def test_libvirt_driver_imports_no_lxml():
    # The domain XML classes use the standard library's ElementTree: lxml's
    # module alone was about 4 MB of the all-in-one's resident memory.
    code = ('import sys; from nova.cmd import aio; '
            'from nova.virt.libvirt import driver, driver_live_migrate, '
            'driver_volume_snapshots, guestfeatures; '
            'print("lxml" in sys.modules)')
    assert _fresh(code) == 'False'
