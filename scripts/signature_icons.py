#!/usr/bin/env python3
"""Draws the email signature's social icons (teams.md 2): one 32x32 PNG per platform of
the contract (product.md 1), a white glyph on a transparent ground; the signature puts each
on a tile of the card's accent colour. Standard library only; 1-bit greyscale with tRNS
keeps each file near 100 bytes, since every byte is in the worker's upload.

    python3 scripts/signature_icons.py   # writes src/public/signature/*.png
"""
import os
import struct
import zlib

# The contract's platforms, in its order (product.md 1).
PLATFORMS = ("linkedin xing x facebook instagram youtube tiktok github gitlab behance "
             "dribbble pinterest snapchat threads mastodon bluesky whatsapp telegram signal "
             "skype discord twitch spotify soundcloud vimeo medium website other").split()

# A 5x7 pixel font of the letters used below; '#' is ink.
FONT = {
    "A": [".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"],
    "B": ["####.", "#...#", "#...#", "####.", "#...#", "#...#", "####."],
    "C": [".###.", "#...#", "#....", "#....", "#....", "#...#", ".###."],
    "D": ["####.", "#...#", "#...#", "#...#", "#...#", "#...#", "####."],
    "G": [".###.", "#...#", "#....", "#.###", "#...#", "#...#", ".###."],
    "H": ["#...#", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"],
    "I": ["#####", "..#..", "..#..", "..#..", "..#..", "..#..", "#####"],
    "L": ["#....", "#....", "#....", "#....", "#....", "#....", "#####"],
    "M": ["#...#", "##.##", "#.#.#", "#.#.#", "#...#", "#...#", "#...#"],
    "P": ["####.", "#...#", "#...#", "####.", "#....", "#....", "#...."],
    "S": [".####", "#....", "#....", ".###.", "....#", "....#", "####."],
    "T": ["#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#.."],
    "V": ["#...#", "#...#", "#...#", "#...#", "#...#", ".#.#.", "..#.."],
    "W": ["#...#", "#...#", "#...#", "#.#.#", "#.#.#", "##.##", "#...#"],
    "X": ["#...#", "#...#", ".#.#.", "..#..", ".#.#.", "#...#", "#...#"],
    "a": [".....", ".....", ".###.", "....#", ".####", "#...#", ".####"],
    "c": [".....", ".....", ".###.", "#....", "#....", "#...#", ".###."],
    "e": [".....", ".....", ".###.", "#...#", "#####", "#....", ".###."],
    "f": ["..##.", ".#...", "####.", ".#...", ".#...", ".#...", ".#..."],
    "i": ["..#..", ".....", ".##..", "..#..", "..#..", "..#..", ".###."],
    "k": ["#....", "#....", "#..#.", "#.#..", "##...", "#.#..", "#..#."],
    "n": [".....", ".....", "####.", "#...#", "#...#", "#...#", "#...#"],
    "p": [".....", ".....", "####.", "#...#", "####.", "#....", "#...."],
    "r": [".....", ".....", "#.##.", "##..#", "#....", "#....", "#...."],
    "s": [".....", ".....", ".####", "#....", ".###.", "....#", "####."],
    "t": [".#...", ".#...", "####.", ".#...", ".#...", ".#..#", "..##."],
    "w": [".....", ".....", "#...#", "#...#", "#.#.#", "#.#.#", ".#.#."],
    "x": [".....", ".....", "#...#", ".#.#.", "..#..", ".#.#.", "#...#"],
    "@": [".###.", "#...#", "#.###", "#.#.#", "#.###", "#....", ".###."],
    ">": ["#....", "##...", "###..", "####.", "###..", "##...", "#...."],
    ".": [".....", ".....", ".....", ".....", ".....", ".....", "..#.."],
}

# What each platform's tile shows: its initials, or a sign (play, globe, dots).
GLYPHS = {
    "linkedin": "in", "xing": "xi", "x": "X", "facebook": "f", "instagram": "IG",
    "youtube": ">", "tiktok": "Tk", "github": "GH", "gitlab": "GL", "behance": "Be",
    "dribbble": "Dr", "pinterest": "P", "snapchat": "Sn", "threads": "@", "mastodon": "Ma",
    "bluesky": "Bs", "whatsapp": "WA", "telegram": "TG", "signal": "Si", "skype": "S",
    "discord": "Dc", "twitch": "Tw", "spotify": "Sp", "soundcloud": "SC", "vimeo": "V",
    "medium": "M", "website": None, "other": "...",
}

SIZE = 32


def text_pixels(text):
    """Ink positions of `text`, centred; one character at scale 3, more at scale 2."""
    scale = 3 if len(text) == 1 else 2
    gap = 1 if text == "..." else 2
    width = len(text) * 5 * scale + (len(text) - 1) * gap * (scale - 1)
    if text == "...":
        width = 3 * scale + 2 * 4 * scale
    x0, y0 = (SIZE - width) // 2, (SIZE - 7 * scale) // 2
    ink = set()
    x = x0
    for ch in text:
        rows = FONT[ch]
        cols = [c for c in range(5) if any(r[c] == "#" for r in rows)] if text == "..." else range(5)
        for ry, row in enumerate(rows):
            for i, cx in enumerate(cols):
                if row[cx] == "#":
                    for dy in range(scale):
                        for dx in range(scale):
                            ink.add((x + i * scale + dx, y0 + ry * scale + dy))
        x += (len(cols) * scale) + (4 * scale if text == "..." else gap * (scale - 1))
    return ink


def globe():
    """A circle with an equator and a meridian ellipse: the web."""
    ink = set()
    c, r = 15.5, 11.0
    for y in range(SIZE):
        for x in range(SIZE):
            dx, dy = x - c, y - c
            d = (dx * dx + dy * dy) ** 0.5
            ring = abs(d - r) < 1.1
            meridian = abs((dx / 5.0) ** 2 + (dy / r) ** 2 - 1) < 0.25 and d < r
            line = (abs(dy) < 1 or abs(dx) < 1) and d < r
            if ring or meridian or line:
                ink.add((x, y))
    return ink


def png(ink):
    """1-bit greyscale, grey 0 transparent (tRNS), ink white."""
    raw = b""
    for y in range(SIZE):
        row = bytearray(SIZE // 8)
        for x in range(SIZE):
            if (x, y) in ink:
                row[x // 8] |= 0x80 >> (x % 8)
        raw += b"\0" + bytes(row)

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", SIZE, SIZE, 1, 0, 0, 0, 0))
            + chunk(b"tRNS", b"\0\0")
            + chunk(b"IDAT", zlib.compress(raw, 9))
            + chunk(b"IEND", b""))


def main():
    out = os.path.join(os.path.dirname(__file__), "..", "src", "public", "signature")
    os.makedirs(out, exist_ok=True)
    total = 0
    for p in PLATFORMS:
        ink = globe() if GLYPHS[p] is None else text_pixels(GLYPHS[p])
        data = png(ink)
        total += len(data)
        with open(os.path.join(out, p + ".png"), "wb") as f:
            f.write(data)
    print(f"{len(PLATFORMS)} icons, {total} bytes")


if __name__ == "__main__":
    main()
