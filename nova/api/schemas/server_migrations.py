"""Request body of POST /servers/{id}/migrations/{id}/action (force_complete, 2.22)."""

force_complete = {
    'type': 'object',
    'properties': {'force_complete': {'type': 'null'}},
    'required': ['force_complete'],
    'additionalProperties': False,
}
