"""UEFI firmware: QEMU's firmware descriptors read, and the loader a guest gets chosen."""

# The descriptors (docs/interop/firmware.json in QEMU) say, per firmware
# build, which architectures and machine types it runs on and what it has:
# secure-boot, enrolled-keys, requires-smm...  Left to libvirt's automatic
# selection, the first descriptor in priority order wins, which on Debian
# is the secure-boot build with Microsoft's keys enrolled: a guest that did
# not ask for secure boot could not boot an unsigned loader.  So the driver
# picks the descriptor itself, as upstream does: secure boot only when the
# guest asks for it, and then with keys enrolled, so it is enforced.

import dataclasses
import fnmatch
import glob
import json
import os

from nova import exception

# Searched in this order; a file name in a later directory is shadowed by
# the same name in an earlier one (QEMU's rule).
DESCRIPTOR_DIRS = ('/etc/qemu/firmware', '/usr/share/qemu/firmware')


@dataclasses.dataclass(frozen=True)
class Firmware:
    """One UEFI build: its code and NVRAM template, where it runs, what it has."""

    name: str
    executable: str
    nvram_template: str
    targets: tuple              # ((arch, (machine globs...)), ...)
    features: frozenset

    @property
    def secure_boot(self):
        return 'secure-boot' in self.features

    @property
    def requires_smm(self):
        return 'requires-smm' in self.features

    def runs(self, arch, machine):
        return any(arch == t_arch and any(fnmatch.fnmatch(machine or '', g) for g in globs)
                   for t_arch, globs in self.targets)


def parse_descriptor(name, text):
    """A Firmware from one descriptor's JSON, or None when it is not a
    flash-mapped UEFI build (BIOS, memory-mapped or stateless kernels)."""
    try:
        doc = json.loads(text)
    except ValueError:
        return None
    mapping = doc.get('mapping') or {}
    if 'uefi' not in (doc.get('interface-types') or ()) or mapping.get('device') != 'flash':
        return None
    executable = (mapping.get('executable') or {}).get('filename')
    template = (mapping.get('nvram-template') or {}).get('filename')
    if not executable:
        return None
    targets = tuple((t.get('architecture'), tuple(t.get('machines') or ()))
                    for t in doc.get('targets') or ())
    return Firmware(name, executable, template, targets, frozenset(doc.get('features') or ()))


def read_descriptors(dirs=DESCRIPTOR_DIRS):
    """The host's UEFI Firmware, in QEMU's priority order (file name)."""
    files = {}
    for directory in reversed(dirs):
        for path in glob.glob(os.path.join(directory, '*.json')):
            files[os.path.basename(path)] = path
    found = []
    for name in sorted(files):
        try:
            with open(files[name]) as f:
                firmware = parse_descriptor(name, f.read())
        except OSError:
            continue
        if firmware is not None:
            found.append(firmware)
    return tuple(found)


def secure_boot_possible(descriptors, arch, machine):
    return any(f.runs(arch, machine) and f.secure_boot and 'enrolled-keys' in f.features
               for f in descriptors)


def choose(descriptors, arch, machine, secure_boot, stateless=False):
    """The Firmware for a guest: ``secure_boot`` True needs a build with
    secure boot and enrolled keys, False one without secure boot.  Raises
    Invalid naming what the host lacks."""
    for firmware in descriptors:
        if not firmware.runs(arch, machine):
            continue
        if secure_boot != firmware.secure_boot:
            continue
        if secure_boot and 'enrolled-keys' not in firmware.features:
            continue
        if not stateless and not firmware.nvram_template:
            continue
        return firmware
    wanted = 'with secure boot and enrolled keys' if secure_boot else 'without secure boot'
    runs = sorted({g for f in descriptors for a, globs in f.targets if a == arch
                   for g in globs if (f.secure_boot == secure_boot)})
    raise exception.Invalid(
        reason='this host has no UEFI firmware %s for %s machine type %s%s' % (
            wanted, arch, machine or '(default)',
            ' (it has one for: %s)' % ', '.join(runs) if runs else ''))
