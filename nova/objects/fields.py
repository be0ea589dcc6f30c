"""Field types and enums for our versioned objects, built on oslo.versionedobjects."""

from oslo_versionedobjects import fields as ovo_fields

from nova.objects.fields_base import (  # noqa: F401 - re-exported
    UUID,
    BaseNovaEnum,
    FlexibleBoolean,
    FlexibleBooleanField,
    LowerCaseEnum,
    UUIDField,
)

# Re-exported so object modules need only ``from nova.objects import fields``.
AutoTypedField = ovo_fields.AutoTypedField
BaseEnumField = ovo_fields.BaseEnumField
BooleanField = ovo_fields.BooleanField
DateTimeField = ovo_fields.DateTimeField
DictOfIntegersField = ovo_fields.DictOfIntegersField
DictOfNullableStringsField = ovo_fields.DictOfNullableStringsField
DictOfStringsField = ovo_fields.DictOfStringsField
EnumField = ovo_fields.EnumField
Field = ovo_fields.Field
FloatField = ovo_fields.FloatField
IntegerField = ovo_fields.IntegerField
ListOfDictOfNullableStringsField = ovo_fields.ListOfDictOfNullableStringsField
ListOfIntegersField = ovo_fields.ListOfIntegersField
ListOfObjectsField = ovo_fields.ListOfObjectsField
ListOfSetsOfIntegersField = ovo_fields.ListOfSetsOfIntegersField
ListOfStringsField = ovo_fields.ListOfStringsField
NonNegativeIntegerField = ovo_fields.NonNegativeIntegerField
ObjectField = ovo_fields.ObjectField
SetOfIntegersField = ovo_fields.SetOfIntegersField
StringField = ovo_fields.StringField
VersionPredicateField = ovo_fields.VersionPredicateField


class Architecture(LowerCaseEnum):
    """Guest CPU architectures, named as libvirt names them."""

    ALPHA = 'alpha'
    ARMV6 = 'armv6'
    ARMV7 = 'armv7l'
    ARMV7B = 'armv7b'
    AARCH64 = 'aarch64'
    CRIS = 'cris'
    I686 = 'i686'
    IA64 = 'ia64'
    LM32 = 'lm32'
    LOONGARCH64 = 'loongarch64'
    M68K = 'm68k'
    MICROBLAZE = 'microblaze'
    MICROBLAZEEL = 'microblazeel'
    MIPS = 'mips'
    MIPSEL = 'mipsel'
    MIPS64 = 'mips64'
    MIPS64EL = 'mips64el'
    OPENRISC = 'openrisc'
    PARISC = 'parisc'
    PARISC64 = 'parisc64'
    PPC = 'ppc'
    PPCLE = 'ppcle'
    PPC64 = 'ppc64'
    PPC64LE = 'ppc64le'
    PPCEMB = 'ppcemb'
    S390 = 's390'
    S390X = 's390x'
    SH4 = 'sh4'
    SH4EB = 'sh4eb'
    SPARC = 'sparc'
    SPARC64 = 'sparc64'
    UNICORE32 = 'unicore32'
    X86_64 = 'x86_64'
    XTENSA = 'xtensa'
    XTENSAEB = 'xtensaeb'

    ALL = (ALPHA, ARMV6, ARMV7, ARMV7B, AARCH64, CRIS, I686, IA64, LM32,
           LOONGARCH64, M68K, MICROBLAZE, MICROBLAZEEL, MIPS, MIPSEL, MIPS64,
           MIPS64EL, OPENRISC, PARISC, PARISC64, PPC, PPCLE, PPC64, PPC64LE,
           PPCEMB, S390, S390X, SH4, SH4EB, SPARC, SPARC64, UNICORE32, X86_64,
           XTENSA, XTENSAEB)

    # Names `uname -m` and old Xen images use for the same architectures.
    LEGACY_VALUES = {'i386': I686, 'i486': I686, 'i586': I686,
                     'x86_32': I686, 'x86_32p': I686, 'amd64': X86_64}


class BlockDeviceDestinationType(BaseNovaEnum):
    LOCAL = 'local'
    VOLUME = 'volume'

    ALL = (LOCAL, VOLUME)


class BlockDeviceSourceType(BaseNovaEnum):
    BLANK = 'blank'
    IMAGE = 'image'
    SNAPSHOT = 'snapshot'
    VOLUME = 'volume'

    ALL = (BLANK, IMAGE, SNAPSHOT, VOLUME)


class BlockDeviceType(BaseNovaEnum):
    DISK = 'disk'
    CDROM = 'cdrom'
    FLOPPY = 'floppy'
    FS = 'fs'
    LUN = 'lun'

    ALL = (DISK, CDROM, FLOPPY, FS, LUN)


