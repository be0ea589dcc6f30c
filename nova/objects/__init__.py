"""Versioned objects that cross RPC; import register_all() before use."""


def register_all():
    # Importing each module registers its classes with the registry.
    __import__('nova.objects.flavor')
    __import__('nova.objects.image_meta')
    __import__('nova.objects.instance')
    __import__('nova.objects.block_device')
