"""Forms at the app's edges: a request's fields become typed values here, so views hand the
services numbers and known choices, never raw strings (the services' own rules stay there).

`studio` holds the studio's forms, `instructor` the gradebook's query string and the
instructor's override and extension forms. Forms use the models and the services' constants;
only views import them.
"""

from quizzes.forms.instructor import (
    AccommodationForm,
    ExtensionForm,
    GradebookForm,
    GroupExtensionForm,
    OverrideForm,
)
from quizzes.forms.studio import PreviewSeedForm, QuizItemForm, ValidateForm

__all__ = [
    "AccommodationForm",
    "ExtensionForm",
    "GroupExtensionForm",
    "GradebookForm",
    "OverrideForm",
    "PreviewSeedForm",
    "QuizItemForm",
    "ValidateForm",
]
