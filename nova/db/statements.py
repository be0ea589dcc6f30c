"""Statements built once per shape and run with bound values (a build costs more than a run)."""

import functools

import sqlalchemy as sa

# SQLAlchemy builds a statement and its cache key in Python on every call
# (about 0.3-0.6 ms for an instance row with its joins); a statement built
# once and executed with parameters costs a tenth of that. Statements here
# are keyed on their shape (table, the column names they compare or set),
# never on values.


def where_param(name):
    """The bound parameter a statement below compares column ``name`` with."""
    return 'w_' + name


def value_param(name):
    """The bound parameter a statement below sets column ``name`` from."""
    return 'v_' + name


def _equal(table, names):
    return [table.c[name] == sa.bindparam(where_param(name)) for name in names]


@functools.cache
def select_by(table, names, order_by=None, columns=None):
    """SELECT (``columns`` or every column) FROM ``table`` WHERE each of
    ``names`` = its parameter, ORDER BY column ``order_by`` ('-name': descending)."""
    query = sa.select(*([table.c[c] for c in columns] if columns else [table]))
    query = query.where(*_equal(table, names))
    if order_by:
        column = table.c[order_by.lstrip('-')]
        query = query.order_by(column.desc() if order_by.startswith('-') else column)
    return query


@functools.cache
def insert(table):
    return table.insert()


@functools.cache
def update_by(table, names, columns):
    """UPDATE ``table`` SET each of ``columns`` WHERE each of ``names`` = its parameter."""
    return table.update().where(*_equal(table, names)).values(
        {column: sa.bindparam(value_param(column)) for column in columns})


@functools.cache
def delete_by(table, names):
    return table.delete().where(*_equal(table, names))


def params(where, values=None):
    """The parameters of a statement above: ``where`` and ``values`` by column name."""
    out = {where_param(name): value for name, value in where.items()}
    for name, value in (values or {}).items():
        out[value_param(name)] = value
    return out
