"""The settings the content builder takes, read from configuration in one place."""

import dataclasses

from nova.conf import metadata as metadata_conf
from nova.metadata import vendordata


@dataclasses.dataclass(frozen=True)
class ContentOptions:
    """What a guest is told beyond its instance record; defaults are the bare record."""

    # Appended to the hostname ("web-1" -> "web-1.novalocal").
    dhcp_domain: str = ''
    # The zone of an instance whose record names none but that has a host.
    default_availability_zone: str = ''
    vendor_data: vendordata.VendorData = dataclasses.field(
        default_factory=vendordata.VendorData)
    drive_skip_versions: tuple = tuple(metadata_conf.DEFAULT_DRIVE_SKIP_VERSIONS.split())

    @classmethod
    def from_conf(cls, conf):
        # Idempotent; a configuration made for one part alone (a driver's)
        # may not have them yet.
        metadata_conf.register_opts(conf)
        api = conf.api
        dynamic = None
        if vendordata.DYNAMIC in api.vendordata_providers:
            dynamic = vendordata.DynamicJSON(
                api.vendordata_dynamic_targets,
                connect_timeout=api.vendordata_dynamic_connect_timeout,
                read_timeout=api.vendordata_dynamic_read_timeout,
                failure_fatal=api.vendordata_dynamic_failure_fatal,
                ssl_certfile=api.vendordata_dynamic_ssl_certfile)
        return cls(dhcp_domain=api.dhcp_domain or '',
                   default_availability_zone=(conf.default_availability_zone
                                              if 'default_availability_zone' in conf
                                              else '') or '',
                   vendor_data=vendordata.VendorData(api.vendordata_providers,
                                                     api.vendordata_jsonfile_path, dynamic),
                   drive_skip_versions=tuple(api.config_drive_skip_versions.split()))
