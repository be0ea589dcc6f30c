"""Flavor rules: private flavor access, description updates and extra specs."""

from nova import exception
from nova.compute import extra_specs as extra_specs_mod


class FlavorsAPI:
    """Flavors for the compute API; handlers have checked policy already."""

    def __init__(self, db):
        self._db = db

    def flavor_get(self, context, flavorid):
        """A flavor the caller may see: admins see all, others public or granted ones."""
        flavor = self._db.flavor_get(flavorid)
        if not flavor['is_public'] and not context.is_admin and \
                flavor['id'] not in self._db.flavor_projects_flavor_ids(context.project_id):
            raise exception.FlavorNotFound(flavor_id=flavorid)
        return flavor

    def flavor_list(self, context, is_public=True, **kwargs):
        if not context.is_admin:
            # Users see public flavors plus the private ones granted to their project.
            return self._db.flavor_get_all(is_public=True, project_id=context.project_id,
                                           **kwargs)
        return self._db.flavor_get_all(is_public=is_public, **kwargs)

    def flavor_create(self, context, values):
        return self._db.flavor_create(values)

    def flavor_delete(self, context, flavorid):
        self._db.flavor_destroy(flavorid)

    def flavor_update_description(self, context, flavorid, description):
        return self._db.flavor_update(flavorid, {'description': description})

    # -- extra specs -------------------------------------------------------------
    @staticmethod
    def _stringify_specs(specs, validate):
        out = {}
        for name, value in specs.items():
            if isinstance(value, bool):
                value = str(value)
            elif isinstance(value, (int, float)):
                value = str(value)
                if len(value) > 255:
                    raise exception.Invalid(reason='extra_specs value has more than 255 '
                                                   'characters.')
            if validate:
                extra_specs_mod.validate(name, value)
            out[name] = value
        return out

    def flavor_extra_specs_get(self, context, flavorid):
        return self.flavor_get(context, flavorid)['extra_specs'] or {}

    def flavor_extra_specs_set(self, context, flavorid, specs, validate=False):
        specs = self._stringify_specs(specs, validate)
        self._db.flavor_extra_specs_update(flavorid, specs)
        return specs

    def flavor_extra_specs_delete(self, context, flavorid, key):
        self._db.flavor_extra_specs_update(flavorid, {}, delete_key=key)

    # -- access --------------------------------------------------------------------
    def flavor_access_list(self, context, flavorid):
        flavor = self._db.flavor_get(flavorid)
        if flavor['is_public']:
            raise exception.NotFound('Access list not available for public flavors.')
        return self._db.flavor_access_get(flavorid)

    def flavor_access_add(self, context, flavorid, project_id, refuse_public=True):
        flavor = self._db.flavor_get(flavorid)
        if refuse_public and flavor['is_public']:
            raise exception.Conflict('Can not add access to a public flavor.')
        self._db.flavor_access_add(flavorid, project_id)
        return self._db.flavor_access_get(flavorid)

    def flavor_access_remove(self, context, flavorid, project_id):
        self._db.flavor_access_remove(flavorid, project_id)
        return self._db.flavor_access_get(flavorid)
