"""[conductor] options of the build orchestrator."""


GROUP = 'conductor'

# No options left: the two it had (workers, build_retries) were never read.
opts = []


def register_opts(conf):
    conf.register_opts(opts, group=GROUP)


def list_opts():
    return {GROUP: opts} if opts else {}
