"""Colour roles: what each colour on screen means, taken from the Textual theme in use.

Three roles must never share a colour: WARNINGS (a failed or interrupted reply, its error row:
the theme's error and warning colours), the SELECTION (the selected message: its own colour,
`$tc-selection`, chosen per theme away from the warning hues, plus a glyph of its own) and
CONTENT (Markdown: headings, quotes, code, links). Rich's default Markdown styles are fixed
ANSI colours (magenta headings and quotes, inline code "bold cyan on black"), which drew
content in the warning colour on dark themes and black boxes on light ones; here every
`markdown.*` style Rich uses is built from the theme, text colours made readable (WCAG
contrast >= 4.5) on the background they are drawn on, and content colours whose hue is
close to a warning's are replaced by the plain foreground.

`rich_theme(theme)` is pushed onto the app's console when the theme changes (`apply()`), so
every Rich renderable the app draws (finished messages, the live reply) resolves the
`markdown.*` and `tc.*` style names through it. Code blocks get a Pygments style of their
own per theme (`code_theme_for`, resolved by `syntax_theme`): the token colours of monokai
(dark themes) or friendly (light ones), each made readable on the code block's background.

ANSI themes (`theme.ansi`) keep the terminal's own colours: their roles map onto ANSI names
and are not contrast-checked (the terminal decides what they look like).
"""

from __future__ import annotations

import functools
import threading
import weakref
from collections.abc import Mapping
from typing import TYPE_CHECKING

from msgspec import Struct
from rich.console import Console
from rich.default_styles import DEFAULT_STYLES
from rich.theme import Theme as RichTheme
from textual.color import Color
from textual.theme import Theme

if TYPE_CHECKING:
    from rich.syntax import SyntaxTheme

READABLE = 4.5
"""WCAG AA contrast for body text: what every text colour here reaches on its background."""
NEAR_HUE = 0.09
"""Hues closer than this (a fraction of the circle, about 32 degrees) read as the same colour."""
GREY = 0.2
"""Colours less saturated than this have no hue to speak of (they never clash)."""
CODE_TINT = 0.08
"""How far the code background moves from the background toward the text."""
CODE_THEME_PREFIX = "tui-chat:"
"""Code themes built here are named `tui-chat:<app theme>`; any other name is Pygments'."""

MARKDOWN_STYLES = tuple(name for name in DEFAULT_STYLES if name.startswith("markdown."))
"""Every Markdown style Rich knows; `rich_theme` defines each of them."""