class BlockDeviceEncryptionFormatType(BaseNovaEnum):
    PLAIN = 'plain'
    LUKS = 'luks'
    LUKSV2 = 'luksv2'

    ALL = (PLAIN, LUKS, LUKSV2)


class ConfigDrivePolicy(BaseNovaEnum):
    OPTIONAL = 'optional'
    MANDATORY = 'mandatory'

    ALL = (OPTIONAL, MANDATORY)


class CPUAllocationPolicy(BaseNovaEnum):
    DEDICATED = 'dedicated'
    SHARED = 'shared'
    MIXED = 'mixed'

    ALL = (DEDICATED, SHARED, MIXED)


class CPUThreadAllocationPolicy(BaseNovaEnum):
    # prefer: siblings preferred when present (the default);
    # isolate: never share a core; require: only hosts with SMT.
    PREFER = 'prefer'
    ISOLATE = 'isolate'
    REQUIRE = 'require'

    ALL = (PREFER, ISOLATE, REQUIRE)


class CPUEmulatorThreadsPolicy(BaseNovaEnum):
    SHARE = 'share'
    ISOLATE = 'isolate'

    ALL = (SHARE, ISOLATE)


class DiskBus(BaseNovaEnum):
    # Also the vocabulary of hw_*_bus image properties and of the block
    # device mapping disk_bus; keep the API reference in step when changing.
    VIRTIO = 'virtio'
    IDE = 'ide'
    SCSI = 'scsi'
    USB = 'usb'
    SATA = 'sata'
    FDC = 'fdc'
    XEN = 'xen'
    LXC = 'lxc'
    UML = 'uml'

    ALL = (VIRTIO, IDE, SCSI, USB, SATA, FDC, XEN, LXC, UML)
    # The buses a block device mapping (and a QEMU guest) may name; the
    # bus table (nova.virt.bus_table) has one row for each, in this order.
    BLOCK_DEVICE = (VIRTIO, IDE, SATA, SCSI, USB, FDC)


# The name the block device mapping code uses for the same vocabulary.
BlockDeviceBus = DiskBus


class FirmwareType(BaseNovaEnum):
    BIOS = 'bios'
    UEFI = 'uefi'

    ALL = (BIOS, UEFI)


class HVType(LowerCaseEnum):
    """Guest virtualization types (not the same thing as a virt driver)."""

    BAREMETAL = 'baremetal'
    BHYVE = 'bhyve'
    DOCKER = 'docker'
    FAKE = 'fake'
    HYPERV = 'hyperv'
    IRONIC = 'ironic'
    KQEMU = 'kqemu'
    KVM = 'kvm'
    LXC = 'lxc'
    LXD = 'lxd'
    OPENVZ = 'openvz'
    PARALLELS = 'parallels'
    VIRTUOZZO = 'vz'
    PHYP = 'phyp'
    QEMU = 'qemu'
    TEST = 'test'
    UML = 'uml'
    VBOX = 'vbox'
    VMWARE = 'vmware'
    XEN = 'xen'
    ZVM = 'zvm'
    PRSM = 'prsm'

    ALL = (BAREMETAL, BHYVE, DOCKER, FAKE, HYPERV, IRONIC, KQEMU, KVM, LXC,
           LXD, OPENVZ, PARALLELS, PHYP, QEMU, TEST, UML, VBOX, VIRTUOZZO,
           VMWARE, XEN, ZVM, PRSM)

    # XenAPI reported itself as 'xapi' in old images.
    LEGACY_VALUES = {'xapi': XEN}


class ImageSignatureHashType(BaseNovaEnum):
    # The hash methods the image signature verifier (cursive) supports.
    ALL = ('SHA-224', 'SHA-256', 'SHA-384', 'SHA-512')


class ImageSignatureKeyType(BaseNovaEnum):
    ALL = ('DSA', 'ECC_SECP384R1', 'ECC_SECP521R1', 'ECC_SECT409K1',
           'ECC_SECT409R1', 'ECC_SECT571K1', 'ECC_SECT571R1', 'RSA-PSS')


class InputBus(BaseNovaEnum):
    USB = 'usb'
    VIRTIO = 'virtio'

    ALL = (USB, VIRTIO)


class MaxPhysAddrMode(BaseNovaEnum):
    PASSTHROUGH = 'passthrough'
    EMULATE = 'emulate'

    ALL = (PASSTHROUGH, EMULATE)


class MemEncryptionModel(BaseNovaEnum):
    AMD_SEV = 'amd-sev'
    AMD_SEV_ES = 'amd-sev-es'
    AMD_SEV_SNP = 'amd-sev-snp'
    INTEL_TDX = 'intel-tdx'

    ALL = (AMD_SEV, AMD_SEV_ES, AMD_SEV_SNP, INTEL_TDX)


