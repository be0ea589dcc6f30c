"""Flavor extra spec validation from 2.86."""

import pytest

from nova import exception
from nova.compute import extra_specs


@pytest.mark.parametrize('name,value', [
    ('hw:cpu_policy', 'dedicated'), ('hw:numa_nodes', '2'), ('hw:numa_cpus.0', '0-1'),
    ('hw:mem_page_size', '2MB'), ('hw:mem_page_size', 'large'), ('hw_rng:allowed', 'True'),
    ('quota:disk_read_bytes_sec', '10240'), ('quota:vif_inbound_average', '1'),
    ('unknown', 'anything'), ('vendor:thing', 'x'), ('trait:HW_CPU_X86_AVX', 'required'),
])
def test_accepted(name, value):
    extra_specs.validate(name, value)


@pytest.mark.parametrize('name,value,fragment', [
    ('hw:cpu_policy', 'exclusive', "is not one of"),
    ('hw:numa_nodes', '0', 'less than the minimum'),
    ('hw:numa_nodes', 'two', 'not a valid integer'),
    ('hw_rng:allowed', 'maybe', 'not a valid boolean'),
    ('hw:mem_page_size', 'huge', 'is not valid'),
    ('hw:no_such_key', '1', 'does not appear to be a valid extra spec'),
    ('quota:nope', '1', 'does not appear to be a valid extra spec'),
])
def test_refused(name, value, fragment):
    with pytest.raises(exception.ValidationError) as err:
        extra_specs.validate(name, value)
    assert fragment in err.value.format_message()
    assert err.value.code == 400
