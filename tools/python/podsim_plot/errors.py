"""The one error podsim_plot reports to its user: bad input, named by file."""
import unicodedata

# Characters that must not reach a terminal as they are: control characters (an escape
# sequence in a scenario name could recolour or retitle the user's terminal), format
# characters (a right-to-left override reorders what follows), lone surrogates (undecodable
# bytes in a file name) and line or paragraph separators (a second line).
_UNPRINTABLE = {"Cc", "Cf", "Cs", "Zl", "Zp"}


def _escaped(character):
    code = ord(character)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def printable(text, keep=""):
    """`text` with every control, format or separator character but those in `keep` written as
    a Python escape (ESC as `\\x1b`, a newline as `\\x0a`): safe to print on a terminal, and
    one line unless `keep` has a newline."""
    text = str(text)
    if text.isprintable():  # the common case, fast ("printable" also excludes spaces other than ' ')
        return text
    return "".join(_escaped(c) if unicodedata.category(c) in _UNPRINTABLE and c not in keep else c
                   for c in text)


class PlotError(Exception):
    """Input that cannot be plotted: not a podsim file, a missing table or column, an unknown
    axis or figure, a value a figure cannot show. `str()` is one printable line naming the
    file and what is wrong (control characters escaped); the command line prints it and exits
    with code 2. `path` and `message` are as given."""

    def __init__(self, path, message):
        super().__init__(printable(f"{path}: {message}"))
        self.path = path
        self.message = message
