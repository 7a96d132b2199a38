"""The suite's fixtures that tests outside tests/ need: the answer kinds keep their tests in
their own folders (quizzes/engine/kinds/<kind>/), and those reach the site through
tests/kind_fixtures.py."""

pytest_plugins = ["tests.kind_fixtures"]