class OSType(LowerCaseEnum):
    LINUX = 'linux'
    WINDOWS = 'windows'

    ALL = (LINUX, WINDOWS)


class PCINUMAAffinityPolicy(BaseNovaEnum):
    REQUIRED = 'required'
    LEGACY = 'legacy'
    PREFERRED = 'preferred'
    SOCKET = 'socket'

    ALL = (REQUIRED, LEGACY, PREFERRED, SOCKET)


class PointerModelType(BaseNovaEnum):
    USBTABLET = 'usbtablet'

    ALL = (USBTABLET,)


class RNGModel(BaseNovaEnum):
    VIRTIO = 'virtio'

    ALL = (VIRTIO,)


class SCSIModel(LowerCaseEnum):
    BUSLOGIC = 'buslogic'
    IBMVSCSI = 'ibmvscsi'
    LSILOGIC = 'lsilogic'
    LSISAS1068 = 'lsisas1068'
    LSISAS1078 = 'lsisas1078'
    VIRTIO_SCSI = 'virtio-scsi'
    VMPVSCSI = 'vmpvscsi'

    ALL = (BUSLOGIC, IBMVSCSI, LSILOGIC, LSISAS1068, LSISAS1078, VIRTIO_SCSI,
           VMPVSCSI)

    # Spellings from the legacy vmware_adaptertype image property.
    LEGACY_VALUES = {'lsilogicsas': LSISAS1068, 'paravirtual': VMPVSCSI}


class SecureBoot(BaseNovaEnum):
    REQUIRED = 'required'
    DISABLED = 'disabled'
    OPTIONAL = 'optional'

    ALL = (REQUIRED, DISABLED, OPTIONAL)


class SoundModelType(BaseNovaEnum):
    SB16 = 'sb16'
    ES1370 = 'es1370'
    PCSPK = 'pcspk'
    AC97 = 'ac97'
    ICH6 = 'ich6'
    ICH9 = 'ich9'
    USB = 'usb'
    VIRTIO = 'virtio'

    ALL = (SB16, ES1370, PCSPK, AC97, ICH6, ICH9, USB, VIRTIO)


class TPMModel(BaseNovaEnum):
    TIS = 'tpm-tis'
    CRB = 'tpm-crb'

    ALL = (TIS, CRB)


class TPMVersion(BaseNovaEnum):
    V1_2 = '1.2'
    V2_0 = '2.0'

    ALL = (V1_2, V2_0)


class TPMSecretSecurity(BaseNovaEnum):
    USER = 'user'
    HOST = 'host'
    DEPLOYMENT = 'deployment'

    ALL = (USER, HOST, DEPLOYMENT)


class USBControllerModelType(BaseNovaEnum):
    # Only USB3-capable controllers: the older ones are slow and every
    # guest OS still in use drives an xHCI controller.
    NONE = 'none'
    NEC_XHCI = 'nec-xhci'
    QEMU_XHCI = 'qemu-xhci'

    ALL = (NONE, NEC_XHCI, QEMU_XHCI)


class VideoModel(BaseNovaEnum):
    CIRRUS = 'cirrus'
    QXL = 'qxl'
    VGA = 'vga'
    VMVGA = 'vmvga'
    XEN = 'xen'
    VIRTIO = 'virtio'
    GOP = 'gop'
    NONE = 'none'
    BOCHS = 'bochs'

    ALL = (CIRRUS, QXL, VGA, VMVGA, XEN, VIRTIO, GOP, NONE, BOCHS)


class VIFModel(LowerCaseEnum):
    VIRTIO = 'virtio'
    NE2K_PCI = 'ne2k_pci'
    PCNET = 'pcnet'
    RTL8139 = 'rtl8139'
    E1000 = 'e1000'
    E1000E = 'e1000e'
    NETFRONT = 'netfront'
    SPAPR_VLAN = 'spapr-vlan'
    LAN9118 = 'lan9118'
    SRIOV = 'sriov'
    VMXNET = 'vmxnet'
    VMXNET3 = 'vmxnet3'
    IGB = 'igb'

    ALL = (VIRTIO, NE2K_PCI, PCNET, RTL8139, E1000, E1000E, NETFRONT,
           SPAPR_VLAN, LAN9118, SRIOV, VMXNET, VMXNET3, IGB)

    # VMware device class names found in images built for vSphere.
    LEGACY_VALUES = {'virtuale1000': E1000, 'virtuale1000e': E1000E,
                     'virtualpcnet32': PCNET,
                     'virtualsriovethernetcard': SRIOV,
                     'virtualvmxnet': VMXNET, 'virtualvmxnet3': VMXNET3}


