"""Console tokens: what they store (the SPICE TLS port too) and the URL forms per proxy."""

from nova.console import tokens

UUID = '6c1f3b2e-3f0b-4a59-9a53-0d2f9a7c1e11'


def test_spice_tokens_keep_the_tls_port_and_use_token_urls(db):
    token, url = tokens.issue(db, 600, UUID, 'spice-direct',
                              {'host': '192.0.2.1', 'port': 5901, 'tls_port': 5902},
                              'http://127.0.0.1:13002/nova')
    assert url == 'http://127.0.0.1:13002/nova?token=' + token
    row = tokens.validate(db, token, 'spice-direct')
    assert (row['host'], row['port'], row['tls_port']) == ('192.0.2.1', 5901, 5902)
    token, url = tokens.issue(db, 600, UUID, 'spice-html5', {'host': 'h', 'port': 5900},
                              'http://127.0.0.1:6082/spice_auto.html')
    assert url == 'http://127.0.0.1:6082/spice_auto.html?token=' + token
    assert tokens.validate(db, token)['tls_port'] is None
