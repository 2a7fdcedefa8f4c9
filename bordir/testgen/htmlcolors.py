"""CSS colours: named colours, ``#rgb``/``#rrggbb``/``#rgba``, ``rgb()``/``rgba()``, ``hsl()``/``hsla()``, ``transparent``.

Used by :mod:`bordir.testgen.htmlstyle` to tell text that has no contrast with its background
(:func:`contrast`: the WCAG contrast ratio, 1 for equal colours, 21 for black on white).

Example:
    >>> parse_color("white", None), parse_color("#0008", None), parse_color("rgb(255 0 0 / 50%)", None)
    ((255.0, 255.0, 255.0, 1.0), (0.0, 0.0, 0.0, 0.5333333333333333), (255.0, 0.0, 0.0, 0.5))
    >>> parse_color("hsl(0, 0%, 100%)", None), parse_color("currentColor", (1.0, 2.0, 3.0, 1.0))
    ((255.0, 255.0, 255.0, 1.0), (1.0, 2.0, 3.0, 1.0))
"""

from __future__ import annotations

import colorsys
import re

__all__ = ["NAMED", "parse_color", "over", "contrast"]

RGBA = tuple[float, float, float, float]

_TABLE = (
    "aliceblue f0f8ff antiquewhite faebd7 aqua 00ffff aquamarine 7fffd4 azure f0ffff beige f5f5dc "
    "bisque ffe4c4 black 000000 blanchedalmond ffebcd blue 0000ff blueviolet 8a2be2 brown a52a2a "
    "burlywood deb887 cadetblue 5f9ea0 chartreuse 7fff00 chocolate d2691e coral ff7f50 cornflowerblue "
    "6495ed cornsilk fff8dc crimson dc143c cyan 00ffff darkblue 00008b darkcyan 008b8b darkgoldenrod "
    "b8860b darkgray a9a9a9 darkgreen 006400 darkgrey a9a9a9 darkkhaki bdb76b darkmagenta 8b008b "
    "darkolivegreen 556b2f darkorange ff8c00 darkorchid 9932cc darkred 8b0000 darksalmon e9967a "
    "darkseagreen 8fbc8f darkslateblue 483d8b darkslategray 2f4f4f darkslategrey 2f4f4f darkturquoise "
    "00ced1 darkviolet 9400d3 deeppink ff1493 deepskyblue 00bfff dimgray 696969 dimgrey 696969 "
    "dodgerblue 1e90ff firebrick b22222 floralwhite fffaf0 forestgreen 228b22 fuchsia ff00ff "
    "gainsboro dcdcdc ghostwhite f8f8ff gold ffd700 goldenrod daa520 gray 808080 green 008000 "
    "greenyellow adff2f grey 808080 honeydew f0fff0 hotpink ff69b4 indianred cd5c5c indigo 4b0082 "
    "ivory fffff0 khaki f0e68c lavender e6e6fa lavenderblush fff0f5 lawngreen 7cfc00 lemonchiffon "
    "fffacd lightblue add8e6 lightcoral f08080 lightcyan e0ffff lightgoldenrodyellow fafad2 lightgray "
    "d3d3d3 lightgreen 90ee90 lightgrey d3d3d3 lightpink ffb6c1 lightsalmon ffa07a lightseagreen "
    "20b2aa lightskyblue 87cefa lightslategray 778899 lightslategrey 778899 lightsteelblue b0c4de "
    "lightyellow ffffe0 lime 00ff00 limegreen 32cd32 linen faf0e6 magenta ff00ff maroon 800000 "
    "mediumaquamarine 66cdaa mediumblue 0000cd mediumorchid ba55d3 mediumpurple 9370db mediumseagreen "
    "3cb371 mediumslateblue 7b68ee mediumspringgreen 00fa9a mediumturquoise 48d1cc mediumvioletred "
    "c71585 midnightblue 191970 mintcream f5fffa mistyrose ffe4e1 moccasin ffe4b5 navajowhite ffdead "
    "navy 000080 oldlace fdf5e6 olive 808000 olivedrab 6b8e23 orange ffa500 orangered ff4500 orchid "
    "da70d6 palegoldenrod eee8aa palegreen 98fb98 paleturquoise afeeee palevioletred db7093 "
    "papayawhip ffefd5 peachpuff ffdab9 peru cd853f pink ffc0cb plum dda0dd powderblue b0e0e6 purple "
    "800080 rebeccapurple 663399 red ff0000 rosybrown bc8f8f royalblue 4169e1 saddlebrown 8b4513 "
    "salmon fa8072 sandybrown f4a460 seagreen 2e8b57 seashell fff5ee sienna a0522d silver c0c0c0 "
    "skyblue 87ceeb slateblue 6a5acd slategray 708090 slategrey 708090 snow fffafa springgreen 00ff7f "
    "steelblue 4682b4 tan d2b48c teal 008080 thistle d8bfd8 tomato ff6347 turquoise 40e0d0 violet "
    "ee82ee wheat f5deb3 white ffffff whitesmoke f5f5f5 yellow ffff00 yellowgreen 9acd32 "
).split()
NAMED: dict[str, str] = dict(zip(_TABLE[::2], _TABLE[1::2]))
"""The 148 named colours of CSS Color 4, as hex."""