def contrast(one: Color, other: Color) -> float:
    """WCAG 2 contrast ratio of two opaque colours (1 to 21)."""
    def luminance(colour: Color) -> float:
        def channel(value: int) -> float:
            c = value / 255
            return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
        return 0.2126 * channel(colour.r) + 0.7152 * channel(colour.g) + 0.0722 * channel(colour.b)

    high, low = sorted((luminance(one), luminance(other)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def readable(colour: Color, background: Color, minimum: float = READABLE) -> Color:
    """`colour`, moved toward white (on a dark background) or black (on a light one) just
    enough to reach `minimum` contrast on `background`."""
    target = Color(0, 0, 0) if background.brightness > 0.5 else Color(255, 255, 255)
    for step in range(21):
        moved = colour.blend(target, step / 20)
        if contrast(moved, background) >= minimum:
            return moved
    return target


def near_hue(one: Color, other: Color) -> bool:
    """Whether two colours would be read as the same hue (greys never are)."""
    a, b = one.hsl, other.hsl
    if a.s < GREY or b.s < GREY:
        return False
    distance = abs(a.h - b.h)
    return min(distance, 1 - distance) < NEAR_HUE


class Palette(Struct, frozen=True):
    """A theme's colours, opaque (or ANSI names for an ANSI theme)."""

    primary: Color
    secondary: Color
    accent: Color
    warning: Color
    error: Color
    foreground: Color
    background: Color
    ansi: bool

    @classmethod
    def of(cls, theme: Theme, variables: Mapping[str, str] | None = None) -> Palette:
        """The palette of `theme`, from its design `variables` when the caller has them
        (kept per theme object: Textual's design variables are not cheap to generate)."""
        known = _palettes.get(theme.name)
        if known is not None and known[0] is theme:
            return known[1]
        palette = cls._made(theme, variables or theme.to_color_system().generate())
        _palettes[theme.name] = (theme, palette)
        return palette

    @classmethod
    def _made(cls, theme: Theme, made: Mapping[str, str]) -> Palette:
        background = Color.parse(made["background"])
        foreground = Color.parse(made["foreground"])
        if not theme.ansi:  # a translucent foreground is drawn over the background
            foreground = background + foreground
        primary, secondary, accent, warning, error = (
            Color.parse(made[name]) for name in
            ("primary", "secondary", "accent", "warning", "error"))
        return cls(primary, secondary, accent, warning, error, foreground, background,
                   theme.ansi)

    @property
    def warnings(self) -> tuple[Color, Color]:
        return self.warning, self.error

    def clashes(self, colour: Color) -> bool:
        """Whether `colour` would read as a warning."""
        return any(near_hue(colour, warning) for warning in self.warnings)

    def text(self, colour: Color, background: Color | None = None) -> str:
        """`colour` as a Rich colour readable on `background` (the theme's by default)."""
        if self.ansi:
            return _ansi_name(colour)
        return readable(colour, background or self.background).hex6

    def content(self, colour: Color, background: Color | None = None) -> str:
        """A content colour: `colour` unless it would read as a warning, else the foreground."""
        return self.text(self.foreground if self.clashes(colour) else colour, background)

    @property
    def muted(self) -> str:
        if self.ansi:
            return "default"
        return readable(self.foreground.blend(self.background, 0.35), self.background).hex6

    @property
    def code_background(self) -> Color:
        """Behind inline code and code blocks: the background, a little toward the text."""
        return self.background.blend(self.foreground, CODE_TINT)


_palettes: dict[str, tuple[Theme, Palette]] = {}


def _ansi_name(colour: Color) -> str:
    """Rich's name for an ANSI colour ("ansi_bright_blue" → "bright_blue")."""
    if colour.ansi is None or colour.ansi < 0:
        return "default"
    from rich.color import ANSI_COLOR_NAMES

    names = {number: name for name, number in ANSI_COLOR_NAMES.items()}
    return names.get(colour.ansi, "default")


def selection_colour(palette: Palette) -> Color:
    """The selection's colour: the first of accent, primary and secondary that does not read
    as a warning; the foreground when all of them do."""
    for colour in (palette.accent, palette.primary, palette.secondary):
        if not palette.clashes(colour):
            return colour
    return palette.foreground


def css_variables(theme: Theme, variables: Mapping[str, str] | None = None
                  ) -> dict[str, str]:
    """Design variables for the roles: `$tc-selection`. `variables`: Textual's own for
    `theme`, when already made."""
    colour = selection_colour(Palette.of(theme, variables))
    return {"tc-selection": f"ansi_{_ansi_name(colour)}" if theme.ansi else colour.hex6}


def rich_theme(theme: Theme, *, no_color: bool = False) -> RichTheme:
    """Every `markdown.*` style Rich uses, and tui-chat's own `tc.*` roles, from `theme`.
    With `no_color` (NO_COLOR is set: Textual draws everything in grey), warnings are told
    apart by attributes alone: an error row in reverse video, warning states underlined."""
    p = Palette.of(theme)
    code_bg = "" if p.ansi else f" on {p.code_background.hex6}"
    on_code = None if p.ansi else p.code_background
    heading, second = p.content(p.primary), p.content(p.secondary)
    fg = p.text(p.foreground)
    styles = {
        "markdown.paragraph": "none", "markdown.text": "none", "markdown.item": "none",
        "markdown.em": "italic", "markdown.emph": "italic", "markdown.strong": "bold",
        "markdown.s": "strike",
        "markdown.code": f"bold {p.content(p.secondary, on_code)}{code_bg}",
        "markdown.code_block": f"{p.text(p.foreground, on_code)}{code_bg}",
        "markdown.kbd": f"bold {p.text(p.foreground, on_code)}{code_bg}",
        "markdown.block_quote": f"italic {p.muted}",
        "markdown.list": second, "markdown.item.bullet": f"bold {second}",
        "markdown.item.number": second,
        "markdown.hr": p.muted,
        "markdown.h1.border": heading,
        "markdown.h1": f"bold underline {heading}", "markdown.h2": f"bold {heading}",
        "markdown.h3": f"bold {second}", "markdown.h4": f"bold italic {fg}",
        "markdown.h5": f"italic {fg}", "markdown.h6": f"italic {p.muted}",
        "markdown.h7": f"italic {p.muted}",
        "markdown.link": f"underline {heading}", "markdown.link_url": f"underline {p.muted}",
        "markdown.table.border": p.muted, "markdown.table.header": f"bold {fg}",
        # Warnings: the colour and a second cue that survives NO_COLOR (bold, the glyph).
        "tc.error": f"bold {p.text(p.error)}",
        "tc.warning": f"bold italic {p.text(p.warning)}",
        "tc.notice": f"bold reverse {p.text(p.warning)}",  # a chip: the context near full
        "tc.summary": f"italic {p.muted}",  # the summary row: sent in place of turns
    }
    if no_color:
        styles["tc.error"] = "bold reverse"
        styles["tc.warning"] = "bold italic underline"
        styles["tc.notice"] = "bold reverse"
    return RichTheme(styles, inherit=True)


_pushed: weakref.WeakKeyDictionary[Console, tuple[str, bool]] = weakref.WeakKeyDictionary()
"""The theme pushed onto each console by `apply`: its name, and NO_COLOR. Weakly, by the
console itself: keyed by `id()`, a new console (the next app's) at the address of one gone
was taken for it, and left without the theme, or its base theme popped."""


def apply(console: Console, theme: Theme, *, no_color: bool = False) -> None:
    """Make `console` resolve the Markdown and role styles of `theme` (the last one applied
    is replaced, not stacked)."""
    wanted = (theme.name, no_color)
    pushed = _pushed.get(console)
    if pushed == wanted:
        return
    if pushed is not None:
        console.pop_theme()
    console.push_theme(rich_theme(theme, no_color=no_color))
    _pushed[console] = wanted
    remember(theme)


# --- code blocks ----------------------------------------------------------------------

class _CodeColours(Struct, frozen=True):
    theme: Theme
    dark: bool
    ansi: bool
    foreground: str
    background: str


_themes: dict[str, _CodeColours] = {}
_lock = threading.Lock()


def remember(theme: Theme) -> None:
    """Keep what `syntax_theme` needs to build `theme`'s code colours (from any thread)."""
    known = _themes.get(theme.name)
    if known is not None and known.theme is theme:
        return
    p = Palette.of(theme)
    with _lock:
        _themes[theme.name] = _CodeColours(theme, theme.dark, theme.ansi, p.foreground.hex6,
                                           p.background.hex6)


def code_theme_for(theme: Theme) -> str:
    """The code theme name for app theme `theme` (see `syntax_theme`)."""
    remember(theme)
    return f"{CODE_THEME_PREFIX}{theme.name}"


def syntax_theme(name: str) -> SyntaxTheme | str:
    """What Rich's Syntax should use for `name`: the theme built here for a `tui-chat:` name,
    else `name` itself (a Pygments style)."""
    if not name.startswith(CODE_THEME_PREFIX):
        return name
    with _lock:
        known = _themes.get(name.removeprefix(CODE_THEME_PREFIX))
    if known is None:
        return "monokai"
    return _built_syntax_theme(known.theme.name, known.dark, known.ansi,
                               (known.foreground, known.background))


def prime() -> None:
    """Build the code colours of every theme seen so far (the warm-up does it off the event
    loop, before the first code block needs them)."""
    with _lock:
        names = list(_themes)
    for name in names:
        syntax_theme(f"{CODE_THEME_PREFIX}{name}")


@functools.lru_cache(maxsize=64)
def _built_syntax_theme(name: str, dark: bool, ansi: bool,
                        colours: tuple[str, str]) -> SyntaxTheme:
    from pygments.style import Style  # type: ignore[import-untyped]
    from pygments.styles import get_style_by_name  # type: ignore[import-untyped]
    from rich.syntax import ANSI_DARK, ANSI_LIGHT, ANSISyntaxTheme, PygmentsSyntaxTheme

    if ansi:
        return ANSISyntaxTheme(ANSI_DARK if dark else ANSI_LIGHT)
    foreground, background = (Color.parse(colour) for colour in colours)
    code_background = background.blend(foreground, CODE_TINT)
    base = get_style_by_name("monokai" if dark else "friendly")
    styles: dict[object, str] = {}
    for token in base.styles:
        found = base.style_for_token(token)
        parts = [word for word, on in (("bold", found["bold"]), ("italic", found["italic"]),
                                       ("underline", found["underline"])) if on]
        if found["color"]:
            colour = readable(Color.parse(f"#{found['color']}"), code_background)
            parts.append(colour.hex6)
        styles[token] = " ".join(parts)
    made = type(f"TuiChat_{name}", (Style,), {
        "styles": styles, "background_color": code_background.hex6,
        "highlight_color": code_background.hex6})
    return PygmentsSyntaxTheme(made)
