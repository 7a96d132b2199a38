"""Version stamps: the invalidation no writer can forget (part of `courseware.caching`).

Where a cache key cannot name the rows its value was drawn from (a page drawn from an
attempt's responses, saved answers and variants; statistics kept over a quiz's grades), it
names a `Stamp`: a version number on an owner row that every write to a watched row raises,
in the writer's own transaction. The code raises it, not the writer: `Stamp.watch` connects
the model's `post_save` and `pre_delete` signals, and the watched model's manager is a
`StampedQuerySet`'s, whose `update` and `bulk_create` (and so `bulk_update`), which send no
signal, raise the stamps themselves. Only SQL of one's own gets past: the tests
(`tests/courseware/test_stamps.py`) scan the apps for it and allow the one reviewed upsert.

`batch()` raises each owner once for many writes in one transaction (a Check writes a
response and its variant's score): a writer that forgets it pays a query per write, never a
stale page. Nothing here knows what an owner is: the app that owns the rows registers its
stamps and the models they watch (`quizzes/stamps.py`).
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable
from contextlib import contextmanager
from typing import Any

from django.db import connections, transaction
from django.db.models import Model, QuerySet
from django.db.models.signals import post_save, pre_delete

_LOCK = threading.Lock()

# The owners whose stamps a `batch()` raises when it ends, per stamp (None: no batch open).
_batched: contextvars.ContextVar[dict | None] = contextvars.ContextVar("stamp_batch", default=None)
# Set while `StampedQuerySet.bulk_update` runs the updates whose rows it raised already.
_quiet: contextvars.ContextVar[bool] = contextvars.ContextVar("stamp_quiet", default=False)


class Stamp:
    """A version number on an owner row (an attempt's `page_stamp`, a quiz's statistics counter)
    that caches key on, raised by every write to a row that feeds them.

    `raise_owners(owners)` raises it for a set of owner ids or a one-column `.values()`
    queryset of them. Each watched model says how its rows reach their owner: a forward
    foreign-key path (`"variant__attempt"`) or a function of the written rows giving the
    owners (an author's edit of a quiz item reaches every attempt at the quiz).
    """

    def __init__(self, name: str, *, raise_owners: Callable[[Any], None], why: str):
        self.name, self.why = name, why
        self._raise_owners = raise_owners
        self.watched: dict[type[Model], Callable[[list], Any]] = {}
        self._when: dict[type[Model], Callable[..., bool]] = {}

    def __repr__(self) -> str:
        return f"<Stamp {self.name}>"

    def watch(self, model, owners, *, when: Callable[..., bool] | None = None) -> None:
        """Raise this stamp on every save and delete of `model`'s rows (signals) and on its
        `update` and `bulk_create` (the model's manager must be a `StampedQuerySet`'s).
        `owners`: a foreign-key path from the row to its owner, or `rows -> owners`.
        `when(row, created, fields)` may leave out writes that change nothing the caches
        show (`row` None for an `update`; `fields` None for a save of every field)."""
        if not issubclass(model._default_manager._queryset_class, StampedQuerySet):
            raise TypeError(f"{model.__name__}'s manager must be a StampedQuerySet's")
        self.watched[model] = _path_owners(model, owners) if isinstance(owners, str) else owners
        if when is not None:
            self._when[model] = when
        uid = f"stamp:{self.name}:{model._meta.label}"

        def saved(sender, instance, created=False, update_fields=None, raw=False, **kwargs):
            if not raw:
                self.raise_for(model, self.changing(model, [instance], created, update_fields))

        def deleting(sender, instance, **kwargs):
            self.raise_for(model, [instance])

        post_save.connect(saved, sender=model, weak=False, dispatch_uid=uid + ":save")
        pre_delete.connect(deleting, sender=model, weak=False, dispatch_uid=uid + ":delete")

    def changing(self, model, rows: list, created: bool = False, fields=None) -> list:
        """The rows among `rows` whose write changes what this stamp's caches show."""
        when = self._when.get(model)
        fields = None if fields is None else frozenset(fields)
        return rows if when is None else [row for row in rows if when(row, created, fields)]

    def raise_for(self, model, rows: list) -> None:
        """Raise the stamp of the owners of `rows` (instances of a watched `model`): now, or
        when the open `batch` ends."""
        if not rows:
            return
        owners = self.watched[model](rows)
        pending = _batched.get()
        if pending is None:
            self._raise_owners(owners)
        else:  # ids now: the rows a subquery would go through may be gone when the batch ends
            pending.setdefault(self, set()).update(ids_of(owners))

    def changes_on_update(self, model, fields) -> bool:
        """Whether an `update` of `fields` of `model`'s rows changes what this stamp's caches
        show."""
        when = self._when.get(model)
        return when is None or when(None, False, frozenset(fields))

    def raise_query(self, model, queryset: QuerySet) -> None:
        """Raise the stamp of the owners of the rows `queryset` selects (before an update
        changes them)."""
        path = getattr(self.watched[model], "path", None)
        if path is None:
            self.raise_for(model, list(queryset))
            return
        owners = queryset.values(path)
        pending = _batched.get()
        if pending is None:
            self._raise_owners(owners)
        else:
            pending.setdefault(self, set()).update(ids_of(owners))


@contextmanager
def batch():
    """Inside this block (in the writer's transaction) every watched write, of any stamp,
    only records its owners; each stamp is raised once for all of them when the block
    ends (as late as the writer's transaction allows: a raise locks the owner's row)."""
    if _batched.get() is not None:  # a batch inside a batch: the outer one raises
        yield
        return
    pending: dict[Stamp, set] = {}
    token = _batched.set(pending)
    try:
        yield
    finally:
        _batched.reset(token)
    for held, owners in pending.items():
        if owners:
            held._raise_owners(owners)


def ids_of(owners) -> set:
    """Owner ids as a set, from a set of ids or a one-column `.values()` queryset."""
    if isinstance(owners, QuerySet):
        return {next(iter(row.values())) if isinstance(row, dict) else row for row in owners}
    return set(owners) - {None}


def _path_owners(model, path: str) -> Callable[[list], Any]:
    """`rows -> owners` along a forward foreign-key path: the ids read from the rows and the
    related rows they hold already (no query), else one subquery from the first related row
    not held."""
    parts = path.split("__")

    def owners(rows):
        ids, subqueries = set(), {}
        for row in rows:
            here, step = row, 0
            while True:
                field = type(here)._meta.get_field(parts[step])
                if step == len(parts) - 1:
                    ids.add(getattr(here, field.attname))
                    break
                if not field.is_cached(here):
                    key = (field.related_model, "__".join(parts[step + 1 :]))
                    subqueries.setdefault(key, set()).add(getattr(here, field.attname))
                    break
                here, step = field.get_cached_value(here), step + 1
        ids.discard(None)
        if not subqueries:
            return ids
        found = [
            related._default_manager.filter(pk__in=keys).values(rest)
            for (related, rest), keys in subqueries.items()
        ]
        if not ids and len(found) == 1:
            return found[0]  # one subquery the raise folds into its UPDATE
        for query in found:
            ids |= ids_of(query)
        return ids

    owners.path = path
    return owners


_STAMPS: dict[str, Stamp] = {}


def stamp(name: str, *, raise_owners: Callable[[Any], None], why: str) -> Stamp:
    """The stamp called `name` (made once; its models are watched where the owner's app says)."""
    with _LOCK:
        held = _STAMPS.get(name)
        if held is None:
            held = _STAMPS[name] = Stamp(name, raise_owners=raise_owners, why=why)
        return held


def stamps() -> list[Stamp]:
    with _LOCK:
        return list(_STAMPS.values())


def watched_models() -> set[type[Model]]:
    """Every model some stamp watches (the write scan in the tests reads this)."""
    return {model for held in stamps() for model in held.watched}


def _watching(model) -> list[Stamp]:
    return [held for held in stamps() if model in held.watched]


class StampedQuerySet(QuerySet):
    """The queryset (and, `as_manager()`, the manager) of every watched model: the writes that
    send no signal raise the stamps themselves, so no ORM path skips them. `update` raises the
    owners of the rows it selects (found before it changes them); `bulk_create` and
    `bulk_update` the owners of the rows they are given."""

    def update(self, **fields):
        raising = [] if _quiet.get() else _watching(self.model)
        raising = [held for held in raising if held.changes_on_update(self.model, fields)]
        if not raising:  # no transaction of its own for an update that raises nothing
            return super().update(**fields)
        with transaction.atomic(using=self.db, savepoint=False):
            for held in raising:
                held.raise_query(self.model, self)
            return super().update(**fields)

    update.alters_data = True

    def bulk_create(self, objs, *args, **kwargs):
        objs = list(objs)
        with transaction.atomic(using=self.db, savepoint=False):
            made = super().bulk_create(objs, *args, **kwargs)
            for held in _watching(self.model):
                held.raise_for(self.model, held.changing(self.model, objs, created=True))
        return made

    bulk_create.alters_data = True

    def copy_create(self, objs) -> list:
        """`bulk_create` for a great many new rows (demo data): on PostgreSQL one COPY, their
        ids taken from the table's sequence first so the rows come back with them as
        `bulk_create`'s do; elsewhere `bulk_create`. The stamps are raised exactly as
        `bulk_create` raises them (the owners of the rows given).

        Why: PostgreSQL's `bulk_create` sends each column as one array (UNNEST), and psycopg
        escapes a text array element by element in Python, which for JSON columns cost more
        than drawing the rows (a third of seeding a class); COPY's rows are written in C."""
        objs = list(objs)
        connection = connections[self.db]
        if connection.vendor != "postgresql" or not objs:
            return self.bulk_create(objs)
        model = self.model
        meta = model._meta
        fields = list(meta.concrete_fields)
        quote = connection.ops.quote_name
        with transaction.atomic(using=self.db, savepoint=False), connection.cursor() as cursor:
            missing = [obj for obj in objs if obj.pk is None]
            if missing:
                cursor.execute(
                    "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
                    [meta.db_table, meta.pk.column, len(missing)],
                )
                for obj, pk in zip(missing, sorted(row[0] for row in cursor.fetchall())):
                    obj.pk = pk
            columns = ", ".join(quote(field.column) for field in fields)
            with cursor.copy(f"COPY {quote(meta.db_table)} ({columns}) FROM STDIN") as copy:
                for obj in objs:
                    obj._prepare_related_fields_for_save(operation_name="copy_create")
                    copy.write_row(
                        [
                            field.get_db_prep_save(field.pre_save(obj, True), connection)
                            for field in fields
                        ]
                    )
            for obj in objs:
                obj._state.adding, obj._state.db = False, self.db
            for held in _watching(model):
                held.raise_for(model, held.changing(model, objs, created=True))
        return objs

    copy_create.alters_data = True

    def bulk_update(self, objs, fields, *args, **kwargs):
        # The rows are at hand: their owners are read from them, and the `update`s Django
        # makes of them inside raise nothing more.
        objs = list(objs)
        with transaction.atomic(using=self.db, savepoint=False):
            for held in _watching(self.model):
                held.raise_for(self.model, held.changing(self.model, objs, fields=fields))
            token = _quiet.set(True)
            try:
                return super().bulk_update(objs, fields, *args, **kwargs)
            finally:
                _quiet.reset(token)

    bulk_update.alters_data = True
