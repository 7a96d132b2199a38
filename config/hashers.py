"""The site's password hasher: Argon2id at OWASP's recommended minimum.

Django's default, PBKDF2-SHA256 at 1,000,000 iterations, costs about 0.4-0.6 s of CPU per
login on the 2-core bench machine: a class of 300 logging in within a minute asks for more CPU
than two cores have, and every answer post waits behind the hashing. Argon2id is memory-hard
(a GPU or ASIC guessing passwords pays for the memory too, which PBKDF2 does not make it do),
and at OWASP's parameters costs about 35 ms of CPU a check on the same machine.

Parameters: m = 19 MiB, t = 2 iterations, p = 1 lane, the second of the equivalent
configurations in the OWASP Password Storage Cheat Sheet ("Argon2id with a minimum
configuration of 19 MiB of memory, an iteration count of 2, and 1 degree of parallelism");
RFC 9106 section 4 describes the trade-off. Django's own Argon2 defaults (100 MiB, 8 lanes) cost
0.3 s of CPU here, nearly as much as PBKDF2, for strength a login does not need.

The algorithm name stays Django's ("argon2"), so these hashes are ordinary Django Argon2 hashes;
a stored hash with other parameters (or a PBKDF2 one) is re-hashed with these on the user's
next successful login (`must_update`, Django's standard upgrade path).
"""

from __future__ import annotations

from django.contrib.auth.hashers import Argon2PasswordHasher


class OwaspArgon2PasswordHasher(Argon2PasswordHasher):
    """Argon2id, m = 19 MiB, t = 2, p = 1 (OWASP Password Storage Cheat Sheet)."""

    time_cost = 2
    memory_cost = 19 * 1024  # KiB
    parallelism = 1