class VIOMMUModel(BaseNovaEnum):
    INTEL = 'intel'
    SMMUV3 = 'smmuv3'
    VIRTIO = 'virtio'
    AUTO = 'auto'

    ALL = (INTEL, SMMUV3, VIRTIO, AUTO)


class VMMode(LowerCaseEnum):
    """Host/guest ABI of the guest."""

    HVM = 'hvm'  # fully virtualized
    XEN = 'xen'  # Xen 3.0 paravirtualized
    UML = 'uml'  # User Mode Linux paravirtualized
    EXE = 'exe'  # executables in containers

    ALL = (HVM, XEN, UML, EXE)

    # Pre-Folsom spellings still found in old images.
    LEGACY_VALUES = {'pv': XEN, 'hv': HVM, 'baremetal': HVM}


class WatchdogAction(BaseNovaEnum):
    NONE = 'none'
    PAUSE = 'pause'
    POWEROFF = 'poweroff'
    RESET = 'reset'
    DISABLED = 'disabled'

    ALL = (NONE, PAUSE, POWEROFF, RESET, DISABLED)


class ArchitectureField(BaseEnumField):
    AUTO_TYPE = Architecture()


class BlockDeviceDestinationTypeField(BaseEnumField):
    AUTO_TYPE = BlockDeviceDestinationType()


class BlockDeviceSourceTypeField(BaseEnumField):
    AUTO_TYPE = BlockDeviceSourceType()


class BlockDeviceTypeField(BaseEnumField):
    AUTO_TYPE = BlockDeviceType()


class BlockDeviceEncryptionFormatTypeField(BaseEnumField):
    AUTO_TYPE = BlockDeviceEncryptionFormatType()


class ConfigDrivePolicyField(BaseEnumField):
    AUTO_TYPE = ConfigDrivePolicy()


class CPUAllocationPolicyField(BaseEnumField):
    AUTO_TYPE = CPUAllocationPolicy()


class CPUThreadAllocationPolicyField(BaseEnumField):
    AUTO_TYPE = CPUThreadAllocationPolicy()


class CPUEmulatorThreadsPolicyField(BaseEnumField):
    AUTO_TYPE = CPUEmulatorThreadsPolicy()


class DiskBusField(BaseEnumField):
    AUTO_TYPE = DiskBus()


BlockDeviceBusField = DiskBusField


class FirmwareTypeField(BaseEnumField):
    AUTO_TYPE = FirmwareType()


class HVTypeField(BaseEnumField):
    AUTO_TYPE = HVType()


class ImageSignatureHashTypeField(BaseEnumField):
    AUTO_TYPE = ImageSignatureHashType()


class ImageSignatureKeyTypeField(BaseEnumField):
    AUTO_TYPE = ImageSignatureKeyType()


class InputBusField(BaseEnumField):
    AUTO_TYPE = InputBus()


class MaxPhysAddrModeField(BaseEnumField):
    AUTO_TYPE = MaxPhysAddrMode()


class MemEncryptionModelField(BaseEnumField):
    AUTO_TYPE = MemEncryptionModel()


class OSTypeField(BaseEnumField):
    AUTO_TYPE = OSType()


class PCINUMAAffinityPolicyField(BaseEnumField):
    AUTO_TYPE = PCINUMAAffinityPolicy()


class PointerModelField(BaseEnumField):
    AUTO_TYPE = PointerModelType()


class RNGModelField(BaseEnumField):
    AUTO_TYPE = RNGModel()


class SCSIModelField(BaseEnumField):
    AUTO_TYPE = SCSIModel()


class SecureBootField(BaseEnumField):
    AUTO_TYPE = SecureBoot()


class SoundModelField(BaseEnumField):
    AUTO_TYPE = SoundModelType()


class TPMModelField(BaseEnumField):
    AUTO_TYPE = TPMModel()


class TPMVersionField(BaseEnumField):
    AUTO_TYPE = TPMVersion()


class TPMSecretSecurityField(BaseEnumField):
    AUTO_TYPE = TPMSecretSecurity()


class USBControllerModelField(BaseEnumField):
    AUTO_TYPE = USBControllerModelType()


class VideoModelField(BaseEnumField):
    AUTO_TYPE = VideoModel()


class VIFModelField(BaseEnumField):
    AUTO_TYPE = VIFModel()


class VIOMMUModelField(BaseEnumField):
    AUTO_TYPE = VIOMMUModel()


class VMModeField(BaseEnumField):
    AUTO_TYPE = VMMode()


class WatchdogActionField(BaseEnumField):
    AUTO_TYPE = WatchdogAction()
