"""The one error podsim_plot reports to its user: bad input, named by file."""


class PlotError(Exception):
    """Input that cannot be plotted: not a podsim file, a missing table or column, an unknown
    axis or figure. `str()` is one line naming the file and what is wrong; the command line
    prints it and exits with code 2."""

    def __init__(self, path, message):
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message
