"""manage.py in a development checkout reads the `.secret-key` that `make` wrote; a production
environment (its own hosts) or an exported key is never overridden."""

from __future__ import annotations

from manage import development_defaults


def test_a_development_checkout_uses_its_secret_key_file(tmp_path):
    (tmp_path / ".secret-key").write_text("k" * 64 + "\n")
    assert development_defaults({}, tmp_path) == {
        "DJANGO_SECRET_KEY": "k" * 64,
        "DJANGO_INSECURE_HTTP": "1",
    }
    assert (
        development_defaults({"DJANGO_INSECURE_HTTP": "0"}, tmp_path)["DJANGO_INSECURE_HTTP"] == "0"
    )


def test_production_or_an_exported_key_is_left_alone(tmp_path):
    (tmp_path / ".secret-key").write_text("k" * 64)
    assert development_defaults({"DJANGO_ALLOWED_HOSTS": "quiz.example.org"}, tmp_path) == {}
    assert development_defaults({"DJANGO_SECRET_KEY": "mine"}, tmp_path) == {}
    assert development_defaults({"DJANGO_DEBUG": "0"}, tmp_path) == {}
    assert development_defaults({"DJANGO_DEBUG": "1"}, tmp_path)["DJANGO_SECRET_KEY"] == "k" * 64
    assert development_defaults({}, tmp_path / "no-checkout") == {}
