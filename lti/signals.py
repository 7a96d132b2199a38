"""Grade passback hooks (filled in with lti/passback.py)."""
