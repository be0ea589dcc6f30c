"""Typed boot and rebuild requests: what the handlers hand the compute API instead of bodies."""

import dataclasses
from typing import Any, Mapping, Optional, Sequence


class _Unset:
    """A field the request did not name (distinct from one it set to null)."""

    def __repr__(self):
        return 'UNSET'

    # One instance only, so ``is UNSET`` holds for copies of a request too.
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


UNSET = _Unset()


@dataclasses.dataclass(frozen=True)
class BootRequest:
    """One create-servers request, in the compute API's words.

    Values are as validated by the REST schema, converted only where the
    body's form is loose (counts may be digit strings, config_drive a
    boolean-ish string). Block device mappings and personality entries
    keep their documented item vocabulary; block_device.normalize and
    personality.checked_files read them.
    """

    name: str
    flavor_ref: str
    image_ref: str = ''                  # an image id or a URL ending in one
    block_device_mappings: Optional[Sequence[Mapping[str, Any]]] = None
    image_props_override: Optional[Mapping[str, str]] = None
    key_name: Optional[str] = None
    availability_zone: Optional[str] = None   # 'zone', 'zone:host' or 'zone:host:node'
    min_count: int = 1
    max_count: Optional[int] = None      # None: as many as min_count
    metadata: Optional[Mapping[str, str]] = None
    personality: Optional[Sequence[Mapping[str, str]]] = None
    disk_config: Optional[str] = None    # 'AUTO', 'MANUAL' or None (the image decides)
    admin_password: Optional[str] = None  # None or '': generated if the deployment says so
    description: Optional[str] = None
    hostname: Optional[str] = None
    config_drive: bool = False
    user_data: Optional[str] = None
    access_ip_v4: Optional[str] = None
    access_ip_v6: Optional[str] = None
    tags: Sequence[str] = ()
    networks: Any = None                 # None, 'none', 'auto' or a list of requests
    security_groups: Sequence[str] = ()  # names (or ids); () is the project's 'default'
    scheduler_hints: Optional[Mapping[str, Any]] = None
    trusted_certs: Optional[Sequence[str]] = None  # 2.63 trusted_image_certificates
    supports_multiattach: bool = False   # 2.60: multiattach volumes may be booted from


@dataclasses.dataclass(frozen=True)
class RebuildRequest:
    """One rebuild action. UNSET fields leave the server's value as it is;
    None is a value (key_name None drops the key pair, user_data None clears it)."""

    image_ref: str                       # an image id or a URL ending in one
    admin_password: Optional[str] = None  # None or '': generated if the deployment says so
    name: Any = UNSET
    description: Any = UNSET
    metadata: Any = UNSET
    hostname: Any = UNSET
    user_data: Any = UNSET
    access_ip_v4: Any = UNSET
    access_ip_v6: Any = UNSET
    key_name: Any = UNSET
    personality: Optional[Sequence[Mapping[str, str]]] = None
    disk_config: Optional[str] = None    # 'AUTO', 'MANUAL' or None (unchanged)
    reimage_boot_volume: bool = False  # 2.93: a volume-backed root gets the new image
    trusted_certs: Any = UNSET           # 2.63: a list of ids, or None to reset
