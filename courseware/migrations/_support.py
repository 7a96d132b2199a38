"""Steps shared by data migrations (the loader skips modules whose name starts with "_").

PostgreSQL queues the checks of deferrable foreign keys (Django makes every one DEFERRABLE
INITIALLY DEFERRED) until commit, and refuses to ALTER a table with checks still queued
("pending trigger events"). A migration that moves rows and then alters the same tables in one
transaction therefore fails there as soon as it has rows to move. Running the queued checks at
the end of the data step, as Django's own `check_constraints()` does, lets the schema steps that
follow proceed, and still refuses a row that points nowhere.
"""


def settle_deferred_checks(schema_editor) -> None:
    """Run the foreign-key checks the data step queued, now (PostgreSQL; others check at once)."""
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.connection.check_constraints()
