"""The dated versions of the OpenStack and EC2 metadata formats, and what each adds."""

# EC2 format versions, oldest first (upstream's list; 'latest' is the last).
EC2_VERSIONS = ('1.0', '2007-01-19', '2007-03-01', '2007-08-29', '2007-10-10',
                '2007-12-15', '2008-02-01', '2008-09-01', '2009-04-04')

# OpenStack format versions, oldest first, named after the release that
# added them and what a guest finds from that version on.
FOLSOM = '2012-08-10'       # meta_data.json, user_data
GRIZZLY = '2013-04-04'      # random_seed, password
HAVANA = '2013-10-17'       # vendor_data.json
LIBERTY = '2015-10-15'      # network_data.json, project_id
NEWTON_ONE = '2016-06-30'   # devices (tagged devices)
NEWTON_TWO = '2016-10-06'   # vendor_data2.json
OCATA = '2017-02-22'        # devices carry their VLAN
ROCKY = '2018-08-27'        # devices carry vf_trusted
VICTORIA = '2020-10-14'     # dedicated_cpus
OPENSTACK_VERSIONS = (FOLSOM, GRIZZLY, HAVANA, LIBERTY, NEWTON_ONE, NEWTON_TWO, OCATA,
                      ROCKY, VICTORIA)

LATEST = 'latest'


class UnknownVersion(LookupError):
    """A version neither format lists."""


def openstack(version):
    """The dated OpenStack version ``version`` names ('latest' is the newest)."""
    if version == LATEST:
        return OPENSTACK_VERSIONS[-1]
    if version not in OPENSTACK_VERSIONS:
        raise UnknownVersion(version)
    return version


def ec2(version):
    """The dated EC2 version ``version`` names ('latest' is the newest)."""
    if version == LATEST:
        return EC2_VERSIONS[-1]
    if version not in EC2_VERSIONS:
        raise UnknownVersion(version)
    return version


def openstack_listing(today):
    """The OpenStack versions a guest is offered: none dated after ``today`` (YYYY-MM-DD)."""
    return [v for v in OPENSTACK_VERSIONS if v <= today] + [LATEST]


def ec2_listing():
    return list(EC2_VERSIONS) + [LATEST]


# Dated strings of one format sort in release order, so "at least" is a
# string comparison once 'latest' is resolved.
def at_least(version, required):
    return version >= required
