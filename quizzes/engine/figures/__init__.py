"""A template's ``figure``: a picture of the variant's own numbers, drawn on the server.

``parse.FigureRules`` reads the template's ``figure:`` (a drawer of ``DRAWERS`` and the
expressions of what it draws); ``draw.draw_figure`` evaluates them on a variant into plain
data; ``leaks.figure_leaks`` is the gate's rule that the figure shows no key. The SVG is drawn
by the Django side (``quizzes.presenters.figures``); no markup from a template reaches a page.
"""

from quizzes.engine.figures.draw import DrawnBar, DrawnFigure, draw_figure
from quizzes.engine.figures.leaks import figure_leaks
from quizzes.engine.figures.limits import DRAWERS

__all__ = ["DRAWERS", "DrawnBar", "DrawnFigure", "draw_figure", "figure_leaks"]
