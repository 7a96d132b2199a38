"""The figure registry and its bounds, far above what a real question draws, so that no
template can make a page draw without limit or put an unreadable picture on a phone."""

DRAWERS = ("bars", "roofline")
SCALES = ("linear", "log")
MAX_BARS = 12  # 12 labelled bars already fill a phone's screen
MAX_SERIES = 4  # stacked segments per bar, each with its own colour in the key
MAX_SERIES_NAME = 40
MAX_POINTS = 6
MAX_LABEL = 46  # a bar's label, as rendered: one line of the figure at 390 px
MAX_TITLE = 120
# The largest magnitude a value may have: more than any byte, FLOP/s or second count of the
# book, less than what would turn the axis ticks into nonsense.
MAX_VALUE = 1e30
MAX_LOG_DECADES = 9  # a log axis spans at most nine decades
