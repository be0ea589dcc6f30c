"""The RPC target every conductor endpoint carries: the version this conductor serves."""

import oslo_messaging as messaging

# History: nova/conductor/rpcapi.py. oslo.messaging hands a message to the
# first endpoint whose target accepts its version and that has the method.
TARGET = messaging.Target(version='1.7')