_FUNC = re.compile(r"^(rgba?|hsla?)\(([^)]*)\)$")


def _channel(text: str, scale: float) -> float:
    text = text.strip()
    if text.endswith("%"):
        return float(text[:-1]) * scale / 100
    return float(text)


def parse_color(value: str, current: RGBA | None) -> RGBA | None:
    """The RGBA of a CSS colour (alpha 0–1), ``current`` for ``currentcolor`` / ``inherit``, None if unknown."""
    v = value.strip().lower()
    if v in ("currentcolor", "inherit", "unset", "initial", ""):
        return current
    if v == "transparent":
        return (0.0, 0.0, 0.0, 0.0)
    if v in NAMED:
        v = "#" + NAMED[v]
    if v.startswith("#"):
        h = v[1:]
        if len(h) in (3, 4):
            h = "".join(c * 2 for c in h)
        if len(h) not in (6, 8) or any(c not in "0123456789abcdef" for c in h):
            return None
        a = int(h[6:8], 16) / 255 if len(h) == 8 else 1.0
        return (float(int(h[0:2], 16)), float(int(h[2:4], 16)), float(int(h[4:6], 16)), a)
    m = _FUNC.match(v)
    if m is None:
        return None
    parts = [p for p in re.split(r"[\s,/]+", m.group(2).strip()) if p]
    if len(parts) not in (3, 4):
        return None
    try:
        alpha = _channel(parts[3], 1.0) if len(parts) == 4 else 1.0
        if m.group(1).startswith("rgb"):
            r, g, b = (_channel(p, 255) for p in parts[:3])
        else:
            hue = float(parts[0].rstrip("deg")) / 360
            r, g, b = (
                x * 255
                for x in colorsys.hls_to_rgb(hue % 1, _channel(parts[2], 1), _channel(parts[1], 1))
            )
    except ValueError:
        return None
    return (float(r), float(g), float(b), max(0.0, min(1.0, alpha)))


def _luminance(c: RGBA) -> float:
    def ch(v: float) -> float:
        v /= 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    return 0.2126 * ch(c[0]) + 0.7152 * ch(c[1]) + 0.0722 * ch(c[2])


def over(top: RGBA, under: RGBA) -> RGBA:
    """``top`` painted over the opaque ``under``."""
    a = top[3]
    return (
        top[0] * a + under[0] * (1 - a),
        top[1] * a + under[1] * (1 - a),
        top[2] * a + under[2] * (1 - a),
        1.0,
    )


def contrast(fg: RGBA, bg: RGBA) -> float:
    """The WCAG contrast ratio of text ``fg`` on the opaque background ``bg`` (1 to 21).

    >>> round(contrast((255.0, 255.0, 255.0, 1.0), (255.0, 255.0, 255.0, 1.0)), 2), round(contrast((0.0, 0.0, 0.0, 1.0), (255.0, 255.0, 255.0, 1.0)), 1)
    (1.0, 21.0)
    """
    hi, lo = sorted((_luminance(over(fg, bg)), _luminance(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)
