#!/usr/bin/env python3
"""Turns docs/cli.md into the clrtrace(1) man page (roff, man macros).

Usage: md2man.py INPUT.md OUTPUT.1 VERSION

Handles the Markdown docs/cli.md uses: '#' title, '##' sections, '###'
subsections, paragraphs, fenced code blocks, '-' lists, tables (each row
becomes a tagged paragraph), `code` and **bold**. The page is the manual's
text, so docs/cli.md stays the one place it is written.
"""
import re
import sys


def escape(text):
    """Roff-escapes plain text: backslashes and hyphens."""
    return text.replace("\\", "\\e").replace("-", "\\-")


def inline(text):
    """`code` and **bold** as bold, [text](link) as text; the rest escaped."""
    out = []
    pos = 0
    for m in re.finditer(r"`([^`]+)`|\*\*([^*]+)\*\*|\[([^\]]+)\]\([^)]+\)", text):
        out.append(escape(text[pos:m.start()]))
        if m.group(1) is not None:
            out.append("\\fB" + escape(m.group(1)) + "\\fR")
        elif m.group(2) is not None:
            out.append("\\fB" + escape(m.group(2)) + "\\fR")
        else:
            out.append(escape(m.group(3)))
        pos = m.end()
    out.append(escape(text[pos:]))
    return "".join(out)


def line_safe(text):
    """A roff text line must not start with '.' or "'"."""
    return "\\&" + text if text[:1] in (".", "'") else text


def table_cells(row):
    return [c.strip() for c in row.strip().strip("|").split("|")]


def convert(md, version):
    # No hyphenation, left-aligned: variable names and paths stay whole.
    out = ['.TH CLRTRACE 1 "" "clrtrace %s" "User Commands"' % version, ".nh", ".ad l"]
    lines = md.splitlines()
    i = 0
    para = []

    def flush():
        if para:
            out.append(".PP")
            out.append(line_safe(inline(" ".join(para))))
            para.clear()

    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            flush()
            out.append(".PP")
            out.append(".RS 4")
            out.append(".nf")
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                out.append(line_safe(escape(lines[i])))
                i += 1
            out.append(".fi")
            out.append(".RE")
        elif line.startswith("# "):
            flush()  # the title: .TH says it
        elif line.startswith("## "):
            flush()
            out.append(".SH " + escape(line[3:].strip()))
        elif line.startswith("### "):
            flush()
            out.append(".SS " + inline(line[4:].strip()))
        elif line.startswith("|"):
            flush()
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(table_cells(lines[i]))
                i += 1
            i -= 1
            head, body = rows[0], [r for r in rows[2:]]
            for r in body:
                tag = r[0] if r[0] else "(default)"
                extra = [f"{head[k]}: {r[k]}" for k in range(1, len(r) - 1) if r[k]]
                out.append(".TP")
                out.append(line_safe(inline(tag)))
                text = r[-1] + (" (" + "; ".join(extra) + ")" if extra else "")
                out.append(line_safe(inline(text)))
        elif line.startswith("- "):
            flush()
            item = [line[2:].strip()]
            while i + 1 < len(lines) and lines[i + 1].startswith("  ") and lines[i + 1].strip():
                i += 1
                item.append(lines[i].strip())
            out.append('.IP "\\(bu" 2')
            out.append(line_safe(inline(" ".join(item))))
        elif not line.strip():
            flush()
        else:
            para.append(line.strip())
        i += 1
    flush()
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 4:
        sys.stderr.write("usage: md2man.py INPUT.md OUTPUT.1 VERSION\n")
        return 2
    with open(sys.argv[1], encoding="utf-8") as f:
        md = f.read()
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        f.write(convert(md, sys.argv[3]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
