#!/usr/bin/env bash
# Install everything, start libvirtd, then run lint, unit, functional and compatibility tests.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install.sh
tools/start-libvirtd.sh
# Kernel + busybox for the kernel+initrd guest tests (they skip, saying why, without it).
tools/fetch-test-kernel.sh || echo "warning: no test kernel; kernel guest tests will skip"
.venv/bin/ruff check nova
# Unit tests in parallel; functional tests (real libvirtd/QEMU, RabbitMQ,
# PostgreSQL/MariaDB where present) in two workers, each taking whole files (a file's
# module-scoped services stay in one worker): about 8 minutes here instead of 18.
.venv/bin/python -m pytest -q -n 2 nova/tests/unit
# A real Keystone and Glance (own virtualenvs, PostgreSQL) for the functional tests that
# need them and for the compatibility stage; NOVA_TEST_COMPAT=0 skips both for quick runs.
if [ "${NOVA_TEST_COMPAT:-1}" != 0 ]; then
  tools/keystone.sh start
  tools/glance.sh start
  # A real Neutron 29 (ML2/OVN) with its hypervisor and public network namespaces, for
  # the functional tests that need one and for tempest with networking (about 2 minutes
  # the first time, 15-40 s when installed); NOVA_TEST_NEUTRON=0 skips it.
  if [ "${NOVA_TEST_NEUTRON:-1}" != 0 ]; then
    tools/neutron.sh start
  fi
fi
.venv/bin/python -m pytest -q -n "${NOVA_TEST_FUNCTIONAL_WORKERS:-2}" --dist loadfile \
  nova/tests/functional "$@"
# Compatibility: upstream tempest's compute API tests against nova-aio in keystone mode
# (~17 minutes here), then python-novaextclient's and novaext-tempest-plugin's tests from
# clean virtualenvs against the same cloud (~3 minutes more; NOVA_COMPAT_PLUGIN=0 skips them).
if [ "${NOVA_TEST_COMPAT:-1}" != 0 ] && [ "${NOVA_TEST_TEMPEST:-1}" != 0 ]; then
  tools/run-compat.sh
  # The networking pass: upstream tempest with networking on, against nova-aio on the real
  # Neutron (SSH over floating IPs to real guests), a focused selection of its scenarios
  # and networked API tests on two workers (about 8 minutes here); tools/run-compat-neutron.sh
  # alone runs its whole default selection (all of tempest.api.compute and the compute
  # scenarios, about 35 minutes), which does not fit the test command's hour.
  if [ "${NOVA_TEST_NEUTRON:-1}" != 0 ]; then
    SCENARIOS='test_server_basic_ops|test_network_basic_ops\.TestNetworkBasicOps\.(test_network_basic_ops|test_hotplug_nic|test_preserve_preexisting_port)|test_minimum_basic\.TestMinimumBasicScenario\.test_minimum_basic_scenario|test_shelve_instance\.TestShelveInstance\.test_shelve_instance|test_volume_boot_pattern|test_snapshot_pattern|test_stamp_pattern'
    API='security_groups|floating_ips|servers\.test_server_addresses|servers\.test_attach_interfaces\.(AttachInterfacesV270Test|AttachInterfacesTestJSON\.test_create_list_show_delete_interfaces_by_network_port)|servers\.test_create_server\.ServersV294TestFqdnHostnames|servers\.test_device_tagging'
    NOVA_COMPAT_NEUTRON_REGEX=${NOVA_COMPAT_NEUTRON_REGEX:-"^tempest\.(scenario\.($SCENARIOS)|api\.compute\.($API))"} \
      NOVA_COMPAT_NEUTRON_CONCURRENCY=${NOVA_COMPAT_NEUTRON_CONCURRENCY:-2} \
      tools/run-compat-neutron.sh
  fi
fi
# Docs are part of the gate: api-ref, guides and release notes build with
# warnings as errors, and the api-ref samples match the running service.
tools/check-docs.sh
