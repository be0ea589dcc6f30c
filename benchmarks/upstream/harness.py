"""Upstream Nova's functional harness served on a real port, run inside the upstream venv only."""
# This file is run by benchmarks/bench_upstream.py with the interpreter of a
# separate virtualenv that holds upstream OpenStack Nova from PyPI and its
# test requirements; the project never imports it. It imports upstream's
# own test modules (nova.tests.*), which is why it must not be collected or
# imported by the project's tests.

import argparse  # noqa: I001  (nova.tests first: it sets the concurrency mode)
import json
import logging
import os
import sys
import threading
import time
import unittest
from wsgiref import simple_server

# Upstream's functional tests set their concurrency mode (eventlet monkey
# patching or native threads, OS_NOVA_DISABLE_EVENTLET_PATCHING) when
# nova.tests is first imported; that happens here, before anything else of
# nova's.
from nova.tests.functional import integrated_helpers

import futurist._thread  # upstream's dependency

# futurist's own idle wait of a worker thread (1 s), before upstream's
# TestCase.setUp lowers it.
IDLE_WAIT = futurist._thread.ThreadWorker.MAX_IDLE_FOR

RESCUE_PROPS = {'hw_rescue_bus': 'virtio', 'hw_rescue_device': 'disk'}


class _QuietHandler(simple_server.WSGIRequestHandler):
    def log_message(self, *args):
        pass


class _Server(simple_server.WSGIServer):
    # One request at a time, as the client sends them; socketserver's
    # default listen backlog is enough.
    allow_reuse_address = True


class UpstreamBench(integrated_helpers._IntegratedTestBase):
    """Upstream's integrated test base; casts stay casts unless --cast-as-call."""

    # By default RPC casts stay casts: the API answers before the build is
    # done and the client polls, as against a deployment (and as our
    # all-in-one does). With --cast-as-call, the base class's own default,
    # every cast runs to its end inside the request that made it.
    CAST_AS_CALL = False

    def _setup_services(self):
        # The wheel installs api-paste.ini under the environment's etc/nova
        # (a source checkout has it at etc/nova beside the package, where
        # upstream's ConfFixture looks).
        paste = os.path.join(sys.prefix, 'etc', 'nova', 'api-paste.ini')
        if os.path.exists(paste):
            self.flags(api_paste_config=paste, group='wsgi')
        return super()._setup_services()

    def _setup_compute_service(self):
        # fake.FakeDriver reports 1000 vCPUs and 800 GB of RAM: room for the
        # 50 servers at the default allocation ratios (the Small/Medium fakes
        # have 2 and 10 vCPUs).
        self.flags(compute_driver='fake.FakeDriver')
        return super()._setup_compute_service()

    def setUp(self):
        # Unlimited quotas, as the all-in-one's benchmark configuration.
        super().setUp()
        self.flags(instances=-1, cores=-1, ram=-1, group='quota')

    def test_serve(self):
        args = ARGS
        if not args.test_settings:
            # Two settings of upstream's TestCase that a deployment does not
            # have, undone unless asked otherwise:
            # - its StandardLogging fixture sets the root logger to DEBUG and
            #   formats every debug record into a null handler (to catch
            #   formatting bugs); with ``debug = False`` no debug record is
            #   even made;
            # - it sets futurist's idle worker wait to 10 ms (so that test
            #   teardown is quick), which wakes every idle RPC worker thread
            #   a hundred times a second; futurist waits 1 s.
            logging.getLogger().setLevel(logging.INFO)
            futurist._thread.ThreadWorker.MAX_IDLE_FOR = IDLE_WAIT
        image = self.glance.create(None, {
            'name': 'bench', 'status': 'active', 'disk_format': 'raw',
            'container_format': 'bare', 'min_disk': 0, 'min_ram': 0,
            'size': 1024 * 1024, 'properties': dict(RESCUE_PROPS)})
        server = _Server(('127.0.0.1', 0), _QuietHandler)
        server.set_app(self.api_fixture.app())
        thread = threading.Thread(target=server.serve_forever,
                                  kwargs={'poll_interval': 0.1}, daemon=True)
        thread.start()
        ready = {'port': server.server_address[1], 'image': image['id'],
                 'project': self.api_fixture.project_id,
                 'microversion': _max_microversion(),
                 'eventlet': _eventlet_patched(), 'pid': os.getpid()}
        sys.__stdout__.write('upstream-harness ready %s\n' % json.dumps(ready))
        sys.__stdout__.flush()
        if args.profile:
            import yappi
            yappi.set_clock_type('cpu')
            yappi.start()
        while not os.path.exists(args.stop_file):
            time.sleep(0.05)
        if args.profile:
            yappi.stop()
            with open(args.profile, 'w') as out:
                yappi.get_func_stats().print_all(out=out, columns={
                    0: ('name', 100), 1: ('ncall', 10), 2: ('tsub', 8),
                    3: ('ttot', 8), 4: ('tavg', 8)})
        server.shutdown()
        server.server_close()
        # Upstream's StandardLogging fixture keeps the services' log in
        # memory (INFO and up, as in upstream's runs); written out once the
        # workload is over, for the runner to show on a failure.
        sys.__stdout__.write(self.stdlog.logger.output)
        sys.__stdout__.flush()


def _max_microversion():
    from nova.api.openstack import api_version_request
    return api_version_request.max_api_version().get_string()


def _eventlet_patched():
    from nova import monkey_patch
    return monkey_patch.is_patched()


ARGS = None


def main():
    global ARGS
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--stop-file', required=True,
                        help='the harness stops once this file exists')
    parser.add_argument('--test-settings', action='store_true',
                        help="keep upstream's test logging (every debug record "
                             "formatted) and futurist's 10 ms idle wait")
    parser.add_argument('--cast-as-call', action='store_true',
                        help="run RPC casts as calls (CastAsCallFixture), the "
                             "default of upstream's integrated test base")
    parser.add_argument('--profile', help='write a CPU profile of all threads '
                                          '(yappi) of the workload to this file')
    ARGS = parser.parse_args()
    UpstreamBench.CAST_AS_CALL = ARGS.cast_as_call
    result = unittest.TextTestRunner(stream=sys.__stderr__, verbosity=2).run(
        unittest.TestSuite([UpstreamBench('test_serve')]))
    sys.exit(0 if result.wasSuccessful() else 1)


if __name__ == '__main__':
    main()
