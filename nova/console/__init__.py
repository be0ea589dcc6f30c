"""Guest consoles: console auth tokens and the websocket proxies (noVNC, serial)."""
