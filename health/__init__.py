"""Is the site working: the background-task worker's heartbeat, its supervision and recovery
from database errors, and the health endpoints (`/healthz`, `/readyz`).

Dependencies point one way: `health` reads `django_tasks_db`'s rows and Django's cache and
database; the apps may import it (the instructor dashboard shows the heartbeat), it imports
none of them.
"""
